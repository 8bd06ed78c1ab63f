/* lr_minimize.c — the quotient of the LR tables by state equivalence (see
 * lr_minimize.h). */
#include <stdlib.h>
#include <string.h>

#include "lr_minimize.h"
#include "vecmap.h"

#define NONE UINT32_MAX

typedef struct lrmin {
    lr_tables *t;
    uint32_t n, T;
    uint32_t *canon;            /* per production: its canonical production   */
    uint32_t *mshape;           /* per multi list offset: the offset of the
                                   first list of its shape                    */
    uint32_t *tr_start, *tr_to; /* per state: its successors, shifts by class
                                   then gotos by nonterminal                  */
    uint32_t *pr_start, *pr;    /* per state: its predecessors, one per edge  */
    uint64_t *row_hash;         /* per state: the hash of its row's shape     */
    uint32_t *block, *elems, *loc; /* the partition: elems grouped by block,
                                   loc[s] the index of s in elems             */
    uint32_t *first, *end, *marked; /* per block: its range in elems and how
                                   many of it, at the range's tail, are marked */
    uint32_t n_blocks;
    uint64_t *recs;             /* scratch: (hash, state) records to group    */
    uint32_t n_recs;
    vec touched, moved, tmp, groups;
} lrmin;

/* A multiplicative hash step (FNV-1a's prime over 64-bit words, with a
 * shift so high bits reach the low ones). */
static uint64_t mix(uint64_t h, uint64_t x)
{
    h = (h ^ x) * 0x100000001B3ull;
    return h ^ (h >> 29);
}

/* ---- canonical reductions ------------------------------------------------ */

/* canon[p]: the first production of p's left side and length, the one a
 * recognizer cannot tell from p; a counted production stands for itself.
 * The conflict lists' reductions become canonical here, the cells' as the
 * rows are read (make_edges). */
static gcg_status make_canon(lrmin *m, const cfg *g)
{
    lr_tables *t = m->t;
    map64 first = {0};
    m->canon = malloc(((size_t)t->n_prods + 1) * sizeof *m->canon);
    if (!m->canon)
        return GCG_ERR_NOMEM;
    for (uint32_t p = 0; p < t->n_prods; p++)
        m->canon[p] = NONE;
    for (uint32_t i = 0; i < g->n_counts; i++)
        m->canon[g->counts[i].prod] = g->counts[i].prod;
    for (uint32_t p = 0; p < t->n_prods; p++) {
        if (m->canon[p] != NONE)
            continue;
        uint32_t *slot = gcg_map64_slot(&first, (uint64_t)t->prod_lhs[p] << 32 | t->prod_len[p], true);
        if (!slot) {
            gcg_map64_free(&first);
            return GCG_ERR_NOMEM;
        }
        if (*slot == NONE)
            *slot = p;
        m->canon[p] = *slot;
    }
    gcg_map64_free(&first);
    for (uint32_t o = 0; o < t->n_multi; o += 1 + t->multi[o])
        for (uint32_t k = o + 1; k <= o + t->multi[o]; k++)
            if (GCG_ACT_KIND(t->multi[k]) == GCG_ACT_REDUCE)
                t->multi[k] = GCG_ACT(GCG_ACT_REDUCE, m->canon[GCG_ACT_ARG(t->multi[k])]);
    return GCG_OK;
}

/* The shape of action a (its reduction canonical already): no shift
 * target, a conflict list by the number of its shape. */
static uint32_t act_shape(const lrmin *m, uint32_t a)
{
    switch (GCG_ACT_KIND(a)) {
    case GCG_ACT_SHIFT:
        return GCG_ACT(GCG_ACT_SHIFT, 0);
    case GCG_ACT_MULTI:
        return GCG_ACT(GCG_ACT_MULTI, m->mshape[GCG_ACT_ARG(a)]);
    default:
        return a;
    }
}

static bool same_list_shape(const lrmin *m, const uint32_t *x, const uint32_t *y)
{
    if (x[0] != y[0])
        return false;
    for (uint32_t k = 1; k <= x[0]; k++)
        if (act_shape(m, x[k]) != act_shape(m, y[k]))
            return false;
    return true;
}

/* mshape: conflict lists of one shape share a number (lr_build writes a
 * cell's actions in one order: the shift, then the reductions by closure
 * order, the same for equal item sets). */
