/*
 * test_utf8.c — code point set normalization and UTF-8 range splitting,
 * checked by brute force: for edge-case and random sets, every code point's
 * encoding is matched by some sequence iff the code point is in the set, and
 * every byte string any sequence matches is the strict UTF-8 encoding of a
 * code point in the set (so no overlong forms, surrogates or stray bytes).
 * The matched strings are counted, which proves the sequences disjoint. For
 * a few sets every byte string of 1 to 3 bytes and every 4-byte string
 * starting with 0xF0..0xFF is tried as well. The decoder used as the oracle
 * is written here, independently of the code under test.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8_ranges.h"

#define NCP 0x110000u

/* ---- oracle ---------------------------------------------------------------- */

/* Strict decode of exactly `n` bytes: the code point, or -1 if the bytes
 * are not one well-formed UTF-8 sequence (Unicode 15, table 3-7). */
static long oracle_decode(const uint8_t *b, int n)
{
    static const struct { uint8_t lo0, hi0, lo1, hi1; int len; } rows[] = {
        {0x00, 0x7F, 0, 0, 1},       {0xC2, 0xDF, 0x80, 0xBF, 2}, {0xE0, 0xE0, 0xA0, 0xBF, 3},
        {0xE1, 0xEC, 0x80, 0xBF, 3}, {0xED, 0xED, 0x80, 0x9F, 3}, {0xEE, 0xEF, 0x80, 0xBF, 3},
        {0xF0, 0xF0, 0x90, 0xBF, 4}, {0xF1, 0xF3, 0x80, 0xBF, 4}, {0xF4, 0xF4, 0x80, 0x8F, 4},
    };
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
        if (b[0] < rows[r].lo0 || b[0] > rows[r].hi0)
            continue;
        if (n != rows[r].len)
            return -1;
        if (n == 1)
            return b[0];
        if (b[1] < rows[r].lo1 || b[1] > rows[r].hi1)
            return -1;
        long v = b[0] & (0x7F >> n);
        for (int k = 1; k < n; k++) {
            if ((b[k] & 0xC0) != 0x80)
                return -1;
            v = (v << 6) | (b[k] & 0x3F);
        }
        return v;
    }
    return -1;
}

/* ---- sets as bitmaps --------------------------------------------------------- */

typedef struct cpset {
    uint8_t in[NCP];
} cpset;

/* The set the ranges describe, negation and surrogate removal applied the
 * obvious way. */
static void reference_set(cpset *s, const gbnf_range *r, uint32_t n, bool negated)
{
    memset(s->in, negated, NCP);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t c = r[i].lo; c <= r[i].hi && c < NCP; c++)
            s->in[c] = !negated;
    memset(s->in + 0xD800, 0, 0x800);
}

static bool seq_matches(const utf8_seq *q, const uint8_t *b, int n)
{
    if (q->len != n)
        return false;
    for (int k = 0; k < n; k++)
        if (b[k] < q->lo[k] || b[k] > q->hi[k])
            return false;
    return true;
}

/* The sequences indexed by (length, first byte), so that trying a string
 * looks at the few sequences that can match it, not at all of them. */
#define BUCKET 32
typedef struct seq_index {
    const utf8_seq *q;
    uint8_t n[5][256];
    uint16_t ids[5][256][BUCKET];
} seq_index;

static void index_build(seq_index *ix, const utf8_seq *q, uint32_t nq)
{
    memset(ix, 0, sizeof *ix);
    ix->q = q;
    for (uint32_t i = 0; i < nq; i++) {
        ck_assert(q[i].len >= 1 && q[i].len <= 4);
        for (uint32_t b = q[i].lo[0]; b <= q[i].hi[0]; b++) {
            uint8_t *n = &ix->n[q[i].len][b];
            ck_assert_uint_lt(*n, BUCKET);
            ix->ids[q[i].len][b][(*n)++] = (uint16_t)i;
        }
    }
}

static bool any_matches(const seq_index *ix, const uint8_t *b, int n)
{
    for (uint32_t k = 0; k < ix->n[n][b[0]]; k++)
        if (seq_matches(&ix->q[ix->ids[n][b[0]][k]], b, n))
            return true;
    return false;
}

/* ---- the brute-force checks ----------------------------------------------------- */

