/*
 * The kernel's floor for the many-peers benchmarks (benchmarks/manypeers.sh, issue #43): a
 * single-threaded server that speaks just enough ZMTP 3.0 NULL for benchmarks/native/manypeers.c
 * to drive it as it drives the libzmq and zmtp-netty servers, and otherwise makes only the system
 * calls no server can avoid. What it costs per message is the least any server can cost on this
 * kernel: what lies below it is out of reach of every implementation, not only of a JVM's.
 *
 *   floor_server --mode echo --bind tcp://127.0.0.1:PORT
 *   floor_server --mode pub --bind tcp://127.0.0.1:PORT --rate MSGS_PER_S [--delay-s S] [--batch K]
 *
 * Both modes: one epoll set, level-triggered (a connection with bytes left is reported again, so
 * one recv per readable event is enough), non-blocking accept4 until the queue is empty, and on
 * each accepted connection our greeting and READY in one send. The peer's greeting (signature,
 * version 3 or later, mechanism NULL) and its first frame (a READY command) are checked; nothing
 * else of ZMTP is validated beyond the framing.
 *   echo  Socket-Type ROUTER. Every readable event is one recv; the complete message frames it
 *         completes go back to the same connection as they came, in one send (a ROUTER that
 *         echoes to a DEALER peer answers with the same body frame). Commands are skipped.
 *   pub   Socket-Type PUB. The subscribers' messages (SUBSCRIBE, 0x01 + prefix) are read and
 *         only mark the connection as subscribed. --delay-s after binding, it publishes
 *         16-byte message frames at --rate messages per second, paced as fanout_pub.c paces
 *         (every millisecond, what rate x elapsed time allows less what it has sent, so a late
 *         tick catches up). The messages due at a turn go to each subscriber in one send (up to
 *         8 KiB, as libzmq's encoder batches): one send per subscriber per message while the
 *         server keeps up with the rate, fewer sends per message once it falls behind. With
 *         --batch K (1..455), every send carries exactly K messages and goes once K are due:
 *         --batch 1 is one send per subscriber per message whatever the load; a larger K
 *         trades K / rate seconds of delay for fewer sends (benchmarks/RESULTS.md measures
 *         the cost per delivered message against K).
 * A send that the kernel does not take whole keeps the rest in the connection's buffer, sent on
 * EPOLLOUT; while that buffer is not empty, further output is appended to it, and what does not
 * fit is dropped (pub, as libzmq drops past its high-water mark) or closes the connection (echo).
 * A malformed greeting or frame closes only that connection, with a line on stderr.
 * The bound endpoint is printed on stderr as "bound tcp://127.0.0.1:PORT".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "zmtp_null.h"

#define RXCAP 1024   /* unparsed input per connection: the handshake and a few frames */
#define TXCAP 8192   /* output the kernel has not taken yet, per connection: one batch */
#define MSG_SIZE 16  /* the published message's body */
#define FRAME_SIZE (2 + MSG_SIZE)
#define BATCH_MAX (TXCAP / FRAME_SIZE) /* messages per send at most: 8 KiB, libzmq's batch too */
#define MAX_EVENTS 1024

enum mode { ECHO, PUB };
enum state { C_FREE, C_GREETING, C_READY_WAIT, C_OPEN };

typedef struct {
    uint8_t state;
    uint8_t subscribed;
    uint16_t rxlen, txlen;
    int sub_index;           /* pub: position in subs[], or -1 */
    uint8_t rx[RXCAP];
    uint8_t tx[TXCAP];
} conn_t;

static enum mode mode;
static int ep, listener;
static conn_t *conns;        /* indexed by file descriptor */
static int max_fds;
static int *subs;            /* pub: the subscribed connections' descriptors */
static int sub_count;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static const char *option(int argc, char **argv, const char *name, const char *dflt) {
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], name) == 0) {
            return argv[i + 1];
        }
    }
    return dflt;
}

