#!/usr/bin/python3
"""Exec to first reply of a restarted broker: a libzmq worker and client wait, connected, before
`zmtp ppqueue` or `zmtp mdbroker` is started; prints exec-to-reply milliseconds over N runs.
Usage: benchmarks/startup.py ppqueue|mdbroker RUNS zmtp-cli/target/zmtp.jar [java options...]"""
import subprocess, sys, time, zmq, socket, statistics

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

def once(kind, java_opts, jar):
    ctx = zmq.Context()
    fp, bp = free_port(), free_port()
    w = ctx.socket(zmq.DEALER); w.setsockopt(zmq.RECONNECT_IVL, 10); w.setsockopt(zmq.LINGER, 0)
    c = ctx.socket(zmq.REQ); c.setsockopt(zmq.RECONNECT_IVL, 10); c.setsockopt(zmq.LINGER, 0)
    if kind == "ppqueue":
        cmd = ["ppqueue", "--frontend", "tcp://127.0.0.1:%d" % fp, "--backend", "tcp://127.0.0.1:%d" % bp]
        w.connect("tcp://127.0.0.1:%d" % bp); c.connect("tcp://127.0.0.1:%d" % fp)
        w.send(b"\x01")
        c.send(b"hello")
    else:
        cmd = ["mdbroker", "-e", "tcp://127.0.0.1:%d" % fp]
        w.connect("tcp://127.0.0.1:%d" % fp); c.connect("tcp://127.0.0.1:%d" % fp)
        w.send_multipart([b"", b"MDPW01", b"\x01", b"echo"])
        c.send_multipart([b"MDPC01", b"echo", b"hello"])
    t0 = time.monotonic()
    p = subprocess.Popen(["java"] + java_opts + ["-jar", jar] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    poller = zmq.Poller(); poller.register(w, zmq.POLLIN); poller.register(c, zmq.POLLIN)
    reply = None
    while reply is None and time.monotonic() - t0 < 20:
        for s, _ in poller.poll(20):
            m = s.recv_multipart()
            if s is c:
                reply = time.monotonic()
            elif kind == "ppqueue" and len(m) > 1:
                w.send_multipart(m)
            elif kind == "mdbroker" and len(m) > 3 and m[2] == b"\x02":
                # [empty, MDPW01, REQUEST, client, empty, body...] -> REPLY
                w.send_multipart([b"", b"MDPW01", b"\x03"] + m[3:])
    p.kill(); p.wait()
    ctx.destroy(0)
    return None if reply is None else (reply - t0) * 1000

if __name__ == "__main__":
    kind, runs, jar = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    opts = sys.argv[4:]
    ms = [once(kind, opts, jar) for _ in range(runs)]
    ok = [m for m in ms if m is not None]
    print("%s %s: exec to first reply, median %.0f ms, min %.0f, max %.0f (%d of %d runs)" % (
        kind, " ".join(opts) or "(no options)", statistics.median(ok), min(ok), max(ok), len(ok), runs))