/* Every code point: its encoding is matched iff it is in the set. */
static void check_every_code_point(const cpset *s, const seq_index *ix)
{
    for (uint32_t c = 0; c < NCP; c++) {
        uint8_t b[4];
        int n = gcg_utf8_encode(c, b);
        if (any_matches(ix, b, n) != (s->in[c] != 0))
            ck_abort_msg("U+%04X: matched %d, in set %d", c, !s->in[c], s->in[c]);
    }
}

/* Every string each sequence matches decodes to a code point of the set;
 * the total equals the set's size, so no string is matched twice. */
static void check_matched_strings(const cpset *s, const utf8_seq *q, uint32_t nq)
{
    uint64_t total = 0, size = 0;
    for (uint32_t c = 0; c < NCP; c++)
        size += s->in[c];
    for (uint32_t i = 0; i < nq; i++) {
        const utf8_seq *x = &q[i];
        ck_assert(x->len >= 1 && x->len <= 4);
        uint64_t count = 1;
        for (int k = 0; k < x->len; k++) {
            ck_assert_uint_le(x->lo[k], x->hi[k]);
            count *= (uint64_t)(x->hi[k] - x->lo[k] + 1);
        }
        ck_assert_uint_le(count, 1u << 21);
        uint8_t b[4];
        for (uint64_t m = 0; m < count; m++) {
            uint64_t r = m;
            for (int k = x->len - 1; k >= 0; k--) {
                uint32_t w = (uint32_t)(x->hi[k] - x->lo[k] + 1);
                b[k] = (uint8_t)(x->lo[k] + r % w);
                r /= w;
            }
            long c = oracle_decode(b, x->len);
            if (c < 0 || !s->in[c])
                ck_abort_msg("sequence %u matches a string that is not in the set (%ld)", i, c);
        }
        total += count;
    }
    ck_assert_uint_eq(total, size);
}

/* Sequences come out in code point order (the first byte strings of
 * consecutive sequences increase). */
static void check_order(const utf8_seq *q, uint32_t nq)
{
    for (uint32_t i = 1; i < nq; i++) {
        int a = q[i - 1].len, b = q[i].len;
        ck_assert(a < b || (a == b && memcmp(q[i - 1].hi, q[i].lo, (size_t)a) < 0));
    }
}

/* Normalizes, splits, checks; returns the number of sequences. */
static uint32_t check_set(const gbnf_range *r, uint32_t n, bool negated)
{
    static cpset s;
    static seq_index ix;
    gbnf_range *norm;
    utf8_seq *q;
    reference_set(&s, r, n, negated);
    uint32_t nn = gcg_cp_set_normalize(r, n, negated, &norm);
    ck_assert_ptr_nonnull(norm);
    for (uint32_t i = 0; i < nn; i++) {
        ck_assert_uint_le(norm[i].lo, norm[i].hi);
        ck_assert_uint_le(norm[i].hi, GBNF_MAX_CODEPOINT);
        ck_assert(norm[i].hi < 0xD800 || norm[i].lo > 0xDFFF);
        if (i)
            ck_assert_uint_gt(norm[i].lo, norm[i - 1].hi + 1); /* sorted, merged */
    }
    uint32_t nq = gcg_utf8_split(norm, nn, &q);
    ck_assert_ptr_nonnull(q);
    index_build(&ix, q, nq);
    check_every_code_point(&s, &ix);
    check_matched_strings(&s, q, nq);
    check_order(q, nq);
    free(norm);
    free(q);
    return nq;
}

/* ---- edge-case sets ------------------------------------------------------------- */

typedef struct set_case {
    gbnf_range r[4];
    uint32_t n;
    bool negated;
    uint32_t want_seqs; /* the sequence count the standard splitting gives */
} set_case;

