#!/usr/bin/python3
"""Paranoid Pirate (6/PPP) worker on libzmq, for the interop tests. Echoes requests.

usage: ppworker.py ENDPOINT INTERVAL_MS LIVENESS RECONNECT_MS RECONNECT_MAX_MS IDENTITY
A DEALER says READY (01), sends HEARTBEAT (02) every interval, and takes the queue for dead after
LIVENESS intervals without a word from it; it then closes the socket, waits (the wait doubling
from RECONNECT_MS up to RECONNECT_MAX_MS, reset by any message from the queue), and connects a
new one. A request is an envelope ending in an empty frame, then a body; the reply is the same
frames. One line per event on stdout:
  ready ID / request BODY / queue-heartbeat / heartbeat-lost / reconnect MS / invalid FRAMES
"""
import sys
import time

import zmq

READY = b"\x01"
HEARTBEAT = b"\x02"


def main():
    endpoint = sys.argv[1]
    interval = int(sys.argv[2]) / 1000.0
    liveness_max = int(sys.argv[3])
    backoff_first = int(sys.argv[4]) / 1000.0
    backoff_max = int(sys.argv[5]) / 1000.0
    identity = sys.argv[6].encode()
    ctx = zmq.Context()

    def connect():
        s = ctx.socket(zmq.DEALER)
        s.setsockopt(zmq.LINGER, 0)
        s.setsockopt(zmq.IDENTITY, identity)
        s.connect(endpoint)
        s.send(READY)
        print("ready %s" % identity.decode(), flush=True)
        return s

    sock = connect()
    liveness = liveness_max
    backoff = backoff_first
    next_beat = time.monotonic() + interval
    next_check = time.monotonic() + interval
    heard = False
    while True:
        wait = max(0.0, min(next_beat, next_check) - time.monotonic())
        if sock.poll(int(wait * 1000) + 1, zmq.POLLIN):
            frames = sock.recv_multipart()
            heard = True
            liveness = liveness_max
            backoff = backoff_first
            if frames == [HEARTBEAT]:
                print("queue-heartbeat", flush=True)
            elif b"" in frames[:-1]:
                body = frames[frames.index(b"") + 1:]
                print("request %s" % b" ".join(body).decode(errors="replace"), flush=True)
                sock.send_multipart(frames)
            else:
                print("invalid %r" % frames, flush=True)
        now = time.monotonic()
        if now >= next_check:
            next_check = now + interval
            if heard:
                heard = False
            else:
                liveness -= 1
                if liveness == 0:
                    print("heartbeat-lost", flush=True)
                    sock.close()
                    print("reconnect %d" % int(backoff * 1000), flush=True)
                    time.sleep(backoff)
                    backoff = min(backoff * 2, backoff_max)
                    sock = connect()
                    liveness = liveness_max
                    next_beat = next_check = time.monotonic() + interval
                    continue
        if now >= next_beat:
            next_beat = now + interval
            sock.send(HEARTBEAT)


if __name__ == "__main__":
    main()
