/* mask_walk.c — fill_mask: read the GSS once with the mask automaton.
 *
 * For every frontier node, RootAcc[state] is OR-ed into the mask; then the
 * pairs (automaton state D, stack node) are walked down the GSS edges, each
 * step OR-ing Acc(D, q) for the state q read below and stopping where D is
 * done. Pairs already visited are skipped, so a shared stack is read once.
 * The walk allocates only when its work list outgrows every earlier mask. */
#include <stdlib.h>
#include <string.h>

#include "matcher.h"

typedef struct walk_item { uint32_t d, node, depth; } walk_item;

typedef struct mask_scratch {
    walk_item *stack;
    uint32_t cap_stack;
    uint64_t *seen;        /* open-addressing set of (d << 32 | node), per call */
    uint32_t *seen_gen;
    uint32_t cap_seen, gen;
    uint32_t n_seen;       /* entries marked in this call */
    uint32_t *or_gen;      /* per root state, then per transition: call stamp of its OR */
} mask_scratch;

void gcg_mask_scratch_free(gcg_matcher *m)
{
    mask_scratch *s = m->mask_scratch;
    if (s) {
        free(s->stack), free(s->seen), free(s->seen_gen), free(s->or_gen);
        free(s);
    }
    m->mask_scratch = NULL;
}

/* words |= set. A dense set is OR-ed 64 bits at a time (the mask and the
 * sets are 64-byte aligned in practice; word order is the same). With
 * `first`, the mask is still undefined and a dense set is copied instead:
 * one pass over 16 KB instead of a clear and an OR. */
static void or_set(const gcg_mask_view *v, uint32_t set, uint32_t *restrict words, bool first)
{
    const gcg_set_entry *e = &v->sets[set];
    const uint32_t *restrict d = v->set_data + e->offset;
    if (e->kind == GCG_SET_DENSE) {
        if (first) {
            memcpy(words, d, (size_t)v->words * sizeof *words);
            return;
        }
        for (uint32_t i = 0; i < v->words; i++)
            words[i] |= d[i];
        return;
    }
    if (first)
        memset(words, 0, (size_t)v->words * sizeof *words);
    for (uint32_t i = 0; i < e->count; i++)
        words[d[i] >> 5] |= 1u << (d[i] & 31);
}

/* The transition of automaton state d on LR state q, or NULL. */
static const gcg_trans_entry *trans_of(const gcg_mask_view *v, uint32_t d, uint32_t q)
{
    uint32_t lo = v->trans_start[d], hi = v->trans_start[d + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v->trans[mid].q < q)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < v->trans_start[d + 1] && v->trans[lo].q == q ? &v->trans[lo] : NULL;
}

static uint32_t seen_hash(uint64_t key, uint32_t cap)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & (cap - 1);
}

/* Grows the seen-set to hold `need` entries at half load, keeping the marks
 * of the current call. */
static bool seen_grow(mask_scratch *s, uint32_t need)
{
    uint32_t cap = s->cap_seen ? s->cap_seen : 256;
    while (cap < 2 * need)
        cap *= 2;
    if (cap == s->cap_seen)
        return true;
    uint64_t *k = malloc((size_t)cap * sizeof *k);
    uint32_t *g = calloc(cap, sizeof *g);
    if (!k || !g) {
        free(k), free(g);
        return false;
    }
    uint32_t gen = s->gen ? s->gen : 1;
    for (uint32_t i = 0; i < s->cap_seen; i++) {
        if (s->seen_gen[i] != s->gen || s->gen == 0)
            continue;
        uint32_t h = seen_hash(s->seen[i], cap);
        while (g[h] == gen)
            h = (h + 1) & (cap - 1);
        g[h] = gen, k[h] = s->seen[i];
    }
    free(s->seen), free(s->seen_gen);
    s->seen = k, s->seen_gen = g, s->cap_seen = cap, s->gen = gen;
    return true;
}

/* Marks the pair; false if it was already marked in this call. */
static bool seen_add(mask_scratch *s, uint32_t d, uint32_t node)
{
    uint64_t key = ((uint64_t)d << 32) | node;
    uint32_t h = seen_hash(key, s->cap_seen);
    while (s->seen_gen[h] == s->gen) {
        if (s->seen[h] == key)
            return false;
        h = (h + 1) & (s->cap_seen - 1);
    }
    s->seen_gen[h] = s->gen, s->seen[h] = key;
    s->n_seen++;
    return true;
}

static bool push(mask_scratch *s, uint32_t *n, walk_item it)
{
    if (*n == s->cap_stack) {
        uint32_t cap = s->cap_stack ? s->cap_stack * 2 : 64;
        walk_item *q = realloc(s->stack, (size_t)cap * sizeof *q);
        if (!q)
            return false;
        s->stack = q, s->cap_stack = cap;
    }
    s->stack[(*n)++] = it;
    return true;
}

/* ORs set `set` unless the same root state or transition (`key`) already
 * did in this call: the set is the same, so the certificate can bound set
 * operations by the automaton's size whatever the stack's shape. */
static void or_once(gcg_matcher *m, mask_scratch *s, uint32_t key, uint32_t set, uint32_t *words, bool first)
{
    if (s->or_gen[key] == s->gen)
        return;
    s->or_gen[key] = s->gen;
    or_set(&m->art->mask, set, words, first);
    m->last.set_ops++;
}

