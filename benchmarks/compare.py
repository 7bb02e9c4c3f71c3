#!/usr/bin/python3
"""Prints the comparison table of benchmarks/compare.sh from the results it collected.

Usage: compare.py RESULTS_DIR

RESULTS_DIR holds jmh-*.json (JMH's -rf json output: zmtp-netty and JeroMQ), native.jsonl (one
JSON line per libzmq program run, see benchmarks/native/bench.h) and meta.json (the run's profile,
machine and versions); with compare.sh --many, also manypeers.jsonl (benchmarks/manypeers.sh's
lines: one per phase of benchmarks/native/manypeers.c, for each implementation), whose rows are
printed after the others. A directory holding only manypeers.jsonl or results.jsonl (such as
benchmarks/target/manypeers/) prints the many-peers rows alone, from each scenario's latest run.
Where the floor server (manypeers.sh --impls "floor ...") was measured, a line per row under the
many-peers table gives its figure, the goal, and each server's figure as a multiple of the floor.
Standard library only.
"""
import glob
import json
import math
import os
import sys

# (label, unit, kind, JMH benchmark (class.method), JMH params, native bench or None (no libzmq
#  twin), native params, metric for latency rows, target ratio or None, twin (True: JeroMQ is the
#  impl=jeromq result; False: JeroMQ's blocking client, see below; None: no JeroMQ figure), the
#  peer the target is a ratio against ("libzmq" or "JeroMQ"), the JMH secondary result to read
#  instead of the primary one or None)
ROWS = []


def throughput(label, unit, jmh, jmh_params, native, native_params, target, twin=True, target_vs="libzmq",
               secondary=None):
    ROWS.append((label, unit, "thrpt", jmh, jmh_params, native, native_params, None, target, twin, target_vs,
                 secondary))


def latency(label, jmh_params, native_params, percentile, target):
    ROWS.append((label, "us", "latency", "ReqRepLatencyBenchmark.roundTrip", jmh_params,
                 "reqrep_latency", native_params, percentile, target, True, "libzmq", None))


for transport in ("tcp", "inproc"):
    throughput("round trip, synchronous, %s" % transport, "calls/s", "TrippingBenchmark.synchronous",
               {"transport": transport}, "tripping", {"mode": "sync", "transport": transport, "security": "null"}, 2.0)
for transport in ("tcp", "inproc"):
    throughput("round trip, asynchronous, %s" % transport, "calls/s", "TrippingBenchmark.asynchronous",
               {"transport": transport}, "tripping", {"mode": "async", "transport": transport, "security": "null"},
               2.0)
# The same round trip with our reactor client (a handler on an event loop instead of a user thread).
# JeroMQ and libzmq have no such client: their columns are their blocking clients' figures. The
# goal for its asynchronous rows is 3x libzmq (the issue's), for its synchronous ones 2x as above.
for mode in ("synchronous", "asynchronous"):
    for transport in ("tcp", "inproc"):
        throughput("round trip, %s, %s, reactor client" % (mode, transport), "calls/s",
                   "TrippingReactorBenchmark." + mode, {"transport": transport}, "tripping",
                   {"mode": "sync" if mode == "synchronous" else "async", "transport": transport, "security": "null"},
                   2.0 if mode == "synchronous" else 3.0,
                   twin=False)
for size, name in ((1, "1 B"), (1024, "1 KiB")):
    latency("REQ/REP %s, p50" % name, {"size": str(size)}, {"size": size}, "50.0", 1.0)
    latency("REQ/REP %s, p99" % name, {"size": str(size)}, {"size": size}, "99.0", 1.0)
    latency("REQ/REP %s, p99.9" % name, {"size": str(size)}, {"size": size}, "99.9", None)
for pattern, name in (("pubsub", "PUB/SUB"), ("pushpull", "PUSH/PULL")):
    for size in (10, 100, 1024):
        throughput("%s %d B" % (name, size), "msgs/s", "ThroughputBenchmark.messages",
                   {"pattern": pattern, "size": str(size)}, "throughput",
                   {"pattern": pattern, "size": size, "security": "null"}, 1.0)
