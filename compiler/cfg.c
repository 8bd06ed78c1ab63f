/* cfg.c — building, indexing and compacting the byte-level grammar. */
#include <stdlib.h>
#include <string.h>

#include "cfg.h"

/* Grows *p (element size `sz`) so that it holds at least `need` elements. */
static bool grow(void **p, uint32_t *cap, uint32_t need, size_t sz)
{
    if (need <= *cap)
        return true;
    uint32_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, (size_t)c * sz);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

void cfg_init(cfg *g)
{
    memset(g, 0, sizeof *g);
    g->start = UINT32_MAX;
}

void cfg_free(cfg *g)
{
    for (uint32_t i = 0; i < g->n_nts; i++)
        free(g->nts[i].name);
    free(g->nts);
    free(g->prods);
    free(g->rhs);
    free(g->tsets);
    free(g->counts);
    free(g->redirects);
    cfg_init(g);
}

uint32_t cfg_add_nt(cfg *g, const char *name, cfg_nt_kind kind, uint32_t rule)
{
    if (!grow((void **)&g->nts, &g->cap_nts, g->n_nts + 1, sizeof *g->nts))
        return UINT32_MAX;
    char *copy = strdup(name);
    if (!copy)
        return UINT32_MAX;
    g->nts[g->n_nts] = (cfg_nt){copy, kind, rule, 0};
    return g->n_nts++;
}

uint32_t cfg_add_prod(cfg *g, uint32_t lhs, const uint32_t *items, uint32_t len)
{
    /* items may alias g->rhs, which grow() can move: copy through an offset. */
    uintptr_t at = (uintptr_t)items, base = (uintptr_t)g->rhs;
    bool alias = g->rhs && at >= base && at < base + (uintptr_t)g->n_rhs * sizeof *g->rhs;
    size_t off = alias ? (at - base) / sizeof *g->rhs : 0;
    if (!grow((void **)&g->rhs, &g->cap_rhs, g->n_rhs + len, sizeof *g->rhs) ||
        !grow((void **)&g->prods, &g->cap_prods, g->n_prods + 1, sizeof *g->prods))
        return UINT32_MAX;
    if (alias)
        items = g->rhs + off;
    if (len) /* an ε-production may come with items == NULL */
        memmove(g->rhs + g->n_rhs, items, (size_t)len * sizeof *items);
    g->prods[g->n_prods] = (cfg_prod){lhs, g->n_rhs, len};
    g->n_rhs += len;
    return g->n_prods++;
}

uint32_t cfg_tset(cfg *g, const bset256 *s)
{
    for (uint32_t i = 0; i < g->n_tsets; i++)
        if (memcmp(&g->tsets[i], s, sizeof *s) == 0)
            return i;
    if (!grow((void **)&g->tsets, &g->cap_tsets, g->n_tsets + 1, sizeof *g->tsets))
        return UINT32_MAX;
    g->tsets[g->n_tsets] = *s;
    return g->n_tsets++;
}

/* Marks nonterminals mentioned by kept productions; returns the old->new map. */
static uint32_t *compact_nt_map(const cfg *g, const bool *keep, uint32_t *n_new)
{
    uint32_t *map = malloc((size_t)(g->n_nts ? g->n_nts : 1) * sizeof *map);
    if (!map)
        return NULL;
    for (uint32_t i = 0; i < g->n_nts; i++)
        map[i] = 0;
    if (g->start != UINT32_MAX)
        map[g->start] = 1;
    for (uint32_t p = 0; p < g->n_prods; p++) {
        if (!keep[p])
            continue;
        const cfg_prod *pr = &g->prods[p];
        map[pr->lhs] = 1;
        for (uint32_t k = 0; k < pr->len; k++)
            if (!CFG_IS_TERM(g->rhs[pr->rhs + k]))
                map[g->rhs[pr->rhs + k]] = 1;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->n_nts; i++)
        map[i] = map[i] ? n++ : UINT32_MAX;
    *n_new = n;
    return map;
}

/* In place: nonterminals keep their names (moved, not copied) and both
 * orders are kept, so every array only shrinks; the items go to a new array
 * since productions need not lie in item order (single_start moves one). */