/* Walks the pairs reachable from the frontier's roots. */
static gcg_status walk(gcg_matcher *m, mask_scratch *s, uint32_t *words)
{
    const gcg_mask_view *v = &m->art->mask;
    const gss *g = &m->p.g;
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->n_front; i++) {
        uint32_t st = g->nodes[m->front[i]].state;
        or_once(m, s, st, v->root_acc[st], words, i == 0);
        if (v->root_d[st] != GCG_NO_STATE && !push(s, &n, (walk_item){v->root_d[st], m->front[i], 0}))
            return GCG_ERR_NOMEM;
    }
    while (n) {
        walk_item it = s->stack[--n];
        m->last.stack_reads++;
        for (uint32_t e = g->nodes[it.node].edge; e != GSS_NONE; e = g->edges[e].next) {
            uint32_t below = g->edges[e].to;
            if (++m->last.edges > m->max_mask_work && m->max_mask_work)
                return GCG_ERR_LIMIT;
            const gcg_trans_entry *t = trans_of(v, it.d, g->nodes[below].state);
            if (!t)
                continue;
            or_once(m, s, m->art->t.n_states + (uint32_t)(t - v->trans), t->acc, words, false);
            if (it.depth + 1 > m->last.max_stack_reads)
                m->last.max_stack_reads = it.depth + 1;
            /* Keep the set at most half full (every pushed pair is marked,
             * and a dense stack pushes many more pairs than it pops). */
            if (2 * (s->n_seen + 1) > s->cap_seen && !seen_grow(s, s->n_seen + 1))
                return GCG_ERR_NOMEM;
            if (t->next != GCG_NO_STATE && seen_add(s, t->next, below) &&
                !push(s, &n, (walk_item){t->next, below, it.depth + 1}))
                return GCG_ERR_NOMEM;
        }
    }
    return GCG_OK;
}

static bool stack_reserve(mask_scratch *s, uint32_t need)
{
    if (need <= s->cap_stack)
        return true;
    uint32_t cap = s->cap_stack ? s->cap_stack : 64;
    while (cap < need)
        cap *= 2;
    walk_item *q = realloc(s->stack, (size_t)cap * sizeof *q);
    if (!q)
        return false;
    s->stack = q, s->cap_stack = cap;
    return true;
}

/* Sizes the walk for the live stack: two (automaton state, node) pairs per
 * live node and the frontier, so fill_mask itself does not allocate unless
 * a mask visits more pairs than that. */
gcg_status gcg_mask_scratch_reserve(gcg_matcher *m)
{
    if (m->art->mask.n_sets == 0)
        return GCG_OK;
    if (!m->mask_scratch && !(m->mask_scratch = calloc(1, sizeof(mask_scratch))))
        return GCG_ERR_NOMEM;
    mask_scratch *s = m->mask_scratch;
    if (!s->or_gen &&
        !(s->or_gen = calloc((size_t)m->art->t.n_states + m->art->mask.n_trans + 1, sizeof *s->or_gen)))
        return GCG_ERR_NOMEM;
    uint32_t pairs = 2 * m->p.g.live + 64;
    if (!seen_grow(s, pairs) || !stack_reserve(s, pairs + m->art->t.n_states))
        return GCG_ERR_NOMEM;
    return GCG_OK;
}

size_t gcg_mask_scratch_memory(const gcg_matcher *m)
{
    const mask_scratch *s = m->mask_scratch;
    if (!s)
        return 0;
    return sizeof *s + (size_t)s->cap_stack * sizeof *s->stack +
           (size_t)s->cap_seen * (sizeof *s->seen + sizeof *s->seen_gen) +
           ((size_t)m->art->t.n_states + m->art->mask.n_trans + 1) * sizeof *s->or_gen;
}

gcg_status gcg_matcher_fill_mask(gcg_matcher *m, uint32_t *words, size_t n_words)
{
    if (!m || !words)
        return GCG_ERR_ARG;
    const gcg_artifact *a = m->art;
    if (a->v.n_tokens == 0 || a->mask.n_sets == 0)
        return GCG_ERR_NO_VOCAB;
    size_t need = ((size_t)a->v.n_tokens + 31) / 32;
    if (n_words < need)
        return GCG_ERR_ARG;
    memset(&m->last, 0, sizeof m->last);
    m->last.frontier_nodes = m->n_front;
    if (m->terminated || m->n_front == 0) {
        memset(words, 0, need * sizeof *words);
        return GCG_OK;
    }
    if (!m->mask_scratch && gcg_mask_scratch_reserve(m) != GCG_OK)
        return GCG_ERR_NOMEM;
    mask_scratch *s = m->mask_scratch; /* sized by gcg_matcher_new and commits */
    s->n_seen = 0;
    if (++s->gen == 0) {
        memset(s->seen_gen, 0, (size_t)s->cap_seen * sizeof *s->seen_gen);
        s->gen = 1;
    }
    gcg_status st = walk(m, s, words);
    if (st != GCG_OK)
        return st;
    for (uint32_t i = 0; m->complete && i < a->v.n_eos; i++)
        words[a->v.eos[i] >> 5] |= 1u << (a->v.eos[i] & 31);
    return GCG_OK;
}
