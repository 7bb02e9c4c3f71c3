/*
 * libzmq's twin of TrippingBenchmark (workload 1): the round-trip test. A DEALER client ("C")
 * on the main thread, a broker thread polling a ROUTER for clients and a ROUTER for workers and
 * forwarding every waiting message with its routing frame swapped, and an echoing DEALER worker
 * thread ("W"). 5-byte requests; every socket's high-water marks at 1,000,000, as in the Java
 * benchmarks. One context, with one I/O thread unless --io-threads says otherwise (libzmq's default).
 *
 *   tripping --mode sync|async --transport tcp|inproc [--curve] [--warmup N --iterations N --time S] [--io-threads N]
 *
 * --curve: both ROUTERs are CURVE servers (one key pair), the client and the worker CURVE clients
 * (one key pair), as in the Java CurveTrippingBenchmark.
 * sync: one call (send, wait for the reply) per operation. async: 10,000 requests sent, then
 * their replies received, counted as 10,000 operations. Prints calls per second as one JSON line.
 */
#include "bench.h"

#define ASYNC_CALLS 10000
#define HWM 1000000

typedef struct {
    void *frontend;
    void *backend;
} broker_t;

/* Forwards every message waiting on in, routing frame replaced by to. -1 once the context ends. */
static int forward_waiting(void *in, void *out, const char *to) {
    zmq_msg_t frame;
    zmq_msg_init(&frame);
    int rc = 0;
    while (rc == 0) {
        if (zmq_msg_recv(&frame, in, ZMQ_DONTWAIT) < 0) { /* the sender's routing frame, dropped */
            rc = zmq_errno() == EAGAIN ? 1 : -1;
            break;
        }
        if (zmq_send(out, to, 1, ZMQ_SNDMORE) < 0) {
            rc = -1;
            break;
        }
        int more = 1;
        while (more) {
            if (zmq_msg_recv(&frame, in, 0) < 0) {
                rc = -1;
                break;
            }
            more = zmq_msg_more(&frame);
            if (zmq_msg_send(&frame, out, more ? ZMQ_SNDMORE : 0) < 0) {
                rc = -1;
                break;
            }
        }
    }
    zmq_msg_close(&frame);
    return rc < 0 ? -1 : 0;
}

static void *broker(void *arg) {
    broker_t *b = arg;
    zmq_pollitem_t items[2] = {{b->frontend, 0, ZMQ_POLLIN, 0}, {b->backend, 0, ZMQ_POLLIN, 0}};
    for (;;) {
        if (zmq_poll(items, 2, -1) < 0) {
            if (zmq_errno() == EINTR) {
                continue;
            }
            break;
        }
        if ((items[0].revents & ZMQ_POLLIN) && forward_waiting(b->frontend, b->backend, "W") < 0) {
            break;
        }
        if ((items[1].revents & ZMQ_POLLIN) && forward_waiting(b->backend, b->frontend, "C") < 0) {
            break;
        }
    }
    zmq_close(b->frontend);
    zmq_close(b->backend);
    return NULL;
}

static void *worker(void *socket) {
    zmq_msg_t frame;
    zmq_msg_init(&frame);
    for (;;) {
        if (zmq_msg_recv(&frame, socket, 0) < 0) {
            if (zmq_errno() == EINTR) {
                continue;
            }
            break;
        }
        if (zmq_msg_send(&frame, socket, zmq_msg_more(&frame) ? ZMQ_SNDMORE : 0) < 0) {
            break;
        }
    }
    zmq_msg_close(&frame);
    zmq_close(socket);
    return NULL;
}


static void curve_server(void *s, const char *secret) {
    int on = 1;
    if (zmq_setsockopt(s, ZMQ_CURVE_SERVER, &on, sizeof on) || zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, secret, 40)) {
        fail("CURVE server set-up");
    }
}

static void curve_client(void *s, const char *server_public, const char *public, const char *secret) {
    if (zmq_setsockopt(s, ZMQ_CURVE_SERVERKEY, server_public, 40) || zmq_setsockopt(s, ZMQ_CURVE_PUBLICKEY, public, 40)
        || zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, secret, 40)) {
        fail("CURVE client set-up");
    }
}

static void synchronous(void *client, long n) {
    char reply[64];
    for (long i = 0; i < n; i++) {
        if (zmq_send(client, "hello", 5, 0) < 0 || zmq_recv(client, reply, sizeof reply, 0) < 0) {
            fail("round trip");
        }
    }
}