static const set_case set_cases[] = {
    {{{0, 0x10FFFF}}, 1, false, 9},             /* "." */
    {{{0, 0}}, 0, true, 9},                     /* "[^]" */
    {{{0, 0}}, 0, false, 0},                    /* "[]" */
    {{{'a', 'z'}}, 1, false, 1},
    {{{'a', 'z'}}, 1, true, 10},
    {{{0x7F, 0x80}}, 1, false, 2},          /* U+7F/80 */
    {{{0x7FF, 0x800}}, 1, false, 2},            /* U+7FF/800 */
    {{{0xFFFF, 0x10000}}, 1, false, 2},         /* U+FFFF/10000 */
    {{{0x10FFFF, 0x10FFFF}}, 1, false, 1},
    {{{0x10FFFF, 0x10FFFF}}, 1, true, 11},
    {{{0xD7FF, 0xE000}}, 1, false, 2},          /* around the surrogates */
    {{{0xD800, 0xDFFF}}, 1, false, 0},          /* surrogates only */
    {{{0xD000, 0xDBFF}, {0xDC00, 0xE0FF}}, 2, false, 2},
    {{{0xD800, 0xDFFF}}, 1, true, 9},
    {{{0x80, 0x7FF}}, 1, false, 1},
    {{{0x81, 0x7FE}}, 1, false, 3},
    {{{0x800, 0xFFFF}}, 1, false, 4},
    {{{0x10000, 0x10FFFF}}, 1, false, 3},
    {{{0x10001, 0x10FFFE}}, 1, false, 7},
    {{{0x22, 0x22}, {0x5C, 0x5C}, {0x7F, 0x7F}, {0x00, 0x1F}}, 4, true, 11},
    {{{'z', 'z'}, {'a', 'm'}, {'c', 'x'}, {0x300000, 0x400000}}, 4, false, 2},
    {{{0, 0x7F}}, 1, true, 8},
    {{{0x1F600, 0x1F64F}}, 1, false, 2},
};

START_TEST(test_edge_set)
{
    const set_case *c = &set_cases[_i];
    ck_assert_uint_eq(check_set(c->r, c->n, c->negated), c->want_seqs);
}
END_TEST

/* xorshift64: deterministic random sets. */
static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Random endpoints, biased toward the interesting boundaries. */
static uint32_t random_cp(uint64_t *s)
{
    static const uint32_t edges[] = {0, 0x7F, 0x80, 0x7FF, 0x800, 0xFFF, 0x1000, 0xD7FF, 0xD800,
                                     0xDFFF, 0xE000, 0xFFFF, 0x10000, 0x3FFFF, 0x40000, 0x10FFFF};
    uint64_t x = next_rand(s);
    if (x % 3 == 0) {
        int64_t c = (int64_t)edges[(x >> 8) % 16] + (int64_t)((x >> 16) % 5) - 2;
        return c < 0 ? 0 : c > 0x10FFFF ? 0x10FFFF : (uint32_t)c;
    }
    if (x % 3 == 1)
        return (uint32_t)((x >> 8) % 0x800);
    return (uint32_t)((x >> 8) % NCP);
}

START_TEST(test_random_sets)
{
    uint64_t seed = 0x9E3779B97F4A7C15ull + (uint64_t)_i * 7919;
    gbnf_range r[6];
    uint32_t n = (uint32_t)(next_rand(&seed) % 7);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t a = random_cp(&seed), b = random_cp(&seed);
        r[k] = (gbnf_range){a < b ? a : b, a < b ? b : a};
    }
    check_set(r, n, next_rand(&seed) % 2);
}
END_TEST

/* Every 1..3-byte string, and every 4-byte string with a first byte of
 * 0xF0..0xFF and later bytes in 0x7F..0xC0 (the continuation bytes and
 * one more each side: check_matched_strings already shows that no sequence
 * matches a string with a non-continuation byte there), is matched iff it
 * is a valid encoding of a set member. */
static void exhaustive_strings(const gbnf_range *r, uint32_t n, bool negated)
{
    static cpset s;
    static seq_index ix;
    gbnf_range *norm;
    utf8_seq *q;
    reference_set(&s, r, n, negated);
    uint32_t nn = gcg_cp_set_normalize(r, n, negated, &norm);
    uint32_t nq = gcg_utf8_split(norm, nn, &q);
    index_build(&ix, q, nq);
    uint8_t b[4];
    for (int len = 1; len <= 4; len++) {
        const uint32_t w = 0xC0 - 0x7F + 1;
        uint32_t total = len == 4 ? 16u * w * w * w : 1u << (8 * len);
        for (uint32_t m = 0; m < total; m++) {
            if (len == 4) {
                b[0] = (uint8_t)(0xF0 + m / (w * w * w));
                b[1] = (uint8_t)(0x7F + m / (w * w) % w);
                b[2] = (uint8_t)(0x7F + m / w % w);
                b[3] = (uint8_t)(0x7F + m % w);
            } else {
                for (int k = 0; k < len; k++)
                    b[k] = (uint8_t)(m >> (8 * (len - 1 - k)));
            }
            long c = oracle_decode(b, len);
            bool want = c >= 0 && s.in[c];
            if (any_matches(&ix, b, len) != want)
                ck_abort_msg("%d-byte string %02X %02X %02X %02X: want %d", len, b[0], b[1], b[2],
                             b[3], want);
        }
    }
    free(norm);
    free(q);
}