static gcg_status make_mshape(lrmin *m)
{
    const lr_tables *t = m->t;
    map64 by_hash = {0};
    m->mshape = malloc(((size_t)t->n_multi + 1) * sizeof *m->mshape);
    if (!m->mshape)
        return GCG_ERR_NOMEM;
    for (uint32_t o = 0; o < t->n_multi; o += 1 + t->multi[o]) {
        const uint32_t *l = t->multi + o;
        uint64_t h = l[0];
        for (uint32_t k = 1; k <= l[0]; k++)
            h = mix(h, act_shape(m, l[k]));
        uint32_t *slot;
        for (;; h++) { /* a collision of different shapes moves on by one */
            if (h == UINT64_MAX)
                h = 0;
            if (!(slot = gcg_map64_slot(&by_hash, h, true))) {
                gcg_map64_free(&by_hash);
                return GCG_ERR_NOMEM;
            }
            if (*slot == NONE || same_list_shape(m, t->multi + *slot, l))
                break;
        }
        if (*slot == NONE)
            *slot = o;
        m->mshape[o] = *slot;
    }
    gcg_map64_free(&by_hash);
    return GCG_OK;
}

/* How state s is entered: 0 the start, 1 a shift, 2 a goto (the runtime's
 * frontier holds the first two kinds only). */
static uint32_t entry_kind(const lr_tables *t, uint32_t s)
{
    return t->accessing[s] == UINT32_MAX ? 0 : CFG_IS_TERM(t->accessing[s]) ? 1 : 2;
}

/* ---- successors and predecessors ----------------------------------------- */

/* The shift target of cell a, or NONE. */
static uint32_t shift_of(const lr_tables *t, uint32_t a)
{
    if (GCG_ACT_KIND(a) == GCG_ACT_SHIFT)
        return GCG_ACT_ARG(a);
    if (GCG_ACT_KIND(a) == GCG_ACT_MULTI && GCG_ACT_KIND(t->multi[GCG_ACT_ARG(a) + 1]) == GCG_ACT_SHIFT)
        return GCG_ACT_ARG(t->multi[GCG_ACT_ARG(a) + 1]);
    return NONE;
}

/* One pass over the rows: reductions made canonical, the successors
 * listed (and their predecessors), each row's shape hashed (row_hash). */
static gcg_status make_edges(lrmin *m)
{
    lr_tables *t = m->t;
    vec to = {0};
    m->tr_start = malloc(((size_t)m->n + 1) * sizeof *m->tr_start);
    m->pr_start = calloc((size_t)m->n + 2, sizeof *m->pr_start);
    m->row_hash = malloc(((size_t)m->n + 1) * sizeof *m->row_hash);
    if (!m->tr_start || !m->pr_start || !m->row_hash || !gcg_vec_reserve(&to, t->n_go + m->n))
        return gcg_vec_free(&to), GCG_ERR_NOMEM;
    for (uint32_t s = 0; s < m->n; s++) {
        m->tr_start[s] = to.n;
        uint32_t *row = t->action + (size_t)s * m->T;
        uint64_t h = mix(0x9E3779B97F4A7C15ull, entry_kind(t, s));
        for (uint32_t x = 0; x < m->T; x++) {
            if (!row[x])
                continue;
            if (GCG_ACT_KIND(row[x]) == GCG_ACT_REDUCE)
                row[x] = GCG_ACT(GCG_ACT_REDUCE, m->canon[GCG_ACT_ARG(row[x])]);
            h = mix(h, (uint64_t)x << 32 | act_shape(m, row[x]));
            uint32_t q = shift_of(t, row[x]);
            if (q != NONE && !gcg_vec_push(&to, q))
                return gcg_vec_free(&to), GCG_ERR_NOMEM;
        }
        for (uint32_t i = t->go_start[s]; i < t->go_start[s + 1]; i++) {
            h = mix(h, t->go_nt[i]);
            if (!gcg_vec_push(&to, t->go_to[i]))
                return gcg_vec_free(&to), GCG_ERR_NOMEM;
        }
        m->row_hash[s] = h;
    }
    uint32_t k = m->tr_start[m->n] = to.n;
    m->tr_to = to.v;
    m->pr = malloc(((size_t)k + 1) * sizeof *m->pr);
    if (!m->pr)
        return GCG_ERR_NOMEM;
    for (uint32_t i = 0; i < k; i++)
        m->pr_start[m->tr_to[i] + 2]++;
    for (uint32_t s = 0; s < m->n; s++)
        m->pr_start[s + 2] += m->pr_start[s + 1];
    for (uint32_t s = 0; s < m->n; s++)
        for (uint32_t i = m->tr_start[s]; i < m->tr_start[s + 1]; i++)
            m->pr[m->pr_start[m->tr_to[i] + 1]++] = s;
    return GCG_OK;
}

