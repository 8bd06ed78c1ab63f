/* regex_dfa.c — Thompson NFA fragments, the subset construction and Moore's
 * minimization (see regex_dfa.h). */
#include <stdlib.h>
#include <string.h>

#include "regex_dfa.h"

#define MAX_CLASSES 256      /* code point classes a DFA may read          */
#define MAX_MOVES 4000000u   /* NFA states the subset construction reads and
                                closes over (about 0.1 s at worst)          */

/* ---- the NFA ---------------------------------------------------------------- */

void rx_nfa_init(rx_nfa *a, uint32_t limit)
{
    memset(a, 0, sizeof *a);
    a->limit = limit;
}

void rx_nfa_free(rx_nfa *a)
{
    for (uint32_t i = 0; i < a->n_sets; i++)
        cp_set_free(&a->sets[i]);
    free(a->sets), free(a->st);
    memset(a, 0, sizeof *a);
}

static bool bad(const rx_nfa *a)
{
    return a->over || a->oom;
}

static uint32_t new_state(rx_nfa *a)
{
    if (bad(a))
        return 0;
    if (a->n >= a->limit) {
        a->over = true;
        return 0;
    }
    if (a->n == a->cap) {
        uint32_t cap = a->cap ? 2 * a->cap : 64;
        rx_nfa_state *s = realloc(a->st, (size_t)cap * sizeof *s);
        if (!s) {
            a->oom = true;
            return 0;
        }
        a->st = s, a->cap = cap;
    }
    a->st[a->n] = (rx_nfa_state){{0, 0}, 0, GCG_REGEX_DEAD, 0};
    return a->n++;
}

/* An ε-edge; an exit wired twice (never, by construction) gives up. */
static void eps(rx_nfa *a, uint32_t from, uint32_t to)
{
    if (bad(a))
        return;
    if (from >= a->n || to >= a->n || a->st[from].n_eps == 2) {
        a->over = true;
        return;
    }
    a->st[from].eps[a->st[from].n_eps++] = to;
}

rx_frag rx_nfa_empty(rx_nfa *a)
{
    uint32_t s = new_state(a);
    return (rx_frag){s, s, s};
}

rx_frag rx_nfa_set(rx_nfa *a, const cp_set *set)
{
    uint32_t s = new_state(a), e = new_state(a);
    if (bad(a))
        return (rx_frag){0, 0, 0};
    if (a->n_sets == a->cap_sets) {
        uint32_t cap = a->cap_sets ? 2 * a->cap_sets : 16;
        cp_set *v = realloc(a->sets, (size_t)cap * sizeof *v);
        if (!v) {
            a->oom = true;
            return (rx_frag){0, 0, 0};
        }
        a->sets = v, a->cap_sets = cap;
    }
    cp_set *t = &a->sets[a->n_sets];
    memset(t, 0, sizeof *t);
    cp_set_add_set(t, set);
    cp_set_normalize(t);
    a->oom |= t->oom;
    a->st[s].set = a->n_sets++, a->st[s].to = e;
    return (rx_frag){s, e, s};
}

rx_frag rx_nfa_cat(rx_nfa *a, rx_frag x, rx_frag y)
{
    eps(a, x.end, y.start);
    return (rx_frag){x.start, y.end, x.first < y.first ? x.first : y.first};
}

rx_frag rx_nfa_alt(rx_nfa *a, rx_frag x, rx_frag y)
{
    uint32_t s = new_state(a), e = new_state(a);
    eps(a, s, x.start), eps(a, s, y.start);
    eps(a, x.end, e), eps(a, y.end, e);
    return (rx_frag){s, e, x.first < y.first ? x.first : y.first};
}

/* x? (with loop: x*): entry s and exit e around x. */
static rx_frag around(rx_nfa *a, rx_frag x, bool loop)
{
    uint32_t s = new_state(a), e = new_state(a);
    eps(a, s, x.start), eps(a, s, e);
    eps(a, x.end, loop ? x.start : e);
    if (loop)
        eps(a, x.end, e);
    return (rx_frag){s, e, x.first};
}

