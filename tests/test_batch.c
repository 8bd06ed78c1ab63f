/*
 * test_batch.c — the batch calls (gcg.h section 6) against the single calls:
 *
 *   - gcg_batch_fill_masks gives, row by row, exactly gcg_matcher_fill_mask's
 *     words, with the words past each matcher's mask zeroed, for matchers of
 *     two artifacts (256 and 301 tokens) mixed in one batch, B = 0, 1, 257,
 *     on the caller (pool NULL) and on pools of 1, 2 and 4 threads;
 *   - gcg_batch_commit leaves every matcher as the single commits do;
 *   - a refused token in one row leaves that matcher unchanged and the other
 *     rows committed; the return value is the lowest failed row's status;
 *   - a NULL matcher or a short row is GCG_ERR_ARG for that row only.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "gcg.h"
#include "gcgc.h"

#define ROW 12        /* words per row: more than either artifact needs */
#define GARBAGE 0xA5A5A5A5u

/* Digits between "a" and "b"; the single-byte vocabulary, no EOS. */
static const char AB[] = "root ::= \"a\" [0-9]+ \"b\"\n";
/* A list of x and y; the single bytes plus EOS 300. */
static const char LIST[] = "root ::= \"[\" ( \"x\" | \"y\" )* \"]\"\n";

static gcg_artifact *arts[2];

static gcg_artifact *compile(const char *src, uint32_t eos)
{
    gcgc_vocab *v = NULL;
    if (eos)
        ck_assert_int_eq(gcgc_vocab_bytes256(&eos, 1, &v, NULL), GCG_OK);
    gcgc_result *r;
    ck_assert_int_eq(gcgc_compile(v, src, strlen(src), NULL, &r), GCG_OK);
    size_t size;
    const uint8_t *bytes = gcgc_result_artifact(r, &size);
    gcg_artifact *a;
    ck_assert_int_eq(gcg_artifact_open_memory(bytes, size, &a, NULL), GCG_OK);
    gcgc_result_free(r);
    gcgc_vocab_free(v);
    return a;
}

static void setup(void)
{
    arts[0] = compile(AB, 0);
    arts[1] = compile(LIST, 300);
    ck_assert_uint_eq(gcg_artifact_mask_words(arts[0]), 8);
    ck_assert_uint_eq(gcg_artifact_mask_words(arts[1]), 10);
}

static void teardown(void)
{
    gcg_artifact_free(arts[0]);
    gcg_artifact_free(arts[1]);
}

/* Row i's text: a prefix of "a0123b" or "[xyxy]", of length i % 5. */
static const char *text_of(size_t i) { return i % 2 ? "[xyxy]" : "a0123b"; }

/* n matchers alternating between the two artifacts, row i advanced by
 * i % 5 bytes of its text. */
static gcg_matcher **make_rows(size_t n)
{
    gcg_matcher **m = calloc(n ? n : 1, sizeof *m);
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_eq(gcg_matcher_new(arts[i % 2], NULL, &m[i], NULL), GCG_OK);
        for (size_t k = 0; k < i % 5; k++)
            ck_assert_int_eq(gcg_matcher_commit(m[i], (uint8_t)text_of(i)[k]), GCG_OK);
    }
    return m;
}

static void free_rows(gcg_matcher **m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        gcg_matcher_free(m[i]);
    free(m);
}

/* Row i of a batch fill equals a single fill of its matcher, then zeros. */
static void check_row(gcg_matcher *m, size_t i, const uint32_t *row)
{
    size_t need = gcg_artifact_mask_words(arts[i % 2]);
    uint32_t want[ROW];
    for (size_t k = 0; k < ROW; k++)
        want[k] = GARBAGE;
    ck_assert_int_eq(gcg_matcher_fill_mask(m, want, need), GCG_OK);
    for (size_t k = 0; k < ROW; k++)
        ck_assert_msg(row[k] == (k < need ? want[k] : 0u), "row %zu word %zu: %08x, want %08x", i, k, row[k],
                      k < need ? want[k] : 0u);
}

