/* automaton.c — the mask automaton from the simulation's runs: token sets
 * and automaton states hash-consed, determinization over the LR states read
 * below, assembly, minimization and the certificate (see automaton.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../runtime/artifact_format.h"
#include "automaton.h"
#include "certificate.h"
#include "commit_bound.h"
#include "horizon.h"
#include "mask_sim.h"
#include "minimize.h"
#include "vecmap.h"

#define NONE UINT32_MAX

typedef struct ctx {
    const cfg *g;
    const lr_tables *lr;
    const token_trie *trie;
    mask_automaton *out;
    gcg_diag *diag;
    gcg_limits limits;
    mask_sim sim;                    /* the runs                                */
    horizon hz;                      /* states whose walks are equal            */
    uint32_t *path, *reaches;        /* scratch: a chain of twins, agreements   */
    uint32_t *lhs_least;             /* scratch of d_summarize, per nonterminal */
    uint32_t *head_of;               /* per state: the group it heads (index in
                                        group), NONE between calls             */
    uint32_t *popped;                /* per state with a twin: popped_reach's
                                        result, or NONE before it is asked     */
    map64 resumed;                   /* (D, q) -> index into res                */
    map64 replays;                   /* a root run's replay (mask_sim.h) ->
                                        index into res                          */
    vec res;                         /* resume results: (acc, next) pairs       */
    vec short_pos, scratch;          /* token intervals being merged            */
    vec sort_tmp;                    /* scratch of gcg_sort_records             */
    uint32_t *bits;                  /* words + 1 words, zero between sets      */
    map64 set_ids;                   /* token sets, by their positions' hash    */
    map64 log_ids;                   /* token sets, by the hash of a run's log  */
    vec log_rec, log_data;           /* per log: (start, length, x, y, set); logs */
    vec set_pos_start, set_pos_len, set_pos; /* each set's positions           */
    vec d_start, d_len, d_data;      /* automaton states: sorted config triples */
    vec moved, d_new;                /* a run's configurations moved up by one
                                        (a sorted run), and the merged state   */
    map64 d_ids;
    vec d_deepest;                   /* per state: greatest trie depth of a config */
    vec d_moving;                    /* per state: least trie depth of a config
                                        naming a moving nonterminal, or NONE    */
    vec d_reads_start, d_reads_len, d_reads; /* per state: (lhs, least trie
                                        depth) of the configs waiting for the
                                        entry right below, one per lhs          */
    vec tq, tacc, tnext, tfrom;      /* transitions as found                    */
    vec group;                       /* scratch: (gotos' hash, q) pairs of one
                                        (D, state above), then a group         */
    map64 unshared;                  /* (D, gotos' hash) whose shared run touched */
    uint32_t group_min;              /* the fewest states resumed together      */
    gcg_status st;
} ctx;

static bool fail(ctx *c, gcg_status st)
{
    if (c->st == GCG_OK)
        c->st = st;
    return false;
}

/* ---- token sets and automaton states ------------------------------------- */

#define SORT_MAX 96 /* sparse sets up to this size are sorted, not scanned */

/* The bitmap of a set holding most of the trie's tokens, into data: every
 * token's bit (the trie's bitmap), less those of the positions outside pos
 * (the few tokens a string body rejects, say) instead of setting the 100k
 * it accepts. */
static void set_fill_complement(ctx *c, const uint32_t *pos, uint32_t n_pos, uint32_t *data)
{
    const token_trie *tr = c->trie;
    memcpy(data, tr->token_bits, (size_t)c->out->words * sizeof *data);
    for (uint32_t i = 0, from = 0; i <= n_pos; i += 2) {
        uint32_t to = i < n_pos ? pos[i] : tr->n_tokens;
        for (uint32_t k = from; k < to; k++)
            data[tr->tokens[k] >> 5] &= ~(1u << (tr->tokens[k] & 31));
        from = i < n_pos ? pos[i + 1] : to;
    }
}

/* A new token set from token positions (intervals), in the form it is
 * emitted in: a bitmap when dense, its ids ascending when sparse (most
 * sets). Both come from the context's zeroed bitmap, which a sparse set
 * leaves zero again by clearing its own ids; a set of more than half the
 * trie's tokens starts from all of them instead. */
static uint32_t set_add(ctx *c, const uint32_t *pos, uint32_t n_pos)
{
    mask_automaton *a = c->out;
    const token_trie *tr = c->trie;
    uint32_t **sets = realloc(a->sets, ((size_t)a->n_sets + 1) * sizeof *sets);
    if (sets)
        a->sets = sets;
    uint32_t *cnt = realloc(a->set_count, ((size_t)a->n_sets + 1) * sizeof *cnt);
    if (cnt)
        a->set_count = cnt;
    uint32_t n = 0;
    for (uint32_t i = 0; i < n_pos; i += 2)
        n += pos[i + 1] - pos[i];
    if (cnt)
        a->set_count[a->n_sets] = n;
    bool sparse = cnt && gcg_automaton_set_is_sparse(a, a->n_sets);
    uint32_t *data = malloc(((size_t)(sparse ? n : a->words) + 1) * sizeof *data);
    if (!sets || !cnt || !data) {
        free(data);
        return fail(c, GCG_ERR_NOMEM), NONE;
    }
    if (!sparse && 2 * (uint64_t)n > tr->n_tokens) {
        set_fill_complement(c, pos, n_pos, data);
        a->sets[a->n_sets] = data;
        return a->n_sets++;
    }
    if (sparse && n <= SORT_MAX) { /* a short list: sorting beats scanning the bitmap */
        uint32_t m = 0;
        for (uint32_t i = 0; i < n_pos; i += 2)
            for (uint32_t k = pos[i]; k < pos[i + 1]; k++)
                data[m++] = tr->tokens[k];
        if (!gcg_sort_records(data, n, 1, &c->sort_tmp)) {
            free(data);
            return fail(c, GCG_ERR_NOMEM), NONE;
        }
        a->sets[a->n_sets] = data;
        return a->n_sets++;
    }
    for (uint32_t i = 0; i < n_pos; i += 2)
        for (uint32_t k = pos[i]; k < pos[i + 1]; k++)
            c->bits[tr->tokens[k] >> 5] |= 1u << (tr->tokens[k] & 31);
    if (!sparse) {
        memcpy(data, c->bits, (size_t)a->words * sizeof *data);
        memset(c->bits, 0, (size_t)a->words * sizeof *data);
    } else {
        uint32_t m = 0;
        for (uint32_t k = 0; k < a->words && m < n; k++)
            for (uint32_t w = c->bits[k]; w; w &= w - 1)
                data[m++] = k * 32 + (uint32_t)__builtin_ctz(w);
        for (uint32_t i = 0; i < m; i++)
            c->bits[data[i] >> 5] = 0;
    }
    a->sets[a->n_sets] = data;
    return a->n_sets++;
}

