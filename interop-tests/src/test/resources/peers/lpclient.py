#!/usr/bin/python3
"""Lazy Pirate client on libzmq, for the interop tests.

usage: lpclient.py ENDPOINT COUNT TIMEOUT_MS TRIES
Sends the numbers 1..COUNT, each as a one-frame request, and expects each back as its reply.
A try that times out closes the REQ socket (linger 0) and resends on a new one; after TRIES
tries the client gives up. One line per event on stdout:
  sent N / reply N / retry N / wrong N <reply> / abandon N / done COUNT
Exit status: 0 when every request got its echo, 1 otherwise.
"""
import sys

import zmq


def new_socket(ctx, endpoint):
    s = ctx.socket(zmq.REQ)
    s.setsockopt(zmq.LINGER, 0)
    s.connect(endpoint)
    return s


def main():
    endpoint, count, timeout_ms, tries = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    ctx = zmq.Context()
    sock = new_socket(ctx, endpoint)
    for n in range(1, count + 1):
        body = str(n).encode()
        answered = False
        for attempt in range(1, tries + 1):
            sock.send(body)
            print("sent %d" % n, flush=True)
            if sock.poll(timeout_ms, zmq.POLLIN):
                reply = sock.recv_multipart()
                if reply != [body]:
                    print("wrong %d %r" % (n, reply), flush=True)
                    return 1
                print("reply %d" % n, flush=True)
                answered = True
                break
            sock.close()
            sock = new_socket(ctx, endpoint)
            if attempt < tries:
                print("retry %d" % n, flush=True)
        if not answered:
            print("abandon %d" % n, flush=True)
            return 1
    print("done %d" % count, flush=True)
    sock.close()
    ctx.term()
    return 0


if __name__ == "__main__":
    sys.exit(main())