START_TEST(test_exhaustive_any)
{
    const gbnf_range all = {0, 0x10FFFF};
    exhaustive_strings(&all, 1, false);
}
END_TEST

START_TEST(test_exhaustive_mixed)
{
    const gbnf_range r[] = {{0x41, 0x5A}, {0x7E, 0x123}, {0xD700, 0xE123}, {0xFFF0, 0x10123},
                            {0x10FF00, 0x10FFFF}};
    exhaustive_strings(r, 5, false);
    exhaustive_strings(r, 5, true);
}
END_TEST

/* ---- normalization, exact ------------------------------------------------------------ */

START_TEST(test_normalize_exact)
{
    const gbnf_range in[] = {{'x', 'z'}, {'a', 'c'}, {'d', 'f'}, {'b', 'b'}, {0xD000, 0xE000},
                             {0x10FFFF, 0xFFFFFFFF}, {0x200000, 0x300000}};
    gbnf_range *out;
    uint32_t n = gcg_cp_set_normalize(in, 7, false, &out);
    ck_assert_uint_eq(n, 5);
    const gbnf_range want[] = {{'a', 'f'}, {'x', 'z'}, {0xD000, 0xD7FF}, {0xE000, 0xE000},
                               {0x10FFFF, 0x10FFFF}};
    for (uint32_t i = 0; i < n; i++) {
        ck_assert_uint_eq(out[i].lo, want[i].lo);
        ck_assert_uint_eq(out[i].hi, want[i].hi);
    }
    free(out);

    n = gcg_cp_set_normalize(in, 4, true, &out);
    const gbnf_range want_neg[] = {{0, 0x60}, {'g', 'w'}, {'{', 0xD7FF}, {0xE000, 0x10FFFF}};
    ck_assert_uint_eq(n, 4);
    for (uint32_t i = 0; i < n; i++) {
        ck_assert_uint_eq(out[i].lo, want_neg[i].lo);
        ck_assert_uint_eq(out[i].hi, want_neg[i].hi);
    }
    free(out);

    n = gcg_cp_set_normalize(NULL, 0, false, &out);
    ck_assert_uint_eq(n, 0);
    ck_assert_ptr_nonnull(out); /* empty, not out of memory */
    free(out);
}
END_TEST

START_TEST(test_split_exact)
{
    /* U+0080..U+10FFFF minus nothing: the textbook table */
    const gbnf_range in[] = {{0, 0x10FFFF}};
    gbnf_range *norm;
    utf8_seq *q;
    uint32_t nn = gcg_cp_set_normalize(in, 1, false, &norm);
    ck_assert_uint_eq(gcg_utf8_split(norm, nn, &q), 9);
    static const uint8_t want[9][9] = {
        /* len, lo[0], hi[0], lo[1], hi[1], ... */
        {1, 0x00, 0x7F},
        {2, 0xC2, 0xDF, 0x80, 0xBF},
        {3, 0xE0, 0xE0, 0xA0, 0xBF, 0x80, 0xBF},
        {3, 0xE1, 0xEC, 0x80, 0xBF, 0x80, 0xBF},
        {3, 0xED, 0xED, 0x80, 0x9F, 0x80, 0xBF},
        {3, 0xEE, 0xEF, 0x80, 0xBF, 0x80, 0xBF},
        {4, 0xF0, 0xF0, 0x90, 0xBF, 0x80, 0xBF, 0x80, 0xBF},
        {4, 0xF1, 0xF3, 0x80, 0xBF, 0x80, 0xBF, 0x80, 0xBF},
        {4, 0xF4, 0xF4, 0x80, 0x8F, 0x80, 0xBF, 0x80, 0xBF},
    };
    for (int i = 0; i < 9; i++) {
        ck_assert_uint_eq(q[i].len, want[i][0]);
        for (int k = 0; k < q[i].len; k++) {
            ck_assert_uint_eq(q[i].lo[k], want[i][1 + 2 * k]);
            ck_assert_uint_eq(q[i].hi[k], want[i][2 + 2 * k]);
        }
    }
    free(norm);
    free(q);

    /* a single code point is one sequence of single-byte ranges */
    const gbnf_range e = {0xE9, 0xE9};
    ck_assert_uint_eq(gcg_utf8_split(&e, 1, &q), 1);
    ck_assert_uint_eq(q[0].len, 2);
    ck_assert_uint_eq(q[0].lo[0], 0xC3);
    ck_assert_uint_eq(q[0].hi[0], 0xC3);
    ck_assert_uint_eq(q[0].lo[1], 0xA9);
    ck_assert_uint_eq(q[0].hi[1], 0xA9);
    free(q);
}
END_TEST

