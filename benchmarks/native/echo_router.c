/*
 * The libzmq server of the many-peers echo benchmark (benchmarks/manypeers.sh): a ROUTER bound to
 * --bind ENDPOINT that sends every message it receives, all its frames with the routing id first,
 * back to the peer it came from, until killed. libzmq's defaults otherwise: one I/O thread, a
 * listen backlog of 100 (ZMQ_BACKLOG), high-water marks of 1000. The bound endpoint is printed
 * on stderr as "bound tcp://...". --backlog N sets ZMQ_BACKLOG, for a diagnostic run only (what
 * a larger listen queue changes in a connect storm); benchmarks/manypeers.sh never gives it.
 *
 *   echo_router --bind tcp://127.0.0.1:0 [--backlog N]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

int main(int argc, char **argv) {
    const char *endpoint = NULL;
    int backlog = -1;
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--bind") == 0) {
            endpoint = argv[i + 1];
        } else if (strcmp(argv[i], "--backlog") == 0) {
            backlog = atoi(argv[i + 1]);
        }
    }
    if (!endpoint) {
        fprintf(stderr, "usage: echo_router --bind ENDPOINT [--backlog N]\n");
        return 2;
    }
    void *ctx = zmq_ctx_new();
    void *router = zmq_socket(ctx, ZMQ_ROUTER);
    if (router && backlog >= 0) {
        zmq_setsockopt(router, ZMQ_BACKLOG, &backlog, sizeof backlog);
    }
    if (!router || zmq_bind(router, endpoint)) {
        fprintf(stderr, "echo_router: bind %s: %s\n", endpoint, zmq_strerror(zmq_errno()));
        return 1;
    }
    char bound[256];
    size_t size = sizeof bound;
    zmq_getsockopt(router, ZMQ_LAST_ENDPOINT, bound, &size);
    fprintf(stderr, "bound %s\n", bound);
    zmq_msg_t frame;
    zmq_msg_init(&frame);
    for (;;) {
        if (zmq_msg_recv(&frame, router, 0) < 0) {
            if (zmq_errno() == EINTR) {
                continue;
            }
            fprintf(stderr, "echo_router: receive: %s\n", zmq_strerror(zmq_errno()));
            return 1;
        }
        /* the routing id, then the body frames: each sent on as it comes, MORE as received */
        int more = zmq_msg_more(&frame);
        if (zmq_msg_send(&frame, router, more ? ZMQ_SNDMORE : 0) < 0 && zmq_errno() != EHOSTUNREACH) {
            fprintf(stderr, "echo_router: send: %s\n", zmq_strerror(zmq_errno()));
            return 1;
        }
    }
}
