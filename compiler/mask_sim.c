/* mask_sim.c — the symbolic simulation over the byte trie (see mask_sim.h). */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../runtime/artifact_format.h"
#include "mask_sim.h"
#include "utf8_ranges.h"

#define NONE UINT32_MAX
#define DEAD (UINT32_MAX - 1)   /* consensus: no state below can take the goto */
#define READ (UINT32_MAX - 2)   /* consensus: the outcome depends on the stack */
#define MAX_DEPTH 0xFFFFu       /* stack depth a reduction may expose          */
#define DEAD_STEP 0u            /* the step record of every step where all die */
#define BIG_STEP 1u             /* ... and of every step whose stacks a graph
                                   keeps (see "walks on a graph-structured
                                   stack")                                   */
#define BIG (UINT32_MAX - 3)    /* STEP_FORM of BIG_STEP                       */
#define SPLIT (UINT32_MAX - 4)  /* consensus over a shared reference: the
                                   members' answers differ                    */
#define GSS_MIN 128             /* a form of more stacks is not made          */
#define GSS_SHIFTS 512          /* nor one whose step shifts more stacks      */

/* A trie walk enters millions of nodes: its common path (cached look-ups,
 * enter_child) is forced in line, and the rare ones (a cached answer's first
 * computation, a subtree taken whole or memoized) are kept out of line so
 * that the common path stays small. */
#if defined(__GNUC__)
#define OUT_OF_LINE __attribute__((noinline))
#define IN_LINE inline __attribute__((always_inline))
#else
#define OUT_OF_LINE
#define IN_LINE inline
#endif

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

/* long_gotos: the gotos of every state whose row gcg_mask_sim_goto hashes. */
static gcg_status build_long_gotos(mask_sim *c)
{
    const lr_tables *t = c->lr;
    for (uint32_t s = 0; s < t->n_states; s++) {
        if (t->go_start[s + 1] - t->go_start[s] <= GCG_GOTO_SCAN)
            continue;
        for (uint32_t k = t->go_start[s]; k < t->go_start[s + 1]; k++) {
            uint32_t *slot = gcg_map64_slot(&c->long_gotos, (uint64_t)s << 32 | t->go_nt[k], true);
            if (!slot)
                return GCG_ERR_NOMEM;
            *slot = t->go_to[k];
        }
    }
    return GCG_OK;
}

/* Each state's pending reduction: the one reduction that all its actions
 * are, if there is one; and the terminals each state rejects (bits). */
static gcg_status build_pending(mask_sim *c)
{
    const lr_tables *t = c->lr;
    c->err_words = (t->n_terms + 63) / 64;
    c->pending = malloc(((size_t)t->n_states + 1) * sizeof *c->pending);
    c->err = calloc((size_t)t->n_states * c->err_words + 1, sizeof *c->err);
    if (!c->pending || !c->err || c->err_words > ERR_WORDS)
        return c->err_words > ERR_WORDS ? GCG_ERR_LIMIT : GCG_ERR_NOMEM;
    for (uint32_t s = 0; s < t->n_states; s++) {
        uint32_t red = GCG_ACT_ERROR;
        bool one = true;
        for (uint32_t x = 0; x < t->n_terms; x++) {
            uint32_t a = lr_action(t, s, x);
            if (a == GCG_ACT_ERROR) {
                c->err[(size_t)s * c->err_words + x / 64] |= 1ull << (x % 64);
                continue;
            }
            one = one && GCG_ACT_KIND(a) == GCG_ACT_REDUCE && GCG_ACT_ARG(a) != 0 &&
                  (red == GCG_ACT_ERROR || a == red);
            red = a;
        }
        c->pending[s] = one && red != GCG_ACT_ERROR ? GCG_ACT_ARG(red) : NONE;
    }
    return GCG_OK;
}

/* Interns the list ids[0..n), sorted and deduplicated here, in the table
 * (map, start, len, data); NONE for an empty list or on failure. */
static uint32_t intern_list(mask_sim *c, map64 *map, vec *start, vec *lens, vec *data, uint32_t *ids, uint32_t n,
                            uint64_t salt)
{
    if (n == 0)
        return NONE;
    if (!gcg_sort_records(ids, n, 1, &c->merged))
        return fail(c, GCG_ERR_NOMEM), NONE;
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

/* ---- shared references ---------------------------------------------------
 *
 * A resumed configuration exposes one state q below the token; many q lead
 * to the same goto and then answer every later question alike (a key trie
 * resumed over each of an object's hundred member positions: kb_708,
 * o61596). A shared reference stands for several ordinary reference sets,
 * its members, each on its own: the consensus over it is the members'
 * common answer, asked of each alone, and a question they answer
 * differently is a touch; the layer below it is the shared reference of
 * the members' layers (an ordinary set once they are all the same). A run
 * with no touch is the run each member would make; the caller keeps its
 * result for all of them or walks them one by one. A step that touched is
 * not cached (each use computes it again, and touches again), and a memo
 * entry remembers whether its walk touched (a replay touches again). A
 * shared reference's data are its members' ids, interned apart from the
 * ordinary sets (their own map), so no ordinary set compares equal to one
 * and no form over one is ever lowered. */

static inline bool is_shared(const mask_sim *c, uint32_t ref)
{
    return ref < c->lset_shared.n && c->lset_shared.v[ref];
}

/* The reference standing for the sets members[0..n) (sorted and
 * deduplicated here): the one set itself when they are all the same. */
static uint32_t shared_intern(mask_sim *c, uint32_t *members, uint32_t n)
{
    uint32_t id = intern_list(c, &c->shared_ids, &c->lset_start, &c->lset_len, &c->lset_data, members, n, 0x5ea7edu);
    if (id == NONE || c->lset_len.v[id] == 1)
        return id == NONE ? NONE : c->lset_data.v[c->lset_start.v[id]];
    while (c->lset_shared.n <= id)
        if (!gcg_vec_push(&c->lset_shared, 0))
            return fail(c, GCG_ERR_NOMEM), NONE;
    c->lset_shared.v[id] = 1;
    return id;
}

uint32_t gcg_mask_sim_shared_ref(mask_sim *c, const uint32_t *states, uint32_t n)
{
    if (!gcg_vec_reserve(&c->ids, n))
        return fail(c, GCG_ERR_NOMEM), NONE;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = states[i], one = lset_intern(c, &s, 1);
        if (one == NONE)
            return NONE;
        c->ids.v[i] = one;
    }
    return shared_intern(c, c->ids.v, n);
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
    if (!layer_below(c, ref, depth))
        return DEAD;
    uint32_t result = DEAD;
    bool some_dead = false;
    for (uint32_t i = 0; i < c->layer.n; i++) {
        uint32_t to = gcg_mask_sim_goto(c, c->layer.v[i], lhs);
        if (to == GCG_NO_GOTO)
            some_dead = true;
        else if (result == DEAD)
            result = to;
        else if (result != to)
            return READ;
    }
    return result != DEAD && some_dead ? READ : result;
}

static uint32_t consensus(mask_sim *c, uint32_t ref, uint32_t depth, uint32_t lhs);

/* The consensus over shared reference `ref`: each member's own, SPLIT when
 * they differ. */
static uint32_t consensus_shared(mask_sim *c, uint32_t ref, uint32_t depth, uint32_t lhs)
{
    uint32_t n = c->lset_len.v[ref], result = NONE;
    for (uint32_t i = 0; i < n && c->st == GCG_OK; i++) {
        uint32_t r = consensus(c, c->lset_data.v[c->lset_start.v[ref] + i], depth, lhs);
        if (result != NONE && r != result)
            return SPLIT;
        result = r;
    }
    return result == NONE ? DEAD : result;
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
        uint32_t r = is_shared(c, ref) ? consensus_shared(c, ref, depth, lhs) : consensus_of(c, ref, depth, lhs);
        slot = gcg_map64_slot(&c->consensus, key, false);
        *slot = r;
    }
    if (*slot == SPLIT) {
        c->touched++;
        return READ;
    }
    return *slot;
}

/* The reference set `depth` layers below `ref` (cached). */
static uint32_t lset_below(mask_sim *c, uint32_t ref, uint32_t depth);

/* The layer `depth` below shared reference `ref`: its members' layers. */
static uint32_t shared_below(mask_sim *c, uint32_t ref, uint32_t depth)
{
    uint32_t n = c->lset_len.v[ref], *below = malloc((size_t)n * sizeof *below);
    if (!below)
        return fail(c, GCG_ERR_NOMEM), NONE;
    for (uint32_t i = 0; i < n && c->st == GCG_OK; i++)
        below[i] = lset_below(c, c->lset_data.v[c->lset_start.v[ref] + i], depth);
    uint32_t r = c->st == GCG_OK ? shared_intern(c, below, n) : NONE;
    free(below);
    return r;
}

