#!/usr/bin/python3
"""Scripts real libzmq sockets for the interop tests (Debian's libzmq5 through python3-zmq).

Reads one command per line on stdin and answers each with one line on stdout:
"ok [words...]" or "err <message>". Frames travel hex-encoded; "-" is an empty frame.

  socket ID TYPE                 create a socket (DEALER, ROUTER, REQ, ...); it starts with
                                 ZMQ_SNDTIMEO 10000 so that no send hangs the peer (an "err"
                                 answer reports EAGAIN instead); "opt ID SNDTIMEO -1" undoes it
  opt ID NAME VALUE              set an option: integer, "hex:<hex>" bytes, or "z85:<key>" text
  getopt ID NAME                 read an integer or bytes option (bytes come back hex)
  bind ID ENDPOINT               answers "ok <last endpoint>" (tcp port * is resolved)
  connect ID ENDPOINT
  unbind ID ENDPOINT / disconnect ID ENDPOINT
  send ID FRAME...               send one multi-frame message
  recv ID TIMEOUT_MS             answers "ok FRAME..." or "err timeout"
  subscribe ID HEX / unsubscribe ID HEX   (SUB sockets; "-" is the empty prefix)
  echo ID COUNT TIMEOUT_MS       receive COUNT messages, send each back unchanged, answer "ok N"
  drain ID TIMEOUT_MS [MAX]      receive until TIMEOUT_MS of silence (or MAX messages), answer "ok N"
  sendseq ID PREFIX COUNT [SIZE] send COUNT one-frame messages PREFIX0, PREFIX1, ... (padded
                                 with zero bytes to SIZE bytes when given); "ok N"
  trysend ID FRAME...            send with ZMQ_DONTWAIT: "ok sent" or "ok again" (EAGAIN)
  trysendseq ID PREFIX COUNT     as sendseq, each with ZMQ_DONTWAIT: "ok N" (how many were taken)
  serve ID                       echo in the background: a thread sends every message the socket
                                 receives back unchanged; the socket takes no other command
                                 until "unserve ID", which answers "ok N" (messages echoed)
  monitor ID                     start recording events of the socket
  events ID                      answer "ok EVENT..." (names of the events seen so far)
  keypair                        answer "ok PUBLIC SECRET" (Z85, from zmq_curve_keypair)
  public SECRET                  answer "ok PUBLIC" (zmq_curve_public)
  zap start                      start a ZAP handler (27/ZAP) for this context; it refuses every
                                 PLAIN and CURVE client ("400") until told otherwise, allows NULL
  zap plain USER PASSWORD        allow a PLAIN user (the user id is the user name)
  zap curve PUBLIC               allow a CURVE client key, Z85 (the user id is the key)
  zap log                        answer "ok MECHANISM:STATUS ..." for every request answered so far
  zap answer KEY CODE            answer CODE (200, 300, 400, 500) to the PLAIN user, CURVE key
                                 (Z85) or NULL domain KEY; with 200 the user id is KEY and the
                                 metadata carries Hello=World
  zap relay                      also serve ZAP requests from a REP socket bound on tcp (for a
                                 server in another process, through a relay): "ok ENDPOINT"
  zap requests                   answer "ok TAG:FRAME,FRAME,... ..." for every request so far (TAG
                                 inproc or relay; frames hex, "-" empty, without the delimiter)
  recvprops ID TIMEOUT_MS        as recv, answers "ok USER-ID HELLO FRAME..." with the message's
                                 User-Id and Hello properties (hex, "-" when absent)
  eventvalues ID                 answer "ok NAME:VALUE ..." for the monitor events seen so far
  close ID [LINGER_MS]
  version                        answer "ok <libzmq version>"
  quit
"""
import binascii
import sys
import threading

import zmq
import zmq.utils.z85

ctx = zmq.Context.instance()
sockets = {}
monitors = {}
values = {}
servers = {}
SEND_TIMEOUT_MS = 10000


def frames_out(parts):
    return " ".join(binascii.hexlify(p).decode() if p else "-" for p in parts)


def frames_in(words):
    return [b"" if w == "-" else binascii.unhexlify(w) for w in words]


def option_value(text):
    if text.startswith("hex:"):
        return binascii.unhexlify(text[4:])
    if text.startswith("z85:"):
        return text[4:].encode()
    if text.startswith("str:"):
        return text[4:].encode()
    return int(text)


