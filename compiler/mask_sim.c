/* mask_sim.c — the symbolic simulation over the byte trie (see mask_sim.h). */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../runtime/artifact_format.h"
#include "mask_sim.h"

#define NONE UINT32_MAX
#define DEAD (UINT32_MAX - 1)   /* consensus: no state below can take the goto */
#define READ (UINT32_MAX - 2)   /* consensus: the outcome depends on the stack */
#define MAX_DEPTH 0xFFFFu       /* stack depth a reduction may expose          */

static bool fail(mask_sim *c, gcg_status st)
{
    if (c->st == GCG_OK)
        c->st = st;
    return false;
}

/* ---- predecessors and path consensus ----------------------------------- */

static gcg_status build_pred(mask_sim *c)
{
    const lr_tables *t = c->lr;
    uint32_t n = t->n_states;
    c->pred_first = calloc((size_t)n + 2, sizeof *c->pred_first);
    if (!c->pred_first)
        return GCG_ERR_NOMEM;
    vec edges = {0}; /* (to, from) pairs */
    for (uint32_t s = 0; s < n; s++) {
        for (uint32_t x = 0; x + 1 < t->n_terms; x++) {
            uint32_t a = lr_action(t, s, x);
            const uint32_t *list = &a;
            uint32_t cnt = 1;
            if (GCG_ACT_KIND(a) == GCG_ACT_MULTI)
                list = t->multi + GCG_ACT_ARG(a) + 1, cnt = t->multi[GCG_ACT_ARG(a)];
            for (uint32_t i = 0; i < cnt; i++)
                if (GCG_ACT_KIND(list[i]) == GCG_ACT_SHIFT &&
                    (!gcg_vec_push(&edges, GCG_ACT_ARG(list[i])) || !gcg_vec_push(&edges, s)))
                    return GCG_ERR_NOMEM;
        }
        for (uint32_t k = t->go_start[s]; k < t->go_start[s + 1]; k++) /* s's gotos */
            if (!gcg_vec_push(&edges, t->go_to[k]) || !gcg_vec_push(&edges, s))
                return GCG_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < edges.n; i += 2)
        c->pred_first[edges.v[i] + 2]++;
    for (uint32_t s = 0; s < n; s++)
        c->pred_first[s + 2] += c->pred_first[s + 1];
    c->pred = malloc((size_t)(edges.n / 2 + 1) * sizeof *c->pred);
    c->stamp = calloc(n, sizeof *c->stamp);
    if (!c->pred || !c->stamp) {
        free(edges.v);
        return GCG_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < edges.n; i += 2)
        c->pred[c->pred_first[edges.v[i] + 1]++] = edges.v[i + 1];
    free(edges.v);
    /* each list is ascending (sources were visited in order): drop repeats,
     * so equal predecessor sets are equal lists */
    uint32_t w = 0;
    for (uint32_t s = 0; s < n; s++) {
        uint32_t from = c->pred_first[s], to = c->pred_first[s + 1];
        c->pred_first[s] = w;
        for (uint32_t k = from; k < to; k++)
            if (k == from || c->pred[k] != c->pred[k - 1])
                c->pred[w++] = c->pred[k];
    }
    c->pred_first[n] = w;
    return GCG_OK;
}

/* Interns the list ids[0..n), sorted and deduplicated here, in the table
 * (map, start, len, data); NONE for an empty list or on failure. */
static uint32_t intern_list(mask_sim *c, map64 *map, vec *start, vec *lens, vec *data, uint32_t *ids, uint32_t n,
                            uint64_t salt)
{
    if (n == 0)
        return NONE;
    qsort(ids, n, sizeof *ids, gcg_cmp_u32);
    uint32_t m = 1;
    for (uint32_t i = 1; i < n; i++)
        if (ids[i] != ids[m - 1])
            ids[m++] = ids[i];
    uint64_t h = XXH3_64bits(ids, (size_t)m * sizeof *ids) ^ salt;
    for (uint64_t probe = h;; probe++) {
        uint32_t *slot = gcg_map64_slot(map, probe, true);
        if (!slot)
            return fail(c, GCG_ERR_NOMEM), NONE;
        if (*slot == NONE) {
            *slot = start->n;
            if (!gcg_vec_push(start, data->n) || !gcg_vec_push(lens, m) || !gcg_vec_reserve(data, m))
                return fail(c, GCG_ERR_NOMEM), NONE;
            memcpy(data->v + data->n, ids, (size_t)m * sizeof *ids);
            data->n += m;
            return *slot;
        }
        uint32_t id = *slot;
        if (lens->v[id] == m && memcmp(data->v + start->v[id], ids, (size_t)m * sizeof *ids) == 0)
            return id;
    }
}

/* ---- reference sets and path consensus ----------------------------------
 *
 * A symbolic stack [o, k, K...] lies on a real stack whose entry at depth o
 * is one of the reference set's states (the set is interned: an id). A run
 * starts with the set {s} of its top state. Once every stack of a set has
 * popped below the reference (o >= 1 for all), the reference moves down to
 * the layer of states that can lie o entries below it and o drops to 0: what
 * the simulation can learn about the real stack from then on depends only on
 * that layer, so walks that started from different top states meet in the
 * same (reference, stacks) pair and share their results. */

/* Interns the set of LR states ids[0..n) (sorted and deduplicated here). */
static uint32_t lset_intern(mask_sim *c, uint32_t *ids, uint32_t n)
{
    return intern_list(c, &c->lset_ids, &c->lset_start, &c->lset_len, &c->lset_data, ids, n, 0x1a7e5u);
}