/* x+ : x, then back to its start or out. */
static rx_frag plus(rx_nfa *a, rx_frag x)
{
    uint32_t e = new_state(a);
    eps(a, x.end, x.start), eps(a, x.end, e);
    return (rx_frag){x.start, e, x.first};
}

/* A copy of x, the last fragment built (its edges stay inside its range). */
static rx_frag copy(rx_nfa *a, rx_frag x, uint32_t last)
{
    uint32_t off = a->n - x.first;
    for (uint32_t i = x.first; i < last && !bad(a); i++) {
        uint32_t k = new_state(a);
        if (bad(a))
            break;
        rx_nfa_state s = a->st[i];
        for (uint32_t j = 0; j < s.n_eps; j++)
            s.eps[j] += off;
        if (s.set != GCG_REGEX_DEAD)
            s.to += off;
        a->st[k] = s;
    }
    return (rx_frag){x.start + off, x.end + off, x.first + off};
}

rx_frag rx_nfa_repeat(rx_nfa *a, rx_frag x, uint32_t min, uint32_t max)
{
    if (max == 0)
        return rx_nfa_empty(a); /* x stays, unreachable */
    if (min == 0 && max == UINT32_MAX)
        return around(a, x, true);
    uint32_t last = a->n, pieces = max == UINT32_MAX ? min : max;
    if ((uint64_t)pieces * (last - x.first) > a->limit) {
        a->over = true;
        return x;
    }
    /* every copy before any wiring: wiring gives x's exit an edge */
    rx_frag *p = malloc((size_t)pieces * sizeof *p);
    if (!p) {
        a->oom = true;
        return x;
    }
    p[0] = x;
    for (uint32_t i = 1; i < pieces; i++)
        p[i] = copy(a, x, last);
    rx_frag r = p[0];
    if (max == UINT32_MAX) {
        for (uint32_t i = 1; i + 1 < min; i++)
            r = rx_nfa_cat(a, r, p[i]);
        r = min == 1 ? plus(a, r) : rx_nfa_cat(a, r, plus(a, p[min - 1]));
    } else {
        r = min ? p[0] : around(a, p[0], false);
        for (uint32_t i = 1; i < max; i++)
            r = rx_nfa_cat(a, r, i < min ? p[i] : around(a, p[i], false));
    }
    free(p);
    return r;
}

/* ---- classes: code point intervals no character edge tells apart ------------ */

typedef struct builder {
    const rx_nfa *a;
    uint32_t *bound, n_int;    /* interval i: [bound[i], bound[i + 1]) */
    uint32_t *edge, n_edge;    /* states with a character edge          */
    uint64_t *bits;            /* per edge state: n_words over intervals */
    uint32_t n_words;
    uint32_t *rep, n_classes;  /* a representative interval per class   */
    uint32_t *class_of;        /* per interval, or GCG_REGEX_DEAD        */
    uint32_t *edge_ix;         /* per NFA state: its index in edge      */
    uint32_t *mark, gen;       /* closures                              */
    uint32_t *stack;
    uint8_t *univ;             /* per NFA state: accepts every continuation */
} builder;

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

static bool bit(const builder *b, uint32_t e, uint32_t i)
{
    return b->bits[(size_t)e * b->n_words + i / 64] >> (i % 64) & 1;
}

/* States reachable from `from` (edge states into b->edge). */
static bool reachable(builder *b, uint32_t from, uint8_t *seen)
{
    const rx_nfa *a = b->a;
    uint32_t n = 0;
    b->stack[n++] = from, seen[from] = 1;
    while (n) {
        const rx_nfa_state *s = &a->st[b->stack[--n]];
        uint32_t nx[3], k = 0;
        for (uint32_t j = 0; j < s->n_eps; j++)
            nx[k++] = s->eps[j];
        if (s->set != GCG_REGEX_DEAD)
            nx[k++] = s->to, b->edge_ix[s - a->st] = b->n_edge, b->edge[b->n_edge++] = (uint32_t)(s - a->st);
        for (uint32_t j = 0; j < k; j++)
            if (!seen[nx[j]])
                seen[nx[j]] = 1, b->stack[n++] = nx[j];
    }
    return true;
}

