/* lr_build.c — LR(0) automaton over byte classes, LALR(1) lookaheads by
 * propagation, and GLR action cells (see lr_build.h). */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../runtime/artifact_format.h"
#include "lr_build.h"

#define MAX_TABLE_CELLS (1u << 28) /* states * classes (the shift rows) */

typedef struct builder {
    const cfg *g;
    const byteclass *bc;
    gcg_diag *diag;
    uint32_t max_states;         /* the max_lr_states limit                      */
    gcg_status fail_st;          /* why state_for failed: limit or memory        */
    uint32_t C, T, N, W;        /* classes, terminals, nonterminals, lookahead words */
    cfg_index ix;
    /* items: item_base[p] + dot */
    uint32_t n_items;
    uint32_t *item_base, *item_prod, *item_dot;
    uint32_t *item_next;        /* per item: the symbol after the dot, or UINT32_MAX */
    uint64_t *first_after;      /* per item: FIRST of the symbols after the next one */
    bool *null_after;           /* per item: those symbols are all nullable          */
    bool *nullable;
    uint64_t *first;            /* per nonterminal: FIRST set (W words)              */
    /* states */
    uint32_t n_states, cap_states;
    uint32_t *kern_start, *kern_len, *clos_start, *clos_len;
    uint32_t *kern, n_kern, cap_kern;
    uint64_t *kern_la;          /* W words per kernel item */
    uint32_t *clos, n_clos, cap_clos, cap_goto_slot;
    uint32_t *goto_slot;        /* per closure entry with a nonterminal next: the
                                   kernel entry (index in kern) its goto makes,
                                   else UINT32_MAX; cap_clos entries            */
    uint32_t *kern_state;       /* per kernel entry: its state (lalr_lookaheads) */
    uint32_t *slot_of_item;     /* scratch of expand_state, per item            */
    uint32_t *shift;            /* n_states * C */
    /* gotos, one row per expanded state by ascending nonterminal (states are
     * expanded in order, so rows are appended): row s is go_nt/go_to
     * [go_start[s], go_start[s + 1]). Sparse, so memory stays linear. */
    uint32_t *go_start, *go_nt, *go_to, n_go, cap_go;
    uint32_t *accessing;
    uint32_t *htab, hcap;
    /* scratch */
    uint32_t *stamp, gen;
    uint64_t *nt_la;            /* W words per nonterminal */
    uint32_t *flow;             /* close_la's nullable-rest items (the longest closure) */
    uint8_t *dirty;             /* per state: kernel lookaheads grew since its
                                   last propagation                          */
    uint64_t *pairs;            /* (symbol << 32 | item) */
    uint64_t *pairs_tmp;        /* ... sort_pairs' scratch */
    uint32_t cap_pairs, cap_pairs_tmp;
} builder;

static bool la_or(uint64_t *dst, const uint64_t *src, uint32_t w)
{
    bool changed = false;
    for (uint32_t i = 0; i < w; i++) {
        uint64_t v = dst[i] | src[i];
        changed |= v != dst[i];
        dst[i] = v;
    }
    return changed;
}

/* The symbol after the item's dot, UINT32_MAX at its end: read from a table,
 * since every pass over a closure asks it of every item. */
static uint32_t next_sym(const builder *b, uint32_t item)
{
    return b->item_next[item];
}

static void *grow(void *p, uint32_t *cap, uint32_t need, size_t sz)
{
    if (need <= *cap)
        return p;
    uint32_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(p, (size_t)c * sz);
    if (q)
        *cap = c;
    return q;
}

/* ---- items, nullable, FIRST ------------------------------------------- */

static gcg_status make_items(builder *b)
{
    const cfg *g = b->g;
    b->item_base = malloc((size_t)g->n_prods * sizeof *b->item_base);
    if (!b->item_base)
        return GCG_ERR_NOMEM;
    for (uint32_t p = 0; p < g->n_prods; p++) {
        b->item_base[p] = b->n_items;
        b->n_items += g->prods[p].len + 1;
    }
    b->item_prod = malloc((size_t)b->n_items * sizeof *b->item_prod);
    b->item_dot = malloc((size_t)b->n_items * sizeof *b->item_dot);
    b->item_next = malloc((size_t)b->n_items * sizeof *b->item_next);
    b->slot_of_item = malloc((size_t)b->n_items * sizeof *b->slot_of_item);
    b->first_after = calloc((size_t)b->n_items * b->W, sizeof *b->first_after);
    b->null_after = malloc(b->n_items);
    if (!b->item_prod || !b->item_dot || !b->item_next || !b->slot_of_item || !b->first_after || !b->null_after)
        return GCG_ERR_NOMEM;
    for (uint32_t p = 0; p < g->n_prods; p++)
        for (uint32_t d = 0, it = b->item_base[p]; d <= g->prods[p].len; d++, it++) {
            b->item_prod[it] = p, b->item_dot[it] = d;
            b->item_next[it] = d < g->prods[p].len ? g->rhs[g->prods[p].rhs + d] : UINT32_MAX;
        }
    return GCG_OK;
}