/* The layer of states that can lie `depth` entries below the states of
 * reference set `ref`, in c->layer. */
static bool layer_below(mask_sim *c, uint32_t ref, uint32_t depth)
{
    c->layer.n = 0;
    uint32_t start = c->lset_start.v[ref], n = c->lset_len.v[ref];
    for (uint32_t i = 0; i < n; i++)
        if (!gcg_vec_push(&c->layer, c->lset_data.v[c->lset_start.v[ref] + i]))
            return fail(c, GCG_ERR_NOMEM);
    (void)start;
    for (uint32_t d = 0; d < depth; d++) {
        c->gen++;
        c->next_layer.n = 0;
        for (uint32_t i = 0; i < c->layer.n; i++) {
            uint32_t s = c->layer.v[i];
            for (uint32_t k = c->pred_first[s]; k < c->pred_first[s + 1]; k++)
                if (c->stamp[c->pred[k]] != c->gen) {
                    c->stamp[c->pred[k]] = c->gen;
                    if (!gcg_vec_push(&c->next_layer, c->pred[k]))
                        return fail(c, GCG_ERR_NOMEM);
                }
        }
        vec tmp = c->layer;
        c->layer = c->next_layer, c->next_layer = tmp;
    }
    return true;
}

/* The goto on `lhs` of every state that can lie `depth` entries below the
 * reference set: the common target, DEAD if none has one, READ if they
 * differ or some lack it. */
static uint32_t consensus_of(mask_sim *c, uint32_t ref, uint32_t depth, uint32_t lhs)
{
    const lr_tables *t = c->lr;
    if (!layer_below(c, ref, depth))
        return DEAD;
    uint32_t result = DEAD;
    bool some_dead = false;
    for (uint32_t i = 0; i < c->layer.n; i++) {
        uint32_t to = lr_goto(t, c->layer.v[i], lhs);
        if (to == GCG_NO_GOTO)
            some_dead = true;
        else if (result == DEAD)
            result = to;
        else if (result != to)
            return READ;
    }
    return result != DEAD && some_dead ? READ : result;
}

static uint32_t consensus(mask_sim *c, uint32_t ref, uint32_t depth, uint32_t lhs)
{
    if (ref >= (1u << 24) || lhs >= (1u << 24)) {
        gcg_diag_add(c->diag, GCG_SEV_ERROR, 0, 0, "mask simulation: more than %u stack layers or nonterminals",
                     1u << 24);
        return fail(c, GCG_ERR_LIMIT), DEAD;
    }
    uint64_t key = ((uint64_t)ref << 40) | ((uint64_t)lhs << 16) | depth;
    uint32_t *slot = gcg_map64_slot(&c->consensus, key, true);
    if (!slot)
        return fail(c, GCG_ERR_NOMEM), DEAD;
    if (*slot == NONE) {
        uint32_t r = consensus_of(c, ref, depth, lhs);
        slot = gcg_map64_slot(&c->consensus, key, false);
        *slot = r;
    }
    return *slot;
}

/* The reference set `depth` layers below `ref` (cached). */
static uint32_t lset_below(mask_sim *c, uint32_t ref, uint32_t depth)
{
    uint64_t key = ((uint64_t)ref << 32) | depth;
    uint32_t *slot = gcg_map64_slot(&c->lset_down, key, true);
    if (!slot)
        return fail(c, GCG_ERR_NOMEM), NONE;
    if (*slot == NONE) {
        uint32_t r = layer_below(c, ref, depth) ? lset_intern(c, c->layer.v, c->layer.n) : NONE;
        slot = gcg_map64_slot(&c->lset_down, key, false);
        *slot = r;
    }
    return *slot;
}

/* ---- symbolic simulation of one byte ------------------------------------ */

static bool add_config(mask_sim *c, uint32_t node, uint32_t lhs, uint32_t skip)
{
    return (gcg_vec_push(&c->cfgs, node) && gcg_vec_push(&c->cfgs, lhs) && gcg_vec_push(&c->cfgs, skip)) ||
           fail(c, GCG_ERR_NOMEM);
}

#define MAX_KNOWN 512 /* symbolic stack entries inside one token (a guard) */

/* Reduction by p applied in place to the stack w = [o, k, K...]. Returns
 * false when the stack ends here: the goto is dead, or the outcome depends on
 * the real stack (the read is noted in c->reads as (lhs, depth below the
 * reference), for the step being computed). */
static bool sim_reduce(mask_sim *c, uint32_t *w, uint32_t p)
{
    const lr_tables *t = c->lr;
    uint32_t o = w[0], k = w[1], len = t->prod_len[p], lhs = t->prod_lhs[p];
    uint32_t to;
    if (len < k) { /* inside the known part */
        to = lr_goto(t, w[2 + k - 1 - len], lhs);
        w[1] = k - len + 1;
        w[2 + k - len] = to;
        return to != GCG_NO_GOTO;
    }
    uint64_t depth = (uint64_t)o + (len - k); /* the real entry exposed */
    if (depth > MAX_DEPTH) {
        gcg_diag_add(c->diag, GCG_SEV_ERROR, 0, 0, "a reduction pops more than %u stack entries", MAX_DEPTH);
        return fail(c, GCG_ERR_LIMIT);
    }
    to = consensus(c, c->ref, (uint32_t)depth, lhs);
    if (to == READ) {
        if (!gcg_vec_push(&c->reads, lhs) || !gcg_vec_push(&c->reads, (uint32_t)depth))
            fail(c, GCG_ERR_NOMEM);
        return false;
    }
    if (to == DEAD)
        return false;
    w[0] = (uint32_t)depth, w[1] = 1, w[2] = to;
    return true;
}