static void asynchronous(void *client, long n) {
    char reply[64];
    for (long i = 0; i < n; i++) {
        if (zmq_send(client, "hello", 5, 0) < 0) {
            fail("send");
        }
    }
    for (long i = 0; i < n; i++) {
        if (zmq_recv(client, reply, sizeof reply, 0) < 0) {
            fail("recv");
        }
    }
}

/*
 * Probes until a request makes it to the worker and back (until the worker is connected the
 * broker's ROUTER drops requests for "W"). Replies come back in order, so once the last probe's
 * reply is in, no older one can follow.
 */
static void await_ready(void *client) {
    int wait_ms = 100;
    zmq_setsockopt(client, ZMQ_RCVTIMEO, &wait_ms, sizeof wait_ms);
    double deadline = now_s() + 10;
    for (int probe = 0; now_s() < deadline; probe++) {
        char sent[32], reply[32];
        int len = snprintf(sent, sizeof sent, "probe-%d", probe);
        zmq_send(client, sent, (size_t) len, 0);
        int got;
        while ((got = zmq_recv(client, reply, sizeof reply, 0)) >= 0) {
            if (got == len && memcmp(sent, reply, (size_t) len) == 0) {
                wait_ms = -1;
                zmq_setsockopt(client, ZMQ_RCVTIMEO, &wait_ms, sizeof wait_ms);
                return;
            }
        }
    }
    fprintf(stderr, "round trip not ready within 10 s\n");
    exit(1);
}

int main(int argc, char **argv) {
    profile_t p = profile(argc, argv);
    const char *mode = option(argc, argv, "--mode", "sync");
    const char *transport = option(argc, argv, "--transport", "tcp");
    int async = strcmp(mode, "async") == 0;
    int inproc = strcmp(transport, "inproc") == 0;
    int curve = flag(argc, argv, "--curve");
    if ((!async && strcmp(mode, "sync")) || (!inproc && strcmp(transport, "tcp"))) {
        fprintf(stderr, "usage: tripping --mode sync|async --transport tcp|inproc [--curve]\n");
        return 2;
    }
    if (curve && !zmq_has("curve")) {
        fprintf(stderr, "this libzmq has no CURVE\n");
        return 2;
    }
    char server_public[41], server_secret[41], client_public[41], client_secret[41];
    if (curve && (zmq_curve_keypair(server_public, server_secret) || zmq_curve_keypair(client_public, client_secret))) {
        fail("zmq_curve_keypair");
    }

    void *ctx = new_context(argc, argv);
    broker_t b = {new_socket(ctx, ZMQ_ROUTER), new_socket(ctx, ZMQ_ROUTER)};
    set_hwm(b.frontend, HWM);
    set_hwm(b.backend, HWM);
    if (curve) {
        curve_server(b.frontend, server_secret);
        curve_server(b.backend, server_secret);
    }
    char fe[256], be[256];
    bind_endpoint(b.frontend, inproc ? "inproc://tripping-frontend" : "tcp://127.0.0.1:*", fe, sizeof fe);
    bind_endpoint(b.backend, inproc ? "inproc://tripping-backend" : "tcp://127.0.0.1:*", be, sizeof be);

    void *w = new_socket(ctx, ZMQ_DEALER);
    set_hwm(w, HWM);
    zmq_setsockopt(w, ZMQ_ROUTING_ID, "W", 1);
    if (curve) {
        curve_client(w, server_public, client_public, client_secret);
    }
    if (zmq_connect(w, be)) {
        fail("connect worker");
    }
    void *client = new_socket(ctx, ZMQ_DEALER);
    set_hwm(client, HWM);
    zmq_setsockopt(client, ZMQ_ROUTING_ID, "C", 1);
    if (curve) {
        curve_client(client, server_public, client_public, client_secret);
    }
    if (zmq_connect(client, fe)) {
        fail("connect client");
    }
    start_thread(broker, &b);
    start_thread(worker, w);
    await_ready(client);
    synchronous(client, 100); /* as the Java set-up */

    double scores[1000];
    run_iterations(p, (ops_fn) (async ? asynchronous : synchronous), client, async ? ASYNC_CALLS : 1, scores);
    char params[160];
    snprintf(params, sizeof params, "\"mode\":\"%s\",\"transport\":\"%s\",\"security\":\"%s\"", mode, transport,
             curve ? "curve" : "null");
    print_throughput("tripping", params, scores, p.iterations);

    zmq_close(client);
    zmq_ctx_term(ctx);
    return 0;
}
