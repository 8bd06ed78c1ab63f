/* commit_bound.c — the most work one commit step can do (see commit_bound.h). */
#include <stdlib.h>
#include <string.h>

#include "commit_bound.h"
#include "vecmap.h"

#define NONE UINT32_MAX

typedef struct cb {
    const lr_tables *lr;
    const cfg *g;
    const uint32_t *pred_first, *pred;
    uint32_t *count_of;     /* per production: its cfg_count, or NONE       */
    map64 reduced;          /* (state << 32 | prod) -> its targets in tg    */
    vec tg;                 /* per entry: n, then the states a chain goes on to */
    vec layer, next;        /* pred layers (targets)                        */
    uint32_t *stamp, gen;
    uint8_t *mark;          /* per state, this terminal: 0 new, 1 on the path, 2 done */
    uint32_t *work;         /* per state, this terminal: costliest chain from it */
    uint32_t *with_cells;   /* ... where a conflict cell costs its fork's step
                               (work[] counts it 1); NULL without conflicts */
    uint32_t *eps;          /* ... the most ε-reductions on one chain (with
                               with_cells)                                   */
    vec frames;             /* the depth-first path: (state, next target) pairs */
    const commit_forks *forks; /* the conflict cells' own steps, or NULL   */
    uint32_t term;          /* the terminal in hand                         */
    uint32_t most_with_cells; /* the costliest chain, cells at their cost   */
    uint32_t most_eps;        /* the most ε-reductions on one chain          */
    gcg_status st;
} cb;

/* The states `k` predecessor steps below s, in c->layer. */
static bool layer_below(cb *c, uint32_t s, uint32_t k)
{
    c->layer.n = 0;
    if (!gcg_vec_push(&c->layer, s))
        return false;
    for (uint32_t d = 0; d < k; d++) {
        c->gen++;
        c->next.n = 0;
        for (uint32_t i = 0; i < c->layer.n; i++)
            for (uint32_t j = c->pred_first[c->layer.v[i]]; j < c->pred_first[c->layer.v[i] + 1]; j++)
                if (c->stamp[c->pred[j]] != c->gen) {
                    c->stamp[c->pred[j]] = c->gen;
                    if (!gcg_vec_push(&c->next, c->pred[j]))
                        return false;
                }
        vec t = c->layer;
        c->layer = c->next, c->next = t;
    }
    return true;
}

/* Adds goto(q, nt) for every q of c->layer to the targets being built
 * (each state once: stamps of generation c->gen). */
static bool add_gotos(cb *c, uint32_t nt)
{
    for (uint32_t i = 0; i < c->layer.n; i++) {
        uint32_t to = lr_goto(c->lr, c->layer.v[i], nt);
        if (to != GCG_NO_GOTO && c->stamp[to] != c->gen) {
            c->stamp[to] = c->gen;
            if (!gcg_vec_push(&c->tg, to))
                return false;
        }
    }
    return true;
}

/* Where a reduction by p from top state s goes on (cached): the gotos of the
 * states it can expose, on p's left side (and, for a counted production,
 * on its exit). Returns the offset of the list in c->tg, or NONE. */
static uint32_t targets(cb *c, uint32_t s, uint32_t p)
{
    uint32_t *slot = gcg_map64_slot(&c->reduced, (uint64_t)s << 32 | p, true);
    if (!slot)
        return c->st = GCG_ERR_NOMEM, NONE;
    if (*slot != NONE)
        return *slot;
    uint32_t at = c->tg.n, k = c->lr->prod_len[p], lhs = c->lr->prod_lhs[p], ce = c->count_of[p];
    bool ok = layer_below(c, s, k) && gcg_vec_push(&c->tg, 0);
    c->gen++;
    ok = ok && add_gotos(c, lhs) && (ce == NONE || add_gotos(c, c->g->counts[ce].exit));
    if (!ok)
        return c->st = GCG_ERR_NOMEM, NONE;
    c->tg.v[at] = c->tg.n - at - 1;
    slot = gcg_map64_slot(&c->reduced, (uint64_t)s << 32 | p, false);
    return *slot = at;
}

/* The work of state x's own part of a step on terminal c->term (glr.c): its
 * action read; for a reduction the dequeue, the edges popped (one pair for
 * a counted production) and the edge linked; for a shift the shift; for a
 * conflict cell the fork's whole step, as the fork analysis bounded it. */