static void close_conn(int fd, const char *why) {
    conn_t *c = &conns[fd];
    if (why) {
        fprintf(stderr, "floor_server: closing connection %d: %s\n", fd, why);
    }
    if (c->sub_index >= 0) {
        int last = subs[--sub_count];
        subs[c->sub_index] = last;
        conns[last].sub_index = c->sub_index;
    }
    close(fd); /* also leaves the epoll set */
    c->state = C_FREE;
    c->subscribed = 0;
    c->rxlen = c->txlen = 0;
    c->sub_index = -1;
}

static void watch(int fd, uint32_t events) {
    struct epoll_event ev = {.events = events, .data.fd = fd};
    epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev);
}

/* Sends len bytes to fd, or queues what the kernel does not take; returns 0, or -1 if closed. */
static int conn_send(int fd, const uint8_t *data, size_t len) {
    conn_t *c = &conns[fd];
    if (c->txlen == 0) {
        ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
        if (n == (ssize_t) len) {
            return 0;
        }
        if (n < 0) {
            if (errno != EAGAIN && errno != EINTR) {
                close_conn(fd, errno == ECONNRESET || errno == EPIPE ? NULL : strerror(errno));
                return -1;
            }
            n = 0;
        }
        /* the rest of a message that is on its way must follow it: it always fits an empty buffer */
        memcpy(c->tx, data + n, len - (size_t) n);
        c->txlen = (uint16_t) (len - (size_t) n);
        watch(fd, EPOLLIN | EPOLLOUT);
        return 0;
    }
    if (c->txlen + len > TXCAP) {
        if (mode == PUB) {
            return 0; /* dropped, as past a high-water mark */
        }
        close_conn(fd, "the peer does not read its echoes");
        return -1;
    }
    memcpy(c->tx + c->txlen, data, len);
    c->txlen += (uint16_t) len;
    return 0;
}

static void flush_pending(int fd) {
    conn_t *c = &conns[fd];
    ssize_t n = send(fd, c->tx, c->txlen, MSG_NOSIGNAL);
    if (n < 0) {
        if (errno != EAGAIN && errno != EINTR) {
            close_conn(fd, errno == ECONNRESET || errno == EPIPE ? NULL : strerror(errno));
        }
        return;
    }
    memmove(c->tx, c->tx + n, c->txlen - (size_t) n);
    c->txlen -= (uint16_t) n;
    if (c->txlen == 0) {
        watch(fd, EPOLLIN);
    }
}

/* Our greeting (ZMTP 3.0, NULL, as-server 0) and READY with our Socket-Type; returns its size. */
static size_t put_hello(uint8_t *b) {
    size_t n = zmtp_put_greeting(b);
    return n + zmtp_put_ready(b + n, mode == ECHO ? "ROUTER" : "PUB");
}

static void accept_all(void) {
    static uint8_t hello[128];
    static size_t hello_len;
    if (hello_len == 0) {
        hello_len = put_hello(hello);
    }
    for (;;) {
        int fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED) {
                fprintf(stderr, "floor_server: accept: %s\n", strerror(errno));
            }
            return;
        }
        if (fd >= max_fds) {
            close(fd);
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        conn_t *c = &conns[fd];
        c->state = C_GREETING;
        c->subscribed = 0;
        c->rxlen = c->txlen = 0;
        c->sub_index = -1;
        struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
            close_conn(fd, strerror(errno));
            continue;
        }
        conn_send(fd, hello, hello_len);
    }
}

/* A message frame from an open connection (pub: a subscription marks the subscriber). */
static void subscribe(int fd, const uint8_t *body, size_t size) {
    conn_t *c = &conns[fd];
    if (size >= 1 && body[0] == 1 && !c->subscribed) {
        c->subscribed = 1;
        c->sub_index = sub_count;
        subs[sub_count++] = fd;
    }
}