/* FIRST of one symbol into dst; returns whether it is nullable. */
static bool first_of_sym(const builder *b, uint32_t s, uint64_t *dst)
{
    if (CFG_IS_TERM(s)) {
        const bset256 *cs = &b->bc->csets[CFG_INDEX(s)];
        for (uint32_t i = 0; i < b->W && i < 4; i++)
            dst[i] |= cs->w[i];
        return false;
    }
    la_or(dst, b->first + (size_t)s * b->W, b->W);
    return b->nullable[s];
}

static gcg_status make_first(builder *b)
{
    const cfg *g = b->g;
    b->nullable = malloc(b->N);
    b->first = calloc((size_t)b->N * b->W, sizeof *b->first);
    if (!b->nullable || !b->first)
        return GCG_ERR_NOMEM;
    cfg_nullable(g, b->nullable);
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t p = 0; p < g->n_prods; p++) {
            const cfg_prod *pr = &g->prods[p];
            uint64_t acc[5] = {0, 0, 0, 0, 0};
            for (uint32_t k = 0; k < pr->len && first_of_sym(b, g->rhs[pr->rhs + k], acc); k++)
                ;
            changed |= la_or(b->first + (size_t)pr->lhs * b->W, acc, b->W);
        }
        for (uint32_t i = 0; i < g->n_redirects; i++) { /* from enters a tail of copies of x */
            uint64_t acc[5] = {0, 0, 0, 0, 0};
            first_of_sym(b, g->redirects[i].x, acc);
            changed |= la_or(b->first + (size_t)g->redirects[i].from * b->W, acc, b->W);
        }
    }
    /* Per item A -> α . X β: FIRST(β) and whether β is nullable. */
    for (uint32_t it = 0; it < b->n_items; it++) {
        const cfg_prod *pr = &g->prods[b->item_prod[it]];
        uint32_t k = b->item_dot[it] + 1;
        bool nul = true;
        for (; k < pr->len && nul; k++)
            nul = first_of_sym(b, g->rhs[pr->rhs + k], b->first_after + (size_t)it * b->W);
        b->null_after[it] = nul;
    }
    return GCG_OK;
}

/* ---- LR(0) states ------------------------------------------------------ */

static uint64_t kernel_hash(const uint32_t *k, uint32_t n)
{
    return XXH3_64bits(k, (size_t)n * sizeof *k);
}

static bool rehash(builder *b)
{
    uint32_t cap = b->hcap ? b->hcap * 2 : 1024;
    uint32_t *t = malloc((size_t)cap * sizeof *t);
    if (!t)
        return false;
    memset(t, 0xff, (size_t)cap * sizeof *t);
    for (uint32_t s = 0; s < b->n_states; s++) {
        uint32_t h = (uint32_t)kernel_hash(b->kern + b->kern_start[s], b->kern_len[s]) & (cap - 1);
        while (t[h] != UINT32_MAX)
            h = (h + 1) & (cap - 1);
        t[h] = s;
    }
    free(b->htab);
    b->htab = t, b->hcap = cap;
    return true;
}

static bool add_state_rows(builder *b)
{
    uint32_t cap = b->cap_states;
    uint32_t need = b->n_states + 1;
    if (need <= cap)
        return true;
    uint32_t c = cap ? cap * 2 : 256;
    if ((uint64_t)c * b->C > MAX_TABLE_CELLS)
        c = need;
    if ((uint64_t)c * b->C > MAX_TABLE_CELLS)
        return false;
    uint32_t **arrs[] = {&b->kern_start, &b->kern_len, &b->clos_start, &b->clos_len, &b->accessing};
    uint32_t *gs = realloc(b->go_start, ((size_t)c + 1) * sizeof *gs);
    if (!gs)
        return false;
    b->go_start = gs;
    for (size_t i = 0; i < sizeof arrs / sizeof *arrs; i++) {
        uint32_t *q = realloc(*arrs[i], (size_t)c * sizeof **arrs[i]);
        if (!q)
            return false;
        *arrs[i] = q;
    }
    uint32_t *sh = realloc(b->shift, (size_t)c * b->C * sizeof *sh);
    if (!sh)
        return false;
    b->shift = sh;
    b->cap_states = c;
    return true;
}