/* ---- the initial partition: row shapes -------------------------------------- */

static bool same_row(const lrmin *m, uint32_t s, uint32_t r)
{
    const lr_tables *t = m->t;
    if (entry_kind(t, s) != entry_kind(t, r))
        return false;
    const uint32_t *a = t->action + (size_t)s * m->T, *b = t->action + (size_t)r * m->T;
    for (uint32_t x = 0; x < m->T; x++)
        if (a[x] != b[x] && act_shape(m, a[x]) != act_shape(m, b[x]))
            return false;
    uint32_t n = t->go_start[s + 1] - t->go_start[s];
    return n == t->go_start[r + 1] - t->go_start[r] &&
           memcmp(t->go_nt + t->go_start[s], t->go_nt + t->go_start[r], (size_t)n * 4) == 0;
}

/* The successors' blocks of s, hashed (states of one block have their
 * successors under the same labels). */
static uint64_t succ_hash(const lrmin *m, uint32_t s)
{
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (uint32_t i = m->tr_start[s]; i < m->tr_start[s + 1]; i++)
        h = mix(h, m->block[m->tr_to[i]]);
    return h;
}

static bool same_succ(const lrmin *m, uint32_t s, uint32_t r)
{
    for (uint32_t i = m->tr_start[s], j = m->tr_start[r]; i < m->tr_start[s + 1]; i++, j++)
        if (m->block[m->tr_to[i]] != m->block[m->tr_to[j]])
            return false;
    return true;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* Sorts recs (32 bits of a hash, then the state) and cuts them into groups
 * of equal rows (by_row) or equal successor blocks: groups holds each
 * group's start in recs, then n_recs. Equal hashes of unequal states are
 * parted by comparing with the first of each. */
static bool group_recs(lrmin *m, bool by_row)
{
    uint64_t *r = m->recs;
    uint32_t n = m->n_recs;
    if (n > 1)
        qsort(r, n, sizeof *r, cmp_u64);
    m->groups.n = 0;
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i + 1;
        while (j < n && r[j] >> 32 == r[i] >> 32)
            j++;
        while (i < j) { /* the states like r[i] to the front of [i, j) */
            uint32_t k = i + 1, lead = (uint32_t)r[i];
            for (uint32_t x = i + 1; x < j; x++) {
                uint32_t s = (uint32_t)r[x];
                if (by_row ? same_row(m, lead, s) : same_succ(m, lead, s)) {
                    uint64_t y = r[k];
                    r[k++] = r[x], r[x] = y;
                }
            }
            if (!gcg_vec_push(&m->groups, i))
                return false;
            i = k;
        }
    }
    return gcg_vec_push(&m->groups, n);
}

static void push_rec(lrmin *m, uint64_t h, uint32_t s)
{
    m->recs[m->n_recs++] = (h >> 32 ^ h) << 32 | s;
}

static gcg_status initial_partition(lrmin *m)
{
    m->block = malloc(((size_t)m->n + 1) * sizeof *m->block);
    m->elems = malloc(((size_t)m->n + 1) * sizeof *m->elems);
    m->loc = malloc(((size_t)m->n + 1) * sizeof *m->loc);
    m->first = malloc(((size_t)m->n + 1) * sizeof *m->first);
    m->end = malloc(((size_t)m->n + 1) * sizeof *m->end);
    m->marked = calloc((size_t)m->n + 1, sizeof *m->marked);
    m->recs = malloc(((size_t)m->n + 1) * sizeof *m->recs);
    if (!m->block || !m->elems || !m->loc || !m->first || !m->end || !m->marked || !m->recs)
        return GCG_ERR_NOMEM;
    m->n_recs = 0;
    for (uint32_t s = 0; s < m->n; s++)
        push_rec(m, m->row_hash[s], s);
    if (!group_recs(m, true))
        return GCG_ERR_NOMEM;
    for (uint32_t g = 0; g + 1 < m->groups.n; g++) {
        uint32_t a = m->groups.v[g], b = m->groups.v[g + 1];
        m->first[g] = a, m->end[g] = b;
        for (uint32_t i = a; i < b; i++) {
            uint32_t s = (uint32_t)m->recs[i];
            m->elems[i] = s, m->loc[s] = i, m->block[s] = g;
        }
    }
    m->n_blocks = m->groups.n - 1;
    return GCG_OK;
}

/* ---- refinement ------------------------------------------------------------ */

