/*
 * earley.c — the reference recognizer of earley.h.
 *
 * Three steps, each as plain as possible so that it is obviously right:
 *   1. build: one nonterminal per rule, plus one per SEQ, ALT, REPEAT and
 *      multi-byte literal node; the start symbol S' -> root is added.
 *   2. clean: drop productions that use a symbol deriving no terminal string
 *      (least fixpoint), so every Earley item is a viable prefix; then the
 *      nullable nonterminals (least fixpoint).
 *   3. recognize: Earley (1970) with Aycock-Horspool nullable completion:
 *      predicting a nullable B also advances the predicting item over B,
 *      so completions of empty constituents are never missed.
 * Positions are byte offsets. A set terminal advances by the length of one
 * strictly decoded code point; positions inside that code point are viable
 * when the bytes so far can still be completed to a member of the set.
 */
#include "earley.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SURR_LO 0xD800u
#define SURR_HI 0xDFFFu

/* A terminal: one byte (literal bytes), or a set of code points kept sorted,
 * disjoint and surrogate-free. */
typedef struct ref_term {
    bool is_byte;
    uint8_t byte;
    gbnf_range *ranges;
    uint32_t n_ranges;
} ref_term;

/* A production lhs -> syms[rhs .. rhs+len). Symbols: >= 0 nonterminal,
 * < 0 terminal ~s. Items of p are item0 .. item0+len (dot positions). */
typedef struct ref_prod {
    uint32_t lhs, rhs, len, item0;
} ref_prod;

struct ref_grammar {
    uint32_t n_nts;
    ref_prod *prods;
    uint32_t n_prods, cap_prods;
    int32_t *syms;
    uint32_t n_syms, cap_syms;
    ref_term *terms;
    uint32_t n_terms, cap_terms;
    uint32_t *by_lhs_start;  /* n_nts + 1: productions of A are               */
    uint32_t *by_lhs;        /*   by_lhs[by_lhs_start[A] .. by_lhs_start[A+1]) */
    bool *nullable;          /* n_nts                                          */
    uint32_t *item_prod;     /* n_items: the production an item belongs to     */
    uint32_t n_items;
    uint32_t start;          /* the production S' -> root                      */
    int32_t byte_term[256];  /* terminal symbol of each byte, 0 = none yet     */
};

/* ------------------------------------------------------------------ */
/* Growable arrays                                                      */
/* ------------------------------------------------------------------ */

static bool grow(void **v, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    uint32_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *p = realloc(*v, (size_t)c * elem);
    if (!p)
        return false;
    *v = p;
    *cap = c;
    return true;
}

static uint32_t new_nt(ref_grammar *rg)
{
    return rg->n_nts++;
}

/* Appends lhs -> syms[0..len). */
static bool add_prod(ref_grammar *rg, uint32_t lhs, const int32_t *syms, uint32_t len)
{
    if (!grow((void **)&rg->prods, &rg->cap_prods, rg->n_prods + 1, sizeof(ref_prod)) ||
        !grow((void **)&rg->syms, &rg->cap_syms, rg->n_syms + len, sizeof(int32_t)))
        return false;
    if (len)
        memcpy(rg->syms + rg->n_syms, syms, len * sizeof(int32_t));
    rg->prods[rg->n_prods++] = (ref_prod){lhs, rg->n_syms, len, 0};
    rg->n_syms += len;
    return true;
}

static bool add_prod1(ref_grammar *rg, uint32_t lhs, int32_t s)
{
    return add_prod(rg, lhs, &s, 1);
}

/* Symbol returned when an allocation fails. */
#define NO_SYM INT32_MIN

static int32_t add_term(ref_grammar *rg, ref_term t)
{
    if (!grow((void **)&rg->terms, &rg->cap_terms, rg->n_terms + 1, sizeof(ref_term)))
        return NO_SYM;
    rg->terms[rg->n_terms] = t;
    return ~(int32_t)rg->n_terms++;
}

static int32_t byte_sym(ref_grammar *rg, uint8_t b)
{
    if (!rg->byte_term[b])
        rg->byte_term[b] = add_term(rg, (ref_term){true, b, NULL, 0});
    return rg->byte_term[b];
}