/* The state with this kernel, made if new. UINT32_MAX on failure. */
static uint32_t state_for(builder *b, const uint32_t *k, uint32_t n, uint32_t accessing)
{
    if (2 * (b->n_states + 1) > b->hcap && !rehash(b))
        return UINT32_MAX;
    uint32_t h = (uint32_t)kernel_hash(k, n) & (b->hcap - 1);
    for (; b->htab[h] != UINT32_MAX; h = (h + 1) & (b->hcap - 1)) {
        uint32_t s = b->htab[h];
        if (b->kern_len[s] == n && memcmp(b->kern + b->kern_start[s], k, (size_t)n * sizeof *k) == 0)
            return s;
    }
    if (b->n_states >= b->max_states) {
        gcg_limit_error(b->diag, 0, 0, "grammar too large: too many LR states", b->max_states, "max-lr-states");
        b->fail_st = GCG_ERR_LIMIT;
        return UINT32_MAX;
    }
    if (!add_state_rows(b)) {
        b->fail_st = GCG_ERR_NOMEM;
        return UINT32_MAX;
    }
    uint32_t *kern = grow(b->kern, &b->cap_kern, b->n_kern + n, sizeof *kern);
    if (!kern)
        return UINT32_MAX;
    b->kern = kern;
    memcpy(b->kern + b->n_kern, k, (size_t)n * sizeof *k);
    uint32_t s = b->n_states++;
    b->kern_start[s] = b->n_kern, b->kern_len[s] = n;
    b->n_kern += n;
    b->accessing[s] = accessing;
    memset(b->shift + (size_t)s * b->C, 0xff, (size_t)b->C * sizeof *b->shift);
    b->htab[h] = s;
    return s;
}

/* Closure of state s: kernel items, then (p, 0) for every production of a
 * nonterminal that stands after a dot, transitively. */
static bool close_state(builder *b, uint32_t s)
{
    uint32_t start = b->n_clos;
    uint32_t *c = grow(b->clos, &b->cap_clos, start + b->kern_len[s], sizeof *c);
    if (!c)
        return false;
    b->clos = c;
    memcpy(b->clos + start, b->kern + b->kern_start[s], (size_t)b->kern_len[s] * sizeof *c);
    b->n_clos += b->kern_len[s];
    b->gen++;
    for (uint32_t i = start; i < b->n_clos; i++) {
        uint32_t x = next_sym(b, b->clos[i]);
        if (x == UINT32_MAX || CFG_IS_TERM(x) || b->stamp[x] == b->gen)
            continue;
        b->stamp[x] = b->gen;
        uint32_t np = b->ix.first[x + 1] - b->ix.first[x];
        c = grow(b->clos, &b->cap_clos, b->n_clos + np, sizeof *c);
        if (!c)
            return false;
        b->clos = c;
        for (uint32_t j = b->ix.first[x]; j < b->ix.first[x + 1]; j++)
            b->clos[b->n_clos++] = b->item_base[b->ix.list[j]];
    }
    b->clos_start[s] = start, b->clos_len[s] = b->n_clos - start;
    return true;
}

#define RADIX_BITS 11
#define RADIX_MIN 256 /* shorter lists: insertion sort (they come in sorted runs) */

/* Sorts v[0..n) ascending, tmp having room for n: by insertion when short,
 * else LSD radix on 11-bit digits, passing over the digits every key shares
 * (a closure's pairs name few symbols). A large closure's pairs sorted by
 * qsort cost a quarter of an LR build. */
static void sort_pairs(uint64_t *v, uint64_t *tmp, uint32_t n)
{
    if (n < RADIX_MIN) {
        for (uint32_t i = 1; i < n; i++) {
            uint64_t x = v[i];
            uint32_t j = i;
            for (; j > 0 && v[j - 1] > x; j--)
                v[j] = v[j - 1];
            v[j] = x;
        }
        return;
    }
    uint64_t any = 0, all = ~0ull, *src = v, *dst = tmp;
    for (uint32_t i = 0; i < n; i++)
        any |= v[i], all &= v[i];
    for (unsigned shift = 0; shift < 64; shift += RADIX_BITS) {
        uint64_t mask = (1ull << RADIX_BITS) - 1;
        if (!(((any ^ all) >> shift) & mask))
            continue;
        uint32_t at[1u << RADIX_BITS] = {0};
        for (uint32_t i = 0; i < n; i++)
            at[(src[i] >> shift) & mask]++;
        for (uint32_t d = 0, sum = 0; d < (1u << RADIX_BITS); d++) {
            uint32_t c = at[d];
            at[d] = sum, sum += c;
        }
        for (uint32_t i = 0; i < n; i++)
            dst[at[(src[i] >> shift) & mask]++] = src[i];
        uint64_t *t = src;
        src = dst, dst = t;
    }
    if (src != v)
        memcpy(v, src, (size_t)n * sizeof *v);
}

/* Pairs (symbol, advanced item) for the items of s, sorted; symbols are
 * classes 0..C-1 and nonterminals C..C+N-1. With `terms` false only the
 * nonterminals' (shift_by_mask takes the classes). */
