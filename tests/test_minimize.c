/*
 * test_minimize.c — mask-automaton minimization on hand-made automata with
 * known answers: duplicate chains merge (and root_d follows), states that
 * differ in a token set, in the LR state read or in a successor do not, a
 * cycle of equivalent states collapses to one state.
 */
#include <check.h>
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

int main(void)
{
    Suite *s = suite_create("minimize");
    TCase *tc = tcase_create("minimize");
    tcase_add_test(tc, duplicate_chains_merge);
    tcase_add_test(tc, different_states_stay);
    tcase_add_test(tc, equivalent_cycle_collapses);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