/* ------------------------------------------------------------------ */
/* Code-point sets                                                      */
/* ------------------------------------------------------------------ */

static int cmp_range(const void *a, const void *b)
{
    const gbnf_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sorts and merges in place (clipping to U+10FFFF, dropping reversed
 * ranges); returns the new count. */
static uint32_t merge_ranges(gbnf_range *r, uint32_t n)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        gbnf_range x = r[i];
        if (x.hi > GBNF_MAX_CODEPOINT)
            x.hi = GBNF_MAX_CODEPOINT;
        if (x.lo <= x.hi)
            r[k++] = x;
    }
    qsort(r, k, sizeof *r, cmp_range);
    uint32_t m = 0;
    for (uint32_t i = 0; i < k; i++) {
        if (m && r[i].lo <= r[m - 1].hi + 1) {
            if (r[i].hi > r[m - 1].hi)
                r[m - 1].hi = r[i].hi;
        } else {
            r[m++] = r[i];
        }
    }
    return m;
}

/* out := [0, U+10FFFF] minus (excluded, sorted and disjoint). out needs room
 * for n + 1 ranges. */
static uint32_t complement(const gbnf_range *ex, uint32_t n, gbnf_range *out)
{
    uint32_t k = 0, next = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (ex[i].lo > next)
            out[k++] = (gbnf_range){next, ex[i].lo - 1};
        next = ex[i].hi + 1;
    }
    if (next <= GBNF_MAX_CODEPOINT)
        out[k++] = (gbnf_range){next, GBNF_MAX_CODEPOINT};
    return k;
}

/* Removes U+D800..U+DFFF; out needs room for n + 1 ranges. */
static uint32_t drop_surrogates(const gbnf_range *in, uint32_t n, gbnf_range *out)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        gbnf_range x = in[i];
        if (x.hi < SURR_LO || x.lo > SURR_HI) {
            out[k++] = x;
            continue;
        }
        if (x.lo < SURR_LO)
            out[k++] = (gbnf_range){x.lo, SURR_LO - 1};
        if (x.hi > SURR_HI)
            out[k++] = (gbnf_range){SURR_HI + 1, x.hi};
    }
    return k;
}

/* The set terminal for a class (or "." when node is NULL). */
static int32_t set_sym(ref_grammar *rg, const gbnf_node *node)
{
    uint32_t n = node ? node->n_ranges : 0;
    bool negated = node ? node->negated : true; /* "." = [^] (nothing excluded) */
    gbnf_range *a = malloc((n + 2) * sizeof *a), *b = malloc((n + 3) * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return NO_SYM;
    }
    if (n)
        memcpy(a, node->ranges, n * sizeof *a);
    n = merge_ranges(a, n);
    if (negated) {
        n = complement(a, n, b);
        memcpy(a, b, n * sizeof *a);
    }
    n = drop_surrogates(a, n, b);
    free(a);
    int32_t s = add_term(rg, (ref_term){false, 0, b, n});
    if (s == NO_SYM)
        free(b);
    return s;
}

/* ------------------------------------------------------------------ */
/* Step 1: syntax tree -> CFG                                           */
/* ------------------------------------------------------------------ */

/* The symbol standing for a node: its rule for a reference, a terminal for
 * a class, "." or one-byte literal, else a fresh nonterminal. */
static int32_t node_symbol(ref_grammar *rg, const gbnf_node *nd)
{
    switch (nd->kind) {
    case GBNF_REF: return (int32_t)nd->rule;
    case GBNF_CLASS: return set_sym(rg, nd);
    case GBNF_ANY: return set_sym(rg, NULL);
    case GBNF_LIT:
        if (nd->n_bytes == 1)
            return byte_sym(rg, nd->bytes[0]);
        return (int32_t)new_nt(rg);
    default: return (int32_t)new_nt(rg);
    }
}

/* Rules are nonterminals 0..n_rules-1; then every node gets its symbol. */
static bool assign_symbols(ref_grammar *rg, const gbnf_grammar *g, int32_t *sym)
{
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if ((sym[i] = node_symbol(rg, &g->nodes[i])) == NO_SYM)
            return false;
    return true;
}