static bool collect_pairs(builder *b, uint32_t s, bool terms, uint32_t *n_pairs)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < b->clos_len[s]; i++) {
        uint32_t it = b->clos[b->clos_start[s] + i], x = next_sym(b, it);
        if (x == UINT32_MAX || (CFG_IS_TERM(x) && !terms))
            continue;
        uint32_t need = n + (CFG_IS_TERM(x) ? b->C : 1);
        uint64_t *p = grow(b->pairs, &b->cap_pairs, need, sizeof *p);
        if (!p)
            return false;
        b->pairs = p;
        if (!CFG_IS_TERM(x)) {
            p[n++] = ((uint64_t)(b->C + x) << 32) | (it + 1);
            continue;
        }
        const bset256 *cs = &b->bc->csets[CFG_INDEX(x)];
        for (uint32_t c = 0; c < b->C; c++)
            if (bset_has(cs, c))
                p[n++] = ((uint64_t)c << 32) | (it + 1);
    }
    uint64_t *tmp = grow(b->pairs_tmp, &b->cap_pairs_tmp, n + 1, sizeof *tmp);
    if (!tmp)
        return false;
    b->pairs_tmp = tmp;
    sort_pairs(b->pairs, tmp, n);
    *n_pairs = n;
    return true;
}

#define MASK_ITEMS 64 /* items with a class next that shift_by_mask numbers */

/* The shifts of state s when at most MASK_ITEMS of its items have a class
 * next (false, and nothing done, when more have). Those items, numbered by
 * ascending item, form a bit mask per class (the items its shift advances),
 * and a class's kernel is its mask's items: classes with equal masks shift
 * into one state, found once. A key trie's state has one kernel for the
 * seventy-odd classes that leave the keys, where one sorted pair per class
 * and item, and a state lookup per class, cost a fifth of a Kubernetes
 * schema's LR build. Classes go in ascending order, so states are numbered
 * as they would be by pairs. */
static bool shift_by_mask(builder *b, uint32_t s, gcg_status *st)
{
    uint32_t items[MASK_ITEMS], n = 0, k[MASK_ITEMS];
    const bset256 *sets[MASK_ITEMS];
    for (uint32_t i = 0; i < b->clos_len[s]; i++) {
        uint32_t it = b->clos[b->clos_start[s] + i], x = next_sym(b, it), j = n;
        if (x == UINT32_MAX || !CFG_IS_TERM(x))
            continue;
        if (n == MASK_ITEMS)
            return false;
        for (; j > 0 && items[j - 1] > it + 1; j--) /* insertion: ascending items */
            items[j] = items[j - 1], sets[j] = sets[j - 1];
        items[j] = it + 1, sets[j] = &b->bc->csets[CFG_INDEX(x)], n++;
    }
    uint64_t mask[256], seen_mask[256];
    uint32_t seen_to[256], n_seen = 0;
    memset(mask, 0, sizeof mask);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t w = 0; w < 4; w++)
            for (uint64_t bits = sets[i]->w[w]; bits; bits &= bits - 1)
                mask[64 * w + (uint32_t)__builtin_ctzll(bits)] |= 1ull << i;
    for (uint32_t c = 0; c < b->C; c++) {
        if (!mask[c])
            continue;
        uint32_t j = 0, t, m = 0;
        while (j < n_seen && seen_mask[j] != mask[c])
            j++;
        if (j < n_seen) {
            t = seen_to[j];
        } else {
            for (uint64_t bits = mask[c]; bits; bits &= bits - 1)
                k[m++] = items[__builtin_ctzll(bits)];
            if ((t = state_for(b, k, m, CFG_TERM | c)) == UINT32_MAX) {
                *st = b->fail_st;
                return true;
            }
            seen_mask[n_seen] = mask[c], seen_to[n_seen++] = t;
        }
        b->shift[(size_t)s * b->C + c] = t;
    }
    return true;
}

/* Appends a goto to the row of the state being expanded. */
static bool add_goto(builder *b, uint32_t nt, uint32_t to)
{
    uint32_t cap = b->cap_go;
    uint32_t *a = grow(b->go_nt, &cap, b->n_go + 1, sizeof *a);
    if (!a)
        return false;
    b->go_nt = a;
    cap = b->cap_go;
    a = grow(b->go_to, &cap, b->n_go + 1, sizeof *a);
    if (!a)
        return false;
    b->go_to = a, b->cap_go = cap;
    b->go_nt[b->n_go] = nt, b->go_to[b->n_go++] = to;
    return true;
}

/* Where each closure entry of s with a nonterminal next goes by its goto:
 * the lookahead passes then follow these instead of looking the goto and
 * the kernel entry up for every entry of every closure. A closure holds
 * each item once, so the items' slots of expand_state name them. */