static bool emit_shift(mask_sim *c, const uint32_t *w, uint32_t to)
{
    uint32_t k = w[1];
    if (!gcg_vec_reserve(&c->arena, k + 3))
        return fail(c, GCG_ERR_NOMEM);
    uint32_t *dst = c->arena.v + c->arena.n;
    memcpy(dst, w, ((size_t)k + 2) * sizeof *dst);
    dst[1] = k + 1, dst[2 + k] = to;
    c->arena.n += k + 3;
    return true;
}

static bool work_save(mask_sim *c, const uint32_t *w)
{
    uint32_t len = w[1] + 2;
    if (!gcg_vec_reserve(&c->work, len + 1))
        return fail(c, GCG_ERR_NOMEM);
    memcpy(c->work.v + c->work.n, w, (size_t)len * sizeof *w);
    c->work.v[c->work.n + len] = len;
    c->work.n += len + 1;
    return true;
}

static bool work_load(mask_sim *c, uint32_t *w)
{
    if (c->work.n == 0)
        return false;
    uint32_t len = c->work.v[c->work.n - 1];
    c->work.n -= len + 1;
    memcpy(w, c->work.v + c->work.n, (size_t)len * sizeof *w);
    return true;
}

/* One action of a conflict list, on a copy of w (forks go to the work list). */
static void sim_fork(mask_sim *c, const uint32_t *w, uint32_t a)
{
    uint32_t copy[2 + MAX_KNOWN + 1];
    if (GCG_ACT_KIND(a) == GCG_ACT_SHIFT) {
        emit_shift(c, w, GCG_ACT_ARG(a));
        return;
    }
    if (GCG_ACT_KIND(a) != GCG_ACT_REDUCE || GCG_ACT_ARG(a) == 0)
        return;
    memcpy(copy, w, ((size_t)w[1] + 2) * sizeof *w);
    if (sim_reduce(c, copy, GCG_ACT_ARG(a)))
        work_save(c, copy);
}

/* All reductions byte class `cls` triggers on stack `sim`, then its shifts:
 * the shifted stacks are appended to the arena, reads go to c->reads. A single
 * action is applied in place; only GLR conflicts fork a copy. */
static void sim_byte(mask_sim *c, uint32_t sim, uint32_t cls)
{
    const lr_tables *t = c->lr;
    uint32_t w[2 + MAX_KNOWN + 1];
    uint32_t len = c->arena.v[sim + 1] + 2;
    memcpy(w, c->arena.v + sim, (size_t)len * sizeof *w);
    c->work.n = 0;
    for (uint32_t steps = 0; c->st == GCG_OK; steps++) {
        if (steps > c->limits.max_stacks) {
            gcg_limit_error(c->diag, 0, 0, "mask simulation: too many symbolic stacks for one byte",
                            c->limits.max_stacks, "max-sim-stacks");
            fail(c, GCG_ERR_LIMIT);
            return;
        }
        if (w[1] >= MAX_KNOWN) {
            gcg_diag_add(c->diag, GCG_SEV_ERROR, 0, 0,
                         "mask simulation: one token pushes more than %u stack entries (a fixed limit)",
                         MAX_KNOWN);
            fail(c, GCG_ERR_LIMIT);
            return;
        }
        uint32_t top = w[1] ? w[1 + w[1]] : c->lset_data.v[c->lset_start.v[c->ref]];
        uint32_t a = lr_action(t, top, cls);
        bool alive = false;
        switch (GCG_ACT_KIND(a)) {
        case GCG_ACT_SHIFT:
            emit_shift(c, w, GCG_ACT_ARG(a));
            break;
        case GCG_ACT_REDUCE:
            alive = GCG_ACT_ARG(a) != 0 && sim_reduce(c, w, GCG_ACT_ARG(a));
            break;
        case GCG_ACT_MULTI: {
            const uint32_t *m = t->multi + GCG_ACT_ARG(a);
            for (uint32_t i = 1; i <= m[0]; i++)
                sim_fork(c, w, m[i]);
            break;
        }
        default:
            break;
        }
        if (!alive && !work_load(c, w))
            return;
    }
}

/* ---- stack sets and the cached byte step ---------------------------------
 *
 * Walking the trie below an LR state re-simulates the same few symbolic
 * stacks over and over: inside a string body every byte takes the stack
 * [o, k, K...] back to one of a handful of stacks. So stacks and sets of
 * stacks are interned, and the outcome of one byte class on one set (the
 * next set, the reference it moved to, and the read configurations it
 * records) is computed once per (reference set, stack set, class) and then
 * looked up. The walk itself only follows ids; the results are exactly
 * those of simulating every byte. */