/* lhs -> x^count tail. */
static bool add_power(ref_grammar *rg, uint32_t lhs, int32_t x, uint32_t count, int32_t tail)
{
    int32_t *v = malloc(((size_t)count + 1) * sizeof *v);
    if (!v)
        return false;
    for (uint32_t i = 0; i < count; i++)
        v[i] = x;
    v[count] = tail;
    bool ok = add_prod(rg, lhs, v, count + 1);
    free(v);
    return ok;
}

/* X{min,max}: N -> X^min T where T derives X^k for 0 <= k <= max-min:
 *   max infinite: T -> X T | ε
 *   max finite:   O_0 -> ε,  O_j -> ε | X O_{j-1},  T = O_{max-min}. */
static bool lower_repeat(ref_grammar *rg, uint32_t nt, int32_t x, uint32_t min, uint32_t max)
{
    uint32_t t = new_nt(rg);
    if (!add_power(rg, nt, x, min, (int32_t)t) || !add_prod(rg, t, NULL, 0))
        return false;
    if (max == GBNF_INF) {
        int32_t xt[2] = {x, (int32_t)t};
        return add_prod(rg, t, xt, 2);
    }
    uint32_t below = 0;
    for (uint32_t j = max - min; j > 0; j--) {
        uint32_t o = new_nt(rg); /* O_{j-1}, built top-down */
        int32_t xo[2] = {x, (int32_t)o};
        if (!add_prod(rg, j == max - min ? t : below, xo, 2) || !add_prod(rg, o, NULL, 0))
            return false;
        below = o;
    }
    return true;
}

static bool lower_node(ref_grammar *rg, const gbnf_grammar *g, const int32_t *sym, uint32_t i)
{
    const gbnf_node *nd = &g->nodes[i];
    uint32_t nt = (uint32_t)sym[i];
    switch (nd->kind) {
    case GBNF_LIT: {
        if (nd->n_bytes == 1)
            return true;
        int32_t *v = malloc(nd->n_bytes * sizeof *v);
        if (!v)
            return false;
        bool ok = true;
        for (uint32_t k = 0; k < nd->n_bytes; k++)
            ok = ok && (v[k] = byte_sym(rg, nd->bytes[k])) != NO_SYM;
        ok = ok && add_prod(rg, nt, v, nd->n_bytes);
        free(v);
        return ok;
    }
    case GBNF_SEQ: {
        int32_t *v = malloc((nd->n_kids + 1) * sizeof *v);
        if (!v)
            return false;
        for (uint32_t k = 0; k < nd->n_kids; k++)
            v[k] = sym[nd->kids[k]];
        bool ok = add_prod(rg, nt, v, nd->n_kids);
        free(v);
        return ok;
    }
    case GBNF_ALT:
        for (uint32_t k = 0; k < nd->n_kids; k++)
            if (!add_prod1(rg, nt, sym[nd->kids[k]]))
                return false;
        return true;
    case GBNF_REPEAT:
        return lower_repeat(rg, nt, sym[nd->kids[0]], nd->min, nd->max);
    default:
        return true;
    }
}

static bool repeat_too_big(const gbnf_grammar *g)
{
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const gbnf_node *nd = &g->nodes[i];
        if (nd->kind == GBNF_REPEAT &&
            (nd->min > REF_MAX_REPEAT || (nd->max != GBNF_INF && nd->max > REF_MAX_REPEAT)))
            return true;
    }
    return false;
}

static ref_status build_cfg(ref_grammar *rg, const gbnf_grammar *g)
{
    rg->n_nts = g->n_rules;
    int32_t *sym = calloc(g->n_nodes + 1, sizeof *sym);
    bool ok = sym && assign_symbols(rg, g, sym);
    for (uint32_t i = 0; ok && i < g->n_nodes; i++)
        ok = lower_node(rg, g, sym, i);
    for (uint32_t r = 0; ok && r < g->n_rules; r++)
        ok = g->rules[r].body == UINT32_MAX || add_prod1(rg, r, sym[g->rules[r].body]);
    uint32_t s = new_nt(rg);
    rg->start = rg->n_prods;
    ok = ok && add_prod1(rg, s, (int32_t)g->root);
    free(sym);
    return ok ? REF_OK : REF_NOMEM;
}

