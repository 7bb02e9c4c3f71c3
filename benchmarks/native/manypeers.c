/*
 * Many peers: N ZMTP 3.0 NULL connections from one single-threaded epoll client to one server,
 * so that the same client drives every server under test (ours, libzmq's, JeroMQ's). No libzmq
 * here: raw non-blocking sockets and the protocol spoken by hand (greeting, READY, frames).
 *
 *   manypeers --mode echo|storm|handshake|fanout --target 127.0.0.1:PORT [--n N] [--sources S]
 *             [--label NAME] [--server-pid PID] [mode options]
 *
 * Connections come from 127.0.0.1 .. 127.0.0.S (--sources, default 1), round robin; each socket
 * binds its source address with IP_BIND_ADDRESS_NO_PORT, so its port is picked at connect().
 *
 * Modes (each prints one JSON object per phase on stdout; diagnostics go to stderr):
 *   echo       DEALER peers. Connects N in batches of --batch (default 100; a batch's handshakes
 *              complete before the next batch starts; failed peers are retried as in storm; the
 *              harness gives up after --deadline-s, or once the number of peers handshaken at once
 *              has not grown for --stall-s, default 15: a server that holds no more), then --warmup W (default 50) and --rounds R
 *              (default 100) rounds: every peer sends one 16-byte message and the round ends when
 *              all N have come back, each to the peer that sent it. Phases: connect, warmup,
 *              measured, memory.
 *   storm      All N connect() calls back to back (the epoll set is polled, without waiting, every
 *              256 calls so that completed connections start their handshake at once); each peer
 *              handshakes as soon as its connection is up. A refused, reset or closed connection
 *              is retried after --retry-ms (default 100, libzmq's reconnect interval). Reports the
 *              time from the first connect() to the moment all N are handshaken at once, or gives
 *              up after --deadline-s (default 60) with the count still missing.
 *   handshake  --cycles C (default 5) cycles of: connect N in batches (as echo), close them all,
 *              wait until the server has closed its side (its count of open files is back where it
 *              was, when --server-pid is given) and --settle-ms more (default 200). One JSON line
 *              per cycle: cycle 1 is the server's first (a fresh process), the last ones are warm.
 *   fanout     SUB peers, each subscribed to everything (a message whose body is the byte 0x01,
 *              ZMTP 3.0's form) as soon as its handshake is done. After --warmup-s (default 5),
 *              counts the messages received during --seconds T (default 10), in all and per peer.
 *              --rate R (the publisher's rate, for information) adds the expected delivery.
 *
 * --server-pid PID: at every phase boundary the harness reads /proc/PID/stat (the process's CPU,
 * exited threads included, in clock ticks of 10 ms), /proc/PID/task/T/{stat,comm,schedstat}
 * (each thread's CPU in ticks and, from schedstat, in nanoseconds) and /proc/PID/status (VmRSS).
 * A phase's server CPU is the sum of its threads' schedstat time when no thread exited during it
 * (basis "sched", nanosecond resolution), otherwise the process's ticks (basis "ticks"); both are
 * printed. Threads are grouped: jit (comm "C1 Compiler..."/"C2 Compiler..."), gc ("GC Thread",
 * "G1 ..."), vm ("VM Thread": a serial collector's pauses run there too), other (event loops,
 * application threads); the busiest threads are listed by name. The harness's own CPU
 * (getrusage) is printed for every phase, to show the client is not what limits a figure.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "zmtp_null.h"

#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT 24
#endif

#define RXCAP 4096      /* bytes of unparsed input per peer: more than any frame we expect */
#define TXCAP 256       /* bytes of unsent output per peer: greeting + READY + one message */
#define MSG_SIZE 16     /* echo and fan-out message body */
#define MAX_EVENTS 1024

enum mode { ECHO, STORM, HANDSHAKE, FANOUT };

enum state {
    P_IDLE,        /* never started, or closed by us */
    P_CONNECTING,  /* connect() in progress */
    P_HANDSHAKE,   /* connected; greeting and READY sent (or queued), waiting for the server's */
    P_READY,       /* handshaken */
    P_RETRY        /* failed; in the retry queue */
};

/* Why a connection failed. */
enum failure { F_REFUSED, F_RESET, F_CLOSED, F_TIMEOUT, F_NOPORT, F_OTHER, F_DROPPED, F_KINDS };
static const char *FAILURE_NAMES[F_KINDS] = {"refused", "reset", "closed", "timeout", "no_port", "other",
                                             "dropped"};

typedef struct {
    int fd;
    uint32_t gen;      /* bumped at each new socket: stale epoll events are ignored */
    uint8_t state;
    uint8_t greeted;   /* the server's greeting was read */
    uint8_t in_more;   /* inside a multi-frame message */
    uint8_t was_ready; /* has been handshaken once */
    uint16_t rxlen;
    uint16_t txlen, txoff;
    uint32_t echoed;   /* echo: the last round whose echo came back */
    uint64_t received; /* fan-out: messages received */
    uint8_t tx[TXCAP];
} peer_t;

static struct {
    enum mode mode;
    const char *mode_name;
    const char *label;
    int n, sources, batch, warmup, rounds, cycles, server_pid;
    int retry_ms, deadline_s, stall_s, round_timeout_s, settle_ms;
    double seconds, warmup_s, rate;
    struct sockaddr_in target;
} opt;

static peer_t *peers;
static uint8_t *rxbuf; /* n * RXCAP */
static int ep;
static long ready_count;           /* peers in P_READY */
static long started_count;         /* peers asked to be connected (not closed by us) */
static long failures[F_KINDS];
static long retries;
static long handshakes_total;      /* every READY received, re-handshakes of retried peers too */
static uint32_t current_round;
static long echoes_in_round;
static long messages_total;
static int *retry_queue;           /* ring of peer indices, due in order */
static uint64_t *retry_due;
static long rq_head, rq_tail;
static long clk_tck;
static uint64_t storm_t0;          /* storm: when the first connect() was issued */
static double *ready_at;           /* storm: seconds from storm_t0 to each first handshake */
static long ready_at_count;

/* ---------- small helpers ---------- */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "manypeers: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

static const char *option(int argc, char **argv, const char *name, const char *dflt) {
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], name) == 0) {
            return argv[i + 1];
        }
    }
    return dflt;
}

static double harness_cpu_s(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double) ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double) ru.ru_stime.tv_sec
           + ru.ru_stime.tv_usec * 1e-6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

/* The q-quantile (0..1) of sorted values: the nearest rank. */
static double quantile(const double *sorted, long n, double q) {
    if (n == 0) {
        return 0;
    }
    long i = (long) (q * (double) n + 0.999999) - 1;
    if (i < 0) {
        i = 0;
    }
    if (i >= n) {
        i = n - 1;
    }
    return sorted[i];
}

/* ---------- the server's /proc figures ---------- */