/* Interns the stack w = [o, k, K...]; its id, or NONE on failure. */
static uint32_t stack_intern(mask_sim *c, const uint32_t *w)
{
    uint32_t len = w[1] + 2;
    uint64_t h = XXH3_64bits(w, (size_t)len * sizeof *w);
    for (uint64_t probe = h;; probe++) {
        uint32_t *slot = gcg_map64_slot(&c->stack_ids, probe, true);
        if (!slot)
            return fail(c, GCG_ERR_NOMEM), NONE;
        if (*slot == NONE) {
            if (c->stack_start.n >= c->limits.max_stacks) {
                gcg_limit_error(c->diag, 0, 0, "mask simulation: too many symbolic stacks", c->limits.max_stacks,
                                "max-sim-stacks");
                return fail(c, GCG_ERR_LIMIT), NONE;
            }
            *slot = c->stack_start.n;
            if (!gcg_vec_push(&c->stack_start, c->stack_data.n) || !gcg_vec_reserve(&c->stack_data, len))
                return fail(c, GCG_ERR_NOMEM), NONE;
            memcpy(c->stack_data.v + c->stack_data.n, w, (size_t)len * sizeof *w);
            c->stack_data.n += len;
            return *slot;
        }
        const uint32_t *x = c->stack_data.v + c->stack_start.v[*slot];
        if (x[1] == w[1] && memcmp(x, w, (size_t)len * sizeof *w) == 0)
            return *slot;
    }
}

static uint32_t set_intern(mask_sim *c, uint32_t *ids, uint32_t n)
{
    return intern_list(c, &c->sset_ids, &c->sset_start, &c->sset_len, &c->sset_data, ids, n, 0x5e7u);
}

/* Moves the reference of the stacks in the arena from `from` on down by the
 * smallest o among them (see above); the drop goes to *delta. */
static uint32_t lower_reference(mask_sim *c, uint32_t from, uint32_t *delta)
{
    uint32_t lo = UINT32_MAX;
    for (uint32_t s = from; s < c->arena.n; s += c->arena.v[s + 1] + 2)
        lo = c->arena.v[s] < lo ? c->arena.v[s] : lo;
    *delta = 0;
    if (lo == 0 || lo == UINT32_MAX)
        return c->ref;
    uint32_t ref = lset_below(c, c->ref, lo);
    if (ref == NONE)
        return NONE;
    for (uint32_t s = from; s < c->arena.n; s += c->arena.v[s + 1] + 2)
        c->arena.v[s] -= lo;
    *delta = lo;
    return ref;
}

/* Simulates byte class `cls` on every stack of `set` (reference c->ref) and
 * records the step. Returns its index, or NONE on failure. */
static uint32_t step_compute(mask_sim *c, uint32_t set, uint32_t cls)
{
    c->arena.n = 0;
    uint32_t start = c->sset_start.v[set], n = c->sset_len.v[set];
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t *w = c->stack_data.v + c->stack_start.v[c->sset_data.v[start + i]];
        if (!gcg_vec_reserve(&c->arena, w[1] + 2))
            return fail(c, GCG_ERR_NOMEM), NONE;
        memcpy(c->arena.v + c->arena.n, w, ((size_t)w[1] + 2) * sizeof *w);
        c->arena.n += w[1] + 2;
    }
    uint32_t end = c->arena.n;
    c->reads.n = 0;
    for (uint32_t s = 0; s < end && c->st == GCG_OK; s += c->arena.v[s + 1] + 2)
        sim_byte(c, s, cls);
    uint32_t delta = 0, ref = c->st == GCG_OK ? lower_reference(c, end, &delta) : NONE;
    c->ids.n = 0;
    for (uint32_t s = end; s < c->arena.n && c->st == GCG_OK; s += c->arena.v[s + 1] + 2) {
        uint32_t id = stack_intern(c, c->arena.v + s);
        if (id != NONE && !gcg_vec_push(&c->ids, id))
            fail(c, GCG_ERR_NOMEM);
    }
    uint32_t next = c->st == GCG_OK ? set_intern(c, c->ids.v, c->ids.n) : NONE;
    uint32_t idx = c->steps.n / STEP_WORDS;
    uint32_t rec[STEP_WORDS] = {c->ref, set, cls, next, ref, delta, c->step_reads.n, c->reads.n / 2, NONE, NONE};
    for (uint32_t i = 0; i < c->reads.n && c->st == GCG_OK; i++)
        if (!gcg_vec_push(&c->step_reads, c->reads.v[i]))
            fail(c, GCG_ERR_NOMEM);
    for (uint32_t i = 0; i < STEP_WORDS && c->st == GCG_OK; i++)
        if (!gcg_vec_push(&c->steps, rec[i]))
            fail(c, GCG_ERR_NOMEM);
    return c->st == GCG_OK ? idx : NONE;
}

/* Makes room in the direct table for every stack set interned so far. */
static bool direct_reserve(mask_sim *c)
{
    uint64_t need = (uint64_t)c->sset_start.n * c->lr->n_terms;
    if (need <= c->cap_direct)
        return true;
    if (need > UINT32_MAX / 2)
        return false;
    uint32_t cap = c->cap_direct ? c->cap_direct : 4096;
    while (cap < need)
        cap *= 2;
    uint32_t *d = realloc(c->direct, (size_t)cap * sizeof *d);
    if (!d)
        return false;
    memset(d + c->cap_direct, 0xff, (size_t)(cap - c->cap_direct) * sizeof *d);
    c->direct = d, c->cap_direct = cap;
    return true;
}

/* Records a step's reads as configurations at trie node `node`: a read at
 * depth d below the reference is d + offset - 1 entries to skip below the
 * run's top. */
static const uint32_t *step_replay(mask_sim *c, const uint32_t *st, uint32_t node)
{
    for (uint32_t i = 0; i < st[7]; i++) {
        const uint32_t *r = c->step_reads.v + st[6] + 2 * i;
        if (!add_config(c, node, r[0], r[1] + c->offset - 1))
            return NULL;
    }
    return st;
}

