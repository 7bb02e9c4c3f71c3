#!/usr/bin/python3
"""A Majordomo echo worker on real libzmq (python3-zmq), for the interop tests.

  mdp_worker.py ENDPOINT VERSION SERVICE [--partials N] [--heartbeat MS] [--liveness N]

Speaks MDP/0.1 or MDP/0.2 over a DEALER: READY, then answers each REQUEST with its own body (under
0.2 first as N PARTIAL replies, then as the FINAL one), heartbeats, registers again on a new socket
after DISCONNECT or when the broker falls silent. Prints "ready" after each READY and
"request FRAMES" for each request served; runs until killed.
"""
import argparse
import time

import zmq

from mdp_common import W, WORKER, lead, say, text, worker_command


def main():
    p = argparse.ArgumentParser()
    p.add_argument("endpoint")
    p.add_argument("version", choices=["0.1", "0.2"])
    p.add_argument("service")
    p.add_argument("--partials", type=int, default=0)
    p.add_argument("--heartbeat", type=int, default=100)
    p.add_argument("--liveness", type=int, default=5)
    a = p.parse_args()
    v = a.version
    codes = W[v]
    ctx = zmq.Context()
    state = {"sock": None, "sent": 0.0, "heard": 0.0}

    def send(frames):
        state["sock"].send_multipart(frames)
        state["sent"] = time.monotonic()

    def connect():
        if state["sock"] is not None:
            state["sock"].close(0)
        s = ctx.socket(zmq.DEALER)
        s.linger = 0
        s.connect(a.endpoint)
        state["sock"] = s
        state["heard"] = time.monotonic()
        send(worker_command(v, "READY", a.service.encode()))
        say("ready")

    connect()
    interval = a.heartbeat / 1000.0
    while True:
        sock = state["sock"]
        if sock.poll(a.heartbeat, zmq.POLLIN):
            msg = sock.recv_multipart()
            state["heard"] = time.monotonic()
            i = len(lead(v))
            if len(msg) < i + 2 or msg[:i] != lead(v) or msg[i] != WORKER[v]:
                say("invalid", text(msg))
                continue
            code = msg[i + 1][0] if len(msg[i + 1]) == 1 else -1
            if code == codes["REQUEST"]:
                client, empty, body = msg[i + 2], msg[i + 3], msg[i + 4:]
                assert empty == b""
                say("request", text(body))
                if v == "0.2":
                    for _ in range(a.partials):
                        send(worker_command(v, "PARTIAL", client, b"", *body))
                    send(worker_command(v, "FINAL", client, b"", *body))
                else:
                    send(worker_command(v, "REPLY", client, b"", *body))
            elif code == codes["HEARTBEAT"]:
                pass
            elif code == codes["DISCONNECT"]:
                say("disconnected")
                connect()
            else:
                say("invalid", text(msg))
        elif time.monotonic() - state["heard"] > interval * a.liveness:
            say("broker lost")
            connect()
        if time.monotonic() - state["sent"] >= interval / 2:
            send(worker_command(v, "HEARTBEAT"))


if __name__ == "__main__":
    main()