/* Parses what fd has received: the handshake, then frames; echoes or reads them. */
static void parse(int fd) {
    conn_t *c = &conns[fd];
    size_t off = 0, len = c->rxlen;
    if (c->state == C_GREETING) {
        if (len < 64) {
            return;
        }
        static const uint8_t null_mechanism[20] = "NULL";
        if (c->rx[0] != 0xFF || c->rx[9] != 0x7F || c->rx[10] < 3 || memcmp(c->rx + 12, null_mechanism, 20) != 0) {
            close_conn(fd, "not a ZMTP 3 NULL greeting");
            return;
        }
        c->state = C_READY_WAIT;
        off = 64;
    }
    size_t echo_from = off, echo_to = off; /* the run of message frames to send back */
    while (len - off >= 2) {
        uint8_t flags = c->rx[off];
        size_t hdr = 2, size = c->rx[off + 1];
        if (flags & 0xF8) {
            close_conn(fd, "frame flags with reserved bits set");
            return;
        }
        if (flags & 0x02) {
            if (len - off < 9) {
                break;
            }
            hdr = 9;
            uint64_t big = 0;
            for (int k = 1; k <= 8; k++) {
                big = big << 8 | c->rx[off + k];
            }
            if (big > RXCAP - 9) {
                close_conn(fd, "a frame larger than this server buffers");
                return;
            }
            size = (size_t) big;
        }
        if (len - off < hdr + size) {
            break;
        }
        const uint8_t *body = c->rx + off + hdr;
        if (c->state == C_READY_WAIT) {
            if (!(flags & 0x04) || size < 6 || memcmp(body, "\x05READY", 6) != 0) {
                close_conn(fd, "the first frame after the greeting is not READY");
                return;
            }
            c->state = C_OPEN;
            echo_from = echo_to = off + hdr + size;
        } else if (flags & 0x04) {
            /* a command (PING, a 3.1 SUBSCRIBE): not echoed; what came before goes now */
            if (mode == ECHO && echo_to > echo_from && conn_send(fd, c->rx + echo_from, echo_to - echo_from) < 0) {
                return;
            }
            echo_from = echo_to = off + hdr + size;
        } else if (mode == ECHO) {
            echo_to = off + hdr + size;
        } else {
            subscribe(fd, body, size);
        }
        off += hdr + size;
    }
    if (mode == ECHO && echo_to > echo_from && conn_send(fd, c->rx + echo_from, echo_to - echo_from) < 0) {
        return;
    }
    if (off > 0) {
        memmove(c->rx, c->rx + off, len - off);
        c->rxlen = (uint16_t) (len - off);
    }
}

static void readable(int fd) {
    conn_t *c = &conns[fd];
    ssize_t n = recv(fd, c->rx + c->rxlen, RXCAP - c->rxlen, 0);
    if (n <= 0) {
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            return;
        }
        close_conn(fd, n < 0 && errno != ECONNRESET ? strerror(errno) : NULL);
        return;
    }
    c->rxlen += (uint16_t) n;
    parse(fd);
}

/* Handles what is ready within timeout_ms. */
static void turn(int timeout_ms) {
    static struct epoll_event events[MAX_EVENTS];
    int n = epoll_wait(ep, events, MAX_EVENTS, timeout_ms);
    if (n < 0 && errno != EINTR) {
        fprintf(stderr, "floor_server: epoll_wait: %s\n", strerror(errno));
        exit(1);
    }
    for (int k = 0; k < n; k++) {
        int fd = events[k].data.fd;
        uint32_t e = events[k].events;
        if (fd == listener) {
            accept_all();
            continue;
        }
        if (conns[fd].state == C_FREE) {
            continue; /* closed earlier in this turn */
        }
        if ((e & EPOLLOUT) && conns[fd].txlen) {
            flush_pending(fd);
            if (conns[fd].state == C_FREE) {
                continue;
            }
        }
        if (e & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
            readable(fd);
        }
    }
}

/*
 * Publishes at rate messages per second from start_ns on, forever: at each turn, the messages due
 * by then go to every subscriber in one send (up to BATCH_MAX); with batch > 0, a send carries
 * exactly batch messages and goes once that many are due.
 */
