/*
 * test_forced.c — gcg_matcher_forced_bytes against its definition, computed
 * through the public API: the next byte is forced iff the text is not
 * complete and exactly one of the 256 byte values can be committed; repeat.
 * Checked at every step of random byte walks over a few grammars (JSON
 * Schema grammars without whitespace, a GBNF grammar with alternatives and
 * recursion), plus the exact example of the header.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "gcg.h"
#include "gcgc.h"

static gcg_artifact *from_gbnf(const char *g)
{
    gcgc_options o;
    gcgc_options_default(&o);
    o.no_automaton = true;
    gcgc_result *r;
    ck_assert_int_eq(gcgc_compile(NULL, g, strlen(g), &o, &r), GCG_OK);
    size_t n;
    const uint8_t *b = gcgc_result_artifact(r, &n);
    gcg_artifact *a;
    ck_assert_int_eq(gcg_artifact_open_memory(b, n, &a, NULL), GCG_OK);
    gcgc_result_free(r);
    return a;
}

static gcg_artifact *from_schema(const char *s)
{
    gcgc_schema_options so = {0};
    so.ws = 1; /* compact */
    char *g = NULL;
    ck_assert_int_eq(gcgc_schema_to_gbnf(s, strlen(s), &so, &g, NULL), GCG_OK);
    gcg_artifact *a = from_gbnf(g);
    free(g);
    return a;
}

static gcg_matcher *matcher(const gcg_artifact *a)
{
    gcg_matcher_options o;
    gcg_matcher_options_default(&o);
    o.max_rollback = 100000;
    gcg_matcher *m;
    ck_assert_int_eq(gcg_matcher_new(a, &o, &m, NULL), GCG_OK);
    return m;
}

/* The definition, by committing and rolling back; leaves m as it was. */
static size_t brute_forced(gcg_matcher *m, uint8_t *out, size_t cap)
{
    size_t n = 0;
    while (n < cap && !gcg_matcher_is_complete(m) && !gcg_matcher_is_terminated(m)) {
        int only = -1, count = 0;
        for (int b = 0; b < 256; b++) {
            uint8_t x = (uint8_t)b;
            if (gcg_matcher_commit_bytes(m, &x, 1, NULL) == GCG_OK) {
                ck_assert_int_eq(gcg_matcher_rollback(m, 1), GCG_OK);
                count++;
                only = b;
            }
        }
        if (count != 1)
            break;
        uint8_t x = (uint8_t)only;
        ck_assert_int_eq(gcg_matcher_commit_bytes(m, &x, 1, NULL), GCG_OK);
        out[n++] = x;
    }
    if (n)
        ck_assert_int_eq(gcg_matcher_rollback(m, (uint32_t)n), GCG_OK);
    return n;
}

/* Random walks; forced bytes compared with the definition at every step. */
static void walks(const gcg_artifact *a, unsigned n_walks, unsigned seed)
{
    gcg_matcher *m = matcher(a);
    srand(seed);
    uint8_t got[512], want[512];
    for (unsigned w = 0; w < n_walks; w++) {
        gcg_matcher_reset(m);
        for (unsigned step = 0; step < 60; step++) {
            size_t n_got, n_want = brute_forced(m, want, sizeof want);
            uint32_t depth = gcg_matcher_rollback_depth(m);
            ck_assert_int_eq(gcg_matcher_forced_bytes(m, got, sizeof got, &n_got), GCG_OK);
            ck_assert_uint_eq(gcg_matcher_rollback_depth(m), depth);
            ck_assert_uint_eq(n_got, n_want);
            ck_assert(memcmp(got, want, n_got) == 0);
            /* next: a random committable byte, or stop when complete sometimes */
            uint8_t ok[256];
            int n_ok = 0;
            for (int b = 0; b < 256; b++) {
                uint8_t x = (uint8_t)b;
                if (gcg_matcher_commit_bytes(m, &x, 1, NULL) == GCG_OK) {
                    gcg_matcher_rollback(m, 1);
                    ok[n_ok++] = x;
                }
            }
            if (n_ok == 0 || (gcg_matcher_is_complete(m) && rand() % 3 == 0))
                break;
            uint8_t x = ok[rand() % n_ok];
            ck_assert_int_eq(gcg_matcher_commit_bytes(m, &x, 1, NULL), GCG_OK);
        }
    }
    gcg_matcher_free(m);
}

START_TEST(header_example)
{
    gcg_artifact *a = from_schema("{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"integer\"}},"
                                  "\"required\":[\"name\"],\"additionalProperties\":false}");
    gcg_matcher *m = matcher(a);
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"{\"na", 4, NULL), GCG_OK);
    uint8_t buf[64];
    size_t n;
    ck_assert_int_eq(gcg_matcher_forced_bytes(m, buf, sizeof buf, &n), GCG_OK);
    ck_assert_uint_eq(n, 4);
    ck_assert(memcmp(buf, "me\":", 4) == 0);
    /* cap bounds the output */
    ck_assert_int_eq(gcg_matcher_forced_bytes(m, buf, 2, &n), GCG_OK);
    ck_assert_uint_eq(n, 2);
    /* complete text: nothing forced */
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"me\":1}", 6, NULL), GCG_OK);
    ck_assert_int_eq(gcg_matcher_forced_bytes(m, buf, sizeof buf, &n), GCG_OK);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(gcg_matcher_forced_bytes(m, NULL, 0, &n), GCG_OK);
    ck_assert_int_eq(gcg_matcher_forced_bytes(NULL, buf, 1, &n), GCG_ERR_ARG);
    gcg_matcher_free(m);
    gcg_artifact_free(a);
}
END_TEST

START_TEST(schema_walks)
{
    gcg_artifact *a = from_schema(
        "{\"type\":\"object\",\"properties\":{\"kind\":{\"enum\":[\"alpha\",\"alps\",\"beta\"]},"
        "\"n\":{\"type\":\"integer\",\"minimum\":100,\"maximum\":105},\"tags\":{\"type\":\"array\","
        "\"items\":{\"const\":\"t\"},\"maxItems\":2}},\"required\":[\"kind\",\"n\"],\"additionalProperties\":false}");
    walks(a, 40, 1);
    gcg_artifact_free(a);
}
END_TEST

START_TEST(gbnf_walks)
{
    gcg_artifact *a = from_gbnf("root ::= \"begin\" ( \" \" item )* \" end\"\n"
                                "item ::= \"x\" | \"(\" root \")\" | \"yes\" | \"yet\"\n");
    walks(a, 40, 2);
    gcg_artifact_free(a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("forced");
    TCase *tc = tcase_create("forced");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, header_example);
    tcase_add_test(tc, schema_walks);
    tcase_add_test(tc, gbnf_walks);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
