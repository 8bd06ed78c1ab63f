/*
 * test_commit_bound.c — the commit bound (compiler/commit_bound.h): the most
 * work one GLR step can do, against what the runtime counts.
 *
 *   - root ::= "(" root ")" | "x": the bound is 8, and the runtime does
 *     exactly 8 on the second ")" of "((x))" (the top reduces by a rule of
 *     three symbols, the state it uncovers shifts), so the bound is the worst
 *     case, not a loose one; every other step does less;
 *   - the tables of a right recursion that one byte closes (as lowered, before
 *     the compiler rewrites tail recursion): no bound, for recursion, naming
 *     the rule; the compiled grammar is rewritten and bounded;
 *   - a conflict forks the stack: where the forks grow (e ::= e "+" e) no
 *     bound is stated, for ambiguity; where the fork analysis bounds them, it
 *     bounds their steps too (two lists of x: 18, a run uses 14), and random
 *     walks over the shipped grammars stay within their bounds;
 *   - json.gbnf: every commit of random walks over single bytes stays within
 *     the bound (test_cert_property does the same on random grammars);
 *   - the artifact reports the bound the compile reported.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byteclass.h"
#include "cfg.h"
#include "commit_bound.h"
#include "gbnf.h"
#include "gcg.h"
#include "gcgc.h"
#include "lower.h"
#include "lr_build.h"
#include "test_files.h"


static gcg_artifact *compile(const char *src, gcgc_stats *stats)
{
    gcgc_result *r = NULL;
    ck_assert_int_eq(gcgc_compile(NULL, src, strlen(src), NULL, &r), GCG_OK);
    size_t size;
    const uint8_t *bytes = gcgc_result_artifact(r, &size);
    gcg_artifact *art = NULL;
    ck_assert_int_eq(gcg_artifact_open_memory(bytes, size, &art, NULL), GCG_OK);
    if (stats)
        gcgc_result_stats(r, stats);
    gcgc_result_free(r);
    return art;
}

/* The costliest step of committing `text` byte by byte, then EOS. */
static uint64_t worst_step(gcg_matcher *m, const char *text)
{
    uint64_t most = 0;
    gcg_commit_stats cs;
    gcg_matcher_reset(m);
    for (const char *p = text; *p; p++) {
        ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)p, 1, NULL), GCG_OK);
        gcg_matcher_last_commit_stats(m, &cs);
        most = cs.max_step_work > most ? cs.max_step_work : most;
    }
    ck_assert_int_eq(gcg_matcher_commit_eos(m), GCG_OK);
    gcg_matcher_last_commit_stats(m, &cs);
    return cs.max_step_work > most ? cs.max_step_work : most;
}

/* Compiles src, whose artifact and compile stats state a commit bound of
 * exactly `bound`. */
static gcg_artifact *bounded(const char *src, uint32_t bound)
{
    gcgc_stats s;
    gcg_artifact *art = compile(src, &s);
    gcg_certificate c;
    ck_assert_int_eq(gcg_artifact_certificate(art, &c), GCG_OK);
    ck_assert(c.commit_bounded);
    ck_assert_uint_eq(c.max_commit_step_work, bound);
    ck_assert_int_eq(c.commit_unbounded_reason, GCG_UNBOUNDED_NONE);
    ck_assert(s.certificate.commit_bounded);
    ck_assert_uint_eq(s.certificate.max_commit_step_work, bound);
    return art;
}

