/* certificate.c — the latency bound of a mask automaton (see certificate.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "artifact_format.h"
#include "certificate.h"
#include "scc.h"

#define NONE UINT32_MAX

void gcg_cert_rule_name(char out[64], const cfg *g, uint32_t nt, const char *const *rule_names)
{
    uint32_t rule = g->nts[nt].rule;
    snprintf(out, 64, "%s", rule != NONE && rule_names ? rule_names[rule] : g->nts[nt].name);
}

void gcg_certify_commit(mask_automaton *a, const cfg *g, const char *const *rule_names, const commit_bound *cb)
{
    a->commit_bounded = cb->bounded ? GCG_CERT_BOUNDED : cb->unbounded_reason;
    a->max_step_work = cb->bounded ? cb->max_step_work : 0;
    memset(a->commit_rule, 0, sizeof a->commit_rule);
    if (!cb->bounded && cb->nt != NONE)
        gcg_cert_rule_name(a->commit_rule, g, cb->nt, rule_names);
}

/* Longest read chain, set operations and bytes per frontier node, or the rule
 * behind a cycle (right recursion makes the automaton cyclic). */
gcg_status gcg_certify(mask_automaton *a, const cfg *g, uint32_t n_lr_states, const char *const *rule_names)
{
    uint32_t n = a->n_states, *comp = malloc(((size_t)n + 1) * sizeof *comp), n_comp;
    uint32_t *adj = malloc(((size_t)a->n_trans + 1) * sizeof *adj);
    uint32_t *first = calloc((size_t)n + 1, sizeof *first);
    uint32_t *reads = calloc((size_t)n + 1, sizeof *reads);
    uint64_t *bytes = calloc((size_t)n + 1, sizeof *bytes);
    gcg_status st = comp && adj && first && reads && bytes ? GCG_OK : GCG_ERR_NOMEM;
    for (uint32_t d = 0; d < n && st == GCG_OK; d++) {
        first[d] = a->trans_start[d];
        for (uint32_t i = a->trans_start[d]; i < a->trans_start[d + 1]; i++)
            adj[i] = a->trans[i].next == NONE ? d : a->trans[i].next; /* self-edge marks nothing */
    }
    if (st == GCG_OK) {
        first[n] = a->n_trans;
        st = gcg_scc(n, first, adj, comp, &n_comp);
    }
    a->bounded = true;
    /* Components come in reverse topological order: successors first. */
    uint32_t *order = st == GCG_OK ? malloc(((size_t)n + 1) * sizeof *order) : NULL;
    if (st == GCG_OK && !order)
        st = GCG_ERR_NOMEM;
    for (uint32_t d = 0; d < n && st == GCG_OK; d++)
        order[d] = d;
    for (uint32_t d = 0; d < n && st == GCG_OK; d++) /* counting sort by component */
        reads[d] = comp[d];
    if (st == GCG_OK) {
        uint32_t *cnt = calloc((size_t)n_comp + 1, sizeof *cnt);
        if (!cnt)
            st = GCG_ERR_NOMEM;
        for (uint32_t d = 0; cnt && d < n; d++)
            cnt[comp[d] + 1]++;
        for (uint32_t k = 0; cnt && k < n_comp; k++)
            cnt[k + 1] += cnt[k];
        for (uint32_t d = 0; cnt && d < n; d++)
            order[cnt[comp[d]]++] = d;
        free(cnt);
        memset(reads, 0, (size_t)n * sizeof *reads);
    }
    for (uint32_t i = 0; i < n && st == GCG_OK && a->bounded; i++) {
        uint32_t d = order[i];
        for (uint32_t k = a->trans_start[d]; k < a->trans_start[d + 1]; k++) {
            uint32_t nx = a->trans[k].next;
            if (nx != NONE && comp[nx] == comp[d]) {
                a->bounded = false;
                gcg_cert_rule_name(a->unbounded_rule, g, a->state_lhs[d], rule_names);
                break;
            }
            uint32_t r = 1 + (nx == NONE ? 0 : reads[nx]);
            uint64_t b = gcg_automaton_set_bytes(a, a->trans[k].acc) + (nx == NONE ? 0 : bytes[nx]);
            reads[d] = r > reads[d] ? r : reads[d];
            bytes[d] = b > bytes[d] ? b : bytes[d];
        }
    }
    for (uint32_t s = 0; s < n_lr_states && st == GCG_OK && a->bounded; s++) {
        uint32_t d = a->root_d[s], r = d == NONE ? 0 : reads[d];
        uint64_t b = gcg_automaton_set_bytes(a, a->root_acc[s]) + (d == NONE ? 0 : bytes[d]);
        a->max_reads = r > a->max_reads ? r : a->max_reads;
        a->max_bytes = b > a->max_bytes ? b : a->max_bytes;
    }
    a->max_set_ops = a->bounded ? a->max_reads + 1 : 0;
    free(comp), free(adj), free(first), free(reads), free(bytes), free(order);
    return st;
}

/* Set operations of one mask: each frontier state's root set and each
 * transition's set are OR-ed at most once (mask_walk.c skips repeats), so
 * the roots plus the transitions reachable from roots bound every mask. */
static gcg_status dedupe_set_ops(const mask_automaton *a, uint32_t n_lr_states, uint64_t *out)
{
    bool *seen = calloc((size_t)a->n_states + 1, 1);
    uint32_t *queue = malloc(((size_t)a->n_states + 1) * sizeof *queue), n = 0;
    if (!seen || !queue) {
        free(seen), free(queue);
        return GCG_ERR_NOMEM;
    }
    uint64_t ops = n_lr_states;
    for (uint32_t s = 0; s < n_lr_states; s++)
        if (a->root_d[s] != NONE && !seen[a->root_d[s]])
            seen[a->root_d[s]] = true, queue[n++] = a->root_d[s];
    for (uint32_t h = 0; h < n; h++) {
        uint32_t d = queue[h];
        ops += a->trans_start[d + 1] - a->trans_start[d];
        for (uint32_t k = a->trans_start[d]; k < a->trans_start[d + 1]; k++) {
            uint32_t nx = a->trans[k].next;
            if (nx != NONE && !seen[nx])
                seen[nx] = true, queue[n++] = nx;
        }
    }
    free(seen), free(queue);
    *out = ops;
    return GCG_OK;
}

/* ---- Fork bound: the most stacks a GLR run can hold at once ----------------
 *
 * Every path from a frontier node down the GSS is one LR stack of the
 * committed text, and the mask automaton is deterministic along a path, so
 * one mask pops at most P * (max_reads + 1) pairs and follows as many edges
 * when no more than P distinct stacks are alive after any byte. P is found by
 * simulating GLR symbolically from each conflict cell (the only place a
 * single stack forks), over every continuation, until the stacks fall back to
 * one or die:
 *
 *   - a configuration is a set of coexisting stacks over a shared, partly
 *     known base (the stack at the fork: base[0] on top, deeper entries
 *     revealed only when a reduction pops below, one world per state that can
 *     lie there: LR-automaton predecessors, an over-approximation);
 *   - entries pushed since the fork carry the level (step) that made them, so
 *     two stacks are the same GSS path exactly when their entries are equal
 *     (the runtime keeps one node per state and level; sharing equal nodes
 *     across levels, glr_merge.c, only removes nodes and is not relied on);
 *   - levels are renamed by rank and unused base entries dropped, so a fork
 *     that keeps a bounded shape revisits finitely many configurations.
 *
 * A fork that keeps growing (more stacks or longer private parts with every
 * byte: ambiguity such as `e ::= e e "c" | e "c" | "a"`, or two repetitions
 * of the same bytes meeting) exceeds the limits below and the grammar is
 * certified unbounded for ambiguity, naming a rule of the conflict. This is
 * the finite-degree-of-ambiguity question (Weber and Seidl, 1991) asked of
 * the LR automaton with its stack effects, answered by exploring the
 * configuration graph: sound, and complete for forks of bounded shape. */

