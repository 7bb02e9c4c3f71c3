#!/usr/bin/python3
"""Freelance client on libzmq, for the interop tests (10/FLP; the guide's chapter 4, models 1-3).

usage: flclient.py [--timeout MS] MODEL COUNT ENDPOINT...
  --timeout: model 1's per-try timeout, models 2 and 3's global timeout (else the guide's values)
  model 1: per request, each server in turn on a new REQ socket with a 1000 ms timeout (a single
           server: up to 3 tries); the reply must echo the request
  model 2: one DEALER to every server; each request numbered and sent once per server; the first
           reply carrying its number wins (2500 ms), others are dropped
  model 3: one ROUTER; servers addressed by their endpoints, pinged (until first heard: every
           100 ms, then every 2000 ms), alive for 6000 ms after anything they send; each request
           goes to the first live server, again to the next live one if that one dies, and fails
           after 3000 ms
Prints "reply <n>" per request, then "ok <count>" and exits 0; or "failed <n>" and exits 1.
"""
import sys
import time

import zmq

BODY = b"random name"


def now_ms():
    return int(time.monotonic() * 1000)


TIMEOUT = {}


def timeout(default):
    return TIMEOUT.get("ms", default)


def model1(ctx, endpoints, count):
    tries = 3 if len(endpoints) == 1 else 1
    for n in range(1, count + 1):
        got = None
        for endpoint in endpoints:
            for _ in range(tries):
                req = ctx.socket(zmq.REQ)
                req.setsockopt(zmq.LINGER, 0)
                req.connect(endpoint)
                req.send(BODY)
                if req.poll(timeout(1000)):
                    got = req.recv_multipart()
                req.close()
                if got is not None:
                    break
            if got is not None:
                break
        if got != [BODY]:
            return n
        print("reply %d" % n, flush=True)
    return 0


def model2(ctx, endpoints, count):
    dealer = ctx.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    for e in endpoints:
        dealer.connect(e)  # a pipe per server at once (ZMQ_IMMEDIATE is off): the copies spread over them
    for n in range(1, count + 1):
        seq = str(n).encode()
        for _ in endpoints:
            dealer.send_multipart([b"", seq, BODY])
        deadline = now_ms() + timeout(2500)
        got = None
        while got is None and now_ms() < deadline:
            if dealer.poll(max(1, deadline - now_ms())):
                frames = dealer.recv_multipart()
                if len(frames) >= 3 and frames[1] == seq:
                    got = frames[2:]
        if got != [b"OK"]:
            return n
        print("reply %d" % n, flush=True)
    return 0


def model3(ctx, endpoints, count):
    router = ctx.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    servers = {}
    for e in endpoints:
        router.connect(e)
        servers[e] = {"alive": False, "expires": 0, "ping_at": 0, "heard": False}
    live = []

    def ping_due():
        t = now_ms()
        for e, s in servers.items():
            if t >= s["ping_at"]:
                try:
                    router.send_multipart([e.encode(), b"PING"])
                except zmq.ZMQError:
                    pass
                s["ping_at"] = t + (2000 if s["heard"] else 100)
            if s["alive"] and t >= s["expires"]:
                s["alive"] = False
                live.remove(e)

    for n in range(1, count + 1):
        seq = str(n).encode()
        deadline = now_ms() + timeout(3000)
        sent_to = None
        got = None
        while got is None and now_ms() < deadline:
            ping_due()
            if sent_to is None or sent_to not in live:
                sent_to = live[0] if live else None
                if sent_to is not None:
                    router.send_multipart([sent_to.encode(), seq, BODY])
            if router.poll(50):
                frames = router.recv_multipart()
                e = frames[0].decode(errors="replace")
                s = servers.get(e)
                if s is None:
                    continue
                s["heard"] = True
                s["expires"] = now_ms() + 6000
                if not s["alive"]:
                    s["alive"] = True
                    live.append(e)
                if len(frames) >= 3 and frames[1] == seq:
                    got = frames[2:]
        if got != [b"OK"]:
            return n
        print("reply %d" % n, flush=True)
    return 0


def main():
    args = sys.argv[1:]
    if args[0] == "--timeout":
        TIMEOUT["ms"] = int(args[1])
        args = args[2:]
    model = int(args[0])
    count = int(args[1])
    endpoints = args[2:]
    ctx = zmq.Context()
    start = time.monotonic()
    failed = {1: model1, 2: model2, 3: model3}[model](ctx, endpoints, count)
    if failed:
        print("failed %d" % failed, flush=True)
        sys.exit(1)
    print("Average round trip cost: %d usec" % ((time.monotonic() - start) * 1e6 / count), flush=True)
    print("ok %d" % count, flush=True)
    ctx.destroy(linger=0)


if __name__ == "__main__":
    main()
