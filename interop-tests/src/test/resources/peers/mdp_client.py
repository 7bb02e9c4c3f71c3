#!/usr/bin/python3
"""A Majordomo client on real libzmq (python3-zmq), for the interop tests.

  mdp_client.py ENDPOINT VERSION SERVICE COUNT [BODY...] [--timeout MS]

Sends COUNT requests one after the other: under MDP/0.1 through a REQ socket (which adds the
empty frame), under MDP/0.2 through a DEALER (REQUEST command; PARTIAL replies until the FINAL).
Prints "partial FRAMES" and "final FRAMES" for each reply, then "done COUNT"; exits 1 on a
timeout ("timeout"), 3 on a malformed reply ("invalid ...").
"""
import argparse
import sys

import zmq

from mdp_common import CLIENT, C_FINAL, C_PARTIAL, C_REQUEST, say, text


def main():
    p = argparse.ArgumentParser()
    p.add_argument("endpoint")
    p.add_argument("version", choices=["0.1", "0.2"])
    p.add_argument("service")
    p.add_argument("count", type=int)
    p.add_argument("body", nargs="*", default=["hello"])
    p.add_argument("--timeout", type=int, default=5000)
    a = p.parse_args()
    v = a.version
    service = a.service.encode()
    body = [b.encode() for b in a.body]
    ctx = zmq.Context()
    sock = ctx.socket(zmq.REQ if v == "0.1" else zmq.DEALER)
    sock.linger = 0
    sock.connect(a.endpoint)
    for _ in range(a.count):
        if v == "0.1":
            sock.send_multipart([CLIENT[v], service] + body)
        else:
            sock.send_multipart([CLIENT[v], bytes([C_REQUEST]), service] + body)
        while True:
            if not sock.poll(a.timeout, zmq.POLLIN):
                say("timeout")
                sys.exit(1)
            msg = sock.recv_multipart()
            if v == "0.1":
                if len(msg) < 3 or msg[0] != CLIENT[v] or msg[1] != service:
                    say("invalid", text(msg))
                    sys.exit(3)
                say("final", text(msg[2:]))
                break
            if len(msg) < 4 or msg[0] != CLIENT[v] or msg[2] != service or msg[1] not in (bytes([C_PARTIAL]), bytes([C_FINAL])):
                say("invalid", text(msg))
                sys.exit(3)
            if msg[1] == bytes([C_PARTIAL]):
                say("partial", text(msg[3:]))
            else:
                say("final", text(msg[3:]))
                break
    say("done", a.count)
    ctx.destroy(0)


if __name__ == "__main__":
    main()