static bool intervals(builder *b)
{
    const rx_nfa *a = b->a;
    uint32_t n = 1;
    for (uint32_t e = 0; e < b->n_edge; e++)
        n += 2 * a->sets[a->st[b->edge[e]].set].n;
    b->bound = malloc(((size_t)n + 1) * sizeof *b->bound);
    if (!b->bound)
        return false;
    uint32_t k = 0;
    b->bound[k++] = 0;
    for (uint32_t e = 0; e < b->n_edge; e++) {
        const cp_set *s = &a->sets[a->st[b->edge[e]].set];
        for (uint32_t r = 0; r < s->n; r++) {
            b->bound[k++] = s->r[r].lo;
            if (s->r[r].hi < CP_MAX)
                b->bound[k++] = s->r[r].hi + 1;
        }
    }
    qsort(b->bound, k, sizeof *b->bound, cmp_u32);
    uint32_t u = 0;
    for (uint32_t i = 0; i < k; i++)
        if (u == 0 || b->bound[u - 1] != b->bound[i])
            b->bound[u++] = b->bound[i];
    b->n_int = u;
    b->bound[u] = CP_MAX + 1;
    b->n_words = (u + 63) / 64;
    b->bits = calloc((size_t)b->n_edge * b->n_words + 1, sizeof *b->bits);
    if (!b->bits)
        return false;
    for (uint32_t e = 0; e < b->n_edge; e++) {
        const cp_set *s = &a->sets[a->st[b->edge[e]].set];
        for (uint32_t r = 0; r < s->n; r++) {
            uint32_t lo = 0, hi = u; /* the interval starting at s->r[r].lo */
            while (lo < hi) {
                uint32_t mid = (lo + hi) / 2;
                if (b->bound[mid] < s->r[r].lo)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (uint32_t i = lo; i < u && b->bound[i] <= s->r[r].hi; i++)
                b->bits[(size_t)e * b->n_words + i / 64] |= 1ull << (i % 64);
        }
    }
    return true;
}

static bool same_column(const builder *b, uint32_t i, uint32_t j)
{
    for (uint32_t e = 0; e < b->n_edge; e++)
        if (bit(b, e, i) != bit(b, e, j))
            return false;
    return true;
}

/* Intervals read by the same edges form a class; intervals no edge reads
 * belong to none. Columns are compared where their hashes agree; past
 * MAX_CLASSES the count is all that matters (the build gives up). */
static bool classes(builder *b)
{
    b->rep = malloc(((size_t)b->n_int + 1) * sizeof *b->rep);
    b->class_of = malloc(((size_t)b->n_int + 1) * sizeof *b->class_of);
    uint64_t *h = calloc((size_t)b->n_int + 1, sizeof *h);
    bool *read = calloc((size_t)b->n_int + 1, sizeof *read);
    if (!b->rep || !b->class_of || !h || !read) {
        free(h), free(read);
        return false;
    }
    for (uint32_t e = 0; e < b->n_edge; e++)
        for (uint32_t i = 0; i < b->n_int; i++)
            if (bit(b, e, i))
                h[i] = (h[i] ^ (e + 1)) * 0x9E3779B97F4A7C15ull, read[i] = true;
    for (uint32_t i = 0; i < b->n_int && b->n_classes <= MAX_CLASSES; i++) {
        b->class_of[i] = GCG_REGEX_DEAD;
        if (!read[i])
            continue;
        for (uint32_t c = 0; c < b->n_classes && b->class_of[i] == GCG_REGEX_DEAD; c++)
            if (h[b->rep[c]] == h[i] && same_column(b, b->rep[c], i))
                b->class_of[i] = c;
        if (b->class_of[i] == GCG_REGEX_DEAD)
            b->class_of[i] = b->n_classes, b->rep[b->n_classes++] = i;
    }
    free(h), free(read);
    return true;
}

/* ---- the subset construction ------------------------------------------------- */

typedef struct subsets {
    uint32_t *data, n_data, cap_data; /* each DFA state's NFA states, sorted */
    uint32_t *start, n, cap;          /* n + 1 offsets                        */
    uint32_t *next;                   /* n * n_classes                        */
    uint64_t *hash;                   /* per DFA state, of its list           */
    bool *accept;
} subsets;

/* Closes b->stack[0..n) under ε into a sorted list at the end of ss->data. */
static bool close_push(builder *b, subsets *ss, uint32_t n)
{
    const rx_nfa *a = b->a;
    if (++b->gen == 0) {
        memset(b->mark, 0, (size_t)a->n * sizeof *b->mark);
        b->gen = 1;
    }
    uint32_t at = ss->n_data, m = 0;
    for (uint32_t i = 0; i < n; i++) /* targets may repeat */
        if (b->mark[b->stack[i]] != b->gen)
            b->mark[b->stack[i]] = b->gen, b->stack[m++] = b->stack[i];
    n = m;
    while (n) {
        uint32_t s = b->stack[--n];
        if (ss->n_data == ss->cap_data) {
            uint32_t cap = ss->cap_data ? 2 * ss->cap_data : 256;
            uint32_t *d = realloc(ss->data, (size_t)cap * sizeof *d);
            if (!d)
                return false;
            ss->data = d, ss->cap_data = cap;
        }
        ss->data[ss->n_data++] = s;
        for (uint32_t j = 0; j < a->st[s].n_eps; j++)
            if (b->mark[a->st[s].eps[j]] != b->gen)
                b->mark[a->st[s].eps[j]] = b->gen, b->stack[n++] = a->st[s].eps[j];
    }
    qsort(ss->data + at, ss->n_data - at, sizeof *ss->data, cmp_u32);
    return true;
}

/* univ[t] for each state t reading any character and returning to itself
 * with the end in reach (an unanchored end's padding, any*): a subset
 * holding t accepts every continuation. Such subsets are one DFA state, so
 * the construction does not track what else they hold (the partial matches
 * of the other alternatives, which minimization would merge anyway). */
static bool mark_universal(builder *b, rx_frag f, subsets *scratch)
{
    const rx_nfa *a = b->a;
    for (uint32_t e = 0; e < b->n_edge; e++) {
        uint32_t t = b->edge[e];
        const cp_set *set = &a->sets[a->st[t].set];
        if (set->n != 1 || set->r[0].lo != 0 || set->r[0].hi != CP_MAX)
            continue;
        scratch->n_data = 0;
        b->stack[0] = a->st[t].to;
        if (!close_push(b, scratch, 1))
            return false;
        bool back = false, end = false;
        for (uint32_t k = 0; k < scratch->n_data; k++)
            back |= scratch->data[k] == t, end |= scratch->data[k] == f.end;
        b->univ[t] = back && end;
    }
    return true;
}

/* Replaces the list just pushed by the universal marker (a->n) when it
 * holds a universal state. */
static void collapse_universal(const builder *b, subsets *ss, uint32_t at)
{
    for (uint32_t k = at; k < ss->n_data; k++)
        if (b->univ[ss->data[k]]) {
            ss->data[at] = b->a->n, ss->n_data = at + 1;
            return;
        }
}

/* The DFA state of the list just pushed: an old one (the list popped) or a
 * new one; GCG_REGEX_DEAD over max or out of memory. */
static uint32_t intern(subsets *ss, uint32_t at, uint32_t n_classes, uint32_t max, bool *over)
{
    uint32_t len = ss->n_data - at;
    uint64_t h = len;
    for (uint32_t k = at; k < ss->n_data; k++)
        h = (h ^ ss->data[k]) * 0x9E3779B97F4A7C15ull;
    for (uint32_t d = 0; d < ss->n; d++)
        if (ss->hash[d] == h && ss->start[d + 1] - ss->start[d] == len &&
            memcmp(ss->data + ss->start[d], ss->data + at, (size_t)len * sizeof *ss->data) == 0) {
            ss->n_data = at;
            return d;
        }
    if (ss->n == max) {
        *over = true;
        return GCG_REGEX_DEAD;
    }
    if (ss->n + 1 >= ss->cap) {
        uint32_t cap = ss->cap ? 2 * ss->cap : 32;
        uint32_t *st = realloc(ss->start, ((size_t)cap + 1) * sizeof *st);
        if (st)
            ss->start = st;
        uint32_t *nx = realloc(ss->next, (size_t)cap * (n_classes ? n_classes : 1) * sizeof *nx);
        if (nx)
            ss->next = nx;
        uint64_t *hs = realloc(ss->hash, (size_t)cap * sizeof *hs);
        if (hs)
            ss->hash = hs;
        if (!st || !nx || !hs)
            return GCG_REGEX_DEAD;
        ss->cap = cap;
    }
    ss->hash[ss->n] = h;
    ss->start[ss->n] = at, ss->start[ss->n + 1] = ss->n_data;
    return ss->n++;
}

static gcg_status construct(builder *b, rx_frag f, uint32_t max, subsets *ss)
{
    bool over = false;
    uint64_t moves = 0;
    b->stack[0] = f.start;
    if (!close_push(b, ss, 1))
        return GCG_ERR_NOMEM;
    collapse_universal(b, ss, 0);
    if (intern(ss, 0, b->n_classes, max, &over) == GCG_REGEX_DEAD)
        return over ? GCG_ERR_LIMIT : GCG_ERR_NOMEM;
    for (uint32_t d = 0; d < ss->n; d++) {
        bool all = ss->data[ss->start[d]] == b->a->n; /* the universal state */
        for (uint32_t c = 0; c < b->n_classes; c++) {
            if (all) {
                ss->next[(size_t)d * b->n_classes + c] = d;
                continue;
            }
            uint32_t n = 0;
            if ((moves += ss->start[d + 1] - ss->start[d]) > MAX_MOVES)
                return GCG_ERR_LIMIT;
            for (uint32_t k = ss->start[d]; k < ss->start[d + 1]; k++) {
                uint32_t s = ss->data[k];
                if (b->a->st[s].set != GCG_REGEX_DEAD && bit(b, b->edge_ix[s], b->rep[c]))
                    b->stack[n++] = b->a->st[s].to;
            }
            uint32_t to = GCG_REGEX_DEAD, at = ss->n_data;
            if (n && !close_push(b, ss, n))
                return GCG_ERR_NOMEM;
            if ((moves += ss->n_data - at) > MAX_MOVES)
                return GCG_ERR_LIMIT;
            if (n)
                collapse_universal(b, ss, at);
            if (n && (to = intern(ss, at, b->n_classes, max, &over)) == GCG_REGEX_DEAD)
                return over ? GCG_ERR_LIMIT : GCG_ERR_NOMEM;
            ss->next[(size_t)d * b->n_classes + c] = to;
        }
    }
    ss->accept = calloc((size_t)ss->n + 1, sizeof *ss->accept);
    if (!ss->accept)
        return GCG_ERR_NOMEM;
    for (uint32_t d = 0; d < ss->n; d++)
        for (uint32_t k = ss->start[d]; k < ss->start[d + 1]; k++)
            ss->accept[d] |= ss->data[k] == f.end || ss->data[k] == b->a->n;
    return GCG_OK;
}

/* ---- minimization ------------------------------------------------------------ */

/* live[d]: d reaches an accepting state (the others act as dead). */
static void mark_live(const subsets *ss, uint32_t k, bool *live)
{
    for (uint32_t d = 0; d < ss->n; d++)
        live[d] = ss->accept[d];
    for (bool grew = true; grew;) {
        grew = false;
        for (uint32_t d = 0; d < ss->n; d++)
            for (uint32_t c = 0; c < k && !live[d]; c++) {
                uint32_t t = ss->next[(size_t)d * k + c];
                if (t != GCG_REGEX_DEAD && live[t])
                    live[d] = grew = true;
            }
    }
}

/* The block of d's transition on class c (GCG_REGEX_DEAD: none or dead). */
static uint32_t block_on(const subsets *ss, uint32_t k, const uint32_t *block, uint32_t d, uint32_t c)
{
    uint32_t t = ss->next[(size_t)d * k + c];
    return t == GCG_REGEX_DEAD ? t : block[t];
}

static bool same_signature(const subsets *ss, uint32_t k, const uint32_t *block, uint32_t d, uint32_t e)
{
    if (block[d] != block[e])
        return false;
    for (uint32_t c = 0; c < k; c++)
        if (block_on(ss, k, block, d, c) != block_on(ss, k, block, e, c))
            return false;
    return true;
}

/* Moore: blocks split by acceptance, then by the blocks their transitions
 * reach, until no block splits. Each round hashes every state's signature
 * (its block and its successors' blocks) into a table, so a round costs
 * O(states x classes). Returns the number of blocks, 0 out of memory. */
static uint32_t refine(const subsets *ss, uint32_t k, const bool *live, uint32_t *block, uint32_t *tmp)
{
    uint32_t cap = 16;
    while (cap < 2 * ss->n)
        cap *= 2;
    uint32_t *slot = malloc((size_t)cap * sizeof *slot);
    if (!slot)
        return 0;
    uint32_t n_blocks = 0;
    for (uint32_t d = 0; d < ss->n; d++)
        block[d] = !live[d] ? GCG_REGEX_DEAD : ss->accept[d];
    for (;;) {
        uint32_t m = 0;
        memset(slot, 0xff, (size_t)cap * sizeof *slot);
        for (uint32_t d = 0; d < ss->n; d++) {
            tmp[d] = GCG_REGEX_DEAD;
            if (block[d] == GCG_REGEX_DEAD)
                continue;
            uint64_t h = block[d];
            for (uint32_t c = 0; c < k; c++)
                h = (h ^ block_on(ss, k, block, d, c)) * 0x9E3779B97F4A7C15ull;
            uint32_t i = (uint32_t)(h >> 32) & (cap - 1);
            while (slot[i] != UINT32_MAX && !same_signature(ss, k, block, slot[i], d))
                i = (i + 1) & (cap - 1);
            if (slot[i] == UINT32_MAX)
                slot[i] = d, tmp[d] = m++;
            else
                tmp[d] = tmp[slot[i]];
        }
        memcpy(block, tmp, (size_t)ss->n * sizeof *block);
        if (m == n_blocks)
            break;
        n_blocks = m;
    }
    free(slot);
    return n_blocks;
}

/* The minimal DFA: blocks numbered in breadth-first order from the start's. */
static gcg_status emit(const builder *b, const subsets *ss, const uint32_t *block, uint32_t m, gcg_regex_dfa *out)
{
    uint32_t k = b->n_classes, *order = malloc(((size_t)m + 1) * sizeof *order);
    uint32_t *num = malloc(((size_t)m + 1) * sizeof *num), *any = malloc(((size_t)m + 1) * sizeof *any);
    out->next = malloc(((size_t)m * k + 1) * sizeof *out->next);
    out->accept = calloc((size_t)m + 1, sizeof *out->accept);
    out->classes = calloc((size_t)k + 1, sizeof *out->classes);
    gcg_status st = order && num && any && out->next && out->accept && out->classes ? GCG_OK : GCG_ERR_NOMEM;
    for (uint32_t x = 0; st == GCG_OK && x < m; x++)
        num[x] = GCG_REGEX_DEAD;
    for (uint32_t d = 0; st == GCG_OK && d < ss->n; d++) /* a member of each block */
        if (block[d] != GCG_REGEX_DEAD)
            any[block[d]] = d;
    uint32_t n = 0;
    if (st == GCG_OK)
        num[block[0]] = 0, order[n++] = block[0];
    for (uint32_t i = 0; st == GCG_OK && i < n; i++) {
        uint32_t d = any[order[i]];
        out->accept[i] = ss->accept[d];
        for (uint32_t c = 0; c < k; c++) {
            uint32_t t = ss->next[(size_t)d * k + c];
            t = t == GCG_REGEX_DEAD ? t : block[t];
            if (t != GCG_REGEX_DEAD && num[t] == GCG_REGEX_DEAD)
                num[t] = n, order[n++] = t;
            out->next[(size_t)i * k + c] = t == GCG_REGEX_DEAD ? t : num[t];
        }
    }
    for (uint32_t i = 0; st == GCG_OK && i < b->n_int; i++)
        if (b->class_of[i] != GCG_REGEX_DEAD)
            cp_set_add(&out->classes[b->class_of[i]], b->bound[i], b->bound[i + 1] - 1);
    for (uint32_t c = 0; st == GCG_OK && c < k; c++) {
        cp_set_normalize(&out->classes[c]);
        if (out->classes[c].oom)
            st = GCG_ERR_NOMEM;
    }
    out->n_states = n, out->n_classes = k;
    free(order), free(num), free(any);
    return st;
}

gcg_status gcg_regex_dfa_build(const rx_nfa *a, rx_frag f, uint32_t max_states, gcg_regex_dfa *out)
{
    memset(out, 0, sizeof *out);
    if (a->over)
        return GCG_ERR_LIMIT;
    if (a->oom || !a->n)
        return GCG_ERR_NOMEM;
    builder b = {.a = a};
    subsets ss = {0};
    uint8_t *seen = calloc(a->n, 1);
    b.edge = malloc((size_t)a->n * sizeof *b.edge), b.edge_ix = malloc((size_t)a->n * sizeof *b.edge_ix);
    b.mark = calloc(a->n, sizeof *b.mark), b.stack = malloc((size_t)a->n * sizeof *b.stack);
    b.univ = calloc((size_t)a->n + 1, 1);
    subsets scratch = {0};
    gcg_status st = seen && b.edge && b.edge_ix && b.mark && b.stack && b.univ && reachable(&b, f.start, seen) &&
                            intervals(&b) && classes(&b) && mark_universal(&b, f, &scratch)
                        ? GCG_OK
                        : GCG_ERR_NOMEM;
    /* the subset construction may pass the minimal count on its way */
    if (st == GCG_OK && b.n_classes > MAX_CLASSES)
        st = GCG_ERR_LIMIT;
    if (st == GCG_OK)
        st = construct(&b, f, 8 * max_states, &ss);
    bool *live = st == GCG_OK ? calloc((size_t)ss.n + 1, sizeof *live) : NULL;
    uint32_t *block = st == GCG_OK ? malloc(((size_t)ss.n + 1) * sizeof *block) : NULL;
    uint32_t *tmp = st == GCG_OK ? malloc(((size_t)ss.n + 1) * sizeof *tmp) : NULL;
    if (st == GCG_OK && (!live || !block || !tmp))
        st = GCG_ERR_NOMEM;
    if (st == GCG_OK)
        mark_live(&ss, b.n_classes, live);
    if (st == GCG_OK && !live[0]) /* the empty language: nothing to build */
        st = GCG_ERR_LIMIT;
    uint32_t m = st == GCG_OK ? refine(&ss, b.n_classes, live, block, tmp) : 0;
    if (st == GCG_OK && m == 0)
        st = GCG_ERR_NOMEM;
    if (st == GCG_OK && m > max_states)
        st = GCG_ERR_LIMIT;
    if (st == GCG_OK)
        st = emit(&b, &ss, block, m, out);
    if (st != GCG_OK)
        gcg_regex_dfa_free(out);
    free(live), free(block), free(tmp), free(seen);
    free(b.bound), free(b.edge), free(b.bits), free(b.rep), free(b.class_of), free(b.edge_ix), free(b.mark),
        free(b.stack), free(b.univ), free(scratch.data);
    free(ss.data), free(ss.start), free(ss.next), free(ss.hash), free(ss.accept);
    return st;
}

void gcg_regex_dfa_free(gcg_regex_dfa *d)
{
    for (uint32_t c = 0; d->classes && c < d->n_classes; c++)
        cp_set_free(&d->classes[c]);
    free(d->classes), free(d->next), free(d->accept);
    memset(d, 0, sizeof *d);
}
