#!/usr/bin/python3
"""The pyzmq side of a zmq.auth set-up moved to zmtp (issue #47).

usage: zmq_auth_certs.py make DIR
    writes certificates as pyzmq's own examples do: zmq.auth.create_certificates makes
    "server" and "client" in DIR/public_keys (NAME.key) and DIR/private_keys (NAME.key_secret),
    and "stranger" in DIR/strangers, whose key the server does not list. Prints "made".
usage: zmq_auth_certs.py connect DIR ENDPOINT
    a REQ client with the client certificate, then one with the stranger's, both knowing the
    server's public key; prints "reply TEXT" for the first, and for each the first handshake
    event its monitor saw ("event HANDSHAKE_SUCCEEDED", "event HANDSHAKE_FAILED_AUTH"...).
"""
import os
import shutil
import sys

import zmq
import zmq.auth
from zmq.utils.monitor import recv_monitor_message

HANDSHAKE = (zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_HANDSHAKE_FAILED_AUTH
             | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL)


def make(base):
    for sub in ("public_keys", "private_keys", "strangers"):
        os.makedirs(os.path.join(base, sub), exist_ok=True)
    for name in ("server", "client"):
        public, secret = zmq.auth.create_certificates(base, name)
        shutil.move(public, os.path.join(base, "public_keys"))
        shutil.move(secret, os.path.join(base, "private_keys"))
    zmq.auth.create_certificates(os.path.join(base, "strangers"), "stranger")
    print("made")


def client(ctx, secret_file, server_public, endpoint):
    sock = ctx.socket(zmq.REQ)
    sock.linger = 0
    sock.curve_publickey, sock.curve_secretkey = zmq.auth.load_certificate(secret_file)
    sock.curve_serverkey = server_public
    mon = sock.get_monitor_socket(HANDSHAKE)
    sock.connect(endpoint)
    return sock, mon


def first_event(mon):
    if not mon.poll(10000):
        return "none"
    return zmq.Event(recv_monitor_message(mon)["event"]).name


def connect(base, endpoint):
    ctx = zmq.Context()
    server_public, _ = zmq.auth.load_certificate(os.path.join(base, "public_keys", "server.key"))
    known, known_mon = client(ctx, os.path.join(base, "private_keys", "client.key_secret"),
                              server_public, endpoint)
    print("event " + first_event(known_mon))
    known.send(b"hello")
    print("reply " + (known.recv().decode() if known.poll(10000) else "none"))
    stranger, stranger_mon = client(ctx, os.path.join(base, "strangers", "stranger.key_secret"),
                                    server_public, endpoint)
    print("event " + first_event(stranger_mon))
    for s in (known_mon, known, stranger_mon, stranger):
        s.close(0)
    ctx.term()


def main():
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        connect(sys.argv[2], sys.argv[3])


if __name__ == "__main__":
    main()