START_TEST(brackets_bound_is_reached)
{
    gcg_artifact *art = bounded("root ::= \"(\" root \")\" | \"x\"\n", 8);
    gcg_matcher *m = NULL;
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    ck_assert_uint_eq(worst_step(m, "x"), 5);     /* the end: reduce "x", accept */
    ck_assert_uint_eq(worst_step(m, "(x)"), 7);   /* the end: reduce ( root ), accept */
    ck_assert_uint_eq(worst_step(m, "((x))"), 8); /* the second ")": reduce ( root ), shift */
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

typedef struct tables {
    gbnf_grammar ast;
    cfg g;
    byteclass bc;
    lr_tables t;
    gcg_diag diag;
    uint32_t *pred_first, *pred;
} tables;

/* LALR tables of src as lowered (not normalized: no rewriting of tail
 * recursion), with each state's predecessors. */
static void tables_of(const char *src, tables *b)
{
    memset(b, 0, sizeof *b);
    gcg_diag_init(&b->diag, "t.gbnf");
    ck_assert_int_eq(gcg_gbnf_parse(src, strlen(src), NULL, &b->ast, &b->diag), GCG_OK);
    ck_assert_int_eq(gcg_lower(&b->ast, &b->g, NULL, &b->diag), GCG_OK);
    ck_assert_int_eq(gcg_byteclass_build(&b->g, &b->bc), GCG_OK);
    ck_assert_int_eq(gcg_lr_build(&b->g, &b->bc, NULL, &b->t, &b->diag), GCG_OK);
    const lr_tables *t = &b->t;
    b->pred_first = calloc((size_t)t->n_states + 1, sizeof *b->pred_first);
    b->pred = malloc(((size_t)t->n_states * (t->n_terms + t->n_nts) + 1) * sizeof *b->pred);
    uint32_t n = 0;
    for (uint32_t s = 0; s < t->n_states; s++) { /* quadratic: the tables are tiny */
        b->pred_first[s] = n;
        for (uint32_t p = 0; p < t->n_states; p++) {
            bool into = false;
            for (uint32_t x = 0; x < t->n_terms; x++) {
                uint32_t a = lr_action(t, p, x);
                into |= GCG_ACT_KIND(a) == GCG_ACT_SHIFT && GCG_ACT_ARG(a) == s;
            }
            for (uint32_t k = t->go_start[p]; k < t->go_start[p + 1]; k++)
                into |= t->go_to[k] == s;
            if (into)
                b->pred[n++] = p;
        }
    }
    b->pred_first[t->n_states] = n;
}

static void tables_free(tables *b)
{
    free(b->pred_first), free(b->pred);
    gcg_lr_free(&b->t);
    gcg_byteclass_free(&b->bc);
    cfg_free(&b->g);
    gcg_gbnf_free(&b->ast);
    gcg_diag_free(&b->diag);
}

START_TEST(right_recursion_closed_by_one_byte)
{
    const char *src = "root ::= list \";\"\nlist ::= \"x\" list | \"x\"\n";
    tables b;
    tables_of(src, &b);
    ck_assert_uint_eq(b.t.sr_conflicts + b.t.rr_conflicts, 0);
    commit_bound cb;
    ck_assert_int_eq(gcg_commit_bound(&b.t, &b.g, b.pred_first, b.pred, NULL, &cb), GCG_OK);
    ck_assert(!cb.bounded);
    ck_assert_uint_eq(cb.unbounded_reason, GCG_CERT_UNBOUNDED_RECURSION);
    ck_assert_str_eq(b.g.nts[cb.nt].name, "list");
    tables_free(&b);
    /* compiled, the tail recursion is a loop: ";" reduces once */
    gcg_artifact *art = compile(src, NULL);
    gcg_certificate c;
    ck_assert_int_eq(gcg_artifact_certificate(art, &c), GCG_OK);
    ck_assert(c.commit_bounded);
    gcg_matcher *m = NULL;
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    char text[2002];
    memset(text, 'x', 2000), text[2000] = ';', text[2001] = 0;
    ck_assert_uint_le(worst_step(m, text), c.max_commit_step_work);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

START_TEST(conflict_states_no_bound)
{
    gcgc_stats s;
    gcg_artifact *art = compile("root ::= e\ne ::= e \"+\" e | \"a\"\n", &s);
    gcg_certificate c;
    ck_assert_int_eq(gcg_artifact_certificate(art, &c), GCG_OK);
    ck_assert(!c.commit_bounded);
    ck_assert_uint_eq(c.max_commit_step_work, 0);
    ck_assert_int_eq(c.commit_unbounded_reason, GCG_UNBOUNDED_AMBIGUITY);
    ck_assert_str_eq(c.commit_unbounded_rule, "e");
    ck_assert_int_eq(s.certificate.commit_unbounded_reason, GCG_UNBOUNDED_AMBIGUITY);
    ck_assert_str_eq(s.certificate.commit_unbounded_rule, "e");
    gcg_artifact_free(art);
}
END_TEST

/* Random walks over single bytes drawn from the mask (the previous byte
 * again half the time, so runs grow), every commit and every end check
 * within the bound; returns the costliest step. */
static uint64_t walks_within(gcg_artifact *art, int walks, int len)
{
    gcg_certificate c;
    ck_assert_int_eq(gcg_artifact_certificate(art, &c), GCG_OK);
    ck_assert(c.commit_bounded);
    gcg_matcher *m = NULL;
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    uint64_t rng = 0x9E3779B97F4A7C15ull, most = 0;
    uint32_t w[9];
    for (int walk = 0; walk < walks; walk++) {
        gcg_matcher_reset(m);
        int prev = -1;
        for (int i = 0; i < len; i++) {
            ck_assert_int_eq(gcg_matcher_fill_mask(m, w, 9), GCG_OK);
            int allowed[256], n = 0;
            for (int b = 0; b < 256; b++)
                if (w[b >> 5] >> (b & 31) & 1)
                    allowed[n++] = b;
            if (!n)
                break;
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            int b = prev >= 0 && (w[prev >> 5] >> (prev & 31) & 1) && (rng >> 40) % 2 ? prev
                                                                                  : allowed[(rng >> 33) % n];
            uint8_t u = (uint8_t)b;
            ck_assert_int_eq(gcg_matcher_commit_bytes(m, &u, 1, NULL), GCG_OK);
            gcg_commit_stats cs;
            gcg_matcher_last_commit_stats(m, &cs);
            ck_assert_uint_le(cs.max_step_work, c.max_commit_step_work);
            most = cs.max_step_work > most ? cs.max_step_work : most;
            prev = b;
        }
    }
    gcg_matcher_free(m);
    return most;
}

START_TEST(json_walks_within_bound)
{
    char *src = test_read_grammar("json");
    gcg_artifact *art = compile(src, NULL);
    free(src);
    ck_assert_uint_gt(walks_within(art, 40, 400), 0);
    gcg_artifact_free(art);
}
END_TEST

/* Tables with conflicts: the fork analysis bounds the steps it simulates,
 * and a chain that meets a conflict cell costs that cell's own step. Two
 * lists of x that only the last byte tells apart keep two stacks for as long
 * as the x's last: 18 per step, of which a run of 300 x and "2" uses 14 (each
 * x shifts on both stacks and reduces both lists). Random walks over every
 * shipped grammar but ambiguous.gbnf stay within their bounds. */
START_TEST(forked_steps_bounded)
{
    gcg_artifact *art = bounded("root ::= a \"1\" | b \"2\"\na ::= a \"x\" | \"x\"\nb ::= b \"x\" | \"x\"\n", 18);
    char text[302];
    memset(text, 'x', 300);
    text[300] = '2', text[301] = 0;
    gcg_matcher *m = NULL;
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    uint64_t most = worst_step(m, text);
    ck_assert_uint_le(most, 18);
    ck_assert_uint_eq(most, 14);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
    static const char *const shipped[] = {"arith", "c_subset", "chess", "markdown", "unicode"};
    for (size_t i = 0; i < sizeof shipped / sizeof *shipped; i++) {
        char *src = test_read_grammar(shipped[i]);
        art = compile(src, NULL);
        free(src);
        ck_assert_uint_gt(walks_within(art, 20, 300), 0);
        gcg_artifact_free(art);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("commit_bound");
    TCase *tc = tcase_create("bound");
    tcase_add_test(tc, brackets_bound_is_reached);
    tcase_add_test(tc, right_recursion_closed_by_one_byte);
    tcase_add_test(tc, conflict_states_no_bound);
    tcase_add_test(tc, json_walks_within_bound);
    tcase_add_test(tc, forked_steps_bounded);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