# CURVE: issue #34's goal is 2x libzmq for the 100 B and round-trip rows; 1 KiB has none.
for size, name, target in ((100, "100 B", 2.0), (1024, "1024 B", None)):
    throughput("PUSH/PULL %s, CURVE" % name, "msgs/s", "CurveThroughputBenchmark.messages", {"size": str(size)},
               "throughput", {"pattern": "pushpull", "size": size, "security": "curve"}, target)
throughput("round trip, asynchronous, tcp, CURVE", "calls/s", "CurveTrippingBenchmark.asynchronous", {}, "tripping",
           {"mode": "async", "transport": "tcp", "security": "curve"}, 2.0)
throughput("DEALER/ROUTER pipelined, window 1000", "reqs/s", "PipelinedRequestBenchmark.request", {},
           "pipelined", {"size": 100, "window": 1000}, None)
# The thread-safe types (issue #45), whose goal is 2x JeroMQ's draft types for the CLIENT/SERVER round
# trip. No libzmq column: Debian's libzmq is built without its draft types. JeroMQ has no udp://, so
# the udp row is ours alone: the datagrams the DISH received per second (RadioDishBenchmark's
# secondary result "received"), windows of 100 waited for at most 100 ms.
for mode in ("synchronous", "asynchronous"):
    throughput("CLIENT/SERVER round trip, %s, tcp" % mode, "calls/s", "ClientServerBenchmark." + mode, {},
               None, None, 2.0, target_vs="JeroMQ")
throughput("RADIO/DISH 100 B, tcp", "msgs/s", "RadioDishBenchmark.tcp", {}, None, None, None)
throughput("RADIO/DISH 100 B, udp, received", "msgs/s", "RadioDishBenchmark.udp", {}, None, None, None, twin=None,
           secondary="received")

NATIVE_LATENCY_KEYS = {"50.0": "p50", "99.0": "p99", "99.9": "p99.9"}

# The Majordomo crowd (MajordomoCrowdBenchmark, compare.sh --many): one broker, WORKERSxCLIENTS
# peers, 1,000 requests in flight in each configuration. Issue #43's goal: a broker with 1,000
# workers and 1,000 clients keeps at least half of "its 10-worker throughput". Its words change
# only the workers (baseline 10x1000, the same 1,000 clients); 10x10 changes the clients too (each
# of 10 connections carries 100 requests, so one system call carries dozens), the stricter
# baseline. Both are reported against the goal. libzmq has no Majordomo broker here.
CROWD_BENCH = "MajordomoCrowdBenchmark.replies"
CROWD_BASES = (("10x1000", "the same 1,000 clients"), ("10x10", "10 clients as well"))
CROWD_GOAL = ("1000x1000", 0.5)


def load_jmh(directory):
    results = []
    for path in sorted(glob.glob(os.path.join(directory, "jmh-*.json"))):
        with open(path) as f:
            text = f.read().strip()
        if text:
            results.extend(json.loads(text))
    return results


def load_native(directory):
    path = os.path.join(directory, "native.jsonl")
    results = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    results.append(json.loads(line))
    return results


def spread(values, mean):
    """Standard deviation of the iterations, as a fraction of their mean (None if < 2 values)."""
    if len(values) < 2 or mean == 0:
        return None
    m = sum(values) / len(values)
    return math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1)) / mean


def jmh_figure(jmh, benchmark, impl, params, kind, percentile, secondary=None):
    for r in jmh:
        if not r["benchmark"].endswith("." + benchmark):
            continue
        p = r.get("params", {})
        if p.get("impl") != impl or any(p.get(k) != v for k, v in params.items()):
            continue
        metric = r["primaryMetric"] if secondary is None else r.get("secondaryMetrics", {}).get(secondary)
        if metric is None:
            return None, None
        if kind == "latency":
            return metric["scorePercentiles"][percentile], None
        raw = [v for fork in metric.get("rawData", []) for v in fork]
        return metric["score"], spread(raw, metric["score"])
    return None, None


