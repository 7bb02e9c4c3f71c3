/*
 * libzmq's twin of ReqRepLatencyBenchmark (workload 2): REQ -> REP round-trip latency over
 * loopback tcp. A REP thread sends each request back; the REQ client on the main thread times
 * every round trip. Warm-up for warmup x time seconds unrecorded, then every round trip of
 * iterations x time seconds is recorded; prints mean and percentiles in microseconds.
 *
 *   reqrep_latency --size BYTES [--warmup N --iterations N --time S] [--io-threads N]
 */
#include "bench.h"

static void *rep_echo(void *socket) {
    zmq_msg_t m;
    zmq_msg_init(&m);
    for (;;) {
        if (zmq_msg_recv(&m, socket, 0) < 0) {
            if (zmq_errno() == EINTR) {
                continue;
            }
            break;
        }
        if (zmq_msg_send(&m, socket, 0) < 0) {
            break;
        }
    }
    zmq_msg_close(&m);
    zmq_close(socket);
    return NULL;
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return x < y ? -1 : x > y;
}

/* The p-th percentile (0-100) of sorted samples, nearest rank. */
static double percentile(const uint64_t *sorted, size_t n, double p) {
    size_t rank = (size_t) (p / 100.0 * (double) n + 0.999999);
    if (rank < 1) {
        rank = 1;
    }
    if (rank > n) {
        rank = n;
    }
    return (double) sorted[rank - 1];
}

int main(int argc, char **argv) {
    profile_t p = profile(argc, argv);
    int size = atoi(option(argc, argv, "--size", "1"));
    if (size < 1) {
        fprintf(stderr, "usage: reqrep_latency --size BYTES\n");
        return 2;
    }
    char *payload = malloc((size_t) size);
    char *reply = malloc((size_t) size + 1);
    memset(payload, 'R', (size_t) size);

    void *ctx = new_context(argc, argv);
    void *rep = new_socket(ctx, ZMQ_REP);
    char endpoint[256];
    bind_endpoint(rep, option(argc, argv, "--bind", "tcp://127.0.0.1:*"), endpoint, sizeof endpoint);
    void *req = new_socket(ctx, ZMQ_REQ);
    if (zmq_connect(req, endpoint)) {
        fail("connect");
    }
    start_thread(rep_echo, rep);

    size_t capacity = 1 << 20, n = 0;
    uint64_t *samples = malloc(capacity * sizeof *samples);
    double warm_end = now_s() + p.warmup * p.time;
    double end = warm_end + p.iterations * p.time;
    int recording = 0;
    for (;;) {
        uint64_t t0 = now_ns();
        if (zmq_send(req, payload, (size_t) size, 0) < 0) {
            fail("send");
        }
        int got = zmq_recv(req, reply, (size_t) size + 1, 0);
        uint64_t t1 = now_ns();
        if (got != size) {
            fprintf(stderr, "reply of %d bytes to a request of %d\n", got, size);
            return 1;
        }
        if (recording) {
            if (n == capacity) {
                capacity *= 2;
                samples = realloc(samples, capacity * sizeof *samples);
            }
            samples[n++] = t1 - t0;
            if ((n & 1023) == 0 && now_s() >= end) {
                break;
            }
        } else if (now_s() >= warm_end) {
            recording = 1;
        }
    }
    qsort(samples, n, sizeof *samples, compare_u64);
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += (double) samples[i];
    }
    printf("{\"bench\":\"reqrep_latency\",\"impl\":\"libzmq\",\"libzmq\":\"%d.%d.%d\",\"params\":{\"size\":%d},"
           "\"unit\":\"us\",\"mean\":%.3f,\"p50\":%.3f,\"p99\":%.3f,\"p99.9\":%.3f,\"samples\":%zu}\n",
           ZMQ_VERSION_MAJOR, ZMQ_VERSION_MINOR, ZMQ_VERSION_PATCH, size, sum / (double) n / 1e3,
           percentile(samples, n, 50) / 1e3, percentile(samples, n, 99) / 1e3, percentile(samples, n, 99.9) / 1e3, n);
    fflush(stdout);

    zmq_close(req);
    zmq_ctx_term(ctx);
    free(samples);
    free(payload);
    free(reply);
    return 0;
}