/* The id of the token set with canonical positions pos[0..n_pos) (sorted,
 * disjoint, non-adjacent intervals), hash-consed. */
static uint32_t set_id_of(ctx *c, const uint32_t *pos, uint32_t n_pos)
{
    uint64_t h = XXH3_64bits(pos, (size_t)n_pos * sizeof *pos);
    for (uint64_t probe = h;; probe++) {
        uint32_t *slot = gcg_map64_slot(&c->set_ids, probe, true);
        if (!slot)
            return fail(c, GCG_ERR_NOMEM), 0;
        if (*slot == NONE) {
            uint32_t id = set_add(c, pos, n_pos);
            bool ok = id != NONE && gcg_vec_push(&c->set_pos_start, c->set_pos.n) && gcg_vec_push(&c->set_pos_len, n_pos) &&
                      gcg_vec_reserve(&c->set_pos, n_pos);
            if (!ok)
                return fail(c, GCG_ERR_NOMEM), 0;
            if (n_pos) /* the empty set has no positions (and pos may be NULL) */
                memcpy(c->set_pos.v + c->set_pos.n, pos, (size_t)n_pos * sizeof *pos);
            c->set_pos.n += n_pos;
            slot = gcg_map64_slot(&c->set_ids, probe, false);
            *slot = id;
            return id;
        }
        uint32_t id = *slot;
        if (c->set_pos_len.v[id] == n_pos &&
            (n_pos == 0 || memcmp(c->set_pos.v + c->set_pos_start.v[id], pos, (size_t)n_pos * sizeof *pos) == 0))
            return id;
    }
}

/* Most runs log word for word what an earlier run logged (kb_708: 114,034
 * runs, 3,630 distinct logs, 2,697 sets), so a run's token set is looked up
 * by its log and two words of context first: only a new log is turned into
 * positions (sorting and merging it) and interned as a set. */

/* The record (start, length, x, y, set) of the run's log under context
 * (x, y): its set when known; else a new record, its set NONE, with a copy
 * of the log (taken before gcg_mask_sim_positions sorts the log in place). */
static uint32_t log_record(ctx *c, uint32_t x, uint32_t y)
{
    uint32_t n_log, *slot;
    const uint32_t *log = gcg_mask_sim_log(&c->sim, &n_log);
    uint64_t h = XXH3_64bits_withSeed(log, (size_t)n_log * sizeof *log, (uint64_t)x << 32 | y);
    for (uint64_t probe = h;; probe++) {
        if (!(slot = gcg_map64_slot(&c->log_ids, probe, true)))
            return fail(c, GCG_ERR_NOMEM), NONE;
        if (*slot == NONE)
            break;
        const uint32_t *r = c->log_rec.v + *slot;
        if (r[1] == n_log && r[2] == x && r[3] == y &&
            (n_log == 0 || memcmp(c->log_data.v + r[0], log, (size_t)n_log * sizeof *log) == 0))
            return *slot;
    }
    uint32_t rec = c->log_rec.n, fields[5] = {c->log_data.n, n_log, x, y, NONE};
    *slot = rec;
    for (uint32_t i = 0; i < 5; i++)
        if (!gcg_vec_push(&c->log_rec, fields[i]))
            return fail(c, GCG_ERR_NOMEM), NONE;
    if (!gcg_vec_reserve(&c->log_data, n_log + 1))
        return fail(c, GCG_ERR_NOMEM), NONE;
    if (n_log)
        memcpy(c->log_data.v + c->log_data.n, log, (size_t)n_log * sizeof *log);
    c->log_data.n += n_log;
    return rec;
}

/* Appends [a, b) to a canonical interval list (a at or after the last start). */
static void append_interval(ctx *c, vec *v, uint32_t a, uint32_t b)
{
    if (v->n && v->v[v->n - 1] >= a) {
        v->v[v->n - 1] = b > v->v[v->n - 1] ? b : v->v[v->n - 1];
        return;
    }
    if (!gcg_vec_push(v, a) || !gcg_vec_push(v, b))
        fail(c, GCG_ERR_NOMEM);
}

/* The run's tokens (a walk of the deep subtrees) with token set acc's
 * tokens of at most `reach` bytes: the merged set's id. */
