/*
 * test_minimize.c — mask-automaton minimization on hand-made automata with
 * known answers: duplicate chains merge (and root_d follows), states that
 * differ in a token set, in the LR state read or in a successor do not, a
 * cycle of equivalent states collapses to one state, states told apart only
 * at the end of a long chain; and on random automata the blocks equal those
 * of plain Moore refinement (every state re-signed each round, until the
 * number of blocks stops growing).
 */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "minimize.h"

#define NO UINT32_MAX

/* An automaton of n states; trans[i] = {from, q, acc, next}, grouped by from. */
static mask_automaton make(uint32_t n, const uint32_t (*trans)[4], uint32_t n_trans, const uint32_t *root_d,
                           uint32_t n_lr)
{
    mask_automaton a;
    memset(&a, 0, sizeof a);
    a.n_states = n, a.n_trans = n_trans;
    a.trans_start = calloc(n + 1, sizeof *a.trans_start);
    a.trans = malloc((n_trans + 1) * sizeof *a.trans);
    a.state_lhs = malloc((n + 1) * sizeof *a.state_lhs);
    a.root_d = malloc(n_lr * sizeof *a.root_d);
    a.root_acc = calloc(n_lr, sizeof *a.root_acc);
    for (uint32_t i = 0; i < n_trans; i++) {
        a.trans[i] = (ma_trans){trans[i][1], trans[i][2], trans[i][3]};
        a.trans_start[trans[i][0] + 1]++;
    }
    for (uint32_t d = 0; d < n; d++)
        a.trans_start[d + 1] += a.trans_start[d], a.state_lhs[d] = 100 + d;
    memcpy(a.root_d, root_d, n_lr * sizeof *root_d);
    return a;
}

START_TEST(duplicate_chains_merge)
{
    static const uint32_t t[][4] = {{0, 1, 5, 2}, {1, 1, 5, 3}, {2, 2, 7, NO}, {3, 2, 7, NO}};
    static const uint32_t roots[3] = {0, 1, NO};
    mask_automaton a = make(4, t, 4, roots, 3);
    ck_assert_int_eq(gcg_automaton_minimize(&a, 3), GCG_OK);
    ck_assert_uint_eq(a.n_states_built, 4);
    ck_assert_uint_eq(a.n_states, 2);
    ck_assert_uint_eq(a.n_trans, 2);
    ck_assert_uint_eq(a.root_d[0], 0);
    ck_assert_uint_eq(a.root_d[1], 0);
    ck_assert_uint_eq(a.root_d[2], NO);
    ck_assert_uint_eq(a.trans[0].q, 1);
    ck_assert_uint_eq(a.trans[0].acc, 5);
    ck_assert_uint_eq(a.trans[0].next, 1);
    ck_assert_uint_eq(a.trans[1].q, 2);
    ck_assert_uint_eq(a.trans[1].next, NO);
    ck_assert_uint_eq(a.state_lhs[0], 100);
    ck_assert_uint_eq(a.state_lhs[1], 102);
    gcg_automaton_free(&a);
}
END_TEST

START_TEST(different_states_stay)
{
    /* 2 and 3 differ in their set; 4 and 5 in the LR state read; so 0 and 1
     * (into 2 and 3) differ by successor. */
    static const uint32_t t[][4] = {{0, 1, 5, 2}, {1, 1, 5, 3}, {2, 2, 7, NO}, {3, 2, 8, NO},
                                    {4, 3, 7, NO}, {5, 4, 7, NO}};
    static const uint32_t roots[2] = {0, 1};
    mask_automaton a = make(6, t, 6, roots, 2);
    ck_assert_int_eq(gcg_automaton_minimize(&a, 2), GCG_OK);
    ck_assert_uint_eq(a.n_states, 6);
    ck_assert_uint_eq(a.n_states_built, 6);
    ck_assert_uint_ne(a.root_d[0], a.root_d[1]);
    gcg_automaton_free(&a);
}
END_TEST

START_TEST(equivalent_cycle_collapses)
{
    /* 0 -> 1 -> 2 -> 0, each reading q 9 and deciding set 3: one state. */
    static const uint32_t t[][4] = {{0, 9, 3, 1}, {1, 9, 3, 2}, {2, 9, 3, 0}};
    static const uint32_t roots[1] = {2};
    mask_automaton a = make(3, t, 3, roots, 1);
    ck_assert_int_eq(gcg_automaton_minimize(&a, 1), GCG_OK);
    ck_assert_uint_eq(a.n_states, 1);
    ck_assert_uint_eq(a.n_trans, 1);
    ck_assert_uint_eq(a.trans[0].next, 0);
    ck_assert_uint_eq(a.root_d[0], 0);
    gcg_automaton_free(&a);
}
END_TEST