/* The hashed store behind step_of: every step computed, by key. */
static const uint32_t *step_lookup(mask_sim *c, uint32_t set, uint32_t cls)
{
    uint32_t key[3] = {c->ref, set, cls};
    uint64_t h = XXH3_64bits(key, sizeof key);
    for (uint64_t probe = h;; probe++) {
        uint32_t *slot = gcg_map64_slot(&c->step_ids, probe, true);
        if (!slot)
            return fail(c, GCG_ERR_NOMEM), NULL;
        if (*slot == NONE) {
            uint32_t idx = step_compute(c, set, cls);
            if (idx == NONE)
                return NULL;
            slot = gcg_map64_slot(&c->step_ids, probe, false);
            *slot = idx;
            return c->steps.v + (size_t)idx * STEP_WORDS;
        }
        const uint32_t *st = c->steps.v + (size_t)*slot * STEP_WORDS;
        if (st[0] == key[0] && st[1] == key[1] && st[2] == key[2])
            return st;
    }
}

/* The step of (c->ref, set, cls), its reads recorded at trie node `node`:
 * from the direct table (valid when its reference matches), else hashed. */
static const uint32_t *step_of(mask_sim *c, uint32_t set, uint32_t cls, uint32_t node)
{
    uint64_t di = (uint64_t)set * c->lr->n_terms + cls;
    const uint32_t *st = NULL;
    if (di < c->cap_direct && c->direct[di] != NONE) {
        st = c->steps.v + (size_t)c->direct[di] * STEP_WORDS;
        if (st[0] != c->ref)
            st = NULL;
    }
    if (!st) {
        st = step_lookup(c, set, cls);
        if (st && direct_reserve(c))
            c->direct[di] = (uint32_t)((st - c->steps.v) / STEP_WORDS);
    }
    return st ? step_replay(c, st, node) : NULL;
}

/* ---- the trie walk, with shared subtrees ----------------------------------
 *
 * Tokens accepted by a run are logged as preorder intervals of trie nodes
 * (the tokens ending in an interval are one run of trie->tokens). A subtree
 * of at least MEMO_MIN nodes entered with the same (reference, stack set) is
 * walked once: its accepted intervals and its configurations (skip relative
 * to the reference's offset) are kept and replayed. */

#define MEMO_MIN 64u

/* Notes that the tokens ending at trie nodes [a, b) are accepted. */
static void accept_range(mask_sim *c, uint32_t a, uint32_t b)
{
    if (c->acc_log.n > c->acc_floor && c->acc_log.v[c->acc_log.n - 1] == a)
        c->acc_log.v[c->acc_log.n - 1] = b;
    else if (!gcg_vec_push(&c->acc_log, a) || !gcg_vec_push(&c->acc_log, b))
        fail(c, GCG_ERR_NOMEM);
}

/* The run's accepted trie-node intervals as intervals of positions in
 * trie->tokens (nodes ending no token dropped, neighbours merged) in c->pos:
 * one canonical form per token set, since positions and ids correspond one
 * to one. */
static void positions_from_log(mask_sim *c)
{
    const token_trie *tr = c->trie;
    vec *log = &c->acc_log;
    bool sorted = true;
    for (uint32_t i = 2; i < log->n && sorted; i += 2)
        sorted = log->v[i] >= log->v[i - 1];
    if (!sorted) /* resumed configurations may revisit a subtree */
        qsort(log->v, log->n / 2, 2 * sizeof *log->v, gcg_cmp_u32);
    c->pos.n = 0;
    for (uint32_t i = 0; i < log->n; i += 2) {
        uint32_t pa = tr->tok_start[log->v[i]], pb = tr->tok_start[log->v[i + 1]];
        if (pa == pb)
            continue;
        uint32_t *last = c->pos.n ? &c->pos.v[c->pos.n - 1] : NULL;
        if (last && *last >= pa) {
            *last = pb > *last ? pb : *last;
        } else if (!gcg_vec_push(&c->pos, pa) || !gcg_vec_push(&c->pos, pb)) {
            fail(c, GCG_ERR_NOMEM);
            return;
        }
    }
}

/* The memo entry for (node, reference, set), or NONE. */
static uint32_t memo_find(mask_sim *c, uint32_t node, uint32_t ref, uint32_t set, uint64_t *key_out)
{
    uint32_t key[3] = {node, ref, set};
    uint64_t h = XXH3_64bits(key, sizeof key) ^ 0x3e30u;
    for (uint64_t probe = h;; probe++) {
        uint32_t *slot = gcg_map64_slot(&c->memo_ids, probe, false);
        if (!slot) {
            *key_out = probe;
            return NONE;
        }
        const uint32_t *m = c->memo.v + (size_t)*slot * MEMO_WORDS;
        if (m[0] == node && m[1] == ref && m[2] == set)
            return *slot;
    }
}

/* Replays memo entry `id` at the current offset. */
static void memo_replay(mask_sim *c, uint32_t id)
{
    const uint32_t *m = c->memo.v + (size_t)id * MEMO_WORDS;
    for (uint32_t i = 0; i < m[4]; i += 2)
        accept_range(c, c->memo_data.v[m[3] + i], c->memo_data.v[m[3] + i + 1]);
    for (uint32_t i = 0; i < m[6] && c->st == GCG_OK; i += 3) {
        const uint32_t *cf = c->memo_data.v + m[5] + i;
        add_config(c, cf[0], cf[1], cf[2] + c->offset - 1);
    }
}