static gcg_status record_goto_slots(builder *b, uint32_t s)
{
    uint32_t cap = b->cap_clos, start = b->clos_start[s];
    if (cap > b->cap_goto_slot) {
        uint32_t *g = realloc(b->goto_slot, (size_t)cap * sizeof *g);
        if (!g)
            return GCG_ERR_NOMEM;
        b->goto_slot = g, b->cap_goto_slot = cap;
    }
    for (uint32_t i = 0; i < b->clos_len[s]; i++) {
        uint32_t it = b->clos[start + i], x = next_sym(b, it);
        b->goto_slot[start + i] = x != UINT32_MAX && !CFG_IS_TERM(x) ? b->slot_of_item[it + 1] : UINT32_MAX;
    }
    return GCG_OK;
}

static gcg_status expand_state(builder *b, uint32_t s)
{
    uint32_t n;
    gcg_status st = GCG_OK;
    if (!close_state(b, s))
        return GCG_ERR_NOMEM;
    bool by_mask = shift_by_mask(b, s, &st);
    if (st != GCG_OK)
        return st;
    if (!collect_pairs(b, s, !by_mask, &n))
        return GCG_ERR_NOMEM;
    uint32_t *k = malloc((size_t)(n ? n : 1) * sizeof *k);
    if (!k)
        return GCG_ERR_NOMEM;
    b->go_start[s] = b->n_go;
    for (uint32_t i = 0; i < n;) {
        uint32_t sym = (uint32_t)(b->pairs[i] >> 32), m = 0;
        for (; i < n && (uint32_t)(b->pairs[i] >> 32) == sym; i++)
            k[m++] = (uint32_t)b->pairs[i];
        uint32_t acc = sym < b->C ? (CFG_TERM | sym) : sym - b->C;
        uint32_t t = state_for(b, k, m, acc);
        if (t == UINT32_MAX) {
            free(k);
            return b->fail_st;
        }
        if (sym < b->C) {
            b->shift[(size_t)s * b->C + sym] = t;
            continue;
        }
        if (!add_goto(b, sym - b->C, t)) {
            free(k);
            return GCG_ERR_NOMEM;
        }
        for (uint32_t j = 0; j < m; j++) /* t's kernel is k, in this order */
            b->slot_of_item[k[j]] = b->kern_start[t] + j;
    }
    free(k);
    b->go_start[s + 1] = b->n_go;
    return record_goto_slots(b, s);
}

static gcg_status build_lr0(builder *b)
{
    uint32_t k0 = b->item_base[0]; /* start -> . root */
    if (state_for(b, &k0, 1, UINT32_MAX) == UINT32_MAX)
        return b->fail_st;
    for (uint32_t s = 0; s < b->n_states; s++) {
        gcg_status st = expand_state(b, s);
        if (st != GCG_OK)
            return st;
    }
    return GCG_OK;
}

/* ---- LALR(1) lookaheads ------------------------------------------------ */

/* Lookahead set of an item of state s (kernel: stored; closure: its lhs's). */
static uint64_t *item_la(builder *b, uint32_t s, uint32_t i)
{
    if (i < b->kern_len[s])
        return b->kern_la + (size_t)(b->kern_start[s] + i) * b->W;
    uint32_t it = b->clos[b->clos_start[s] + i];
    return b->nt_la + (size_t)b->g->prods[b->item_prod[it]].lhs * b->W;
}

/* Lookaheads of the closure nonterminals of s, to a local fixpoint. An item
 * gives the nonterminal after its dot FIRST of what follows it, once; only
 * the items whose rest is nullable pass their own lookaheads on, and they
 * alone (b->flow) are repeated until nothing grows: the same least fixpoint
 * without re-reading a large closure's every item per round. */
static void close_la(builder *b, uint32_t s)
{
    for (uint32_t i = b->kern_len[s], last = UINT32_MAX; i < b->clos_len[s]; i++) {
        uint32_t lhs = b->g->prods[b->item_prod[b->clos[b->clos_start[s] + i]]].lhs;
        if (lhs != last) /* a nonterminal's productions enter the closure together */
            memset(b->nt_la + (size_t)lhs * b->W, 0, b->W * sizeof(uint64_t)), last = lhs;
    }
    uint32_t n_flow = 0;
    for (uint32_t i = 0; i < b->clos_len[s]; i++) {
        uint32_t it = b->clos[b->clos_start[s] + i], x = next_sym(b, it);
        if (x == UINT32_MAX || CFG_IS_TERM(x))
            continue;
        la_or(b->nt_la + (size_t)x * b->W, b->first_after + (size_t)it * b->W, b->W);
        if (b->null_after[it])
            b->flow[n_flow++] = i;
    }
    for (bool changed = n_flow > 0; changed;) {
        changed = false;
        for (uint32_t k = 0; k < n_flow; k++) {
            uint32_t i = b->flow[k], x = next_sym(b, b->clos[b->clos_start[s] + i]);
            changed |= la_or(b->nt_la + (size_t)x * b->W, item_la(b, s, i), b->W);
        }
    }
}

