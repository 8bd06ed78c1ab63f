/*
 * test_gcgc_lib.c — the compile library (gcgc.h) as an engine uses it:
 *
 *   - a grammar compiled in memory against the single-byte vocabulary loads
 *     and matches exactly what the grammar says;
 *   - a grammar error comes back as a result with the message, its line and
 *     column, and the printed `name:line:col: error:` text; no artifact;
 *   - a prepared hex vocabulary is shared by four threads compiling at once,
 *     and every thread gets the same artifact bytes as a compile on its own;
 *   - EOS ids and sizes of a prepared vocabulary; loader errors name the file;
 *   - every compile limit, set low, fails with GCG_ERR_LIMIT and the one
 *     message that names it and its flag.
 */
#include <check.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gcg.h"
#include "gcgc.h"

static const char AB[] = "root ::= \"a\" [0-9]+ \"b\"\n";

/* Commits `text` byte by byte: 1 complete, 0 prefix, -1 rejected. */
static int match(const uint8_t *bytes, size_t size, const char *text)
{
    gcg_artifact *art;
    ck_assert_int_eq(gcg_artifact_open_memory(bytes, size, &art, NULL), GCG_OK);
    gcg_matcher *m;
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    int r = gcg_matcher_commit_bytes(m, (const uint8_t *)text, strlen(text), NULL) != GCG_OK ? -1
            : gcg_matcher_is_complete(m)                                                       ? 1
                                                                                                : 0;
    gcg_matcher_free(m);
    gcg_artifact_free(art);
    return r;
}

START_TEST(compiles_in_memory)
{
    gcgc_result *r;
    ck_assert_int_eq(gcgc_compile(NULL, AB, strlen(AB), NULL, &r), GCG_OK);
    size_t size;
    const uint8_t *bytes = gcgc_result_artifact(r, &size);
    ck_assert_ptr_nonnull(bytes);
    gcgc_stats s;
    gcgc_result_stats(r, &s);
    ck_assert_uint_eq(s.artifact_bytes, size);
    ck_assert(s.lr_states > 0);
    ck_assert(s.certificate.bounded);
    ck_assert_int_eq(match(bytes, size, "a12b"), 1);
    ck_assert_int_eq(match(bytes, size, "a1"), 0);
    ck_assert_int_eq(match(bytes, size, "ab"), -1);
    ck_assert_uint_eq(gcgc_result_message_count(r), 0);
    ck_assert_str_eq(gcgc_result_messages_text(r), "");
    gcgc_result_free(r);
}
END_TEST

/* The certificate a compile reports is the one its artifact holds, field by
 * field, bounded or not (the compile encodes the section and decodes it as
 * the runtime does, without opening the artifact). */
static void certificate_matches_artifact(const char *grammar, bool bounded, gcg_unbounded_reason reason,
                                         const char *rule)
{
    gcgc_result *r;
    ck_assert_int_eq(gcgc_compile(NULL, grammar, strlen(grammar), NULL, &r), GCG_OK);
    size_t size;
    const uint8_t *bytes = gcgc_result_artifact(r, &size);
    gcgc_stats s;
    gcgc_result_stats(r, &s);
    gcg_artifact *art;
    ck_assert_int_eq(gcg_artifact_open_memory(bytes, size, &art, NULL), GCG_OK);
    gcg_certificate c;
    ck_assert_int_eq(gcg_artifact_certificate(art, &c), GCG_OK);
    ck_assert_int_eq(s.certificate.bounded, bounded);
    ck_assert_int_eq(s.certificate.unbounded_reason, reason);
    ck_assert_str_eq(s.certificate.unbounded_rule, rule);
    ck_assert_int_eq(s.certificate.bounded, c.bounded);
    ck_assert_uint_eq(s.certificate.max_stack_reads, c.max_stack_reads);
    ck_assert_uint_eq(s.certificate.max_set_ops, c.max_set_ops);
    ck_assert_uint_eq(s.certificate.max_edges, c.max_edges);
    ck_assert_uint_eq(s.certificate.max_bytes, c.max_bytes);
    ck_assert_int_eq(s.certificate.unbounded_reason, c.unbounded_reason);
    ck_assert_str_eq(s.certificate.unbounded_rule, c.unbounded_rule);
    ck_assert_int_eq(s.certificate.commit_bounded, c.commit_bounded);
    ck_assert_uint_eq(s.certificate.max_commit_step_work, c.max_commit_step_work);
    ck_assert_int_eq(s.certificate.commit_unbounded_reason, c.commit_unbounded_reason);
    ck_assert_str_eq(s.certificate.commit_unbounded_rule, c.commit_unbounded_rule);
    ck_assert_int_eq(c.commit_bounded, bounded); /* the bounded one has no conflict, the other has */
    ck_assert_uint_gt(c.max_set_ops, 0);
    gcg_artifact_free(art);
    gcgc_result_free(r);
}