#define FB_OWN 128      /* entries a stack may push after the fork          */
#define FB_BASE 256     /* base entries revealed below the fork             */
#define FB_STACKS 96    /* coexisting stacks                                 */
#define FB_WORK 1024    /* stacks met in one step (reductions included)      */
#define FB_CONFIGS 12000 /* new configurations one conflict cell's fork may reach */
#define FB_CONFIGS_ALL 200000 /* ... and all cells together                */
#define FB_CELL_BUDGET 2000000ull /* actions read from one conflict cell      */
#define FB_BUDGET 4000000ull /* ... and over the whole exploration          */
#define FB_COMPARES 100000000ull /* stack comparisons, likewise              */
#define FB_RED 0x7FFFFFF0u    /* level of this step's reductions (renamed)   */
#define FB_SHIFT 0x7FFFFFF1u  /* level of this step's shifts                 */
#define FB_FIRST 0x80000000u  /* flag: made in the fork's own step           */
#define FB_MERGE_ENTRIES 1024 /* beyond this many entries, merging is skipped */
#define FB_GAP 0xFFFFFFFEu    /* state of a gap entry (see fb_gap)            */
#define FB_KEEP 2             /* entries kept exact above a gap              */
#define FB_FRESH 0x40000000u  /* levels given to entries revealed in a gap   */

typedef struct fb_entry {
    uint32_t state, level;
} fb_entry;

typedef struct fb_stack {
    uint32_t d, n;      /* on base[d..]; n entries of its own on top       */
    fb_entry e[FB_OWN];
} fb_stack;

typedef struct fb_config {
    uint32_t nb, ns;
    uint32_t base[FB_BASE];
    fb_stack s[FB_STACKS];
} fb_config;

typedef enum { FB_OK, FB_EXTEND, FB_REVEAL, FB_GIVE_UP } fb_result;

#define FB_STEP_BITS 12 /* hash slots for a step's nodes and edges: */
#define FB_STEP_SLOTS (1u << FB_STEP_BITS) /* > 2 * (2 * FB_WORK) keys */

#define FB_NODE_BITS 12 /* hash slots for a configuration's nodes: */
#define FB_NODE_SLOTS (1u << FB_NODE_BITS) /* > 2 * FB_MERGE_ENTRIES */

/* A node of a configuration: its successor, and whether all its
 * occurrences stand on that one. */
typedef struct fb_node {
    fb_entry v, succ;
    uint32_t single;
} fb_node;

/* The nodes of one configuration, in the order the stacks list them, and
 * the earlier levels' nodes by (state, successor); slots are valid where
 * their generation is the table's. */
typedef struct fb_nodes {
    fb_node node[FB_MERGE_ENTRIES];
    uint32_t n, gen;
    uint32_t slot[FB_NODE_SLOTS], gen_of[FB_NODE_SLOTS];
    uint32_t tslot[FB_NODE_SLOTS], tgen_of[FB_NODE_SLOTS];
} fb_nodes;

#define FB_LEVEL_SLOTS 32768 /* > 2 * FB_STACKS * FB_OWN: hash slots for levels */

#define FB_RANKS 16384 /* > FB_STACKS * FB_OWN: every rank a normalization gives */

/* Levels met in one configuration: key -> rank where gen_of is gen. */
typedef struct fb_levels {
    uint32_t key[FB_LEVEL_SLOTS], rank[FB_LEVEL_SLOTS], gen_of[FB_LEVEL_SLOTS], gen;
    uint32_t distinct[FB_STACKS * FB_OWN], other[FB_STACKS * FB_OWN];
    uint64_t small[2][FB_RANKS / 64]; /* fb_sort_levels' bitmaps, zero between calls */
} fb_levels;

typedef struct fork_bound {
    const lr_tables *lr;
    uint32_t *pred_start, *pred; /* states with a transition into each state */
    uint32_t *keys, n_keys, cap_keys; /* serialized configurations           */
    uint32_t *slot, cap_slot;         /* hash set over keys: offsets + 1     */
    uint32_t *queue, n_queue, cap_queue;
    uint32_t max_stacks, n_configs, cell_first; /* configurations found, and
                                         how many when the cell in hand began */
    uint64_t work, compares, cell_work; /* actions read, stack comparisons, and
                                         actions when the cell in hand began */
    fb_stack work_stacks[FB_WORK];    /* the stacks reductions made           */
    uint32_t n_work, n_own;           /* ... and the configuration's stacks   */
    uint32_t work_slot[2 * FB_WORK], work_gen[2 * FB_WORK], gen; /* hash set over
                                    work_stacks, valid where work_gen == gen */
    fb_config scratch;                /* a step's successor configuration    */
    const fb_stack *ord[FB_STACKS];   /* ... its distinct stacks, in order   */
    fb_nodes nodes;                   /* merging's tables                    */
    fb_levels levels;                 /* normalizing's                       */
    uint32_t *consulted, n_consulted; /* states whose action the exploration of
                                         one (configuration, terminal) read */
    uint32_t *seen, seen_gen;         /* per state: consulted in this one   */
    uint32_t *reps, n_reps_words, cap_reps; /* terminals explored from the
                                         config in hand: (t, n, states...)
                                         records                             */
    bool gaps, own_full;              /* common chains become gaps; a stack
                                         outgrew FB_OWN                      */
    uint32_t fresh;                   /* the next revealed entry's level     */
    commit_forks *cf;                 /* the steps' work (fb_step_bound), or NULL */
    uint64_t step_work, cell_step;    /* this step's, and the cell's own step's
                                         most (over its worlds)             */
    bool cf_failed;                   /* an end-of-input step was not bounded */
    uint32_t key[FB_STEP_SLOTS][3], key_gen[FB_STEP_SLOTS]; /* fb_step_bound's
                                         nodes and edges, where key_gen == gen */
} fork_bound;

static uint32_t fb_top(const fb_config *c, const fb_stack *s)
{
    return s->n ? s->e[s->n - 1].state : c->base[s->d];
}

/* Stacks are copied as far as they are used: a whole fb_stack is 1 KB. */
static void fb_copy(fb_stack *dst, const fb_stack *src)
{
    dst->d = src->d, dst->n = src->n;
    memcpy(dst->e, src->e, src->n * sizeof *src->e);
}

static void fb_config_copy(fb_config *dst, const fb_config *src)
{
    dst->nb = src->nb, dst->ns = src->ns;
    memcpy(dst->base, src->base, src->nb * sizeof *src->base);
    for (uint32_t i = 0; i < src->ns; i++)
        fb_copy(&dst->s[i], &src->s[i]);
}

static bool fb_same(const fb_stack *a, const fb_stack *b)
{
    return a->d == b->d && a->n == b->n && memcmp(a->e, b->e, a->n * sizeof *a->e) == 0;
}

/* Records p as a predecessor of q (pass 1) or counts it (pass 0), once. */
static void fb_pred_add(fork_bound *f, uint32_t *last, int pass, uint32_t p, uint32_t q)
{
    if (last[q] == p + 1)
        return;
    last[q] = p + 1;
    if (pass == 0)
        f->pred_start[q + 2]++;
    else
        f->pred[f->pred_start[q + 1]++] = p;
}

/* Predecessor lists: the states p whose shift or goto leads to q, i.e.
 * what can lie below q on a stack. */
static gcg_status fb_preds(fork_bound *f)
{
    const lr_tables *lr = f->lr;
    uint32_t n = lr->n_states;
    uint32_t *last = malloc(((size_t)n + 1) * sizeof *last);
    f->pred_start = calloc((size_t)n + 2, sizeof *f->pred_start);
    if (!last || !f->pred_start) {
        free(last);
        return GCG_ERR_NOMEM;
    }
    for (int pass = 0; pass < 2; pass++) {
        memset(last, 0, (size_t)n * sizeof *last);
        for (uint32_t p = 0; p < n; p++) {
            for (uint32_t t = 0; t < lr->n_terms; t++) {
                uint32_t a = lr_action(lr, p, t);
                const uint32_t *m = GCG_ACT_KIND(a) == GCG_ACT_MULTI ? lr->multi + GCG_ACT_ARG(a) : NULL;
                for (uint32_t i = 0; i < (m ? m[0] : 1); i++) {
                    uint32_t x = m ? m[i + 1] : a;
                    if (GCG_ACT_KIND(x) == GCG_ACT_SHIFT)
                        fb_pred_add(f, last, pass, p, GCG_ACT_ARG(x));
                }
            }
            for (uint32_t k = lr->go_start[p]; k < lr->go_start[p + 1]; k++) /* p's gotos */
                fb_pred_add(f, last, pass, p, lr->go_to[k]);
        }
        if (pass == 0) {
            for (uint32_t q = 0; q < n; q++)
                f->pred_start[q + 2] += f->pred_start[q + 1];
            f->pred = malloc(((size_t)f->pred_start[n + 1] + 1) * sizeof *f->pred);
            if (!f->pred) {
                free(last);
                return GCG_ERR_NOMEM;
            }
        }
    }
    free(last);
    return GCG_OK;
}

