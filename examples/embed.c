/*
 * embed.c — libgcg inside a decoding loop, as an inference engine uses it:
 * load an artifact, size the mask for a padded logits row, mask the logits,
 * pick, commit, end with EOS, roll back, and handle every error.
 *
 *   embed ARTIFACT N_LOGITS TARGET
 *
 * The "model" is a stand-in that prefers the token spelling the most of
 * TARGET next and, once TARGET is written, EOS; it also gives the padding
 * logits (ids >= vocabulary size, as in models whose logits row is rounded
 * up) the highest score of all, so a mask that left them set would show.
 * Built and run by the tests (examples/meson.build) with expected output.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcg.h"

/* Scores every logit for the text still to write. */
static void fake_logits(const gcg_artifact *art, const char *rest, float *logits, size_t n)
{
    uint32_t vocab = gcg_artifact_vocab_size(art), n_eos;
    const uint32_t *eos = gcg_artifact_eos(art, &n_eos);
    for (size_t i = 0; i < n; i++)
        logits[i] = i < vocab ? -1.0f : 100.0f; /* padding: never a real token */
    for (uint32_t t = 0; t < vocab; t++) {
        uint32_t len;
        const uint8_t *b = gcg_artifact_token_bytes(art, t, &len);
        if (b && len <= strlen(rest) && memcmp(b, rest, len) == 0)
            logits[t] = (float)len;
    }
    for (uint32_t i = 0; i < n_eos; i++)
        logits[eos[i]] = *rest ? -2.0f : 50.0f;
}

/* Sets every logit the mask does not allow to -inf. The mask has a bit for
 * each word of the padded row; the caller cleared the words past
 * gcg_artifact_mask_words, so padding logits are disallowed too. */
static void apply_mask(const uint32_t *words, float *logits, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(words[i / 32] >> (i % 32) & 1))
            logits[i] = -INFINITY;
}

static uint32_t argmax(const float *logits, size_t n)
{
    uint32_t best = 0;
    for (uint32_t i = 1; i < n; i++)
        if (logits[i] > logits[best])
            best = i;
    return best;
}

/* Decodes until EOS is committed; returns 0 or prints the failure. */
static int decode(gcg_matcher *m, const gcg_artifact *art, const char *target, uint32_t *words,
                  size_t n_words, float *logits, size_t n_logits)
{
    size_t written = 0;
    for (int step = 0; !gcg_matcher_is_terminated(m); step++) {
        gcg_status st = gcg_matcher_fill_mask(m, words, n_words);
        if (st != GCG_OK) {
            fprintf(stderr, "fill_mask: %s\n", gcg_status_str(st));
            return 1;
        }
        fake_logits(art, target + written, logits, n_logits);
        apply_mask(words, logits, n_logits);
        uint32_t tok = argmax(logits, n_logits), len;
        if (logits[tok] == -INFINITY) {
            fprintf(stderr, "no token allowed\n");
            return 1;
        }
        if ((st = gcg_matcher_commit(m, tok)) != GCG_OK) {
            fprintf(stderr, "commit %u: %s\n", tok, gcg_status_str(st));
            return 1;
        }
        const uint8_t *b = gcg_artifact_token_bytes(art, tok, &len);
        printf("step %d: token %u %s%.*s\n", step, tok, b ? "" : "EOS", (int)len,
               b ? (const char *)b : "");
        written += len;
    }
    return 0;
}

/* What a caller sees when a token is refused, and that the state is kept. */
static void show_errors(gcg_matcher *m, const gcg_artifact *art)
{
    uint32_t vocab = gcg_artifact_vocab_size(art);
    printf("commit %u (past the vocabulary): %s\n", vocab,
           gcg_status_str(gcg_matcher_commit(m, vocab)));
    printf("commit 16 \"ab\": %s\n", gcg_status_str(gcg_matcher_commit(m, 16)));
    printf("rollback 99: %s\n", gcg_status_str(gcg_matcher_rollback(m, 99)));
    printf("still complete: %s\n", gcg_matcher_is_complete(m) ? "yes" : "no");
}

static int run(const gcg_artifact *art, size_t n_logits, const char *target)
{
    /* The mask covers the padded row: one bit per logit. fill_mask writes
     * gcg_artifact_mask_words words and leaves the rest untouched, so the
     * words past them are cleared once here. */
    size_t mask_words = gcg_artifact_mask_words(art), n_words = (n_logits + 31) / 32;
    if (n_logits < gcg_artifact_vocab_size(art) || mask_words == 0) {
        fprintf(stderr, "need a vocabulary and at least %u logits\n", gcg_artifact_vocab_size(art));
        return 1;
    }
    uint32_t *words = calloc(n_words, sizeof *words);
    float *logits = malloc(n_logits * sizeof *logits);
    gcg_matcher *m = NULL;
    gcg_error err;
    int rc = 1;
    if (!words || !logits)
        fprintf(stderr, "out of memory\n");
    else if (gcg_matcher_new(art, NULL, &m, &err) != GCG_OK)
        fprintf(stderr, "matcher: %s\n", err.msg);
    else if ((rc = decode(m, art, target, words, n_words, logits, n_logits)) == 0) {
        /* Undo EOS: the matcher is back at a complete sentence. */
        gcg_status st = gcg_matcher_rollback(m, 1);
        printf("rollback 1: %s, terminated %s, complete %s\n", gcg_status_str(st),
               gcg_matcher_is_terminated(m) ? "yes" : "no",
               gcg_matcher_is_complete(m) ? "yes" : "no");
        show_errors(m, art);
    }
    gcg_matcher_free(m);
    free(words);
    free(logits);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: embed ARTIFACT N_LOGITS TARGET\n");
        return 2;
    }
    printf("libgcg %s\n", gcg_version());
    gcg_artifact *art;
    gcg_error err;
    gcg_status st = gcg_artifact_open_file(argv[1], &art, &err);
    if (st != GCG_OK) {
        fprintf(stderr, "%s: %s: %s\n", argv[1], gcg_status_str(st), err.msg);
        return 1;
    }
    printf("vocabulary %u tokens, %zu mask words, %s logits\n", gcg_artifact_vocab_size(art),
           gcg_artifact_mask_words(art), argv[2]);
    int rc = run(art, strtoul(argv[2], NULL, 10), argv[3]);
    gcg_artifact_free(art);
    return rc;
}
