/*
 * count.h — exact counts for grammar authors: how many sentences of at most
 * N bytes the grammar accepts, and in how many ways a vocabulary spells them
 * (token sequences whose concatenated text is such a sentence). Counts grow
 * like |alphabet|^N, so they are GMP integers.
 *
 * Method: a subset construction over the LR tables. A configuration is the
 * set of LR stacks a GLR recognizer holds after some bytes (reductions done
 * as the next byte's class requires, then the shift); it is deterministic in
 * the input, so every distinct sentence reaches exactly one configuration
 * and ambiguity never counts a sentence twice. Bytes of one class act alike,
 * so a step on class c carries weight |c|. sentences = sum over k <= N of
 * the weight of accepting configurations after k bytes; spellings run the
 * same DP with each token's bytes as one step.
 */
#ifndef GCG_COUNT_H
#define GCG_COUNT_H

#include <gmp.h>
#include <stddef.h>

#include "byteclass.h"
#include "lr_build.h"
#include "vocab.h"

#define GCG_COUNT_MAX_LEN 4096u        /* N                                      */
#define GCG_COUNT_MAX_CONFIGS 100000u  /* distinct configurations                */
#define GCG_COUNT_MAX_STACKS 10000u    /* stacks in one configuration or closure */

typedef struct gcg_count_result {
    mpz_t sentences;
    mpz_t spellings;     /* 0 when no vocabulary was given */
} gcg_count_result;

/* Counts up to n bytes. `vocab` may be NULL (no spellings). On GCG_OK the
 * result is initialized (free with gcg_count_result_free); otherwise `why`
 * says which limit was hit (GCG_ERR_LIMIT) or GCG_ERR_NOMEM. */
gcg_status gcg_count(const lr_tables *lr, const byteclass *bc, const gcg_vocab *vocab, uint32_t n,
                     gcg_count_result *out, char *why, size_t why_len);

void gcg_count_result_free(gcg_count_result *r);

#endif /* GCG_COUNT_H */