/* ------------------------------------------------------------------ */
/* Step 2: productive symbols, nullable symbols, indexes                */
/* ------------------------------------------------------------------ */

static bool sym_productive(const ref_grammar *rg, const bool *prod_nt, int32_t s)
{
    if (s >= 0)
        return prod_nt[s];
    const ref_term *t = &rg->terms[~s];
    return t->is_byte || t->n_ranges > 0;
}

/* Least fixpoint: A is productive if some production of A has only
 * productive symbols on its right side. */
static void find_productive(const ref_grammar *rg, bool *prod_nt)
{
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t p = 0; p < rg->n_prods; p++) {
            const ref_prod *pr = &rg->prods[p];
            if (prod_nt[pr->lhs])
                continue;
            bool all = true;
            for (uint32_t k = 0; k < pr->len && all; k++)
                all = sym_productive(rg, prod_nt, rg->syms[pr->rhs + k]);
            if (all)
                changed = prod_nt[pr->lhs] = true;
        }
    }
}

/* Keeps only productions whose symbols are all productive. */
static void drop_unproductive(ref_grammar *rg, const bool *prod_nt)
{
    uint32_t k = 0, start = UINT32_MAX;
    for (uint32_t p = 0; p < rg->n_prods; p++) {
        const ref_prod *pr = &rg->prods[p];
        bool all = prod_nt[pr->lhs];
        for (uint32_t j = 0; j < pr->len && all; j++)
            all = sym_productive(rg, prod_nt, rg->syms[pr->rhs + j]);
        if (!all)
            continue;
        if (p == rg->start)
            start = k;
        rg->prods[k++] = *pr;
    }
    rg->n_prods = k;
    rg->start = start;
}

static void find_nullable(ref_grammar *rg)
{
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t p = 0; p < rg->n_prods; p++) {
            const ref_prod *pr = &rg->prods[p];
            if (rg->nullable[pr->lhs])
                continue;
            bool all = true;
            for (uint32_t k = 0; k < pr->len && all; k++) {
                int32_t s = rg->syms[pr->rhs + k];
                all = s >= 0 && rg->nullable[s];
            }
            if (all)
                changed = rg->nullable[pr->lhs] = true;
        }
    }
}

/* Productions grouped by left side (counting sort), and item numbering. */
static bool index_grammar(ref_grammar *rg)
{
    rg->by_lhs_start = calloc(rg->n_nts + 1, sizeof(uint32_t));
    rg->by_lhs = malloc((rg->n_prods + 1) * sizeof(uint32_t));
    if (!rg->by_lhs_start || !rg->by_lhs)
        return false;
    for (uint32_t p = 0; p < rg->n_prods; p++)
        rg->by_lhs_start[rg->prods[p].lhs + 1]++;
    for (uint32_t a = 0; a < rg->n_nts; a++)
        rg->by_lhs_start[a + 1] += rg->by_lhs_start[a];
    uint32_t *fill = malloc((rg->n_nts + 1) * sizeof *fill);
    if (!fill)
        return false;
    memcpy(fill, rg->by_lhs_start, (rg->n_nts + 1) * sizeof *fill);
    for (uint32_t p = 0; p < rg->n_prods; p++)
        rg->by_lhs[fill[rg->prods[p].lhs]++] = p;
    free(fill);
    rg->n_items = 0;
    for (uint32_t p = 0; p < rg->n_prods; p++) {
        rg->prods[p].item0 = rg->n_items;
        rg->n_items += rg->prods[p].len + 1;
    }
    rg->item_prod = malloc((rg->n_items + 1) * sizeof(uint32_t));
    if (!rg->item_prod)
        return false;
    for (uint32_t p = 0; p < rg->n_prods; p++)
        for (uint32_t d = 0; d <= rg->prods[p].len; d++)
            rg->item_prod[rg->prods[p].item0 + d] = p;
    return true;
}