def native_figure(native, bench, params, kind, percentile):
    matches = [r for r in native if r["bench"] == bench
               and all(r["params"].get(k) == v for k, v in params.items())]
    if not matches:
        return None, None
    r = matches[-1]
    if kind == "latency":
        return r[NATIVE_LATENCY_KEYS[percentile]], None
    return r["score"], spread(r["iterations"], r["score"])


def crowd_label(crowd):
    workers, clients = crowd.split("x")
    return "Majordomo echo, {:,} workers, {:,} clients".format(int(workers), int(clients))


def crowd_cpu(jmh, impl, crowd):
    """The broker's CPU time per reply (us) of a crowd run, a secondary result; None if absent."""
    for r in jmh:
        p = r.get("params", {})
        if r["benchmark"].endswith("." + CROWD_BENCH) and p.get("impl") == impl and p.get("crowd") == crowd:
            m = r.get("secondaryMetrics", {}).get("brokerCpuUs")
            return m["score"] if m else None
    return None


def crowd_rows(jmh):
    """Rows for the Majordomo crowd results present: one per configuration, then each larger one's
    ratios to each baseline of CROWD_BASES present (by throughput, the goal's, and by the broker's
    CPU time per reply, which a busy machine moves less)."""
    crowds = {r["params"]["crowd"] for r in jmh
              if r["benchmark"].endswith("." + CROWD_BENCH) and "crowd" in r.get("params", {})}
    order = sorted(crowds, key=lambda c: [int(x) for x in c.split("x")])
    rows = []
    figures = {}
    for crowd in order:
        ours = jmh_figure(jmh, CROWD_BENCH, "zmtp", {"crowd": crowd}, "thrpt", None)
        jeromq = jmh_figure(jmh, CROWD_BENCH, "jeromq", {"crowd": crowd}, "thrpt", None)
        figures[crowd] = (ours[0], jeromq[0])
        rows.append([crowd_label(crowd), "reqs/s", fmt(ours[0], ours[1], "thrpt"), fmt(jeromq[0], jeromq[1], "thrpt"),
                     "n/a", fmt_ratio(ratio(ours[0], jeromq[0], "thrpt")), "n/a", "", ""])
    for base, reading in CROWD_BASES:
        if base not in figures:
            continue
        for crowd in order:
            if crowd == base or crowd in (b for b, _ in CROWD_BASES):
                continue
            ours = ratio(figures[crowd][0], figures[base][0], "thrpt")
            jeromq = ratio(figures[crowd][1], figures[base][1], "thrpt")
            goal = CROWD_GOAL[1] if crowd == CROWD_GOAL[0] else None
            met = "" if goal is None else ("n/a" if ours is None else ("yes" if ours >= goal else "NO"))
            what = "%s / %s (%s)" % (crowd_label(crowd), base, reading)
            rows.append([what, "ratio", fmt_ratio(ours), fmt_ratio(jeromq), "n/a",
                         "", "", "" if goal is None else ">= %.2f" % goal, met])
            cpu = [crowd_cpu(jmh, impl, c) for impl in ("zmtp", "jeromq") for c in (base, crowd)]
            by_cpu = [a / b if a and b else None for a, b in (cpu[0:2], cpu[2:4])]
            if any(by_cpu):
                rows.append([what + ", by broker CPU per reply", "ratio",
                             fmt_ratio(by_cpu[0]), fmt_ratio(by_cpu[1]), "n/a", "", "", "", ""])
    return rows


def fmt(value, sd, kind):
    if value is None:
        return "n/a"
    if kind == "latency":
        return "%.1f" % value
    text = "{:,.0f}".format(value)
    if sd is not None:
        text += " ±%d%%" % round(sd * 100)
    return text


def ratio(ours, peer, kind):
    """> 1 means ours is better: throughput ours/peer, latency peer/ours."""
    if ours is None or peer is None or ours == 0 or peer == 0:
        return None
    return peer / ours if kind == "latency" else ours / peer


