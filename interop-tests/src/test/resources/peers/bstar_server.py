#!/usr/bin/python3
"""Binary Star server on libzmq, for the interop tests (written from the protocol's rules).

usage: bstar_server.py primary|backup FRONTEND STATE_PUB STATE_PEER HEARTBEAT_MS
A ROUTER frontend that echoes client requests while this server may serve them; its state
(1 primary, 2 backup, 3 active, 4 passive) published as one ASCII frame every heartbeat on a
PUB; the peer's state read from a SUB. The peer is gone after two heartbeats without its state;
a passive server becomes active only when its peer is gone and a client request arrives.
Prints "ready", "state NAME" on each change, "refused" per dropped request, "served" per reply,
"fatal REASON" (then exits 1). Runs until killed.
"""
import sys
import time

import zmq

PRIMARY, BACKUP, ACTIVE, PASSIVE = 1, 2, 3, 4
NAMES = {PRIMARY: "PRIMARY", BACKUP: "BACKUP", ACTIVE: "ACTIVE", PASSIVE: "PASSIVE"}


def now_ms():
    return time.monotonic() * 1000.0


def main():
    role, frontend_ep, pub_ep, peer_ep, hb = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
    ctx = zmq.Context()
    frontend = ctx.socket(zmq.ROUTER)
    frontend.linger = 0
    frontend.bind(frontend_ep)
    pub = ctx.socket(zmq.PUB)
    pub.linger = 0
    pub.bind(pub_ep)
    sub = ctx.socket(zmq.SUB)
    sub.linger = 0
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    sub.connect(peer_ep)
    state = PRIMARY if role == "primary" else BACKUP
    peer_expiry = None
    print("ready", flush=True)

    def change(to):
        nonlocal state
        state = to
        print("state %s" % NAMES[to], flush=True)

    poller = zmq.Poller()
    poller.register(frontend, zmq.POLLIN)
    poller.register(sub, zmq.POLLIN)
    next_beat = now_ms() + hb
    while True:
        timeout = max(0, next_beat - now_ms())
        events = dict(poller.poll(timeout))
        if sub in events:
            text = sub.recv()
            try:
                peer = int(text.decode("ascii"))
            except ValueError:
                peer = 0
            if peer in NAMES:
                fatal = None
                if state == PRIMARY:
                    if peer == BACKUP:
                        change(ACTIVE)
                    elif peer == ACTIVE:
                        change(PASSIVE)
                    elif peer == PRIMARY:
                        fatal = "both primary"
                elif state == BACKUP:
                    if peer == ACTIVE:
                        change(PASSIVE)
                    elif peer == BACKUP:
                        fatal = "both backup"
                elif state == ACTIVE:
                    if peer == ACTIVE:
                        fatal = "dual actives"
                elif state == PASSIVE:
                    if peer in (PRIMARY, BACKUP):
                        change(ACTIVE)
                    elif peer == PASSIVE:
                        fatal = "dual passives"
                if fatal:
                    print("fatal %s" % fatal, flush=True)
                    sys.exit(1)
                peer_expiry = now_ms() + 2 * hb
        if frontend in events:
            msg = frontend.recv_multipart()
            serve = False
            if state in (PRIMARY, ACTIVE):
                serve = True
            elif state == PASSIVE and peer_expiry is not None and now_ms() >= peer_expiry:
                change(ACTIVE)
                serve = True
            if serve:
                frontend.send_multipart(msg)
                print("served", flush=True)
            else:
                print("refused", flush=True)
        if now_ms() >= next_beat:
            pub.send(str(state).encode("ascii"))
            next_beat = now_ms() + hb


if __name__ == "__main__":
    main()