static uint32_t kernel_index(const builder *b, uint32_t t, uint32_t item)
{
    const uint32_t *k = b->kern + b->kern_start[t];
    uint32_t lo = 0, hi = b->kern_len[t];
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (k[mid] < item)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool propagate_to(builder *b, uint32_t t, uint32_t item, const uint64_t *la)
{
    uint32_t k = kernel_index(b, t, item);
    bool grew = la_or(b->kern_la + (size_t)(b->kern_start[t] + k) * b->W, la, b->W);
    b->dirty[t] |= grew;
    return grew;
}

static bool propagate_state(builder *b, uint32_t s)
{
    bool changed = false;
    close_la(b, s);
    for (uint32_t i = 0; i < b->clos_len[s]; i++) {
        uint32_t it = b->clos[b->clos_start[s] + i], x = next_sym(b, it);
        if (x == UINT32_MAX)
            continue;
        const uint64_t *la = item_la(b, s, i);
        if (!CFG_IS_TERM(x)) {
            uint32_t slot = b->goto_slot[b->clos_start[s] + i];
            bool grew = la_or(b->kern_la + (size_t)slot * b->W, la, b->W);
            b->dirty[b->kern_state[slot]] |= grew;
            changed |= grew;
            continue;
        }
        uint32_t last = UINT32_MAX;
        for (uint32_t c = 0; c < b->C; c++) {
            uint32_t t = b->shift[(size_t)s * b->C + c];
            if (t != last && bset_has(&b->bc->csets[CFG_INDEX(x)], c)) {
                changed |= propagate_to(b, t, it + 1, la);
                last = t;
            }
        }
    }
    return changed;
}

/* Room for close_la's list: the longest closure. */
static gcg_status alloc_flow(builder *b)
{
    uint32_t most = 0;
    for (uint32_t s = 0; s < b->n_states; s++)
        most = b->clos_len[s] > most ? b->clos_len[s] : most;
    b->flow = malloc(((size_t)most + 1) * sizeof *b->flow);
    return b->flow ? GCG_OK : GCG_ERR_NOMEM;
}

static gcg_status lalr_lookaheads(builder *b)
{
    b->kern_la = calloc((size_t)b->n_kern * b->W, sizeof *b->kern_la);
    if (!b->kern_la)
        return GCG_ERR_NOMEM;
    b->kern_la[(b->T - 1) / 64] |= (uint64_t)1 << ((b->T - 1) % 64); /* start item: {$} */
    /* What a state propagates depends only on its kernel's lookaheads, so
     * a pass visits only the states whose lookaheads grew since their last
     * visit: the same least fixpoint, without redoing the states that
     * settled (most of them after the first pass). */
    b->dirty = malloc(b->n_states + 1);
    b->kern_state = malloc(((size_t)b->n_kern + 1) * sizeof *b->kern_state);
    if (!b->dirty || !b->kern_state)
        return GCG_ERR_NOMEM;
    for (uint32_t s = 0; s < b->n_states; s++)
        for (uint32_t i = 0; i < b->kern_len[s]; i++)
            b->kern_state[b->kern_start[s] + i] = s;
    memset(b->dirty, 1, b->n_states);
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t s = 0; s < b->n_states; s++)
            if (b->dirty[s]) {
                b->dirty[s] = 0;
                changed |= propagate_state(b, s);
            }
    }
    return GCG_OK;
}

/* ---- action cells ------------------------------------------------------ */

#define MAX_CELL_ACTIONS 64

typedef struct cell_acts {
    uint32_t a[MAX_CELL_ACTIONS];
    uint32_t n;
    bool overflow;
} cell_acts;

/* Adds a reduction unless one with the same lhs and length is there. */
static void add_reduce(const lr_tables *t, cell_acts *c, uint32_t p)
{
    for (uint32_t i = 0; i < c->n; i++) {
        uint32_t q = GCG_ACT_ARG(c->a[i]);
        if (GCG_ACT_KIND(c->a[i]) == GCG_ACT_REDUCE && t->prod_lhs[q] == t->prod_lhs[p] &&
            t->prod_len[q] == t->prod_len[p])
            return;
    }
    if (c->n < MAX_CELL_ACTIONS)
        c->a[c->n++] = GCG_ACT(GCG_ACT_REDUCE, p);
    else
        c->overflow = true;
}

