#!/usr/bin/python3
"""Lazy Pirate server on libzmq, for the interop tests: a REP socket that echoes.

usage: lpserver.py ENDPOINT
Prints "listening <endpoint>" once bound (a tcp port * is resolved), then "request <frames>"
for each request. Runs until killed.
"""
import sys

import zmq


def main():
    ctx = zmq.Context()
    rep = ctx.socket(zmq.REP)
    rep.bind(sys.argv[1])
    print("listening %s" % rep.getsockopt_string(zmq.LAST_ENDPOINT), flush=True)
    while True:
        frames = rep.recv_multipart()
        print("request %s" % b" ".join(frames).decode(errors="replace"), flush=True)
        rep.send_multipart(frames)


if __name__ == "__main__":
    main()
