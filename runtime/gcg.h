/*
 * gcg.h — the gcg runtime: load a compiled grammar artifact (.gcg), follow the
 * tokens a model commits, and produce the mask of tokens that may come next.
 *
 * This header is the manual. Read it top to bottom:
 *   1. version and status codes
 *   2. artifacts: open a .gcg file (read-only, shareable between threads)
 *   3. matchers: one per sequence; commit tokens or bytes, roll back, reset
 *   4. masks: fill a packed bitmask of allowed tokens
 *   5. introspection: sizes, certificate, statistics for benchmarks
 *   6. jump-forward: the bytes every continuation must start with
 *
 * Threading: an artifact is immutable once opened and may be shared by any
 * number of matchers on any number of threads. A matcher is used by one thread
 * at a time. The library has no global mutable state.
 *
 * Memory: gcg_matcher_new allocates the matcher's pools up front; commit and
 * fill_mask do not allocate once the pools are large enough for the sequence
 * (the pools grow geometrically; gcg_matcher_options sizes them up front).
 */
#ifndef GCG_H
#define GCG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ===================================================================== */
/* 1. Version and status codes                                            */
/* ===================================================================== */

#define GCG_VERSION_MAJOR 0
#define GCG_VERSION_MINOR 1
#define GCG_VERSION_PATCH 0
#define GCG_VERSION_STRING "0.1.0"

/* Status codes have fixed values; they never change meaning between releases. */
typedef enum gcg_status {
    GCG_OK = 0,
    GCG_ERR_NOMEM = 1,        /* allocation failed; the object is unchanged      */
    GCG_ERR_IO = 2,           /* could not read a file                           */
    GCG_ERR_FORMAT = 3,       /* artifact malformed, truncated or corrupted      */
    GCG_ERR_VERSION = 4,      /* artifact written by an incompatible version     */
    GCG_ERR_ARG = 5,          /* invalid argument (NULL, buffer too small, ...)  */
    GCG_ERR_TOKEN_RANGE = 6,  /* token id >= vocabulary size                     */
    GCG_ERR_REJECTED = 7,     /* token or bytes not allowed here; state unchanged */
    GCG_ERR_TERMINATED = 8,   /* EOS was committed; only rollback/reset allowed  */
    GCG_ERR_ROLLBACK = 9,     /* rollback past the history kept                  */
    GCG_ERR_LIMIT = 10,       /* a configured limit was reached; state unchanged */
    GCG_ERR_NO_VOCAB = 11     /* token-level call on an artifact without vocabulary */
    /* 64..79 are reserved for the GPU library (gpu/gcg_vk.h). */
} gcg_status;

/* A static, human-readable name for a status ("ok", "artifact format error", ...). */
const char *gcg_status_str(gcg_status status);

/* Optional error details. Every function that takes a gcg_error * accepts NULL. */
typedef struct gcg_error {
    gcg_status code;
    uint64_t offset;  /* byte offset in the input the message refers to, or UINT64_MAX */
    char msg[256];    /* NUL-terminated message, e.g. "section 3: checksum mismatch" */
} gcg_error;

/* ===================================================================== */
/* 2. Artifacts                                                           */
/* ===================================================================== */

typedef struct gcg_artifact gcg_artifact;

/* Opens and validates a .gcg file: header, section table, every section's
 * checksum, and every table index the runtime will follow. On success *out
 * owns the mapped file; free it with gcg_artifact_free after every matcher
 * made from it is freed. On failure *out is NULL and err says what is wrong
 * and at which byte offset. */
gcg_status gcg_artifact_open_file(const char *path, gcg_artifact **out, gcg_error *err);

/* As gcg_artifact_open_file, from memory. The bytes are copied (so `data`
 * may be freed at once) into 64-byte-aligned storage. */
gcg_status gcg_artifact_open_memory(const void *data, size_t size, gcg_artifact **out,
                                    gcg_error *err);

/* Frees an artifact. NULL is a no-op. */
void gcg_artifact_free(gcg_artifact *art);

/* Number of token ids (0 when the artifact was compiled without vocabulary,
 * i.e. for byte-level matching only; the single-byte vocabulary has 256). */
uint32_t gcg_artifact_vocab_size(const gcg_artifact *art);

/* Number of words a mask needs: ceil(vocab_size / 32). */
size_t gcg_artifact_mask_words(const gcg_artifact *art);

/* The EOS token ids (may be zero of them). *n receives the count. */
const uint32_t *gcg_artifact_eos(const gcg_artifact *art, uint32_t *n);

/* The bytes of token `id` (NULL with *len = 0 for a special token or an id
 * out of range). The pointer lives as long as the artifact. */
const uint8_t *gcg_artifact_token_bytes(const gcg_artifact *art, uint32_t id, uint32_t *len);

/* ===================================================================== */
/* 3. Matchers                                                            */
/* ===================================================================== */

typedef struct gcg_matcher gcg_matcher;

typedef struct gcg_matcher_options {
    uint32_t max_rollback;   /* commits kept for rollback (default 32)               */
    uint32_t initial_nodes;  /* graph-structured-stack nodes to allocate up front
                                (default 4096; the pool grows when needed)            */
    uint32_t max_nodes;      /* hard limit on live stack nodes; a commit that would
                                exceed it fails with GCG_ERR_LIMIT (default 1<<26)    */
} gcg_matcher_options;