typedef struct {
    int tid;
    char comm[32];
    uint64_t ticks;  /* utime + stime */
    uint64_t ns;     /* schedstat run time; 0 if unavailable */
} thread_stat_t;

typedef struct {
    int ok;
    uint64_t proc_ticks;
    long rss_kib;
    long fds;
    int count;
    int sched; /* every thread had schedstat */
    long tcpext[2]; /* TCPEXT_NAMES: the kernel's listen-queue overflows and drops */
    thread_stat_t threads[512];
} snap_t;

static int read_file(const char *path, char *buf, size_t size) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    if (n < 0) {
        return -1;
    }
    buf[n] = 0;
    return (int) n;
}

/* utime + stime (fields 14 and 15) of a stat line, counted after the ')' that ends comm. */
static uint64_t stat_ticks(const char *line) {
    const char *p = strrchr(line, ')');
    if (!p) {
        return 0;
    }
    p++;
    unsigned long long ut = 0, st = 0;
    /* fields 3..15: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
    if (sscanf(p, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2) {
        return 0;
    }
    return ut + st;
}

static long count_dir(const char *path) {
    DIR *d = opendir(path);
    if (!d) {
        return -1;
    }
    long n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] != '.') {
            n++;
        }
    }
    closedir(d);
    return n;
}

/* A kB field of /proc/PID/status ("VmRSS:", "RssAnon:"), -1 where unreadable. */
static long read_status_kib(int pid, const char *field) {
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    if (read_file(path, buf, sizeof buf) < 0) {
        return -1;
    }
    char *p = strstr(buf, field);
    return p ? atol(p + strlen(field)) : -1;
}

static long read_rss_kib(int pid) {
    return read_status_kib(pid, "VmRSS:");
}

static long read_fds(int pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", pid);
    return count_dir(path);
}

/*
 * The kernel's TcpExt counters of /proc/net/netstat named in names (for the whole machine, not
 * only this run: other programs' connections count too), into values; -1 where unreadable.
 */
static void read_tcpext(const char *const *names, long *values, int count) {
    static char buf[16384];
    for (int k = 0; k < count; k++) {
        values[k] = -1;
    }
    if (read_file("/proc/net/netstat", buf, sizeof buf) < 0) {
        return;
    }
    char *header = strstr(buf, "TcpExt:");
    char *data = header ? strstr(header + 7, "TcpExt:") : NULL;
    if (!data) {
        return;
    }
    char *h_end = strchr(header, '\n'), *d_end = strchr(data, '\n');
    if (h_end) {
        *h_end = 0;
    }
    if (d_end) {
        *d_end = 0;
    }
    char *hs, *ds;
    char *h = strtok_r(header, " ", &hs), *d = strtok_r(data, " ", &ds);
    while (h && d) {
        for (int k = 0; k < count; k++) {
            if (strcmp(h, names[k]) == 0) {
                values[k] = atol(d);
            }
        }
        h = strtok_r(NULL, " ", &hs);
        d = strtok_r(NULL, " ", &ds);
    }
}

static const char *const TCPEXT_NAMES[2] = {"ListenOverflows", "ListenDrops"};

static void snapshot(snap_t *s) {
    memset(s, 0, sizeof *s);
    read_tcpext(TCPEXT_NAMES, s->tcpext, 2);
    int pid = opt.server_pid;
    if (pid <= 0) {
        return;
    }
    char path[96], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    if (read_file(path, buf, sizeof buf) < 0) {
        die("server pid %d: cannot read %s (has the server exited?)", pid, path);
    }
    s->proc_ticks = stat_ticks(buf);
    s->rss_kib = read_rss_kib(pid);
    s->fds = read_fds(pid);
    s->sched = 1;
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *d = opendir(path);
    if (!d) {
        die("server pid %d: cannot list its threads", pid);
    }
    struct dirent *e;
    while ((e = readdir(d)) && s->count < (int) (sizeof s->threads / sizeof s->threads[0])) {
        if (e->d_name[0] == '.') {
            continue;
        }
        thread_stat_t *t = &s->threads[s->count];
        t->tid = atoi(e->d_name);
        snprintf(path, sizeof path, "/proc/%d/task/%d/stat", pid, t->tid);
        if (read_file(path, buf, sizeof buf) < 0) {
            continue; /* exited meanwhile */
        }
        t->ticks = stat_ticks(buf);
        snprintf(path, sizeof path, "/proc/%d/task/%d/comm", pid, t->tid);
        if (read_file(path, t->comm, sizeof t->comm) < 0) {
            continue;
        }
        t->comm[strcspn(t->comm, "\n")] = 0;
        snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", pid, t->tid);
        unsigned long long ns = 0;
        if (read_file(path, buf, sizeof buf) < 0 || sscanf(buf, "%llu", &ns) != 1) {
            s->sched = 0;
        }
        t->ns = ns;
        s->count++;
    }
    closedir(d);
    s->ok = 1;
}

enum category { C_JIT, C_GC, C_VM, C_OTHER, C_KINDS };
static const char *CATEGORY_NAMES[C_KINDS] = {"jit", "gc", "vm", "other"};

static enum category categorize(const char *comm) {
    if (strncmp(comm, "C1 Compiler", 11) == 0 || strncmp(comm, "C2 Compiler", 11) == 0) {
        return C_JIT;
    }
    if (strstr(comm, "GC Thread") || strncmp(comm, "G1 ", 3) == 0 || strstr(comm, " G1 ")) {
        return C_GC;
    }
    if (strstr(comm, "VM Thread")) {
        return C_VM;
    }
    return C_OTHER;
}

typedef struct {
    int ok;
    double cpu_s;        /* the figure used: sched if usable, else ticks */
    double ticks_s;      /* /proc/PID/stat, clock ticks */
    double sched_s;      /* sum of the threads' schedstat deltas */
    const char *basis;
    int exited;          /* threads gone since the start of the phase */
    double category[C_KINDS];
    struct { char name[32]; double s; } top[5];
    int top_n;
    long rss_kib;
    long fds;
} server_delta_t;

static server_delta_t server_delta(const snap_t *a, const snap_t *b) {
    server_delta_t d;
    memset(&d, 0, sizeof d);
    if (!a->ok || !b->ok) {
        return d;
    }
    d.ok = 1;
    d.ticks_s = (double) (b->proc_ticks - a->proc_ticks) / (double) clk_tck;
    int sched = a->sched && b->sched;
    double per[512];
    for (int i = 0; i < b->count; i++) {
        const thread_stat_t *t = &b->threads[i];
        const thread_stat_t *old = NULL;
        for (int j = 0; j < a->count; j++) {
            if (a->threads[j].tid == t->tid) {
                old = &a->threads[j];
                break;
            }
        }
        double s = sched ? (double) (t->ns - (old ? old->ns : 0)) * 1e-9
                         : (double) (t->ticks - (old ? old->ticks : 0)) / (double) clk_tck;
        per[i] = s;
        d.sched_s += s;
        d.category[categorize(t->comm)] += s;
    }
    for (int j = 0; j < a->count; j++) {
        int found = 0;
        for (int i = 0; i < b->count && !found; i++) {
            found = b->threads[i].tid == a->threads[j].tid;
        }
        d.exited += !found;
    }
    if (!sched) {
        d.sched_s = -1;
    }
    if (sched && d.exited == 0) {
        d.cpu_s = d.sched_s;
        d.basis = "sched";
    } else {
        d.cpu_s = d.ticks_s;
        d.basis = "ticks";
    }
    /* the busiest threads */
    int used[512] = {0};
    for (int k = 0; k < 5; k++) {
        int best = -1;
        for (int i = 0; i < b->count; i++) {
            if (!used[i] && (best < 0 || per[i] > per[best])) {
                best = i;
            }
        }
        if (best < 0 || per[best] < 0.0005) {
            break;
        }
        used[best] = 1;
        snprintf(d.top[k].name, sizeof d.top[k].name, "%s", b->threads[best].comm);
        d.top[k].s = per[best];
        d.top_n++;
    }
    d.rss_kib = b->rss_kib;
    d.fds = b->fds;
    return d;
}

/* ---------- JSON output ---------- */

static char json[16384];
static size_t json_len;

static void jraw(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(json + json_len, sizeof json - json_len, fmt, ap);
    va_end(ap);
    if (n > 0) {
        json_len += (size_t) n;
        if (json_len >= sizeof json) {
            json_len = sizeof json - 1;
        }
    }
}

/* A JSON string of s (names here are printable ASCII; anything else is escaped). */
static void jstr(const char *s) {
    jraw("\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char) *s;
        if (c == '"' || c == '\\') {
            jraw("\\%c", c);
        } else if (c < 0x20 || c > 0x7e) {
            jraw("\\u%04x", c);
        } else {
            jraw("%c", c);
        }
    }
    jraw("\"");
}

static void jbegin(const char *phase) {
    json_len = 0;
    jraw("{\"bench\":\"manypeers\",\"mode\":\"%s\",\"impl\":", opt.mode_name);
    jstr(opt.label);
    jraw(",\"n\":%d,\"sources\":%d,\"phase\":\"%s\"", opt.n, opt.sources, phase);
}

static void jserver(const server_delta_t *d) {
    if (!d->ok) {
        jraw(",\"server\":null");
        return;
    }
    jraw(",\"server\":{\"pid\":%d,\"cpu_s\":%.4f,\"basis\":\"%s\",\"ticks_s\":%.2f,\"sched_s\":%.4f,"
         "\"threads_exited\":%d",
         opt.server_pid, d->cpu_s, d->basis, d->ticks_s, d->sched_s, d->exited);
    for (int c = 0; c < C_KINDS; c++) {
        jraw(",\"%s_s\":%.4f", CATEGORY_NAMES[c], d->category[c]);
    }
    jraw(",\"top\":[");
    for (int k = 0; k < d->top_n; k++) {
        jraw("%s[", k ? "," : "");
        jstr(d->top[k].name);
        jraw(",%.4f]", d->top[k].s);
    }
    jraw("],\"rss_kib\":%ld,\"fds\":%ld}", d->rss_kib, d->fds);
}

static void jharness(double cpu_s, double wall_s) {
    jraw(",\"wall_s\":%.4f,\"harness\":{\"cpu_s\":%.4f,\"busy\":%.3f}", wall_s, cpu_s,
         wall_s > 0 ? cpu_s / wall_s : 0);
}

static void jfailures(void) {
    jraw(",\"failures\":{");
    for (int k = 0; k < F_KINDS; k++) {
        jraw("%s\"%s\":%ld", k ? "," : "", FAILURE_NAMES[k], failures[k]);
    }
    jraw("},\"retries\":%ld", retries);
}

static void jend(void) {
    jraw("}\n");
    fputs(json, stdout);
    fflush(stdout);
}

/* A phase: timestamps, the harness's CPU and the server's snapshot at its start. */
typedef struct {
    uint64_t t0;
    double cpu0;
    snap_t *snap;
} phase_t;

static void phase_start(phase_t *p) {
    snapshot(p->snap);
    p->cpu0 = harness_cpu_s();
    p->t0 = now_ns();
}

typedef struct {
    double wall_s, harness_s;
    server_delta_t server;
    long listen_overflows, listen_drops; /* machine-wide deltas, -1 if unknown */
} phase_result_t;

static phase_result_t phase_end(phase_t *p) {
    phase_result_t r;
    r.wall_s = (double) (now_ns() - p->t0) * 1e-9;
    r.harness_s = harness_cpu_s() - p->cpu0;
    snap_t *end = malloc(sizeof(snap_t));
    if (!end) {
        die("out of memory");
    }
    snapshot(end);
    r.server = server_delta(p->snap, end);
    r.listen_overflows = p->snap->tcpext[0] >= 0 && end->tcpext[0] >= 0 ? end->tcpext[0] - p->snap->tcpext[0] : -1;
    r.listen_drops = p->snap->tcpext[1] >= 0 && end->tcpext[1] >= 0 ? end->tcpext[1] - p->snap->tcpext[1] : -1;
    free(end);
    return r;
}

/* ---------- the protocol ---------- */

static const char *socket_type(void) {
    return opt.mode == FANOUT ? "SUB" : "DEALER";
}


static void fail_peer(long i, enum failure why, const char *detail);

static void peer_flush(long i) {
    peer_t *p = &peers[i];
    while (p->txoff < p->txlen) {
        ssize_t n = send(p->fd, p->tx + p->txoff, p->txlen - p->txoff, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR) {
                return; /* EPOLLOUT (edge-triggered) brings us back */
            }
            fail_peer(i, errno == ECONNRESET || errno == EPIPE ? F_RESET : F_OTHER, strerror(errno));
            return;
        }
        p->txoff += (uint16_t) n;
    }
    p->txoff = p->txlen = 0;
}