static void publish(double rate, uint64_t start_ns, int batch_size) {
    static uint8_t batch[BATCH_MAX * FRAME_SIZE];
    for (int j = 0; j < BATCH_MAX; j++) {
        batch[j * FRAME_SIZE] = 0x00;
        batch[j * FRAME_SIZE + 1] = MSG_SIZE;
        memset(batch + j * FRAME_SIZE + 2, 'm', MSG_SIZE);
    }
    uint64_t sent = 0;
    for (;;) {
        uint64_t now = now_ns();
        if (now >= start_ns) {
            uint64_t due = (uint64_t) ((double) (now - start_ns) * 1e-9 * rate);
            while (sent < due && (batch_size == 0 || due - sent >= (uint64_t) batch_size)) {
                size_t count = batch_size > 0 ? (size_t) batch_size
                                              : (due - sent < BATCH_MAX ? (size_t) (due - sent) : BATCH_MAX);
                for (size_t j = 0; j < count; j++) {
                    uint64_t seq = sent + j;
                    memcpy(batch + j * FRAME_SIZE + 2, &seq, sizeof seq);
                }
                /* backwards: a subscriber closed by its send swaps the last one into its place */
                for (int k = sub_count - 1; k >= 0; k--) {
                    if (k < sub_count) {
                        conn_send(subs[k], batch, count * FRAME_SIZE);
                    }
                }
                sent += count;
            }
        }
        turn(1);
    }
}

int main(int argc, char **argv) {
    const char *mode_name = option(argc, argv, "--mode", "echo");
    const char *endpoint = option(argc, argv, "--bind", NULL);
    double rate = atof(option(argc, argv, "--rate", "0"));
    double delay = atof(option(argc, argv, "--delay-s", "0"));
    int batch_size = atoi(option(argc, argv, "--batch", "0"));
    char host[64];
    int port;
    mode = strcmp(mode_name, "pub") == 0 ? PUB : ECHO;
    if (!endpoint || (strcmp(mode_name, "echo") != 0 && mode != PUB) || (mode == PUB && rate <= 0) || delay < 0 || batch_size < 0 || batch_size > BATCH_MAX
        || sscanf(endpoint, "tcp://%63[^:]:%d", host, &port) != 2) {
        fprintf(stderr, "usage: floor_server --mode echo --bind tcp://127.0.0.1:PORT\n"
                        "       floor_server --mode pub --bind tcp://127.0.0.1:PORT --rate MSGS_PER_S [--delay-s S]"
                        " [--batch K]\n");
        return 2;
    }
    /* as many connections as descriptors: the soft limit raised to the hard one */
    struct rlimit nofile;
    getrlimit(RLIMIT_NOFILE, &nofile);
    nofile.rlim_cur = nofile.rlim_max;
    setrlimit(RLIMIT_NOFILE, &nofile);
    getrlimit(RLIMIT_NOFILE, &nofile);
    max_fds = nofile.rlim_cur > 1000000 ? 1000000 : (int) nofile.rlim_cur;
    conns = calloc((size_t) max_fds, sizeof(conn_t));
    subs = malloc(sizeof(int) * (size_t) max_fds);
    if (!conns || !subs) {
        fprintf(stderr, "floor_server: out of memory for %d connections\n", max_fds);
        return 1;
    }

    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t) port)};
    if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) {
        fprintf(stderr, "floor_server: %s: not an IPv4 address\n", host);
        return 2;
    }
    listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    socklen_t alen = sizeof addr;
    if (listener < 0 || bind(listener, (struct sockaddr *) &addr, sizeof addr) < 0 || listen(listener, SOMAXCONN) < 0
        || getsockname(listener, (struct sockaddr *) &addr, &alen) < 0) {
        fprintf(stderr, "floor_server: bind %s: %s\n", endpoint, strerror(errno));
        return 1;
    }
    ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = listener};
    if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev) < 0) {
        fprintf(stderr, "floor_server: epoll: %s\n", strerror(errno));
        return 1;
    }
    fprintf(stderr, "bound tcp://%s:%d\n", host, ntohs(addr.sin_port));
    if (mode == PUB) {
        /* --delay-s: the subscribers connect before the first message, as with the other publishers */
        publish(rate, now_ns() + (uint64_t) (delay * 1e9), batch_size);
    }
    for (;;) {
        turn(-1);
    }
}