static gcg_status emit_cell(lr_tables *t, uint32_t *cell, const cell_acts *c)
{
    if (c->overflow)
        return GCG_ERR_LIMIT;
    if (c->n <= 1) {
        *cell = c->n ? c->a[0] : GCG_ACT_ERROR;
        return GCG_OK;
    }
    bool has_shift = GCG_ACT_KIND(c->a[0]) == GCG_ACT_SHIFT;
    t->sr_conflicts += has_shift;
    t->rr_conflicts += c->n - has_shift > 1;
    uint32_t *m = realloc(t->multi, (size_t)(t->n_multi + 1 + c->n) * sizeof *m);
    if (!m)
        return GCG_ERR_NOMEM;
    t->multi = m;
    *cell = GCG_ACT(GCG_ACT_MULTI, t->n_multi);
    m[t->n_multi++] = c->n;
    memcpy(m + t->n_multi, c->a, c->n * sizeof *m);
    t->n_multi += c->n;
    return GCG_OK;
}

/* Whether a reduction of state s needs closure lookaheads (close_la): a
 * kernel item's are stored (item_la), and only an ε-production completes
 * outside the kernel. Most states have none, and skip the pass. */
static bool reduces_in_closure(const builder *b, uint32_t s)
{
    for (uint32_t i = b->kern_len[s]; i < b->clos_len[s]; i++)
        if (next_sym(b, b->clos[b->clos_start[s] + i]) == UINT32_MAX)
            return true;
    return false;
}

static gcg_status state_actions(builder *b, lr_tables *t, uint32_t s, cell_acts *cells)
{
    if (reduces_in_closure(b, s))
        close_la(b, s);
    for (uint32_t x = 0; x < b->T; x++) {
        cells[x].n = 0;
        cells[x].overflow = false;
        uint32_t to = x < b->C ? b->shift[(size_t)s * b->C + x] : UINT32_MAX;
        if (to != UINT32_MAX)
            cells[x].a[cells[x].n++] = GCG_ACT(GCG_ACT_SHIFT, to);
    }
    for (uint32_t i = 0; i < b->clos_len[s]; i++) {
        uint32_t it = b->clos[b->clos_start[s] + i];
        if (next_sym(b, it) != UINT32_MAX)
            continue;
        const uint64_t *la = item_la(b, s, i);
        for (uint32_t x = 0; x < b->T; x++)
            if ((la[x / 64] >> (x % 64)) & 1)
                add_reduce(t, &cells[x], b->item_prod[it]);
    }
    for (uint32_t x = 0; x < b->T; x++) {
        gcg_status st = emit_cell(t, &t->action[(size_t)s * b->T + x], &cells[x]);
        if (st == GCG_ERR_LIMIT)
            gcg_diag_add(b->diag, GCG_SEV_ERROR, 0, 0,
                         "more than %u conflicting reductions in LR state %u (limit)",
                         MAX_CELL_ACTIONS, s);
        if (st != GCG_OK)
            return st;
    }
    return GCG_OK;
}

static gcg_status make_tables(builder *b, lr_tables *t)
{
    const cfg *g = b->g;
    memset(t, 0, sizeof *t);
    t->n_states = b->n_states, t->n_terms = b->T, t->n_nts = b->N, t->n_prods = g->n_prods;
    t->action = malloc((size_t)b->n_states * b->T * sizeof *t->action);
    t->prod_lhs = malloc((size_t)g->n_prods * sizeof *t->prod_lhs);
    t->prod_len = malloc((size_t)g->n_prods * sizeof *t->prod_len);
    cell_acts *cells = malloc((size_t)b->T * sizeof *cells);
    if (!t->action || !t->prod_lhs || !t->prod_len || !cells) {
        free(cells);
        return GCG_ERR_NOMEM;
    }
    for (uint32_t p = 0; p < g->n_prods; p++)
        t->prod_lhs[p] = g->prods[p].lhs, t->prod_len[p] = g->prods[p].len;
    gcg_status st = GCG_OK;
    for (uint32_t s = 0; s < b->n_states && st == GCG_OK; s++)
        st = state_actions(b, t, s, cells);
    free(cells);
    if (st != GCG_OK)
        return st;
    /* The goto and accessing arrays move over as they are. */
    t->go_start = b->go_start, t->go_nt = b->go_nt, t->go_to = b->go_to, t->n_go = b->n_go;
    b->go_start = b->go_nt = b->go_to = NULL;
    t->accessing = b->accessing, b->accessing = NULL;
    return GCG_OK;
}

/* ---- redirects (cfg_redirect) ------------------------------------------- */

/* Adds action `a` to cell `cell` unless it is there (a shift stays first). */
static gcg_status cell_add(lr_tables *t, uint32_t *cell, uint32_t a)
{
    cell_acts c = {.n = 0};
    if (GCG_ACT_KIND(*cell) == GCG_ACT_MULTI) {
        const uint32_t *m = t->multi + GCG_ACT_ARG(*cell);
        for (uint32_t i = 1; i <= m[0]; i++)
            c.a[c.n++] = m[i];
        t->sr_conflicts -= GCG_ACT_KIND(c.a[0]) == GCG_ACT_SHIFT;
        t->rr_conflicts -= c.n - (GCG_ACT_KIND(c.a[0]) == GCG_ACT_SHIFT) > 1;
    } else if (*cell != GCG_ACT_ERROR) {
        c.a[c.n++] = *cell;
    }
    for (uint32_t i = 0; i < c.n; i++)
        if (c.a[i] == a)
            return GCG_OK;
    if (c.n == MAX_CELL_ACTIONS)
        return GCG_ERR_LIMIT;
    c.a[c.n++] = a;
    return emit_cell(t, cell, &c);
}

