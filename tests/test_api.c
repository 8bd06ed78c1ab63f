/*
 * test_api.c — the parts of gcg.h a host checks before using the library:
 *
 *   - gcg_version is the header's version string, and the artifact format
 *     versions read are those the container module accepts;
 *   - gcg_matcher_new reports its errors through gcg_error with a message,
 *     leaves *out NULL on failure, and accepts a NULL gcg_error.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "container.h"
#include "gcg.h"
#include "gcgc.h"

static gcg_artifact *compile_star(void)
{
    static const char src[] = "root ::= \"a\"*\n"; /* reduces at the start */
    gcgc_result *r;
    ck_assert_int_eq(gcgc_compile(NULL, src, strlen(src), NULL, &r), GCG_OK);
    size_t size;
    const uint8_t *bytes = gcgc_result_artifact(r, &size);
    gcg_artifact *art;
    ck_assert_int_eq(gcg_artifact_open_memory(bytes, size, &art, NULL), GCG_OK);
    gcgc_result_free(r);
    return art;
}

START_TEST(version_strings)
{
    ck_assert_str_eq(gcg_version(), GCG_VERSION_STRING);
    ck_assert_str_eq(gcg_version(), "0.1.0");
    uint32_t oldest = 99, newest = 99;
    gcg_artifact_format_versions(&oldest, &newest);
    ck_assert_uint_eq(oldest, GCG_FORMAT_OLDEST);
    ck_assert_uint_eq(newest, GCG_FORMAT_VERSION);
    ck_assert_uint_eq(oldest, 2);
    ck_assert_uint_eq(newest, 2);
    gcg_artifact_format_versions(NULL, &newest); /* either may be NULL */
    gcg_artifact_format_versions(&oldest, NULL);
}
END_TEST

START_TEST(matcher_new_errors)
{
    gcg_artifact *art = compile_star();
    gcg_error err;
    gcg_matcher *m = (gcg_matcher *)&err; /* must be reset to NULL */
    ck_assert_int_eq(gcg_matcher_new(NULL, NULL, &m, &err), GCG_ERR_ARG);
    ck_assert_ptr_null(m);
    ck_assert_int_eq(err.code, GCG_ERR_ARG);
    ck_assert_str_eq(err.msg, "matcher: artifact is NULL");

    gcg_matcher_options o;
    gcg_matcher_options_default(&o);
    o.max_nodes = 0;
    ck_assert_int_eq(gcg_matcher_new(art, &o, &m, &err), GCG_ERR_ARG);
    ck_assert_str_eq(err.msg, "matcher: max_nodes is 0");
    ck_assert_int_eq(gcg_matcher_new(art, NULL, NULL, &err), GCG_ERR_ARG);
    ck_assert_str_eq(err.msg, "matcher: out is NULL");

    o.max_nodes = 1;
    o.initial_nodes = 1;
    ck_assert_int_eq(gcg_matcher_new(art, &o, &m, &err), GCG_ERR_LIMIT);
    ck_assert_ptr_null(m);
    ck_assert_int_eq(err.code, GCG_ERR_LIMIT);
    ck_assert_ptr_nonnull(strstr(err.msg, "max_nodes 1"));
    ck_assert_int_eq(gcg_matcher_new(art, &o, &m, NULL), GCG_ERR_LIMIT);

    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, &err), GCG_OK);
    ck_assert_ptr_nonnull(m);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("api");
    tcase_add_test(tc, version_strings);
    tcase_add_test(tc, matcher_new_errors);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