static uint32_t lset_below(mask_sim *c, uint32_t ref, uint32_t depth)
{
    if (depth == 0 && is_shared(c, ref))
        return ref;
    uint64_t key = ((uint64_t)ref << 32) | depth;
    uint32_t *slot = gcg_map64_slot(&c->lset_down, key, true);
    if (!slot)
        return fail(c, GCG_ERR_NOMEM), NONE;
    if (*slot == NONE) {
        uint32_t r = is_shared(c, ref) ? shared_below(c, ref, depth)
                                       : layer_below(c, ref, depth) ? lset_intern(c, c->layer.v, c->layer.n) : NONE;
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
        to = gcg_mask_sim_goto(c, w[2 + k - 1 - len], lhs);
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

/* Takes the reductions pending on top of the stack w = [o, k, K...] just
 * shifted, while each goto is known without reading the real stack: the
 * next byte takes them first, unless the state rejects it; so a reduced
 * stack is kept only when its top rejects every terminal that a state
 * reduced on the way rejects. The stacks mean the same, and walks that
 * differ only in pending reductions (a trie of key prefixes, each closed by
 * a chain of reductions) meet in the same stacks one byte earlier. */
static void pre_reduce(mask_sim *c, uint32_t *w)
{
    const lr_tables *t = c->lr;
    uint32_t x[2 + MAX_KNOWN + 1], W = c->err_words;
    uint64_t dead[ERR_WORDS] = {0};
    memcpy(x, w, ((size_t)w[1] + 2) * sizeof *x);
    for (uint32_t p; x[1] && x[1] < MAX_KNOWN && (p = c->pending[x[1 + x[1]]]) != NONE;) {
        const uint64_t *e = c->err + (size_t)x[1 + x[1]] * W;
        for (uint32_t i = 0; i < W; i++)
            dead[i] |= e[i];
        uint32_t k = x[1], len = t->prod_len[p], lhs = t->prod_lhs[p], to;
        if (len < k) {
            to = gcg_mask_sim_goto(c, x[2 + k - 1 - len], lhs);
            if (to == GCG_NO_GOTO)
                return;
            x[1] = k - len + 1, x[2 + k - len] = to;
        } else {
            uint64_t depth = (uint64_t)x[0] + (len - k);
            to = depth > MAX_DEPTH ? READ : consensus(c, c->ref, (uint32_t)depth, lhs);
            if (to == READ || to == DEAD)
                return;
            x[0] = (uint32_t)depth, x[1] = 1, x[2] = to;
        }
        const uint64_t *e2 = c->err + (size_t)to * W;
        bool same = true;
        for (uint32_t i = 0; i < W; i++)
            same = same && !(dead[i] & ~e2[i]);
        if (same)
            memcpy(w, x, ((size_t)x[1] + 2) * sizeof *w);
    }
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
    c->shifts++;
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

/* ---- forks meet -----------------------------------------------------------
 *
 * A step is a function of each stack it simulates, so a stack met twice in
 * one step adds nothing the first meeting did not. On an ambiguous grammar
 * the orders in which forks' reductions are taken lead to the same stacks
 * by exponentially many paths (a GLR parser merges them in its graph-
 * structured stack, Tomita 1985), and a nullable cycle leads back to the
 * stack it started from. So once a step forks, every stack it is about to
 * simulate is looked up in the step's set and skipped if there. Before the
 * first fork nothing multiplies (at worst two stacks of the set reduce to
 * one, simulated twice), and nothing is recorded. */

/* Empties the step's set: slot by slot where it holds its step's stacks
 * only, which spares a memset of the whole table per step (a table that
 * one large step grew stays that large); whole when it grew meanwhile. */
static void seen_clear(mask_sim *c)
{
    c->forked = false;
    c->seen_data.n = 0;
    if (c->seen.cap == c->seen_cap && c->seen_slots.n == c->seen.n) {
        for (uint32_t i = 0; i < c->seen_slots.n; i++)
            c->seen.k[c->seen_slots.v[i]] = UINT64_MAX;
        c->seen.n = 0;
    } else {
        gcg_map64_clear(&c->seen);
    }
    c->seen_slots.n = 0;
}

/* Whether the step has simulated w = [o, k, K...] already; records it if
 * not. Two stacks whose hashes collide are both simulated (exact, rare). */
static bool seen_before(mask_sim *c, const uint32_t *w)
{
    uint32_t len = w[1] + 2;
    uint64_t h = XXH3_64bits(w, (size_t)len * sizeof *w);
    uint32_t *slot = gcg_map64_slot(&c->seen, h == UINT64_MAX ? 0 : h, true);
    if (!slot)
        return fail(c, GCG_ERR_NOMEM);
    if (*slot != NONE) {
        const uint32_t *x = c->seen_data.v + *slot;
        return x[1] == w[1] && memcmp(x, w, (size_t)len * sizeof *w) == 0;
    }
    if (c->seen_slots.n == 0)
        c->seen_cap = c->seen.cap;
    if (!gcg_vec_reserve(&c->seen_data, len) || !gcg_vec_push(&c->seen_slots, (uint32_t)(slot - c->seen.v)))
        return fail(c, GCG_ERR_NOMEM);
    *slot = c->seen_data.n;
    memcpy(c->seen_data.v + c->seen_data.n, w, (size_t)len * sizeof *w);
    c->seen_data.n += len;
    return false;
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
        if (c->big_ok && c->shifts > GSS_SHIFTS)
            return;
        if (c->forked && seen_before(c, w)) {
            if (!work_load(c, w))
                return;
            continue;
        }
        bool blind = !w[1] && is_shared(c, c->ref); /* the reference on top: no one state */
        uint32_t top = w[1] ? w[1 + w[1]] : blind ? 0 : c->lset_data.v[c->lset_start.v[c->ref]];
        uint32_t a = blind ? GCG_ACT_ERROR : lr_action(t, top, cls);
        c->touched += blind;
        if ((c->consulted.n == 0 || c->consulted.v[c->consulted.n - 1] != top) && !gcg_vec_push(&c->consulted, top))
            return (void)fail(c, GCG_ERR_NOMEM);
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
            c->forked = true;
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

/* ---- forms ---------------------------------------------------------------
 *
 * A form is a pair (stack set, reference), interned: the walk looks up its
 * steps, its lowest equivalent form, its loop bytes and its memo entries by
 * the form's index rather than by hashing the pair at every trie node. */

static uint32_t form_of(mask_sim *c, uint32_t set, uint32_t ref)
{
    uint32_t *slot = gcg_map64_slot(&c->form_ids, ((uint64_t)set << 32) | ref, true);
    if (!slot)
        return fail(c, GCG_ERR_NOMEM), NONE;
    if (*slot == NONE) {
        uint32_t id = c->form_set.n;
        if (!gcg_vec_push(&c->form_set, set) || !gcg_vec_push(&c->form_ref, ref) ||
            !gcg_vec_push(&c->form_low, NONE) || !gcg_vec_push(&c->form_drop, 0) ||
            !gcg_vec_push(&c->form_loop, NONE) || !gcg_vec_push(&c->form_gen, NONE) ||
            !gcg_vec_push(&c->form_dead, NONE) || !gcg_vec_push(&c->form_char, NONE) ||
            !gcg_vec_push(&c->form_behav, NONE))
            return fail(c, GCG_ERR_NOMEM), NONE;
        *slot = id;
    }
    return *slot;
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
    seen_clear(c);
    c->shifts = 0, c->big_ok = true;
    for (uint32_t s = 0; s < end; s += c->arena.v[s + 1] + 2)
        c->big_ok = c->big_ok && c->arena.v[s + 1] > 0; /* gss_walk's seeds */
    for (uint32_t s = 0; s < end && c->st == GCG_OK; s += c->arena.v[s + 1] + 2) {
        sim_byte(c, s, cls);
        if (c->big_ok && c->shifts > GSS_SHIFTS)
            return BIG_STEP;
    }
    uint32_t shifted = c->arena.n;
    for (uint32_t s = end; s < shifted && c->st == GCG_OK; s += c->arena.v[s + 1] + 2) {
        uint32_t w[2 + MAX_KNOWN + 1];
        memcpy(w, c->arena.v + s, ((size_t)c->arena.v[s + 1] + 2) * sizeof *w);
        if (c->share)
            pre_reduce(c, w);
        if (!gcg_vec_reserve(&c->arena, w[1] + 2))
            return fail(c, GCG_ERR_NOMEM), NONE;
        memcpy(c->arena.v + c->arena.n, w, ((size_t)w[1] + 2) * sizeof *w);
        c->arena.n += w[1] + 2;
    }
    end = shifted;
    uint32_t delta = 0, ref = c->st == GCG_OK ? lower_reference(c, end, &delta) : NONE;
    c->ids.n = 0;
    for (uint32_t s = end; s < c->arena.n && c->st == GCG_OK; s += c->arena.v[s + 1] + 2) {
        uint32_t id = stack_intern(c, c->arena.v + s);
        if (id != NONE && !gcg_vec_push(&c->ids, id))
            fail(c, GCG_ERR_NOMEM);
    }
    uint32_t next = c->st == GCG_OK ? set_intern(c, c->ids.v, c->ids.n) : NONE;
    if (c->st == GCG_OK && next == NONE && c->reads.n == 0)
        return DEAD_STEP;
    if (c->big_ok && next != NONE && c->sset_len.v[next] > GSS_MIN)
        return BIG_STEP;
    uint32_t form = next != NONE ? form_of(c, next, ref) : NONE;
    uint32_t idx = c->steps.n / STEP_WORDS;
    uint32_t rec[STEP_WORDS] = {[STEP_FORM] = form, [STEP_DROP] = delta, [STEP_READS] = c->step_reads.n,
                                [STEP_N_READS] = c->reads.n / 2, [STEP_LOW] = NONE};
    for (uint32_t i = 0; i < c->reads.n && c->st == GCG_OK; i++)
        if (!gcg_vec_push(&c->step_reads, c->reads.v[i]))
            fail(c, GCG_ERR_NOMEM);
    for (uint32_t i = 0; i < STEP_WORDS && c->st == GCG_OK; i++)
        if (!gcg_vec_push(&c->steps, rec[i]))
            fail(c, GCG_ERR_NOMEM);
    return c->st == GCG_OK ? idx : NONE;
}

/* The byte classes that are an error on the top of every stack of form f:
 * on those the step is DEAD_STEP, known without simulating, and the walk
 * does not enter such a child at all. Most are (a state inside a literal
 * takes one byte of the 256). err_words words at c->dead.v + the offset
 * returned, computed on first use; NONE on failure. */
OUT_OF_LINE static uint32_t form_dead_compute(mask_sim *c, uint32_t f)
{
    uint32_t set = c->form_set.v[f], ref = c->form_ref.v[f], at = c->dead.n;
    uint32_t start = c->sset_start.v[set], n = c->sset_len.v[set];
    uint64_t d[ERR_WORDS];
    memset(d, 0xff, sizeof d);
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t *w = c->stack_data.v + c->stack_start.v[c->sset_data.v[start + i]];
        if (!w[1] && is_shared(c, ref)) { /* no one state on top: no class dies at once */
            memset(d, 0, sizeof d);
            continue;
        }
        uint32_t top = w[1] ? w[1 + w[1]] : c->lset_data.v[c->lset_start.v[ref]];
        for (uint32_t k = 0; k < c->err_words; k++)
            d[k] &= c->err[(size_t)top * c->err_words + k];
    }
    if (!gcg_vec_reserve(&c->dead, 2 * c->err_words))
        return fail(c, GCG_ERR_NOMEM), NONE;
    memcpy(c->dead.v + at, d, c->err_words * sizeof *d); /* two words per uint64 */
    c->dead.n += 2 * c->err_words;
    c->form_dead.v[f] = at;
    return at;
}

/* The walk asks once per frame: the known answer is read in line. */
static inline uint32_t form_dead(mask_sim *c, uint32_t f)
{
    uint32_t at = c->form_dead.v[f];
    return at != NONE ? at : form_dead_compute(c, f);
}

/* Whether byte class cls dies at once on the form whose dead classes lie at
 * offset `at` (see form_dead). */
static inline bool class_dead(const mask_sim *c, uint32_t at, uint32_t cls)
{
    uint64_t word;
    memcpy(&word, c->dead.v + at + 2 * (cls / 64), sizeof word);
    return (word >> (cls % 64)) & 1;
}

/* Makes room in the step table for every form interned so far. The table
 * is allocated by doubling but filled with NONE only as far as the forms
 * reach (n_direct, in steps of a page): the untouched rest of the doubling
 * is never faulted in (a large grammar's table reaches 64 MB). */
static bool steps_reserve(mask_sim *c)
{
    uint64_t need = (uint64_t)c->form_set.n * c->lr->n_terms;
    if (need <= c->n_direct)
        return true;
    if (need > UINT32_MAX / 2) {
        gcg_diag_add(c->diag, GCG_SEV_ERROR, 0, 0, "mask simulation: over %u (form, class) steps",
                     UINT32_MAX / 2);
        return fail(c, GCG_ERR_LIMIT);
    }
    if (need > c->cap_direct) { /* not realloc: it would copy, and fault in, the untouched rest */
        uint32_t cap = c->cap_direct ? c->cap_direct : 4096;
        while (cap < need)
            cap *= 2;
        uint32_t *d = malloc((size_t)cap * sizeof *d);
        if (!d)
            return fail(c, GCG_ERR_NOMEM);
        if (c->n_direct)
            memcpy(d, c->direct, (size_t)c->n_direct * sizeof *d);
        free(c->direct);
        c->direct = d, c->cap_direct = cap;
    }
    uint32_t upto = (uint32_t)((need + 1023) & ~(uint64_t)1023);
    upto = upto < c->cap_direct ? upto : c->cap_direct;
    memset(c->direct + c->n_direct, 0xff, (size_t)(upto - c->n_direct) * sizeof *c->direct);
    c->n_direct = upto;
    return true;
}

/* ---- classes that behave alike ------------------------------------------
 *
 * A step is a function of the actions it reads: the gotos, the reference's
 * consensus and the pending reductions taken after the shift do not depend
 * on the byte class. So once a class has been stepped from a form, another
 * class on which every state that step consulted acts alike has the same
 * step (as the fork exploration skips classes, certificate.c). From a state
 * inside a key trie, the seventy-odd classes that leave the declared keys
 * all shift into the same string body: one is simulated, the others are
 * looked up. */

#define BEHAV_MAX 16 /* behaviour records kept per form */

/* The step of a class that behaves on `form` as `cls` does, or NONE. */
static uint32_t behav_find(const mask_sim *c, uint32_t form, uint32_t cls)
{
    const lr_tables *t = c->lr;
    for (uint32_t r = c->form_behav.v[form]; r != NONE; r = c->behav.v[r]) {
        const uint32_t *b = c->behav.v + r;
        uint32_t i = 0;
        while (i < b[2] && lr_action(t, b[3 + i], cls) == lr_action(t, b[3 + i], b[1]))
            i++;
        if (i == b[2])
            return c->direct[(uint64_t)form * t->n_terms + b[1]];
    }
    return NONE;
}

/* Records that the step of `form` on `cls` just computed read the actions
 * of c->consulted (at most BEHAV_MAX records per form). */
static void behav_keep(mask_sim *c, uint32_t form, uint32_t cls)
{
    uint32_t n = 0;
    for (uint32_t r = c->form_behav.v[form]; r != NONE; r = c->behav.v[r])
        n++;
    if (n >= BEHAV_MAX)
        return;
    uint32_t at = c->behav.n;
    if (!gcg_vec_reserve(&c->behav, 3 + c->consulted.n))
        return (void)fail(c, GCG_ERR_NOMEM);
    c->behav.v[at] = c->form_behav.v[form], c->behav.v[at + 1] = cls, c->behav.v[at + 2] = c->consulted.n;
    memcpy(c->behav.v + at + 3, c->consulted.v, (size_t)c->consulted.n * sizeof *c->consulted.v);
    c->behav.n += 3 + c->consulted.n;
    c->form_behav.v[form] = at;
}

/* The step of form `form` on class cls, computed on first use. A form is
 * one (stack set, reference) pair, so the table indexed by form and class
 * is the whole store: no hashing on the walk's path. */
OUT_OF_LINE static const uint32_t *step_get_compute(mask_sim *c, uint32_t form, uint32_t cls)
{
    uint64_t di = (uint64_t)form * c->lr->n_terms + cls;
    if (!steps_reserve(c))
        return NULL;
    uint32_t dead = form_dead(c, form);
    if (dead == NONE)
        return NULL;
    if (class_dead(c, dead, cls)) {
        c->direct[di] = DEAD_STEP;
        return c->steps.v + (size_t)DEAD_STEP * STEP_WORDS;
    }
    uint32_t idx = c->share ? behav_find(c, form, cls) : NONE; /* the plain walk simulates every class */
    if (idx == NONE) {
        uint32_t touched = c->touched;
        c->ref = c->form_ref.v[form];
        c->consulted.n = 0;
        idx = step_compute(c, c->form_set.v[form], cls);
        if (idx == NONE)
            return NULL;
        if (c->touched != touched) /* not kept: each use computes it again, and touches again */
            return c->steps.v + (size_t)idx * STEP_WORDS;
        if (c->share)
            behav_keep(c, form, cls);
    }
    c->direct[di] = idx;
    return c->steps.v + (size_t)idx * STEP_WORDS;
}

/* A step the walk has taken before is one look-up, read in line. */
static inline const uint32_t *step_get(mask_sim *c, uint32_t form, uint32_t cls)
{
    uint64_t di = (uint64_t)form * c->lr->n_terms + cls;
    if (di < c->n_direct && c->direct[di] != NONE)
        return c->steps.v + (size_t)c->direct[di] * STEP_WORDS;
    return step_get_compute(c, form, cls);
}

/* Records a step's reads as configurations at trie node `node`: a read at
 * depth d below the reference is d + offset - 1 entries to skip below the
 * run's top. */
static const uint32_t *step_replay(mask_sim *c, const uint32_t *st, uint32_t node)
{
    for (uint32_t i = 0; i < st[STEP_N_READS]; i++) {
        const uint32_t *r = c->step_reads.v + st[STEP_READS] + 2 * i;
        if (!add_config(c, node, r[0], r[1] + c->offset - 1))
            return NULL;
    }
    return st;
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
static inline void accept_range(mask_sim *c, uint32_t a, uint32_t b)
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
    if (!sorted && !gcg_sort_records(log->v, log->n / 2, 2, &c->merged)) /* resumed configurations may revisit a subtree */
        return (void)fail(c, GCG_ERR_NOMEM);
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

/* The memo entry for (node, form), or NONE; its key in *key_out. */
static uint32_t memo_find(mask_sim *c, uint32_t node, uint32_t form, uint64_t *key_out)
{
    *key_out = ((uint64_t)node << 32) | form;
    uint32_t *slot = gcg_map64_slot(&c->memo_ids, *key_out, false);
    return slot ? *slot : NONE;
}

/* Replays memo entry `id` at the current offset: its intervals (the first
 * may extend the log's last) and configurations are copied in bulk. */
static void memo_replay(mask_sim *c, uint32_t id)
{
    const uint32_t *m = c->memo.v + (size_t)id * MEMO_WORDS;
    uint32_t first = 0;
    c->touched += m[4];
    if (m[1]) {
        accept_range(c, c->memo_data.v[m[0]], c->memo_data.v[m[0] + 1]);
        first = 2;
    }
    /* one more than needed: an empty vector has no buffer to point into */
    if (!gcg_vec_reserve(&c->acc_log, m[1] - first + 1) || !gcg_vec_reserve(&c->cfgs, m[3] + 1))
        return (void)fail(c, GCG_ERR_NOMEM);
    memcpy(c->acc_log.v + c->acc_log.n, c->memo_data.v + m[0] + first, (size_t)(m[1] - first) * sizeof(uint32_t));
    c->acc_log.n += m[1] - first;
    uint32_t *out = c->cfgs.v + c->cfgs.n;
    const uint32_t *cf = c->memo_data.v + m[2];
    for (uint32_t i = 0; i < m[3]; i += 3)
        out[i] = cf[i], out[i + 1] = cf[i + 1], out[i + 2] = cf[i + 2] + c->offset - 1;
    c->cfgs.n += m[3];
}

/* Whether a subtree's memo entry (its key) was asked to be kept before;
 * notes that it is now. */
static bool memo_seen_before(mask_sim *c, uint64_t key)
{
    uint32_t *slot = gcg_map64_slot(&c->memo_seen, key, true);
    if (!slot)
        return fail(c, GCG_ERR_NOMEM);
    bool seen = *slot != NONE;
    *slot = 1;
    return seen;
}

#define MEMO_DEFER 1024u /* words: a larger entry is kept when walked twice */

/* Keeps what the walk below frame f logged as a memo entry. A large entry
 * is kept only the second time its subtree is walked: most large ones are
 * whole-vocabulary walks from a root that no other walk meets (kb_708:
 * 10.2M of 10.9M memo words were never replayed, 40 MB of pages faulted in
 * at every compile), while a small entry costs less to keep than a walk. */
static void memo_store(mask_sim *c, const frame *f)
{
    uint32_t id = c->memo.n / MEMO_WORDS, acc_n = c->acc_log.n - f->acc_mark, cfg_n = c->cfgs.n - f->cfg_mark;
    if (acc_n + cfg_n > MEMO_DEFER && !memo_seen_before(c, f->memo_key))
        return;
    if (!gcg_vec_reserve(&c->memo_data, acc_n + cfg_n + 1)) /* + 1: a walk may log nothing */
        return (void)fail(c, GCG_ERR_NOMEM);
    uint32_t at = c->memo_data.n, *out = c->memo_data.v + at, n = 0;
    for (uint32_t i = f->acc_mark; i < c->acc_log.n; i += 2) { /* neighbours merged: replays copy */
        if (n && out[n - 1] == c->acc_log.v[i])
            out[n - 1] = c->acc_log.v[i + 1];
        else
            out[n] = c->acc_log.v[i], out[n + 1] = c->acc_log.v[i + 1], n += 2;
    }
    c->memo_data.n += n;
    uint32_t rec[MEMO_WORDS] = {at, n, at + n, cfg_n, c->touched != f->touch_mark};
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

/* Starts recording the walk below frame f as a memo entry (memo_store keeps
 * it when the walk is done): no interval logged before may grow into it. */
static void memo_begin(mask_sim *c, frame *f)
{
    f->acc_mark = c->acc_floor = c->acc_log.n, f->cfg_mark = c->cfgs.n, f->touch_mark = c->touched, f->memo = 1;
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

/* The lowest form of (set, ref) one level down, or false when there is none.
 * With `any_ref` the reference need not be all the states below the common
 * bottom state K: the form returned is then more general than (set, ref). */
static bool lower_once(mask_sim *c, uint32_t *set, uint32_t *ref, bool any_ref)
{
    uint32_t start = c->sset_start.v[*set], n = c->sset_len.v[*set], k1 = NONE;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t *w = c->stack_data.v + c->stack_start.v[c->sset_data.v[start + i]];
        if (w[0] != 0 || w[1] == 0 || (k1 != NONE && w[2] != k1))
            return false;
        k1 = w[2];
    }
    uint32_t one = lset_intern(c, &k1, 1);
    if (one == NONE || (!any_ref && lset_below(c, one, 1) != *ref))
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

/* The lowest equivalent form of form f, and the levels it drops in *drop
 * (cached per form); NONE on failure. */
static uint32_t form_lowest(mask_sim *c, uint32_t f, uint32_t *drop)
{
    if (c->form_low.v[f] == NONE) {
        uint32_t set = c->form_set.v[f], ref = c->form_ref.v[f], n = 0;
        while (c->st == GCG_OK && lower_once(c, &set, &ref, false))
            n++;
        uint32_t low = c->st == GCG_OK ? form_of(c, set, ref) : NONE;
        if (low == NONE)
            return NONE;
        c->form_low.v[f] = low, c->form_drop.v[f] = n;
    }
    *drop = c->form_drop.v[f];
    return c->form_low.v[f];
}

/* Frame f in its lowest equivalent form. */
static void lower_frame(mask_sim *c, frame *f)
{
    uint32_t drop, low = form_lowest(c, f->form, &drop);
    if (low != NONE)
        f->form = low, f->offset -= drop;
}

/* Frame f in its lowest form; true when a walk below its node in that form
 * is known and has just been replayed. */
static bool memo_replayed(mask_sim *c, frame *f)
{
    lower_frame(c, f);
    c->offset = f->offset;
    uint32_t id = memo_find(c, f->node, f->form, &f->memo_key);
    if (id != NONE)
        memo_replay(c, id);
    return id != NONE;
}

/* ---- subtrees that keep the stacks ----------------------------------------
 *
 * Inside a string body an ordinary byte takes the stacks back to where they
 * were: the step of a form on its class leads, in lowest form, to the same
 * form, and reads nothing. Such a form is a loop, and its loop bytes are the
 * bytes that keep it. A step into a loop whose loop bytes hold every byte
 * below the trie node entered accepts every token below it with nothing
 * read, so the subtree is taken whole instead of walked (from a JSON string
 * body, about three quarters of the Llama 3 trie). A form's loop bytes are
 * found when a step first shows it to be a loop, then kept: so only a few
 * forms pay for stepping every byte class. */

#define LOOP_WORDS 5 /* per loop: 256 loop bits, then flags */
#define LOOP_CHARS 1u /* the loop keeps every non-ASCII character */

/* The lowest form of step st's outcome, kept in the step. */
static uint32_t step_lowest(mask_sim *c, const uint32_t *st)
{
    uint32_t *low = c->steps.v + (st - c->steps.v) + STEP_LOW, drop;
    if (*low == NONE)
        *low = form_lowest(c, st[STEP_FORM], &drop);
    return *low;
}

#define CHAR_PAIRS 64 /* (form, decoder state) pairs a character check may visit */
#define CHAR_STATES GCG_U8_BAD /* form_char: a bit per decoder state below the loop */

/* Whether every well-formed non-ASCII character the vocabulary can spell
 * takes the lowest form `low` back to itself with nothing read, its partial
 * sequences alive on the way: a depth-first search over (lowest form, UTF-8
 * decoder state) pairs, each byte of the trie stepped from each pair (a
 * JSON string body: yes; a grammar that excludes some characters: no, and
 * its subtrees are walked). When it does, the forms met inside characters
 * are marked (form_char) with loop number `loop`: a subtree entered in one
 * of them, in the decoder state it was met in, finishes its characters and
 * goes on in the loop. */
static bool keeps_chars(mask_sim *c, uint32_t low, uint32_t loop)
{
    uint32_t form[CHAR_PAIRS], n = 1, todo[CHAR_PAIRS], n_todo = 1;
    uint8_t state[CHAR_PAIRS];
    form[0] = low, state[0] = GCG_U8_START, todo[0] = 0;
    while (n_todo && c->st == GCG_OK) {
        uint32_t i = todo[--n_todo];
        for (uint32_t j = 0; j < c->n_utf8_steps[state[i]]; j++) {
            uint32_t cls = c->utf8_steps[state[i]][j] >> 4;
            uint8_t next = c->utf8_steps[state[i]][j] & 15;
            const uint32_t *st = step_get(c, form[i], cls);
            if (!st || st[STEP_FORM] == NONE || st[STEP_FORM] == BIG || st[STEP_N_READS])
                return false;
            uint32_t f = step_lowest(c, st), k = 0;
            if (next == GCG_U8_START) {
                if (f != low)
                    return false;
                continue;
            }
            while (k < n && !(form[k] == f && state[k] == next))
                k++;
            if (k < n)
                continue;
            if (n == CHAR_PAIRS || f == NONE)
                return false;
            form[n] = f, state[n] = next, todo[n_todo++] = n++;
        }
    }
    for (uint32_t i = 1; i < n && c->st == GCG_OK; i++) { /* form[0] is the loop itself */
        uint32_t *mark = &c->form_char.v[form[i]];
        if (*mark == NONE || *mark >> CHAR_STATES == loop)
            *mark = loop << CHAR_STATES | (*mark == NONE ? 0 : *mark & ((1u << CHAR_STATES) - 1)) | 1u << state[i];
    }
    return c->st == GCG_OK;
}

/* The bytes whose step takes the lowest form `low` back to itself with
 * nothing read, 256 bits, and whether it keeps every non-ASCII character
 * (LOOP_CHARS in the fifth word): cached in form_loop. */
static const uint64_t *loop_bytes(mask_sim *c, uint32_t low)
{
    if (c->form_loop.v[low] != NONE)
        return c->loops + LOOP_WORDS * (size_t)c->form_loop.v[low];
    if (c->n_loops == c->cap_loops) {
        uint32_t cap = c->cap_loops ? 2 * c->cap_loops : 64;
        uint64_t *l = realloc(c->loops, (size_t)cap * LOOP_WORDS * sizeof *l);
        if (!l)
            return fail(c, GCG_ERR_NOMEM), NULL;
        c->loops = l, c->cap_loops = cap;
    }
    uint64_t bytes[LOOP_WORDS] = {0};
    for (uint32_t i = 0; i < c->n_classes && c->st == GCG_OK; i++) {
        uint32_t cls = c->class_order[i];
        const uint32_t *st = step_get(c, low, cls);
        if (st && st[STEP_FORM] != NONE && st[STEP_FORM] != BIG && !st[STEP_N_READS] && step_lowest(c, st) == low)
            for (uint32_t w = 0; w < 4; w++)
                bytes[w] |= c->class_bytes[cls][w];
    }
    if (c->st == GCG_OK && (bytes[0] | bytes[1]) && keeps_chars(c, low, c->n_loops))
        bytes[4] = LOOP_CHARS;
    if (c->st != GCG_OK)
        return NULL;
    memcpy(c->loops + LOOP_WORDS * (size_t)c->n_loops, bytes, sizeof bytes);
    c->form_loop.v[low] = c->n_loops++;
    return c->loops + LOOP_WORDS * (size_t)c->form_loop.v[low];
}

/* The loop bytes of the lowest form `low`: computed when a step has just
 * shown it to be a loop (`fixed`), else only looked up. */
static const uint64_t *loop_of(mask_sim *c, uint32_t low, bool fixed)
{
    if (fixed)
        return loop_bytes(c, low);
    return c->form_loop.v[low] != NONE ? c->loops + LOOP_WORDS * (size_t)c->form_loop.v[low] : NULL;
}

/* Whether the loop `keep` (its loop bytes and flags) holds the whole subtree
 * below trie node n: every byte below is a loop byte, or the subtree is
 * well-formed UTF-8 from a character boundary, its ASCII bytes are loop
 * bytes and the loop keeps every non-ASCII character (the Llama 3 tokens of
 * Chinese, Cyrillic or accented text in a string body). */
static bool loop_holds(const mask_sim *c, const uint64_t *keep, uint32_t n)
{
    const uint32_t both = TRIE_UTF8_BOUNDARY | TRIE_UTF8_BELOW_OK;
    if (gcg_trie_below_within(c->trie, n, keep))
        return true;
    return (keep[4] & LOOP_CHARS) && (c->trie->utf8[n] & both) == both &&
           gcg_trie_below_ascii_within(c->trie, n, keep);
}

/* Whether the subtree below trie node n, entered in the lowest form `low`,
 * is taken whole because it lies inside a character of a loop that keeps
 * every character (keeps_chars): n's decoder state is one `low` was met in,
 * everything below stays well-formed, and its ASCII bytes (after the
 * character ends) are the loop's. */
static bool char_holds(const mask_sim *c, uint32_t low, uint32_t n)
{
    uint32_t mark = c->form_char.v[low], u = c->trie->utf8[n];
    if (mark == NONE || !(u & TRIE_UTF8_BELOW_OK) || !((mark >> TRIE_UTF8_STATE(u)) & 1))
        return false;
    return gcg_trie_below_ascii_within(c->trie, n, c->loops + LOOP_WORDS * (size_t)(mark >> CHAR_STATES));
}

/* ---- general walks --------------------------------------------------------
 *
 * A lowest form whose stacks all start with the same state K, over a
 * reference smaller than the states that can lie below K, holds on to its
 * context: inside a JSON string entered after `"name": ` the reference is
 * the state before the quote, so the body, most of the trie, was walked
 * once for every place a string can stand. The general form drops that:
 * the stacks without K over the reference {K}, which every such place
 * shares. Its walk (memoized once for all) stops where the real stack below
 * K is needed, leaving read configurations; those the context answers are
 * resumed at once, the others kept. The tokens accepted and configurations
 * left are those of walking the form itself: a walk only ever learns about
 * the stack below K through those reads. */

static void walk(mask_sim *c, frame top);
static IN_LINE bool enter_child(mask_sim *c, const frame *from, uint32_t child, frame *to);
static bool form_frame(mask_sim *c, uint32_t node, uint32_t form, uint32_t offset, frame *f);

/* The general form of lowest form f, or DEAD when it has none (cached). */
static uint32_t form_general(mask_sim *c, uint32_t f)
{
    if (c->form_gen.v[f] == NONE) {
        uint32_t set = c->form_set.v[f], ref = c->form_ref.v[f], g = DEAD;
        if (lower_once(c, &set, &ref, true))
            g = form_of(c, set, ref);
        if (c->st != GCG_OK || g == NONE)
            return DEAD;
        c->form_gen.v[f] = g;
    }
    return c->form_gen.v[f];
}

/* Walks below frame `top` with frames of its own, so that a walk can be
 * started while another is in progress (one nesting per trie level). */
static void walk_nested(mask_sim *c, frame top)
{
    if (c->depth_nested > c->trie->max_depth + 1) { /* each nesting starts deeper in the trie */
        gcg_diag_add(c->diag, GCG_SEV_ERROR, 0, 0, "mask simulation: walks nested deeper than the trie");
        return (void)fail(c, GCG_ERR_LIMIT);
    }
    if (!c->nested[c->depth_nested] &&
        !(c->nested[c->depth_nested] = malloc((size_t)c->cap_frames * sizeof **c->nested)))
        return (void)fail(c, GCG_ERR_NOMEM);
    frame *saved = c->frames;
    c->frames = c->nested[c->depth_nested++];
    walk(c, top);
    c->frames = saved;
    c->depth_nested--;
}

/* The form of the stack [to] over reference set `ref`, where a read that a
 * general walk logged resumes: cached per (ref, to) (a large grammar
 * resolves millions of reads over far fewer pairs); NONE on failure. */
static uint32_t nested_form(mask_sim *c, uint32_t ref, uint32_t to)
{
    uint64_t key = (uint64_t)ref << 32 | to;
    uint32_t *slot = ref == NONE ? NULL : gcg_map64_slot(&c->nested_forms, key, false);
    if (slot)
        return *slot;
    uint32_t w[3] = {0, 1, to}, id = ref == NONE ? NONE : stack_intern(c, w);
    uint32_t set = id == NONE ? NONE : set_intern(c, &id, 1);
    uint32_t form = set == NONE ? NONE : form_of(c, set, ref);
    if (form == NONE)
        return NONE;
    if (!(slot = gcg_map64_slot(&c->nested_forms, key, true)))
        return fail(c, GCG_ERR_NOMEM), NONE;
    return *slot = form;
}

/* The configurations logged since f's mark that f's reference answers are
 * resumed; the others stay. All the reads one general walk logs are almost
 * always at one (lhs, depth) (kb_708: 1,580,720 reads in 12,208 walks, one
 * pair each), so the goto, the reference below and the frame they resume
 * from are found once per pair met, not once per read. */
static void resolve_reads(mask_sim *c, const frame *f)
{
    uint32_t n = c->cfgs.n - f->cfg_mark;
    if (n == 0)
        return;
    uint32_t *cf = malloc((size_t)n * sizeof *cf);
    if (!cf)
        return (void)fail(c, GCG_ERR_NOMEM);
    memcpy(cf, c->cfgs.v + f->cfg_mark, (size_t)n * sizeof *cf);
    c->cfgs.n = f->cfg_mark;
    uint32_t ref = c->form_ref.v[f->form], lhs = NONE, depth = NONE, to = DEAD;
    frame parent, child;
    bool resumes = false;
    for (uint32_t i = 0; i < n && c->st == GCG_OK; i += 3) {
        uint32_t d = cf[i + 2] + 1 - f->offset; /* below f's reference */
        if (cf[i + 1] != lhs || d != depth) {
            lhs = cf[i + 1], depth = d;
            to = depth > MAX_DEPTH ? READ : consensus(c, ref, depth, lhs);
            /* resumed at the goto `to` taken from the reference set below */
            resumes = to != READ && to != DEAD &&
                      form_frame(c, NONE, nested_form(c, lset_below(c, ref, depth), to), f->offset + depth, &parent);
        }
        if (to == READ) {
            add_config(c, cf[i], cf[i + 1], cf[i + 2]);
        } else if (resumes) {
            parent.node = cf[i], parent.child = cf[i] + 1;
            if (enter_child(c, &parent, cf[i], &child))
                walk_nested(c, child);
        }
    }
    free(cf);
}

/* Puts the accepted intervals logged from `from` on in order again: those
 * before `mid` (one walk, in trie order) and those after (resumed walks,
 * each in order but overlapping), so that the run's log stays sorted. */
static void merge_log(mask_sim *c, uint32_t from, uint32_t mid)
{
    vec *log = &c->acc_log;
    uint32_t n = log->n;
    bool sorted = true;
    for (uint32_t i = mid + 2; i < n && sorted; i += 2)
        sorted = log->v[i] >= log->v[i - 2];
    if (!sorted && !gcg_sort_records(log->v + mid, (n - mid) / 2, 2, &c->merged))
        return (void)fail(c, GCG_ERR_NOMEM);
    if (mid == from || mid == n || log->v[mid - 2] <= log->v[mid])
        return;
    c->merged.n = 0;
    if (!gcg_vec_reserve(&c->merged, n - from))
        return (void)fail(c, GCG_ERR_NOMEM);
    uint32_t i = from, j = mid, *out = c->merged.v;
    while (i < mid || j < n) {
        uint32_t *src = j >= n || (i < mid && log->v[i] <= log->v[j]) ? &i : &j;
        *out++ = log->v[*src], *out++ = log->v[*src + 1];
        *src += 2;
    }
    memcpy(log->v + from, c->merged.v, (size_t)(n - from) * sizeof *log->v);
}

/* Walks frame f (a lowest form, memo miss, recording) through its general
 * form g and records it. */
static void walk_general(mask_sim *c, frame f, uint32_t g)
{
    uint32_t drop;
    frame gf = {.node = f.node, .child = f.child, .form = g, .offset = f.offset - 1, .memo_key = UINT64_MAX,
                .low = form_lowest(c, g, &drop)};
    c->offset = gf.offset;
    uint32_t id = memo_find(c, f.node, g, &gf.memo_key);
    if (id != NONE) {
        memo_replay(c, id);
    } else {
        memo_begin(c, &gf);
        walk_nested(c, gf);
    }
    uint32_t mid = c->acc_log.n;
    resolve_reads(c, &f);
    merge_log(c, f.acc_mark, mid);
    if (c->st == GCG_OK)
        memo_store(c, &f);
}

/* ---- walks on a graph-structured stack ------------------------------------
 *
 * A step that would make a form of more than GSS_MIN stacks (or shift more
 * than GSS_SHIFTS) got there by forks: realistic grammars stay below a
 * hundred, while an ambiguous one multiplies its stacks with every byte,
 * and a list of stacks costs a step per stack per byte. (Below that the
 * lists win: their steps are cached per form and class, a graph's are not;
 * from 32 stacks, some converter grammars took a third more instructions.)
 * Such a step is not made: it is BIG_STEP, and the child it leads to is
 * walked, with the subtree below it, on a graph-structured stack seeded
 * with the form before it (mask_gss.h): the same tokens accepted and the
 * same reads, memoized under (child, form) (gss_enter). The reference
 * stays where the form has it, so a read's depth is below the form's
 * reference and its skip counts from the form's offset. */

/* The consensus below the reference of the walk in hand (mask_gss.h). */
static uint32_t gss_below(void *ctx, uint32_t depth, uint32_t lhs)
{
    mask_sim *c = ctx;
    if (depth > MAX_DEPTH) {
        gcg_diag_add(c->diag, GCG_SEV_ERROR, 0, 0, "a reduction pops more than %u stack entries", MAX_DEPTH);
        return fail(c, GCG_ERR_LIMIT), GSS_DEAD;
    }
    uint32_t to = consensus(c, c->ref, depth, lhs);
    return to == READ ? GSS_READ : to == DEAD ? GSS_DEAD : to;
}

/* Notes a failure of the graph walk in the run's status. */
static void gss_failed(mask_sim *c)
{
    if (c->gss.st == GCG_ERR_LIMIT)
        gcg_limit_error(c->diag, 0, 0, "mask simulation: too many symbolic stack nodes", c->limits.max_stacks,
                        "max-sim-stacks");
    fail(c, c->gss.st);
}

static void gss_children(mask_sim *c, gss_level lv, uint32_t node);

/* Trie node `node` after the graph's step into it: the step's reads as its
 * configurations, and its token accepted unless every stack died. */
static void gss_record(mask_sim *c, uint32_t node, gss_level next)
{
    for (uint32_t i = 0; i < c->gss.reads.n && c->st == GCG_OK; i += 2)
        add_config(c, node, c->gss.reads.v[i], c->gss.reads.v[i + 1] + c->offset - 1);
    if (next.hi > next.lo)
        accept_range(c, node, node + 1);
}

/* Whether the walk goes into trie node ch (a subtree too short to matter
 * below the shallow bound is left out, as in the list walk). */
static bool gss_enters(const mask_sim *c, uint32_t ch)
{
    return !(c->shallow && c->trie->height[ch] <= c->shallow);
}

/* Takes the trie nodes among `first` and its later siblings under `parent`
 * whose byte is of class cls, from level lv: one step for them all, then
 * each one's reads, acceptance and subtree. */
static void gss_class(mask_sim *c, gss_level lv, uint32_t parent, uint32_t first, uint32_t cls)
{
    const token_trie *tr = c->trie;
    gss_mark m = gcg_gss_mark(&c->gss);
    gss_level next = gcg_gss_step(&c->gss, lv, cls, gss_below, c);
    if (c->gss.st != GCG_OK)
        return gss_failed(c);
    for (uint32_t ch = first; ch < tr->end[parent] && c->st == GCG_OK; ch = tr->end[ch])
        if (c->class_of[tr->byte[ch]] == cls && gss_enters(c, ch)) {
            c->visits++;
            gss_record(c, ch, next);
        }
    for (uint32_t ch = first; next.hi > next.lo && ch < tr->end[parent] && c->st == GCG_OK; ch = tr->end[ch])
        if (c->class_of[tr->byte[ch]] == cls && gss_enters(c, ch))
            gss_children(c, next, ch);
    gcg_gss_rewind(&c->gss, m);
}

/* Walks the children of trie node `node`, each with its subtree, from level
 * lv: children whose bytes are of one class share the step (byte classes
 * are what the LR tables tell apart). */
static void gss_children(mask_sim *c, gss_level lv, uint32_t node)
{
    const token_trie *tr = c->trie;
    uint64_t done[4] = {0};
    for (uint32_t ch = node + 1; ch < tr->end[node] && c->st == GCG_OK; ch = tr->end[ch]) {
        uint32_t cls = c->class_of[tr->byte[ch]];
        if (!gss_enters(c, ch) || (done[cls >> 6] >> (cls & 63) & 1))
            continue;
        done[cls >> 6] |= 1ull << (cls & 63);
        gss_class(c, lv, node, ch, cls);
    }
}

/* Walks trie node `node` and the subtree below it from level lv. */
static void gss_subtree(mask_sim *c, gss_level lv, uint32_t node)
{
    const token_trie *tr = c->trie;
    gss_mark m = gcg_gss_mark(&c->gss);
    gss_level next = gcg_gss_step(&c->gss, lv, c->class_of[tr->byte[node]], gss_below, c);
    if (c->gss.st != GCG_OK)
        return gss_failed(c);
    gss_record(c, node, next);
    if (next.hi > next.lo)
        gss_children(c, next, node);
    gcg_gss_rewind(&c->gss, m);
}

/* Walks trie node `child` and below from frame `from` on a graph-structured
 * stack seeded with its form (whose stacks all have a known top: big_ok). */
static void gss_walk(mask_sim *c, const frame *from, uint32_t child)
{
    uint32_t set = c->form_set.v[from->form], first = c->sset_start.v[set], n = c->sset_len.v[set];
    if (c->gss_form != from->form) { /* the siblings that follow share it */
        gcg_gss_rewind(&c->gss, (gss_mark){0, 0});
        c->gss_top = gcg_gss_seed(&c->gss, c->stack_data.v, c->stack_start.v, c->sset_data.v + first, n);
        c->gss_form = from->form;
    }
    c->ref = c->form_ref.v[from->form], c->offset = from->offset;
    gss_mark m = gcg_gss_mark(&c->gss);
    if (c->gss.st != GCG_OK)
        gss_failed(c);
    else
        gss_subtree(c, c->gss_top, child);
    gcg_gss_rewind(&c->gss, m);
}

/* Walks trie node `child` and below from frame `from` on a graph-structured
 * stack, or replays that walk: it depends only on the child and the form,
 * so it is kept in the memo under their pair (bit 63 set: no node of the
 * trie has bit 31, so no subtree walk has such a key). */
static void gss_enter(mask_sim *c, const frame *from, uint32_t child)
{
    frame f = {.node = child, .form = from->form, .offset = from->offset,
               .memo_key = 1ull << 63 | (uint64_t)child << 32 | from->form};
    uint32_t *slot = gcg_map64_slot(&c->memo_ids, f.memo_key, false);
    c->offset = from->offset;
    if (slot) {
        memo_replay(c, *slot);
        return;
    }
    bool whole = c->trie->depth[child] >= c->shallow; /* as enter_child's memo */
    if (whole)
        memo_begin(c, &f);
    gss_walk(c, from, child);
    if (whole && c->st == GCG_OK)
        memo_store(c, &f);
}

/* Whether the subtree below `child`, entered by step st, is accepted whole
 * (a loop keeps every byte below it); *low: the lowest form of st's outcome. */
OUT_OF_LINE static bool enter_whole(mask_sim *c, const frame *from, const uint32_t *st, uint32_t child,
                                    uint32_t *low)
{
    uint32_t reads = st[STEP_N_READS];
    *low = step_lowest(c, st);
    const uint64_t *keep = reads || *low == NONE ? NULL : loop_of(c, *low, *low == from->low);
    if ((keep && loop_holds(c, keep, child)) || (!reads && *low != NONE && char_holds(c, *low, child))) {
        accept_range(c, child, c->trie->end[child]);
        return true;
    }
    return false;
}

/* Whether enter_whole must be asked: false when st's lowest form is known
 * and can be no loop (a loop or a character mark would be known by now,
 * unless the form is the one walked from, whose loop bytes enter_whole
 * finds); enter_whole would then answer false. */
static inline bool may_be_whole(const mask_sim *c, const frame *from, const uint32_t *st)
{
    uint32_t low = st[STEP_LOW];
    return low == NONE || (!st[STEP_N_READS] && (low == from->low || c->form_loop.v[low] != NONE ||
                                                 c->form_char.v[low] != NONE));
}

/* Frame `to` heads a subtree of at least MEMO_MIN nodes: replayed when known,
 * else recorded, and walked in its general form where it has one; true when
 * the caller is to walk it. */
OUT_OF_LINE static bool enter_large(mask_sim *c, frame *to)
{
    if (memo_replayed(c, to))
        return false;
    if (c->trie->depth[to->node] < c->shallow)
        return true; /* some subtrees below are skipped: not a whole walk */
    memo_begin(c, to);
    uint32_t g = c->share ? form_general(c, to->form) : DEAD;
    if (g == DEAD)
        return true;
    walk_general(c, *to, g);
    return false;
}

/* Enters trie node `child` below frame `from`: steps its byte, logs what it
 * accepts and reads; true when the caller is to walk below it from frame
 * `to` (false when every stack dies, or the subtree was taken whole or
 * replayed from the memo, so there is nothing to walk). The common case (a
 * step known, nothing read, a small subtree) is read in line: a walk enters
 * millions of nodes. */
static IN_LINE bool enter_child(mask_sim *c, const frame *from, uint32_t child, frame *to)
{
    c->visits++;
    c->offset = from->offset;
    const uint32_t *st = step_get(c, from->form, c->class_of[c->trie->byte[child]]);
    if (st && st[STEP_FORM] == BIG) {
        gss_enter(c, from, child);
        return false;
    }
    if (!st || (st[STEP_N_READS] && !step_replay(c, st, child)) || st[STEP_FORM] == NONE)
        return false;
    /* st is read before enter_whole: stepping a loop's bytes may move the steps */
    uint32_t end = c->trie->end[child], form = st[STEP_FORM], drop = st[STEP_DROP], low = NONE;
    if (c->share && end != child + 1) {
        if (!may_be_whole(c, from, st))
            low = st[STEP_LOW];
        else if (enter_whole(c, from, st, child, &low))
            return false;
    }
    accept_range(c, child, child + 1);
    if (end == child + 1)
        return false; /* a leaf: nothing below */
    *to = (frame){.node = child, .child = child + 1, .form = form, .offset = from->offset + drop,
                  .memo_key = UINT64_MAX, .low = low};
    return end - child < MEMO_MIN || enter_large(c, to);
}

/* The next child of frame f's node to enter, or NONE. A child on whose
 * class every stack dies at once is passed over without touching its step;
 * the root's children come from a compact table, sparing the trie's arrays
 * (every run starts there, and most of the 256 die). */
static uint32_t next_child(mask_sim *c, frame *f)
{
    const token_trie *tr = c->trie;
    if (f->node == 0) {
        for (; f->kid < c->n_root_kids; f->kid++) {
            const root_kid *k = &c->root_kids[f->kid];
            if (!(c->shallow && k->height <= c->shallow) && !class_dead(c, f->dead, k->cls)) {
                f->kid++;
                return k->node;
            }
        }
        return NONE;
    }
    while (f->child < tr->end[f->node]) {
        uint32_t ch = f->child;
        f->child = tr->end[ch];
        if (!(c->shallow && tr->height[ch] <= c->shallow) && !class_dead(c, f->dead, c->class_of[tr->byte[ch]]))
            return ch;
    }
    return NONE;
}

/* Depth-first walk below the frame `top`'s trie node. */
static void walk(mask_sim *c, frame top)
{
    uint32_t depth = 0;
    c->frames[0] = top;
    c->frames[0].dead = form_dead(c, top.form);
    while (c->st == GCG_OK) {
        frame *f = &c->frames[depth];
        uint32_t ch = next_child(c, f);
        if (ch == NONE) {
            if (f->memo == 1)
                memo_store(c, f);
            if (depth-- == 0)
                return;
            continue;
        }
        if (enter_child(c, f, ch, &c->frames[depth + 1])) {
            depth++;
            c->frames[depth].dead = form_dead(c, c->frames[depth].form);
        }
    }
}

/* A frame at trie node `node` in form `form`, offset `offset`; false on
 * failure (form NONE). */
static bool form_frame(mask_sim *c, uint32_t node, uint32_t form, uint32_t offset, frame *f)
{
    uint32_t drop;
    *f = (frame){.node = node, .child = node + 1, .form = form, .offset = offset, .memo_key = UINT64_MAX, .low = NONE};
    if (form != NONE && c->share)
        f->low = form_lowest(c, form, &drop);
    return form != NONE && c->st == GCG_OK;
}

/* A frame at trie node `node` holding the stack set `set` over the
 * reference `ref`, offset `offset`; false on failure. */
static bool frame_at(mask_sim *c, uint32_t node, uint32_t set, uint32_t ref, uint32_t offset, frame *f)
{
    uint32_t form = set == NONE || ref == NONE ? NONE : form_of(c, set, ref);
    return form_frame(c, node, form, offset, f);
}

/* A frame at trie node `node` holding the single stack w over the
 * reference {state}; false on failure. */
static bool single_frame(mask_sim *c, uint32_t node, uint32_t state, const uint32_t *w, frame *f)
{
    uint32_t s = state, ref = lset_intern(c, &s, 1), id = stack_intern(c, w);
    uint32_t set = id == NONE ? NONE : set_intern(c, &id, 1);
    return frame_at(c, node, set, ref, 0, f);
}

/* ---- runs ----------------------------------------------------------------- */

/* The root's children in order, with what next_child asks of each. */
static gcg_status build_root_kids(mask_sim *c)
{
    const token_trie *tr = c->trie;
    uint32_t n = 0;
    for (uint32_t ch = 1; ch < tr->end[0]; ch = tr->end[ch])
        n++;
    c->root_kids = malloc(((size_t)n + 1) * sizeof *c->root_kids);
    if (!c->root_kids)
        return GCG_ERR_NOMEM;
    c->n_root_kids = 0;
    for (uint32_t ch = 1; ch < tr->end[0]; ch = tr->end[ch])
        c->root_kids[c->n_root_kids++] = (root_kid){ch, tr->height[ch], c->class_of[tr->byte[ch]]};
    return GCG_OK;
}

/* Per UTF-8 decoder state, the distinct (byte class, next decoder state)
 * pairs of the non-ASCII bytes some token holds that the decoder takes, in
 * the order of their lowest byte: what keeps_chars steps from each (form,
 * decoder state) pair it meets, without scanning 128 bytes each time. */
static void build_utf8_steps(mask_sim *c)
{
    const uint64_t *used = c->trie->below_sets + 4 * (size_t)c->trie->below[0]; /* every token byte */
    for (uint32_t st = 0; st < GCG_U8_BAD; st++) {
        uint16_t tried[256] = {0}; /* per class: the decoder states already listed */
        for (uint32_t b = 0x80; b < 256; b++) {
            uint8_t next = gcg_utf8_next((uint8_t)st, (uint8_t)b), cls = c->class_of[b];
            if (next == GCG_U8_BAD || !((used[b >> 6] >> (b & 63)) & 1) || (tried[cls] >> next & 1))
                continue;
            tried[cls] |= (uint16_t)(1u << next);
            c->utf8_steps[st][c->n_utf8_steps[st]++] = (uint16_t)(cls << 4 | next);
        }
    }
}

/* Each byte class's bytes, and the classes in the order of their lowest
 * byte (the order a walk over the 256 bytes would first meet them). */
static void build_classes(mask_sim *c)
{
    for (uint32_t b = 0; b < 256; b++) {
        uint32_t cls = c->class_of[b];
        bool met = c->class_bytes[cls][0] | c->class_bytes[cls][1] | c->class_bytes[cls][2] |
                   c->class_bytes[cls][3];
        if (!met)
            c->class_order[c->n_classes++] = (uint8_t)cls;
        c->class_bytes[cls][b >> 6] |= 1ull << (b & 63);
    }
}

gcg_status gcg_mask_sim_init(mask_sim *s, const lr_tables *lr, const token_trie *trie, const uint8_t *class_of,
                             const gcg_limits *limits, gcg_diag *diag)
{
    memset(s, 0, sizeof *s);
    s->resume_q = s->resume_to = NONE;
    s->lr = lr, s->trie = trie, s->class_of = class_of, s->diag = diag;
    s->limits = gcg_limits_or_default(limits);
    s->cap_frames = trie->max_depth + 2;
    s->frames = malloc((size_t)s->cap_frames * sizeof *s->frames);
    s->nested = calloc((size_t)s->cap_frames + 1, sizeof *s->nested);
    s->st = s->frames && s->nested ? build_pred(s) : GCG_ERR_NOMEM;
    const uint32_t fixed[2][STEP_WORDS] = {{[STEP_FORM] = NONE, [STEP_LOW] = NONE},  /* DEAD_STEP */
                                           {[STEP_FORM] = BIG, [STEP_LOW] = NONE}}; /* BIG_STEP */
    for (uint32_t i = 0; i < 2 * STEP_WORDS && s->st == GCG_OK; i++)
        if (!gcg_vec_push(&s->steps, fixed[i / STEP_WORDS][i % STEP_WORDS]))
            s->st = GCG_ERR_NOMEM;
    if (s->st == GCG_OK)
        s->st = build_pending(s);
    if (s->st == GCG_OK)
        s->st = build_root_kids(s);
    if (s->st == GCG_OK)
        s->st = build_long_gotos(s);
    build_classes(s);
    build_utf8_steps(s);
    if (s->st == GCG_OK)
        s->st = gcg_gss_init(&s->gss, lr, s->limits.max_stacks);
    s->gss_form = NONE;
    return s->st;
}

void gcg_mask_sim_free(mask_sim *c)
{
    for (uint32_t i = 0; c->nested && i <= c->cap_frames; i++)
        free(c->nested[i]);
    free(c->nested);
    free(c->pred_first), free(c->pred), free(c->pending), free(c->err), free(c->stamp);
    free(c->frames), free(c->direct), free(c->loops), free(c->root_kids);
    gcg_gss_free(&c->gss);
    vec *vs[] = {&c->layer, &c->next_layer, &c->arena, &c->work, &c->cfgs, &c->stack_start, &c->stack_data,
                 &c->sset_start, &c->sset_len, &c->sset_data, &c->steps, &c->step_reads, &c->ids,
                 &c->lset_start, &c->lset_len, &c->lset_data, &c->reads, &c->acc_log, &c->memo,
                 &c->memo_data, &c->pos, &c->merged, &c->form_set, &c->form_ref, &c->form_low, &c->form_drop,
                 &c->form_loop, &c->form_gen, &c->form_dead, &c->form_char, &c->dead, &c->form_behav,
                 &c->behav, &c->consulted, &c->seen_data, &c->seen_slots, &c->lset_shared};
    for (size_t i = 0; i < sizeof vs / sizeof *vs; i++)
        gcg_vec_free(vs[i]);
    map64 *ms[] = {&c->long_gotos, &c->consensus, &c->stack_ids, &c->sset_ids, &c->lset_ids, &c->lset_down,
                   &c->memo_ids, &c->form_ids, &c->resume_forms, &c->nested_forms, &c->seen, &c->memo_seen,
                   &c->shared_ids};
    for (size_t i = 0; i < sizeof ms / sizeof *ms; i++)
        gcg_map64_free(ms[i]);
}

void gcg_mask_sim_begin(mask_sim *c)
{
    c->cfgs.n = 0;
    c->acc_log.n = c->acc_floor = 0;
}

/* Walks the whole trie from the single stack w = [0, 1, top] over the
 * reference `ref`, `offset` entries below the run's top. Its pending
 * reductions come first (pre_reduce), then the walk starts from the reduced
 * stack in its lowest form, and a form that some root walk has taken
 * before is replayed from the memo: the states that close a key trie's
 * node (each a reduction whatever the next byte) share the walk of the
 * state they reduce to. With `shallow` set the walk is partial, and none of
 * this applies. */
static void root_run(mask_sim *c, uint32_t *w, uint32_t ref, uint32_t offset)
{
    bool whole = c->share && !c->shallow && ref != NONE;
    if (whole) {
        c->ref = ref;
        pre_reduce(c, w);
        if (w[0] > 0)
            ref = lset_below(c, ref, w[0]), offset += w[0], w[0] = 0;
    }
    uint32_t id = ref == NONE ? NONE : stack_intern(c, w);
    uint32_t set = id == NONE ? NONE : set_intern(c, &id, 1);
    frame f;
    if (!frame_at(c, 0, set, ref, offset, &f))
        return;
    if (whole) {
        if (memo_replayed(c, &f)) {
            uint32_t *slot = gcg_map64_slot(&c->memo_ids, f.memo_key, false);
            c->replayed = (uint64_t)*slot << 32 | f.offset;
            return;
        }
        memo_begin(c, &f);
    }
    walk(c, f);
}

/* The walk from state s starts from the known stack [s] over the states
 * that can lie below it, offset 1: the same information as s alone, but a
 * walk that reduces s away lowers its reference to where other walks
 * arrive (a state whose first byte reduces to t meets t's own walk in the
 * memo). The start state has nothing below and is its own reference. */
void gcg_mask_sim_root(mask_sim *c, uint32_t state)
{
    static const uint32_t empty[2] = {0, 0};
    uint32_t n = c->pred_first[state + 1] - c->pred_first[state], w[2 + MAX_KNOWN + 1] = {0, 1, state};
    frame f;
    c->replayed = UINT64_MAX;
    if (n == 0) {
        if (single_frame(c, 0, state, empty, &f))
            walk(c, f);
        return;
    }
    if (!gcg_vec_reserve(&c->layer, n))
        return (void)fail(c, GCG_ERR_NOMEM);
    memcpy(c->layer.v, c->pred + c->pred_first[state], (size_t)n * sizeof *c->pred);
    root_run(c, w, lset_intern(c, c->layer.v, n), 1);
}

void gcg_mask_sim_set_shallow(mask_sim *c, uint32_t shallow)
{
    c->shallow = shallow;
}

/* The form of the stack [to] over the reference {q}: what a resumed
 * configuration starts from, cached per (q, to) (a grammar resumes millions
 * of configurations over a few thousand such pairs); NONE on failure. */
static uint32_t resume_form(mask_sim *c, uint32_t q, uint32_t to)
{
    uint64_t key = (uint64_t)q << 32 | to;
    uint32_t *slot = gcg_map64_slot(&c->resume_forms, key, false), s = q;
    if (slot)
        return *slot;
    uint32_t form = nested_form(c, lset_intern(c, &s, 1), to);
    if (form == NONE)
        return NONE;
    if (!(slot = gcg_map64_slot(&c->resume_forms, key, true)))
        return fail(c, GCG_ERR_NOMEM), NONE;
    return *slot = form;
}

/* A state's configurations resume at a handful of (q, to) pairs, one after
 * another (kb_708: 2,042,261 resumes, 98.6% at the pair before), so the
 * frame a pair enters nodes from is kept for the next resume: `key` names
 * the pair's reference, q or a shared reference `shared` with bit 31 set
 * (no state number has it). */
static void resume_at(mask_sim *c, uint32_t node, uint32_t key, uint32_t to, uint32_t shared)
{
    if (c->shallow && c->trie->height[node] <= c->shallow)
        return; /* every token and configuration below is a short one */
    if (key != c->resume_q || to != c->resume_to) {
        c->resume_q = key, c->resume_to = to;
        uint32_t form = shared == NONE ? resume_form(c, key, to) : nested_form(c, shared, to);
        c->resume_ok = form_frame(c, 0, form, 0, &c->resume_parent);
    }
    if (!c->resume_ok)
        return;
    frame parent = c->resume_parent;
    parent.node = node, parent.child = node + 1;
    if (enter_child(c, &parent, node, &c->frames[0]))
        walk(c, c->frames[0]);
}

void gcg_mask_sim_resume(mask_sim *c, uint32_t node, uint32_t q, uint32_t to)
{
    resume_at(c, node, q, to, NONE);
}

void gcg_mask_sim_resume_shared(mask_sim *c, uint32_t node, uint32_t ref, uint32_t to)
{
    resume_at(c, node, ref | 1u << 31, to, ref);
}

bool gcg_mask_sim_add_config(mask_sim *c, uint32_t node, uint32_t lhs, uint32_t skip)
{
    return add_config(c, node, lhs, skip);
}

const uint32_t *gcg_mask_sim_log(const mask_sim *c, uint32_t *n)
{
    *n = c->acc_log.n;
    return c->acc_log.v;
}

const uint32_t *gcg_mask_sim_positions(mask_sim *c, uint32_t *n)
{
    positions_from_log(c);
    *n = c->pos.n;
    return c->pos.v;
}