static void peer_send(long i, const uint8_t *data, size_t len) {
    peer_t *p = &peers[i];
    if (p->txlen + len > TXCAP) {
        die("peer %ld: %zu bytes unsent (the server does not read)", i, p->txlen + len);
    }
    memcpy(p->tx + p->txlen, data, len);
    p->txlen += (uint16_t) len;
    if (p->txlen == len) {
        peer_flush(i);
    }
}

static void protocol_error(long i, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "manypeers: peer %ld: protocol error: ", i);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(3);
}

static uint32_t be32(const uint8_t *b) {
    return (uint32_t) b[0] << 24 | (uint32_t) b[1] << 16 | (uint32_t) b[2] << 8 | b[3];
}

static uint64_t be64(const uint8_t *b) {
    return (uint64_t) be32(b) << 32 | be32(b + 4);
}

static void check_greeting(long i, const uint8_t *g) {
    if (g[0] != 0xFF || g[9] != 0x7F) {
        protocol_error(i, "greeting signature %02x..%02x, not ff..7f", g[0], g[9]);
    }
    if (g[10] < 3) {
        protocol_error(i, "server speaks ZMTP %d.%d; this harness speaks 3.x only", g[10], g[11]);
    }
    static const uint8_t null_mechanism[20] = "NULL";
    if (memcmp(g + 12, null_mechanism, 20) != 0) {
        protocol_error(i, "server's mechanism is \"%.20s\", not NULL", (const char *) g + 12);
    }
    if (g[32] != 0) {
        protocol_error(i, "server's greeting has as-server %d; NULL requires 0", g[32]);
    }
}