START_TEST(long_chains_split_from_the_end)
{
    /* Three chains of 200 states, 0.., 200.., 400..; the last states of the
     * first two decide set 1, of the third set 2: the first two merge, the
     * third stays, 200 + 200 states in all. */
    enum { LEN = 200, N = 3 * LEN };
    static uint32_t t[N][4];
    uint32_t roots[3] = {0, LEN, 2 * LEN};
    for (uint32_t c = 0; c < 3; c++)
        for (uint32_t i = 0; i < LEN; i++) {
            uint32_t d = c * LEN + i;
            bool last = i + 1 == LEN;
            t[d][0] = d, t[d][1] = 4, t[d][2] = last ? (c == 2 ? 2 : 1) : 0, t[d][3] = last ? NO : d + 1;
        }
    mask_automaton a = make(N, (const uint32_t(*)[4])t, N, roots, 3);
    ck_assert_int_eq(gcg_automaton_minimize(&a, 3), GCG_OK);
    ck_assert_uint_eq(a.n_states, 2 * LEN);
    ck_assert_uint_eq(a.root_d[0], 0);
    ck_assert_uint_eq(a.root_d[1], 0);
    ck_assert_uint_eq(a.root_d[2], LEN);
    gcg_automaton_free(&a);
}
END_TEST

/* Plain Moore refinement over the automaton t (grouped by from): blocks
 * numbered by their least state, into block[]. */
static void moore(uint32_t n, const uint32_t (*t)[4], uint32_t n_trans, uint32_t *block)
{
    uint32_t first[65] = {0}, next[64], count = 1;
    for (uint32_t i = 0; i < n_trans; i++)
        first[t[i][0] + 1] = i + 1;
    for (uint32_t d = 0; d < n; d++)
        first[d + 1] = first[d + 1] > first[d] ? first[d + 1] : first[d], block[d] = 0;
    for (;;) {
        uint32_t m = 0;
        for (uint32_t d = 0; d < n; d++) {
            next[d] = NO;
            for (uint32_t e = 0; e < d && next[d] == NO; e++) {
                bool same = block[e] == block[d] && first[e + 1] - first[e] == first[d + 1] - first[d];
                for (uint32_t k = 0; same && k < first[d + 1] - first[d]; k++) {
                    const uint32_t *x = t[first[d] + k], *y = t[first[e] + k];
                    same = x[1] == y[1] && x[2] == y[2] &&
                           (x[3] == NO ? y[3] == NO : y[3] != NO && block[x[3]] == block[y[3]]);
                }
                if (same)
                    next[d] = next[e];
            }
            if (next[d] == NO)
                next[d] = m++;
        }
        memcpy(block, next, n * sizeof *block);
        if (m == count)
            return;
        count = m;
    }
}

START_TEST(random_automata_match_moore)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int round = 0; round < 400; round++) {
        uint32_t t[64 * 3][4], n_trans = 0, roots[64], want[64];
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t n = 2 + (uint32_t)(seed >> 58) % 40;
        for (uint32_t d = 0; d < n; d++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t k = (uint32_t)(seed >> 40) % 3;
            for (uint32_t j = 0; j < k; j++) { /* q = j keeps each list sorted by q */
                uint32_t r = (uint32_t)(seed >> (8 * j + 1));
                t[n_trans][0] = d, t[n_trans][1] = j, t[n_trans][2] = r % 2;
                t[n_trans][3] = (r >> 2) % 4 == 0 ? NO : (r >> 4) % n;
                n_trans++;
            }
            roots[d] = d;
        }
        moore(n, (const uint32_t(*)[4])t, n_trans, want);
        uint32_t blocks = 0;
        for (uint32_t d = 0; d < n; d++)
            blocks = want[d] + 1 > blocks ? want[d] + 1 : blocks;
        mask_automaton a = make(n, (const uint32_t(*)[4])t, n_trans, roots, n);
        ck_assert_int_eq(gcg_automaton_minimize(&a, n), GCG_OK);
        ck_assert_uint_eq(a.n_states, blocks);
        for (uint32_t d = 0; d < n; d++)
            ck_assert_uint_eq(a.root_d[d], want[d]);
        gcg_automaton_free(&a);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("minimize");
    TCase *tc = tcase_create("minimize");
    tcase_add_test(tc, duplicate_chains_merge);
    tcase_add_test(tc, different_states_stay);
    tcase_add_test(tc, equivalent_cycle_collapses);
    tcase_add_test(tc, long_chains_split_from_the_end);
    tcase_add_test(tc, random_automata_match_moore);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
