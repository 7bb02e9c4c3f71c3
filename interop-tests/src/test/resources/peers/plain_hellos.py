#!/usr/bin/python3
"""Opens COUNT TCP connections to HOST:PORT and on each sends a ZMTP 3.0 greeting for PLAIN
(as-server 0) and a PLAIN HELLO (user "slow", password "x"), then holds them all open until
stdin closes or the process is killed. Prints "sent N" once every connection has sent, and
"failed N" for connections that could not be made. No libzmq: many handshakes at once from
another process, as many clients would make them.

usage: plain_hellos.py HOST PORT COUNT
"""
import resource
import socket
import sys


def command(name, body):
    data = bytes([len(name)]) + name + body
    return bytes([0x04, len(data)]) + data


def main():
    host, port, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    greeting = b"\xff" + b"\0" * 8 + b"\x7f" + b"\x03\x00" + b"PLAIN".ljust(20, b"\0") + b"\0" + b"\0" * 31
    hello = command(b"HELLO", bytes([4]) + b"slow" + bytes([1]) + b"x")
    held, failed = [], 0
    for _ in range(count):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(30)
        try:
            s.connect((host, port))
            s.sendall(greeting + hello)
            held.append(s)
        except OSError:
            failed += 1
            s.close()
    print("sent %d" % len(held), flush=True)
    if failed:
        print("failed %d" % failed, flush=True)
    sys.stdin.read()
    for s in held:
        s.close()


if __name__ == "__main__":
    main()
