/* mask_walk.c — fill_mask. */
#include <stdlib.h>

#include "matcher.h"

void gcg_mask_scratch_free(gcg_matcher *m)
{
    free(m->mask_scratch);
    m->mask_scratch = NULL;
}

gcg_status gcg_matcher_fill_mask(gcg_matcher *m, uint32_t *words, size_t n_words)
{
    return gcg_matcher_fill_mask_bruteforce(m, words, n_words);
}