def fmt_ratio(r):
    return "n/a" if r is None else "%.2f" % r


# ---------------------------------------------------------------- many peers (benchmarks/manypeers.sh)

MANY_IMPLS = ("zmtp-netty", "jeromq", "libzmq")
# benchmarks/native/floor_server.c: the least system calls any server makes (not a row's column,
# a line under the table: the floor says which goals no server reaches on this kernel). Only the
# rows of server CPU have a floor; its round times and memory are those of one more server.
FLOOR_IMPL = "floor"
FLOOR_ROWS = ("echo: server CPU per 1,000 echoes, warm", "handshake: server CPU, fresh process",
              "handshake: server CPU, warm", "PUB fan-out: publisher CPU per delivered message")


def load_manypeers(directory):
    """Lines of manypeers.jsonl (or results.jsonl): for each (mode, n, impl), those of its latest run."""
    lines = []
    for name in ("manypeers.jsonl", "results.jsonl"):
        path = os.path.join(directory, name)
        if os.path.exists(path):
            with open(path) as f:
                for line in f:
                    line = line.strip()
                    if line.startswith("{"):
                        try:
                            lines.append(json.loads(line))
                        except ValueError:
                            pass  # a line cut short by an interrupted run
            break
    latest = {}
    for r in lines:
        if r.get("bench") == "manypeers":
            latest[(r["mode"], r["n"], r["impl"])] = r.get("run")
    meta = [r for r in lines if r.get("bench") == "manypeers-meta"]
    return [r for r in lines if r.get("bench") == "manypeers"
            and latest.get((r["mode"], r["n"], r["impl"])) == r.get("run")], meta


def many_phase(lines, mode, n, impl, phase):
    found = [r for r in lines if r["mode"] == mode and r["n"] == n and r["impl"] == impl and r["phase"] == phase]
    return found


def not_connected(lines, mode, n, impl):
    """'k of N up' when the scenario's peers never were all connected, else None."""
    for r in lines:
        if r["mode"] == mode and r["n"] == n and r["impl"] == impl and r.get("complete") is False \
                and "handshaken" in r:
            return "%d of %d up" % (r["handshaken"], n)
    return None


def echo_figure(what):
    def figure(lines, n, impl):
        m = many_phase(lines, "echo", n, impl, "measured")
        if m and m[0].get("complete"):
            if what == "round":
                return m[0]["round_ms"]["mean"], None
            return m[0].get("derived", {}).get("server_cpu_ms_per_1000_echoes"), None
        return None, not_connected(lines, "echo", n, impl) or ("failed" if m else None)
    return figure


def handshake_figure(warm):
    def figure(lines, n, impl):
        cycles = sorted(many_phase(lines, "handshake", n, impl, "cycle"), key=lambda r: r["cycle"])
        if not cycles:
            return None, None
        if not all(c.get("complete") for c in cycles):
            return None, not_connected(lines, "handshake", n, impl)
        values = [c.get("derived", {}).get("server_cpu_ms_per_handshake") for c in cycles]
        if warm:
            values = values[1:][-3:]  # the last three cycles after the first
        else:
            values = values[:1]
        values = [v for v in values if v is not None]
        return (sum(values) / len(values), None) if values else (None, None)
    return figure


def storm_figure(lines, n, impl):
    m = many_phase(lines, "storm", n, impl, "storm")
    if not m:
        return None, None
    if m[0].get("all_handshaken_s") is None:
        return None, "%d missing" % m[0]["missing"]
    return m[0]["all_handshaken_s"], None


def memory_figure(lines, n, impl):
    m = many_phase(lines, "echo", n, impl, "memory")
    # private memory (RssAnon) where the harness measured it: the whole resident set also grows
    # by the file-backed pages a server first touches while connecting (a JVM's class data)
    if m and "anon_kib_per_connection" in m[0]:
        return m[0]["anon_kib_per_connection"], None
    if m and "kib_per_connection" in m[0]:
        return m[0]["kib_per_connection"], None
    return None, not_connected(lines, "echo", n, impl)


