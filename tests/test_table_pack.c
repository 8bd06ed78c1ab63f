/*
 * test_table_pack.c — row displacement (table_pack.c) on random sparse
 * tables: every cell reads back through its row's base and tag, every
 * empty cell reads as not the row's, equal rows share a tag, and each
 * distinct row sits at the base a plain first-fit search over free slots
 * (the packer's rule, without its 64-bases-at-a-time search and its skips)
 * gives, or where the packer's search gave up, just past the used slots:
 * only dense tables may give up.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "table_pack.h"

typedef struct table {
    uint32_t n_rows, width, *start, *cols, *vals;
} table;

static uint64_t rng_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* n_rows rows of `width` columns, each cell filled with probability
 * density/256; every fourth row repeats an earlier one. With `patterns`,
 * the first `patterns` rows are row 0's columns rotated (equal lengths, so
 * their searches interleave), and later rows take the columns of one of
 * those with values of their own (the states of a counted repetition). */
static table make(uint32_t n_rows, uint32_t width, uint32_t density, uint32_t patterns, uint64_t seed)
{
    table t = {n_rows, width, malloc((n_rows + 1) * sizeof(uint32_t)), malloc((size_t)n_rows * width * 4),
               malloc((size_t)n_rows * width * 4)};
    uint32_t n = 0;
    for (uint32_t r = 0; r < n_rows; r++) {
        t.start[r] = n;
        if (r > 0 && rng_next(&seed) % 4 == 0) {
            uint32_t e = (uint32_t)(rng_next(&seed) % r);
            for (uint32_t k = t.start[e]; k < t.start[e + 1]; k++)
                t.cols[n] = t.cols[k], t.vals[n++] = t.vals[k];
            continue;
        }
        if (patterns && r > 0 && r < patterns) {
            uint32_t m = t.start[1] - t.start[0];
            for (uint32_t k = 0; k < m; k++) { /* insertion sort of the rotated columns */
                uint32_t c = (t.cols[k] + r) % width, j = n + k;
                for (; j > n && t.cols[j - 1] > c; j--)
                    t.cols[j] = t.cols[j - 1];
                t.cols[j] = c;
            }
            for (uint32_t k = 0; k < m; k++)
                t.vals[n++] = (uint32_t)rng_next(&seed);
            continue;
        }
        if (patterns && r >= patterns) {
            uint32_t e = (uint32_t)(rng_next(&seed) % patterns);
            for (uint32_t k = t.start[e]; k < t.start[e + 1]; k++)
                t.cols[n] = t.cols[k], t.vals[n++] = (uint32_t)rng_next(&seed);
            continue;
        }
        for (uint32_t c = 0; c < width; c++)
            if (rng_next(&seed) % 256 < density)
                t.cols[n] = c, t.vals[n++] = (uint32_t)rng_next(&seed);
    }
    t.start[n_rows] = n;
    return t;
}

static uint32_t len(const table *t, uint32_t r)
{
    return t->start[r + 1] - t->start[r];
}

/* The first row equal to r. */
static uint32_t first_equal(const table *t, uint32_t r)
{
    for (uint32_t e = 0;; e++)
        if (len(t, e) == len(t, r) && memcmp(t->cols + t->start[e], t->cols + t->start[r], len(t, r) * 4) == 0 &&
            memcmp(t->vals + t->start[e], t->vals + t->start[r], len(t, r) * 4) == 0)
            return e;
}

/* Replays the packing: distinct rows by descending length (ties by index),
 * each placed where the packer put it. Each must sit at the lowest base
 * where all its columns land on free slots, or, when the packer's search
 * gave up, at the base that puts its first column just past the used slots
 * (which always fits); returns how many gave up. */
static uint32_t replay_first_fit(const table *t, const disp_table *d)
{
    uint64_t cap = d->n_slots + 1;
    uint32_t used = 0, lowest_free = 0, *order = malloc(t->n_rows * 4), n = 0, gave_up = 0;
    uint8_t *busy = calloc(cap, 1);
    for (uint32_t r = 0; r < t->n_rows; r++)
        if (first_equal(t, r) == r)
            order[n++] = r;
    for (uint32_t i = 1; i < n; i++) /* insertion sort: longest first, stable */
        for (uint32_t j = i; j > 0 && len(t, order[j]) > len(t, order[j - 1]); j--) {
            uint32_t x = order[j];
            order[j] = order[j - 1], order[j - 1] = x;
        }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = order[i], c0 = len(t, r) ? t->cols[t->start[r]] : 0;
        if (len(t, r) == 0)
            continue;
        while (busy[lowest_free]) /* every slot below it is taken */
            lowest_free++;
        uint32_t limit = used > c0 ? used - c0 : 0, first = lowest_free > c0 ? lowest_free - c0 : 0;
        for (; first < limit; first++) {
            bool fits = true;
            for (uint32_t k = t->start[r]; k < t->start[r + 1] && fits; k++)
                fits = !busy[first + t->cols[k]];
            if (fits)
                break;
        }
        uint32_t at = d->rows[r].base;
        if (at != first) {
            ck_assert_uint_eq(at, limit);
            gave_up++;
        }
        ck_assert_uint_lt(at + t->cols[t->start[r + 1] - 1], cap);
        for (uint32_t k = t->start[r]; k < t->start[r + 1]; k++) {
            busy[at + t->cols[k]] = 1;
            if (at + t->cols[k] + 1 > used)
                used = at + t->cols[k] + 1;
        }
    }
    free(order), free(busy);
    return gave_up;
}

