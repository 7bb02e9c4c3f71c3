/*
 * libzmq's twin of ThroughputBenchmark and CurveThroughputBenchmark (workload 3): PUB -> SUB or
 * PUSH -> PULL over loopback tcp. The sender on the main thread binds; a receiver thread
 * connects and counts. Each operation batch sends --batch messages and waits until the receiver
 * has counted them all, so the score is messages received per second. PUB/SUB runs with both
 * high-water marks at twice the batch on both sides (nothing dropped), PUSH/PULL with the
 * defaults, as in the Java benchmarks. With --curve the sender is a CURVE server and the
 * receiver a CURVE client.
 *
 *   throughput --pattern pubsub|pushpull --size BYTES [--curve] [--batch N]
 *              [--warmup N --iterations N --time S] [--io-threads N] [--bind ENDPOINT]
 *
 * Probe messages (first byte 'P') are sent until one arrives, so that a subscription has reached
 * the publisher before measuring; the receiver does not count them.
 */
#include "bench.h"

#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>

typedef struct {
    void *sender;
    void *receiver;
    const char *data;
    int size;
    long received;           /* receiver thread only */
    _Atomic long target;     /* set by the sender before each batch */
    atomic_bool probe_seen;
    sem_t batch_in;
    long expected;           /* sender only */
} flow_t;

static void *receive_loop(void *arg) {
    flow_t *f = arg;
    zmq_msg_t m;
    zmq_msg_init(&m);
    for (;;) {
        if (zmq_msg_recv(&m, f->receiver, 0) < 0) {
            if (zmq_errno() == EINTR) {
                continue;
            }
            break;
        }
        if (((const char *) zmq_msg_data(&m))[0] == 'P') {
            if (!atomic_load_explicit(&f->probe_seen, memory_order_relaxed)) {
                atomic_store(&f->probe_seen, true);
            }
            continue;
        }
        if (++f->received == atomic_load_explicit(&f->target, memory_order_acquire)) {
            sem_post(&f->batch_in);
        }
    }
    zmq_msg_close(&m);
    zmq_close(f->receiver);
    return NULL;
}

static void send_batch(void *arg, long n) {
    flow_t *f = arg;
    f->expected += n;
    atomic_store_explicit(&f->target, f->expected, memory_order_release);
    for (long i = 0; i < n; i++) {
        if (zmq_send(f->sender, f->data, (size_t) f->size, 0) < 0) {
            fail("send");
        }
    }
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 30;
    while (sem_timedwait(&f->batch_in, &deadline)) {
        if (errno != EINTR) {
            fprintf(stderr, "a batch did not arrive whole within 30 s (were messages dropped?)\n");
            exit(1);
        }
    }
}

int main(int argc, char **argv) {
    profile_t p = profile(argc, argv);
    const char *pattern = option(argc, argv, "--pattern", "pushpull");
    int size = atoi(option(argc, argv, "--size", "100"));
    int curve = flag(argc, argv, "--curve");
    long batch = atol(option(argc, argv, "--batch", curve ? "10000" : "50000"));
    int pubsub = strcmp(pattern, "pubsub") == 0;
    if ((!pubsub && strcmp(pattern, "pushpull")) || size < 1 || batch < 1) {
        fprintf(stderr, "usage: throughput --pattern pubsub|pushpull --size BYTES [--curve] [--batch N]\n");
        return 2;
    }
    if (curve && !zmq_has("curve")) {
        fprintf(stderr, "this libzmq has no CURVE\n");
        return 1;
    }

    flow_t f;
    memset(&f, 0, sizeof f);
    atomic_init(&f.target, -1);
    atomic_init(&f.probe_seen, false);
    sem_init(&f.batch_in, 0, 0);
    char *data = malloc((size_t) size);
    char *probe = malloc((size_t) size);
    memset(data, 'D', (size_t) size);
    memset(probe, 'P', (size_t) size);
    f.data = data;
    f.size = size;

    void *ctx = new_context(argc, argv);
    f.sender = new_socket(ctx, pubsub ? ZMQ_PUB : ZMQ_PUSH);
    f.receiver = new_socket(ctx, pubsub ? ZMQ_SUB : ZMQ_PULL);
    if (pubsub) {
        set_hwm(f.sender, (int) (2 * batch));
        set_hwm(f.receiver, (int) (2 * batch));
        zmq_setsockopt(f.receiver, ZMQ_SUBSCRIBE, "", 0);
    }
    if (curve) {
        char server_public[41], server_secret[41], client_public[41], client_secret[41];
        int on = 1;
        if (zmq_curve_keypair(server_public, server_secret) || zmq_curve_keypair(client_public, client_secret)
            || zmq_setsockopt(f.sender, ZMQ_CURVE_SERVER, &on, sizeof on)
            || zmq_setsockopt(f.sender, ZMQ_CURVE_SECRETKEY, server_secret, 40)
            || zmq_setsockopt(f.receiver, ZMQ_CURVE_SERVERKEY, server_public, 40)
            || zmq_setsockopt(f.receiver, ZMQ_CURVE_PUBLICKEY, client_public, 40)
            || zmq_setsockopt(f.receiver, ZMQ_CURVE_SECRETKEY, client_secret, 40)) {
            fail("CURVE set-up");
        }
    }
    char endpoint[256];
    bind_endpoint(f.sender, option(argc, argv, "--bind", "tcp://127.0.0.1:*"), endpoint, sizeof endpoint);
    if (zmq_connect(f.receiver, endpoint)) {
        fail("connect");
    }
    start_thread(receive_loop, &f);

    double deadline = now_s() + 10;
    while (!atomic_load(&f.probe_seen)) {
        if (now_s() > deadline) {
            fprintf(stderr, "receiver not ready within 10 s\n");
            return 1;
        }
        zmq_send(f.sender, probe, (size_t) size, ZMQ_DONTWAIT);
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    send_batch(&f, 1000); /* as the Java set-up */

    double scores[1000];
    run_iterations(p, send_batch, &f, batch, scores);
    char params[160];
    snprintf(params, sizeof params, "\"pattern\":\"%s\",\"size\":%d,\"security\":\"%s\",\"batch\":%ld",
             pattern, size, curve ? "curve" : "null", batch);
    print_throughput("throughput", params, scores, p.iterations);

    zmq_close(f.sender);
    zmq_ctx_term(ctx);
    free(data);
    free(probe);
    return 0;
}