static uint32_t fb_stack_hash(const fb_stack *s)
{
    uint64_t h = XXH3_64bits_withSeed(s->e, s->n * sizeof *s->e, (uint64_t)s->d << 32 | s->n);
    return (uint32_t)(h ^ (h >> 32));
}

/* Adds s, a stack a reduction made, to the step's work list unless it is
 * there (a hash set: a step may meet a thousand stacks); false when full.
 * The configuration's own stacks are not in the set: they are distinct
 * (normalized) and none ends in an entry of this step's level, as every
 * reduced stack does. */
static bool fb_work_add(fork_bound *f, const fb_stack *s)
{
    uint32_t h = fb_stack_hash(s) & (2 * FB_WORK - 1);
    for (; f->work_gen[h] == f->gen; h = (h + 1) & (2 * FB_WORK - 1)) {
        f->compares++;
        if (fb_same(&f->work_stacks[f->work_slot[h]], s))
            return true;
    }
    if (f->n_work + f->n_own == FB_WORK)
        return false;
    f->work_gen[h] = f->gen, f->work_slot[h] = f->n_work;
    if (s != &f->work_stacks[f->n_work]) /* not built in place */
        fb_copy(&f->work_stacks[f->n_work], s);
    f->n_work++;
    return true;
}

/* Adds s to out's stacks unless there; false when full. */
static bool fb_out_add(fork_bound *f, fb_config *out, const fb_stack *s)
{
    f->compares += out->ns;
    for (uint32_t i = 0; i < out->ns; i++)
        if (fb_same(&out->s[i], s))
            return true;
    if (out->ns == FB_STACKS)
        return false;
    if (s != &out->s[out->ns]) /* not built in place */
        fb_copy(&out->s[out->ns], s);
    out->ns++;
    return true;
}

/* Reduction by prod on stack `from`: pop, goto, queue the new stack. */
static fb_result fb_reduce(fork_bound *f, const fb_config *c, const fb_stack *from, uint32_t prod)
{
    const lr_tables *lr = f->lr;
    uint32_t n = from->n, d = from->d;
    for (uint32_t k = 0; k < lr->prod_len[prod]; k++) {
        if (n && from->e[n - 1].state == FB_GAP)
            return FB_REVEAL;
        if (n) {
            n--;
            continue;
        }
        if (d + 1 == c->nb) { /* below what is known: split the world */
            uint32_t q = c->base[d];
            return f->pred_start[q] == f->pred_start[q + 1] ? FB_OK /* stack bottom */ : FB_EXTEND;
        }
        d++;
    }
    if (n && from->e[n - 1].state == FB_GAP)
        return FB_REVEAL;
    uint32_t g = lr_goto(lr, n ? from->e[n - 1].state : c->base[d], lr->prod_lhs[prod]);
    if (g == GCG_NO_GOTO)
        return FB_OK;
    if (n == FB_OWN) {
        f->own_full = true;
        return FB_GIVE_UP;
    }
    /* built in the work list's next slot (free: n_work + n_own < FB_WORK
     * while the list is not full), kept there if new */
    fb_stack *s = &f->work_stacks[f->n_work];
    s->d = d, s->n = n + 1;
    memcpy(s->e, from->e, n * sizeof *s->e);
    s->e[n] = (fb_entry){g, FB_RED};
    return fb_work_add(f, s) ? FB_OK : FB_GIVE_UP;
}

/* One action of a stack on terminal t. */
static fb_result fb_act(fork_bound *f, const fb_config *c, const fb_stack *s, uint32_t a, fb_config *out)
{
    uint32_t arg = GCG_ACT_ARG(a);
    if (GCG_ACT_KIND(a) == GCG_ACT_SHIFT) {
        if (s->n == FB_OWN) {
            f->own_full = true;
            return FB_GIVE_UP;
        }
        /* built in out's next slot and kept there if new (a spare when out is full) */
        fb_stack spare, *x = out->ns < FB_STACKS ? &out->s[out->ns] : &spare;
        fb_copy(x, s);
        x->e[x->n++] = (fb_entry){arg, FB_SHIFT};
        return fb_out_add(f, out, x) ? FB_OK : FB_GIVE_UP;
    }
    if (GCG_ACT_KIND(a) != GCG_ACT_REDUCE || arg == 0) /* accept: end of input only */
        return FB_OK;
    return fb_reduce(f, c, s, arg);
}

/* The stacks after terminal t (a byte class), from the stacks of c. */
static fb_result fb_step(fork_bound *f, const fb_config *c, uint32_t t, fb_config *out)
{
    const lr_tables *lr = f->lr;
    f->n_work = 0;
    if (++f->gen == 0) { /* the stamps wrapped: clear them (fb_step_bound's too) */
        memset(f->work_gen, 0, sizeof f->work_gen), memset(f->key_gen, 0, sizeof f->key_gen);
        f->gen = 1;
    }
    out->nb = c->nb, out->ns = 0;
    memcpy(out->base, c->base, c->nb * sizeof *c->base);
    f->n_own = c->ns;
    f->step_work = 0;
    if (f->n_own > FB_WORK)
        return FB_GIVE_UP;
    for (uint32_t i = 0; i < c->ns + f->n_work; i++) {
        /* c's stacks, then those reductions made: the list only grows */
        const fb_stack *s = i < c->ns ? &c->s[i] : &f->work_stacks[i - c->ns];
        uint32_t top = fb_top(c, s), a = lr_action(lr, top, t);
        if (f->seen[top] != f->seen_gen) {
            f->seen[top] = f->seen_gen;
            f->consulted[f->n_consulted++] = top;
        }
        const uint32_t *m = GCG_ACT_KIND(a) == GCG_ACT_MULTI ? lr->multi + GCG_ACT_ARG(a) : NULL;
        f->work += m ? m[0] : 1;
        f->step_work += 1;
        for (uint32_t k = 0; k < (m ? m[0] : 1); k++) {
            uint32_t x = m ? m[k + 1] : a;
            if (GCG_ACT_KIND(x) == GCG_ACT_SHIFT)
                f->step_work += 1;
            else if (GCG_ACT_KIND(x) == GCG_ACT_REDUCE && GCG_ACT_ARG(x) != 0)
                f->step_work += 2 + 2 * (uint64_t)lr->prod_len[GCG_ACT_ARG(x)];
            fb_result r = fb_act(f, c, s, x, out);
            if (r != FB_OK)
                return r;
        }
    }
    return f->work > FB_BUDGET || f->work - f->cell_work > FB_CELL_BUDGET || f->compares > FB_COMPARES
               ? FB_GIVE_UP
               : FB_OK;
}

/* Whether a node with state q that the fork's own step made by a reduction
 * may be an entry of the base itself (the base is the stack as that step
 * left it), with edges of both: such a node is kept apart from merging
 * (FB_FIRST). The entries that step made are the base's top ones down to
 * the first entered by a shift (shifts make the next level) or the start
 * state; while none such is known, any may be. */
static bool fb_maybe_base(const fb_config *c, const lr_tables *lr, uint32_t q)
{
    for (uint32_t i = 0; i < c->nb; i++) {
        uint32_t acc = lr->accessing[c->base[i]];
        if (acc == UINT32_MAX || (acc & CFG_TERM))
            return false;
        if (c->base[i] == q)
            return true;
    }
    return true;
}