/* Packs t, checks every cell and the first-fit rule; returns the rows
 * whose search gave up, and the slots used in *n_slots. */
static uint32_t check_table(table t, uint32_t *n_slots)
{
    disp_table d;
    ck_assert_int_eq(gcg_disp_pack(t.n_rows, t.width, t.start, t.cols, t.vals, &d), GCG_OK);
    uint32_t wrong = 0; /* cells that read back otherwise (asserted once: an
                           assertion per cell costs check a write each) */
    for (uint32_t r = 0; r < t.n_rows; r++) {
        uint32_t rep = first_equal(&t, r);
        ck_assert_uint_eq(d.rows[r].tag, rep);
        ck_assert_uint_eq(d.rows[r].base, d.rows[rep].base);
        ck_assert_uint_le((uint64_t)d.rows[r].base + t.width, d.n_slots);
        uint32_t k = t.start[r];
        for (uint32_t c = 0; c < t.width; c++) {
            const gcg_disp_slot *s = &d.slots[d.rows[r].base + c];
            if (k < t.start[r + 1] && t.cols[k] == c) {
                wrong += s->tag != d.rows[r].tag || s->value != t.vals[k];
                k++;
            } else {
                wrong += s->tag == d.rows[r].tag;
            }
        }
    }
    ck_assert_uint_eq(wrong, 0);
    uint32_t gave_up = replay_first_fit(&t, &d);
    *n_slots = d.n_slots;
    free(t.start), free(t.cols), free(t.vals);
    gcg_disp_free(&d);
    return gave_up;
}

/* A random table: returns the rows whose search gave up. */
static uint32_t check_packing(uint32_t n_rows, uint32_t width, uint32_t density, uint32_t patterns, uint64_t seed)
{
    uint32_t n_slots;
    return check_table(make(n_rows, width, density, patterns, seed), &n_slots);
}

/* Sparse rows, as in action tables: most land in the holes of others. */
START_TEST(sparse_rows_read_back)
{
    ck_assert_uint_eq(check_packing(600, 57, 12, 0, 1), 0);
    ck_assert_uint_eq(check_packing(300, 160, 3, 0, 2), 0);
}
END_TEST

/* Dense rows leave few holes: some searches give up and their rows go
 * just past the used slots. */
START_TEST(dense_rows_read_back)
{
    ck_assert_uint_gt(check_packing(1000, 200, 60, 0, 3), 0);
    check_packing(50, 257, 200, 0, 4);
}
END_TEST

/* Many rows on a few column patterns: each pattern's search resumes where
 * its last one stopped (the bases must still agree). */
START_TEST(patterned_rows_read_back)
{
    ck_assert_uint_eq(check_packing(4000, 60, 40, 3, 7), 0);
    ck_assert_uint_eq(check_packing(2000, 120, 12, 20, 8), 0);
    check_packing(1500, 257, 120, 5, 9);
    check_packing(3000, 200, 170, 6, 10);
}
END_TEST

/* Empty rows and one-entry rows. */
START_TEST(tiny_rows_read_back)
{
    ck_assert_uint_eq(check_packing(200, 10, 0, 0, 5), 0);
    ck_assert_uint_eq(check_packing(400, 300, 1, 0, 6), 0);
}
END_TEST

/* The gotos of a schema grammar: thousands of short rows with first columns
 * anywhere and one last column that they all share (a list nonterminal
 * every member state goes to). Every row finds its first fit, and the slots
 * stay linear in the entries: a search that tried only the first column's
 * free slots gave up once a thousand rows had filled the shared column's
 * run below its budget, and put each later row past the used slots, about
 * a row width apart (o43012: 58M slots for 34k entries). */
START_TEST(shared_far_column)
{
    uint32_t n_rows = 3000, width = 9000, n = 0;
    table t = {n_rows, width, malloc((n_rows + 1) * sizeof(uint32_t)), malloc((size_t)n_rows * 8 * 4),
               malloc((size_t)n_rows * 8 * 4)};
    uint64_t seed = 11;
    for (uint32_t r = 0; r < n_rows; r++) {
        t.start[r] = n;
        uint32_t first = (uint32_t)(rng_next(&seed) % (width / 2)), more = (uint32_t)(rng_next(&seed) % 3);
        t.cols[n] = first, t.vals[n++] = (uint32_t)rng_next(&seed);
        for (uint32_t k = 0; k < more; k++) /* ascending, below the shared column */
            t.cols[n] = t.cols[n - 1] + 1 + (uint32_t)(rng_next(&seed) % 1000), t.vals[n++] = (uint32_t)rng_next(&seed);
        t.cols[n] = width - 1, t.vals[n++] = (uint32_t)rng_next(&seed);
    }
    t.start[n_rows] = n;
    uint32_t n_slots, entries = n;
    ck_assert_uint_eq(check_table(t, &n_slots), 0);
    ck_assert_uint_le(n_slots, 2 * entries + 2 * width);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("table_pack");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, sparse_rows_read_back);
    tcase_add_test(tc, dense_rows_read_back);
    tcase_add_test(tc, patterned_rows_read_back);
    tcase_add_test(tc, tiny_rows_read_back);
    tcase_add_test(tc, shared_far_column);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
