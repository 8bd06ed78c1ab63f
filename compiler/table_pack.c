/* table_pack.c — row displacement with check tags (Tarjan and Yao, "Storing
 * a sparse table", CACM 1979; the packing yacc and lemon use): rows, most
 * entries first, go to the first base where all their entries land on free
 * slots.
 *
 * The search tests 64 bases at a time (a bit per base, one shifted word of
 * the occupancy per column). When none fits, it skips ahead: a column that
 * lands on a busy slot keeps landing on busy slots until the end of that
 * occupied run (found by a union-find over occupied runs), so every base
 * before the run's end fails and none is tried. A search that jumps only by
 * the first column stalls where many rows share a column far from their
 * first (a schema grammar's gotos on one list nonterminal: 12k columns,
 * thousands of rows): their first columns found free slots that the shared
 * column's run then refused, and after a fixed number of tries each row went
 * past the used slots, 58M slots for 34k entries. Skipping by the column that
 * collides finds the first fit there in a few windows. A search that still
 * tries MAX_WINDOWS windows puts the row just past the used slots, the first
 * base that always fits, so packing stays linear in the number of entries.
 *
 * Rows with the same columns (a counted repetition's states differ only in
 * their targets) fail at the same bases, and slots only ever fill: a search
 * resumes after the base where the last one of its column pattern went. */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "table_pack.h"

#define MAX_WINDOWS 256 /* windows of 64 bases tried per row before appending it */

typedef struct packer {
    const uint32_t *start, *cols, *vals;
    gcg_disp_slot *slots;
    uint32_t *next;          /* per slot: itself when free, else a slot
                                further on towards the next free one       */
    uint64_t *occ;           /* per slot: one bit, set when occupied       */
    uint64_t cap, used;      /* slots allocated; past the last occupied one */
    uint32_t *pat;           /* column patterns: open addressing, a row each */
    uint64_t pat_cap;
    uint64_t *resume;        /* per pattern's row: no base below this fits
                                the pattern                                  */
} packer;

static uint32_t row_len(const packer *p, uint32_t r)
{
    return p->start[r + 1] - p->start[r];
}

static bool same_row(const packer *p, uint32_t a, uint32_t b)
{
    uint32_t n = row_len(p, a);
    return n == row_len(p, b) &&
           memcmp(p->cols + p->start[a], p->cols + p->start[b], (size_t)n * 4) == 0 &&
           memcmp(p->vals + p->start[a], p->vals + p->start[b], (size_t)n * 4) == 0;
}

static uint64_t row_hash(const packer *p, uint32_t r)
{
    uint32_t n = row_len(p, r);
    return XXH3_64bits_withSeed(p->cols + p->start[r], (size_t)n * 4,
                                XXH3_64bits(p->vals + p->start[r], (size_t)n * 4));
}

/* rep[r]: the first row equal to r (open addressing over row hashes). */
static bool share_rows(const packer *p, uint32_t n_rows, uint32_t *rep)
{
    uint64_t cap = 16;
    while (cap < 2 * (uint64_t)n_rows)
        cap *= 2;
    uint32_t *h = malloc(cap * sizeof *h);
    if (!h)
        return false;
    memset(h, 0xff, cap * sizeof *h);
    for (uint32_t r = 0; r < n_rows; r++) {
        uint64_t i = row_hash(p, r) & (cap - 1);
        while (h[i] != UINT32_MAX && !same_row(p, h[i], r))
            i = (i + 1) & (cap - 1);
        if (h[i] == UINT32_MAX)
            h[i] = r;
        rep[r] = h[i];
    }
    free(h);
    return true;
}

