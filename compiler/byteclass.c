/* byteclass.c — partition of the 256 bytes by terminal-set membership. */
#include <stdlib.h>
#include <string.h>

#include "byteclass.h"

/* Membership signature of byte b: bit t set iff terminal set t (one that a
 * production still uses) contains b. */
static void signature(const cfg *g, const bool *used, unsigned b, uint64_t *sig, uint32_t words)
{
    memset(sig, 0, words * sizeof *sig);
    for (uint32_t t = 0; t < g->n_tsets; t++)
        if (used[t] && bset_has(&g->tsets[t], b))
            sig[t >> 6] |= (uint64_t)1 << (t & 63);
}

gcg_status gcg_byteclass_build(const cfg *g, byteclass *out)
{
    memset(out, 0, sizeof *out);
    uint32_t words = (g->n_tsets + 63) / 64 + 1;
    uint64_t *sig = malloc((size_t)256 * words * sizeof *sig);
    bool *used = calloc(g->n_tsets ? g->n_tsets : 1, 1);
    out->csets = calloc(g->n_tsets ? g->n_tsets : 1, sizeof *out->csets);
    if (!sig || !used || !out->csets) {
        free(sig), free(used);
        gcg_byteclass_free(out);
        return GCG_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < g->n_rhs; i++)
        if (CFG_IS_TERM(g->rhs[i]))
            used[CFG_INDEX(g->rhs[i])] = true;
    uint8_t rep[256]; /* rep[k]: first byte of class k */
    for (unsigned b = 0; b < 256; b++) {
        uint64_t *s = sig + (size_t)b * words;
        signature(g, used, b, s, words);
        uint32_t k = 0;
        while (k < out->n_classes && memcmp(sig + (size_t)rep[k] * words, s, words * sizeof *s) != 0)
            k++;
        if (k == out->n_classes)
            rep[out->n_classes++] = (uint8_t)b;
        out->class_of[b] = (uint8_t)k;
    }
    free(sig);
    free(used);
    out->n_csets = g->n_tsets;
    for (uint32_t t = 0; t < g->n_tsets; t++)
        for (uint32_t k = 0; k < out->n_classes; k++)
            if (bset_has(&g->tsets[t], rep[k]))
                bset_add(&out->csets[t], k);
    return GCG_OK;
}

void gcg_byteclass_free(byteclass *bc)
{
    free(bc->csets);
    bc->csets = NULL;
}