/* Keeps what the walk below frame f logged as a memo entry. */
static void memo_store(mask_sim *c, const frame *f)
{
    uint32_t id = c->memo.n / MEMO_WORDS, acc_n = c->acc_log.n - f->acc_mark, cfg_n = c->cfgs.n - f->cfg_mark;
    uint32_t rec[MEMO_WORDS] = {f->node, f->ref, f->set, c->memo_data.n, acc_n, c->memo_data.n + acc_n, cfg_n};
    if (!gcg_vec_reserve(&c->memo_data, acc_n + cfg_n))
        return (void)fail(c, GCG_ERR_NOMEM);
    if (acc_n)
        memcpy(c->memo_data.v + c->memo_data.n, c->acc_log.v + f->acc_mark, (size_t)acc_n * sizeof(uint32_t));
    c->memo_data.n += acc_n;
    for (uint32_t i = f->cfg_mark; i < c->cfgs.n; i += 3) {
        c->memo_data.v[c->memo_data.n++] = c->cfgs.v[i];
        c->memo_data.v[c->memo_data.n++] = c->cfgs.v[i + 1];
        c->memo_data.v[c->memo_data.n++] = c->cfgs.v[i + 2] + 1 - f->offset;
    }
    for (uint32_t i = 0; i < MEMO_WORDS && c->st == GCG_OK; i++)
        if (!gcg_vec_push(&c->memo, rec[i]))
            fail(c, GCG_ERR_NOMEM);
    uint32_t *slot = c->st == GCG_OK ? gcg_map64_slot(&c->memo_ids, f->memo_key, true) : NULL;
    if (slot)
        *slot = id;
    else
        fail(c, GCG_ERR_NOMEM);
}

/* ---- the lowest equivalent frame ------------------------------------------
 *
 * Stacks [0, k, K, K2...] that all start with the same known state K, over
 * a reference equal to the states that can lie below K, say no more than
 * [0, k-1, K2...] over the reference {K}: the real stack under K is the same
 * unknown either way. Memo entries are kept under the lowest such form, so
 * a walk that has pushed K meets the walk from K's own root (after "\"" the
 * string body is walked once, not once from the quote and once from the
 * body's loop state). */

#define CANON_WORDS 5

/* The lowest form of (set, ref) one level down, or false when there is none. */
static bool lower_once(mask_sim *c, uint32_t *set, uint32_t *ref)
{
    uint32_t start = c->sset_start.v[*set], n = c->sset_len.v[*set], k1 = NONE;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t *w = c->stack_data.v + c->stack_start.v[c->sset_data.v[start + i]];
        if (w[0] != 0 || w[1] == 0 || (k1 != NONE && w[2] != k1))
            return false;
        k1 = w[2];
    }
    uint32_t one = lset_intern(c, &k1, 1);
    if (one == NONE || lset_below(c, one, 1) != *ref)
        return false;
    c->ids.n = 0;
    for (uint32_t i = 0; i < n && c->st == GCG_OK; i++) {
        const uint32_t *w = c->stack_data.v + c->stack_start.v[c->sset_data.v[start + i]];
        if (!gcg_vec_reserve(&c->arena, w[1] + 1))
            return fail(c, GCG_ERR_NOMEM);
        c->arena.n = 0;
        c->arena.v[c->arena.n++] = 0;
        c->arena.v[c->arena.n++] = w[1] - 1;
        for (uint32_t j = 3; j < w[1] + 2; j++)
            c->arena.v[c->arena.n++] = w[j];
        uint32_t id = stack_intern(c, c->arena.v);
        if (id == NONE || !gcg_vec_push(&c->ids, id))
            return fail(c, GCG_ERR_NOMEM);
    }
    uint32_t lowered = c->st == GCG_OK ? set_intern(c, c->ids.v, c->ids.n) : NONE;
    if (lowered == NONE)
        return false;
    *set = lowered, *ref = one;
    return true;
}

/* Frame f in its lowest equivalent form (cached per (set, reference)). */
static void lower_frame(mask_sim *c, frame *f)
{
    uint64_t key = ((uint64_t)f->set << 32) | f->ref;
    uint32_t *slot = gcg_map64_slot(&c->canon_ids, key, true);
    if (!slot)
        return (void)fail(c, GCG_ERR_NOMEM);
    if (*slot == NONE) {
        uint32_t set = f->set, ref = f->ref, drop = 0;
        while (c->st == GCG_OK && lower_once(c, &set, &ref))
            drop++;
        uint32_t rec[CANON_WORDS] = {f->set, f->ref, set, ref, drop};
        for (uint32_t i = 0; i < CANON_WORDS && c->st == GCG_OK; i++)
            if (!gcg_vec_push(&c->canon, rec[i]))
                fail(c, GCG_ERR_NOMEM);
        if (c->st != GCG_OK)
            return;
        slot = gcg_map64_slot(&c->canon_ids, key, false);
        *slot = c->canon.n / CANON_WORDS - 1;
    }
    const uint32_t *r = c->canon.v + (size_t)*slot * CANON_WORDS;
    f->set = r[2], f->ref = r[3], f->offset -= r[4];
}

/* ---- subtrees that keep the stacks ----------------------------------------
 *
 * Inside a string body an ordinary byte takes the stacks back to where they
 * were: the step of (reference, set) on its class is (set, reference) again,
 * in lowest form, and reads nothing. Such a form is a loop, and its loop
 * bytes are the bytes that keep it. A step into a loop whose loop bytes
 * hold every byte below the trie node entered accepts every token below it
 * with nothing read, so the subtree is taken whole instead of walked (from a
 * JSON string body, about three quarters of the Llama 3 trie). A form's
 * loop bytes are found when a step first shows it to be a loop, then kept:
 * so only a few forms pay for stepping every byte class. */

