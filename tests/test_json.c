/*
 * test_json.c — grammars/json.gbnf against the JSON texts in
 * tests/data/json/ and against very deep nesting.
 *
 * File names carry the expected answer (see tests/tools/make_json_cases.py):
 *   y_NAME.json      complete JSON text
 *   p_NAME.json      proper prefix of a JSON text
 *   n_OFF_NAME.json  rejected; OFF = offset of the first byte that cannot
 *                    be consumed
 * Every file is checked with the engine (byte by byte and in one commit) and
 * with the reference Earley recognizer.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "earley.h"
#include "engine_run.h"
#include "gbnf.h"
#include "test_files.h"

#define DATA_DIR GCG_SOURCE_ROOT "/tests/data/json"
#define DEEP 100000

typedef struct fixture {
    char *src;
    size_t len;
    eng *e;
    ref_grammar *rg;
} fixture;

static void fixture_open(fixture *fx, bool with_reference)
{
    memset(fx, 0, sizeof *fx);
    fx->src = test_read_file(GCG_SOURCE_ROOT "/grammars/json.gbnf", &fx->len);
    char msg[256];
    gcg_status st = eng_open(fx->src, fx->len, NULL, true, &fx->e, msg, sizeof msg);
    ck_assert_msg(st == GCG_OK, "json.gbnf does not compile: %s", msg);
    if (!with_reference)
        return;
    gbnf_grammar g;
    gcg_diag d;
    gcg_diag_init(&d, "json.gbnf");
    ck_assert_int_eq(gcg_gbnf_parse(fx->src, fx->len, NULL, &g, &d), GCG_OK);
    ck_assert_int_eq(ref_grammar_build(&g, &fx->rg), REF_OK);
    gcg_gbnf_free(&g);
    gcg_diag_free(&d);
}

static void fixture_close(fixture *fx)
{
    eng_free(fx->e);
    ref_grammar_free(fx->rg);
    free(fx->src);
}

/* The expected answer from a file name (offset = len unless rejected);
 * false if it is not a case file. */
static bool expected_from_name(const char *name, ref_result *want, size_t len)
{
    size_t n = strlen(name);
    if (n < 6 || strcmp(name + n - 5, ".json") != 0)
        return false;
    if (strncmp(name, "y_", 2) == 0) {
        *want = (ref_result){REF_COMPLETE, len};
        return true;
    }
    if (strncmp(name, "p_", 2) == 0) {
        *want = (ref_result){REF_PREFIX, len};
        return true;
    }
    char *end;
    unsigned long off = strtoul(name + 2, &end, 10);
    ck_assert_msg(strncmp(name, "n_", 2) == 0 && end != name + 2 && *end == '_',
                  "unexpected file name %s", name);
    *want = (ref_result){REF_REJECT, off};
    return true;
}

static void check_same(const char *file, const char *who, ref_result want, ref_result got)
{
    ck_assert_msg(got.verdict == want.verdict && got.offset == want.offset,
                  "%s: %s answers %s at %zu, expected %s at %zu", file, who,
                  ref_verdict_str(got.verdict), got.offset, ref_verdict_str(want.verdict),
                  want.offset);
}

/* Returns 'y', 'p' or 'n' for a checked file, 0 for others. */
static char check_file(fixture *fx, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", DATA_DIR, name);
    ref_result want;
    if (!expected_from_name(name, &want, 0))
        return 0;
    size_t len;
    char *text = test_read_file(path, &len);
    if (want.verdict != REF_REJECT)
        want.offset = len;
    const uint8_t *t = (const uint8_t *)text;
    check_same(name, "engine (byte by byte)", want, eng_match(fx->e, t, len));
    check_same(name, "engine (one commit)", want, eng_match_whole(fx->e, t, len));
    check_same(name, "reference", want, ref_match(fx->rg, t, len));
    free(text);
    return name[0];
}

START_TEST(test_json_files)
{
    fixture fx;
    fixture_open(&fx, true);
    DIR *dir = opendir(DATA_DIR);
    ck_assert_msg(dir != NULL, "cannot open %s", DATA_DIR);
    size_t y = 0, p = 0, n = 0;
    for (struct dirent *de; (de = readdir(dir));) {
        char k = check_file(&fx, de->d_name);
        y += k == 'y';
        p += k == 'p';
        n += k == 'n';
    }
    closedir(dir);
    fixture_close(&fx);
    /* The folder holds 56 accepted, 28 prefix and 107 rejected texts. */
    ck_assert_uint_eq(y, 56);
    ck_assert_uint_eq(p, 28);
    ck_assert_uint_eq(n, 107);
}
END_TEST

static uint8_t *repeated(const char *unit, size_t times, size_t *len)
{
    size_t u = strlen(unit);
    uint8_t *b = malloc(u * times + 1);
    ck_assert_ptr_nonnull(b);
    for (size_t i = 0; i < times; i++)
        memcpy(b + i * u, unit, u);
    *len = u * times;
    return b;
}

/* 100k "[" then 100k "]": a prefix all along, complete at the end; the
 * matcher must neither crash nor refuse (depth is not a limit of JSON). */
START_TEST(test_deep_arrays)
{
    fixture fx;
    fixture_open(&fx, false);
    gcg_matcher *m = eng_matcher(fx.e);
    size_t len, used = 0;
    uint8_t *open = repeated("[", DEEP, &len);
    uint8_t *close = repeated("]", DEEP, &len);
    gcg_matcher_reset(m);
    for (size_t i = 0; i < DEEP; i++)
        ck_assert_int_eq(gcg_matcher_commit_bytes(m, open + i, 1, &used), GCG_OK);
    ck_assert(!gcg_matcher_is_complete(m));
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, close, DEEP - 1, &used), GCG_OK);
    ck_assert_uint_eq(used, DEEP - 1);
    ck_assert(!gcg_matcher_is_complete(m));
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"}", 1, &used), GCG_ERR_REJECTED);
    ck_assert_uint_eq(used, 0);
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, close, 1, &used), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, close, 1, &used), GCG_ERR_REJECTED);
    ck_assert_int_eq(gcg_matcher_commit_eos(m), GCG_OK);
    free(open);
    free(close);
    fixture_close(&fx);
}
END_TEST

/* Deep objects and arrays mixed, committed in one call each way. */
START_TEST(test_deep_mixed)
{
    fixture fx;
    fixture_open(&fx, false);
    size_t lo, lc;
    uint8_t *open = repeated("{\"k\": [", DEEP / 4, &lo);
    uint8_t *close = repeated("] }", DEEP / 4, &lc);
    uint8_t *all = malloc(lo + lc + 1);
    ck_assert_ptr_nonnull(all);
    memcpy(all, open, lo);
    memcpy(all + lo, close, lc);
    ref_result r = eng_match_whole(fx.e, all, lo);
    ck_assert_int_eq(r.verdict, REF_PREFIX);
    r = eng_match_whole(fx.e, all, lo + lc);
    ck_assert_int_eq(r.verdict, REF_COMPLETE);
    all[lo + lc - 1] = ']'; /* the outermost object closed with "]" */
    r = eng_match_whole(fx.e, all, lo + lc);
    ck_assert_int_eq(r.verdict, REF_REJECT);
    ck_assert_uint_eq(r.offset, lo + lc - 1);
    free(open);
    free(close);
    free(all);
    fixture_close(&fx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("json");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_json_files);
    tcase_add_test(tc, test_deep_arrays);
    tcase_add_test(tc, test_deep_mixed);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
