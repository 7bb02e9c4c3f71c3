#!/usr/bin/python3
"""A Titanic server (9/TSP) on real libzmq (python3-zmq), after the guide's design, for the
interop tests.

  tsp_server.py ENDPOINT DIR [--heartbeat MS]

Three MDP/0.1 workers, each on a thread of its own: titanic.request writes the request to
DIR/UUID.req (one file per message, written then renamed), hands the uuid to the dispatcher over
an inproc pipe and answers "200 | uuid"; titanic.reply answers "200 | reply..." from DIR/UUID.rep,
"300" while only the request exists, "400" otherwise; titanic.close deletes both and answers "200".
The dispatcher (the main thread) keeps the pending uuids in memory (read from DIR at start) and,
at least once a second, for each asks mmi.service about its service and, when it is "200",
sends the request (1 s timeout, one try) and stores the reply. Prints "ready" when the workers
registered, and "dispatched UUID" for each reply stored; runs until killed.
"""
import argparse
import os
import struct
import threading
import time
import uuid as uuidlib

import zmq

from mdp_common import CLIENT, W, WORKER, say, worker_command


def write_frames(path, frames):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        for fr in frames:
            f.write(struct.pack(">I", len(fr)))
            f.write(fr)
    os.replace(tmp, path)


def read_frames(path):
    with open(path, "rb") as f:
        data = f.read()
    frames, i = [], 0
    while i < len(data):
        (n,) = struct.unpack(">I", data[i:i + 4])
        frames.append(data[i + 4:i + 4 + n])
        i += 4 + n
    return frames


class Worker:
    """An MDP/0.1 worker over a DEALER: READY, heartbeats, one request at a time."""

    def __init__(self, ctx, endpoint, service, heartbeat):
        self.ctx, self.endpoint, self.service = ctx, endpoint, service
        self.interval = heartbeat / 1000.0
        self.sock = None
        self.connect()

    def connect(self):
        if self.sock is not None:
            self.sock.close(0)
        self.sock = self.ctx.socket(zmq.DEALER)
        self.sock.linger = 0
        self.sock.connect(self.endpoint)
        self.send(worker_command("0.1", "READY", self.service))
        self.heard = time.monotonic()

    def send(self, frames):
        self.sock.send_multipart(frames)
        self.sent = time.monotonic()

    def serve(self, handle):
        codes = W["0.1"]
        while True:
            if self.sock.poll(int(self.interval * 1000), zmq.POLLIN):
                msg = self.sock.recv_multipart()
                self.heard = time.monotonic()
                if len(msg) < 3 or msg[0] != b"" or msg[1] != WORKER["0.1"]:
                    continue
                code = msg[2][0] if len(msg[2]) == 1 else -1
                if code == codes["REQUEST"]:
                    client, body = msg[3], msg[5:]
                    self.send(worker_command("0.1", "REPLY", client, b"", *handle(body)))
                elif code == codes["DISCONNECT"]:
                    self.connect()
            elif time.monotonic() - self.heard > self.interval * 5:
                self.connect()
            if time.monotonic() - self.sent >= self.interval / 2:
                self.send(worker_command("0.1", "HEARTBEAT"))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("endpoint")
    p.add_argument("dir")
    p.add_argument("--heartbeat", type=int, default=1000)
    a = p.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    ctx = zmq.Context()
    req_path = lambda u: os.path.join(a.dir, u + ".req")
    rep_path = lambda u: os.path.join(a.dir, u + ".rep")

    pipe_in = ctx.socket(zmq.PAIR)
    pipe_in.bind("inproc://titanic-queue")
    lock = threading.Lock()

    def request_worker():
        out = ctx.socket(zmq.PAIR)
        out.connect("inproc://titanic-queue")

        def handle(body):
            if len(body) < 2:
                return [b"400"]
            u = uuidlib.uuid4().hex
            write_frames(req_path(u), body)
            with lock:
                out.send(u.encode())
            return [b"200", u.encode()]

        Worker(ctx, a.endpoint, b"titanic.request", a.heartbeat).serve(handle)

    def valid(body):
        return len(body) == 1 and len(body[0]) == 32 and all(c in b"0123456789abcdefABCDEF" for c in body[0])

    def reply_worker():
        def handle(body):
            if not valid(body):
                return [b"400"]
            u = body[0].decode().lower()
            if os.path.exists(rep_path(u)):
                return [b"200"] + read_frames(rep_path(u))
            if os.path.exists(req_path(u)):
                return [b"300"]
            return [b"400"]

        Worker(ctx, a.endpoint, b"titanic.reply", a.heartbeat).serve(handle)

    def close_worker():
        def handle(body):
            if not valid(body):
                return [b"400"]
            u = body[0].decode().lower()
            for path in (req_path(u), rep_path(u)):
                try:
                    os.remove(path)
                except FileNotFoundError:
                    pass
            return [b"200"]

        Worker(ctx, a.endpoint, b"titanic.close", a.heartbeat).serve(handle)

    for target in (request_worker, reply_worker, close_worker):
        threading.Thread(target=target, daemon=True).start()
    say("ready")

    pending = [f[:-4] for f in sorted(os.listdir(a.dir), key=lambda f: os.path.getmtime(os.path.join(a.dir, f)))
               if f.endswith(".req") and not os.path.exists(rep_path(f[:-4]))]
    client = [None]

    def call(service, frames):
        """An MDP/0.1 request on a fresh REQ per try (1 s, one try): the body frames, or None."""
        if client[0] is None:
            s = ctx.socket(zmq.REQ)
            s.linger = 0
            s.connect(a.endpoint)
            client[0] = s
        s = client[0]
        s.send_multipart([CLIENT["0.1"], service] + frames)
        if s.poll(1000, zmq.POLLIN):
            msg = s.recv_multipart()
            return msg[2:] if len(msg) >= 2 and msg[1] == service else None
        s.close(0)
        client[0] = None
        return None

    while True:
        if pipe_in.poll(1000, zmq.POLLIN):
            pending.append(pipe_in.recv().decode())
            while pipe_in.poll(0, zmq.POLLIN):
                pending.append(pipe_in.recv().decode())
        for u in list(pending):
            if not os.path.exists(req_path(u)):
                pending.remove(u)  # closed
                continue
            frames = read_frames(req_path(u))
            service = frames[0]
            mmi = call(b"mmi.service", [service])
            if not mmi or mmi[0] != b"200":
                continue
            reply = call(service, frames[1:])
            if reply is not None and os.path.exists(req_path(u)):
                write_frames(rep_path(u), reply)
                pending.remove(u)
                say("dispatched", u)


if __name__ == "__main__":
    main()