static bool reserve(packer *p, uint64_t need)
{
    if (need <= p->cap)
        return true;
    uint64_t c = p->cap ? p->cap : 256;
    while (c < need)
        c *= 2;
    if (c > UINT32_MAX)
        return false;
    gcg_disp_slot *s = realloc(p->slots, c * sizeof *s);
    if (s)
        p->slots = s;
    uint32_t *nx = realloc(p->next, c * sizeof *nx);
    if (nx)
        p->next = nx;
    uint64_t *oc = realloc(p->occ, (c / 64 + 2) * sizeof *oc);
    if (oc) {
        memset(oc + (p->cap ? p->cap / 64 + 2 : 0), 0, (c / 64 + 2 - (p->cap ? p->cap / 64 + 2 : 0)) * sizeof *oc);
        p->occ = oc;
    }
    if (!s || !nx || !oc)
        return false;
    for (uint64_t i = p->cap; i < c; i++)
        s[i] = (gcg_disp_slot){GCG_DISP_FREE, 0}, nx[i] = (uint32_t)i;
    p->cap = c;
    return true;
}

/* The occupancy of slots [x, x + 64), bit i for slot x + i (slots past the
 * allocation are free). */
static uint64_t occ_window(const packer *p, uint64_t x)
{
    uint64_t w = x / 64, sh = x % 64, words = p->cap ? p->cap / 64 + 2 : 0;
    uint64_t lo = w < words ? p->occ[w] : 0, hi = w + 1 < words ? p->occ[w + 1] : 0;
    return sh ? lo >> sh | hi << (64 - sh) : lo;
}

/* The first free slot at or after s (path halving over occupied runs). */
static uint64_t free_from(packer *p, uint64_t s)
{
    while (s < p->cap && p->next[s] != s) {
        uint32_t up = p->next[s];
        if (up < p->cap)
            p->next[s] = p->next[up];
        s = up;
    }
    return s;
}

static bool busy(const packer *p, uint64_t x)
{
    return x < p->cap && (p->occ[x / 64] >> (x % 64) & 1);
}

/* Moves b past bases that fail: where a column lands inside an occupied
 * run, every base up to the run's end puts it on a busy slot, so b jumps
 * there. One pass over the columns (a later jump may land an earlier
 * column on a busy slot again: the window test sees it). */
static uint64_t skip(packer *p, const uint32_t *col, uint32_t n, uint64_t b)
{
    for (uint32_t k = 0; k < n; k++)
        if (busy(p, b + col[k]))
            b = free_from(p, b + col[k]) - col[k];
    return b;
}

/* The base of row r: the first at which all its columns land on free slots,
 * searched from *from; `limit`, the base that puts the first column just
 * past the used slots, always fits. *from is left past every base known not
 * to fit a row of r's columns. */
static uint64_t find_base(packer *p, uint32_t r, uint64_t *from)
{
    const uint32_t *col = p->cols + p->start[r];
    uint32_t n = row_len(p, r);
    uint64_t limit = p->used > col[0] ? p->used - col[0] : 0, b = skip(p, col, n, *from);
    for (uint32_t w = 0; b < limit && w < MAX_WINDOWS; w++, b = skip(p, col, n, b + 64)) {
        uint64_t fit = ~0ull;
        for (uint32_t k = 0; k < n && fit; k++)
            fit &= ~occ_window(p, b + col[k]);
        if (fit) {
            uint64_t at = b + (uint64_t)__builtin_ctzll(fit);
            at = at < limit ? at : limit;
            *from = at + 1;
            return at;
        }
    }
    /* b at the limit: every base below failed and the limit is the first
     * fit; else the search gave up and bases from b on are still untried */
    *from = b < limit ? b : limit + 1;
    return limit;
}

static bool place(packer *p, uint32_t r, uint64_t base)
{
    uint32_t last = p->cols[p->start[r + 1] - 1];
    if (!reserve(p, base + last + 2))
        return false;
    for (uint32_t k = p->start[r]; k < p->start[r + 1]; k++) {
        p->slots[base + p->cols[k]] = (gcg_disp_slot){r, p->vals[k]};
        p->next[base + p->cols[k]] = (uint32_t)(base + p->cols[k] + 1);
        p->occ[(base + p->cols[k]) / 64] |= 1ull << ((base + p->cols[k]) % 64);
    }
    if (base + last + 1 > p->used)
        p->used = base + last + 1;
    return true;
}

static bool same_cols(const packer *p, uint32_t a, uint32_t b)
{
    uint32_t n = row_len(p, a);
    return n == row_len(p, b) && memcmp(p->cols + p->start[a], p->cols + p->start[b], (size_t)n * 4) == 0;
}