def fanout_figure(lines, n, impl):
    m = many_phase(lines, "fanout", n, impl, "window")
    if m:
        return m[0].get("derived", {}).get("server_cpu_us_per_delivered"), None
    return None, not_connected(lines, "fanout", n, impl)


# (label, unit, figure, target): every figure is a cost (lower is better), so the ratios are
# peer / zmtp-netty. A target is a ratio vs libzmq (>= x), or an absolute bound on ours ("<= x").
MANY_ROWS = [
    ("echo round time, mean", "ms", echo_figure("round"), 1.0),
    ("echo: server CPU per 1,000 echoes, warm", "ms", echo_figure("cpu"), 2.0),
    ("handshake: server CPU, fresh process", "ms", handshake_figure(False), 0.5),
    ("handshake: server CPU, warm", "ms", handshake_figure(True), 1.0),
    ("connect storm: all handshaken", "s", storm_figure, "<= 2"),
    ("memory per idle connection", "KiB", memory_figure, 1.0),
    ("PUB fan-out: publisher CPU per delivered message", "us", fanout_figure, 2.0),
]


def fmt_cost(value, note):
    if value is None:
        return note or "n/a"
    return "{:,.3g}".format(value) if value < 1000 else "{:,.0f}".format(value)


def many_rows(lines):
    """The table's rows for the many-peers figures: N = 1,000 and 10,000, and any other N measured."""
    ns = sorted({1000, 10000} | {r["n"] for r in lines})
    rows = []
    for n in ns:
        for label, unit, figure, target in MANY_ROWS:
            got = {impl: figure(lines, n, impl) for impl in MANY_IMPLS}
            if all(v is None and note is None for v, note in got.values()):
                continue
            ours = got["zmtp-netty"][0]
            vs = {impl: (got[impl][0] / ours if ours and got[impl][0] else None) for impl in ("jeromq", "libzmq")}
            if isinstance(target, str):
                bound = float(target.split()[1])
                shown_target = "%s %s" % (target, unit)
                met = "n/a" if ours is None and got["zmtp-netty"][1] is None else (
                    "yes" if ours is not None and ours <= bound else "NO")
            else:
                shown_target = ">= %.2f" % target
                met = "n/a" if vs["libzmq"] is None else ("yes" if vs["libzmq"] >= target else "NO")
                if ours is None and got["zmtp-netty"][1] is not None:
                    met = "NO"
            rows.append(["%s peers: %s" % ("{:,}".format(n), label), unit, fmt_cost(*got["zmtp-netty"]),
                         fmt_cost(*got["jeromq"]), fmt_cost(*got["libzmq"]), fmt_ratio(vs["jeromq"]),
                         fmt_ratio(vs["libzmq"]), shown_target, met])
    return rows


def floor_lines(lines):
    """One line per CPU row the floor server has a figure for: the floor, the goal, each server against it."""
    out = []
    for n in sorted({r["n"] for r in lines if r["impl"] == FLOOR_IMPL}):
        for label, unit, figure, target in MANY_ROWS:
            floor = figure(lines, n, FLOOR_IMPL)[0] if label in FLOOR_ROWS else None
            if floor is None:
                continue
            ours, libzmq = figure(lines, n, "zmtp-netty")[0], figure(lines, n, "libzmq")[0]
            if isinstance(target, str):
                goal = float(target.split()[1])
            else:
                goal = libzmq / target if libzmq else None
            parts = ["floor %s %s" % (fmt_cost(floor, None), unit)]
            if goal is not None:
                where = "below the floor: out of reach of a server making its system calls" if goal < floor \
                    else "above the floor"
                parts.append("the goal for zmtp-netty %s %s: %s" % (fmt_cost(goal, None), unit, where))
            for name, value in (("zmtp-netty", ours), ("libzmq", libzmq)):
                if value:
                    parts.append("%s %.2fx the floor" % (name, value / floor))
            out.append("%s peers: %s: %s" % ("{:,}".format(n), label, "; ".join(parts)))
    return out


