/*
 * test_files.h — the repository's files as tests read them: whole, NUL
 * terminated, failing the test (check) when a file cannot be read.
 */
#ifndef GCG_TEST_FILES_H
#define GCG_TEST_FILES_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

/* The bytes of `path` plus a NUL; *len (when not NULL) their count. */
static inline char *test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    ck_assert_int_ge(n, 0);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = 0;
    if (len)
        *len = (size_t)n;
    return buf;
}

/* grammars/NAME.gbnf of the source tree. */
static inline char *test_read_grammar(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/grammars/%s.gbnf", GCG_SOURCE_ROOT, name);
    return test_read_file(path, NULL);
}

#endif /* GCG_TEST_FILES_H */