static ref_status clean_grammar(ref_grammar *rg)
{
    bool *prod_nt = calloc(rg->n_nts, sizeof *prod_nt);
    rg->nullable = calloc(rg->n_nts, sizeof *rg->nullable);
    if (!prod_nt || !rg->nullable) {
        free(prod_nt);
        return REF_NOMEM;
    }
    find_productive(rg, prod_nt);
    drop_unproductive(rg, prod_nt);
    free(prod_nt);
    if (rg->start == UINT32_MAX)
        return REF_EMPTY_LANGUAGE;
    find_nullable(rg);
    return index_grammar(rg) ? REF_OK : REF_NOMEM;
}

ref_status ref_grammar_build(const gbnf_grammar *g, ref_grammar **out)
{
    *out = NULL;
    if (repeat_too_big(g))
        return REF_TOO_BIG;
    ref_grammar *rg = calloc(1, sizeof *rg);
    if (!rg)
        return REF_NOMEM;
    ref_status st = build_cfg(rg, g);
    if (st == REF_OK)
        st = clean_grammar(rg);
    if (st != REF_OK) {
        ref_grammar_free(rg);
        return st;
    }
    *out = rg;
    return REF_OK;
}

void ref_grammar_free(ref_grammar *rg)
{
    if (!rg)
        return;
    for (uint32_t t = 0; t < rg->n_terms; t++)
        free(rg->terms[t].ranges);
    free(rg->terms);
    free(rg->prods);
    free(rg->syms);
    free(rg->by_lhs_start);
    free(rg->by_lhs);
    free(rg->nullable);
    free(rg->item_prod);
    free(rg);
}

uint32_t ref_grammar_nonterminals(const ref_grammar *rg)
{
    return rg->n_nts;
}

uint32_t ref_grammar_productions(const ref_grammar *rg)
{
    return rg->n_prods;
}

/* ------------------------------------------------------------------ */
/* Strict UTF-8 prefixes (Unicode 15, table 3-7)                        */
/* ------------------------------------------------------------------ */

static uint32_t seq_len(uint8_t lead)
{
    if (lead < 0x80)
        return 1;
    if (lead >= 0xC2 && lead <= 0xDF)
        return 2;
    if (lead >= 0xE0 && lead <= 0xEF)
        return 3;
    if (lead >= 0xF0 && lead <= 0xF4)
        return 4;
    return 0;
}

/* Is b allowed as the second byte after `lead`? (Later bytes: 80..BF.) */
static bool second_ok(uint8_t lead, uint8_t b)
{
    uint8_t lo = 0x80, hi = 0xBF;
    if (lead == 0xE0)
        lo = 0xA0;
    else if (lead == 0xED)
        hi = 0x9F;
    else if (lead == 0xF0)
        lo = 0x90;
    else if (lead == 0xF4)
        hi = 0x8F;
    return b >= lo && b <= hi;
}

/* If b[0..m) starts a strict UTF-8 encoding, the code points whose encoding
 * starts with it are [*lo, *hi] minus surrogates; *whole says b[0..m) is a
 * complete encoding. Bits not yet read are 0 for lo and 1 for hi, then
 * clamped to the length's range (what the second-byte rules encode). */
static bool prefix_range(const uint8_t *b, uint32_t m, uint32_t *lo, uint32_t *hi, bool *whole)
{
    static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
    static const uint8_t lead_mask[5] = {0, 0x7F, 0x1F, 0x0F, 0x07};
    uint32_t len = seq_len(b[0]);
    if (!len || m > len)
        return false;
    for (uint32_t j = 1; j < m; j++)
        if (j == 1 ? !second_ok(b[0], b[j]) : (b[j] & 0xC0) != 0x80)
            return false;
    uint32_t l = b[0] & lead_mask[len], h = l;
    for (uint32_t j = 1; j < len; j++) {
        l = l << 6 | (j < m ? b[j] & 0x3Fu : 0);
        h = h << 6 | (j < m ? b[j] & 0x3Fu : 0x3F);
    }
    *lo = l < min_cp[len] ? min_cp[len] : l;
    *hi = h > GBNF_MAX_CODEPOINT ? GBNF_MAX_CODEPOINT : h;
    *whole = m == len;
    return *lo <= *hi;
}

