/*
 * Shared pieces of the libzmq twins of the JMH benchmarks: command-line options, timing that
 * mirrors JMH's (warm-up iterations, then measured iterations of a fixed duration, each scored
 * as operations per second of its own elapsed time), and the one JSON result line each program
 * prints on stdout. Diagnostics go to stderr.
 */
#ifndef ZMTP_BENCH_H
#define ZMTP_BENCH_H

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

typedef struct {
    int warmup;      /* warm-up iterations, not scored */
    int iterations;  /* measured iterations */
    double time;     /* seconds per iteration */
} profile_t;

static inline double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static inline uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static inline void fail(const char *what) {
    fprintf(stderr, "%s: %s\n", what, zmq_strerror(zmq_errno()));
    exit(1);
}

/* The value of option "--name value", or dflt. */
static inline const char *option(int argc, char **argv, const char *name, const char *dflt) {
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], name) == 0) {
            return argv[i + 1];
        }
    }
    return dflt;
}

/* Whether flag "--name" is present. */
static inline int flag(int argc, char **argv, const char *name) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], name) == 0) {
            return 1;
        }
    }
    return 0;
}

static inline profile_t profile(int argc, char **argv) {
    profile_t p;
    p.warmup = atoi(option(argc, argv, "--warmup", "5"));
    p.iterations = atoi(option(argc, argv, "--iterations", "5"));
    p.time = atof(option(argc, argv, "--time", "2"));
    if (p.iterations < 1 || p.iterations > 1000 || p.warmup < 0 || p.time <= 0) {
        fprintf(stderr, "bad profile: --warmup %d --iterations %d --time %g\n", p.warmup, p.iterations, p.time);
        exit(2);
    }
    return p;
}

/* Performs n operations. */
typedef void (*ops_fn)(void *state, long n);

/*
 * Runs warm-up then measured iterations; each calls fn(state, ops_per_call) until the
 * iteration's time is up and scores operations per second. scores has p.iterations slots.
 */
static inline void run_iterations(profile_t p, ops_fn fn, void *state, long ops_per_call, double *scores) {
    for (int it = 0; it < p.warmup + p.iterations; it++) {
        long ops = 0;
        double start = now_s();
        double end = start + p.time;
        double t;
        do {
            fn(state, ops_per_call);
            ops += ops_per_call;
            t = now_s();
        } while (t < end);
        double rate = (double) ops / (t - start);
        if (it >= p.warmup) {
            scores[it - p.warmup] = rate;
        }
        fprintf(stderr, "%s iteration %d: %.1f ops/s\n", it < p.warmup ? "warm-up" : "measured",
                it < p.warmup ? it + 1 : it - p.warmup + 1, rate);
    }
}

/* The JSON result line of a throughput benchmark; params is a JSON object's members. */
static inline void print_throughput(const char *bench, const char *params, const double *scores, int n) {
    double sum = 0;
    for (int i = 0; i < n; i++) {
        sum += scores[i];
    }
    printf("{\"bench\":\"%s\",\"impl\":\"libzmq\",\"libzmq\":\"%d.%d.%d\",\"params\":{%s},"
           "\"unit\":\"ops/s\",\"score\":%.3f,\"iterations\":[",
           bench, ZMQ_VERSION_MAJOR, ZMQ_VERSION_MINOR, ZMQ_VERSION_PATCH, params, sum / n);
    for (int i = 0; i < n; i++) {
        printf("%s%.3f", i ? "," : "", scores[i]);
    }
    printf("]}\n");
    fflush(stdout);
}

/* A context with --io-threads I/O threads (default 1, libzmq's own default). */
static inline void *new_context(int argc, char **argv) {
    int io_threads = atoi(option(argc, argv, "--io-threads", "1"));
    void *ctx = zmq_ctx_new();
    if (!ctx || io_threads < 1 || zmq_ctx_set(ctx, ZMQ_IO_THREADS, io_threads)) {
        fail("context (--io-threads)");
    }
    return ctx;
}

/* A socket that drops what is unsent when closed. */
static inline void *new_socket(void *ctx, int type) {
    void *s = zmq_socket(ctx, type);
    if (!s) {
        fail("zmq_socket");
    }
    int linger = 0;
    zmq_setsockopt(s, ZMQ_LINGER, &linger, sizeof linger);
    return s;
}

static inline void set_hwm(void *s, int hwm) {
    if (zmq_setsockopt(s, ZMQ_SNDHWM, &hwm, sizeof hwm) || zmq_setsockopt(s, ZMQ_RCVHWM, &hwm, sizeof hwm)) {
        fail("ZMQ_SNDHWM/ZMQ_RCVHWM");
    }
}

/* Binds and writes the endpoint bound (tcp port resolved) into out. */
static inline void bind_endpoint(void *s, const char *endpoint, char *out, size_t out_size) {
    if (zmq_bind(s, endpoint)) {
        fail(endpoint);
    }
    if (zmq_getsockopt(s, ZMQ_LAST_ENDPOINT, out, &out_size)) {
        fail("ZMQ_LAST_ENDPOINT");
    }
}

static inline void start_thread(void *(*fn)(void *), void *arg) {
    pthread_t t;
    if (pthread_create(&t, NULL, fn, arg)) {
        fprintf(stderr, "pthread_create failed\n");
        exit(1);
    }
    pthread_detach(t);
}

#endif
