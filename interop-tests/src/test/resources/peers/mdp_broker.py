#!/usr/bin/python3
"""A Majordomo broker on real libzmq (python3-zmq), for the interop tests.

  mdp_broker.py ENDPOINT [--heartbeat MS] [--liveness N]

One ROUTER socket for clients and workers of MDP/0.1 and MDP/0.2 (each message says which by its
header), a FIFO queue per service, the least recently used idle worker first, heartbeats to
every worker, silent workers forgotten, DISCONNECT for unexpected commands, and mmi.service.
Replies go to each client in its own version; PARTIAL replies for a 0.1 client are joined into
its one REPLY. Prints "bound ENDPOINT", then one line per worker registered; runs until killed.
"""
import argparse
import collections
import time

import zmq

from mdp_common import CLIENT, C_FINAL, C_PARTIAL, C_REQUEST, W, WORKER, say


def main():
    p = argparse.ArgumentParser()
    p.add_argument("endpoint")
    p.add_argument("--heartbeat", type=int, default=100)
    p.add_argument("--liveness", type=int, default=5)
    a = p.parse_args()
    ctx = zmq.Context()
    sock = ctx.socket(zmq.ROUTER)
    sock.linger = 0
    sock.bind(a.endpoint)
    say("bound", sock.getsockopt(zmq.LAST_ENDPOINT).decode())
    interval = a.heartbeat / 1000.0
    expiry = interval * a.liveness
    services = collections.defaultdict(lambda: {"requests": collections.deque(), "idle": collections.deque()})
    workers = {}   # id -> dict(service, version, heard, job)

    def to_worker(wid, v, name, *rest):
        sock.send_multipart([wid] + ([b""] if v == "0.1" else []) + [WORKER[v], bytes([W[v][name]])] + list(rest))

    def to_client(cid, v, fin, service, body):
        if v == "0.1":
            sock.send_multipart([cid, b"", CLIENT[v], service] + body)
        else:
            sock.send_multipart([cid, CLIENT[v], bytes([C_FINAL if fin else C_PARTIAL]), service] + body)

    def forget(wid):
        w = workers.pop(wid, None)
        if w and wid in services[w["service"]]["idle"]:
            services[w["service"]]["idle"].remove(wid)

    def disconnect(wid, v):
        to_worker(wid, v, "DISCONNECT")
        forget(wid)

    def dispatch(name):
        s = services[name]
        while s["idle"] and s["requests"]:
            wid = s["idle"].popleft()
            cid, cv, body = s["requests"].popleft()
            w = workers[wid]
            w["job"] = {"client": cid, "version": cv, "joined": []}
            to_worker(wid, w["version"], "REQUEST", cid, b"", *body)

    def idle(wid):
        w = workers[wid]
        w["job"] = None
        services[w["service"]]["idle"].append(wid)
        dispatch(w["service"])

    next_beat = time.monotonic() + interval
    while True:
        if sock.poll(a.heartbeat, zmq.POLLIN):
            msg = sock.recv_multipart()
            sender, rest = msg[0], msg[1:]
            if len(rest) >= 2 and rest[0] == b"":
                v, header, args = "0.1", rest[1], rest[2:]
            elif rest:
                v, header, args = "0.2", rest[0], rest[1:]
            else:
                continue
            if header == CLIENT[v]:
                if v == "0.2":
                    if not args or args[0] != bytes([C_REQUEST]):
                        continue
                    args = args[1:]
                if len(args) < 2:
                    continue
                name, body = args[0], args[1:]
                if name.startswith(b"mmi."):
                    code = b"501"
                    if name == b"mmi.service":
                        code = b"200" if any(w["service"] == body[0] for w in workers.values()) else b"404"
                    to_client(sender, v, True, name, [code])
                    continue
                services[name]["requests"].append((sender, v, body))
                dispatch(name)
            elif header == WORKER[v] and args and len(args[0]) == 1:
                code = args[0][0]
                names = {c: n for n, c in W[v].items()}
                cmd = names.get(code)
                w = workers.get(sender)
                if w is not None:
                    if w["version"] != v:
                        disconnect(sender, w["version"])
                        continue
                    w["heard"] = time.monotonic()
                if cmd == "READY" and len(args) == 2:
                    if w is not None or args[1].startswith(b"mmi."):
                        disconnect(sender, v)
                    else:
                        workers[sender] = {"service": args[1], "version": v, "heard": time.monotonic(), "job": None}
                        say("worker", v, args[1].decode())
                        idle(sender)
                elif cmd in ("REPLY", "PARTIAL", "FINAL") and len(args) >= 4 and args[2] == b"":
                    if w is None or w["job"] is None or w["job"]["client"] != args[1]:
                        disconnect(sender, v)
                        continue
                    job, body = w["job"], args[3:]
                    partial = cmd == "PARTIAL"
                    if job["version"] == "0.2":
                        to_client(job["client"], "0.2", not partial, w["service"], body)
                    elif partial:
                        job["joined"].extend(body)
                    else:
                        to_client(job["client"], "0.1", True, w["service"], job["joined"] + body)
                    if not partial:
                        idle(sender)
                elif cmd == "HEARTBEAT":
                    if w is None:
                        disconnect(sender, v)
                elif cmd == "DISCONNECT":
                    forget(sender)
                elif w is not None:
                    disconnect(sender, v)
        now = time.monotonic()
        for wid, w in list(workers.items()):
            if now - w["heard"] > expiry:
                say("expired", w["service"].decode())
                forget(wid)
        if now >= next_beat:
            for wid, w in workers.items():
                to_worker(wid, w["version"], "HEARTBEAT")
            next_beat = now + interval


if __name__ == "__main__":
    main()