/* Marks state s for a look at its successors: to the tail of its block. */
static bool mark(lrmin *m, uint32_t s)
{
    uint32_t b = m->block[s], tail = m->end[b] - m->marked[b];
    if (m->loc[s] >= tail)
        return true;
    uint32_t y = m->elems[tail - 1], at = m->loc[s];
    m->elems[tail - 1] = s, m->loc[s] = tail - 1;
    m->elems[at] = y, m->loc[y] = at;
    if (m->marked[b]++ == 0)
        return gcg_vec_push(&m->touched, b);
    return true;
}

/* Puts the elems [a, b) into block `to`, noting the ones that move. */
static bool assign(lrmin *m, uint32_t a, uint32_t b, uint32_t to)
{
    m->first[to] = a, m->end[to] = b, m->marked[to] = 0;
    for (uint32_t i = a; i < b; i++) {
        uint32_t s = m->elems[i];
        if (m->block[s] != to && !gcg_vec_push(&m->moved, s))
            return false;
        m->block[s] = to;
    }
    return true;
}

/* Splits block b by its marked states' successor blocks. The unmarked ones
 * agree among themselves (their successors kept their blocks since they
 * last did) and with the marked group equal to one of them; the largest
 * part keeps b's number, so its states need no second look. */
static bool split(lrmin *m, uint32_t b)
{
    uint32_t f = m->first[b], e = m->end[b], tail = e - m->marked[b];
    m->n_recs = 0;
    for (uint32_t i = tail; i < e; i++)
        push_rec(m, succ_hash(m, m->elems[i]), m->elems[i]);
    if (!group_recs(m, false))
        return false;
    uint32_t n_groups = m->groups.n - 1, with_rest = NONE; /* the group equal to the unmarked */
    for (uint32_t g = 0; tail > f && g < n_groups && with_rest == NONE; g++)
        if (same_succ(m, m->elems[f], (uint32_t)m->recs[m->groups.v[g]]))
            with_rest = g;
    /* Parts, laid out from f: the unmarked with their group, then the
     * other groups; cut[] holds each part's end. */
    if (!gcg_vec_reserve(&m->tmp, n_groups + 1))
        return false;
    uint32_t at = tail, *cut = m->tmp.v, n_cut = 0, keep = 0;
    for (uint32_t pass = 0; pass < 2; pass++) {
        for (uint32_t g = 0; g < n_groups; g++) {
            if ((g == with_rest) != (pass == 0))
                continue;
            for (uint32_t i = m->groups.v[g]; i < m->groups.v[g + 1]; i++) {
                uint32_t s = (uint32_t)m->recs[i];
                m->elems[at] = s, m->loc[s] = at++;
            }
            if (pass == 1)
                cut[n_cut++] = at;
        }
        if (pass == 0 && at > f)
            cut[n_cut++] = at;
    }
    for (uint32_t k = 1, most = cut[0] - f; k < n_cut; k++) /* the largest part */
        if (cut[k] - cut[k - 1] > most)
            most = cut[k] - cut[k - 1], keep = k;
    for (uint32_t k = 0; k < n_cut; k++) {
        uint32_t lo = k ? cut[k - 1] : f;
        if (!assign(m, lo, cut[k], k == keep ? b : m->n_blocks++))
            return false;
    }
    return true;
}

/* Splits touched blocks until none is: the predecessors of the states a
 * split moves are marked at once, so that a block's unmarked states always
 * agree on their successors' blocks as they are. */
static gcg_status refine(lrmin *m)
{
    for (uint32_t s = 0; s < m->n; s++)
        if (!mark(m, s))
            return GCG_ERR_NOMEM;
    while (m->touched.n) {
        m->moved.n = 0;
        if (!split(m, m->touched.v[--m->touched.n]))
            return GCG_ERR_NOMEM;
        for (uint32_t i = 0; i < m->moved.n; i++) {
            uint32_t s = m->moved.v[i];
            for (uint32_t k = m->pr_start[s]; k < m->pr_start[s + 1]; k++)
                if (!mark(m, m->pr[k]))
                    return GCG_ERR_NOMEM;
        }
    }
    return GCG_OK;
}

/* ---- the quotient ------------------------------------------------------------ */

/* Action a of a block's first state, its shift target and reductions
 * renamed; a conflict list is copied to `multi`. */
