#!/usr/bin/python3
"""Paranoid Pirate (6/PPP) queue on libzmq, for the interop tests.

usage: ppqueue.py FRONTEND BACKEND INTERVAL_MS LIVENESS
Two ROUTERs: clients on FRONTEND, workers on BACKEND. Ready workers wait in least-recently-used
order; a request goes to the first, behind its identity. Anything a worker sends makes it ready
and alive; a reply goes back to its client. Every interval each ready worker gets a HEARTBEAT,
and those silent for LIVENESS intervals are forgotten. One line per event on stdout:
  listening FRONTEND BACKEND / worker-ready ID / worker-expired ID / invalid ID FRAMES
"""
import collections
import sys
import time

import zmq

READY = b"\x01"
HEARTBEAT = b"\x02"


def main():
    interval = int(sys.argv[3]) / 1000.0
    lifetime = interval * int(sys.argv[4])
    ctx = zmq.Context()
    frontend = ctx.socket(zmq.ROUTER)
    backend = ctx.socket(zmq.ROUTER)
    frontend.bind(sys.argv[1])
    backend.bind(sys.argv[2])
    print("listening %s %s" % (frontend.getsockopt_string(zmq.LAST_ENDPOINT),
                               backend.getsockopt_string(zmq.LAST_ENDPOINT)), flush=True)
    ready = collections.OrderedDict()  # worker id -> expiry, least recently used first
    next_beat = time.monotonic() + interval
    workers_only = zmq.Poller()
    workers_only.register(backend, zmq.POLLIN)
    both = zmq.Poller()
    both.register(backend, zmq.POLLIN)
    both.register(frontend, zmq.POLLIN)
    while True:
        wait = max(0.0, next_beat - time.monotonic())
        poller = both if ready else workers_only  # requests wait in the frontend while no worker is ready
        events = dict(poller.poll(int(wait * 1000) + 1))
        if backend in events:
            frames = backend.recv_multipart()
            worker, rest = frames[0], frames[1:]
            if len(rest) == 1 and rest[0] not in (READY, HEARTBEAT):
                print("invalid %s %r" % (worker.decode(errors="replace"), rest), flush=True)
            else:
                if worker not in ready:
                    print("worker-ready %s" % worker.decode(errors="replace"), flush=True)
                ready.pop(worker, None)
                ready[worker] = time.monotonic() + lifetime
                if len(rest) > 1:
                    frontend.send_multipart(rest)
        if frontend in events and ready:
            request = frontend.recv_multipart()
            worker, _ = ready.popitem(last=False)
            backend.send_multipart([worker] + request)
        now = time.monotonic()
        if now >= next_beat:
            next_beat = now + interval
            for worker in list(ready):
                backend.send_multipart([worker, HEARTBEAT])
        for worker, expiry in list(ready.items()):
            if expiry < now:
                del ready[worker]
                print("worker-expired %s" % worker.decode(errors="replace"), flush=True)


if __name__ == "__main__":
    main()