/* Fills *opt with the defaults. */
void gcg_matcher_options_default(gcg_matcher_options *opt);

/* Creates a matcher at the start of a sentence. `opt` may be NULL for the
 * defaults. The artifact must outlive the matcher. */
gcg_status gcg_matcher_new(const gcg_artifact *art, const gcg_matcher_options *opt,
                           gcg_matcher **out);

/* Frees a matcher. NULL is a no-op. */
void gcg_matcher_free(gcg_matcher *m);

/* Commits one token: all its bytes, or — for an EOS token — the end of the
 * sentence. Atomic: on any error the matcher is exactly as before.
 * Returns GCG_ERR_TOKEN_RANGE for an id outside the vocabulary, GCG_ERR_REJECTED
 * for a token the grammar does not allow here (special tokens other than EOS
 * are never allowed), GCG_ERR_TERMINATED after EOS. */
gcg_status gcg_matcher_commit(gcg_matcher *m, uint32_t token);

/* Commits raw bytes (one rollback step). Atomic. On GCG_ERR_REJECTED,
 * *consumed (if not NULL) receives the offset in `bytes` of the first byte
 * that cannot be consumed; on success it receives n. Works without a vocabulary. */
gcg_status gcg_matcher_commit_bytes(gcg_matcher *m, const uint8_t *bytes, size_t n,
                                    size_t *consumed);

/* Commits the end of the sentence (what an EOS token does). Fails with
 * GCG_ERR_REJECTED when the committed text is not a complete sentence. */
gcg_status gcg_matcher_commit_eos(gcg_matcher *m);

/* Undoes the last n commits (tokens, byte runs or EOS). Fails with
 * GCG_ERR_ROLLBACK, changing nothing, if fewer than n are kept. */
gcg_status gcg_matcher_rollback(gcg_matcher *m, uint32_t n);

/* Number of commits that can currently be rolled back. */
uint32_t gcg_matcher_rollback_depth(const gcg_matcher *m);

/* Back to the start of the sentence; keeps the pools. */
void gcg_matcher_reset(gcg_matcher *m);

/* True iff the committed text is a complete sentence (EOS would be allowed). */
bool gcg_matcher_is_complete(const gcg_matcher *m);

/* True iff EOS has been committed. */
bool gcg_matcher_is_terminated(const gcg_matcher *m);

/* ===================================================================== */
/* 4. Masks                                                               */
/* ===================================================================== */

/* Fills `words` with the allowed-token mask: bit (i % 32) of words[i / 32] is
 * set iff token i may be committed next (EOS tokens iff the text is complete).
 * Bits at or past the vocabulary size are zero. n_words must be at least
 * gcg_artifact_mask_words(); words past that are left untouched.
 * Reads the stack once with the artifact's mask automaton; never allocates.
 * After EOS has been committed the mask is empty. */
gcg_status gcg_matcher_fill_mask(gcg_matcher *m, uint32_t *words, size_t n_words);

/* The same mask computed the naive way: every token's bytes are tried against
 * a copy of the stack, sharing work along a token trie. Slow (it is the
 * baseline the automaton replaces); kept for tests and benchmarks. */
gcg_status gcg_matcher_fill_mask_bruteforce(gcg_matcher *m, uint32_t *words, size_t n_words);

/* ===================================================================== */
/* 5. Introspection                                                       */
/* ===================================================================== */

/* The worst-case bound the compiler proved for fill_mask (see gcgc compile). */
typedef struct gcg_certificate {
    bool bounded;              /* false: some mask may read unboundedly deep          */
    uint32_t max_stack_reads;  /* deepest stack read of any mask per frontier node    */
    uint32_t max_set_ops;      /* most token-set unions per frontier node             */
    uint64_t max_bytes;        /* most bytes of token sets touched per frontier node  */
    char unbounded_rule[64];   /* when !bounded: a grammar rule that causes it        */
} gcg_certificate;

gcg_status gcg_artifact_certificate(const gcg_artifact *art, gcg_certificate *out);

/* What the last fill_mask did, for benchmarks that check the certificate. */
typedef struct gcg_mask_stats {
    uint32_t frontier_nodes;   /* stack tops read                                    */
    uint32_t max_stack_reads;  /* deepest read below any top                          */
    uint32_t set_ops;          /* token-set unions performed                          */
} gcg_mask_stats;

void gcg_matcher_last_mask_stats(const gcg_matcher *m, gcg_mask_stats *out);

/* Bytes currently held by the matcher (pools and history). */
size_t gcg_matcher_memory(const gcg_matcher *m);

/* ===================================================================== */
/* 6. Jump-forward                                                        */
/* ===================================================================== */

/* The longest byte string every continuation of the committed text must
 * start with: after `{"na` with a grammar whose only object has one
 * property `name` (no whitespace), `me":`. Engines can commit it without
 * running the model. Empty when the text is complete (EOS is allowed) or
 * when two different bytes may come next, and after EOS. Writes at most
 * `cap` bytes to buf and their count to *len; the matcher is unchanged.
 * Costs up to 256 trial steps per byte: call it once per token, not per
 * vocabulary entry. Allocates a private copy of the frontier. */
gcg_status gcg_matcher_forced_bytes(gcg_matcher *m, uint8_t *buf, size_t cap, size_t *len);

#ifdef __cplusplus
}
#endif
#endif /* GCG_H */
