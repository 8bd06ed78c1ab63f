/* automaton.c — symbolic simulation over the token trie, determinization of
 * read configurations, hash-consing, and the latency certificate (see
 * automaton.h for the construction). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../runtime/artifact_format.h"
#include "automaton.h"
#include "certificate.h"

#define NONE UINT32_MAX
#define DEAD (UINT32_MAX - 1)   /* consensus: no state below can take the goto */
#define READ (UINT32_MAX - 2)   /* consensus: the outcome depends on the stack */
#define MAX_SIM_WORK 50000000u  /* symbolic-stack steps per trie edge (a guard) */
#define MAX_DEPTH 0xFFFFu       /* stack depth a reduction may expose          */
#define MAX_D_STATES 2000000u

/* Growable uint32 vector. */
typedef struct vec { uint32_t *v; uint32_t n, cap; } vec;

static bool vpush(vec *a, uint32_t x)
{
    if (a->n == a->cap) {
        uint32_t c = a->cap ? a->cap * 2 : 256;
        uint32_t *q = realloc(a->v, (size_t)c * sizeof *q);
        if (!q)
            return false;
        a->v = q, a->cap = c;
    }
    a->v[a->n++] = x;
    return true;
}

static bool vreserve(vec *a, uint32_t extra)
{
    if (a->n + extra <= a->cap)
        return true;
    uint32_t c = a->cap ? a->cap : 256;
    while (c < a->n + extra)
        c *= 2;
    uint32_t *q = realloc(a->v, (size_t)c * sizeof *q);
    if (!q)
        return false;
    a->v = q, a->cap = c;
    return true;
}

/* Open-addressing map from 64-bit keys to uint32 values. */
typedef struct map64 { uint64_t *k; uint32_t *v; uint32_t n, cap; } map64;

/* A 64-bit finalizer (from MurmurHash3): keys here are small structured
 * integers or hashes already, so a full hash of 8 bytes is wasted work. */
static uint32_t mix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return (uint32_t)k;
}

static uint32_t *map_slot(map64 *m, uint64_t key, bool insert)
{
    if (insert && 2 * (m->n + 1) > m->cap) {
        uint32_t cap = m->cap ? m->cap * 2 : 1024;
        uint64_t *k = malloc((size_t)cap * sizeof *k);
        uint32_t *v = malloc((size_t)cap * sizeof *v);
        if (!k || !v) {
            free(k), free(v);
            return NULL;
        }
        memset(k, 0xff, (size_t)cap * sizeof *k);
        for (uint32_t i = 0; i < m->cap; i++) {
            if (m->k[i] == UINT64_MAX)
                continue;
            uint32_t h = mix64(m->k[i]) & (cap - 1);
            while (k[h] != UINT64_MAX)
                h = (h + 1) & (cap - 1);
            k[h] = m->k[i], v[h] = m->v[i];
        }
        free(m->k), free(m->v);
        m->k = k, m->v = v, m->cap = cap;
    }
    if (!m->cap)
        return NULL;
    uint32_t h = mix64(key) & (m->cap - 1);
    while (m->k[h] != UINT64_MAX && m->k[h] != key)
        h = (h + 1) & (m->cap - 1);
    if (m->k[h] == key)
        return &m->v[h];
    if (!insert)
        return NULL;
    m->k[h] = key, m->v[h] = NONE;
    m->n++;
    return &m->v[h];
}

/* A trie node being walked: its stacks (set) over a reference set lying
 * `offset` entries below the run's top; memo = 1 when the walk below it is
 * recorded (from the log marks on) under memo_key. */
typedef struct frame {
    uint32_t node, child, set, ref, offset;
    uint32_t acc_mark, cfg_mark, memo;
    uint64_t memo_key;
} frame;

/* A step: reference, stack set, class -> next set, next reference, the drop
 * of the reference, first read in step_reads, number of reads. */
#define STEP_WORDS 8
/* A memo entry: node, reference, set, intervals (first, count), configs
 * (first, count) in memo_data. */
#define MEMO_WORDS 7