START_TEST(test_encode)
{
    static const struct { uint32_t cp; int len; uint8_t b[4]; } cases[] = {
        {0x00, 1, {0x00}},
        {0x7F, 1, {0x7F}},
        {0x80, 2, {0xC2, 0x80}},
        {0x7FF, 2, {0xDF, 0xBF}},
        {0x800, 3, {0xE0, 0xA0, 0x80}},
        {0xD800, 3, {0xED, 0xA0, 0x80}},
        {0xFFFF, 3, {0xEF, 0xBF, 0xBF}},
        {0x10000, 4, {0xF0, 0x90, 0x80, 0x80}},
        {0x1F600, 4, {0xF0, 0x9F, 0x98, 0x80}},
        {0x10FFFF, 4, {0xF4, 0x8F, 0xBF, 0xBF}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint8_t b[4] = {0};
        ck_assert_int_eq(gcg_utf8_encode(cases[i].cp, b), cases[i].len);
        ck_assert_mem_eq(b, cases[i].b, (size_t)cases[i].len);
    }
    /* and every scalar value round-trips through the oracle */
    for (uint32_t c = 0; c < NCP; c++) {
        uint8_t b[4];
        int n = gcg_utf8_encode(c, b);
        if (c < 0xD800 || c > 0xDFFF)
            ck_assert_int_eq(oracle_decode(b, n), (long)c);
    }
}
END_TEST

/* The one decoder (GBNF sources, schema strings, patterns, trigger tags):
 * every scalar value back from its encoding, and 0 for what RFC 3629 bars. */
START_TEST(test_decode)
{
    for (uint32_t c = 0; c < NCP; c++) {
        uint8_t b[4];
        uint32_t got = UINT32_MAX;
        int n = gcg_utf8_encode(c, b);
        bool scalar = c < 0xD800 || c > 0xDFFF;
        ck_assert_int_eq(gcg_utf8_decode(b, (size_t)n, &got), scalar ? n : 0);
        if (scalar)
            ck_assert_uint_eq(got, c);
        if (n > 1) /* cut off */
            ck_assert_int_eq(gcg_utf8_decode(b, (size_t)n - 1, &got), 0);
    }
    static const struct { const char *s; size_t n; } bad[] = {
        {"\xC0\x80", 2},         /* overlong NUL    */
        {"\xE0\x80\xAF", 3},     /* overlong '/'    */
        {"\xF4\x90\x80\x80", 4}, /* above U+10FFFF  */
        {"\xF5\x80\x80\x80", 4}, /* no such lead    */
        {"\x80", 1},             /* stray follower  */
        {"\xC3\x28", 2},         /* bad follower    */
        {"", 0},                 /* nothing         */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        uint32_t got = 7;
        ck_assert_int_eq(gcg_utf8_decode((const uint8_t *)bad[i].s, bad[i].n, &got), 0);
        ck_assert_uint_eq(got, 7);
    }
}
END_TEST

static Suite *utf8_suite(void)
{
    Suite *s = suite_create("utf8");
    TCase *tc = tcase_create("split");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_edge_set, 0, sizeof set_cases / sizeof *set_cases);
    tcase_add_loop_test(tc, test_random_sets, 0, 24);
    tcase_add_test(tc, test_exhaustive_any);
    tcase_add_test(tc, test_exhaustive_mixed);
    suite_add_tcase(s, tc);
    tc = tcase_create("exact");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_normalize_exact);
    tcase_add_test(tc, test_split_exact);
    tcase_add_test(tc, test_encode);
    tcase_add_test(tc, test_decode);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(utf8_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