/* (set, ref) in its lowest equivalent form (lower_frame). */
static void lowest(mask_sim *c, uint32_t *set, uint32_t *ref)
{
    frame f = {.set = *set, .ref = *ref};
    lower_frame(c, &f);
    *set = f.set, *ref = f.ref;
}

/* The bytes whose step takes the lowest form (set, ref) back to itself with
 * nothing read, 256 bits (cached). */
static const uint64_t *loop_bytes(mask_sim *c, uint32_t set, uint32_t ref)
{
    uint64_t key = ((uint64_t)set << 32) | ref;
    uint32_t *slot = gcg_map64_slot(&c->loop_ids, key, true);
    if (!slot)
        return fail(c, GCG_ERR_NOMEM), NULL;
    if (*slot != NONE)
        return c->loops + 4 * (size_t)*slot;
    if (c->n_loops == c->cap_loops) {
        uint32_t cap = c->cap_loops ? 2 * c->cap_loops : 64;
        uint64_t *l = realloc(c->loops, (size_t)cap * 4 * sizeof *l);
        if (!l)
            return fail(c, GCG_ERR_NOMEM), NULL;
        c->loops = l, c->cap_loops = cap;
    }
    uint64_t bytes[4] = {0};
    uint8_t known[256] = {0}, keeps[256] = {0};
    uint32_t saved = c->ref;
    for (uint32_t b = 0; b < 256 && c->st == GCG_OK; b++) {
        uint32_t cls = c->class_of[b];
        if (!known[cls]) {
            c->ref = ref;
            const uint32_t *st = step_lookup(c, set, cls);
            uint32_t next = st ? st[3] : NONE, to = st ? st[4] : NONE, reads = st ? st[7] : 1;
            if (next != NONE && !reads)
                lowest(c, &next, &to);
            keeps[cls] = next == set && to == ref && !reads;
            known[cls] = 1;
        }
        if (keeps[cls])
            bytes[b >> 6] |= 1ull << (b & 63);
    }
    c->ref = saved;
    if (c->st != GCG_OK)
        return NULL;
    memcpy(c->loops + 4 * (size_t)c->n_loops, bytes, sizeof bytes);
    slot = gcg_map64_slot(&c->loop_ids, key, false);
    *slot = c->n_loops++;
    return c->loops + 4 * (size_t)*slot;
}

/* The lowest form of step st's outcome, kept in the step (words 8, 9). */
static void step_lowest(mask_sim *c, const uint32_t *st, uint32_t *set, uint32_t *ref)
{
    size_t at = (size_t)(st - c->steps.v);
    if (c->steps.v[at + 8] == NONE) {
        uint32_t x = st[3], y = st[4];
        lowest(c, &x, &y);
        c->steps.v[at + 8] = x, c->steps.v[at + 9] = y;
    }
    *set = c->steps.v[at + 8], *ref = c->steps.v[at + 9];
}

/* The loop bytes of the lowest form (set, ref): computed when a step has
 * just shown it to be a loop (`fixed`), else only looked up. */
static const uint64_t *loop_of(mask_sim *c, uint32_t set, uint32_t ref, bool fixed)
{
    if (fixed)
        return loop_bytes(c, set, ref);
    uint32_t *slot = gcg_map64_slot(&c->loop_ids, ((uint64_t)set << 32) | ref, false);
    return slot ? c->loops + 4 * (size_t)*slot : NULL;
}

/* Enters trie node `child` from frame `from`'s stacks: on success the new
 * frame is filled in and true returned; false when every stack dies (or the
 * subtree was replayed from the memo, so there is nothing to walk). */
static bool enter_child(mask_sim *c, const frame *from, uint32_t child, frame *to)
{
    c->visits++;
    c->ref = from->ref, c->offset = from->offset;
    const uint32_t *st = step_of(c, from->set, c->class_of[c->trie->byte[child]], child);
    if (!st || st[3] == NONE)
        return false;
    uint32_t next = st[3], ref = st[4], drop = st[5], reads = st[7], low_set = NONE, low_ref = NONE;
    if (c->take_loops && c->trie->end[child] != child + 1) {
        step_lowest(c, st, &low_set, &low_ref);
        bool fixed = low_set == from->low_set && low_ref == from->low_ref;
        const uint64_t *keep = reads ? NULL : loop_of(c, low_set, low_ref, fixed);
        if (keep && gcg_trie_below_within(c->trie, child, keep)) {
            accept_range(c, child, c->trie->end[child]);
            return false;
        }
    }
    accept_range(c, child, child + 1);
    if (c->trie->end[child] == child + 1)
        return false; /* a leaf: nothing below */
    *to = (frame){child, child + 1, next, ref, from->offset + drop, 0, 0, NONE, UINT64_MAX, low_set, low_ref};
    if (c->trie->end[child] - child < MEMO_MIN)
        return true;
    lower_frame(c, to);
    c->ref = to->ref, c->offset = to->offset;
    uint32_t id = memo_find(c, child, to->ref, to->set, &to->memo_key);
    if (id != NONE) {
        memo_replay(c, id);
        return false;
    }
    if (c->trie->depth[child] < c->shallow)
        return true; /* some subtrees below are skipped: not a whole walk */
    /* The walk below is recorded from here: no interval logged before may
     * grow into it. */
    to->acc_mark = c->acc_floor = c->acc_log.n, to->cfg_mark = c->cfgs.n, to->memo = 1;
    return true;
}