def print_floor(many):
    lines = floor_lines(many)
    if lines:
        print()
        print("The kernel's floor (benchmarks/native/floor_server.c, the least system calls a server makes):")
        for line in lines:
            print("  " + line)


def harness_check(lines):
    """One line per echo and fan-out scenario: how busy the harness was against the server's CPU."""
    out = []
    for r in lines:
        if (r["mode"], r["phase"]) in (("echo", "measured"), ("fanout", "window")) and r.get("server"):
            out.append("%s N=%d %s: harness %.0f%% busy, its CPU %.2fx the server's" % (
                r["mode"], r["n"], r["impl"], 100 * r["harness"]["busy"],
                r["harness"]["cpu_s"] / r["server"]["cpu_s"] if r["server"]["cpu_s"] else float("nan")))
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    directory = sys.argv[1]
    jmh = load_jmh(directory)
    native = load_native(directory)
    meta = {}
    meta_path = os.path.join(directory, "meta.json")
    if os.path.exists(meta_path):
        with open(meta_path) as f:
            meta = json.load(f)

    many, many_meta = load_manypeers(directory)
    if many and not jmh and not native:
        print_many_only(many, many_meta)
        return

    header = ["workload", "unit", "zmtp-netty", "JeroMQ", "libzmq", "vs JeroMQ", "vs libzmq", "target", "met"]
    table = []
    missing = []
    for label, unit, kind, bench, jparams, nbench, nparams, pct, target, twin, target_vs, secondary in ROWS:
        ours, ours_sd = jmh_figure(jmh, bench, "zmtp" if twin else None, jparams, kind, pct, secondary)
        jeromq, jeromq_sd = None, None
        if twin:
            jeromq, jeromq_sd = jmh_figure(jmh, bench, "jeromq", jparams, kind, pct, secondary)
        elif twin is False:
            # no JeroMQ twin: compare with JeroMQ's blocking client on the same workload
            jeromq, jeromq_sd = jmh_figure(jmh, bench.replace("TrippingReactorBenchmark", "TrippingBenchmark"),
                                           "jeromq", jparams, kind, pct)
        libzmq, libzmq_sd = None, None
        if nbench is not None:
            libzmq, libzmq_sd = native_figure(native, nbench, nparams, kind, pct)
        for name, value, expected in (("zmtp-netty", ours, True), ("JeroMQ", jeromq, twin is not None),
                                      ("libzmq", libzmq, nbench is not None)):
            if value is None and expected:
                missing.append("%s: %s" % (label, name))
        vs_jeromq = ratio(ours, jeromq, kind)
        vs_libzmq = ratio(ours, libzmq, kind)
        vs_target = vs_jeromq if target_vs == "JeroMQ" else vs_libzmq
        met = "" if target is None else ("n/a" if vs_target is None else ("yes" if vs_target >= target else "NO"))
        shown_target = "" if target is None else ">= %.2f" % target + ("" if target_vs == "libzmq" else " " + target_vs)
        table.append([label, unit, fmt(ours, ours_sd, kind), fmt(jeromq, jeromq_sd, kind),
                      fmt(libzmq, libzmq_sd, kind), fmt_ratio(vs_jeromq), fmt_ratio(vs_libzmq), shown_target, met])

    print("zmtp-netty vs JeroMQ %s and libzmq %s, one run, profile %s (%s)" % (
        meta.get("jeromq", "?"), meta.get("libzmq", "?"), meta.get("profile", "?"), meta.get("date", "?")))
    print("machine: %s; %s processors; load average at start: %s; %s" % (
        meta.get("cpu", "?"), meta.get("nproc", "?"), meta.get("load", "?"), meta.get("java", "?")))
    print("JMH: %s | libzmq programs: %s" % (meta.get("jmh_options", "?"), meta.get("native_options", "?")))
    sodium = meta.get("libsodium", "none")
    print("Our CURVE boxes: BouncyCastle" + ("" if sodium in ("none", "?") else ", libsodium %s from 256 bytes" % sodium))
    print("Throughput: operations per second, mean of the measured iterations ± their standard deviation"
          " (% of the mean).")
    print("Latency: microseconds per round trip at the percentile.")
    print("Rows marked 'reactor client' use our client written as an event-loop handler; JeroMQ and libzmq"
          " have no such client, so their columns repeat their blocking clients' figures.")
    print("Ratios: > 1 means zmtp-netty is better. Throughput: zmtp-netty / peer; latency: peer / zmtp-netty."
          " Target: the issue's goal for the ratio vs libzmq (vs JeroMQ where it says JeroMQ).")
    print("CLIENT/SERVER and RADIO/DISH (issue #45): no libzmq column, Debian's libzmq has no draft types; the"
          " udp row is ours alone (JeroMQ has no udp://): datagrams received per second, in windows of 100.")
    crowd = crowd_rows(jmh)
    if crowd:
        print("Majordomo crowd (MajordomoCrowdBenchmark, JMH: %s): one broker, 1,000 requests in flight; its"
              " ratio rows are each implementation's figure / its own figure with 10 workers, the target issue"
              " #43's (>= 0.50 at 1,000 x 1,000: 'its 10-worker throughput', with the same 1,000 clients, and"
              " with 10 clients as well, where one system call carries dozens of requests); 'by broker CPU per"
              " reply': the baseline broker's CPU time per reply / this one's." % meta.get("crowd_options", "?"))
        table.extend(crowd)
    if many:
        print("Many peers (benchmarks/manypeers.sh): costs and times, lower is better, so the ratios are"
              " peer / zmtp-netty; 'k of N up': the server never held all N connections.")
        table.extend(many_rows(many))
    print()
    print_table(header, table)
    if many:
        print_floor(many)
        print()
        print("Many-peers harness check (the client must not be what limits a figure):")
        for line in harness_check(many):
            print("  " + line)
    if missing:
        print()
        print("missing results (see the logs in %s): %s" % (directory, "; ".join(missing)))