static void on_ready(long i);

/* The server's READY: its properties must parse and its Socket-Type must fit ours. */
static void check_ready(long i, const uint8_t *body, size_t size) {
    size_t off = 6;
    char type[32] = "";
    while (off < size) {
        size_t nl = body[off++];
        if (nl == 0 || off + nl + 4 > size) {
            protocol_error(i, "READY: malformed property at offset %zu", off - 1);
        }
        const uint8_t *name = body + off;
        off += nl;
        uint32_t vl = be32(body + off);
        off += 4;
        if (vl > size - off) {
            protocol_error(i, "READY: property value of %u bytes past the end", vl);
        }
        if (nl == 11 && strncasecmp((const char *) name, "Socket-Type", 11) == 0) {
            snprintf(type, sizeof type, "%.*s", (int) (vl < 31 ? vl : 31), (const char *) body + off);
        }
        off += vl;
    }
    int fits = opt.mode == FANOUT ? strcmp(type, "PUB") == 0 || strcmp(type, "XPUB") == 0
                                  : strcmp(type, "ROUTER") == 0;
    if (!fits) {
        protocol_error(i, "server's Socket-Type is \"%s\"; a %s peer needs %s", type, socket_type(),
                       opt.mode == FANOUT ? "PUB or XPUB" : "ROUTER");
    }
}

static void on_command(long i, const uint8_t *body, size_t size) {
    peer_t *p = &peers[i];
    if (size < 1 || (size_t) body[0] + 1 > size) {
        protocol_error(i, "command frame with a bad name length");
    }
    size_t nl = body[0];
    const char *name = (const char *) body + 1;
    if (nl == 5 && memcmp(name, "ERROR", 5) == 0) {
        size_t rl = size > 6 ? body[6] : 0;
        protocol_error(i, "server sent ERROR \"%.*s\"", (int) (rl <= size - 7 ? rl : 0), (const char *) body + 7);
    }
    if (p->state != P_READY) {
        if (nl == 5 && memcmp(name, "READY", 5) == 0) {
            check_ready(i, body, size);
            p->state = P_READY;
            ready_count++;
            handshakes_total++;
            if (ready_at && !p->was_ready) {
                ready_at[ready_at_count++] = (double) (now_ns() - storm_t0) * 1e-9;
            }
            p->was_ready = 1;
            on_ready(i);
            return;
        }
        protocol_error(i, "command \"%.*s\" before READY", (int) nl, name);
    }
    if (nl == 4 && memcmp(name, "PING", 4) == 0) {
        /* answer heartbeats: PONG with the PING's context (after its 2-byte TTL) */
        size_t ctx = size > 7 ? size - 7 : 0;
        if (ctx > 16) {
            ctx = 16;
        }
        uint8_t pong[2 + 5 + 16];
        pong[0] = 0x04;
        pong[1] = (uint8_t) (5 + ctx);
        pong[2] = 4;
        memcpy(pong + 3, "PONG", 4);
        memcpy(pong + 7, body + 7, ctx);
        peer_send(i, pong, 7 + ctx);
    }
    /* anything else (PONG, a SUBSCRIBE that is not for us) is ignored */
}

static void on_message(long i, uint8_t flags, const uint8_t *body, size_t size) {
    peer_t *p = &peers[i];
    if (p->state != P_READY) {
        protocol_error(i, "message frame before READY");
    }
    if (opt.mode == ECHO) {
        if ((flags & 0x01) || p->in_more || size != MSG_SIZE) {
            protocol_error(i, "echo of %zu bytes%s; sent one frame of %d", size, (flags & 0x01) ? " (more)" : "",
                           MSG_SIZE);
        }
        uint32_t who = be32(body), round = be32(body + 4);
        if (who != (uint32_t) i || round != current_round || p->echoed == current_round) {
            protocol_error(i, "echo of peer %u round %u; expected peer %ld round %u once", who, round, i,
                           current_round);
        }
        p->echoed = current_round;
        echoes_in_round++;
        return;
    }
    p->in_more = flags & 0x01;
    if (!p->in_more) {
        p->received++;
        messages_total++;
    }
}

/* Parses what peer i has received; returns once the buffer holds no whole frame. */
static void parse(long i) {
    peer_t *p = &peers[i];
    uint8_t *rx = rxbuf + (size_t) i * RXCAP;
    size_t off = 0, len = p->rxlen;
    if (!p->greeted) {
        if (len < 64) {
            return;
        }
        check_greeting(i, rx);
        p->greeted = 1;
        off = 64;
    }
    while (len - off >= 2 && p->fd >= 0) {
        uint8_t flags = rx[off];
        if (flags & 0xF8) {
            protocol_error(i, "frame flags 0x%02x: reserved bits set", flags);
        }
        size_t hdr = 2, size = rx[off + 1];
        if (flags & 0x02) {
            if (len - off < 9) {
                break;
            }
            hdr = 9;
            uint64_t big = be64(rx + off + 1);
            if (big > RXCAP - 9) {
                protocol_error(i, "frame of %llu bytes; this harness takes up to %d", (unsigned long long) big,
                               RXCAP - 9);
            }
            size = (size_t) big;
        }
        if (len - off < hdr + size) {
            break;
        }
        if (flags & 0x04) {
            if (flags & 0x01) {
                protocol_error(i, "command frame with MORE set");
            }
            on_command(i, rx + off + hdr, size);
        } else {
            on_message(i, flags, rx + off + hdr, size);
        }
        off += hdr + size;
    }
    if (p->fd < 0) {
        return; /* failed while parsing */
    }
    if (off > 0) {
        memmove(rx, rx + off, len - off);
        p->rxlen = (uint16_t) (len - off);
    }
}

/* ---------- connections ---------- */

static void retry_push(long i) {
    retry_queue[rq_tail % opt.n] = (int) i;
    retry_due[rq_tail % opt.n] = now_ns() + (uint64_t) opt.retry_ms * 1000000u;
    rq_tail++;
}

static void close_peer(long i) {
    peer_t *p = &peers[i];
    if (p->fd >= 0) {
        close(p->fd);
        p->fd = -1;
    }
    if (p->state == P_READY) {
        ready_count--;
    }
    p->greeted = p->in_more = 0;
    p->rxlen = p->txlen = p->txoff = 0;
}