typedef struct ctx {
    const cfg *g;
    const lr_tables *lr;
    const gcg_vocab *v;
    const token_trie *trie;
    gcg_diag *diag;
    mask_automaton *out;
    uint32_t *pred_first, *pred;     /* CSR: states with a transition into t    */
    map64 consensus;                 /* (ref, depth, lhs) -> goto / DEAD / READ */
    vec lset_start, lset_len, lset_data; /* interned reference sets of LR states */
    map64 lset_ids, lset_down;       /* ... and (ref, depth) -> the set below   */
    vec reads;                       /* (lhs, depth) reads of the step computed */
    vec acc_log;                     /* accepted trie-node intervals of the run */
    uint32_t acc_floor;              /* intervals below this index are closed   */
    vec memo, memo_data;             /* shared subtree walks                    */
    map64 memo_ids;
    uint32_t *stamp, gen;
    vec layer, next_layer;
    vec arena;                       /* scratch stacks of one step: [o, k, K...] */
    vec stack_start, stack_data;     /* interned stacks                         */
    vec sset_start, sset_len, sset_data; /* interned sets of stack ids          */
    vec steps;                       /* cached steps, STEP_WORDS each           */
    vec step_reads;                  /* (lhs, depth) pairs of the steps' reads  */
    vec ids;                         /* scratch stack ids                       */
    map64 stack_ids, sset_ids, step_ids;
    uint32_t *direct;                /* [set * n_terms + class]: a cached step, valid
                                        when the step's reference set is c->ref */
    uint32_t cap_direct;
    vec work;                        /* pending stacks: [o, k, K..., k + 2]     */
    frame *frames;
    uint32_t cap_frames;
    uint32_t ref, offset;            /* reference set of the step in hand, and
                                        its depth below the run's top          */
    uint32_t *acc;                   /* tokens accepted by the current run      */
    vec cfgs;                        /* configurations: (trie node, lhs, skip)  */
    map64 set_ids;                   /* token-set hash -> first id (chained)    */
    vec d_start, d_len, d_data;      /* automaton states: sorted config triples */
    map64 d_ids;
    vec tq, tacc, tnext, tfrom;      /* transitions as found                    */
    gcg_status st;
} ctx;

static bool fail(ctx *c, gcg_status st)
{
    if (c->st == GCG_OK)
        c->st = st;
    return false;
}

/* ---- predecessors and path consensus ----------------------------------- */

static gcg_status build_pred(ctx *c)
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
                    (!vpush(&edges, GCG_ACT_ARG(list[i])) || !vpush(&edges, s)))
                    return GCG_ERR_NOMEM;
        }
        for (uint32_t a = 0; a < t->n_nts; a++) {
            uint32_t to = lr_goto(t, s, a);
            if (to != GCG_NO_GOTO && (!vpush(&edges, to) || !vpush(&edges, s)))
                return GCG_ERR_NOMEM;
        }
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
    return GCG_OK;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* Interns the list ids[0..n), sorted and deduplicated here, in the table
 * (map, start, len, data); NONE for an empty list or on failure. */
