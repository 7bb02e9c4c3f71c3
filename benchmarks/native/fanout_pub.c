/*
 * The libzmq publisher of the many-peers fan-out benchmark (benchmarks/manypeers.sh): a PUB bound
 * to --bind ENDPOINT that publishes 16-byte messages at --rate messages per second, until killed.
 * Pacing: every millisecond it sends what the rate allows by then (rate x elapsed time, less what
 * it has sent), so a late tick catches up. libzmq's defaults otherwise (one I/O thread, high-water
 * mark 1000: a subscriber that falls behind loses messages). The bound endpoint is printed on
 * stderr as "bound tcp://...".
 *
 *   fanout_pub --bind tcp://127.0.0.1:0 --rate 100
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

int main(int argc, char **argv) {
    const char *endpoint = NULL;
    double rate = 0, delay = 0;
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--bind") == 0) {
            endpoint = argv[i + 1];
        } else if (strcmp(argv[i], "--rate") == 0) {
            rate = atof(argv[i + 1]);
        } else if (strcmp(argv[i], "--delay-s") == 0) {
            delay = atof(argv[i + 1]);
        }
    }
    if (!endpoint || rate <= 0 || delay < 0) {
        fprintf(stderr, "usage: fanout_pub --bind ENDPOINT --rate MSGS_PER_S [--delay-s S]\n");
        return 2;
    }
    void *ctx = zmq_ctx_new();
    void *pub = zmq_socket(ctx, ZMQ_PUB);
    if (!pub || zmq_bind(pub, endpoint)) {
        fprintf(stderr, "fanout_pub: bind %s: %s\n", endpoint, zmq_strerror(zmq_errno()));
        return 1;
    }
    char bound[256];
    size_t size = sizeof bound;
    zmq_getsockopt(pub, ZMQ_LAST_ENDPOINT, bound, &size);
    fprintf(stderr, "bound %s\n", bound);
    unsigned char msg[16];
    memset(msg, 'm', sizeof msg);
    /* --delay-s: the subscribers connect before the first message, so a high rate does not meet
       the connect phase (each implementation's publisher does the same). */
    if (delay > 0) {
        struct timespec d = {(time_t) delay, (long) ((delay - (double) (time_t) delay) * 1e9)};
        nanosleep(&d, NULL);
    }
    uint64_t start = now_ns(), sent = 0;
    for (;;) {
        uint64_t due = (uint64_t) ((double) (now_ns() - start) * 1e-9 * rate);
        for (; sent < due; sent++) {
            memcpy(msg, &sent, sizeof sent);
            if (zmq_send(pub, msg, sizeof msg, 0) < 0 && zmq_errno() != EINTR) {
                fprintf(stderr, "fanout_pub: send: %s\n", zmq_strerror(zmq_errno()));
                return 1;
            }
        }
        struct timespec tick = {0, 1000000};
        nanosleep(&tick, NULL);
    }
}
