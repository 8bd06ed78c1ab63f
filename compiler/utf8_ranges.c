/*
 * utf8_ranges.c — code point sets as disjoint UTF-8 byte-range sequences.
 *
 * gcg_cp_set_normalize sorts, merges, negates over U+0000..U+10FFFF and
 * drops surrogates; gcg_utf8_split then turns each range into the byte-range
 * sequences that encode exactly it (the splitting of Rust's utf8-ranges and
 * RE2's compiler): first at the encoding-length boundaries U+7F/U+7FF/U+FFFF,
 * then where the continuation bytes stop being full 0x80..0xBF ranges, so
 * every piece is a Cartesian product of byte ranges. Output is in code point
 * order. gcg_utf8_split expects normalized input (sorted, disjoint, no
 * surrogates); it clips surrogates and values above U+10FFFF regardless.
 *
 * Allocation failure: both functions then return 0 with *out == NULL. An
 * empty result is a non-NULL allocation, so callers tell the two apart.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "utf8_ranges.h"

#define SURR_LO 0xD800u
#define SURR_HI 0xDFFFu

/* ---- normalization ---------------------------------------------------- */

static int range_cmp(const void *a, const void *b)
{
    const gbnf_range *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return (x->hi > y->hi) - (x->hi < y->hi);
}

/* Copies the usable part of each range (clipped to U+10FFFF, empty ones
 * dropped), sorts by start and merges overlapping or adjacent ranges in
 * place. Returns the count. */
static uint32_t sort_merge(const gbnf_range *in, uint32_t n, gbnf_range *v)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t hi = in[i].hi > GBNF_MAX_CODEPOINT ? GBNF_MAX_CODEPOINT : in[i].hi;
        if (in[i].lo <= hi)
            v[k++] = (gbnf_range){in[i].lo, hi};
    }
    if (k == 0)
        return 0;
    qsort(v, k, sizeof *v, range_cmp);
    uint32_t m = 0;
    for (uint32_t i = 1; i < k; i++) {
        if (v[i].lo <= v[m].hi + 1) { /* hi <= 0x10FFFF, so +1 cannot wrap */
            if (v[i].hi > v[m].hi)
                v[m].hi = v[i].hi;
        } else {
            v[++m] = v[i];
        }
    }
    return m + 1;
}

/* Complement of sorted disjoint ranges over U+0000..U+10FFFF; `out` has room
 * for n + 1 ranges. */
static uint32_t complement(const gbnf_range *v, uint32_t n, gbnf_range *out)
{
    uint32_t k = 0, next = 0; /* first code point not yet covered */
    for (uint32_t i = 0; i < n; i++) {
        if (v[i].lo > next)
            out[k++] = (gbnf_range){next, v[i].lo - 1};
        next = v[i].hi + 1;
    }
    if (next <= GBNF_MAX_CODEPOINT)
        out[k++] = (gbnf_range){next, GBNF_MAX_CODEPOINT};
    return k;
}

/* Removes U+D800..U+DFFF from sorted disjoint ranges in place. At most one
 * range spans the whole block and is cut in two, so `v` needs room for
 * n + 1; every range after it lies above the block. */
static uint32_t drop_surrogates(gbnf_range *v, uint32_t n)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        gbnf_range r = v[i];
        if (r.hi < SURR_LO || r.lo > SURR_HI) {
            v[k++] = r;
        } else if (r.lo < SURR_LO && r.hi > SURR_HI) {
            memmove(&v[k + 2], &v[i + 1], (n - i - 1) * sizeof *v);
            v[k] = (gbnf_range){r.lo, SURR_LO - 1};
            v[k + 1] = (gbnf_range){SURR_HI + 1, r.hi};
            return k + 2 + (n - i - 1);
        } else if (r.lo < SURR_LO) {
            v[k++] = (gbnf_range){r.lo, SURR_LO - 1};
        } else if (r.hi > SURR_HI) {
            v[k++] = (gbnf_range){SURR_HI + 1, r.hi};
        }
    }
    return k;
}

