/* count_fold.c — folding long counted chains into a counter (see count_fold.h). */
#include <stdlib.h>
#include <string.h>

#include "count_fold.h"

#define NONE UINT32_MAX
#define MANY (UINT32_MAX - 1)

/* What the chain finder needs to know of every nonterminal. */
typedef struct fold_ctx {
    cfg *g;
    uint32_t *uses;   /* occurrences in right-hand sides                     */
    uint32_t *unit;   /* the one production P -> nt, NONE or MANY            */
    uint32_t *next;   /* the one link E -> nt x (E a chain link), NONE or MANY */
    uint32_t *own;    /* the one production of nt, NONE or MANY              */
    bool *nullable;
    uint32_t *links;  /* the chain in hand: D_0 .. D_k                      */
    bool *keep;       /* per production (room for one new per chain)        */
} fold_ctx;

static void note(uint32_t *slot, uint32_t p)
{
    *slot = *slot == NONE ? p : MANY;
}

static bool is_link(const cfg *g, uint32_t s)
{
    return !CFG_IS_TERM(s) && g->nts[s].kind == CFG_NT_COUNT;
}

static void index_grammar(fold_ctx *f)
{
    const cfg *g = f->g;
    for (uint32_t p = 0; p < g->n_prods; p++) {
        const cfg_prod *pr = &g->prods[p];
        const uint32_t *r = g->rhs + pr->rhs;
        note(&f->own[pr->lhs], p);
        for (uint32_t k = 0; k < pr->len; k++)
            if (!CFG_IS_TERM(r[k]))
                f->uses[r[k]]++;
        if (pr->len == 1 && !CFG_IS_TERM(r[0]))
            note(&f->unit[r[0]], p);
        if (pr->len == 2 && is_link(g, pr->lhs) && is_link(g, r[0]))
            note(&f->next[r[0]], p);
    }
}

/* The chain that starts at d0 (D_0 -> ε), into f->links; its length k (the
 * last index), or 0 when the shape is not a whole chain: every link has one
 * production, one unit production from the same U, and is used by it and
 * (but the last) by the next link, all over the same non-nullable x, and
 * all record the same links left out by the lowering. */
static uint32_t find_chain(fold_ctx *f, uint32_t d0, uint32_t *x_out)
{
    const cfg *g = f->g;
    uint32_t p = f->own[d0];
    if (p >= MANY || g->prods[p].len != 0 || f->unit[d0] >= MANY)
        return 0;
    uint32_t u = g->prods[f->unit[d0]].lhs, x = NONE, k = 0;
    f->links[0] = d0;
    for (uint32_t d = d0; f->next[d] < MANY; k++) {
        uint32_t q = f->next[d], e = g->prods[q].lhs, item = g->rhs[g->prods[q].rhs + 1];
        if (f->own[e] != q || f->unit[e] >= MANY || g->prods[f->unit[e]].lhs != u ||
            f->uses[d] != 2 || (x != NONE && item != x) || g->nts[e].omitted != g->nts[d0].omitted)
            return 0;
        x = item;
        f->links[k + 1] = d = e;
    }
    if (k == 0 || f->uses[f->links[k]] != 1 || f->next[f->links[k]] == MANY)
        return 0;
    if (!CFG_IS_TERM(x) && f->nullable[x])
        return 0; /* copies of nothing: a token could start any number */
    *x_out = x;
    return k;
}

/* Rewrites the chain in f->links (k links past D_0) over x: D_0 becomes the
 * counted list, links 1..max go, D_{max+1} is entered by the counter. Links
 * the lowering left out (omitted) are counted as if they went here. */
static bool fold_chain(fold_ctx *f, uint32_t k, uint32_t x, uint32_t window)
{
    cfg *g = f->g;
    uint32_t max = k - window - 1, d0 = f->links[0], omitted = g->nts[d0].omitted;
    for (uint32_t j = 0; j <= k; j++)
        g->nts[f->links[j]].omitted = 0; /* folded: what is kept is whole */
    for (uint32_t j = 1; j <= max + 1; j++) {
        f->keep[f->own[f->links[j]]] = false;
        if (j <= max)
            f->keep[f->unit[f->links[j]]] = false;
    }
    uint32_t items[2] = {d0, x};
    uint32_t p = cfg_add_prod(g, d0, items, 2);
    cfg_count *c = realloc(g->counts, (size_t)(g->n_counts + 1) * sizeof *c);
    if (p == UINT32_MAX || !c)
        return false;
    g->counts = c;
    g->counts[g->n_counts++] = (cfg_count){p, max + omitted, f->links[max + 1]};
    f->keep[p] = true;
    g->nts[d0].kind = CFG_NT_REPEAT;
    return true;
}

static void fold_ctx_free(fold_ctx *f)
{
    free(f->uses), free(f->unit), free(f->next), free(f->own), free(f->nullable), free(f->links),
        free(f->keep);
}

/* Whether g has a chain link at all (most grammars have none). */
static bool has_links(const cfg *g)
{
    for (uint32_t a = 0; a < g->n_nts; a++)
        if (g->nts[a].kind == CFG_NT_COUNT)
            return true;
    return false;
}

/* Whether a chain the lowering left short is still there, unfolded. */
static bool short_chain_left(const cfg *g)
{
    for (uint32_t a = 0; a < g->n_nts; a++)
        if (g->nts[a].omitted)
            return true;
    return false;
}

gcg_status gcg_count_fold(cfg *g, uint32_t window, bool *short_left)
{
    if (short_left)
        *short_left = false;
    if (!has_links(g))
        return GCG_OK;
    /* keep: one new production per chain, and every chain has productions of
     * its own, so np more fit */
    uint32_t n = g->n_nts, np = g->n_prods;
    fold_ctx f = {g,
                  calloc(n + 1, sizeof(uint32_t)),
                  malloc((n + 1) * sizeof(uint32_t)),
                  malloc((n + 1) * sizeof(uint32_t)),
                  malloc((n + 1) * sizeof(uint32_t)),
                  malloc(n + 1),
                  malloc((n + 1) * sizeof(uint32_t)),
                  malloc((size_t)np * 2 + 1)};
    if (!f.uses || !f.unit || !f.next || !f.own || !f.nullable || !f.links || !f.keep) {
        fold_ctx_free(&f);
        return GCG_ERR_NOMEM;
    }
    memset(f.unit, 0xff, (n + 1) * sizeof(uint32_t));
    memset(f.next, 0xff, (n + 1) * sizeof(uint32_t));
    memset(f.own, 0xff, (n + 1) * sizeof(uint32_t));
    memset(f.keep, 1, (size_t)np * 2 + 1);
    cfg_nullable(g, f.nullable);
    index_grammar(&f);
    bool ok = true;
    for (uint32_t d = 0; d < n && ok; d++) {
        uint32_t x, k;
        if (g->nts[d].kind != CFG_NT_COUNT || (k = find_chain(&f, d, &x)) == 0 ||
            k < window + 1 + COUNT_FOLD_MIN)
            continue;
        ok = fold_chain(&f, k, x, window);
    }
    gcg_status st = !ok ? GCG_ERR_NOMEM : g->n_counts ? cfg_compact(g, f.keep) : GCG_OK;
    fold_ctx_free(&f);
    if (st == GCG_OK && short_left)
        *short_left = short_chain_left(g);
    return st;
}