START_TEST(reported_certificate_is_the_artifacts)
{
    certificate_matches_artifact(AB, true, GCG_UNBOUNDED_NONE, "");
    certificate_matches_artifact("root ::= x \"b\"\nx ::= x x | \"a\"\n", false, GCG_UNBOUNDED_AMBIGUITY, "x");
}
END_TEST

/* A counted chain over a nullable item is lowered short, does not fold and
 * is lowered again in full (compiler/compile.c): the language is the whole
 * chain's, and the warnings of the first attempt are not repeated. */
START_TEST(short_chain_lowered_again)
{
    const char *g = "root ::= ( \"a\"? ){0,60} \"b\"\nnever ::= never \"x\"\n";
    gcgc_result *r;
    ck_assert_int_eq(gcgc_compile(NULL, g, strlen(g), NULL, &r), GCG_OK);
    size_t size;
    const uint8_t *bytes = gcgc_result_artifact(r, &size);
    char sixty[70] = {0}, more[70] = {0};
    memset(sixty, 'a', 60), sixty[60] = 'b';
    memset(more, 'a', 61), more[61] = 'b';
    ck_assert_int_eq(match(bytes, size, sixty), 1);
    ck_assert_int_eq(match(bytes, size, more), -1);
    ck_assert_int_eq(match(bytes, size, "b"), 1);
    ck_assert_str_eq(gcgc_result_messages_text(r),
                     "grammar:2:1: warning: unused rule \"never\" (not reachable from \"root\")\n"
                     "grammar:2:1: warning: rule \"never\" can never match (every alternative needs itself or an empty class)\n");
    ck_assert_uint_eq(gcgc_result_message_count(r), 2);
    gcgc_result_free(r);
}
END_TEST

START_TEST(grammar_error_has_position)
{
    const char *bad = "root ::= \"a\"\nx ::= (\"b\"\n";
    gcgc_options o;
    gcgc_options_default(&o);
    o.grammar_name = "bad.gbnf";
    gcgc_result *r;
    ck_assert_int_eq(gcgc_compile(NULL, bad, strlen(bad), &o, &r), GCG_ERR_FORMAT);
    size_t size;
    ck_assert_ptr_null(gcgc_result_artifact(r, &size));
    ck_assert_uint_eq(size, 0);
    ck_assert_uint_ge(gcgc_result_message_count(r), 1);
    gcgc_severity sev;
    uint32_t line, col;
    ck_assert_ptr_nonnull(gcgc_result_message(r, 0, &sev, &line, &col));
    ck_assert_int_eq(sev, GCGC_ERROR);
    ck_assert_uint_eq(line, 3);
    ck_assert_uint_eq(col, 1);
    ck_assert_ptr_null(gcgc_result_message(r, gcgc_result_message_count(r), NULL, NULL, NULL));
    ck_assert_msg(strncmp(gcgc_result_messages_text(r), "bad.gbnf:3:1: error: ", 21) == 0, "%s",
                  gcgc_result_messages_text(r));
    gcgc_result_free(r);
}
END_TEST

/* ---- threads sharing one prepared vocabulary ----------------------------- */

typedef struct job {
    const gcgc_vocab *v;
    uint8_t *bytes;
    size_t size;
    gcg_status st;
} job;

static const char JSONISH[] =
    "root ::= \"{\" ws (pair (\",\" ws pair)*)? \"}\"\n"
    "pair ::= str ws \":\" ws (str | [0-9]+) ws\n"
    "str ::= \"\\\"\" [a-z]* \"\\\"\"\n"
    "ws ::= [ ]*\n";

static void *compile_job(void *arg)
{
    job *j = arg;
    gcgc_result *r;
    j->st = gcgc_compile(j->v, JSONISH, strlen(JSONISH), NULL, &r);
    size_t size;
    const uint8_t *b = gcgc_result_artifact(r, &size);
    if (b && (j->bytes = malloc(size)))
        memcpy(j->bytes, b, size), j->size = size;
    gcgc_result_free(r);
    return NULL;
}