static void fail_peer(long i, enum failure why, const char *detail) {
    peer_t *p = &peers[i];
    if (p->state == P_READY) {
        why = F_DROPPED;
    }
    failures[why]++;
    if (failures[why] <= 3) {
        fprintf(stderr, "manypeers: peer %ld (127.0.0.%ld): %s%s%s\n", i, i % opt.sources + 1, FAILURE_NAMES[why],
                detail ? ": " : "", detail ? detail : "");
    }
    close_peer(i);
    p->state = P_RETRY;
    retry_push(i);
}

static enum failure failure_of(int err) {
    switch (err) {
        case ECONNREFUSED:
            return F_REFUSED;
        case ECONNRESET:
        case EPIPE:
            return F_RESET;
        case ETIMEDOUT:
            return F_TIMEOUT;
        case EADDRNOTAVAIL:
        case EADDRINUSE:
            return F_NOPORT;
        default:
            return F_OTHER;
    }
}

static void start_peer(long i) {
    peer_t *p = &peers[i];
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        die("socket: %s (ulimit -n is %ld)", strerror(errno), sysconf(_SC_OPEN_MAX));
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (opt.sources > 1) {
        setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
        struct sockaddr_in src = {0};
        src.sin_family = AF_INET;
        src.sin_addr.s_addr = htonl(0x7F000001u + (uint32_t) (i % opt.sources));
        if (bind(fd, (struct sockaddr *) &src, sizeof src) < 0) {
            die("bind 127.0.0.%ld: %s", i % opt.sources + 1, strerror(errno));
        }
    }
    p->fd = fd;
    p->gen++;
    p->state = P_CONNECTING;
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
                             .data.u64 = (uint64_t) i | (uint64_t) p->gen << 32};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
        die("epoll_ctl: %s", strerror(errno));
    }
    if (connect(fd, (struct sockaddr *) &opt.target, sizeof opt.target) < 0 && errno != EINPROGRESS) {
        fail_peer(i, failure_of(errno), strerror(errno));
    }
}

static void connected(long i) {
    peer_t *p = &peers[i];
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err) {
        fail_peer(i, failure_of(err), strerror(err));
        return;
    }
    p->state = P_HANDSHAKE;
    uint8_t hello[64 + 64];
    size_t n = zmtp_put_greeting(hello);
    n += zmtp_put_ready(hello + n, socket_type());
    peer_send(i, hello, n);
}

static void readable(long i) {
    peer_t *p = &peers[i];
    uint8_t *rx = rxbuf + (size_t) i * RXCAP;
    for (;;) {
        size_t room = RXCAP - p->rxlen;
        ssize_t n = recv(p->fd, rx + p->rxlen, room, 0);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR) {
                return;
            }
            fail_peer(i, failure_of(errno), strerror(errno));
            return;
        }
        if (n == 0) {
            fail_peer(i, F_CLOSED, p->state == P_READY ? "the server closed the connection"
                                                       : "closed during the handshake");
            return;
        }
        p->rxlen += (uint16_t) n;
        parse(i);
        if (p->fd < 0 || (size_t) n < room) {
            return; /* a short read: drained (edge-triggered: the next bytes bring a new event) */
        }
    }
}

static void on_ready(long i) {
    if (opt.mode == FANOUT) {
        static const uint8_t subscribe_all[3] = {0x00, 0x01, 0x01};
        peer_send(i, subscribe_all, sizeof subscribe_all);
    }
}

static void due_retries(void) {
    uint64_t now = now_ns();
    while (rq_head < rq_tail && retry_due[rq_head % opt.n] <= now) {
        long i = retry_queue[rq_head % opt.n];
        rq_head++;
        if (peers[i].state == P_RETRY) {
            retries++;
            start_peer(i);
        }
    }
}