/* Each state with a goto on `from` takes the goto on `to` instead, and
 * reduces from -> ε on every class that state acts on: from there on, the
 * parse is the one that entered `to`. Such a state holds U -> . from and
 * U -> . T, so it has the goto on `to` (count_fold.h). */
static gcg_status apply_redirect(const cfg *g, lr_tables *t, const cfg_redirect *r, gcg_diag *diag)
{
    uint32_t p = 0;
    while (p < g->n_prods && g->prods[p].lhs != r->from)
        p++;
    gcg_status st = GCG_OK;
    for (uint32_t s = 0; s < t->n_states && st == GCG_OK; s++) {
        uint32_t to = lr_goto(t, s, r->to), k = t->go_start[s];
        while (k < t->go_start[s + 1] && t->go_nt[k] != r->from)
            k++;
        if (k == t->go_start[s + 1])
            continue;
        if (to == GCG_NO_GOTO || p == g->n_prods || g->prods[p].len != 0) {
            gcg_diag_add(diag, GCG_SEV_ERROR, 0, 0, "internal: LR state %u enters a shared tail it lacks", s);
            return GCG_ERR_ARG;
        }
        t->go_to[k] = to;
        for (uint32_t x = 0; x < t->n_terms && st == GCG_OK; x++)
            if (lr_action(t, to, x) != GCG_ACT_ERROR)
                st = cell_add(t, &t->action[(size_t)s * t->n_terms + x], GCG_ACT(GCG_ACT_REDUCE, p));
        if (st == GCG_ERR_LIMIT)
            gcg_diag_add(diag, GCG_SEV_ERROR, 0, 0, "more than %u conflicting actions in LR state %u (limit)",
                         MAX_CELL_ACTIONS, s);
    }
    return st;
}

static void builder_free(builder *b)
{
    cfg_index_free(&b->ix);
    void *ps[] = {b->item_base, b->item_prod, b->item_dot, b->item_next, b->goto_slot, b->kern_state,
                  b->slot_of_item, b->first_after, b->null_after, b->nullable,
                  b->first, b->kern_start, b->kern_len, b->clos_start, b->clos_len, b->kern,
                  b->kern_la, b->clos, b->shift, b->go_start, b->go_nt, b->go_to, b->accessing, b->htab, b->stamp, b->nt_la, b->flow,
                  b->pairs, b->pairs_tmp, b->dirty};
    for (size_t i = 0; i < sizeof ps / sizeof *ps; i++)
        free(ps[i]);
}

gcg_status gcg_lr_build(const cfg *g, const byteclass *bc, const gcg_limits *limits, lr_tables *out,
                        gcg_diag *diag)
{
    gcg_limits lim = gcg_limits_or_default(limits);
    builder b = {.g = g, .bc = bc, .diag = diag, .max_states = lim.max_lr_states, .fail_st = GCG_ERR_NOMEM};
    b.C = bc->n_classes, b.T = b.C + 1, b.N = g->n_nts, b.W = (b.T + 63) / 64;
    memset(out, 0, sizeof *out);
    gcg_status st = cfg_index_build(g, &b.ix);
    b.stamp = calloc(b.N ? b.N : 1, sizeof *b.stamp);
    b.nt_la = calloc((size_t)(b.N ? b.N : 1) * b.W, sizeof *b.nt_la);
    if (st == GCG_OK && (!b.stamp || !b.nt_la))
        st = GCG_ERR_NOMEM;
    if (st == GCG_OK)
        st = make_items(&b);
    if (st == GCG_OK)
        st = make_first(&b);
    if (st == GCG_OK)
        st = build_lr0(&b);
    if (st == GCG_OK)
        st = alloc_flow(&b);
    if (st == GCG_OK)
        st = lalr_lookaheads(&b);
    if (st == GCG_OK)
        st = make_tables(&b, out);
    for (uint32_t i = 0; i < g->n_redirects && st == GCG_OK; i++)
        st = apply_redirect(g, out, &g->redirects[i], diag);
    builder_free(&b);
    if (st != GCG_OK)
        gcg_lr_free(out);
    return st;
}

void gcg_lr_free(lr_tables *t)
{
    free(t->action), free(t->multi), free(t->prod_lhs), free(t->prod_len);
    free(t->go_start), free(t->go_nt), free(t->go_to);
    free(t->accessing);
    memset(t, 0, sizeof *t);
}
