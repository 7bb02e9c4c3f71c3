/*
 * libzmq's twin of PipelinedRequestBenchmark (workload 4): DEALER -> ROUTER pipelined
 * request/reply over loopback tcp, 100-byte requests echoed back by a ROUTER thread (mandatory
 * routing: it blocks at the high-water mark instead of dropping), --window requests always in
 * flight: the window is filled first, then each operation receives one reply and sends one new
 * request. Prints requests per second.
 *
 *   pipelined [--window N] [--size BYTES] [--warmup N --iterations N --time S] [--io-threads N]
 */
#include "bench.h"

typedef struct {
    void *client;
    const char *payload;
    int size;
    char *reply;
} client_t;

static void *router_echo(void *socket) {
    zmq_msg_t id, body;
    zmq_msg_init(&id);
    zmq_msg_init(&body);
    for (;;) {
        if (zmq_msg_recv(&id, socket, 0) < 0) {
            if (zmq_errno() == EINTR) {
                continue;
            }
            break;
        }
        if (zmq_msg_recv(&body, socket, 0) < 0 || zmq_msg_send(&id, socket, ZMQ_SNDMORE) < 0
            || zmq_msg_send(&body, socket, 0) < 0) {
            break;
        }
    }
    zmq_msg_close(&id);
    zmq_msg_close(&body);
    zmq_close(socket);
    return NULL;
}

static void send_request(client_t *c) {
    if (zmq_send(c->client, c->payload, (size_t) c->size, 0) < 0) {
        fail("send");
    }
}

static void receive_reply(client_t *c) {
    if (zmq_recv(c->client, c->reply, (size_t) c->size + 1, 0) < 0) {
        fail("recv");
    }
}

static void requests(void *arg, long n) {
    client_t *c = arg;
    for (long i = 0; i < n; i++) {
        receive_reply(c);
        send_request(c);
    }
}

int main(int argc, char **argv) {
    profile_t p = profile(argc, argv);
    int window = atoi(option(argc, argv, "--window", "1000"));
    int size = atoi(option(argc, argv, "--size", "100"));
    if (window < 1 || size < 1) {
        fprintf(stderr, "usage: pipelined [--window N] [--size BYTES]\n");
        return 2;
    }
    char *payload = malloc((size_t) size);
    memset(payload, 'Q', (size_t) size);
    client_t c = {NULL, payload, size, malloc((size_t) size + 1)};

    void *ctx = new_context(argc, argv);
    void *server = new_socket(ctx, ZMQ_ROUTER);
    int on = 1;
    zmq_setsockopt(server, ZMQ_ROUTER_MANDATORY, &on, sizeof on);
    char endpoint[256];
    bind_endpoint(server, "tcp://127.0.0.1:*", endpoint, sizeof endpoint);
    c.client = new_socket(ctx, ZMQ_DEALER);
    if (zmq_connect(c.client, endpoint)) {
        fail("connect");
    }
    start_thread(router_echo, server);

    for (int i = 0; i < window; i++) {
        send_request(&c);
    }
    double scores[1000];
    run_iterations(p, requests, &c, 1, scores);
    char params[96];
    snprintf(params, sizeof params, "\"size\":%d,\"window\":%d", size, window);
    print_throughput("pipelined", params, scores, p.iterations);
    for (int i = 0; i < window; i++) {
        receive_reply(&c);
    }

    zmq_close(c.client);
    zmq_ctx_term(ctx);
    free(payload);
    free(c.reply);
    return 0;
}