/* The node below entry k of stack s: an entry, or the base entry it stands
 * on (base ids have the top bit clear in .level's place: UINT32_MAX). */
static fb_entry fb_below(const fb_stack *s, uint32_t k)
{
    return k ? s->e[k - 1] : (fb_entry){s->d, UINT32_MAX};
}

static bool fb_eq(fb_entry a, fb_entry b)
{
    return a.state == b.state && a.level == b.level;
}

/* Whether base entry i (not the deepest: its successor is known) may be
 * merged into: every base node has one edge (one stack at the fork), but
 * one the fork's own step made may share a node with a flagged entry. */
static bool fb_base_target(const fb_config *c, const lr_tables *lr, uint32_t i)
{
    if (i + 1 >= c->nb || !fb_maybe_base(c, lr, c->base[i]))
        return i + 1 < c->nb;
    for (uint32_t j = 0; j < c->ns; j++)
        for (uint32_t k = 0; k < c->s[j].n; k++)
            if ((c->s[j].e[k].level & FB_FIRST) && c->s[j].e[k].state == c->base[i])
                return false;
    return true;
}

/* Merges v (successor base[d]) into base[d - 1]: the stacks through v now
 * stand one entry lower on the base. */
static void fb_merge_into_base(fb_config *c, fb_entry v, uint32_t d)
{
    for (uint32_t j = 0; j < c->ns; j++) {
        fb_stack *s = &c->s[j];
        if (s->d == d && s->n && fb_eq(s->e[0], v)) {
            memmove(s->e, s->e + 1, (s->n - 1) * sizeof *s->e);
            s->n--, s->d--;
        }
    }
}

/* Merges node v into the earlier node w: renaming its level makes the
 * stacks through it those through w. */
static void fb_rename(fb_config *c, fb_entry v, fb_entry w)
{
    for (uint32_t j = 0; j < c->ns; j++)
        for (uint32_t m = 0; m < c->s[j].n; m++)
            if (fb_eq(c->s[j].e[m], v))
                c->s[j].e[m].level = w.level;
}

/* ---- Merging: the runtime's node sharing ----------------------------------
 *
 * A pass of fb_merge_pass reads, for every node (state, level) of the
 * configuration, whether all its occurrences stand on one successor; it
 * merges the first node of this step (in the order the stacks list them)
 * that has a single successor and an earlier twin: a base entry it may
 * join, or the first node of an earlier level with its state and that same
 * single successor. One scan fills a node table and an index of the
 * earlier nodes by (state, successor), so a pass costs one look-up per
 * entry, not a scan per node. */

/* A slot for key (a, b, c) in a table of FB_NODE_SLOTS: multiplicative
 * hashing (Knuth, TAOCP 6.4), the product's top bits. Keys are small
 * integers; 32-bit products cost half the 64-bit mixer used before,
 * which was a seventh of a growing fork's exploration. */
static uint32_t fb_slot_hash(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t h = (a * 0x9E3779B1u + b) * 0x85EBCA77u + c;
    return (h * 0xC2B2AE3Du) >> (32 - FB_NODE_BITS);
}

/* Notes an occurrence of node v on successor z in the node table. */
static void fb_node_note(fb_nodes *t, fb_entry v, fb_entry z)
{
    uint32_t h = fb_slot_hash(v.state, v.level, 0);
    for (; t->gen_of[h] == t->gen; h = (h + 1) & (FB_NODE_SLOTS - 1))
        if (fb_eq(t->node[t->slot[h]].v, v)) {
            fb_node *n = &t->node[t->slot[h]];
            n->single &= fb_eq(n->succ, z);
            return;
        }
    t->gen_of[h] = t->gen, t->slot[h] = t->n;
    t->node[t->n++] = (fb_node){v, z, 1};
}

/* Indexes node i (an earlier level's, single successor) by (state, successor)
 * unless an earlier node holds the key. */
static void fb_index_add(fb_nodes *t, uint32_t i)
{
    const fb_node *n = &t->node[i];
    uint32_t h = fb_slot_hash(n->v.state, n->succ.state, n->succ.level);
    for (; t->tgen_of[h] == t->gen; h = (h + 1) & (FB_NODE_SLOTS - 1)) {
        const fb_node *o = &t->node[t->tslot[h]];
        if (o->v.state == n->v.state && fb_eq(o->succ, n->succ))
            return;
    }
    t->tgen_of[h] = t->gen, t->tslot[h] = i;
}

/* The first earlier node with n's state and n's single successor, or NULL. */
static const fb_node *fb_index_find(const fb_nodes *t, const fb_node *n)
{
    uint32_t h = fb_slot_hash(n->v.state, n->succ.state, n->succ.level);
    for (; t->tgen_of[h] == t->gen; h = (h + 1) & (FB_NODE_SLOTS - 1)) {
        const fb_node *o = &t->node[t->tslot[h]];
        if (o->v.state == n->v.state && fb_eq(o->succ, n->succ))
            return o;
    }
    return NULL;
}

static bool fb_this_step(uint32_t level)
{
    return level == FB_RED || level == FB_SHIFT;
}

/* Fills the node table and the index of c's nodes, in the stacks' order. */
static void fb_nodes_fill(fb_nodes *t, const fb_config *c)
{
    if (++t->gen == 0) {
        memset(t->gen_of, 0, sizeof t->gen_of), memset(t->tgen_of, 0, sizeof t->tgen_of);
        t->gen = 1;
    }
    t->n = 0;
    for (uint32_t i = 0; i < c->ns; i++)
        for (uint32_t k = 0; k < c->s[i].n; k++)
            fb_node_note(t, c->s[i].e[k], fb_below(&c->s[i], k));
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t level = t->node[i].v.level;
        if (t->node[i].single && !fb_this_step(level) && !(level & FB_FIRST))
            fb_index_add(t, i);
    }
}

/* One pass of merging over this step's nodes; whether one merged. */
static bool fb_merge_pass(fb_config *c, fb_nodes *t, const lr_tables *lr, bool first)
{
    fb_nodes_fill(t, c);
    for (uint32_t i = 0; i < t->n; i++) {
        const fb_node *n = &t->node[i], *w;
        fb_entry v = n->v, z = n->succ;
        if (!fb_this_step(v.level) || !n->single)
            continue;
        if (z.level == UINT32_MAX && z.state > 0 && !first && c->base[z.state - 1] == v.state &&
            fb_base_target(c, lr, z.state - 1)) {
            fb_merge_into_base(c, v, z.state);
            return true;
        }
        if ((w = fb_index_find(t, n)) != NULL) {
            fb_rename(c, v, w->v);
            return true;
        }
    }
    return false;
}

/* The runtime's sharing (glr_merge.c): a node made in this step with one
 * successor is replaced by an earlier node (not one of this step's) with
 * the same state and the same single successor, bottom up. The earlier
 * node may be an entry of the stacks or of the base. */
static void fb_merge(fb_config *c, fb_nodes *t, const lr_tables *lr, bool first)
{
    uint32_t entries = 0;
    for (uint32_t i = 0; i < c->ns; i++)
        entries += c->s[i].n;
    if (entries > FB_MERGE_ENTRIES) /* merging less only overcounts */
        return;
    while (fb_merge_pass(c, t, lr, first))
        ;
}

static int fb_cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

#define FB_SMALL_SORT 32 /* up to this many, insertion sort beats qsort's set-up */