static uint32_t own_work(const cb *c, uint32_t x, uint32_t a, bool cells)
{
    if (GCG_ACT_KIND(a) == GCG_ACT_MULTI) {
        uint32_t w = cells ? gcg_map64_get(&c->forks->first, (uint64_t)x << 32 | c->term) : 1;
        return w == NONE ? UINT32_MAX : w;
    }
    if (GCG_ACT_KIND(a) == GCG_ACT_SHIFT)
        return 2;
    if (GCG_ACT_KIND(a) != GCG_ACT_REDUCE || GCG_ACT_ARG(a) == 0)
        return 1;
    uint32_t p = GCG_ACT_ARG(a);
    return 3 + (c->count_of[p] != NONE ? 1 : c->lr->prod_len[p]);
}

static uint32_t add_sat(uint32_t a, uint32_t b)
{
    return a > UINT32_MAX - b ? UINT32_MAX : a + b;
}

/* Chain x goes on to y, whose costliest chains are known. */
static void settle_into(cb *c, uint32_t x, uint32_t y)
{
    c->work[x] = c->work[y] > c->work[x] ? c->work[y] : c->work[x];
    if (c->with_cells) {
        c->with_cells[x] = c->with_cells[y] > c->with_cells[x] ? c->with_cells[y] : c->with_cells[x];
        c->eps[x] = c->eps[y] > c->eps[x] ? c->eps[y] : c->eps[x];
    }
}

/* Depth first from s on terminal t, work[] set on the way back; false with
 * *cycle the production of a chain that comes back to a state. */
static bool chain_from(cb *c, uint32_t s, uint32_t t, uint32_t *cycle)
{
    c->frames.n = 0;
    if (!gcg_vec_push(&c->frames, s) || !gcg_vec_push(&c->frames, 0))
        return c->st = GCG_ERR_NOMEM, false;
    c->mark[s] = 1, c->work[s] = 0;
    if (c->with_cells)
        c->with_cells[s] = c->eps[s] = 0;
    while (c->frames.n && c->st == GCG_OK) {
        uint32_t x = c->frames.v[c->frames.n - 2], i = c->frames.v[c->frames.n - 1];
        uint32_t a = lr_action(c->lr, x, t), at = NONE;
        if (GCG_ACT_KIND(a) == GCG_ACT_REDUCE && GCG_ACT_ARG(a) != 0)
            at = targets(c, x, GCG_ACT_ARG(a));
        if (at != NONE && i < c->tg.v[at]) {
            uint32_t y = c->tg.v[at + 1 + i];
            c->frames.v[c->frames.n - 1] = i + 1;
            if (c->mark[y] == 1) {
                *cycle = GCG_ACT_ARG(a);
                return false;
            }
            if (c->mark[y] == 0) {
                c->mark[y] = 1, c->work[y] = 0;
                if (c->with_cells)
                    c->with_cells[y] = c->eps[y] = 0;
                if (!gcg_vec_push(&c->frames, y) || !gcg_vec_push(&c->frames, 0))
                    return c->st = GCG_ERR_NOMEM, false;
            } else {
                settle_into(c, x, y);
            }
            continue;
        }
        /* every target settled: x's chain is its own work and the costliest
         * one after it (work[x] held that maximum so far) */
        c->work[x] = add_sat(own_work(c, x, a, false), c->work[x]);
        if (c->with_cells) {
            c->with_cells[x] = add_sat(own_work(c, x, a, true), c->with_cells[x]);
            c->eps[x] += GCG_ACT_KIND(a) == GCG_ACT_REDUCE && GCG_ACT_ARG(a) != 0 &&
                         c->lr->prod_len[GCG_ACT_ARG(a)] == 0;
        }
        c->mark[x] = 2;
        c->frames.n -= 2;
        if (c->frames.n)
            settle_into(c, c->frames.v[c->frames.n - 2], x);
    }
    return c->st == GCG_OK;
}

/* Whether a cell of the tables forks the stack; *nt a reduction's left side. */
static bool forks(const lr_tables *lr, uint32_t *nt)
{
    for (size_t k = 0; k < (size_t)lr->n_states * lr->n_terms; k++) {
        uint32_t a = lr->action[k];
        if (GCG_ACT_KIND(a) != GCG_ACT_MULTI)
            continue;
        const uint32_t *m = lr->multi + GCG_ACT_ARG(a);
        for (uint32_t i = 1; i <= m[0]; i++)
            if (GCG_ACT_KIND(m[i]) == GCG_ACT_REDUCE)
                *nt = lr->prod_lhs[GCG_ACT_ARG(m[i])];
        return true;
    }
    return false;
}