class Zap:
    """A ZAP handler on its own thread: libzmq asks it about every PLAIN and CURVE client."""

    def __init__(self):
        self.plain = {}
        self.curve = set()
        self.answers = {}
        self.log = []
        self.requests = []
        self.stopping = False
        self.sock = ctx.socket(zmq.REP)
        self.sock.linger = 0
        self.sock.bind("inproc://zeromq.zap.01")
        self.relay = None
        self.relay_endpoint = threading.Event()
        self.want_relay = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    @staticmethod
    def metadata(props):
        out = b""
        for name, value in props:
            out += bytes([len(name)]) + name + len(value).to_bytes(4, "big") + value
        return out

    def decide(self, mechanism, credentials, domain=b""):
        key = None
        if mechanism == b"PLAIN" and credentials:
            key = credentials[0]
        elif mechanism == b"CURVE" and len(credentials) == 1 and len(credentials[0]) == 32:
            key = zmq.utils.z85.encode(credentials[0])
        elif mechanism == b"NULL":
            key = domain
        if key in self.answers:
            code = self.answers[key]
            if code == b"200":
                return code, b"OK", key, self.metadata([(b"Hello", b"World")])
            return code, b"told to answer " + code, b"", b""
        if mechanism == b"NULL":
            return b"200", b"OK", b""
        if mechanism == b"PLAIN" and len(credentials) == 2:
            user, password = credentials
            if user in self.plain and self.plain[user] == password:
                return b"200", b"OK", user, b""
        if mechanism == b"CURVE" and len(credentials) == 1:
            key = zmq.utils.z85.encode(credentials[0])
            if key in self.curve:
                return b"200", b"OK", key, b""
        return b"400", b"refused", b"", b""

    def answer(self, sock, tag):
        request = sock.recv_multipart()
        self.requests.append((tag, request))
        version, request_id, domain, mechanism = request[0], request[1], request[2], request[5]
        status, text, user, metadata = self.decide(mechanism, request[6:], domain)
        self.log.append("%s:%s" % (mechanism.decode(), status.decode()))
        sock.send_multipart([version, request_id, status, text, user, metadata])

    def run(self):
        # the sockets are used by this thread only once started
        poller = zmq.Poller()
        poller.register(self.sock, zmq.POLLIN)
        while not self.stopping:
            if self.want_relay.is_set() and self.relay is None:
                self.relay = ctx.socket(zmq.REP)
                self.relay.linger = 0
                self.relay.bind("tcp://127.0.0.1:*")
                poller.register(self.relay, zmq.POLLIN)
                self.relay_endpoint.set()
            for sock, _ in poller.poll(50):
                self.answer(sock, "inproc" if sock is self.sock else "relay")
        self.sock.close(0)
        if self.relay is not None:
            self.relay.close(0)

    def stop(self):
        self.stopping = True
        self.thread.join(5)


zap = None


EVENT_NAMES = {getattr(zmq, n): n[6:] for n in dir(zmq) if n.startswith("EVENT_") and n != "EVENT_ALL"}


def watch(sid, mon):
    seen = monitors[sid]
    try:
        while True:
            try:
                msg = mon.recv_multipart()
            except zmq.ZMQError:
                return
            event = int.from_bytes(msg[0][:2], "little")
            value = int.from_bytes(msg[0][2:6], "little")
            seen.append(EVENT_NAMES.get(event, str(event)))
            values.setdefault(sid, []).append("%s:%d" % (EVENT_NAMES.get(event, str(event)), value))
            if event == zmq.EVENT_MONITOR_STOPPED:
                return
    finally:
        # an open monitor socket would keep ctx.term() at exit waiting forever
        mon.close(0)


class Server(object):
    """Echoes on a socket in a thread of its own until stopped."""

    def __init__(self, sock):
        self.sock = sock
        self.count = 0
        self.stopping = threading.Event()
        self.error = None
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        try:
            while not self.stopping.is_set():
                if self.sock.poll(20):
                    self.sock.send_multipart(self.sock.recv_multipart())
                    self.count += 1
        except zmq.ZMQError as e:
            self.error = e

    def stop(self):
        self.stopping.set()
        self.thread.join()
        if self.error is not None:
            return "err serving failed after %d: %s" % (self.count, self.error)
        return "ok %d" % self.count