static void fb_sort_u32(uint32_t *v, uint32_t n)
{
    if (n > FB_SMALL_SORT) {
        qsort(v, n, sizeof *v, fb_cmp_u32);
        return;
    }
    for (uint32_t i = 1; i < n; i++) {
        uint32_t x = v[i], j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

/* The slot of `level` in t: its own, or the empty one where it goes. */
static uint32_t fb_level_slot(const fb_levels *t, uint32_t level)
{
    uint32_t h = (uint32_t)((level * 0x9E3779B97F4A7C15ull) >> 40) & (FB_LEVEL_SLOTS - 1);
    while (t->gen_of[h] == t->gen && t->key[h] != level)
        h = (h + 1) & (FB_LEVEL_SLOTS - 1);
    return h;
}

static int fb_cmp_stack(const void *x, const void *y)
{
    const fb_stack *a = x, *b = y;
    if (a->d != b->d)
        return a->d < b->d ? -1 : 1;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    for (uint32_t i = 0; i < a->n; i++) {
        if (a->e[i].state != b->e[i].state)
            return a->e[i].state < b->e[i].state ? -1 : 1;
        if (a->e[i].level != b->e[i].level)
            return a->e[i].level < b->e[i].level ? -1 : 1;
    }
    return 0;
}

static int fb_cmp_stack_ptr(const void *x, const void *y)
{
    return fb_cmp_stack(*(const fb_stack *const *)x, *(const fb_stack *const *)y);
}

static void fb_sort_stacks(const fb_stack **v, uint32_t n)
{
    if (n > FB_SMALL_SORT) {
        qsort(v, n, sizeof *v, fb_cmp_stack_ptr);
        return;
    }
    for (uint32_t i = 1; i < n; i++) {
        const fb_stack *x = v[i];
        uint32_t j = i;
        for (; j > 0 && fb_cmp_stack(v[j - 1], x) > 0; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

/* Sorts the n distinct levels t->distinct ascending. Almost all are ranks
 * of the last normalization, with or without FB_FIRST: those are set in
 * two bitmaps and read back in order (sorting the hundreds of levels of a
 * growing fork's configurations by comparison was an eighth of such a
 * compile); the few others (this step's, FB_RED and FB_SHIFT) are sorted
 * and merged in. */
static void fb_sort_levels(fb_levels *t, uint32_t n)
{
    uint32_t n_other = 0, n_small = 0, words[2] = {0, 0};
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = t->distinct[i], r = v & ~FB_FIRST;
        if (r < FB_RANKS) {
            t->small[v >> 31][r / 64] |= 1ull << (r % 64);
            words[v >> 31] = r / 64 + 1 > words[v >> 31] ? r / 64 + 1 : words[v >> 31];
        } else {
            t->other[n_other++] = v;
        }
    }
    fb_sort_u32(t->other, n_other);
    uint32_t *out = t->distinct, k = 0;
    for (uint32_t f = 0; f < 2; f++)
        for (uint32_t w = 0; w < words[f]; w++)
            for (uint64_t bits = t->small[f][w]; bits; bits &= bits - 1) {
                uint32_t v = (f ? FB_FIRST : 0) | (w * 64 + (uint32_t)__builtin_ctzll(bits));
                for (; k < n_other && t->other[k] < v; k++)
                    out[n_small++] = t->other[k];
                out[n_small++] = v;
                t->small[f][w] = 0;
            }
    while (k < n_other)
        out[n_small++] = t->other[k++];
}

/* The rank of each distinct level among them all, by a hash set of the
 * levels met: a configuration has thousands of entries but few levels. */
static void fb_rank_levels(fb_levels *t, fb_config *c)
{
    if (++t->gen == 0) {
        memset(t->gen_of, 0, sizeof t->gen_of);
        t->gen = 1;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->ns; i++)
        for (uint32_t k = 0; k < c->s[i].n; k++) {
            uint32_t h = fb_level_slot(t, c->s[i].e[k].level);
            if (t->gen_of[h] != t->gen)
                t->gen_of[h] = t->gen, t->key[h] = c->s[i].e[k].level, t->distinct[n++] = c->s[i].e[k].level;
        }
    fb_sort_levels(t, n);
    for (uint32_t r = 0; r < n; r++)
        t->rank[fb_level_slot(t, t->distinct[r])] = r;
    for (uint32_t i = 0; i < c->ns; i++)
        for (uint32_t k = 0; k < c->s[i].n; k++) {
            uint32_t level = c->s[i].e[k].level;
            c->s[i].e[k].level = t->rank[fb_level_slot(t, level)] | (level & FB_FIRST);
        }
}

/* Canonical form: base entries no stack stands on dropped, levels renamed by
 * rank (only their equality matters to later steps; the fork step's flag
 * is kept), stacks sorted and equal ones dropped: ord[0..n) lists the
 * distinct stacks in order (they stay in c: a stack is 1 KB); returns n. */
static uint32_t fb_normalize(fb_config *c, fb_levels *levels, const fb_stack **ord)
{
    uint32_t lo = UINT32_MAX;
    for (uint32_t i = 0; i < c->ns; i++)
        lo = c->s[i].d < lo ? c->s[i].d : lo;
    memmove(c->base, c->base + lo, (c->nb - lo) * sizeof *c->base);
    c->nb -= lo;
    for (uint32_t i = 0; i < c->ns; i++)
        c->s[i].d -= lo;
    fb_rank_levels(levels, c);
    for (uint32_t i = 0; i < c->ns; i++)
        ord[i] = &c->s[i];
    fb_sort_stacks(ord, c->ns);
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->ns; i++) /* merged nodes can make stacks equal */
        if (n == 0 || !fb_same(ord[n - 1], ord[i]))
            ord[n++] = ord[i];
    return n;
}

/* Serializes c's base and the stacks ord[0..ns) at the end of the key pool:
 * length, nb, ns, base, stacks. */
static bool fb_serialize(fork_bound *f, const fb_config *c, const fb_stack *const *ord, uint32_t ns,
                         uint32_t *at)
{
    uint32_t len = 3 + c->nb;
    for (uint32_t i = 0; i < ns; i++)
        len += 2 + 2 * ord[i]->n;
    if (f->n_keys + len > f->cap_keys) {
        uint32_t cap = f->cap_keys ? f->cap_keys : 4096;
        while (f->n_keys + len > cap)
            cap *= 2;
        uint32_t *k = realloc(f->keys, (size_t)cap * sizeof *k);
        if (!k)
            return false;
        f->keys = k, f->cap_keys = cap;
    }
    uint32_t *k = f->keys + f->n_keys;
    *at = f->n_keys;
    *k++ = len, *k++ = c->nb, *k++ = ns;
    memcpy(k, c->base, c->nb * sizeof *k);
    k += c->nb;
    for (uint32_t i = 0; i < ns; i++) {
        *k++ = ord[i]->d, *k++ = ord[i]->n;
        for (uint32_t j = 0; j < ord[i]->n; j++)
            *k++ = ord[i]->e[j].state, *k++ = ord[i]->e[j].level;
    }
    return true;
}

static void fb_deserialize(const fork_bound *f, uint32_t at, fb_config *c)
{
    const uint32_t *k = f->keys + at + 1;
    c->nb = *k++, c->ns = *k++;
    memcpy(c->base, k, c->nb * sizeof *k);
    k += c->nb;
    for (uint32_t i = 0; i < c->ns; i++) {
        c->s[i].d = *k++, c->s[i].n = *k++;
        for (uint32_t j = 0; j < c->s[i].n; j++)
            c->s[i].e[j].state = *k++, c->s[i].e[j].level = *k++;
    }
}

static uint32_t fb_hash(const uint32_t *k)
{
    uint64_t h = XXH3_64bits(k, k[0] * sizeof *k);
    return (uint32_t)(h ^ (h >> 32));
}

/* Interns the configuration just serialized at `at`: a new one is queued,
 * a known one is dropped from the pool. */
static fb_result fb_intern(fork_bound *f, uint32_t at)
{
    if (2 * (f->n_configs + 1) > f->cap_slot) {
        uint32_t cap = f->cap_slot ? 2 * f->cap_slot : 1024;
        uint32_t *s = calloc(cap, sizeof *s);
        if (!s)
            return FB_GIVE_UP;
        for (uint32_t i = 0; i < f->cap_slot; i++)
            if (f->slot[i]) {
                uint32_t h = fb_hash(f->keys + f->slot[i] - 1) & (cap - 1);
                while (s[h])
                    h = (h + 1) & (cap - 1);
                s[h] = f->slot[i];
            }
        free(f->slot);
        f->slot = s, f->cap_slot = cap;
    }
    const uint32_t *k = f->keys + at;
    uint32_t h = fb_hash(k) & (f->cap_slot - 1);
    for (; f->slot[h]; h = (h + 1) & (f->cap_slot - 1))
        if (memcmp(f->keys + f->slot[h] - 1, k, k[0] * sizeof *k) == 0) {
            f->n_keys = at;
            return FB_OK;
        }
    f->slot[h] = at + 1;
    f->n_keys += k[0];
    if (++f->n_configs - f->cell_first > FB_CONFIGS || f->n_configs > FB_CONFIGS_ALL)
        return FB_GIVE_UP;
    if (f->n_queue == f->cap_queue) {
        uint32_t cap = f->cap_queue ? 2 * f->cap_queue : 256;
        uint32_t *q = realloc(f->queue, (size_t)cap * sizeof *q);
        if (!q)
            return FB_GIVE_UP;
        f->queue = q, f->cap_queue = cap;
    }
    f->queue[f->n_queue++] = at;
    return FB_OK;
}

/* ---- The work of a step ----------------------------------------------------
 *
 * glr.c counts a unit per node whose actions it reads, per reduction it
 * dequeues, per edge a reduction follows, per edge it links and per shift
 * (commit_bound.h). fb_step did as much along every stack it met, each
 * reduction's edges counted twice (a walk along a plain stack that meets a
 * fork starts again breadth first), so step_work bounds one pass of the
 * runtime over the same paths, whose layers it shares. A goto that reaches a
 * node of this level by another edge (a late edge, Farshi's correction)
 * makes the runtime redo the reductions of the level's nodes above it
 * through the new edge: at most another pass, twice (a layer may hold a node
 * on both sides of the edge), a look at each node made and the closure over
 * the level's own edges. In the fork's own step a goto may also be late onto
 * a node the chain before the cell made: those reduce on the terminal (the
 * chain went on from them) or are the cell's own node, so only a goto to
 * such a state counts (commit_bound.c adds the chain's own part). */

/* Whether key (a, b, c) is new in the step's key set (stamped slots). */
static bool fb_step_key_new(fork_bound *f, uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t h = (((a * 0x9E3779B1u + b) * 0x85EBCA77u + c) * 0xC2B2AE3Du) >> (32 - FB_STEP_BITS);
    for (; f->key_gen[h] == f->gen; h = (h + 1) & (FB_STEP_SLOTS - 1))
        if (f->key[h][0] == a && f->key[h][1] == b && f->key[h][2] == c)
            return false;
    f->key_gen[h] = f->gen;
    f->key[h][0] = a, f->key[h][1] = b, f->key[h][2] = c;
    return true;
}

/* The step's work bound; *onto_chain the gotos of a fork's own step that
 * may land on the chain's nodes, *intra the edges between its nodes. */
static uint64_t fb_step_bound(fork_bound *f, bool first, uint32_t t, uint32_t q, uint32_t *onto_chain_out,
                              uint32_t *intra_out)
{
    uint32_t n = f->n_work, made = 0, pairs = 0, intra = 0, onto_chain = 0;
    if (++f->gen == 0) { /* the stamps wrapped: clear them (work_gen too) */
        memset(f->work_gen, 0, sizeof f->work_gen), memset(f->key_gen, 0, sizeof f->key_gen);
        f->gen = 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        const fb_stack *s = &f->work_stacks[i];
        fb_entry below = fb_below(s, s->n - 1);
        uint32_t top = s->e[s->n - 1].state;
        bool node = fb_step_key_new(f, top, UINT32_MAX, UINT32_MAX);
        made += node;
        /* the chain before the cell made nodes that reduce on t, and the
         * cell's own node: a goto to such a state may land on one of them */
        onto_chain += node && first && (top == q || GCG_ACT_KIND(lr_action(f->lr, top, t)) == GCG_ACT_REDUCE);
        bool edge = fb_step_key_new(f, top, below.state, below.level);
        pairs += edge;
        intra += edge && below.level == FB_RED;
    }
    uint32_t late = pairs - made + onto_chain;
    *onto_chain_out = onto_chain, *intra_out = intra;
    return f->step_work + (uint64_t)late * (2 * f->step_work + made + (uint64_t)intra * (intra + 1));
}

/* Records the work of the step fb_step just simulated from c on t. */
static void fb_note_step(fork_bound *f, const fb_config *c, uint32_t t, bool first)
{
    uint32_t late, intra;
    uint64_t u = fb_step_bound(f, first, t, c->base[0], &late, &intra);
    if (first) {
        f->cell_step = u > f->cell_step ? u : f->cell_step;
        f->cf->late = late > f->cf->late ? late : f->cf->late;
        f->cf->intra = intra > f->cf->intra ? intra : f->cf->intra;
    } else {
        u = u < UINT32_MAX ? u : UINT32_MAX;
        f->cf->forked = u > f->cf->forked ? (uint32_t)u : f->cf->forked;
    }
}

/* ---- Gaps: a chain all the stacks share, partly forgotten -----------------
 *
 * A fork can end with every stack carrying the same chain on top: the
 * stacks differ below some node (where a whitespace run was split, say)
 * and the parse then goes on as one, into nested brackets. Each step pushes
 * the chain on every stack, the configurations never repeat, and the exact
 * exploration outgrows FB_OWN. The chain's nodes have one edge each (only
 * nodes of the current level get new edges), so its middle can be forgotten:
 * a gap entry stands for some path of the LR automaton from the entry below
 * it up to the entry above, the same path in every stack. A reduction that
 * pops into the gap reveals the gap's top in every world: any predecessor
 * of the entry above (the gap goes on below it, with a level no other node
 * has), or none, where the entry below is such a predecessor (the gap was
 * empty). Like the base's worlds this over-approximates the stacks that can
 * occur, so the bound stays sound; and with at most FB_KEEP entries exact
 * above the gap, the shapes repeat. It is tried only after the exact
 * exploration outgrew FB_OWN (fork_bound_run). */

/* The position of s's gap entry, or s->n. */
static uint32_t fb_gap_at(const fb_stack *s)
{
    uint32_t k = 0;
    while (k < s->n && s->e[k].state != FB_GAP)
        k++;
    return k;
}

static bool fb_is_pred(const fork_bound *f, uint32_t p, uint32_t q)
{
    for (uint32_t i = f->pred_start[q]; i < f->pred_start[q + 1]; i++)
        if (f->pred[i] == p)
            return true;
    return false;
}

/* Removes n entries of every stack from position `at` of each (one position
 * per stack), or with x non-NULL inserts x there instead. */
static void fb_splice(fb_config *c, const uint32_t *at, uint32_t n, const fb_entry *x)
{
    for (uint32_t j = 0; j < c->ns; j++) {
        fb_stack *s = &c->s[j];
        if (x) {
            memmove(s->e + at[j] + 1, s->e + at[j], (s->n - at[j]) * sizeof *s->e);
            s->e[at[j]] = *x, s->n++;
        } else {
            memmove(s->e + at[j], s->e + at[j] + n, (s->n - at[j] - n) * sizeof *s->e);
            s->n -= n;
        }
    }
}

static fb_result fb_explore(fork_bound *f, const fb_config *c, uint32_t t, bool first);

/* The worlds of a reduction popping into c's gap: every stack holds the gap,
 * and the same entries next to it. */
static fb_result fb_reveal(fork_bound *f, const fb_config *c, uint32_t t, bool first)
{
    uint32_t at[FB_STACKS];
    for (uint32_t j = 0; j < c->ns; j++) {
        at[j] = fb_gap_at(&c->s[j]);
        if (at[j] + 1 >= c->s[j].n || c->s[j].n == FB_OWN)
            return FB_GIVE_UP; /* not the shape gaps are made in */
    }
    const fb_stack *s = &c->s[0];
    uint32_t x = s->e[at[0] + 1].state, below = at[0] ? s->e[at[0] - 1].state : c->base[s->d];
    fb_config *w = malloc(sizeof *w);
    if (!w)
        return FB_GIVE_UP;
    fb_result r = FB_OK;
    if (fb_is_pred(f, below, x)) { /* the gap was empty */
        fb_config_copy(w, c);
        fb_splice(w, at, 1, NULL);
        r = fb_explore(f, w, t, first);
    }
    for (uint32_t j = 0; j < c->ns; j++)
        at[j]++; /* insert above the gap */
    for (uint32_t i = f->pred_start[x]; i < f->pred_start[x + 1] && r == FB_OK; i++) {
        fb_entry p = {f->pred[i], f->fresh};
        f->fresh = f->fresh + 1 < FB_RED ? f->fresh + 1 : FB_FRESH;
        fb_config_copy(w, c);
        fb_splice(w, at, 0, &p);
        r = fb_explore(f, w, t, first);
    }
    free(w);
    return r;
}

/* How many entries on top all of c's stacks share (their own entries). */
static uint32_t fb_common_top(const fb_config *c)
{
    uint32_t m = 0;
    for (;; m++)
        for (uint32_t j = 0; j < c->ns; j++) {
            const fb_stack *s = &c->s[j], *s0 = &c->s[0];
            if (m == s->n || m == s0->n || !fb_eq(s->e[s->n - 1 - m], s0->e[s0->n - 1 - m]))
                return m;
        }
}

/* Whether the n entries of s from position k may go into a gap: none was
 * made by the fork's own step (those may be base entries, fb_maybe_base). */
static bool fb_forgettable(const fb_stack *s, uint32_t k, uint32_t n)
{
    for (uint32_t i = k; i < k + n; i++)
        if (s->e[i].level & FB_FIRST)
            return false;
    return true;
}

/* Forgets the middle of a chain all of c's stacks share on top, keeping
 * FB_KEEP entries above it and the one below it exact: a new gap where c
 * has none, or the gap grown where it lies in that chain. */
static void fb_gap(fork_bound *f, fb_config *c)
{
    uint32_t m = fb_common_top(c), at[FB_STACKS], g = 0;
    const fb_stack *s0 = &c->s[0];
    while (g < m && s0->e[s0->n - 1 - g].state != FB_GAP)
        g++;
    if (g < m) { /* the gap is g entries below the top */
        if (g <= FB_KEEP || !fb_forgettable(s0, s0->n - g, g - FB_KEEP))
            return;
        for (uint32_t j = 0; j < c->ns; j++)
            at[j] = c->s[j].n - g;
        fb_splice(c, at, g - FB_KEEP, NULL);
        return;
    }
    if (m < FB_KEEP + 3 || fb_gap_at(s0) < s0->n || /* too short, or a gap below */
        !fb_forgettable(s0, s0->n - m + 1, m - FB_KEEP - 1))
        return;
    for (uint32_t j = 0; j < c->ns; j++)
        at[j] = c->s[j].n - m + 1; /* above the shared chain's lowest entry */
    fb_splice(c, at, m - FB_KEEP - 2, NULL);
    fb_entry gap = {FB_GAP, f->fresh};
    f->fresh = f->fresh + 1 < FB_RED ? f->fresh + 1 : FB_FRESH;
    for (uint32_t j = 0; j < c->ns; j++)
        c->s[j].e[at[j]] = gap;
}

/* The successors of c on terminal t, in every world the step reveals;
 * `first` for the fork's own step. */
static fb_result fb_explore(fork_bound *f, const fb_config *c, uint32_t t, bool first)
{
    fb_config *out = &f->scratch;
    fb_result r = fb_step(f, c, t, out);
    if (r == FB_EXTEND) {
        if (c->nb == FB_BASE)
            return FB_GIVE_UP;
        fb_config *w = malloc(sizeof *w);
        if (!w)
            return FB_GIVE_UP;
        uint32_t q = c->base[c->nb - 1];
        r = FB_OK;
        for (uint32_t i = f->pred_start[q]; i < f->pred_start[q + 1] && r == FB_OK; i++) {
            fb_config_copy(w, c);
            w->base[w->nb++] = f->pred[i];
            r = fb_explore(f, w, t, first);
        }
        free(w);
        return r;
    }
    if (r == FB_REVEAL)
        return fb_reveal(f, c, t, first);
    if (r == FB_OK && f->cf)
        fb_note_step(f, c, t, first);
    if (r != FB_OK || out->ns < 2) /* dead, or back to one stack */
        return r;
    for (uint32_t i = 0; first && i < out->ns; i++)
        for (uint32_t k = 0; k < out->s[i].n; k++)
            if (out->s[i].e[k].level == FB_RED && fb_maybe_base(out, f->lr, out->s[i].e[k].state))
                out->s[i].e[k].level |= FB_FIRST;
    fb_merge(out, &f->nodes, f->lr, first);
    if (f->gaps)
        fb_gap(f, out);
    uint32_t ns = fb_normalize(out, &f->levels, f->ord);
    if (ns < 2)
        return FB_OK;
    f->max_stacks = ns > f->max_stacks ? ns : f->max_stacks;
    uint32_t at;
    return fb_serialize(f, out, f->ord, ns, &at) ? fb_intern(f, at) : FB_GIVE_UP;
}

/* Whether terminal u does from the configuration in hand what an explored
 * terminal did: every state whose action that exploration read acts alike
 * on u. The exploration is a function of those actions (gotos and the base
 * do not depend on the terminal), so u's would find the same successors. */
static bool fb_known_behavior(const fork_bound *f, uint32_t u)
{
    for (uint32_t at = 0; at < f->n_reps_words; at += 2 + f->reps[at + 1]) {
        uint32_t t = f->reps[at], n = f->reps[at + 1], i = 0;
        while (i < n && lr_action(f->lr, f->reps[at + 2 + i], u) == lr_action(f->lr, f->reps[at + 2 + i], t))
            i++;
        if (i == n)
            return true;
    }
    return false;
}

/* Records the exploration of terminal t just done; false when out of memory. */
static bool fb_keep_behavior(fork_bound *f, uint32_t t)
{
    uint32_t need = f->n_reps_words + 2 + f->n_consulted, *r = f->reps;
    if (need > f->cap_reps) {
        uint32_t cap = need > 2 * f->cap_reps ? need : 2 * f->cap_reps;
        if (!(r = realloc(f->reps, (size_t)cap * sizeof *r)))
            return false;
        f->reps = r, f->cap_reps = cap;
    }
    r[f->n_reps_words] = t, r[f->n_reps_words + 1] = f->n_consulted;
    memcpy(r + f->n_reps_words + 2, f->consulted, f->n_consulted * sizeof *r);
    f->n_reps_words += 2 + f->n_consulted;
    return true;
}

/* Starts recording the states an exploration reads. */
static void fb_record_start(fork_bound *f)
{
    f->n_consulted = 0;
    if (++f->seen_gen == 0) {
        memset(f->seen, 0, (size_t)f->lr->n_states * sizeof *f->seen);
        f->seen_gen = 1;
    }
}

/* The successors of c on terminal u, with the states it read recorded. */
static fb_result fb_explore_recorded(fork_bound *f, const fb_config *c, uint32_t u)
{
    fb_record_start(f);
    fb_result r = fb_explore(f, c, u, false);
    return r == FB_OK && !fb_keep_behavior(f, u) ? FB_GIVE_UP : r;
}

/* The end-of-input check from c, for the commit bound only: it shifts
 * nothing, so it adds no configuration, and its actions do not count
 * toward the exploration's caps (the masks' bound is the same with or
 * without it); one it cannot bound leaves the commit unbounded. */
static void fb_end_step(fork_bound *f, const fb_config *c, bool first)
{
    uint64_t work = f->work, compares = f->compares;
    fb_record_start(f);
    if (fb_explore(f, c, f->lr->n_terms - 1, first) != FB_OK)
        f->cf_failed = true;
    f->work = work, f->compares = compares;
}

/* Records the work of cell (q, t)'s own step; false when out of memory. */
static bool fb_note_cell(fork_bound *f, uint32_t q, uint32_t t)
{
    uint32_t *w = gcg_map64_slot(&f->cf->first, (uint64_t)q << 32 | t, true);
    if (!w)
        return false;
    uint32_t u = f->cell_step < UINT32_MAX ? (uint32_t)f->cell_step : UINT32_MAX - 1;
    *w = *w == NONE || u > *w ? u : *w;
    return true;
}

/* Every configuration reachable from one stack forking at cell (q, t). */
static fb_result fb_from_cell(fork_bound *f, uint32_t q, uint32_t t, fb_config *c)
{
    f->cell_first = f->n_configs; /* configurations of earlier cells are known */
    f->cell_work = f->work;
    f->cell_step = 0;
    c->nb = 1, c->ns = 1, c->base[0] = q; /* the rest of the 100 KB is unread */
    c->s[0].d = 0, c->s[0].n = 0;
    fb_result r;
    if (t + 1 == f->lr->n_terms) { /* end of input: the commit bound's step */
        fb_end_step(f, c, true);
        r = FB_OK;
    } else {
        fb_record_start(f);
        r = fb_explore(f, c, t, true);
    }
    if (r == FB_OK && f->cf && !fb_note_cell(f, q, t))
        r = FB_GIVE_UP;
    while (r == FB_OK && f->n_queue) {
        fb_deserialize(f, f->queue[--f->n_queue], c);
        f->n_reps_words = 0;
        for (uint32_t u = 0; u + 1 < f->lr->n_terms && r == FB_OK; u++)
            if (!fb_known_behavior(f, u))
                r = fb_explore_recorded(f, c, u);
        if (r == FB_OK && f->cf)
            fb_end_step(f, c, false);
    }
    return r;
}

/* No commit bound: the forks were not bounded. */
static gcg_status fb_commit_none(commit_bound *cb)
{
    memset(cb, 0, sizeof *cb);
    cb->unbounded_reason = GCG_CERT_UNBOUNDED_AMBIGUITY;
    cb->nt = NONE;
    return GCG_OK;
}

/* The commit bound of tables with conflicts, from the steps the exploration
 * bounded (commit_bound.h); cb->bounded false where it could not. */
static gcg_status fb_commit(fork_bound *f, const cfg *g, commit_bound *cb)
{
    return f->cf_failed ? fb_commit_none(cb) : gcg_commit_bound(f->lr, g, f->pred_start, f->pred, f->cf, cb);
}

/* One exploration of every conflict cell, with gaps or without; *own_full
 * when it gave up because a stack outgrew FB_OWN. With cb (and g), the
 * commit bound from the steps explored, where the forks are bounded. */
static gcg_status fork_bound_pass(const lr_tables *lr, bool gaps, uint32_t *stacks, size_t *cell, bool *own_full,
                                  const cfg *g, commit_bound *cb)
{
    fork_bound *f = calloc(1, sizeof *f);
    fb_config *c = malloc(sizeof *c);
    commit_forks cf = {0};
    gcg_status st = f && c ? GCG_OK : GCG_ERR_NOMEM;
    if (st == GCG_OK) {
        f->lr = lr, f->max_stacks = 1, f->gaps = gaps, f->fresh = FB_FRESH, f->cf = cb ? &cf : NULL;
        f->consulted = malloc(((size_t)lr->n_states + 1) * sizeof *f->consulted);
        f->seen = calloc((size_t)lr->n_states + 1, sizeof *f->seen);
        st = f->consulted && f->seen ? fb_preds(f) : GCG_ERR_NOMEM;
    }
    fb_result r = FB_OK;
    for (size_t k = 0; st == GCG_OK && r == FB_OK && k < (size_t)lr->n_states * lr->n_terms; k++) {
        uint32_t t = (uint32_t)(k % lr->n_terms);
        if (GCG_ACT_KIND(lr->action[k]) != GCG_ACT_MULTI || (t + 1 == lr->n_terms && !cb))
            continue;
        *cell = t + 1 < lr->n_terms ? k : *cell;
        r = fb_from_cell(f, (uint32_t)(k / lr->n_terms), t, c);
    }
    *stacks = r == FB_OK && f ? f->max_stacks : 0;
    *own_full = f && f->own_full;
    if (cb && st == GCG_OK)
        st = r == FB_OK ? fb_commit(f, g, cb) : fb_commit_none(cb);
    gcg_map64_free(&cf.first);
    if (f)
        free(f->pred_start), free(f->pred), free(f->keys), free(f->slot), free(f->queue), free(f->consulted),
            free(f->seen), free(f->reps);
    free(f), free(c);
    return st;
}

/* The most stacks alive after any byte (*stacks), or 0 with the conflict
 * cell (*cell, state * n_terms + term) whose fork keeps growing. Forks
 * that grow only by a chain all their stacks share are explored again with
 * gaps: the first, exact pass stands where it succeeds. */
static gcg_status fork_bound_run(const lr_tables *lr, uint32_t *stacks, size_t *cell, const cfg *g,
                                 commit_bound *cb)
{
    bool own_full = false;
    gcg_status st = fork_bound_pass(lr, false, stacks, cell, &own_full, g, cb);
    if (st == GCG_OK && *stacks == 0 && own_full) {
        size_t gap_cell = 0;
        st = fork_bound_pass(lr, true, stacks, &gap_cell, &own_full, g, cb);
    }
    return st;
}

/* The rule of a GLR conflict: the lhs of the first reduce in cell `cell`. */
static void conflict_rule(mask_automaton *a, const lr_tables *lr, const cfg *g, const char *const *rule_names,
                          size_t cell)
{
    uint32_t act = lr->action[cell];
    const uint32_t *m = lr->multi + GCG_ACT_ARG(act);
    for (uint32_t i = 1; GCG_ACT_KIND(act) == GCG_ACT_MULTI && i <= m[0]; i++) {
        if (GCG_ACT_KIND(m[i]) != GCG_ACT_REDUCE)
            continue;
        gcg_cert_rule_name(a->unbounded_rule, g, lr->prod_lhs[GCG_ACT_ARG(m[i])], rule_names);
        return;
    }
}

gcg_status gcg_certify_whole(mask_automaton *a, const lr_tables *lr, const cfg *g, const char *const *rule_names,
                             bool unions)
{
    uint64_t ops;
    gcg_status st = dedupe_set_ops(a, lr->n_states, &ops);
    if (st != GCG_OK)
        return st;
    if (unions && a->bounded) {
        a->bounded = false;
        a->unbounded_reason = GCG_CERT_UNBOUNDED_AMBIGUITY;
        snprintf(a->unbounded_rule, sizeof a->unbounded_rule, "%s", "token reference");
    }
    if (unions) { /* one node per state, each root and transition OR-ed once */
        a->whole_set_ops = ops > UINT32_MAX ? UINT32_MAX : (uint32_t)ops;
        return GCG_OK;
    }
    uint32_t stacks = 1;
    size_t cell = 0;
    a->unbounded_reason = GCG_CERT_UNBOUNDED_RECURSION;
    /* The commit bound with conflicts comes from the fork analysis too;
     * counted chains (count_fold.h) are left out: the analysis ignores
     * their exits. */
    commit_bound cb = {0};
    bool commit = a->commit_bounded == GCG_CERT_UNBOUNDED_AMBIGUITY && g->n_counts == 0;
    if (a->bounded && (lr->sr_conflicts || lr->rr_conflicts))
        st = fork_bound_run(lr, &stacks, &cell, g, commit ? &cb : NULL);
    if (st != GCG_OK)
        return st;
    /* a chain's cycle here is as likely two contexts LALR merged (a node
     * the step reaches twice, a late edge) as recursion: no bound, for the
     * conflict, as without the analysis */
    if (commit && stacks && cb.bounded)
        gcg_certify_commit(a, g, rule_names, &cb);
    uint64_t whole = (uint64_t)stacks * (a->max_reads + 1), most_ops = (uint64_t)stacks * a->max_set_ops;
    if (a->bounded && stacks && whole <= UINT32_MAX) {
        /* At most `stacks` paths below the frontier, each read as one
         * stack: a read chain of max_reads transitions pops max_reads + 1
         * pairs (the last reads its node's edge and finds no transition),
         * and each pair's edges lead on along the paths through it. */
        a->whole_reads = a->whole_edges = (uint32_t)whole;
        ops = ops < most_ops ? ops : most_ops;
    } else if (a->bounded) {
        a->bounded = false;
        a->unbounded_reason = GCG_CERT_UNBOUNDED_AMBIGUITY;
        conflict_rule(a, lr, g, rule_names, cell);
    }
    a->whole_set_ops = ops > UINT32_MAX ? UINT32_MAX : (uint32_t)ops;
    return GCG_OK;
}