gcg_status cfg_compact(cfg *g, const bool *keep_prod)
{
    uint32_t n_new = 0;
    uint32_t *map = compact_nt_map(g, keep_prod, &n_new);
    uint32_t n_rhs = 0;
    for (uint32_t p = 0; p < g->n_prods; p++)
        n_rhs += keep_prod[p] ? g->prods[p].len : 0;
    uint32_t *rhs = malloc(((size_t)n_rhs + 1) * sizeof *rhs);
    if (!map || !rhs) {
        free(map), free(rhs);
        return GCG_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < g->n_nts; i++) {
        if (map[i] != UINT32_MAX)
            g->nts[map[i]] = g->nts[i];
        else
            free(g->nts[i].name);
    }
    g->n_nts = n_new;
    uint32_t np = 0, at = 0;
    for (uint32_t p = 0; p < g->n_prods; p++) {
        if (!keep_prod[p])
            continue;
        cfg_prod pr = g->prods[p];
        for (uint32_t k = 0; k < pr.len; k++) {
            uint32_t s = g->rhs[pr.rhs + k];
            rhs[at + k] = CFG_IS_TERM(s) ? s : map[s];
        }
        g->prods[np++] = (cfg_prod){map[pr.lhs], at, pr.len};
        at += pr.len;
    }
    uint32_t kept = 0, q = 0; /* counts ascend by prod: one pass */
    for (uint32_t i = 0; i < g->n_counts; i++) {
        for (; q < g->counts[i].prod; q++)
            kept += keep_prod[q];
        g->counts[i] = (cfg_count){kept, g->counts[i].max, map[g->counts[i].exit]};
    }
    for (uint32_t i = 0; i < g->n_redirects; i++)
        g->redirects[i] = (cfg_redirect){map[g->redirects[i].from], map[g->redirects[i].to],
                                         CFG_IS_TERM(g->redirects[i].x) ? g->redirects[i].x : map[g->redirects[i].x]};
    g->n_prods = np;
    free(g->rhs);
    g->rhs = rhs;
    g->n_rhs = g->cap_rhs = n_rhs;
    g->start = g->start == UINT32_MAX ? UINT32_MAX : map[g->start];
    free(map);
    return GCG_OK;
}

gcg_status cfg_index_build(const cfg *g, cfg_index *ix)
{
    ix->first = calloc((size_t)g->n_nts + 1, sizeof *ix->first);
    ix->list = malloc((size_t)(g->n_prods ? g->n_prods : 1) * sizeof *ix->list);
    if (!ix->first || !ix->list) {
        cfg_index_free(ix);
        return GCG_ERR_NOMEM;
    }
    for (uint32_t p = 0; p < g->n_prods; p++)
        ix->first[g->prods[p].lhs + 1]++;
    for (uint32_t i = 0; i < g->n_nts; i++)
        ix->first[i + 1] += ix->first[i];
    uint32_t *fill = malloc((size_t)(g->n_nts ? g->n_nts : 1) * sizeof *fill);
    if (!fill) {
        cfg_index_free(ix);
        return GCG_ERR_NOMEM;
    }
    memcpy(fill, ix->first, (size_t)g->n_nts * sizeof *fill);
    for (uint32_t p = 0; p < g->n_prods; p++)
        ix->list[fill[g->prods[p].lhs]++] = p;
    free(fill);
    return GCG_OK;
}

void cfg_index_free(cfg_index *ix)
{
    free(ix->first);
    free(ix->list);
    ix->first = ix->list = NULL;
}

void cfg_nullable(const cfg *g, bool *out)
{
    memset(out, 0, (size_t)g->n_nts * sizeof *out);
    /* Least fixpoint; rounds are bounded by the number of nonterminals. */
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t p = 0; p < g->n_prods; p++) {
            const cfg_prod *pr = &g->prods[p];
            if (out[pr->lhs])
                continue;
            uint32_t k = 0;
            while (k < pr->len && !CFG_IS_TERM(g->rhs[pr->rhs + k]) && out[g->rhs[pr->rhs + k]])
                k++;
            if (k == pr->len)
                out[pr->lhs] = changed = true;
        }
    }
}
