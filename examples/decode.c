/* decode.c — the README's embedding snippet, compiled by the build so it stays correct. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <gcg.h>

/* Decodes one sequence; next_logits() is the model (n_logits floats). */
int decode(const char *path, size_t n_logits, float *(*next_logits)(void))
{
    gcg_error err;
    gcg_artifact *art;                                /* share across threads */
    if (gcg_artifact_open_file(path, &art, &err) != GCG_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);   /* says what and where   */
        return -1;
    }
    /* One bit per logit. fill_mask writes gcg_artifact_mask_words() words and
     * leaves the rest alone: a padded row (Qwen3: 151,669 tokens, 151,936
     * logits) needs the words past them cleared once, as calloc does. */
    size_t n_words = (n_logits + 31) / 32;
    if (n_logits < gcg_artifact_vocab_size(art) || n_words < gcg_artifact_mask_words(art)) {
        gcg_artifact_free(art);
        return -1;
    }
    uint32_t *words = calloc(n_words, sizeof *words);
    gcg_matcher *m;                                   /* one per sequence     */
    if (!words || gcg_matcher_new(art, NULL, &m, &err) != GCG_OK) {
        free(words);
        gcg_artifact_free(art);
        return -1;
    }
    int rc = 0;
    while (!gcg_matcher_is_terminated(m)) {           /* until EOS committed  */
        if (gcg_matcher_fill_mask(m, words, n_words) != GCG_OK) { /* bit i%32 of word i/32 */
            rc = -1;
            break;
        }
        float *logits = next_logits();
        uint32_t best = 0;
        for (uint32_t i = 0; i < n_logits; i++) {
            if (!(words[i / 32] >> (i % 32) & 1))
                logits[i] = -INFINITY;                /* disallowed, padding too */
            if (logits[i] > logits[best])
                best = i;
        }
        gcg_status st = gcg_matcher_commit(m, best);  /* atomic; EOS ends it  */
        if (st != GCG_OK) {                           /* e.g. GCG_ERR_REJECTED */
            fprintf(stderr, "token %u: %s\n", best, gcg_status_str(st));
            rc = -1;
            break;
        }
    }
    /* Speculative decoding: gcg_matcher_rollback(m, n) undoes the last n commits. */
    gcg_matcher_free(m);
    free(words);
    gcg_artifact_free(art);
    return rc;
}
