/* count_fold.c — long counted chains folded into a counter, and chains that
 * end alike ended in one shared tail (see count_fold.h). */
#include <stdio.h>
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
    uint32_t *follow; /* the terminal after every use of nt, NONE or MANY    */
    bool *nullable;
    uint32_t *links;  /* the chain in hand: D_0 .. D_k                      */
    bool *keep;       /* per production                                      */
    uint32_t cap_keep;
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
        for (uint32_t k = 0; k < pr->len; k++) {
            uint32_t after = k + 1 < pr->len && CFG_IS_TERM(r[k + 1]) ? r[k + 1] : MANY;
            if (!CFG_IS_TERM(r[k]) && f->follow[r[k]] != after)
                f->follow[r[k]] = f->follow[r[k]] == NONE ? after : MANY;
        }
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

/* A production kept by the fold. */
static bool new_prod(fold_ctx *f, uint32_t lhs, const uint32_t *items, uint32_t len)
{
    uint32_t p = cfg_add_prod(f->g, lhs, items, len);
    if (p == UINT32_MAX)
        return false;
    if (p >= f->cap_keep) {
        uint32_t cap = 2 * p + 16;
        bool *k = realloc(f->keep, cap);
        if (!k)
            return false;
        memset(k + f->cap_keep, 1, cap - f->cap_keep);
        f->keep = k, f->cap_keep = cap;
    }
    f->keep[p] = true;
    return true;
}

/* Makes the chain in f->links over x counted: D_0 becomes the list
 * D_0 -> D_0 x whose reduction at count `max` goes to nonterminal `exit`. */
static bool add_count(fold_ctx *f, uint32_t x, uint32_t max, uint32_t exit)
{
    cfg *g = f->g;
    uint32_t d0 = f->links[0], items[2] = {d0, x};
    if (!new_prod(f, d0, items, 2))
        return false;
    uint32_t p = g->n_prods - 1;
    cfg_count *c = realloc(g->counts, (size_t)(g->n_counts + 1) * sizeof *c);
    if (!c)
        return false;
    g->counts = c;
    g->counts[g->n_counts++] = (cfg_count){p, max, exit};
    g->nts[d0].kind = CFG_NT_REPEAT;
    return true;
}

/* Drops links from..to of the chain in f->links (their productions and U's
 * unit productions of them); every link keeps no record of links left out. */
static void drop_links(fold_ctx *f, uint32_t k, uint32_t from, uint32_t to)
{
    for (uint32_t j = from; j <= to; j++)
        f->keep[f->own[f->links[j]]] = false, f->keep[f->unit[f->links[j]]] = false;
    for (uint32_t j = 0; j <= k; j++)
        f->g->nts[f->links[j]].omitted = 0;
}

/* Rewrites the chain in f->links over x: links 1..max go and D_{max+1} is
 * entered by the counter, its own production gone (U still names it). */
static bool fold_chain(fold_ctx *f, uint32_t k, uint32_t x, uint32_t window)
{
    uint32_t max = k - window - 1, omitted = f->g->nts[f->links[0]].omitted;
    drop_links(f, k, 1, max);
    f->keep[f->own[f->links[max + 1]]] = false;
    return add_count(f, x, max + omitted, f->links[max + 1]);
}

/* ---- shared tails (count_fold.h) ------------------------------------------
 *
 * Keyed by x and the terminal after U, so that the lookaheads LALR(1) merges
 * into T's states are the ones each chain had alone. */

#define TAIL_MIN 8 /* shorter chains keep their own ends */

typedef struct tail {
    uint32_t x, follow;  /* the key                                        */
    uint32_t n, most;    /* chains sharing it, the highest link they enter */
    uint32_t t, top;     /* T and R_most (tail_link), NONE until built       */
} tail;

/* The tail of chain D_0 over x into *i, NONE when its U is not followed by
 * one terminal wherever it is used; false when out of memory. */
static bool tail_of(fold_ctx *f, tail **tails, uint32_t *n_tails, uint32_t x, uint32_t d0, uint32_t *i)
{
    uint32_t u = f->g->prods[f->unit[d0]].lhs, follow = f->follow[u];
    *i = NONE;
    if (follow >= MANY)
        return true;
    for (*i = 0; *i < *n_tails; (*i)++)
        if ((*tails)[*i].x == x && (*tails)[*i].follow == follow)
            return true;
    tail *t = realloc(*tails, (*n_tails + 1) * sizeof *t);
    if (!t)
        return false;
    *tails = t;
    t[(*n_tails)++] = (tail){x, follow, 0, 0, NONE, NONE};
    return true;
}

/* R_m, the link that allows m more copies. */
static uint32_t tail_link(const tail *t, uint32_t m)
{
    return t->top + (t->most - m);
}

/* T and R_most .. R_0, named after x. The links are numbered in the order
 * a chain's are, first to last, so that their LR states are too: a twin
 * (horizon.h) then comes before the states that copy it, as in a chain. */