static char *write_hex_vocab(void)
{
    static const char *toks[] = {"7b", "7d", "22", "2c", "3a", "20", "61", "62", "7a", "30", "31",
                                 "2261", "223a20", "207d", "-"};
    char *path = strdup("/tmp/gcgc_lib_vocabXXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    for (size_t i = 0; i < sizeof toks / sizeof *toks; i++)
        fprintf(f, "%s\n", toks[i]);
    fclose(f);
    return path;
}

START_TEST(threads_share_a_vocabulary)
{
    char *path = write_hex_vocab();
    uint32_t eos = 14;
    gcgc_vocab *v;
    gcg_error err;
    ck_assert_int_eq(gcgc_vocab_load_hex(path, &eos, 1, &v, &err), GCG_OK);
    ck_assert_uint_eq(gcgc_vocab_size(v), 15);
    uint32_t n;
    const uint32_t *ids = gcgc_vocab_eos(v, &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(ids[0], 14);
    ck_assert(gcgc_vocab_memory(v) > 15);
    job alone = {v, NULL, 0, GCG_OK};
    compile_job(&alone);
    ck_assert_int_eq(alone.st, GCG_OK);
    job jobs[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (job){v, NULL, 0, GCG_OK};
        ck_assert_int_eq(pthread_create(&th[i], NULL, compile_job, &jobs[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        ck_assert_int_eq(jobs[i].st, GCG_OK);
        ck_assert_uint_eq(jobs[i].size, alone.size);
        ck_assert(memcmp(jobs[i].bytes, alone.bytes, alone.size) == 0);
        free(jobs[i].bytes);
    }
    free(alone.bytes);
    gcgc_vocab_free(v);
    unlink(path);
    free(path);
}
END_TEST

START_TEST(vocabulary_errors_name_the_file)
{
    gcgc_vocab *v = (gcgc_vocab *)1;
    gcg_error err;
    ck_assert_int_eq(gcgc_vocab_load_hex("/nonexistent/v.hex", NULL, 0, &v, &err), GCG_ERR_IO);
    ck_assert_ptr_null(v);
    ck_assert_msg(strstr(err.msg, "/nonexistent/v.hex") != NULL, "%s", err.msg);
    ck_assert_int_eq(gcgc_vocab_load_hf(NULL, NULL, 0, &v, &err), GCG_ERR_ARG);
    uint32_t eos = 300;
    ck_assert_int_eq(gcgc_vocab_bytes256(&eos, 1, &v, &err), GCG_OK);
    ck_assert_uint_eq(gcgc_vocab_size(v), 301);
    gcgc_vocab_free(v);
    gcgc_vocab_free(NULL);
    gcgc_result_free(NULL);
}
END_TEST

/* Compiles `src` with one limit set (by field offset) and checks the status
 * and the first message. */
typedef struct limit_case {
    const char *src;
    size_t field;
    uint32_t value;
    const char *msg;
} limit_case;

static const limit_case limit_cases[] = {
    {"root ::= \"a\"{6}\n", offsetof(gcgc_options, max_repeat), 5,
     "repetition bound 6 too large (limit 5; raise it with --max-repeat)"},
    {"root ::= \"a\" \"b\" \"c\"\n", offsetof(gcgc_options, max_lr_states), 3,
     "grammar too large: too many LR states (limit 3; raise it with --max-lr-states)"},
    {"root ::= [a-z]{0,40}\n", offsetof(gcgc_options, max_grammar_symbols), 50,
     "grammar too large after expanding repetitions (limit 50; raise it with --max-grammar-symbols)"},
    {"root ::= \"(\" root \")\" | \"x\"\n", offsetof(gcgc_options, max_automaton_states), 1,
     "mask automaton too large (limit 1; raise it with --max-automaton-states)"},
    {"root ::= \"(\" root \")\" | \"x\"\n", offsetof(gcgc_options, max_sim_stacks), 2,
     "mask simulation: too many symbolic stacks (limit 2; raise it with --max-sim-stacks)"},
};

START_TEST(limits_name_themselves)
{
    const limit_case *lc = &limit_cases[_i];
    gcgc_options o;
    gcgc_options_default(&o);
    *(uint32_t *)((char *)&o + lc->field) = lc->value;
    gcgc_result *r;
    ck_assert_int_eq(gcgc_compile(NULL, lc->src, strlen(lc->src), &o, &r), GCG_ERR_LIMIT);
    ck_assert_str_eq(gcgc_result_message(r, 0, NULL, NULL, NULL), lc->msg);
    gcgc_result_free(r);
    /* The same grammar compiles with the default limits. */
    ck_assert_int_eq(gcgc_compile(NULL, lc->src, strlen(lc->src), NULL, &r), GCG_OK);
    gcgc_result_free(r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gcgc_lib");
    TCase *tc = tcase_create("lib");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, compiles_in_memory);
    tcase_add_test(tc, short_chain_lowered_again);
    tcase_add_test(tc, reported_certificate_is_the_artifacts);
    tcase_add_test(tc, grammar_error_has_position);
    tcase_add_test(tc, threads_share_a_vocabulary);
    tcase_add_test(tc, vocabulary_errors_name_the_file);
    tcase_add_loop_test(tc, limits_name_themselves, 0, sizeof limit_cases / sizeof *limit_cases);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
