// One socket of libzmq 4.3.5 with its draft types on, through npm's zeromq 6.8.0, for the
// draft socket types' interop tests (NodePeer starts it with NODE_PATH at its node_modules).
//
//   node draft_peer.js TYPE bind|connect ENDPOINT [--join G1,G2] [--send N] [--group G]
//                      [--prefix P] [--echo]
//
// TYPE is server, client, radio, dish, scatter, gather, channel or peer. zeromq 6.8.0 has a class
// for the first six; channel and peer are its base Socket with libzmq's type numbers (20, 19).
// Its native send sets a routing id only on a SERVER and a group only on a RADIO, and its receive
// reports a routing id only on a SERVER: so a PEER here receives but cannot send (libzmq answers
// EHOSTUNREACH to a message without a routing id), and zmq_connect_peer is not exposed.
//
// Lines out (stdout), one per event, for the test to wait on:
//   READY <endpoint>              bound (the endpoint libzmq reports) or connected, groups joined
//   MSG <rid> <group> <body>      a message received: routing id (0 if none), group as hex (- if
//                                 none), body as hex (- if empty)
//   SENT <n>                      the n-th message sent has been queued
//   JOINED <group> / LEFT <group> the group as hex
//   ERR <what>                    a command failed; the peer keeps running
// Options: --join the DISH's groups (text, comma-separated); --send N sends N messages "<prefix>-<i>" (to group --group
// on a RADIO) once ready; --echo sends every message received back to where it came from.
// Commands in (stdin), one per line:
//   send <rid> <group> <body>     rid 0 and group - for none, group and body as hex (- if empty)
//   join <group> / leave <group>  the group as hex
//   quit
"use strict";

const zmq = require("zeromq");
const draft = require("zeromq/draft");
const readline = require("readline");

class Channel extends zmq.Socket {
  constructor() {
    super(20);
  }
}

class Peer extends zmq.Socket {
  constructor() {
    super(19);
  }
}

const makers = {
  server: () => new draft.Server(),
  client: () => new draft.Client(),
  radio: () => new draft.Radio(),
  dish: () => new draft.Dish(),
  scatter: () => new draft.Scatter(),
  gather: () => new draft.Gather(),
  channel: () => new Channel(),
  peer: () => new Peer(),
};
const receives = new Set(["server", "client", "dish", "gather", "channel", "peer"]);

function out(line) {
  process.stdout.write(line + "\n");
}

function hex(buf) {
  return buf.length === 0 ? "-" : buf.toString("hex");
}

function unhex(word) {
  return word === "-" ? Buffer.alloc(0) : Buffer.from(word, "hex");
}

const [type, how, endpoint, ...rest] = process.argv.slice(2);
const options = { join: [], send: 0, group: null, prefix: "node", echo: false };
for (let i = 0; i < rest.length; i++) {
  switch (rest[i]) {
    case "--join": options.join = rest[++i].split(",").filter((g) => g.length > 0); break;
    case "--send": options.send = parseInt(rest[++i], 10); break;
    case "--group": options.group = rest[++i]; break;
    case "--prefix": options.prefix = rest[++i]; break;
    case "--echo": options.echo = true; break;
    default: out("ERR unknown option " + rest[i]); process.exit(2);
  }
}
if (!makers[type] || (how !== "bind" && how !== "connect") || !endpoint) {
  out("ERR usage: TYPE bind|connect ENDPOINT [options]");
  process.exit(2);
}

const socket = makers[type]();
socket.linger = 0;

// Sends are serialized: zeromq.js allows one send in progress per socket.
let sending = Promise.resolve();
let sent = 0;

function send(rid, group, body) {
  const meta = {};
  if (type === "server") meta.routingId = rid;
  if (type === "radio") meta.group = group;
  sending = sending
    .then(() => (type === "server" || type === "radio" ? socket.send(body, meta) : socket.send(body)))
    .then(() => out("SENT " + ++sent))
    .catch((e) => out("ERR send " + (e.code || e.message)));
  return sending;
}

async function receiveLoop() {
  while (!socket.closed) {
    let parts;
    try {
      parts = await socket.receive();
    } catch (e) {
      if (socket.closed) return;
      out("ERR receive " + (e.code || e.message));
      return;
    }
    const body = parts[0];
    const meta = parts.length > 1 && !Buffer.isBuffer(parts[1]) ? parts[1] : {};
    const rid = meta.routingId || 0;
    const group = meta.group ? meta.group : null;
    out("MSG " + rid + " " + (group === null ? "-" : hex(group)) + " " + hex(body));
    if (options.echo) {
      send(rid, group, body);
    }
  }
}

function commands() {
  const rl = readline.createInterface({ input: process.stdin });
  rl.on("line", (line) => {
    const w = line.trim().split(/\s+/);
    try {
      switch (w[0]) {
        case "send": send(parseInt(w[1], 10), w[2] === "-" ? null : unhex(w[2]), unhex(w[3])); break;
        case "join": socket.join(unhex(w[1])); out("JOINED " + w[1]); break;
        case "leave": socket.leave(unhex(w[1])); out("LEFT " + w[1]); break;
        case "quit": socket.close(); process.exit(0); break;
        case "": break;
        default: out("ERR unknown command " + w[0]);
      }
    } catch (e) {
      out("ERR " + w[0] + " " + (e.code || e.message));
    }
  });
  // The test ended without a word (or was killed): leave with it.
  rl.on("close", () => {
    socket.close();
    process.exit(0);
  });
}

async function main() {
  if (how === "bind") {
    // A port just given up by a killed peer may take a moment to be free again.
    for (let tries = 0; ; tries++) {
      try {
        await socket.bind(endpoint);
        break;
      } catch (e) {
        if (e.code !== "EADDRINUSE" || tries >= 100) throw e;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  } else {
    socket.connect(endpoint);
  }
  for (const g of options.join) {
    socket.join(g);
  }
  commands();
  // libzmq reports a udp endpoint without its scheme
  const last = socket.lastEndpoint;
  out("READY " + (last && last.includes("://") ? last : endpoint));
  if (receives.has(type)) {
    receiveLoop();
  }
  for (let i = 0; i < options.send; i++) {
    send(0, options.group, Buffer.from(options.prefix + "-" + i));
  }
}

main().catch((e) => {
  out("ERR " + (e.code || e.message));
  process.exit(1);
});