/* Batch-fills n rows (buffer pre-filled with garbage) and checks each. */
static void fill_and_check(gcg_pool *pool, size_t n)
{
    gcg_matcher **m = make_rows(n);
    uint32_t *words = malloc((n ? n : 1) * ROW * sizeof *words);
    gcg_status *st = malloc((n ? n : 1) * sizeof *st);
    for (size_t k = 0; k < n * ROW; k++)
        words[k] = GARBAGE;
    for (size_t i = 0; i < n; i++)
        st[i] = GCG_ERR_IO;
    ck_assert_int_eq(gcg_batch_fill_masks(pool, m, n, words, ROW, st), GCG_OK);
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_eq(st[i], GCG_OK);
        check_row(m[i], i, words + i * ROW);
    }
    free(st);
    free(words);
    free_rows(m, n);
}

static const uint32_t THREADS[] = {0, 1, 2, 4};  /* 0: no pool (the caller) */

START_TEST(fill_equals_single_calls)
{
    gcg_pool *pool = NULL;
    if (THREADS[_i])
        ck_assert_int_eq(gcg_pool_new(THREADS[_i], &pool), GCG_OK);
    ck_assert_uint_eq(gcg_pool_threads(pool), THREADS[_i] ? THREADS[_i] : 1);
    fill_and_check(pool, 0);
    fill_and_check(pool, 1);
    fill_and_check(pool, 2);
    fill_and_check(pool, 257);
    gcg_pool_free(pool);
}
END_TEST

/* Two identical batches: one advanced by batch commits, one by single
 * commits; after each step every row's mask and completeness agree. */
START_TEST(commit_equals_single_calls)
{
    gcg_pool *pool = NULL;
    if (THREADS[_i])
        ck_assert_int_eq(gcg_pool_new(THREADS[_i], &pool), GCG_OK);
    size_t n = 257;
    gcg_matcher **a = make_rows(n), **b = make_rows(n);
    uint32_t *tok = malloc(n * sizeof *tok), *words = malloc(n * ROW * sizeof *words);
    gcg_status *st = malloc(n * sizeof *st), *want = malloc(n * sizeof *want);
    for (size_t step = 0; step < 6; step++) {
        gcg_status first = GCG_OK;
        for (size_t i = 0; i < n; i++) {
            size_t pos = i % 5 + step;
            tok[i] = pos < 6 ? (uint8_t)text_of(i)[pos] : i % 2 ? 300u : 'b';
            want[i] = gcg_matcher_commit(b[i], tok[i]);
            if (first == GCG_OK)
                first = want[i];
        }
        ck_assert_int_eq(gcg_batch_commit(pool, a, tok, n, st), first);
        for (size_t i = 0; i < n; i++) {
            ck_assert_int_eq(st[i], want[i]);
            ck_assert_uint_eq(gcg_matcher_is_complete(a[i]), gcg_matcher_is_complete(b[i]));
            ck_assert_uint_eq(gcg_matcher_is_terminated(a[i]), gcg_matcher_is_terminated(b[i]));
            ck_assert_uint_eq(gcg_matcher_rollback_depth(a[i]), gcg_matcher_rollback_depth(b[i]));
        }
        ck_assert_int_eq(gcg_batch_fill_masks(pool, a, n, words, ROW, NULL), GCG_OK);
        for (size_t i = 0; i < n; i++)
            check_row(b[i], i, words + i * ROW);
    }
    free(want);
    free(st);
    free(words);
    free(tok);
    free_rows(a, n);
    free_rows(b, n);
    gcg_pool_free(pool);
}
END_TEST