static bool map_action(const lrmin *m, const uint32_t *id, uint32_t a, vec *multi, uint32_t *out)
{
    switch (GCG_ACT_KIND(a)) {
    case GCG_ACT_SHIFT:
        *out = GCG_ACT(GCG_ACT_SHIFT, id[m->block[GCG_ACT_ARG(a)]]);
        return true;
    case GCG_ACT_MULTI: {
        const uint32_t *l = m->t->multi + GCG_ACT_ARG(a);
        *out = GCG_ACT(GCG_ACT_MULTI, multi->n);
        if (!gcg_vec_push(multi, l[0]))
            return false;
        for (uint32_t k = 1; k <= l[0]; k++) {
            uint32_t x;
            map_action(m, id, l[k], multi, &x); /* a list holds no list */
            if (!gcg_vec_push(multi, x))
                return false;
        }
        return true;
    }
    default:
        *out = a;
        return true;
    }
}

/* The tables over blocks, numbered by their first state (block[0]'s is 0,
 * the start), each block's row that of its first state, mapped. */
static gcg_status quotient(lrmin *m)
{
    lr_tables *t = m->t, q = *t;
    uint32_t *id = malloc(((size_t)m->n_blocks + 1) * sizeof *id), *rep = malloc(((size_t)m->n_blocks + 1) * sizeof *rep);
    vec multi = {0};
    q.n_states = m->n_blocks;
    q.action = malloc(((size_t)q.n_states * m->T + 1) * sizeof *q.action);
    q.go_start = malloc(((size_t)q.n_states + 1) * sizeof *q.go_start);
    q.go_nt = malloc(((size_t)t->n_go + 1) * sizeof *q.go_nt);
    q.go_to = malloc(((size_t)t->n_go + 1) * sizeof *q.go_to);
    q.accessing = malloc(((size_t)q.n_states + 1) * sizeof *q.accessing);
    bool ok = id && rep && q.action && q.go_start && q.go_nt && q.go_to && q.accessing;
    for (uint32_t b = 0; ok && b < m->n_blocks; b++)
        id[b] = NONE;
    for (uint32_t s = 0, k = 0; ok && s < m->n; s++)
        if (id[m->block[s]] == NONE)
            rep[k] = s, id[m->block[s]] = k++;
    uint32_t n_go = 0;
    for (uint32_t i = 0; ok && i < q.n_states; i++) {
        const uint32_t *row = t->action + (size_t)rep[i] * m->T;
        uint32_t *out = q.action + (size_t)i * m->T;
        memcpy(out, row, (size_t)m->T * sizeof *out);
        for (uint32_t x = 0; ok && x < m->T; x++)
            if (GCG_ACT_KIND(row[x]) == GCG_ACT_SHIFT || GCG_ACT_KIND(row[x]) == GCG_ACT_MULTI)
                ok = map_action(m, id, row[x], &multi, &out[x]);
        uint32_t s = rep[i];
        q.go_start[i] = n_go;
        for (uint32_t g = t->go_start[s]; g < t->go_start[s + 1]; g++)
            q.go_nt[n_go] = t->go_nt[g], q.go_to[n_go++] = id[m->block[t->go_to[g]]];
        q.accessing[i] = t->accessing[s];
    }
    if (ok) {
        q.go_start[q.n_states] = n_go;
        q.n_go = n_go, q.multi = multi.v, q.n_multi = multi.n;
        free(t->action), free(t->multi), free(t->go_start), free(t->go_nt), free(t->go_to), free(t->accessing);
        *t = q;
    } else {
        free(q.action), free(q.go_start), free(q.go_nt), free(q.go_to), free(q.accessing), free(multi.v);
    }
    free(id), free(rep);
    return ok ? GCG_OK : GCG_ERR_NOMEM;
}

gcg_status gcg_lr_minimize(lr_tables *t, const cfg *g)
{
    lrmin m = {.t = t, .n = t->n_states, .T = t->n_terms};
    gcg_status st = make_canon(&m, g);
    if (st == GCG_OK)
        st = make_mshape(&m);
    if (st == GCG_OK)
        st = make_edges(&m);
    if (st == GCG_OK)
        st = initial_partition(&m);
    if (st == GCG_OK)
        st = refine(&m);
    if (st == GCG_OK)
        st = quotient(&m);
    void *ps[] = {m.canon, m.mshape, m.row_hash, m.tr_start, m.tr_to, m.pr_start, m.pr,
                  m.block, m.elems, m.loc, m.first, m.end, m.marked};
    for (size_t i = 0; i < sizeof ps / sizeof *ps; i++)
        free(ps[i]);
    gcg_vec_free(&m.touched), gcg_vec_free(&m.moved), free(m.recs);
    gcg_vec_free(&m.tmp), gcg_vec_free(&m.groups);
    return st;
}
