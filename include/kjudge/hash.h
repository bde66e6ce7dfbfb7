/*
 * Content hashes: the one sha256 every layer uses (the compile cache's keys,
 * candidates' identities in the store, tokens, the seed from a secret).
 * Layer: core (uses nothing of kjudge's).
 */
#ifndef KJUDGE_HASH_H
#define KJUDGE_HASH_H

#include <stddef.h>

/* sha256 of data as 64 hex chars + NUL (64 '0's when OpenSSL fails). */
void kj_sha256_hex(const void *data, size_t len, char out[65]);

#endif