/* Where row r's search may start: the base kept for the first row with its
 * columns (r itself when it is the first, starting from 0). */
static uint64_t *resume_of(packer *p, uint32_t r)
{
    uint64_t i = XXH3_64bits(p->cols + p->start[r], (size_t)row_len(p, r) * 4) & (p->pat_cap - 1);
    while (p->pat[i] != UINT32_MAX && !same_cols(p, p->pat[i], r))
        i = (i + 1) & (p->pat_cap - 1);
    if (p->pat[i] == UINT32_MAX)
        p->pat[i] = r, p->resume[r] = 0;
    return &p->resume[p->pat[i]];
}

/* Distinct rows by descending length (ties by index, for a stable layout). */
static int by_len_desc(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static gcg_status pack_rows(packer *p, uint32_t n_rows, const uint32_t *rep, uint64_t *base)
{
    uint64_t *order = malloc(((size_t)n_rows + 1) * sizeof *order);
    p->pat_cap = 16;
    while (p->pat_cap < 2 * (uint64_t)n_rows)
        p->pat_cap *= 2;
    p->pat = malloc(p->pat_cap * sizeof *p->pat);
    p->resume = malloc(((size_t)n_rows + 1) * sizeof *p->resume);
    if (!order || !p->pat || !p->resume) {
        free(order);
        return GCG_ERR_NOMEM;
    }
    memset(p->pat, 0xff, p->pat_cap * sizeof *p->pat);
    uint32_t n = 0;
    for (uint32_t r = 0; r < n_rows; r++)
        if (rep[r] == r)
            order[n++] = ((uint64_t)(UINT32_MAX - row_len(p, r)) << 32) | r;
    qsort(order, n, sizeof *order, by_len_desc);
    gcg_status st = GCG_OK;
    for (uint32_t i = 0; i < n && st == GCG_OK; i++) {
        uint32_t r = (uint32_t)order[i];
        base[r] = row_len(p, r) ? find_base(p, r, resume_of(p, r)) : 0;
        if (row_len(p, r) && !place(p, r, base[r]))
            st = GCG_ERR_LIMIT;
    }
    free(order);
    return st;
}

gcg_status gcg_disp_pack(uint32_t n_rows, uint32_t width, const uint32_t *start, const uint32_t *cols,
                         const uint32_t *vals, disp_table *out)
{
    memset(out, 0, sizeof *out);
    packer p = {.start = start, .cols = cols, .vals = vals};
    uint32_t *rep = malloc(((size_t)n_rows + 1) * sizeof *rep);
    uint64_t *base = malloc(((size_t)n_rows + 1) * sizeof *base);
    out->rows = malloc(((size_t)n_rows + 1) * sizeof *out->rows);
    gcg_status st = rep && base && out->rows && share_rows(&p, n_rows, rep) ? GCG_OK : GCG_ERR_NOMEM;
    if (st == GCG_OK)
        st = pack_rows(&p, n_rows, rep, base);
    /* Every row's base + width stays inside: lookups need no bounds test. */
    uint64_t n_slots = p.used;
    for (uint32_t r = 0; st == GCG_OK && r < n_rows; r++)
        if (base[rep[r]] + width > n_slots)
            n_slots = base[rep[r]] + width;
    if (st == GCG_OK && !reserve(&p, n_slots))
        st = GCG_ERR_LIMIT;
    if (st == GCG_OK) {
        for (uint32_t r = 0; r < n_rows; r++)
            out->rows[r] = (gcg_disp_row){(uint32_t)base[rep[r]], rep[r]};
        out->n_rows = n_rows, out->width = width, out->n_slots = (uint32_t)n_slots;
        out->slots = p.slots, p.slots = NULL;
    } else {
        free(out->rows);
        out->rows = NULL;
    }
    free(p.slots), free(p.next), free(p.occ), free(p.pat), free(p.resume), free(rep), free(base);
    return st;
}

void gcg_disp_free(disp_table *t)
{
    free(t->rows), free(t->slots);
    memset(t, 0, sizeof *t);
}
