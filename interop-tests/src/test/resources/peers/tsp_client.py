#!/usr/bin/python3
"""The guide's Titanic client flow (9/TSP) on real libzmq (python3-zmq), for the interop tests.

  tsp_client.py ENDPOINT [--service echo] [--count N] [--poll MS] [--timeout MS] [BODY...]

For each of COUNT requests, over MDP/0.1 (a REQ socket; on a timeout it is closed and the call
made again on a new one, 3 tries): titanic.request "SERVICE | BODY..." and expects "200 | uuid";
then titanic.reply "uuid" every POLL ms until "200 | reply...", ("300": pending); then
titanic.close "uuid" and expects "200". Prints "uuid U", "pending", "reply FRAMES", "closed",
and finally "done COUNT"; exits 1 on 400 or 500, 2 when the broker never answered.
"""
import argparse
import sys
import time

import zmq

from mdp_common import CLIENT, say, text


class Session:
    def __init__(self, endpoint, timeout):
        self.ctx = zmq.Context()
        self.endpoint = endpoint
        self.timeout = timeout
        self.sock = None
        self.reconnect()

    def reconnect(self):
        if self.sock is not None:
            self.sock.close(0)
        self.sock = self.ctx.socket(zmq.REQ)
        self.sock.linger = 0
        self.sock.connect(self.endpoint)

    def call(self, service, frames):
        for _ in range(3):
            self.sock.send_multipart([CLIENT["0.1"], service] + frames)
            if self.sock.poll(self.timeout, zmq.POLLIN):
                msg = self.sock.recv_multipart()
                if len(msg) < 3 or msg[0] != CLIENT["0.1"] or msg[1] != service:
                    say("invalid", text(msg))
                    sys.exit(3)
                return msg[2:]
            self.reconnect()
        say("no answer from", service.decode())
        sys.exit(2)


def tsp(session, service, frames):
    """A TSP call: the frames after the status for 200, None for 300; exits on 400 and 500."""
    reply = session.call(service, frames)
    status = reply[0][:3]
    if status == b"200":
        return reply[1:]
    if status == b"300":
        return None
    say("status", status.decode(), "from", service.decode())
    sys.exit(1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("endpoint")
    p.add_argument("--service", default="echo")
    p.add_argument("--count", type=int, default=1)
    p.add_argument("--poll", type=int, default=100)
    p.add_argument("--timeout", type=int, default=2500)
    p.add_argument("body", nargs="*", default=["Hello world"])
    a = p.parse_intermixed_args()
    session = Session(a.endpoint, a.timeout)
    body = [b.encode() for b in a.body]
    for _ in range(a.count):
        answer = tsp(session, b"titanic.request", [a.service.encode()] + body)
        uuid = answer[0]
        if len(uuid) != 32 or any(c not in b"0123456789abcdefABCDEF" for c in uuid):
            say("invalid uuid", uuid.decode("ascii", "replace"))
            sys.exit(3)
        say("uuid", uuid.decode())
        while True:
            time.sleep(a.poll / 1000.0)
            reply = tsp(session, b"titanic.reply", [uuid])
            if reply is not None:
                say("reply", text(reply))
                break
            say("pending")
        tsp(session, b"titanic.close", [uuid])
        say("closed")
    say("done", a.count)
    session.ctx.destroy(0)


if __name__ == "__main__":
    main()