def print_table(header, table):
    widths = [max(len(str(row[i])) for row in [header] + table) for i in range(len(header))]
    right = {2, 3, 4, 5, 6}

    def line(cells):
        return "| " + " | ".join(str(c).rjust(widths[i]) if i in right else str(c).ljust(widths[i])
                                 for i, c in enumerate(cells)) + " |"

    print(line(header))
    print("|" + "|".join(("-" * (w + 1) + ":") if i in right else ("-" * (w + 2))
                         for i, w in enumerate(widths)) + "|")
    for row in table:
        print(line(row))


def print_many_only(many, meta):
    m = meta[-1] if meta else {}
    print("Many peers: zmtp-netty vs JeroMQ %s and libzmq %s, each scenario's latest run (last: %s, %s)" % (
        m.get("jeromq", "?"), m.get("libzmq", "?"), m.get("run", "?"), m.get("date", "?")))
    print("machine: %s; %s processors; load average at start: %s; %s; somaxconn %s" % (
        m.get("cpu", "?"), m.get("nproc", "?"), m.get("load", "?"), m.get("java", "?"), m.get("somaxconn", "?")))
    if m.get("zmtp_args") or m.get("jvm_opts"):
        print("zmtp-netty's server given: %s" % " ".join(x for x in (m.get("zmtp_args"), m.get("jvm_opts")) if x))
    print("Costs and times, lower is better, so the ratios are peer / zmtp-netty (> 1: zmtp-netty better)."
          " Target: the issue's goal (a ratio vs libzmq, or a bound). 'k of N up': never all N connected.")
    print()
    print_table(["workload", "unit", "zmtp-netty", "JeroMQ", "libzmq", "vs JeroMQ", "vs libzmq", "target", "met"],
                many_rows(many))
    print_floor(many)
    print()
    print("Harness check (the client must not be what limits a figure):")
    for line in harness_check(many):
        print("  " + line)


if __name__ == "__main__":
    main()
