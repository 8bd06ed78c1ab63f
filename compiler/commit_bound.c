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
    vec frames;             /* the depth-first path: (state, next target) pairs */
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

/* The work of state s's own part of a step on terminal t (glr.c): its
 * action read; for a reduction the dequeue, the edges popped (one pair for
 * a counted production) and the edge linked; for a shift the shift. */
static uint32_t own_work(const cb *c, uint32_t a)
{
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

/* Depth first from s on terminal t, work[] set on the way back; false with
 * *cycle the production of a chain that comes back to a state. */
static bool chain_from(cb *c, uint32_t s, uint32_t t, uint32_t *cycle)
{
    c->frames.n = 0;
    if (!gcg_vec_push(&c->frames, s) || !gcg_vec_push(&c->frames, 0))
        return c->st = GCG_ERR_NOMEM, false;
    c->mark[s] = 1, c->work[s] = 0;
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
                if (!gcg_vec_push(&c->frames, y) || !gcg_vec_push(&c->frames, 0))
                    return c->st = GCG_ERR_NOMEM, false;
            } else if (c->work[y] > c->work[x]) {
                c->work[x] = c->work[y];
            }
            continue;
        }
        /* every target settled: x's chain is its own work and the costliest
         * one after it (work[x] held that maximum so far) */
        c->work[x] = add_sat(own_work(c, a), c->work[x]);
        c->mark[x] = 2;
        c->frames.n -= 2;
        if (c->frames.n) {
            uint32_t up = c->frames.v[c->frames.n - 2];
            c->work[up] = c->work[x] > c->work[up] ? c->work[x] : c->work[up];
        }
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
        }
    }
}

gcg_status gcg_commit_bound(const lr_tables *lr, const cfg *g, const uint32_t *pred_first, const uint32_t *pred,
                            commit_bound *out)
{
    memset(out, 0, sizeof *out);
    out->nt = NONE;
    if (forks(lr, &out->nt)) {
        out->unbounded_reason = GCG_CERT_UNBOUNDED_AMBIGUITY;
        return GCG_OK;
    }
    cb c = {.lr = lr, .g = g, .pred_first = pred_first, .pred = pred};
    c.count_of = malloc(((size_t)lr->n_prods + 1) * sizeof *c.count_of);
    c.stamp = calloc((size_t)lr->n_states + 1, sizeof *c.stamp);
    c.mark = malloc((size_t)lr->n_states + 1);
    c.work = malloc(((size_t)lr->n_states + 1) * sizeof *c.work);
    c.st = c.count_of && c.stamp && c.mark && c.work ? GCG_OK : GCG_ERR_NOMEM;
    if (c.st == GCG_OK) {
        memset(c.count_of, 0xff, (size_t)lr->n_prods * sizeof *c.count_of);
        for (uint32_t i = 0; i < g->n_counts; i++)
            if (g->counts[i].prod < lr->n_prods)
                c.count_of[g->counts[i].prod] = i;
        bound_steps(&c, out);
    }
    free(c.count_of), free(c.stamp), free(c.mark), free(c.work);
    gcg_map64_free(&c.reduced);
    gcg_vec_free(&c.tg), gcg_vec_free(&c.layer), gcg_vec_free(&c.next), gcg_vec_free(&c.frames);
    if (c.st != GCG_OK)
        memset(out, 0, sizeof *out);
    return c.st;
}