static bool build_tail(fold_ctx *f, tail *t)
{
    cfg *g = f->g;
    char name[96];
    const char *xn = CFG_IS_TERM(t->x) ? "bytes" : g->nts[t->x].name;
    snprintf(name, sizeof name, "%.60s-tail", xn);
    if ((t->t = cfg_add_nt(g, name, CFG_NT_GROUP, UINT32_MAX)) == UINT32_MAX)
        return false;
    t->top = t->t + 1;
    for (uint32_t m = t->most + 1; m-- > 0;) {
        snprintf(name, sizeof name, "%.60s-tail/%u", xn, m);
        if (cfg_add_nt(g, name, CFG_NT_COUNT, UINT32_MAX) != tail_link(t, m))
            return false;
    }
    for (uint32_t m = 0; m <= t->most; m++) {
        uint32_t r = tail_link(t, m), link[2] = {tail_link(t, m + 1), t->x};
        if (!new_prod(f, t->t, &r, 1) || (m < t->most && !new_prod(f, r, link, 2)))
            return false;
    }
    return true;
}

/* Ends the chain in f->links (k links over x) in tail t: U -> T, the links
 * dropped, and D_0 counted into R_W (k > W) or redirected to R_k. */
static bool share_tail(fold_ctx *f, uint32_t k, uint32_t x, uint32_t window, const tail *t)
{
    cfg *g = f->g;
    uint32_t d0 = f->links[0], u = g->prods[f->unit[d0]].lhs, omitted = g->nts[d0].omitted;
    drop_links(f, k, 1, k);
    if (!new_prod(f, u, &t->t, 1))
        return false;
    if (k > window)
        return add_count(f, x, k - window - 1 + omitted, tail_link(t, window));
    cfg_redirect *r = realloc(g->redirects, (g->n_redirects + 1) * sizeof *r);
    if (!r)
        return false;
    g->redirects = r;
    r[g->n_redirects++] = (cfg_redirect){d0, tail_link(t, k), x};
    return true;
}

static void fold_ctx_free(fold_ctx *f)
{
    free(f->uses), free(f->unit), free(f->next), free(f->own), free(f->follow), free(f->nullable),
        free(f->links), free(f->keep);
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

/* Which tail each chain ends in (chain_tail[d0], NONE: its own), and how
 * far into each the chains enter; tails one chain would use are not kept. */
static bool plan_tails(fold_ctx *f, uint32_t window, tail **tails, uint32_t *n_tails, uint32_t *chain_tail)
{
    uint32_t n = f->g->n_nts;
    for (uint32_t d = 0; d < n; d++) {
        uint32_t x, k, i;
        chain_tail[d] = NONE;
        if (f->g->nts[d].kind != CFG_NT_COUNT || (k = find_chain(f, d, &x)) < TAIL_MIN)
            continue;
        if (!tail_of(f, tails, n_tails, x, d, &i))
            return false;
        if (i == NONE)
            continue;
        tail *t = &(*tails)[i];
        uint32_t entry = k > window ? window : k;
        t->n++;
        t->most = entry > t->most ? entry : t->most;
        chain_tail[d] = i;
    }
    for (uint32_t d = 0; d < n; d++)
        if (chain_tail[d] != NONE && (*tails)[chain_tail[d]].n < 2)
            chain_tail[d] = NONE;
    return true;
}

gcg_status gcg_count_fold(cfg *g, uint32_t window, bool *short_left)
{
    if (short_left)
        *short_left = false;
    if (!has_links(g))
        return GCG_OK;
    uint32_t n = g->n_nts, np = g->n_prods;
    fold_ctx f = {g,
                  calloc(n + 1, sizeof(uint32_t)),
                  malloc((n + 1) * sizeof(uint32_t)),
                  malloc((n + 1) * sizeof(uint32_t)),
                  malloc((n + 1) * sizeof(uint32_t)),
                  malloc((n + 1) * sizeof(uint32_t)),
                  malloc(n + 1),
                  malloc((n + 1) * sizeof(uint32_t)),
                  malloc((size_t)np + 1),
                  np + 1};
    uint32_t *chain_tail = malloc((n + 1) * sizeof *chain_tail), n_tails = 0;
    tail *tails = NULL;
    if (!f.uses || !f.unit || !f.next || !f.own || !f.follow || !f.nullable || !f.links || !f.keep || !chain_tail) {
        fold_ctx_free(&f), free(chain_tail);
        return GCG_ERR_NOMEM;
    }
    memset(f.unit, 0xff, (n + 1) * sizeof(uint32_t));
    memset(f.next, 0xff, (n + 1) * sizeof(uint32_t));
    memset(f.own, 0xff, (n + 1) * sizeof(uint32_t));
    memset(f.follow, 0xff, (n + 1) * sizeof(uint32_t));
    memset(f.keep, 1, (size_t)np + 1);
    cfg_nullable(g, f.nullable);
    index_grammar(&f);
    bool ok = plan_tails(&f, window, &tails, &n_tails, chain_tail), changed = false;
    for (uint32_t d = 0; d < n && ok; d++) {
        uint32_t x, k, i = chain_tail[d];
        if (g->nts[d].kind != CFG_NT_COUNT || (k = find_chain(&f, d, &x)) == 0)
            continue;
        if (i != NONE && tails[i].t == NONE)
            ok = build_tail(&f, &tails[i]);
        if (ok && i != NONE)
            ok = share_tail(&f, k, x, window, &tails[i]), changed = true;
        else if (ok && k >= window + 1 + COUNT_FOLD_MIN)
            ok = fold_chain(&f, k, x, window), changed = true;
    }
    gcg_status st = !ok ? GCG_ERR_NOMEM : changed ? cfg_compact(g, f.keep) : GCG_OK;
    fold_ctx_free(&f), free(chain_tail), free(tails);
    if (st == GCG_OK && short_left)
        *short_left = short_chain_left(g);
    return st;
}
