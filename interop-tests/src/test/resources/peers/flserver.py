#!/usr/bin/python3
"""Freelance server on libzmq, for the interop tests (10/FLP; the guide's chapter 4, models 1-3).

usage: flserver.py MODEL ENDPOINT
  model 1: REP, echoes every request
  model 2: REP, answers [sequence, body...] with [sequence, "OK"]
  model 3: ROUTER whose identity is ENDPOINT (a "*" host read as localhost); answers
           [client, "PING"] with [client, "PONG"] and [client, control, body...] with
           [client, control, "OK"]
Prints "listening <endpoint>" once bound, then "request <control>" per request. Runs until killed.
"""
import sys

import zmq


def main():
    model = int(sys.argv[1])
    endpoint = sys.argv[2]
    ctx = zmq.Context()
    if model == 3:
        sock = ctx.socket(zmq.ROUTER)
        sock.setsockopt(zmq.IDENTITY, endpoint.replace("://*:", "://localhost:").encode())
    else:
        sock = ctx.socket(zmq.REP)
    sock.setsockopt(zmq.LINGER, 0)
    sock.bind(endpoint)
    print("listening %s" % sock.getsockopt_string(zmq.LAST_ENDPOINT), flush=True)
    while True:
        frames = sock.recv_multipart()
        if model == 1:
            print("request %s" % frames[-1].decode(errors="replace"), flush=True)
            sock.send_multipart(frames)
        elif model == 2:
            print("request %s" % frames[0].decode(errors="replace"), flush=True)
            sock.send_multipart([frames[0], b"OK"])
        else:
            if len(frames) < 2:
                continue
            client, control = frames[0], frames[1]
            if control == b"PING" and len(frames) == 2:
                sock.send_multipart([client, b"PONG"])
            else:
                print("request %s" % control.decode(errors="replace"), flush=True)
                sock.send_multipart([client, control, b"OK"])


if __name__ == "__main__":
    main()
