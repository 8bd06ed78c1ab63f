/*
 * forced.c — jump-forward text (see gcg.h section 8): the bytes every
 * continuation of the committed text must start with. Step by step on a
 * private copy of the frontier: stop when the text so far is a complete
 * sentence (EOS is an alternative to any byte) or when not exactly one of
 * the 256 byte values can be shifted; otherwise take that byte. An LR
 * parser shifts a byte only when the text stays a prefix of a sentence, so
 * "can be shifted" is "can be committed".
 */
#include <stdlib.h>
#include <string.h>

#include "matcher.h"

/* The frontier after `b` from cur (holds owned by the caller), or NULL. */
static gcg_status step(gcg_matcher *m, const uint32_t *cur, uint32_t n_cur, uint8_t b, uint32_t **out,
                       uint32_t *n_out)
{
    size_t bad;
    return matcher_run_bytes(m, cur, n_cur, &b, 1, out, n_out, &bad, NULL);
}

/* How many byte values can follow; *only receives the last one found. */
static gcg_status viable_bytes(gcg_matcher *m, const uint32_t *cur, uint32_t n_cur, unsigned *count,
                               uint8_t *only)
{
    *count = 0;
    for (unsigned b = 0; b < 256 && *count < 2; b++) {
        uint32_t *out, n_out;
        gcg_status st = step(m, cur, n_cur, (uint8_t)b, &out, &n_out);
        if (st == GCG_ERR_REJECTED)
            continue;
        if (st != GCG_OK)
            return st;
        matcher_release_frontier(m, out, n_out);
        (*count)++;
        *only = (uint8_t)b;
    }
    return GCG_OK;
}

gcg_status gcg_matcher_forced_bytes(gcg_matcher *m, uint8_t *buf, size_t cap, size_t *len)
{
    if (!m || !len || (!buf && cap))
        return GCG_ERR_ARG;
    *len = 0;
    if (m->terminated || cap == 0)
        return GCG_OK;
    uint32_t room = m->n_front > 0 ? m->n_front : 1;
    uint32_t *cur = malloc((size_t)room * sizeof *cur), n_cur = m->n_front;
    if (!cur)
        return GCG_ERR_NOMEM;
    memcpy(cur, m->front, (size_t)n_cur * sizeof *cur);
    for (uint32_t i = 0; i < n_cur; i++)
        gss_retain(&m->p.g, cur[i]);
    gcg_status st = GCG_OK;
    while (*len < cap) {
        bool complete;
        unsigned count;
        uint8_t b = 0;
        if ((st = matcher_accepts(m, cur, n_cur, &complete)) != GCG_OK || complete)
            break;
        if ((st = viable_bytes(m, cur, n_cur, &count, &b)) != GCG_OK || count != 1)
            break;
        uint32_t *out, n_out;
        if ((st = step(m, cur, n_cur, b, &out, &n_out)) != GCG_OK)
            break;
        matcher_release_frontier(m, cur, n_cur);
        if (n_out > room) {
            uint32_t *q = realloc(cur, (size_t)n_out * sizeof *q);
            if (!q) {
                matcher_release_frontier(m, out, n_out);
                n_cur = 0;
                st = GCG_ERR_NOMEM;
                break;
            }
            cur = q, room = n_out;
        }
        memcpy(cur, out, (size_t)n_out * sizeof *cur);
        n_cur = n_out;
        buf[(*len)++] = b;
    }
    matcher_release_frontier(m, cur, n_cur);
    free(cur);
    return st;
}
