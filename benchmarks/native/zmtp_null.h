/*
 * What a ZMTP 3.0 peer with the NULL mechanism sends first, for the programs here that speak
 * the protocol by hand (manypeers.c, floor_server.c): the 64-byte greeting (as-server 0) and a
 * READY command announcing a Socket-Type.
 */
#ifndef ZMTP_NULL_H
#define ZMTP_NULL_H

#include <stdint.h>
#include <string.h>

/* Our greeting: signature, version 3.0, mechanism NULL, as-server 0; returns its size, 64. */
static inline size_t zmtp_put_greeting(uint8_t *b) {
    memset(b, 0, 64);
    b[0] = 0xFF;
    b[9] = 0x7F;
    b[10] = 3;
    b[11] = 0;
    memcpy(b + 12, "NULL", 4);
    b[32] = 0; /* as-server */
    return 64;
}

/* A READY command frame with the one property Socket-Type = type; returns its size. */
static inline size_t zmtp_put_ready(uint8_t *b, const char *type) {
    size_t tl = strlen(type);
    size_t body = 1 + 5 + 1 + 11 + 4 + tl;
    size_t i = 0;
    b[i++] = 0x04;
    b[i++] = (uint8_t) body;
    b[i++] = 5;
    memcpy(b + i, "READY", 5);
    i += 5;
    b[i++] = 11;
    memcpy(b + i, "Socket-Type", 11);
    i += 11;
    b[i++] = 0;
    b[i++] = 0;
    b[i++] = 0;
    b[i++] = (uint8_t) tl;
    memcpy(b + i, type, tl);
    return i + tl;
}

#endif