/* Sets hold no surrogates, so any overlap is a real code point. */
static bool set_overlaps(const ref_term *t, uint32_t lo, uint32_t hi)
{
    for (uint32_t i = 0; i < t->n_ranges; i++)
        if (t->ranges[i].lo <= hi && lo <= t->ranges[i].hi)
            return true;
    return false;
}

/* ------------------------------------------------------------------ */
/* Step 3: Earley sets                                                  */
/* ------------------------------------------------------------------ */

typedef struct eitem {
    uint32_t item, origin;
} eitem;

/* One Earley set: items in insertion order, plus an open-addressing hash
 * set of the same items (key + 1, so 0 marks an empty slot). */
typedef struct eset {
    eitem *v;
    uint32_t n, cap;
    uint64_t *slots;
    uint32_t n_slots; /* power of two, > 2n */
} eset;

static uint64_t ekey(eitem e)
{
    return ((uint64_t)e.item << 32 | e.origin) + 1;
}

static uint32_t ehash(uint64_t k, uint32_t mask)
{
    k *= 0x9E3779B97F4A7C15ull;
    return (uint32_t)(k >> 32) & mask;
}

static bool eset_rehash(eset *s)
{
    uint32_t ns = s->n_slots ? s->n_slots * 2 : 64;
    uint64_t *slots = calloc(ns, sizeof *slots);
    if (!slots)
        return false;
    for (uint32_t i = 0; i < s->n; i++) {
        uint64_t k = ekey(s->v[i]);
        uint32_t h = ehash(k, ns - 1);
        while (slots[h])
            h = (h + 1) & (ns - 1);
        slots[h] = k;
    }
    free(s->slots);
    s->slots = slots;
    s->n_slots = ns;
    return true;
}

/* Adds e unless present. False only when out of memory. */
static bool eset_add(eset *s, eitem e)
{
    if (2 * (s->n + 1) >= s->n_slots && !eset_rehash(s))
        return false;
    uint64_t k = ekey(e);
    uint32_t h = ehash(k, s->n_slots - 1);
    for (; s->slots[h]; h = (h + 1) & (s->n_slots - 1))
        if (s->slots[h] == k)
            return true;
    if (!grow((void **)&s->v, &s->cap, s->n + 1, sizeof(eitem)))
        return false;
    s->slots[h] = k;
    s->v[s->n++] = e;
    return true;
}

static bool eset_has(const eset *s, eitem e)
{
    if (!s->n_slots)
        return false;
    uint64_t k = ekey(e);
    for (uint32_t h = ehash(k, s->n_slots - 1); s->slots[h]; h = (h + 1) & (s->n_slots - 1))
        if (s->slots[h] == k)
            return true;
    return false;
}

/* The state of one recognition. viable[k]: text[0..k) is a prefix of a
 * sentence, known from set k being non-empty or from a partly scanned code
 * point that covers position k. */
typedef struct earley {
    const ref_grammar *rg;
    const uint8_t *text;
    size_t n;
    eset *sets;
    bool *viable;
} earley;

/* The symbol after the dot, or INT32_MAX at the end. */
static int32_t next_sym(const ref_grammar *rg, uint32_t item)
{
    const ref_prod *p = &rg->prods[rg->item_prod[item]];
    uint32_t dot = item - p->item0;
    return dot == p->len ? INT32_MAX : rg->syms[p->rhs + dot];
}

/* (A -> α ., j) at i: advance every item of set j waiting for A. */
static bool complete(earley *e, size_t i, eitem it)
{
    int32_t a = (int32_t)e->rg->prods[e->rg->item_prod[it.item]].lhs;
    eset *from = &e->sets[it.origin];
    for (uint32_t k = 0; k < from->n; k++) { /* from may be sets[i] and grow */
        eitem w = from->v[k];
        if (next_sym(e->rg, w.item) == a && !eset_add(&e->sets[i], (eitem){w.item + 1, w.origin}))
            return false;
    }
    return true;
}