static uint32_t intern_list(ctx *c, map64 *map, vec *start, vec *lens, vec *data, uint32_t *ids, uint32_t n,
                            uint64_t salt)
{
    if (n == 0)
        return NONE;
    qsort(ids, n, sizeof *ids, cmp_u32);
    uint32_t m = 1;
    for (uint32_t i = 1; i < n; i++)
        if (ids[i] != ids[m - 1])
            ids[m++] = ids[i];
    uint64_t h = XXH3_64bits(ids, (size_t)m * sizeof *ids) ^ salt;
    for (uint64_t probe = h;; probe++) {
        uint32_t *slot = map_slot(map, probe, true);
        if (!slot)
            return fail(c, GCG_ERR_NOMEM), NONE;
        if (*slot == NONE) {
            *slot = start->n;
            if (!vpush(start, data->n) || !vpush(lens, m) || !vreserve(data, m))
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
static uint32_t lset_intern(ctx *c, uint32_t *ids, uint32_t n)
{
    return intern_list(c, &c->lset_ids, &c->lset_start, &c->lset_len, &c->lset_data, ids, n, 0x1a7e5u);
}

/* The layer of states that can lie `depth` entries below the states of
 * reference set `ref`, in c->layer. */
static bool layer_below(ctx *c, uint32_t ref, uint32_t depth)
{
    c->layer.n = 0;
    uint32_t start = c->lset_start.v[ref], n = c->lset_len.v[ref];
    for (uint32_t i = 0; i < n; i++)
        if (!vpush(&c->layer, c->lset_data.v[c->lset_start.v[ref] + i]))
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
                    if (!vpush(&c->next_layer, c->pred[k]))
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
static uint32_t consensus_of(ctx *c, uint32_t ref, uint32_t depth, uint32_t lhs)
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

static uint32_t consensus(ctx *c, uint32_t ref, uint32_t depth, uint32_t lhs)
{
    if (ref >= (1u << 24) || lhs >= (1u << 24)) {
        gcg_diag_add(c->diag, GCG_SEV_ERROR, 0, 0, "mask simulation: more than %u stack layers or nonterminals",
                     1u << 24);
        return fail(c, GCG_ERR_LIMIT), DEAD;
    }
    uint64_t key = ((uint64_t)ref << 40) | ((uint64_t)lhs << 16) | depth;
    uint32_t *slot = map_slot(&c->consensus, key, true);
    if (!slot)
        return fail(c, GCG_ERR_NOMEM), DEAD;
    if (*slot == NONE) {
        uint32_t r = consensus_of(c, ref, depth, lhs);
        slot = map_slot(&c->consensus, key, false);
        *slot = r;
    }
    return *slot;
}

/* The reference set `depth` layers below `ref` (cached). */
static uint32_t lset_below(ctx *c, uint32_t ref, uint32_t depth)
{
    uint64_t key = ((uint64_t)ref << 32) | depth;
    uint32_t *slot = map_slot(&c->lset_down, key, true);
    if (!slot)
        return fail(c, GCG_ERR_NOMEM), NONE;
    if (*slot == NONE) {
        uint32_t r = layer_below(c, ref, depth) ? lset_intern(c, c->layer.v, c->layer.n) : NONE;
        slot = map_slot(&c->lset_down, key, false);
        *slot = r;
    }
    return *slot;
}

/* ---- symbolic simulation of one byte ------------------------------------ */

static bool add_config(ctx *c, uint32_t node, uint32_t lhs, uint32_t skip)
{
    return (vpush(&c->cfgs, node) && vpush(&c->cfgs, lhs) && vpush(&c->cfgs, skip)) ||
           fail(c, GCG_ERR_NOMEM);
}

#define MAX_KNOWN 512 /* symbolic stack entries inside one token (a guard) */

/* Reduction by p applied in place to the stack w = [o, k, K...]. Returns
 * false when the stack ends here: the goto is dead, or the outcome depends on
 * the real stack (the read is noted in c->reads as (lhs, depth below the
 * reference), for the step being computed). */
static bool sim_reduce(ctx *c, uint32_t *w, uint32_t p)
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
        if (!vpush(&c->reads, lhs) || !vpush(&c->reads, (uint32_t)depth))
            fail(c, GCG_ERR_NOMEM);
        return false;
    }
    if (to == DEAD)
        return false;
    w[0] = (uint32_t)depth, w[1] = 1, w[2] = to;
    return true;
}

static bool emit_shift(ctx *c, const uint32_t *w, uint32_t to)
{
    uint32_t k = w[1];
    if (!vreserve(&c->arena, k + 3))
        return fail(c, GCG_ERR_NOMEM);
    uint32_t *dst = c->arena.v + c->arena.n;
    memcpy(dst, w, ((size_t)k + 2) * sizeof *dst);
    dst[1] = k + 1, dst[2 + k] = to;
    c->arena.n += k + 3;
    return true;
}

static bool work_save(ctx *c, const uint32_t *w)
{
    uint32_t len = w[1] + 2;
    if (!vreserve(&c->work, len + 1))
        return fail(c, GCG_ERR_NOMEM);
    memcpy(c->work.v + c->work.n, w, (size_t)len * sizeof *w);
    c->work.v[c->work.n + len] = len;
    c->work.n += len + 1;
    return true;
}

static bool work_load(ctx *c, uint32_t *w)
{
    if (c->work.n == 0)
        return false;
    uint32_t len = c->work.v[c->work.n - 1];
    c->work.n -= len + 1;
    memcpy(w, c->work.v + c->work.n, (size_t)len * sizeof *w);
    return true;
}

/* One action of a conflict list, on a copy of w (forks go to the work list). */
static void sim_fork(ctx *c, const uint32_t *w, uint32_t a)
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
static void sim_byte(ctx *c, uint32_t sim, uint32_t cls)
{
    const lr_tables *t = c->lr;
    uint32_t w[2 + MAX_KNOWN + 1];
    uint32_t len = c->arena.v[sim + 1] + 2;
    memcpy(w, c->arena.v + sim, (size_t)len * sizeof *w);
    c->work.n = 0;
    for (uint32_t steps = 0; c->st == GCG_OK; steps++) {
        if (steps > MAX_SIM_WORK || w[1] >= MAX_KNOWN) {
            gcg_diag_add(c->diag, GCG_SEV_ERROR, 0, 0,
                         "mask simulation exceeded its limits (%u steps, %u stack entries in one token)",
                         MAX_SIM_WORK, MAX_KNOWN);
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
static uint32_t stack_intern(ctx *c, const uint32_t *w)
{
    uint32_t len = w[1] + 2;
    uint64_t h = XXH3_64bits(w, (size_t)len * sizeof *w);
    for (uint64_t probe = h;; probe++) {
        uint32_t *slot = map_slot(&c->stack_ids, probe, true);
        if (!slot)
            return fail(c, GCG_ERR_NOMEM), NONE;
        if (*slot == NONE) {
            *slot = c->stack_start.n;
            if (!vpush(&c->stack_start, c->stack_data.n) || !vreserve(&c->stack_data, len))
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

static uint32_t set_intern(ctx *c, uint32_t *ids, uint32_t n)
{
    return intern_list(c, &c->sset_ids, &c->sset_start, &c->sset_len, &c->sset_data, ids, n, 0x5e7u);
}

/* Moves the reference of the stacks in the arena from `from` on down by the
 * smallest o among them (see above); the drop goes to *delta. */
static uint32_t lower_reference(ctx *c, uint32_t from, uint32_t *delta)
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
static uint32_t step_compute(ctx *c, uint32_t set, uint32_t cls)
{
    c->arena.n = 0;
    uint32_t start = c->sset_start.v[set], n = c->sset_len.v[set];
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t *w = c->stack_data.v + c->stack_start.v[c->sset_data.v[start + i]];
        if (!vreserve(&c->arena, w[1] + 2))
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
        if (id != NONE && !vpush(&c->ids, id))
            fail(c, GCG_ERR_NOMEM);
    }
    uint32_t next = c->st == GCG_OK ? set_intern(c, c->ids.v, c->ids.n) : NONE;
    uint32_t idx = c->steps.n / STEP_WORDS;
    uint32_t rec[STEP_WORDS] = {c->ref, set, cls, next, ref, delta, c->step_reads.n, c->reads.n / 2};
    for (uint32_t i = 0; i < c->reads.n && c->st == GCG_OK; i++)
        if (!vpush(&c->step_reads, c->reads.v[i]))
            fail(c, GCG_ERR_NOMEM);
    for (uint32_t i = 0; i < STEP_WORDS && c->st == GCG_OK; i++)
        if (!vpush(&c->steps, rec[i]))
            fail(c, GCG_ERR_NOMEM);
    return c->st == GCG_OK ? idx : NONE;
}

/* Makes room in the direct table for every stack set interned so far. */
static bool direct_reserve(ctx *c)
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
static const uint32_t *step_replay(ctx *c, const uint32_t *st, uint32_t node)
{
    for (uint32_t i = 0; i < st[7]; i++) {
        const uint32_t *r = c->step_reads.v + st[6] + 2 * i;
        if (!add_config(c, node, r[0], r[1] + c->offset - 1))
            return NULL;
    }
    return st;
}

/* The hashed store behind step_of: every step computed, by key. */
static const uint32_t *step_lookup(ctx *c, uint32_t set, uint32_t cls)
{
    uint32_t key[3] = {c->ref, set, cls};
    uint64_t h = XXH3_64bits(key, sizeof key);
    for (uint64_t probe = h;; probe++) {
        uint32_t *slot = map_slot(&c->step_ids, probe, true);
        if (!slot)
            return fail(c, GCG_ERR_NOMEM), NULL;
        if (*slot == NONE) {
            uint32_t idx = step_compute(c, set, cls);
            if (idx == NONE)
                return NULL;
            slot = map_slot(&c->step_ids, probe, false);
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
static const uint32_t *step_of(ctx *c, uint32_t set, uint32_t cls, uint32_t node)
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
static void accept_range(ctx *c, uint32_t a, uint32_t b)
{
    if (c->acc_log.n > c->acc_floor && c->acc_log.v[c->acc_log.n - 1] == a)
        c->acc_log.v[c->acc_log.n - 1] = b;
    else if (!vpush(&c->acc_log, a) || !vpush(&c->acc_log, b))
        fail(c, GCG_ERR_NOMEM);
}

/* The run's accepted intervals as the token bitmap c->acc. */
static void acc_from_log(ctx *c)
{
    const token_trie *tr = c->trie;
    memset(c->acc, 0, (size_t)c->out->words * 4);
    for (uint32_t i = 0; i < c->acc_log.n; i += 2)
        for (uint32_t k = tr->tok_start[c->acc_log.v[i]]; k < tr->tok_start[c->acc_log.v[i + 1]]; k++)
            c->acc[tr->tokens[k] >> 5] |= 1u << (tr->tokens[k] & 31);
}

/* The memo entry for (node, reference, set), or NONE. */
static uint32_t memo_find(ctx *c, uint32_t node, uint32_t ref, uint32_t set, uint64_t *key_out)
{
    uint32_t key[3] = {node, ref, set};
    uint64_t h = XXH3_64bits(key, sizeof key) ^ 0x3e30u;
    for (uint64_t probe = h;; probe++) {
        uint32_t *slot = map_slot(&c->memo_ids, probe, false);
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
static void memo_replay(ctx *c, uint32_t id)
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
static void memo_store(ctx *c, const frame *f)
{
    uint32_t id = c->memo.n / MEMO_WORDS, acc_n = c->acc_log.n - f->acc_mark, cfg_n = c->cfgs.n - f->cfg_mark;
    uint32_t rec[MEMO_WORDS] = {f->node, f->ref, f->set, c->memo_data.n, acc_n, c->memo_data.n + acc_n, cfg_n};
    if (!vreserve(&c->memo_data, acc_n + cfg_n))
        return (void)fail(c, GCG_ERR_NOMEM);
    memcpy(c->memo_data.v + c->memo_data.n, c->acc_log.v + f->acc_mark, (size_t)acc_n * sizeof(uint32_t));
    c->memo_data.n += acc_n;
    for (uint32_t i = f->cfg_mark; i < c->cfgs.n; i += 3) {
        c->memo_data.v[c->memo_data.n++] = c->cfgs.v[i];
        c->memo_data.v[c->memo_data.n++] = c->cfgs.v[i + 1];
        c->memo_data.v[c->memo_data.n++] = c->cfgs.v[i + 2] + 1 - f->offset;
    }
    for (uint32_t i = 0; i < MEMO_WORDS && c->st == GCG_OK; i++)
        if (!vpush(&c->memo, rec[i]))
            fail(c, GCG_ERR_NOMEM);
    uint32_t *slot = c->st == GCG_OK ? map_slot(&c->memo_ids, f->memo_key, true) : NULL;
    if (slot)
        *slot = id;
    else
        fail(c, GCG_ERR_NOMEM);
}

/* Enters trie node `child` from frame `from`'s stacks: on success the new
 * frame is filled in and true returned; false when every stack dies (or the
 * subtree was replayed from the memo, so there is nothing to walk). */
static bool enter_child(ctx *c, const frame *from, uint32_t child, frame *to)
{
    c->out->sim_steps++;
    c->ref = from->ref, c->offset = from->offset;
    const uint32_t *st = step_of(c, from->set, c->trie->byte[child], child);
    if (!st || st[3] == NONE)
        return false;
    accept_range(c, child, child + 1);
    *to = (frame){child, child + 1, st[3], st[4], from->offset + st[5], 0, 0, NONE, UINT64_MAX};
    if (c->trie->end[child] - child < MEMO_MIN)
        return true;
    c->ref = to->ref, c->offset = to->offset;
    uint32_t id = memo_find(c, child, to->ref, to->set, &to->memo_key);
    if (id != NONE) {
        memo_replay(c, id);
        return false;
    }
    /* The walk below is recorded from here: no interval logged before may
     * grow into it. */
    to->acc_mark = c->acc_floor = c->acc_log.n, to->cfg_mark = c->cfgs.n, to->memo = 1;
    return true;
}

/* Depth-first walk below the frame `top`'s trie node. */
static void walk(ctx *c, frame top)
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
        if (enter_child(c, f, ch, &c->frames[depth + 1]))
            depth++;
    }
}

/* A frame at trie node `node` holding the single stack w over the
 * reference {state}; false on failure. */
static bool single_frame(ctx *c, uint32_t node, uint32_t state, const uint32_t *w, frame *f)
{
    uint32_t s = state, ref = lset_intern(c, &s, 1), id = stack_intern(c, w);
    uint32_t set = id == NONE ? NONE : set_intern(c, &id, 1);
    *f = (frame){node, node + 1, set, ref, 0, 0, 0, NONE, UINT64_MAX};
    return set != NONE && ref != NONE;
}

/* ---- token sets and automaton states ------------------------------------- */

static uint32_t set_id(ctx *c)
{
    mask_automaton *a = c->out;
    uint64_t h = XXH3_64bits(c->acc, (size_t)a->words * 4);
    for (uint32_t *slot = map_slot(&c->set_ids, h, true); slot; slot = NULL) {
        if (*slot != NONE && memcmp(a->sets[*slot], c->acc, (size_t)a->words * 4) == 0)
            return *slot;
        if (*slot != NONE) /* hash collision: fall back to a linear search */
            for (uint32_t i = 0; i < a->n_sets; i++)
                if (memcmp(a->sets[i], c->acc, (size_t)a->words * 4) == 0)
                    return i;
        uint32_t **sets = realloc(a->sets, ((size_t)a->n_sets + 1) * sizeof *sets);
        uint32_t *cnt = realloc(a->set_count, ((size_t)a->n_sets + 1) * sizeof *cnt);
        if (sets)
            a->sets = sets;
        if (cnt)
            a->set_count = cnt;
        uint32_t *copy = malloc((size_t)a->words * 4 + 4);
        if (!sets || !cnt || !copy) {
            free(copy);
            return fail(c, GCG_ERR_NOMEM), 0;
        }
        memcpy(copy, c->acc, (size_t)a->words * 4);
        uint32_t n = 0;
        for (uint32_t i = 0; i < a->words; i++)
            n += (uint32_t)__builtin_popcount(c->acc[i]);
        a->sets[a->n_sets] = copy, a->set_count[a->n_sets] = n;
        if (*slot == NONE)
            *slot = a->n_sets;
        return a->n_sets++;
    }
    return fail(c, GCG_ERR_NOMEM), 0;
}

static int cmp_triple(const void *x, const void *y)
{
    const uint32_t *a = x, *b = y;
    for (int i = 0; i < 3; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* The automaton state for the configurations in cfgs (NONE when empty). */
static uint32_t d_id(ctx *c)
{
    uint32_t n = c->cfgs.n / 3;
    if (n == 0)
        return NONE;
    qsort(c->cfgs.v, n, 3 * sizeof(uint32_t), cmp_triple);
    uint32_t w = 1;
    for (uint32_t r = 1; r < n; r++)
        if (cmp_triple(c->cfgs.v + 3 * r, c->cfgs.v + 3 * (w - 1)) != 0)
            memmove(c->cfgs.v + 3 * w++, c->cfgs.v + 3 * r, 3 * sizeof(uint32_t));
    n = w;
    uint64_t h = XXH3_64bits(c->cfgs.v, (size_t)n * 12);
    for (uint64_t probe = h;; probe++) {
        uint32_t *slot = map_slot(&c->d_ids, probe, true);
        if (!slot)
            return fail(c, GCG_ERR_NOMEM), NONE;
        if (*slot == NONE) {
            if (c->d_start.n >= MAX_D_STATES) {
                gcg_diag_add(c->diag, GCG_SEV_ERROR, 0, 0, "mask automaton larger than %u states",
                             MAX_D_STATES);
                return fail(c, GCG_ERR_LIMIT), NONE;
            }
            *slot = c->d_start.n;
            bool ok = vpush(&c->d_start, c->d_data.n) && vpush(&c->d_len, n);
            for (uint32_t i = 0; i < 3 * n && ok; i++)
                ok = vpush(&c->d_data, c->cfgs.v[i]);
            return ok ? *slot : (fail(c, GCG_ERR_NOMEM), NONE);
        }
        uint32_t d = *slot;
        if (c->d_len.v[d] == n && memcmp(c->d_data.v + c->d_start.v[d], c->cfgs.v, (size_t)n * 12) == 0)
            return d;
    }
}

/* ---- runs --------------------------------------------------------------- */

static void run_begin(ctx *c)
{
    c->cfgs.n = 0;
    c->acc_log.n = c->acc_floor = 0;
}

/* RootAcc[s] and RootD[s]: the trie walked from the empty stack top s. */
static void run_root(ctx *c, uint32_t s)
{
    run_begin(c);
    static const uint32_t empty[2] = {0, 0};
    frame f;
    if (single_frame(c, 0, s, empty, &f))
        walk(c, f);
    acc_from_log(c);
    c->out->root_acc[s] = set_id(c);
    c->out->root_d[s] = d_id(c);
}

/* Acc(D, q) and the next D: configurations waiting deeper move up by one,
 * those waiting for this entry resume with q exposed. */
static void run_resume(ctx *c, uint32_t d, uint32_t q, uint32_t *acc, uint32_t *next)
{
    const lr_tables *t = c->lr;
    run_begin(c);
    uint32_t start = c->d_start.v[d], n = c->d_len.v[d];
    for (uint32_t i = 0; i < n && c->st == GCG_OK; i++) {
        const uint32_t *cf = c->d_data.v + start + 3 * i;
        uint32_t node = cf[0], lhs = cf[1], skip = cf[2];
        if (skip > 0) {
            add_config(c, node, lhs, skip - 1);
            continue;
        }
        uint32_t to = lr_goto(t, q, lhs);
        if (to == GCG_NO_GOTO)
            continue;
        /* The byte of `node` is simulated again from [q, to]. */
        uint32_t w[3] = {0, 1, to};
        frame parent;
        if (single_frame(c, node, q, w, &parent) &&
            enter_child(c, &parent, node, &c->frames[0]))
            walk(c, c->frames[0]);
        start = c->d_start.v[d]; /* d_data may not move here, but stay safe */
    }
    acc_from_log(c);
    *acc = set_id(c);
    *next = d_id(c);
}

/* Worklist over (D, the state above it): transitions for every q that can
 * lie below that state. */
static void determinize(ctx *c, vec *todo)
{
    map64 seen = {0}, done = {0};
    for (uint32_t i = 0; i < todo->n && c->st == GCG_OK; i += 2) {
        uint32_t d = todo->v[i], above = todo->v[i + 1];
        for (uint32_t k = c->pred_first[above]; k < c->pred_first[above + 1] && c->st == GCG_OK; k++) {
            uint32_t q = c->pred[k];
            uint32_t *slot = map_slot(&done, ((uint64_t)d << 32) | q, true);
            if (!slot || *slot != NONE) {
                if (!slot)
                    fail(c, GCG_ERR_NOMEM);
                continue;
            }
            *slot = 1;
            uint32_t acc, next;
            run_resume(c, d, q, &acc, &next);
            if (c->st != GCG_OK)
                break;
            if (c->out->set_count[acc] == 0 && next == NONE)
                continue;
            if (!vpush(&c->tfrom, d) || !vpush(&c->tq, q) || !vpush(&c->tacc, acc) || !vpush(&c->tnext, next))
                fail(c, GCG_ERR_NOMEM);
            if (next == NONE)
                continue;
            uint32_t *s2 = map_slot(&seen, ((uint64_t)next << 32) | q, true);
            if (s2 && *s2 == NONE) {
                *s2 = 1;
                if (!vpush(todo, next) || !vpush(todo, q))
                    fail(c, GCG_ERR_NOMEM);
            }
        }
    }
    free(seen.k), free(seen.v), free(done.k), free(done.v);
}

/* ---- certificate --------------------------------------------------------- */

uint64_t gcg_automaton_set_bytes(const mask_automaton *a, uint32_t set)
{
    uint64_t sparse = (uint64_t)a->set_count[set] * 4, dense = (uint64_t)a->words * 4;
    return sparse < dense ? sparse : dense;
}

/* ---- assembly ------------------------------------------------------------ */

/* Transitions grouped by automaton state, sorted by the state read. */
static gcg_status collect_transitions(ctx *c)
{
    mask_automaton *a = c->out;
    a->n_states = c->d_start.n;
    a->n_trans = c->tq.n;
    a->trans_start = calloc((size_t)a->n_states + 2, sizeof *a->trans_start);
    a->trans = malloc(((size_t)a->n_trans + 1) * sizeof *a->trans);
    if (!a->trans_start || !a->trans)
        return GCG_ERR_NOMEM;
    for (uint32_t i = 0; i < a->n_trans; i++)
        a->trans_start[c->tfrom.v[i] + 2]++;
    for (uint32_t d = 0; d < a->n_states; d++)
        a->trans_start[d + 2] += a->trans_start[d + 1];
    for (uint32_t i = 0; i < a->n_trans; i++)
        a->trans[a->trans_start[c->tfrom.v[i] + 1]++] = (ma_trans){c->tq.v[i], c->tacc.v[i], c->tnext.v[i]};
    for (uint32_t d = 0; d < a->n_states; d++) { /* insertion sort: lists are short */
        ma_trans *t = a->trans + a->trans_start[d];
        uint32_t m = a->trans_start[d + 1] - a->trans_start[d];
        for (uint32_t i = 1; i < m; i++)
            for (uint32_t j = i; j > 0 && t[j - 1].q > t[j].q; j--) {
                ma_trans x = t[j];
                t[j] = t[j - 1], t[j - 1] = x;
            }
    }
    return GCG_OK;
}

/* The pending lhs of each state's first configuration: the rule a cycle
 * through that state is reported under. */
static gcg_status record_state_lhs(ctx *c)
{
    mask_automaton *a = c->out;
    a->state_lhs = malloc(((size_t)a->n_states + 1) * sizeof *a->state_lhs);
    if (!a->state_lhs)
        return GCG_ERR_NOMEM;
    for (uint32_t d = 0; d < a->n_states; d++)
        a->state_lhs[d] = c->d_data.v[c->d_start.v[d] + 1];
    return GCG_OK;
}

static void ctx_free(ctx *c)
{
    free(c->pred_first), free(c->pred), free(c->stamp), free(c->frames), free(c->acc), free(c->direct);
    vec *vs[] = {&c->layer, &c->next_layer, &c->arena, &c->work, &c->cfgs, &c->d_start, &c->d_len,
                 &c->d_data, &c->tq, &c->tacc, &c->tnext, &c->tfrom, &c->stack_start, &c->stack_data,
                 &c->sset_start, &c->sset_len, &c->sset_data, &c->steps, &c->step_reads, &c->ids,
                 &c->lset_start, &c->lset_len, &c->lset_data, &c->reads, &c->acc_log, &c->memo,
                 &c->memo_data};
    for (size_t i = 0; i < sizeof vs / sizeof *vs; i++)
        free(vs[i]->v);
    map64 *ms[] = {&c->consensus, &c->set_ids, &c->d_ids, &c->stack_ids, &c->sset_ids, &c->step_ids,
                   &c->lset_ids, &c->lset_down, &c->memo_ids};
    for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
        free(ms[i]->k), free(ms[i]->v);
}

gcg_status gcg_automaton_build(const cfg *g, const lr_tables *lr, const gcg_vocab *v,
                               const token_trie *trie, const char *const *rule_names,
                               mask_automaton *out, gcg_diag *diag)
{
    memset(out, 0, sizeof *out);
    ctx c = {.g = g, .lr = lr, .v = v, .trie = trie, .diag = diag, .out = out};
    out->n_tokens = v->n_tokens;
    out->words = (v->n_tokens + 31) / 32;
    uint32_t max_depth = 0;
    for (uint32_t i = 0; i < trie->n_nodes; i++)
        max_depth = trie->depth[i] > max_depth ? trie->depth[i] : max_depth;
    c.cap_frames = max_depth + 2;
    c.frames = malloc((size_t)c.cap_frames * sizeof *c.frames);
    c.acc = malloc((size_t)out->words * 4 + 4);
    out->root_acc = malloc((size_t)lr->n_states * sizeof *out->root_acc);
    out->root_d = malloc((size_t)lr->n_states * sizeof *out->root_d);
    c.st = c.frames && c.acc && out->root_acc && out->root_d ? build_pred(&c) : GCG_ERR_NOMEM;
    vec todo = {0};
    for (uint32_t s = 0; s < lr->n_states && c.st == GCG_OK; s++) {
        run_root(&c, s);
        if (c.st == GCG_OK && out->root_d[s] != NONE && (!vpush(&todo, out->root_d[s]) || !vpush(&todo, s)))
            fail(&c, GCG_ERR_NOMEM);
    }
    if (c.st == GCG_OK)
        determinize(&c, &todo);
    free(todo.v);
    if (c.st == GCG_OK)
        c.st = collect_transitions(&c);
    if (c.st == GCG_OK)
        c.st = record_state_lhs(&c);
    if (c.st == GCG_OK)
        c.st = gcg_certify(out, g, lr->n_states, rule_names);
    gcg_status st = c.st;
    ctx_free(&c);
    if (st != GCG_OK)
        gcg_automaton_free(out);
    return st;
}

void gcg_automaton_free(mask_automaton *a)
{
    for (uint32_t i = 0; i < a->n_sets; i++)
        free(a->sets[i]);
    free(a->sets), free(a->set_count), free(a->trans_start), free(a->trans);
    free(a->root_acc), free(a->root_d), free(a->state_lhs);
    memset(a, 0, sizeof *a);
}