/* Handles what is ready within timeout_ms, then the retries that are due. */
static void pump(int timeout_ms) {
    static struct epoll_event events[MAX_EVENTS];
    if (rq_head < rq_tail) {
        uint64_t due = retry_due[rq_head % opt.n], now = now_ns();
        int until = due <= now ? 0 : (int) ((due - now) / 1000000u) + 1;
        if (until < timeout_ms) {
            timeout_ms = until;
        }
    }
    int n = epoll_wait(ep, events, MAX_EVENTS, timeout_ms);
    if (n < 0 && errno != EINTR) {
        die("epoll_wait: %s", strerror(errno));
    }
    for (int k = 0; k < n; k++) {
        long i = (long) (events[k].data.u64 & 0xFFFFFFFFu);
        uint32_t gen = (uint32_t) (events[k].data.u64 >> 32);
        peer_t *p = &peers[i];
        if (p->gen != gen || p->fd < 0) {
            continue; /* an event of an earlier socket of this peer */
        }
        uint32_t e = events[k].events;
        if (p->state == P_CONNECTING) {
            if (!(e & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
                continue;
            }
            connected(i);
            if (p->fd < 0) {
                continue;
            }
        } else if ((e & EPOLLOUT) && p->txlen) {
            peer_flush(i);
            if (p->fd < 0) {
                continue;
            }
        }
        if (e & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
            readable(i);
        }
    }
    due_retries();
}

typedef struct {
    double seconds;      /* until all were handshaken, or until given up */
    int complete;
    long missing;
    long handshakes;     /* handshakes completed meanwhile, those of retried peers included */
} connect_result_t;

/*
 * Connects peers [0, n): in batches of batch (each batch's handshakes done before the next
 * starts), or all at once (batch >= n, storm), until all n are handshaken at the same time or
 * the deadline passes. Failed peers are retried after --retry-ms.
 */
static connect_result_t connect_all(long n, long batch, int storm) {
    connect_result_t r = {0};
    long handshakes0 = handshakes_total;
    uint64_t t0 = now_ns(), deadline = t0 + (uint64_t) opt.deadline_s * 1000000000u;
    long next = 0, most = ready_count;
    uint64_t progress = t0;
    while (next < n) {
        long end = next + batch < n ? next + batch : n;
        for (; next < end; next++) {
            started_count++;
            start_peer(next);
            if (storm && (next & 255) == 255) {
                pump(0);
            }
        }
        while (ready_count < started_count && now_ns() < deadline) {
            pump(10);
            if (ready_count > most) {
                most = ready_count;
                progress = now_ns();
            } else if (!storm && now_ns() - progress > (uint64_t) opt.stall_s * 1000000000u) {
                fprintf(stderr, "manypeers: no more than %ld peers handshaken at once for %d s: giving up\n", most,
                        opt.stall_s);
                deadline = 0;
            }
        }
        if (ready_count < started_count) {
            break;
        }
    }
    r.seconds = (double) (now_ns() - t0) * 1e-9;
    r.handshakes = handshakes_total - handshakes0;
    r.complete = ready_count == n;
    r.missing = n - ready_count;
    if (!r.complete) {
        fprintf(stderr, "manypeers: %ld of %ld peers handshaken when giving up after %.1f s\n", ready_count, n,
                r.seconds);
    }
    return r;
}

/* Closes every peer; with --server-pid, waits until the server's open files are back to base. */
static double close_all(long base_fds) {
    uint64_t t0 = now_ns();
    for (long i = 0; i < opt.n; i++) {
        if (peers[i].state != P_IDLE) {
            close_peer(i);
            peers[i].state = P_IDLE;
        }
    }
    started_count = 0;
    rq_head = rq_tail = 0;
    if (opt.server_pid > 0 && base_fds >= 0) {
        uint64_t deadline = now_ns() + 30000000000u;
        long fds;
        while ((fds = read_fds(opt.server_pid)) > base_fds + 2 && now_ns() < deadline) {
            struct timespec ts = {0, 10000000};
            nanosleep(&ts, NULL);
        }
        if (fds > base_fds + 2) {
            fprintf(stderr, "manypeers: the server still has %ld files open (%ld before) 30 s after the close\n", fds,
                    base_fds);
        }
    }
    double waited = (double) (now_ns() - t0) * 1e-9;
    struct timespec ts = {opt.settle_ms / 1000, (long) (opt.settle_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    return waited;
}

/* ---------- modes ---------- */

static void jconnect(const char *phase, const connect_result_t *c, const phase_result_t *r) {
    jbegin(phase);
    jraw(",\"complete\":%s,\"handshaken\":%ld,\"missing\":%ld,\"handshakes\":%ld,\"connect_s\":%.4f",
         c->complete ? "true" : "false", opt.n - c->missing, c->missing, c->handshakes, c->seconds);
    jfailures();
    /* SYNs or handshake ACKs the kernel dropped because a listen queue was full (the whole machine's) */
    jraw(",\"kernel\":{\"listen_overflows\":%ld,\"listen_drops\":%ld}", r->listen_overflows, r->listen_drops);
    jharness(r->harness_s, r->wall_s);
    jserver(&r->server);
    /* per handshake completed in the phase, re-handshakes of retried peers included */
    jraw(",\"derived\":{");
    if (r->server.ok && c->handshakes > 0) {
        jraw("\"server_cpu_ms_per_handshake\":%.5f,", r->server.cpu_s * 1e3 / (double) c->handshakes);
    }
    jraw("\"harness_cpu_ms_per_handshake\":%.5f}",
         c->handshakes > 0 ? r->harness_s * 1e3 / (double) c->handshakes : 0);
}

/* One echo round: every peer sends one message; returns its seconds, or a negative on failure. */
static double echo_round(void) {
    current_round++;
    echoes_in_round = 0;
    long dropped = failures[F_DROPPED];
    uint64_t t0 = now_ns(), deadline = t0 + (uint64_t) opt.round_timeout_s * 1000000000u;
    uint8_t msg[2 + MSG_SIZE] = {0x00, MSG_SIZE};
    memcpy(msg + 10, "manypeer", 8);
    if (ready_count < opt.n) {
        fprintf(stderr, "manypeers: round %u: only %ld of %d peers are connected\n", current_round, ready_count, opt.n);
        return -1;
    }
    for (long i = 0; i < opt.n; i++) {
        msg[2] = (uint8_t) (i >> 24);
        msg[3] = (uint8_t) (i >> 16);
        msg[4] = (uint8_t) (i >> 8);
        msg[5] = (uint8_t) i;
        msg[6] = (uint8_t) (current_round >> 24);
        msg[7] = (uint8_t) (current_round >> 16);
        msg[8] = (uint8_t) (current_round >> 8);
        msg[9] = (uint8_t) current_round;
        peer_send(i, msg, sizeof msg);
    }
    while (echoes_in_round < opt.n && failures[F_DROPPED] == dropped && now_ns() < deadline) {
        pump(10);
    }
    double s = (double) (now_ns() - t0) * 1e-9;
    if (echoes_in_round < opt.n) {
        fprintf(stderr, "manypeers: round %u: %ld of %d echoes back after %.1f s; %ld peers dropped\n", current_round,
                echoes_in_round, opt.n, s, failures[F_DROPPED] - dropped);
        return -1;
    }
    return s;
}

static void jrounds(const char *phase, const double *times, int count, const phase_result_t *r, int failed) {
    double *sorted = malloc(sizeof(double) * (size_t) (count > 0 ? count : 1));
    double sum = 0;
    for (int k = 0; k < count; k++) {
        sorted[k] = times[k];
        sum += times[k];
    }
    qsort(sorted, (size_t) count, sizeof(double), cmp_double);
    jbegin(phase);
    jraw(",\"complete\":%s,\"rounds\":%d,\"round_ms\":{\"mean\":%.3f,\"p50\":%.3f,\"p99\":%.3f,\"max\":%.3f}",
         failed ? "false" : "true", count, count ? sum / count * 1e3 : 0, quantile(sorted, count, 0.5) * 1e3,
         quantile(sorted, count, 0.99) * 1e3, count ? sorted[count - 1] * 1e3 : 0);
    jfailures();
    jharness(r->harness_s, r->wall_s);
    jserver(&r->server);
    double echoes = (double) count * opt.n;
    jraw(",\"derived\":{");
    if (r->server.ok && count > 0) {
        jraw("\"server_cpu_ms_per_1000_echoes\":%.4f,\"server_cpu_ms_per_round\":%.3f,",
             r->server.cpu_s * 1e3 / (echoes / 1000), r->server.cpu_s * 1e3 / count);
    }
    jraw("\"harness_cpu_ms_per_1000_echoes\":%.4f,\"harness_cpu_ms_per_round\":%.3f}",
         count ? r->harness_s * 1e3 / (echoes / 1000) : 0, count ? r->harness_s * 1e3 / count : 0);
    jend();
    free(sorted);
}

/*
 * Memory per connection: the growth of the resident set, and of its private anonymous part
 * (RssAnon), from before the connects to all handshaken. The second leaves out file-backed pages
 * first touched while connecting: a JVM's class-data-sharing archive, a library's code.
 */
static void jmemory(long before, long handshaken, long after_round, long anon_before, long anon_handshaken) {
    jbegin("memory");
    jraw(",\"rss_kib\":{\"before\":%ld,\"handshaken\":%ld,\"after_round\":%ld}", before, handshaken, after_round);
    if (before > 0 && handshaken > 0) {
        jraw(",\"kib_per_connection\":%.3f", (double) (handshaken - before) / opt.n);
    }
    if (anon_before > 0 && anon_handshaken > 0) {
        jraw(",\"anon_kib\":{\"before\":%ld,\"handshaken\":%ld},\"anon_kib_per_connection\":%.3f",
             anon_before, anon_handshaken, (double) (anon_handshaken - anon_before) / opt.n);
    }
    if (before > 0 && after_round > 0) {
        jraw(",\"kib_per_connection_after_round\":%.3f", (double) (after_round - before) / opt.n);
    }
    jend();
}

static int run_echo(void) {
    snap_t *snap = malloc(sizeof(snap_t));
    phase_t ph = {.snap = snap};
    phase_start(&ph);
    long rss_before = snap->rss_kib;
    long anon_before = opt.server_pid > 0 ? read_status_kib(opt.server_pid, "RssAnon:") : -1;
    connect_result_t c = connect_all(opt.n, opt.batch, 0);
    phase_result_t r = phase_end(&ph);
    long rss_handshaken = r.server.ok ? r.server.rss_kib : -1;
    long anon_handshaken = opt.server_pid > 0 ? read_status_kib(opt.server_pid, "RssAnon:") : -1;
    jconnect("connect", &c, &r);
    jend();
    if (!c.complete) {
        return 1;
    }
    long rss_after_round = -1;
    const char *names[2] = {"warmup", "measured"};
    int counts[2] = {opt.warmup, opt.rounds};
    double *times = malloc(sizeof(double) * (size_t) (opt.warmup > opt.rounds ? opt.warmup + 1 : opt.rounds + 1));
    for (int stage = 0; stage < 2; stage++) {
        if (counts[stage] == 0) {
            continue;
        }
        phase_start(&ph);
        int done = 0, failed = 0;
        for (; done < counts[stage]; done++) {
            double s = echo_round();
            if (s < 0) {
                failed = 1;
                break;
            }
            times[done] = s;
            if (rss_after_round < 0 && opt.server_pid > 0) {
                rss_after_round = read_rss_kib(opt.server_pid);
            }
        }
        r = phase_end(&ph);
        jrounds(names[stage], times, done, &r, failed);
        if (failed) {
            return 1;
        }
    }
    jmemory(rss_before, rss_handshaken, rss_after_round, anon_before, anon_handshaken);
    free(times);
    free(snap);
    return 0;
}

static int run_storm(void) {
    snap_t *snap = malloc(sizeof(snap_t));
    phase_t ph = {.snap = snap};
    ready_at = malloc(sizeof(double) * (size_t) opt.n);
    phase_start(&ph);
    long rss_before = snap->rss_kib;
    storm_t0 = now_ns();
    connect_result_t c = connect_all(opt.n, opt.n, 1);
    phase_result_t r = phase_end(&ph);
    jconnect("storm", &c, &r);
    jraw(",\"all_handshaken_s\":");
    if (c.complete) {
        jraw("%.4f", c.seconds);
    } else {
        jraw("null");
    }
    /* when peers got through: ready_at is in order of completion, so already sorted */
    long within_1s = 0, within_2s = 0;
    for (long k = 0; k < ready_at_count; k++) {
        within_1s += ready_at[k] <= 1.0;
        within_2s += ready_at[k] <= 2.0;
    }
    /* the time by which a fraction of all N had been handshaken (null: that many never were) */
    jraw(",\"handshaken_by_s\":{");
    static const double fractions[4] = {0.5, 0.9, 0.99, 1.0};
    static const char *names[4] = {"p50", "p90", "p99", "all"};
    for (int k = 0; k < 4; k++) {
        long rank = (long) (fractions[k] * opt.n + 0.999999) - 1;
        jraw(k ? "," : "");
        if (rank < ready_at_count) {
            jraw("\"%s\":%.4f", names[k], ready_at[rank]);
        } else {
            jraw("\"%s\":null", names[k]);
        }
    }
    jraw("},\"handshaken_within_1s\":%ld,\"handshaken_within_2s\":%ld", within_1s, within_2s);
    if (rss_before > 0 && r.server.ok) {
        jraw(",\"rss_kib_before\":%ld", rss_before);
    }
    jend();
    free(snap);
    return c.complete ? 0 : 1;
}

static int run_handshake(void) {
    snap_t *snap = malloc(sizeof(snap_t));
    phase_t ph = {.snap = snap};
    int rc = 0;
    for (int cycle = 1; cycle <= opt.cycles; cycle++) {
        memset(failures, 0, sizeof failures); /* each cycle's own */
        retries = 0;
        phase_start(&ph);
        long base_fds = snap->fds;
        connect_result_t c = connect_all(opt.n, opt.batch, 0);
        phase_result_t r = phase_end(&ph);
        phase_start(&ph);
        double waited = close_all(opt.server_pid > 0 ? base_fds : -1);
        phase_result_t closing = phase_end(&ph);
        jconnect("cycle", &c, &r);
        jraw(",\"cycle\":%d,\"close\":{\"server_closed_s\":%.4f,\"settle_ms\":%d", cycle, waited, opt.settle_ms);
        if (closing.server.ok) {
            jraw(",\"server_cpu_s\":%.4f,\"server_cpu_ms_per_connection\":%.5f", closing.server.cpu_s,
                 closing.server.cpu_s * 1e3 / opt.n);
        }
        jraw(",\"harness_cpu_s\":%.4f}", closing.harness_s);
        jend();
        if (!c.complete) {
            rc = 1;
            break;
        }
    }
    free(snap);
    return rc;
}

static int run_fanout(void) {
    snap_t *snap = malloc(sizeof(snap_t));
    phase_t ph = {.snap = snap};
    phase_start(&ph);
    long rss_before = snap->rss_kib;
    connect_result_t c = connect_all(opt.n, opt.batch, 0);
    phase_result_t r = phase_end(&ph);
    long rss_connected = r.server.ok ? r.server.rss_kib : -1;
    jconnect("connect", &c, &r);
    jend();
    if (!c.complete) {
        return 1;
    }
    /* warm-up: the subscriptions reach the publisher, its code warms */
    phase_start(&ph);
    uint64_t end = now_ns() + (uint64_t) (opt.warmup_s * 1e9);
    while (now_ns() < end) {
        pump(10);
    }
    long silent = 0;
    for (long i = 0; i < opt.n; i++) {
        silent += peers[i].received == 0;
    }
    long warm_messages = messages_total;
    r = phase_end(&ph);
    jbegin("warmup");
    jraw(",\"seconds\":%.3f,\"messages\":%ld,\"peers_without_message\":%ld", opt.warmup_s, warm_messages, silent);
    jfailures();
    jharness(r.harness_s, r.wall_s);
    jserver(&r.server);
    jend();

    uint64_t *before = malloc(sizeof(uint64_t) * (size_t) opt.n);
    for (long i = 0; i < opt.n; i++) {
        before[i] = peers[i].received;
    }
    long total0 = messages_total;
    phase_start(&ph);
    end = ph.t0 + (uint64_t) (opt.seconds * 1e9);
    uint64_t t;
    while ((t = now_ns()) < end) {
        int ms = (int) ((end - t) / 1000000u);
        pump(ms < 10 ? ms : 10);
    }
    r = phase_end(&ph);
    long delivered = messages_total - total0;
    double *rates = malloc(sizeof(double) * (size_t) opt.n);
    double sum = 0, sq = 0;
    for (long i = 0; i < opt.n; i++) {
        rates[i] = (double) (peers[i].received - before[i]) / r.wall_s;
        sum += rates[i];
        sq += rates[i] * rates[i];
    }
    qsort(rates, (size_t) opt.n, sizeof(double), cmp_double);
    double mean = sum / opt.n, var = sq / opt.n - mean * mean;
    jbegin("window");
    jraw(",\"seconds\":%.4f,\"messages\":%ld,\"msgs_per_s\":%.1f", r.wall_s, delivered, (double) delivered / r.wall_s);
    if (opt.rate > 0) {
        jraw(",\"rate\":%.1f,\"expected_msgs_per_s\":%.1f,\"delivered_fraction\":%.4f", opt.rate, opt.rate * opt.n,
             (double) delivered / r.wall_s / (opt.rate * opt.n));
    }
    jraw(",\"per_peer_msgs_per_s\":{\"min\":%.2f,\"p50\":%.2f,\"mean\":%.2f,\"max\":%.2f,\"cv\":%.4f}", rates[0],
         quantile(rates, opt.n, 0.5), mean, rates[opt.n - 1], mean > 0 ? sqrt(var > 0 ? var : 0) / mean : 0);
    jfailures();
    jharness(r.harness_s, r.wall_s);
    jserver(&r.server);
    jraw(",\"derived\":{");
    if (r.server.ok && delivered > 0) {
        jraw("\"server_cpu_us_per_delivered\":%.4f,", r.server.cpu_s * 1e6 / (double) delivered);
    }
    jraw("\"harness_cpu_us_per_delivered\":%.4f}", delivered > 0 ? r.harness_s * 1e6 / (double) delivered : 0);
    if (rss_before > 0 && rss_connected > 0) {
        jraw(",\"rss_kib\":{\"before\":%ld,\"connected\":%ld},\"kib_per_connection\":%.3f", rss_before, rss_connected,
             (double) (rss_connected - rss_before) / opt.n);
    }
    jend();
    free(rates);
    free(before);
    free(snap);
    return 0;
}

/* ---------- main ---------- */

static void usage(void) {
    fprintf(stderr,
            "usage: manypeers --mode echo|storm|handshake|fanout --target 127.0.0.1:PORT [--n N] [--sources S]\n"
            "         [--label NAME] [--server-pid PID] [--batch B] [--warmup W] [--rounds R] [--round-timeout-s S]\n"
            "         [--retry-ms MS] [--deadline-s S] [--stall-s S] [--cycles C] [--settle-ms MS] [--seconds T] [--warmup-s S]\n"
            "         [--rate R]\n");
    exit(2);
}

int main(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        usage();
    }
    opt.mode_name = option(argc, argv, "--mode", "echo");
    if (strcmp(opt.mode_name, "echo") == 0) {
        opt.mode = ECHO;
    } else if (strcmp(opt.mode_name, "storm") == 0) {
        opt.mode = STORM;
    } else if (strcmp(opt.mode_name, "handshake") == 0) {
        opt.mode = HANDSHAKE;
    } else if (strcmp(opt.mode_name, "fanout") == 0) {
        opt.mode = FANOUT;
    } else {
        usage();
    }
    opt.label = option(argc, argv, "--label", "?");
    opt.n = atoi(option(argc, argv, "--n", "1000"));
    opt.sources = atoi(option(argc, argv, "--sources", "1"));
    opt.batch = atoi(option(argc, argv, "--batch", "100"));
    opt.warmup = atoi(option(argc, argv, "--warmup", "50"));
    opt.rounds = atoi(option(argc, argv, "--rounds", "100"));
    opt.round_timeout_s = atoi(option(argc, argv, "--round-timeout-s", "30"));
    opt.retry_ms = atoi(option(argc, argv, "--retry-ms", "100"));
    opt.deadline_s = atoi(option(argc, argv, "--deadline-s", "60"));
    opt.stall_s = atoi(option(argc, argv, "--stall-s", "15"));
    opt.cycles = atoi(option(argc, argv, "--cycles", "5"));
    opt.settle_ms = atoi(option(argc, argv, "--settle-ms", "200"));
    opt.seconds = atof(option(argc, argv, "--seconds", "10"));
    opt.warmup_s = atof(option(argc, argv, "--warmup-s", "5"));
    opt.rate = atof(option(argc, argv, "--rate", "0"));
    opt.server_pid = atoi(option(argc, argv, "--server-pid", "0"));
    const char *target = option(argc, argv, "--target", NULL);
    if (!target || opt.n < 1 || opt.sources < 1 || opt.sources > 254 || opt.batch < 1 || opt.warmup < 0
        || opt.rounds < 0 || opt.retry_ms < 1 || opt.deadline_s < 1 || opt.stall_s < 1 || opt.cycles < 1 || opt.seconds <= 0
        || opt.warmup_s < 0 || opt.round_timeout_s < 1 || opt.settle_ms < 0) {
        usage();
    }
    char host[64];
    int port;
    if (sscanf(target, "%63[^:]:%d", host, &port) != 2 || port < 1 || port > 65535) {
        die("--target %s: expected 127.0.0.1:PORT", target);
    }
    opt.target.sin_family = AF_INET;
    opt.target.sin_port = htons((uint16_t) port);
    if (inet_pton(AF_INET, host, &opt.target.sin_addr) != 1) {
        die("--target %s: not an IPv4 address", target);
    }
    struct rlimit nofile;
    getrlimit(RLIMIT_NOFILE, &nofile);
    if (nofile.rlim_cur < (rlim_t) opt.n + 16) {
        die("%d peers need more open files than ulimit -n allows (%ld)", opt.n, (long) nofile.rlim_cur);
    }
    clk_tck = sysconf(_SC_CLK_TCK);
    peers = calloc((size_t) opt.n, sizeof(peer_t));
    rxbuf = malloc((size_t) opt.n * RXCAP);
    retry_queue = malloc(sizeof(int) * (size_t) opt.n);
    retry_due = malloc(sizeof(uint64_t) * (size_t) opt.n);
    if (!peers || !rxbuf || !retry_queue || !retry_due) {
        die("out of memory");
    }
    for (long i = 0; i < opt.n; i++) {
        peers[i].fd = -1;
    }
    ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) {
        die("epoll_create1: %s", strerror(errno));
    }
    fprintf(stderr, "manypeers: %s, %d peers from %d source address%s to %s (%s), server pid %d\n", opt.mode_name,
            opt.n, opt.sources, opt.sources > 1 ? "es" : "", target, opt.label, opt.server_pid);
    switch (opt.mode) {
        case ECHO:
            return run_echo();
        case STORM:
            return run_storm();
        case HANDSHAKE:
            return run_handshake();
        case FANOUT:
            return run_fanout();
    }
    return 2;
}