/* Depth-first walk below the frame `top`'s trie node. */
static void walk(mask_sim *c, frame top)
{
    const token_trie *tr = c->trie;
    uint32_t depth = 0;
    c->frames[0] = top;
    while (c->st == GCG_OK) {
        frame *f = &c->frames[depth];
        if (f->child >= tr->end[f->node]) {
            if (f->memo == 1)
                memo_store(c, f);
            if (depth-- == 0)
                return;
            continue;
        }
        uint32_t ch = f->child;
        f->child = tr->end[ch];
        if (c->shallow && tr->height[ch] <= c->shallow)
            continue;
        if (enter_child(c, f, ch, &c->frames[depth + 1]))
            depth++;
    }
}

/* A frame at trie node `node` holding the single stack w over the
 * reference {state}; false on failure. */
static bool single_frame(mask_sim *c, uint32_t node, uint32_t state, const uint32_t *w, frame *f)
{
    uint32_t s = state, ref = lset_intern(c, &s, 1), id = stack_intern(c, w);
    uint32_t set = id == NONE ? NONE : set_intern(c, &id, 1);
    *f = (frame){node, node + 1, set, ref, 0, 0, 0, NONE, UINT64_MAX, set, ref};
    if (c->take_loops && set != NONE && ref != NONE)
        lowest(c, &f->low_set, &f->low_ref);
    return set != NONE && ref != NONE;
}

/* ---- runs ----------------------------------------------------------------- */

gcg_status gcg_mask_sim_init(mask_sim *s, const lr_tables *lr, const token_trie *trie, const uint8_t *class_of,
                             const gcg_limits *limits, gcg_diag *diag)
{
    memset(s, 0, sizeof *s);
    s->lr = lr, s->trie = trie, s->class_of = class_of, s->diag = diag;
    s->limits = gcg_limits_or_default(limits);
    s->cap_frames = trie->max_depth + 2;
    s->frames = malloc((size_t)s->cap_frames * sizeof *s->frames);
    s->st = s->frames ? build_pred(s) : GCG_ERR_NOMEM;
    return s->st;
}

void gcg_mask_sim_free(mask_sim *c)
{
    free(c->pred_first), free(c->pred), free(c->stamp), free(c->frames), free(c->direct), free(c->loops);
    vec *vs[] = {&c->layer, &c->next_layer, &c->arena, &c->work, &c->cfgs, &c->stack_start, &c->stack_data,
                 &c->sset_start, &c->sset_len, &c->sset_data, &c->steps, &c->step_reads, &c->ids,
                 &c->lset_start, &c->lset_len, &c->lset_data, &c->reads, &c->acc_log, &c->memo,
                 &c->memo_data, &c->pos, &c->canon};
    for (size_t i = 0; i < sizeof vs / sizeof *vs; i++)
        gcg_vec_free(vs[i]);
    map64 *ms[] = {&c->consensus, &c->stack_ids, &c->sset_ids, &c->step_ids, &c->lset_ids, &c->lset_down,
                   &c->memo_ids, &c->canon_ids, &c->loop_ids};
    for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
        gcg_map64_free(ms[i]);
}

void gcg_mask_sim_begin(mask_sim *c)
{
    c->cfgs.n = 0;
    c->acc_log.n = c->acc_floor = 0;
}

/* The walk from state s starts from the known stack [s] over the states
 * that can lie below it, offset 1: the same information as s alone, but a
 * walk that reduces s away lowers its reference to where other walks
 * arrive (a state whose first byte reduces to t meets t's own walk in the
 * memo). The start state has nothing below and is its own reference. */
void gcg_mask_sim_root(mask_sim *c, uint32_t state)
{
    static const uint32_t empty[2] = {0, 0};
    uint32_t n = c->pred_first[state + 1] - c->pred_first[state], w[3] = {0, 1, state};
    frame f;
    if (n == 0) {
        if (single_frame(c, 0, state, empty, &f))
            walk(c, f);
        return;
    }
    if (!gcg_vec_reserve(&c->layer, n))
        return (void)fail(c, GCG_ERR_NOMEM);
    memcpy(c->layer.v, c->pred + c->pred_first[state], (size_t)n * sizeof *c->pred);
    uint32_t ref = lset_intern(c, c->layer.v, n), id = stack_intern(c, w);
    uint32_t set = id == NONE ? NONE : set_intern(c, &id, 1);
    if (ref == NONE || set == NONE)
        return;
    f = (frame){0, 1, set, ref, 1, 0, 0, NONE, UINT64_MAX, set, ref};
    if (c->take_loops)
        lowest(c, &f.low_set, &f.low_ref);
    walk(c, f);
}

void gcg_mask_sim_set_shallow(mask_sim *c, uint32_t shallow)
{
    c->shallow = shallow;
}

void gcg_mask_sim_resume(mask_sim *c, uint32_t node, uint32_t q, uint32_t to)
{
    uint32_t w[3] = {0, 1, to};
    frame parent;
    if (single_frame(c, node, q, w, &parent) && enter_child(c, &parent, node, &c->frames[0]))
        walk(c, c->frames[0]);
}

bool gcg_mask_sim_add_config(mask_sim *c, uint32_t node, uint32_t lhs, uint32_t skip)
{
    return add_config(c, node, lhs, skip);
}

const uint32_t *gcg_mask_sim_positions(mask_sim *c, uint32_t *n)
{
    positions_from_log(c);
    *n = c->pos.n;
    return c->pos.v;
}