uint32_t gcg_cp_set_normalize(const gbnf_range *in, uint32_t n, bool negated, gbnf_range **out)
{
    /* n + 2: one more for the complement, one more for the surrogate split */
    gbnf_range *v = malloc(((size_t)n + 2) * sizeof *v);
    gbnf_range *w = negated ? malloc(((size_t)n + 2) * sizeof *w) : NULL;
    *out = NULL;
    if (!v || (negated && !w)) {
        free(v);
        free(w);
        return 0;
    }
    uint32_t k = sort_merge(in, n, v);
    if (negated) {
        k = complement(v, k, w);
        free(v);
        v = w;
    }
    *out = v;
    return drop_surrogates(v, k);
}

/* ---- splitting -------------------------------------------------------- */

typedef struct seq_vec {
    utf8_seq *v;
    uint32_t n, cap;
    bool nomem;
} seq_vec;

static void seq_push(seq_vec *sv, uint32_t lo, uint32_t hi)
{
    if (sv->nomem)
        return;
    if (sv->n == sv->cap) {
        uint32_t cap = sv->cap ? sv->cap * 2 : 16;
        utf8_seq *v = realloc(sv->v, cap * sizeof *v);
        if (!v) {
            sv->nomem = true;
            return;
        }
        sv->v = v;
        sv->cap = cap;
    }
    uint8_t a[4], b[4];
    int len = gcg_utf8_encode(lo, a);
    gcg_utf8_encode(hi, b);
    utf8_seq *s = &sv->v[sv->n++];
    memset(s, 0, sizeof *s);
    s->len = (uint8_t)len;
    for (int i = 0; i < len; i++) {
        s->lo[i] = a[i];
        s->hi[i] = b[i];
    }
}

/* The first code point of the right part where [lo, hi] must be cut, or
 * 0 when it is already one Cartesian product of byte ranges. Cuts fall after
 * U+7F, U+7FF, U+FFFF (length changes); an ASCII piece is one byte range;
 * otherwise, for each trailing block of 6*i bits, lo must start a block and
 * hi end one unless both lie in the same block. */
static uint32_t split_point(uint32_t lo, uint32_t hi)
{
    static const uint32_t len_max[] = {0x7F, 0x7FF, 0xFFFF};
    for (int i = 0; i < 3; i++)
        if (lo <= len_max[i] && hi > len_max[i])
            return len_max[i] + 1;
    if (hi <= 0x7F)
        return 0;
    for (int i = 1; i <= 3; i++) {
        uint32_t m = (1u << (6 * i)) - 1;
        if ((lo & ~m) == (hi & ~m))
            continue;
        if ((lo & m) != 0)
            return (lo | m) + 1;
        if ((hi & m) != m)
            return hi & ~m;
    }
    return 0;
}

/* Splits one range with an explicit stack. Each cut leaves one pending
 * right part and keeps cutting the left one, at most once per kind of cut
 * (3 length boundaries, 2 per block size), so 16 entries are plenty. */
static void split_range(seq_vec *sv, uint32_t lo, uint32_t hi)
{
    gbnf_range stack[16];
    int top = 0;
    stack[top++] = (gbnf_range){lo, hi};
    while (top > 0) {
        gbnf_range r = stack[--top];
        uint32_t cut = split_point(r.lo, r.hi);
        if (cut == 0) {
            seq_push(sv, r.lo, r.hi);
            continue;
        }
        stack[top++] = (gbnf_range){cut, r.hi}; /* right part after the left */
        stack[top++] = (gbnf_range){r.lo, cut - 1};
    }
}