static uint32_t merged_set(ctx *c, uint32_t acc, uint32_t reach)
{
    uint32_t n_deep;
    const uint32_t *deep = gcg_mask_sim_positions(&c->sim, &n_deep);
    if (c->sim.st != GCG_OK)
        return fail(c, c->sim.st), 0;
    uint32_t n_tw = c->set_pos_len.v[acc];
    const uint32_t *tw = n_tw ? c->set_pos.v + c->set_pos_start.v[acc] : NULL;
    const token_trie *tr = c->trie;
    const uint32_t *lp = tr->long_pos + tr->long_first[reach], n_lp = tr->long_first[reach + 1] - tr->long_first[reach];
    c->short_pos.n = 0;
    for (uint32_t j = 0, i = 0; j < n_tw; j += 2) { /* [a, b) minus the long positions */
        uint32_t a = tw[j], b = tw[j + 1], lo = i, hi = i, step = 1;
        while (hi < n_lp && lp[hi] < a) /* gallop: the next one is usually near */
            lo = hi + 1, hi += step, step *= 2;
        hi = hi < n_lp ? hi : n_lp;
        while (lo < hi) { /* the first long position >= a, in [lo, hi] */
            uint32_t mid = lo + (hi - lo) / 2;
            if (lp[mid] < a)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (i = lo; i < n_lp && lp[i] < b; a = lp[i++] + 1)
            if (lp[i] > a)
                append_interval(c, &c->short_pos, a, lp[i]);
        if (a < b)
            append_interval(c, &c->short_pos, a, b);
    }
    c->scratch.n = 0;
    for (uint32_t i = 0, j = 0; c->st == GCG_OK && (i < n_deep || j < c->short_pos.n);) {
        bool take_deep = j >= c->short_pos.n || (i < n_deep && deep[i] <= c->short_pos.v[j]);
        const uint32_t *iv = take_deep ? deep + i : c->short_pos.v + j;
        append_interval(c, &c->scratch, iv[0], iv[1]);
        *(take_deep ? &i : &j) += 2;
    }
    return c->st == GCG_OK ? set_id_of(c, c->scratch.v, c->scratch.n) : 0;
}

/* The id of the run's token set, looked up by its log first (log_record):
 * with twin_acc NONE, the tokens the run accepted; else those merged with
 * set twin_acc's tokens of at most `reach` bytes (merged_set). */
static uint32_t run_set(ctx *c, uint32_t twin_acc, uint32_t reach)
{
    uint32_t rec = log_record(c, twin_acc, reach), n_pos, id;
    if (rec == NONE || c->log_rec.v[rec + 4] != NONE)
        return rec == NONE ? 0 : c->log_rec.v[rec + 4];
    if (twin_acc != NONE) {
        id = merged_set(c, twin_acc, reach);
    } else {
        const uint32_t *pos = gcg_mask_sim_positions(&c->sim, &n_pos);
        if (c->sim.st != GCG_OK)
            return fail(c, c->sim.st), 0;
        id = set_id_of(c, pos, n_pos);
    }
    c->log_rec.v[rec + 4] = id;
    return id;
}

static int cmp_triple(const void *x, const void *y)
{
    const uint32_t *a = x, *b = y;
    for (int i = 0; i < 3; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* What the sharing tests read of a new automaton state, kept with it so
 * that they do not scan its configurations at each use. The reads, one per
 * lhs with its least trie depth, ascending by lhs, come from a table by
 * nonterminal (lhs_least, NONE between calls) and the few lhs met, sorted:
 * a deep state has thousands of configurations and a handful of lhs. */
static bool d_summarize(ctx *c, const uint32_t *cfgs, uint32_t n)
{
    uint32_t least = NONE, deepest = 0, *ll = c->lhs_least;
    c->scratch.n = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t *cf = cfgs + 3 * i;
        uint32_t depth = c->trie->depth[cf[0]];
        deepest = depth > deepest ? depth : deepest;
        if (c->hz.moving[cf[1]] && depth < least)
            least = depth;
        if (cf[2] != 0)
            continue;
        if (ll[cf[1]] == NONE && !gcg_vec_push(&c->scratch, cf[1]))
            return false;
        ll[cf[1]] = depth < ll[cf[1]] ? depth : ll[cf[1]];
    }
    if (!gcg_sort_records(c->scratch.v, c->scratch.n, 1, &c->sort_tmp))
        return false;
    bool ok = gcg_vec_push(&c->d_moving, least) && gcg_vec_push(&c->d_deepest, deepest) &&
              gcg_vec_push(&c->d_reads_start, c->d_reads.n) && gcg_vec_push(&c->d_reads_len, c->scratch.n);
    for (uint32_t i = 0; i < c->scratch.n; i++) {
        uint32_t lhs = c->scratch.v[i];
        ok = ok && gcg_vec_push(&c->d_reads, lhs) && gcg_vec_push(&c->d_reads, ll[lhs]);
        ll[lhs] = NONE;
    }
    return ok;
}

/* The automaton state for the run's configurations: the simulation's own,
 * in any order, and those moved up by one (c->moved, a sorted run: on a
 * deep state most of them, copied from D at every resume of it), sorted
 * and merged without duplicates; NONE when there are none. Sorting only
 * the new ones and merging the run in once keeps the run out of the sort. */
static uint32_t d_id(ctx *c)
{
    uint32_t n_new = c->sim.cfgs.n / 3, n_run = c->moved.n / 3;
    const uint32_t *a = c->sim.cfgs.v, *b = c->moved.v;
    c->d_new.n = 0;
    if (!gcg_sort_records(c->sim.cfgs.v, n_new, 3, &c->sort_tmp) || !gcg_vec_reserve(&c->d_new, 3 * (n_new + n_run)))
        return fail(c, GCG_ERR_NOMEM), NONE;
    uint32_t *out = c->d_new.v, n = 0;
    for (uint32_t i = 0, j = 0; i < n_new || j < n_run;) {
        const uint32_t *x = j >= n_run || (i < n_new && cmp_triple(a + 3 * i, b + 3 * j) <= 0) ? a + 3 * i++
                                                                                              : b + 3 * j++;
        if (n == 0 || cmp_triple(x, out + 3 * (n - 1)) != 0)
            out[3 * n] = x[0], out[3 * n + 1] = x[1], out[3 * n + 2] = x[2], n++;
    }
    c->moved.n = 0;
    if (n == 0)
        return NONE;
    uint64_t h = XXH3_64bits(out, (size_t)n * 12);
    for (uint64_t probe = h;; probe++) {
        uint32_t *slot = gcg_map64_slot(&c->d_ids, probe, true);
        if (!slot)
            return fail(c, GCG_ERR_NOMEM), NONE;
        if (*slot == NONE) {
            if (c->d_start.n >= c->limits.max_automaton_states) {
                gcg_limit_error(c->diag, 0, 0, "mask automaton too large", c->limits.max_automaton_states,
                                "max-automaton-states");
                return fail(c, GCG_ERR_LIMIT), NONE;
            }
            *slot = c->d_start.n;
            bool ok = gcg_vec_push(&c->d_start, c->d_data.n) && gcg_vec_push(&c->d_len, n) &&
                      gcg_vec_reserve(&c->d_data, 3 * n);
            if (ok) {
                memcpy(c->d_data.v + c->d_data.n, out, (size_t)n * 12);
                c->d_data.n += 3 * n;
            }
            ok = ok && d_summarize(c, out, n);
            return ok ? *slot : (fail(c, GCG_ERR_NOMEM), NONE);
        }
        uint32_t d = *slot;
        if (c->d_len.v[d] == n && memcmp(c->d_data.v + c->d_start.v[d], out, (size_t)n * 12) == 0)
            return d;
    }
}

/* Starts a run: the simulation's and the moved configurations emptied. */
static void run_begin(ctx *c)
{
    gcg_mask_sim_begin(&c->sim);
    c->moved.n = 0;
}

/* ---- runs --------------------------------------------------------------- */

/* Whether automaton state d (NONE: no configurations) names no nonterminal
 * the horizon renaming moves in its configurations at trie depth <= upto:
 * then a twin's root walk gives the same ones. */
static bool d_fixed_upto(const ctx *c, uint32_t d, uint32_t upto)
{
    return d == NONE || c->d_moving.v[d] == NONE || c->d_moving.v[d] > upto;
}

static bool d_fixed(const ctx *c, uint32_t d)
{
    return d_fixed_upto(c, d, HORIZON_ALL);
}

/* RootAcc[s] and RootD[s]: the trie walked from the empty stack top s. A
 * run that replays a memo entry another root run replayed at the same
 * offset has its results (the states that close a key trie's node, each a
 * reduction whatever the next byte: kb_708 has thousands). */
static void run_root(ctx *c, uint32_t s)
{
    run_begin(c);
    gcg_mask_sim_root(&c->sim, s);
    uint32_t *slot = NULL;
    if (c->sim.replayed != UINT64_MAX && !(slot = gcg_map64_slot(&c->replays, c->sim.replayed, true)))
        return (void)fail(c, GCG_ERR_NOMEM);
    if (slot && *slot != NONE) {
        c->out->root_acc[s] = c->res.v[*slot], c->out->root_d[s] = c->res.v[*slot + 1];
        c->out->roots_replayed++;
        return;
    }
    c->out->root_acc[s] = run_set(c, NONE, NONE);
    c->out->root_d[s] = d_id(c);
    if (!slot)
        return;
    if (!gcg_vec_push(&c->res, c->out->root_acc[s]) || !gcg_vec_push(&c->res, c->out->root_d[s]))
        return (void)fail(c, GCG_ERR_NOMEM);
    *slot = c->res.n - 2;
}

/* Adds automaton state d's configurations at trie depth <= reach to the run. */
static void add_short_configs(ctx *c, uint32_t d, uint32_t reach)
{
    for (uint32_t i = 0; d != NONE && i < c->d_len.v[d]; i++) {
        const uint32_t *cf = c->d_data.v + c->d_start.v[d] + 3 * i;
        if (c->trie->depth[cf[0]] <= reach)
            gcg_mask_sim_add_config(&c->sim, cf[0], cf[1], cf[2]);
    }
}

/* RootAcc and RootD of state x from its twin y, whose walk agrees with x's
 * on tokens of at most `reach` bytes: y's short tokens and configurations,
 * and a walk of x through the subtrees holding longer tokens. */
static void run_root_deep(ctx *c, uint32_t x, uint32_t y, uint32_t reach)
{
    mask_automaton *a = c->out;
    run_begin(c);
    add_short_configs(c, a->root_d[y], reach);
    gcg_mask_sim_set_shallow(&c->sim, reach);
    gcg_mask_sim_root(&c->sim, x);
    gcg_mask_sim_set_shallow(&c->sim, 0);
    a->root_acc[x] = run_set(c, a->root_acc[y], reach);
    a->root_d[x] = d_id(c);
}

/* RootAcc and RootD of every LR state that can top the frontier (about
 * half of them; the others get the empty set and no reads): a state whose
 * twin's walk is known to equal its own (horizon.h) takes the twin's
 * results, the others walk. Twins are settled before the states that copy
 * them (path[] holds the chain of twins still to settle). */
static void run_roots(ctx *c, uint8_t *done)
{
    mask_automaton *a = c->out;
    const uint32_t *twin = c->hz.twin;
    uint32_t none = set_id_of(c, NULL, 0);
    for (uint32_t s = 0; s < c->lr->n_states && c->st == GCG_OK; s++) {
        if (!lr_frontier_state(c->lr, s)) { /* a goto enters s: no mask reads its roots */
            if (!done[s])
                a->root_acc[s] = none, a->root_d[s] = NONE;
            continue;
        }
        uint32_t n = 0;
        for (uint32_t x = s; x != NONE && !done[x]; x = twin[x])
            c->path[n++] = x;
        while (n && c->st == GCG_OK) {
            uint32_t x = c->path[--n], y = twin[x], reach = c->hz.reach[x];
            if (y != NONE && done[y] && reach == HORIZON_ALL && d_fixed(c, a->root_d[y])) {
                a->root_acc[x] = a->root_acc[y], a->root_d[x] = a->root_d[y];
                a->walks_shared++;
            } else if (y != NONE && done[y] && d_fixed_upto(c, a->root_d[y], reach)) {
                run_root_deep(c, x, y, reach);
                a->walks_shared++;
            } else {
                run_root(c, x);
            }
            done[x] = 1;
        }
    }
}

/* Acc(D, q) and the next D: configurations waiting deeper move up by one
 * (into c->moved, in D's order), those waiting for this entry resume with q
 * exposed (in a shallow run, only those with a long token below); with
 * `shared` a shared reference (mask_sim.h) whose members all take q's gotos,
 * over it instead. */
static void resume_configs(ctx *c, uint32_t d, uint32_t q, uint32_t shared)
{
    uint32_t shallow = c->sim.shallow, last_lhs = NONE, to = GCG_NO_GOTO;
    for (uint32_t i = 0; i < c->d_len.v[d] && c->sim.st == GCG_OK; i++) {
        const uint32_t *cf = c->d_data.v + c->d_start.v[d] + 3 * i;
        uint32_t node = cf[0], lhs = cf[1], skip = cf[2];
        if (skip > 0) {
            if (!gcg_vec_push(&c->moved, node) || !gcg_vec_push(&c->moved, lhs) || !gcg_vec_push(&c->moved, skip - 1))
                return (void)fail(c, GCG_ERR_NOMEM);
            continue;
        }
        if (shallow && c->trie->height[node] <= shallow)
            continue; /* as gcg_mask_sim_resume would, without the goto */
        if (lhs != last_lhs) /* a state's configurations name few lhs, in runs */
            last_lhs = lhs, to = gcg_mask_sim_goto(&c->sim, q, lhs);
        if (to != GCG_NO_GOTO && shared == NONE)
            gcg_mask_sim_resume(&c->sim, node, q, to);
        else if (to != GCG_NO_GOTO)
            gcg_mask_sim_resume_shared(&c->sim, node, shared, to);
    }
}

static void run_resume(ctx *c, uint32_t d, uint32_t q, uint32_t *acc, uint32_t *next)
{
    run_begin(c);
    resume_configs(c, d, q, NONE);
    *acc = run_set(c, NONE, NONE);
    *next = d_id(c);
}

#define FEW_LONG 64 /* long tokens looked up one by one in a twin's set */

/* Whether token set `acc` holds no token longer than `reach` bytes, asked
 * where few are (false when many: then it is not looked into). */
static bool set_short_only(const ctx *c, uint32_t acc, uint32_t reach)
{
    const token_trie *tr = c->trie;
    const uint32_t *lp = tr->long_pos + tr->long_first[reach];
    uint32_t n_lp = tr->long_first[reach + 1] - tr->long_first[reach];
    const uint32_t *iv = c->set_pos.v + c->set_pos_start.v[acc], n_iv = c->set_pos_len.v[acc];
    if (n_lp > FEW_LONG)
        return false;
    for (uint32_t i = 0; i < n_lp; i++) {
        uint32_t lo = 0, hi = n_iv / 2; /* the first interval ending after lp[i] */
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (iv[2 * mid + 1] <= lp[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < n_iv / 2 && iv[2 * lo] <= lp[i])
            return false;
    }
    return true;
}

/* Whether the deep run just made (its walk of the long subtrees logged no
 * token and no configuration but those moved up, which every resume of D
 * makes) leaves the twin's result (acc, next) as it is: so when the twin's
 * own long part is empty too, no token longer than `reach` and no
 * configuration deeper. Most deep runs of a chain's last links are such:
 * only its few longest tokens reach the end. */
static bool deep_part_empty(ctx *c, uint32_t acc, uint32_t next, uint32_t reach)
{
    if (c->sim.st != GCG_OK || c->st != GCG_OK || c->sim.cfgs.n != 0 || (next != NONE && c->d_deepest.v[next] > reach))
        return false;
    uint32_t n_deep;
    gcg_mask_sim_positions(&c->sim, &n_deep);
    return c->sim.st == GCG_OK && n_deep == 0 && set_short_only(c, acc, reach);
}

/* As run_resume, from the result (acc, next) of q's twin, which agrees on
 * tokens of at most `reach` bytes: only the deep subtrees are walked, and
 * the twin's result stands when neither run has a deep part. */
static void run_resume_deep(ctx *c, uint32_t d, uint32_t q, uint32_t reach, uint32_t *acc, uint32_t *next)
{
    uint32_t twin_acc = *acc;
    run_begin(c);
    gcg_mask_sim_set_shallow(&c->sim, reach);
    resume_configs(c, d, q, NONE);
    gcg_mask_sim_set_shallow(&c->sim, 0);
    if (deep_part_empty(c, twin_acc, *next, reach))
        return;
    add_short_configs(c, *next, reach);
    *acc = run_set(c, twin_acc, reach);
    *next = d_id(c);
}

/* For how many more token bytes a walk that stands on q, or on its twin p,
 * agrees with the other once a resumed configuration has read its
 * nonterminal. The horizon's reach of (p, q) is for walks that start at q,
 * where a goto from q comes after the nonterminal's fewest bytes; a resumed
 * walk may reduce into q at once (the nonterminal was read before the
 * token began: in e{,3} "c" with e ::= "a" | r r?, after "rr", "hi" and the
 * token "ia\n", the goto on e comes after one byte, and the third copy's
 * "\n" fails on q but not on p). So each goto pair of (p, q) bounds it too,
 * at no cost; 0 where q has a goto on a moving nonterminal or p lacks one. */
static uint32_t popped_reach(ctx *c, uint32_t p, uint32_t q)
{
    if (c->popped[q] != NONE)
        return c->popped[q];
    uint32_t r = c->hz.reach[q];
    for (uint32_t k = c->lr->go_start[q]; k < c->lr->go_start[q + 1] && r > 0; k++) {
        uint32_t nt = c->lr->go_nt[k], tp = gcg_mask_sim_goto(&c->sim, p, nt);
        uint32_t m = c->hz.moving[nt] || tp == GCG_NO_GOTO ? 0 : gcg_horizon_pair_reach(&c->hz, tp, c->lr->go_to[k]);
        r = m < r ? m : r;
    }
    /* past the trie's depth every reach is "all": kept apart from NONE */
    return c->popped[q] = r > c->trie->max_depth ? c->trie->max_depth + 1 : r;
}

/* For how many token bytes resuming D over q agrees with resuming it over
 * its twin p, renamed (0: not at all): D must name no moving nonterminal,
 * and each configuration waiting for this entry, resumed at trie depth k,
 * agrees up to k - 1 plus what its pair of goto targets and (p, q) agree for
 * once it has reduced (popped_reach). */
static uint32_t resume_reach(ctx *c, uint32_t d, uint32_t p, uint32_t q)
{
    uint32_t below = popped_reach(c, p, q), reach = HORIZON_ALL;
    if (below == 0 || !d_fixed(c, d))
        return 0;
    const uint32_t *rd = c->d_reads.v + c->d_reads_start.v[d];
    for (uint32_t i = 0; i < c->d_reads_len.v[d]; i++) { /* (lhs, least depth) */
        uint32_t lhs = rd[2 * i], depth = rd[2 * i + 1];
        uint32_t tp = gcg_mask_sim_goto(&c->sim, p, lhs), tq = gcg_mask_sim_goto(&c->sim, q, lhs);
        if ((tp == GCG_NO_GOTO) != (tq == GCG_NO_GOTO))
            return 0;
        uint32_t m = tp == GCG_NO_GOTO ? HORIZON_ALL : gcg_horizon_pair_reach(&c->hz, tp, tq);
        m = m < below ? m : below;
        if (m == 0)
            return 0;
        if (m != HORIZON_ALL && depth - 1 + m < reach)
            reach = depth - 1 + m;
    }
    return reach > c->trie->max_depth ? HORIZON_ALL : reach;
}

static bool resume_keep(ctx *c, uint32_t d, uint32_t q, uint32_t acc, uint32_t next)
{
    uint32_t *slot = gcg_map64_slot(&c->resumed, ((uint64_t)d << 32) | q, true);
    if (!slot || !gcg_vec_push(&c->res, acc) || !gcg_vec_push(&c->res, next))
        return fail(c, GCG_ERR_NOMEM);
    *slot = c->res.n - 2;
    return true;
}

/* Acc(D, q) and the next D, from q's twin when their resumes agree (whole,
 * or on short tokens: then only the deep subtrees are walked), else by
 * resuming. The chain of twins is followed to a known result or one to
 * compute, then filled back; reaches[i] is path[i]'s agreement with the
 * next entry. */
static void resume_result(ctx *c, uint32_t d, uint32_t q, uint32_t *acc, uint32_t *next)
{
    uint32_t n = 0, x = q, *slot;
    while (!(slot = gcg_map64_slot(&c->resumed, ((uint64_t)d << 32) | x, false))) {
        uint32_t y = c->hz.twin[x], r = y == NONE ? 0 : resume_reach(c, d, y, x);
        c->path[n] = x, c->reaches[n++] = r;
        if (r == 0)
            break;
        x = y;
    }
    uint32_t a = 0, nx = NONE;
    if (slot)
        a = c->res.v[*slot], nx = c->res.v[*slot + 1];
    for (uint32_t i = n; i-- > 0 && c->st == GCG_OK;) {
        uint32_t r = c->reaches[i];
        if (r == HORIZON_ALL && d_fixed(c, nx)) {
            c->out->walks_shared++;
        } else if (r > 0 && d_fixed_upto(c, nx, r)) {
            run_resume_deep(c, d, c->path[i], r, &a, &nx);
            c->out->walks_shared++;
        } else {
            run_resume(c, d, c->path[i], &a, &nx);
        }
        if (!resume_keep(c, d, c->path[i], a, nx))
            return;
    }
    *acc = a, *next = nx;
}

/* ---- resumes shared by the states below ----------------------------------
 *
 * Resuming D over q asks q for its gotos on the nonterminals D's
 * configurations reduce to, and walks on. Of the hundred places where an
 * object's next member may start (o61596: 69,073 resumes of key tries),
 * most give the same gotos, and within a token's reach nothing else tells
 * them apart. So the states below one state that agree on D's gotos are
 * resumed together, over a shared reference (mask_sim.h): a run that did
 * not touch it is the run each would have made, and its result is kept for
 * all of them; one that did is dropped (and that group of D's not tried
 * again), and they are resumed one by one. */

#define GROUP_WORDS 3 /* (gotos' hash, two words; q) */
/* A shared run makes forms of its own, where a member's own run reuses the
 * forms its q met before: it costs about what five to seven of them do
 * (kb_708, whose groups have 5.6 members on average, gained no time from
 * groups of two or more), so only larger groups are shared. */
#define GROUP_MIN 8

static uint64_t gotos_hash(const ctx *c, uint32_t d, uint32_t q)
{
    const uint32_t *rd = c->d_reads.v + c->d_reads_start.v[d];
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (uint32_t i = 0; i < c->d_reads_len.v[d]; i++)
        h = (h ^ gcg_mask_sim_goto(&c->sim, q, rd[2 * i])) * 0x100000001B3ull;
    return h;
}

static bool same_gotos(const ctx *c, uint32_t d, uint32_t p, uint32_t q)
{
    const uint32_t *rd = c->d_reads.v + c->d_reads_start.v[d];
    for (uint32_t i = 0; i < c->d_reads_len.v[d]; i++)
        if (gcg_mask_sim_goto(&c->sim, p, rd[2 * i]) != gcg_mask_sim_goto(&c->sim, q, rd[2 * i]))
            return false;
    return true;
}

/* One past the last record of the group whose first is c->group's i-th. */
static uint32_t group_end(const ctx *c, uint32_t i)
{
    const uint32_t *g = c->group.v + GROUP_WORDS * i, n = c->group.n / GROUP_WORDS;
    uint32_t j = i + 1;
    while (j < n && g[GROUP_WORDS * (j - i)] == g[0] && g[GROUP_WORDS * (j - i) + 1] == g[1])
        j++;
    return j;
}

/* The key in `unshared` of D's group with record g. */
static uint64_t unshared_key(const uint32_t *g, uint32_t d)
{
    return ((uint64_t)g[0] << 32 | g[1]) ^ (uint64_t)d * 0xC2B2AE3D27D4EB4Full;
}

/* Groups the states below `above` not yet resumed with D by D's gotos
 * (c->group, sorted: a group's first record is its least state, the first
 * the loop over `above`'s predecessors meets) and marks the first of each
 * group of group_min or more in head_of. Returns whether it marked any. */
static bool group_resumes(ctx *c, uint32_t d, uint32_t above)
{
    uint32_t lo = c->sim.pred_first[above], hi = c->sim.pred_first[above + 1];
    c->group.n = 0;
    if (!c->sim.share || hi - lo < c->group_min || c->d_reads_len.v[d] == 0)
        return false;
    for (uint32_t k = lo; k < hi; k++) {
        uint32_t q = c->sim.pred[k];
        if (gcg_map64_slot(&c->resumed, ((uint64_t)d << 32) | q, false))
            continue;
        uint64_t h = gotos_hash(c, d, q);
        if (!gcg_vec_push(&c->group, (uint32_t)(h >> 32)) || !gcg_vec_push(&c->group, (uint32_t)h) ||
            !gcg_vec_push(&c->group, q))
            return fail(c, GCG_ERR_NOMEM);
    }
    uint32_t n = c->group.n / GROUP_WORDS;
    if (n < c->group_min || !gcg_sort_records(c->group.v, n, GROUP_WORDS, &c->sort_tmp))
        return n >= c->group_min ? fail(c, GCG_ERR_NOMEM) : false;
    bool any = false;
    for (uint32_t i = 0, j; i < n; i = j) {
        const uint32_t *g = c->group.v + GROUP_WORDS * i;
        j = group_end(c, i);
        if (j - i >= c->group_min && !gcg_map64_slot(&c->unshared, unshared_key(g, d), false))
            c->head_of[g[2]] = i, any = true;
    }
    return any;
}

/* Resumes D over the group whose first record is c->group's i-th, together
 * when that holds for all (see above), keeping the result for each. */
static void resume_group(ctx *c, uint32_t d, uint32_t i)
{
    const uint32_t *g = c->group.v + GROUP_WORDS * i;
    uint32_t n = 0, end = group_end(c, i);
    for (uint32_t j = i; j < end; j++) /* equal hashes: the gotos themselves decide */
        if (same_gotos(c, d, g[2], c->group.v[GROUP_WORDS * j + 2]))
            c->path[n++] = c->group.v[GROUP_WORDS * j + 2];
    uint32_t shared = n >= 2 ? gcg_mask_sim_shared_ref(&c->sim, c->path, n) : NONE;
    if (shared == NONE)
        return (void)(c->sim.st != GCG_OK && fail(c, c->sim.st));
    uint32_t touched = c->sim.touched;
    run_begin(c);
    resume_configs(c, d, g[2], shared);
    if (c->sim.st != GCG_OK)
        return (void)fail(c, c->sim.st);
    if (c->sim.touched != touched) {
        c->out->shared_dropped++;
        uint32_t *slot = gcg_map64_slot(&c->unshared, unshared_key(g, d), true);
        if (!slot)
            fail(c, GCG_ERR_NOMEM);
        else
            *slot = 1;
        return;
    }
    uint32_t acc = run_set(c, NONE, NONE), next = d_id(c);
    for (uint32_t j = 0; j < n && c->st == GCG_OK; j++)
        resume_keep(c, d, c->path[j], acc, next);
    c->out->resumes_shared += n - 1;
}

/* Worklist over (D, the state above it): transitions for every q that can
 * lie below that state. */
static void determinize(ctx *c, vec *todo)
{
    map64 seen = {0}, done = {0};
    for (uint32_t i = 0; i < todo->n && c->st == GCG_OK; i += 2) {
        uint32_t d = todo->v[i], above = todo->v[i + 1];
        bool grouped = group_resumes(c, d, above);
        for (uint32_t k = c->sim.pred_first[above]; k < c->sim.pred_first[above + 1] && c->st == GCG_OK; k++) {
            uint32_t q = c->sim.pred[k];
            uint32_t *slot = gcg_map64_slot(&done, ((uint64_t)d << 32) | q, true);
            if (!slot || *slot != NONE) {
                if (!slot)
                    fail(c, GCG_ERR_NOMEM);
                continue;
            }
            *slot = 1;
            if (grouped && c->head_of[q] != NONE) {
                uint32_t head = c->head_of[q];
                c->head_of[q] = NONE;
                resume_group(c, d, head);
            }
            uint32_t acc = 0, next = NONE;
            resume_result(c, d, q, &acc, &next);
            if (c->st != GCG_OK)
                break;
            if (c->out->set_count[acc] == 0 && next == NONE)
                continue;
            if (!gcg_vec_push(&c->tfrom, d) || !gcg_vec_push(&c->tq, q) || !gcg_vec_push(&c->tacc, acc) || !gcg_vec_push(&c->tnext, next))
                fail(c, GCG_ERR_NOMEM);
            if (next == NONE)
                continue;
            uint32_t *s2 = gcg_map64_slot(&seen, ((uint64_t)next << 32) | q, true);
            if (s2 && *s2 == NONE) {
                *s2 = 1;
                if (!gcg_vec_push(todo, next) || !gcg_vec_push(todo, q))
                    fail(c, GCG_ERR_NOMEM);
            }
        }
        for (uint32_t j = 0; grouped && j < c->group.n; j += GROUP_WORDS) /* heads a failure left */
            c->head_of[c->group.v[j + 2]] = NONE;
    }
    free(seen.k), free(seen.v), free(done.k), free(done.v);
}

/* ---- certificate --------------------------------------------------------- */

/* OR-ing a sparse set into a mask scatters one read-modify-write per id;
 * a dense one streams whole words, about SPARSE_COST times cheaper per word
 * (measured on the JSON tail: the slowest masks were one 3,598-id set). */
#define SPARSE_COST 8u

bool gcg_automaton_set_is_sparse(const mask_automaton *a, uint32_t set)
{
    return (uint64_t)a->set_count[set] * SPARSE_COST < a->words;
}

uint64_t gcg_automaton_set_bytes(const mask_automaton *a, uint32_t set)
{
    return gcg_automaton_set_is_sparse(a, set) ? (uint64_t)a->set_count[set] * 4 : (uint64_t)a->words * 4;
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

/* The commit bound (commit_bound.h), with the rule of its cause named;
 * tables with conflicts get theirs from the fork analysis
 * (gcg_certify_whole). */
static gcg_status certify_commit(ctx *c, const cfg *g, const char *const *rule_names)
{
    commit_bound cb;
    gcg_status st = gcg_commit_bound(c->lr, g, c->sim.pred_first, c->sim.pred, NULL, &cb);
    if (st == GCG_OK)
        gcg_certify_commit(c->out, g, rule_names, &cb);
    return st;
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
    gcg_mask_sim_free(&c->sim);
    gcg_horizon_free(&c->hz);
    free(c->path), free(c->reaches), free(c->bits), free(c->lhs_least), free(c->head_of), free(c->popped);
    vec *vs[] = {&c->d_start, &c->d_len, &c->d_data, &c->tq, &c->tacc, &c->tnext, &c->tfrom, &c->d_moving,
                 &c->d_deepest, &c->d_reads_start, &c->d_reads_len, &c->d_reads,
                 &c->set_pos_start, &c->set_pos_len, &c->set_pos, &c->res, &c->short_pos, &c->scratch, &c->sort_tmp,
                 &c->moved, &c->d_new, &c->log_rec, &c->log_data, &c->group};
    for (size_t i = 0; i < sizeof vs / sizeof *vs; i++)
        gcg_vec_free(vs[i]);
    gcg_map64_free(&c->set_ids);
    gcg_map64_free(&c->log_ids);
    gcg_map64_free(&c->d_ids);
    gcg_map64_free(&c->resumed);
    gcg_map64_free(&c->replays);
    gcg_map64_free(&c->unshared);
}

gcg_status gcg_automaton_build(const cfg *g, const lr_tables *lr, const gcg_vocab *v,
                               const token_trie *trie, const uint8_t *class_of, const gcg_limits *limits,
                               bool share_walks, uint32_t group_min, const char *const *rule_names,
                               mask_automaton *out, gcg_diag *diag)
{
    memset(out, 0, sizeof *out);
    ctx c = {.g = g, .lr = lr, .trie = trie, .out = out, .diag = diag, .limits = gcg_limits_or_default(limits),
             .group_min = group_min ? group_min : GROUP_MIN};
    out->n_tokens = v->n_tokens;
    out->words = (v->n_tokens + 31) / 32;
    out->root_acc = malloc((size_t)lr->n_states * sizeof *out->root_acc);
    out->root_d = malloc((size_t)lr->n_states * sizeof *out->root_d);
    c.st = out->root_acc && out->root_d ? gcg_mask_sim_init(&c.sim, lr, trie, class_of, limits, diag)
                                        : GCG_ERR_NOMEM;
    uint8_t *done = calloc((size_t)lr->n_states + 1, 1);
    c.path = malloc(((size_t)lr->n_states + 1) * sizeof *c.path);
    c.reaches = malloc(((size_t)lr->n_states + 1) * sizeof *c.reaches);
    c.bits = calloc((size_t)out->words + 1, sizeof *c.bits);
    c.lhs_least = malloc(((size_t)g->n_nts + 1) * sizeof *c.lhs_least);
    c.head_of = malloc(((size_t)lr->n_states + 1) * sizeof *c.head_of);
    c.popped = malloc(((size_t)lr->n_states + 1) * sizeof *c.popped);
    if (c.head_of)
        memset(c.head_of, 0xff, ((size_t)lr->n_states + 1) * sizeof *c.head_of);
    if (c.popped)
        memset(c.popped, 0xff, ((size_t)lr->n_states + 1) * sizeof *c.popped);
    if (c.lhs_least)
        memset(c.lhs_least, 0xff, ((size_t)g->n_nts + 1) * sizeof *c.lhs_least);
    if (c.st == GCG_OK && (!done || !c.path || !c.reaches || !c.bits || !c.lhs_least || !c.head_of || !c.popped))
        c.st = GCG_ERR_NOMEM;
    c.sim.share = share_walks;
    if (c.st == GCG_OK && share_walks)
        c.st = gcg_horizon_build(&c.hz, g, lr, c.sim.pred_first, c.sim.pred, trie->max_depth);
    else if (c.st == GCG_OK)
        c.st = gcg_horizon_none(&c.hz, g, lr);
    if (c.st == GCG_OK)
        run_roots(&c, done);
    free(done);
    vec todo = {0};
    for (uint32_t s = 0; s < lr->n_states && c.st == GCG_OK; s++) {
        if (c.st == GCG_OK && out->root_d[s] != NONE &&
            (!gcg_vec_push(&todo, out->root_d[s]) || !gcg_vec_push(&todo, s)))
            fail(&c, GCG_ERR_NOMEM);
    }
    if (c.st == GCG_OK)
        determinize(&c, &todo);
    gcg_vec_free(&todo);
    out->sim_steps = c.sim.visits;
    if (c.st == GCG_OK)
        c.st = collect_transitions(&c);
    if (c.st == GCG_OK)
        c.st = record_state_lhs(&c);
    if (c.st == GCG_OK)
        c.st = gcg_automaton_minimize(out, lr->n_states);
    if (c.st == GCG_OK)
        c.st = gcg_certify(out, g, lr->n_states, rule_names);
    if (c.st == GCG_OK)
        c.st = certify_commit(&c, g, rule_names);
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