/* Predict B at i; Aycock-Horspool: a nullable B is also stepped over. */
static bool predict(earley *e, size_t i, eitem it, int32_t b)
{
    const ref_grammar *rg = e->rg;
    for (uint32_t k = rg->by_lhs_start[b]; k < rg->by_lhs_start[b + 1]; k++)
        if (!eset_add(&e->sets[i], (eitem){rg->prods[rg->by_lhs[k]].item0, (uint32_t)i}))
            return false;
    if (rg->nullable[b] && !eset_add(&e->sets[i], (eitem){it.item + 1, it.origin}))
        return false;
    return true;
}

/* Scans one code point of the set from position i, marking the positions
 * inside it that can still be completed to a member. */
static bool scan_set(earley *e, size_t i, eitem it, const ref_term *t)
{
    for (uint32_t m = 1; m <= 4 && i + m <= e->n; m++) {
        uint32_t lo, hi;
        bool whole;
        if (!prefix_range(e->text + i, m, &lo, &hi, &whole) || !set_overlaps(t, lo, hi))
            return true;
        e->viable[i + m] = true;
        if (whole)
            return eset_add(&e->sets[i + m], (eitem){it.item + 1, it.origin});
    }
    return true;
}

static bool scan(earley *e, size_t i, eitem it, int32_t s)
{
    const ref_term *t = &e->rg->terms[~s];
    if (!t->is_byte)
        return scan_set(e, i, it, t);
    if (i < e->n && e->text[i] == t->byte)
        return eset_add(&e->sets[i + 1], (eitem){it.item + 1, it.origin});
    return true;
}

/* Closes set i under prediction and completion, scanning into later sets. */
static bool process_set(earley *e, size_t i)
{
    for (uint32_t k = 0; k < e->sets[i].n; k++) {
        eitem it = e->sets[i].v[k];
        int32_t s = next_sym(e->rg, it.item);
        bool ok = s == INT32_MAX ? complete(e, i, it)
                  : s >= 0       ? predict(e, i, it, s)
                                 : scan(e, i, it, s);
        if (!ok)
            return false;
    }
    return true;
}

static ref_result run(earley *e)
{
    const ref_grammar *rg = e->rg;
    uint32_t item0 = rg->prods[rg->start].item0;
    if (!eset_add(&e->sets[0], (eitem){item0, 0}))
        return (ref_result){REF_ERROR, 0};
    for (size_t i = 0; i <= e->n; i++) {
        if (i > 0 && !e->viable[i] && e->sets[i].n == 0)
            return (ref_result){REF_REJECT, i - 1};
        if (!process_set(e, i))
            return (ref_result){REF_ERROR, i};
    }
    bool done = eset_has(&e->sets[e->n], (eitem){item0 + 1, 0});
    return (ref_result){done ? REF_COMPLETE : REF_PREFIX, e->n};
}

ref_result ref_match(const ref_grammar *rg, const uint8_t *text, size_t n)
{
    earley e = {rg, text, n, calloc(n + 1, sizeof(eset)), calloc(n + 1, sizeof(bool))};
    ref_result r = {REF_ERROR, 0};
    if (e.sets && e.viable)
        r = run(&e);
    for (size_t i = 0; e.sets && i <= n; i++) {
        free(e.sets[i].v);
        free(e.sets[i].slots);
    }
    free(e.sets);
    free(e.viable);
    return r;
}

const char *ref_status_str(ref_status s)
{
    switch (s) {
    case REF_OK: return "ok";
    case REF_EMPTY_LANGUAGE: return "empty language";
    case REF_TOO_BIG: return "repetition bound too large";
    case REF_NOMEM: return "out of memory";
    }
    return "?";
}

const char *ref_verdict_str(ref_verdict v)
{
    switch (v) {
    case REF_COMPLETE: return "complete";
    case REF_PREFIX: return "prefix";
    case REF_REJECT: return "reject";
    case REF_ERROR: return "error";
    }
    return "?";
}
