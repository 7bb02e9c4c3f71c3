#!/usr/bin/python3
"""Binary Star client on libzmq, for the interop tests (written from the protocol's rules).

usage: bstar_client.py PRIMARY BACKUP REQUESTS TIMEOUT_MS SETTLE_MS PAUSE_MS
Numbered requests on a REQ socket; a request without its reply in time closes the socket, waits
the settle delay and goes to the other server on a new socket (at most 10 tries per request).
Prints "reply N" per good reply, "failover ENDPOINT" per failover, "done N" at the end; exits 0
when every request got its reply, 1 otherwise.
"""
import sys
import time

import zmq


def main():
    servers = [sys.argv[1], sys.argv[2]]
    count, timeout, settle, pause = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
    ctx = zmq.Context()
    current = 0

    def connect():
        s = ctx.socket(zmq.REQ)
        s.linger = 0
        s.connect(servers[current])
        return s

    req = connect()
    for n in range(1, count + 1):
        body = str(n).encode("ascii")
        tries = 0
        while True:
            tries += 1
            req.send(body)
            if req.poll(timeout, zmq.POLLIN):
                reply = req.recv()
                if reply != body:
                    print("bad reply %r" % reply, flush=True)
                    sys.exit(1)
                print("reply %d" % n, flush=True)
                break
            if tries >= 10:
                print("no reply to %d" % n, flush=True)
                sys.exit(1)
            req.close()
            current = (current + 1) % 2
            time.sleep(settle / 1000.0)
            print("failover %s" % servers[current], flush=True)
            req = connect()
        if pause:
            time.sleep(pause / 1000.0)
    print("done %d" % count, flush=True)
    req.close()
    ctx.term()


if __name__ == "__main__":
    main()