uint32_t gcg_utf8_split(const gbnf_range *ranges, uint32_t n, utf8_seq **out)
{
    seq_vec sv = {0};
    *out = NULL;
    for (uint32_t i = 0; i < n && !sv.nomem; i++) {
        uint32_t lo = ranges[i].lo;
        uint32_t hi = ranges[i].hi > GBNF_MAX_CODEPOINT ? GBNF_MAX_CODEPOINT : ranges[i].hi;
        if (lo > hi)
            continue;
        if (lo < SURR_LO)
            split_range(&sv, lo, hi < SURR_LO ? hi : SURR_LO - 1);
        if (hi > SURR_HI)
            split_range(&sv, lo > SURR_HI ? lo : SURR_HI + 1, hi);
    }
    if (!sv.nomem && !sv.v)
        sv.v = malloc(sizeof *sv.v); /* empty but non-NULL: not an OOM */
    if (sv.nomem || !sv.v) {
        free(sv.v);
        return 0;
    }
    *out = sv.v;
    return sv.n;
}

int gcg_utf8_encode(uint32_t cp, uint8_t out[4])
{
    if (cp < 0x80) {
        out[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xC0 | (cp >> 6));
        out[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xE0 | (cp >> 12));
        out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | ((cp >> 18) & 0x07));
    out[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

/* Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above
 * U+10FFFF. */
uint8_t gcg_utf8_next(uint8_t st, uint8_t b)
{
    bool cont = b >= 0x80 && b <= 0xBF;
    switch (st) {
    case GCG_U8_START:
        if (b < 0x80)
            return GCG_U8_START;
        if (b >= 0xC2 && b <= 0xDF)
            return GCG_U8_NEED1;
        if (b == 0xE0)
            return GCG_U8_E0;
        if (b == 0xED)
            return GCG_U8_ED;
        if (b >= 0xE1 && b <= 0xEF)
            return GCG_U8_NEED2;
        if (b == 0xF0)
            return GCG_U8_F0;
        if (b == 0xF4)
            return GCG_U8_F4;
        return b >= 0xF1 && b <= 0xF3 ? GCG_U8_NEED3 : GCG_U8_BAD;
    case GCG_U8_NEED1:
    case GCG_U8_NEED2:
    case GCG_U8_NEED3:
        return cont ? (uint8_t)(st - 1) : GCG_U8_BAD;
    case GCG_U8_E0:
        return b >= 0xA0 && b <= 0xBF ? GCG_U8_NEED1 : GCG_U8_BAD;
    case GCG_U8_ED:
        return b >= 0x80 && b <= 0x9F ? GCG_U8_NEED1 : GCG_U8_BAD;
    case GCG_U8_F0:
        return b >= 0x90 && b <= 0xBF ? GCG_U8_NEED2 : GCG_U8_BAD;
    case GCG_U8_F4:
        return b >= 0x80 && b <= 0x8F ? GCG_U8_NEED2 : GCG_U8_BAD;
    default:
        return GCG_U8_BAD;
    }
}

/* The value bits of a lead byte the decoder accepted: 0xxxxxxx, 110xxxxx,
 * 1110xxxx or 11110xxx. */
static uint32_t lead_bits(uint8_t b)
{
    return b < 0x80 ? b : b < 0xE0 ? b & 0x1Fu : b < 0xF0 ? b & 0x0Fu : b & 0x07u;
}

/* The decoder's table decides well-formedness (overlong forms, surrogates
 * and values past U+10FFFF never reach a boundary), so the value is only
 * assembled. */
int gcg_utf8_decode(const uint8_t *s, size_t n, uint32_t *cp)
{
    uint8_t st = GCG_U8_START;
    uint32_t v = 0;
    for (size_t k = 0; k < n && k < 4; k++) {
        st = gcg_utf8_next(st, s[k]);
        if (st == GCG_U8_BAD)
            return 0;
        v = k ? v << 6 | (s[k] & 0x3Fu) : lead_bits(s[0]);
        if (st == GCG_U8_START) {
            *cp = v;
            return (int)k + 1;
        }
    }
    return 0; /* cut off */
}