def handle(words):
    op = words[0]
    if op == "version":
        return "ok " + zmq.zmq_version()
    if op == "keypair":
        pub, sec = zmq.curve_keypair()
        return "ok %s %s" % (pub.decode(), sec.decode())
    if op == "public":
        return "ok " + zmq.curve_public(words[1].encode()).decode()
    if op == "zap":
        global zap
        if words[1] == "start":
            if zap is None:
                zap = Zap()
            return "ok"
        if zap is None:
            return "err zap handler not started"
        if words[1] == "plain":
            zap.plain[words[2].encode()] = words[3].encode()
            return "ok"
        if words[1] == "curve":
            zap.curve.add(words[2].encode())
            return "ok"
        if words[1] == "answer":
            zap.answers[words[2].encode()] = words[3].encode()
            return "ok"
        if words[1] == "relay":
            zap.want_relay.set()
            if not zap.relay_endpoint.wait(10):
                return "err the relay socket did not bind"
            return "ok " + zap.relay.getsockopt(zmq.LAST_ENDPOINT).decode()
        if words[1] == "requests":
            return ("ok " + " ".join(tag + ":" + ",".join(binascii.hexlify(f).decode() or "-" for f in r)
                                     for tag, r in list(zap.requests))).rstrip()
        if words[1] == "log":
            return ("ok " + " ".join(zap.log)).rstrip()
        return "err unknown zap command " + words[1]
    sid = words[1]
    if op == "socket":
        sockets[sid] = ctx.socket(getattr(zmq, words[2]))
        sockets[sid].setsockopt(zmq.SNDTIMEO, SEND_TIMEOUT_MS)
        return "ok"
    if op == "unserve":
        return servers.pop(sid).stop()
    if sid in servers:
        return "err socket %s is being served" % sid
    s = sockets[sid]
    if op == "opt":
        s.setsockopt(getattr(zmq, words[2]), option_value(words[3]))
        return "ok"
    if op == "getopt":
        v = s.getsockopt(getattr(zmq, words[2]))
        return "ok " + (binascii.hexlify(v).decode() or "-" if isinstance(v, bytes) else str(v))
    if op == "bind":
        s.bind(words[2])
        return "ok " + s.getsockopt(zmq.LAST_ENDPOINT).decode()
    if op == "connect":
        s.connect(words[2])
        return "ok"
    if op == "unbind":
        s.unbind(words[2])
        return "ok"
    if op == "disconnect":
        s.disconnect(words[2])
        return "ok"
    if op == "send":
        s.send_multipart(frames_in(words[2:]))
        return "ok"
    if op == "recv":
        if s.poll(int(words[2])) == 0:
            return "err timeout"
        return ("ok " + frames_out(s.recv_multipart())).rstrip()
    if op in ("subscribe", "unsubscribe"):
        topic = b"" if words[2] == "-" else binascii.unhexlify(words[2])
        s.setsockopt(zmq.SUBSCRIBE if op == "subscribe" else zmq.UNSUBSCRIBE, topic)
        return "ok"
    if op == "echo":
        n, timeout = int(words[2]), int(words[3])
        for i in range(n):
            if s.poll(timeout) == 0:
                return "err timeout after %d" % i
            s.send_multipart(s.recv_multipart())
        return "ok %d" % n
    if op == "drain":
        timeout, n = int(words[2]), 0
        most = int(words[3]) if len(words) > 3 else None
        while (most is None or n < most) and s.poll(timeout):
            s.recv_multipart()
            n += 1
        return "ok %d" % n
    if op == "sendseq":
        prefix, count = words[2].encode(), int(words[3])
        size = int(words[4]) if len(words) > 4 else 0
        for i in range(count):
            body = prefix + str(i).encode()
            s.send(body + b"\0" * max(0, size - len(body)))
        return "ok %d" % count
    if op == "trysendseq":
        prefix, count, taken = words[2].encode(), int(words[3]), 0
        for i in range(count):
            try:
                s.send(prefix + str(i).encode(), zmq.DONTWAIT)
                taken += 1
            except zmq.Again:
                pass
        return "ok %d" % taken
    if op == "trysend":
        try:
            s.send_multipart(frames_in(words[2:]), zmq.DONTWAIT)
            return "ok sent"
        except zmq.Again:
            return "ok again"
    if op == "serve":
        servers[sid] = Server(s)
        return "ok"
    if op == "monitor":
        monitors[sid] = []
        # The monitor is attached here, on the socket's own thread, before "ok": no event after
        # the answer can be missed. The thread only reads the monitor's own socket.
        mon = s.get_monitor_socket()
        threading.Thread(target=watch, args=(sid, mon), daemon=True).start()
        return "ok"
    if op == "eventvalues":
        return ("ok " + " ".join(values.get(sid, []))).rstrip()
    if op == "recvprops":
        if s.poll(int(words[2])) == 0:
            return "err timeout"
        parts = s.recv_multipart(copy=False)

        def prop(name):
            try:
                return binascii.hexlify(parts[-1].get(name).encode()).decode() or "-"
            except zmq.ZMQError:
                return "-"
        return ("ok %s %s %s" % (prop("User-Id"), prop("Hello"), frames_out([p.bytes for p in parts]))).rstrip()
    if op == "events":
        return ("ok " + " ".join(monitors.get(sid, []))).rstrip()
    if op == "close":
        linger = int(words[2]) if len(words) > 2 else 0
        sockets.pop(sid).close(linger)
        return "ok"
    return "err unknown command " + op


def main():
    print("ok ready " + zmq.zmq_version(), flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "quit":
            break
        try:
            reply = handle(words)
        except Exception as e:  # every failure becomes one answer line
            reply = "err %s: %s" % (type(e).__name__, str(e).replace("\n", " "))
        print(reply, flush=True)
    for server in servers.values():
        server.stop()
    for s in sockets.values():
        s.close(0)
    if zap is not None:
        zap.stop()
    ctx.term()


if __name__ == "__main__":
    main()