START_TEST(refused_row_is_unchanged)
{
    gcg_pool *pool;
    ck_assert_int_eq(gcg_pool_new(2, &pool), GCG_OK);
    gcg_matcher **m = make_rows(3);  /* row 0 at "", row 1 at "[", row 2 at "a0" */
    uint32_t before[ROW], words[3 * ROW];
    ck_assert_int_eq(gcg_matcher_fill_mask(m[1], before, ROW), GCG_OK);
    uint32_t tok[3] = {'a', 'b', '1'};  /* "b" cannot follow "[" */
    gcg_status st[3];
    ck_assert_int_eq(gcg_batch_commit(pool, m, tok, 3, st), GCG_ERR_REJECTED);
    ck_assert_int_eq(st[0], GCG_OK);
    ck_assert_int_eq(st[1], GCG_ERR_REJECTED);
    ck_assert_int_eq(st[2], GCG_OK);
    ck_assert_uint_eq(gcg_matcher_rollback_depth(m[0]), 1);
    ck_assert_uint_eq(gcg_matcher_rollback_depth(m[1]), 1);
    ck_assert_uint_eq(gcg_matcher_rollback_depth(m[2]), 3);
    ck_assert_int_eq(gcg_batch_fill_masks(pool, m, 3, words, ROW, st), GCG_OK);
    ck_assert_mem_eq(words + ROW, before, 10 * sizeof *before);
    /* row 0 after "a": digits only; row 2 after "a01": digits and "b" */
    ck_assert_uint_eq(words[0], 0);
    ck_assert_uint_eq(words[1], 0x03FF0000u);
    ck_assert_uint_eq(words[2 * ROW + 1], 0x03FF0000u);
    ck_assert_uint_eq(words[2 * ROW + 3], 1u << ('b' - 96));
    free_rows(m, 3);
    gcg_pool_free(pool);
}
END_TEST

START_TEST(lowest_failed_row_is_returned)
{
    gcg_matcher **m = make_rows(6);
    uint32_t tok[6] = {'a', 'x', '0', 5000, '1', 'q'};  /* row 3: out of range; row 5: refused */
    gcg_status st[6];
    ck_assert_int_eq(gcg_batch_commit(NULL, m, tok, 6, st), GCG_ERR_TOKEN_RANGE);
    ck_assert_int_eq(st[3], GCG_ERR_TOKEN_RANGE);
    ck_assert_int_eq(st[5], GCG_ERR_REJECTED);
    ck_assert_int_eq(gcg_batch_commit(NULL, m + 5, tok + 5, 1, NULL), GCG_ERR_REJECTED);
    free_rows(m, 6);
}
END_TEST

START_TEST(bad_rows_and_empty_batches)
{
    gcg_matcher **m = make_rows(3);
    gcg_matcher *rows[3] = {m[0], NULL, m[1]};
    uint32_t words[3 * ROW];
    for (size_t k = 0; k < 3 * ROW; k++)
        words[k] = GARBAGE;
    gcg_status st[3];
    ck_assert_int_eq(gcg_batch_fill_masks(NULL, rows, 3, words, ROW, st), GCG_ERR_ARG);
    ck_assert_int_eq(st[0], GCG_OK);
    ck_assert_int_eq(st[1], GCG_ERR_ARG);
    ck_assert_int_eq(st[2], GCG_OK);
    for (size_t k = 0; k < ROW; k++)
        ck_assert_uint_eq(words[ROW + k], 0);
    /* 9 words hold the 256-token mask but not the 301-token one */
    ck_assert_int_eq(gcg_batch_fill_masks(NULL, m, 2, words, 9, st), GCG_ERR_ARG);
    ck_assert_int_eq(st[0], GCG_OK);
    ck_assert_int_eq(st[1], GCG_ERR_ARG);
    uint32_t tok = 'a';
    ck_assert_int_eq(gcg_batch_commit(NULL, rows + 1, &tok, 1, st), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_batch_fill_masks(NULL, NULL, 0, NULL, ROW, NULL), GCG_OK);
    ck_assert_int_eq(gcg_batch_commit(NULL, NULL, NULL, 0, NULL), GCG_OK);
    ck_assert_int_eq(gcg_batch_fill_masks(NULL, NULL, 1, words, ROW, NULL), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_batch_commit(NULL, m, NULL, 1, NULL), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_pool_new(2, NULL), GCG_ERR_ARG);
    gcg_pool_free(NULL);
    free_rows(m, 3);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("batch");
    TCase *tc = tcase_create("batch");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, fill_equals_single_calls, 0, 4);
    tcase_add_loop_test(tc, commit_equals_single_calls, 0, 4);
    tcase_add_test(tc, refused_row_is_unchanged);
    tcase_add_test(tc, lowest_failed_row_is_returned);
    tcase_add_test(tc, bad_rows_and_empty_batches);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