/* Every terminal from every frontier state: the costliest step, or a cycle. */
static void bound_steps(cb *c, commit_bound *out)
{
    const lr_tables *lr = c->lr;
    out->bounded = true;
    for (uint32_t t = 0; t < lr->n_terms && c->st == GCG_OK && out->bounded; t++) {
        c->term = t;
        memset(c->mark, 0, lr->n_states);
        for (uint32_t s = 0; s < lr->n_states && c->st == GCG_OK && out->bounded; s++) {
            uint32_t cycle;
            if (!lr_frontier_state(lr, s))
                continue;
            if (!c->mark[s] && !chain_from(c, s, t, &cycle)) {
                out->bounded = false;
                out->unbounded_reason = GCG_CERT_UNBOUNDED_RECURSION;
                out->nt = c->st == GCG_OK ? lr->prod_lhs[cycle] : NONE;
                break;
            }
            out->max_step_work = c->work[s] > out->max_step_work ? c->work[s] : out->max_step_work;
            if (c->with_cells && c->with_cells[s] > c->most_with_cells)
                c->most_with_cells = c->with_cells[s];
            if (c->with_cells && c->eps[s] > c->most_eps)
                c->most_eps = c->eps[s];
        }
    }
}

/* With conflict cells: a chain that ends in a cell costs the cell's own
 * step. Each goto of that step that may be a late edge onto a node the
 * chain made costs, in glr.c's redo_through, a look at the chain's nodes,
 * its reductions again (twice over, as a pass does) and the closure over
 * the chain's ε-edges beside the fork's: at most 3 chains (the costliest
 * chain with cells at 1 bounds the nodes it makes) and eps (2 intra + eps
 * + 1). Then every step from a forked frontier. */
static void bound_forked_steps(cb *c, commit_bound *out)
{
    bound_steps(c, out);
    if (!out->bounded || c->st != GCG_OK)
        return;
    uint64_t chains = out->max_step_work, eps = c->most_eps;
    uint64_t per_late = 3 * chains + eps * (2 * (uint64_t)c->forks->intra + eps + 1);
    uint64_t w = c->most_with_cells + c->forks->late * per_late;
    w = w > c->forks->forked ? w : c->forks->forked;
    out->max_step_work = w >= UINT32_MAX ? 0 : (uint32_t)w;
    if (w >= UINT32_MAX) { /* a cell the analysis did not bound */
        out->bounded = false;
        out->unbounded_reason = GCG_CERT_UNBOUNDED_AMBIGUITY;
    }
}

gcg_status gcg_commit_bound(const lr_tables *lr, const cfg *g, const uint32_t *pred_first, const uint32_t *pred,
                            const commit_forks *fk, commit_bound *out)
{
    memset(out, 0, sizeof *out);
    out->nt = NONE;
    bool forked = forks(lr, &out->nt);
    if (forked && !fk) {
        out->unbounded_reason = GCG_CERT_UNBOUNDED_AMBIGUITY;
        return GCG_OK;
    }
    cb c = {.lr = lr, .g = g, .pred_first = pred_first, .pred = pred, .forks = fk};
    c.count_of = malloc(((size_t)lr->n_prods + 1) * sizeof *c.count_of);
    c.stamp = calloc((size_t)lr->n_states + 1, sizeof *c.stamp);
    c.mark = malloc((size_t)lr->n_states + 1);
    c.work = malloc(((size_t)lr->n_states + 1) * sizeof *c.work);
    c.with_cells = forked ? malloc(((size_t)lr->n_states + 1) * sizeof *c.with_cells) : NULL;
    c.eps = forked ? malloc(((size_t)lr->n_states + 1) * sizeof *c.eps) : NULL;
    c.st = c.count_of && c.stamp && c.mark && c.work && (!forked || (c.with_cells && c.eps)) ? GCG_OK
                                                                                            : GCG_ERR_NOMEM;
    if (c.st == GCG_OK) {
        memset(c.count_of, 0xff, (size_t)lr->n_prods * sizeof *c.count_of);
        for (uint32_t i = 0; i < g->n_counts; i++)
            if (g->counts[i].prod < lr->n_prods)
                c.count_of[g->counts[i].prod] = i;
        if (forked)
            bound_forked_steps(&c, out);
        else
            bound_steps(&c, out);
    }
    free(c.count_of), free(c.stamp), free(c.mark), free(c.work), free(c.with_cells), free(c.eps);
    gcg_map64_free(&c.reduced);
    gcg_vec_free(&c.tg), gcg_vec_free(&c.layer), gcg_vec_free(&c.next), gcg_vec_free(&c.frames);
    if (c.st != GCG_OK)
        memset(out, 0, sizeof *out);
    return c.st;
}
