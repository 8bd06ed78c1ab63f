/*
 * test_mask_alloc.c — fill_mask never allocates (gcg.h), whatever the
 * grammar and however long the text: the matcher sizes the mask walk's
 * scratch at gcg_matcher_new and at every commit.
 *
 * This binary replaces malloc, calloc and realloc (glibc lets a program do
 * so; they forward to __libc_malloc & co.) with versions that count calls
 * while `counting` is set, i.e. inside fill_mask only. Long runs, byte by
 * byte with a mask after every byte, on: grammars/json.gbnf (deep nesting,
 * long whitespace), grammars/ambiguous.gbnf (the GSS grows with the run),
 * the whitespace shape JSON-Schema converters write (two ws rules that
 * meet), e ::= e e "c" | e "c" | "a", a recursion through a nested group,
 * a right recursion every mask reads through (with and without
 * max_mask_work), and ambiguous.gbnf with max_mask_work set. Each run must
 * count exactly 0 allocations in fill_mask; a sanity case first checks that
 * the counter does count (a malloc while counting is 1).
 *
 * Under AddressSanitizer the allocator belongs to the sanitizer and cannot
 * be replaced: the interposers are left out and the test only runs the
 * workloads (and checks masks against brute force every 97 bytes).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "gcg.h"
#include "vocab.h"

#include "alloc_counting.h"

static int counting;
static unsigned long n_allocs;

#if ALLOC_COUNTING
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);

void *malloc(size_t n)
{
    n_allocs += counting != 0;
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    n_allocs += counting != 0;
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    n_allocs += counting != 0;
    return __libc_realloc(p, n);
}
#endif

#define WORDS 9 /* 256 bytes + EOS 256 */

static char *read_grammar(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/grammars/%s.gbnf", GCG_SOURCE_ROOT, name);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = 0;
    return buf;
}

static gcg_artifact *compile_eos(const char *src)
{
    gcg_vocab v;
    uint32_t eos = 256;
    ck_assert_int_eq(gcg_vocab_bytes256(&eos, 1, &v), GCG_OK);
    gcg_compile_options opt = {0};
    opt.vocab = &v;
    gcg_diag d;
    gcg_diag_init(&d, "t.gbnf");
    uint8_t *bytes = NULL;
    size_t size = 0;
    gcg_status st = gcg_compile(src, strlen(src), &opt, false, &bytes, &size, NULL, &d);
    if (st != GCG_OK)
        gcg_diag_print(&d, stderr);
    ck_assert_int_eq(st, GCG_OK);
    gcg_diag_free(&d);
    gcg_vocab_free(&v);
    gcg_artifact *art = NULL;
    ck_assert_int_eq(gcg_artifact_open_memory(bytes, size, &art, NULL), GCG_OK);
    free(bytes);
    return art;
}

typedef struct alloc_case {
    const char *grammar;  /* a file under grammars/ (no suffix) or inline GBNF */
    bool file;
    const char *prefix;   /* committed first                                  */
    const char *unit;     /* then repeated, byte by byte                      */
    uint32_t repeat;
    uint32_t mask_work;   /* max_mask_work (0: none)                          */
} alloc_case;

static const alloc_case alloc_cases[] = {
    {"json", true, "", "[{\"a\": ", 3000, 0},
    {"json", true, "{\"a\": 1", " ", 4000, 0},
    {"json", true, "[", "[1, {\"k\": [true, null, \"s\\n\"]}, ", 200, 0},
    {"ambiguous", true, "x = ", "a", 300, 0},
    {"ambiguous", true, "x = ", "ab+(c", 60, 0},
    {"ambiguous", true, "x = ", "a", 300, 40},
    {"root ::= \"{\" ws \"\\\"a\\\":\" ws value ws \"}\"\n"
     "value ::= [0-9]+ ws\nws ::= [ \\t\\n]*\n", false, "{\"a\": 1", " ", 4000, 0},
    {"root ::= e\ne ::= e e \"c\" | e \"c\" | \"a\"\n", false, "", "a", 400, 0},
    {"root ::= e\ne ::= e e \"c\" | e \"c\" | \"a\"\n", false, "a", "ac", 300, 0},
    {"root ::= \"(\" list \")\" | list \";\"\nlist ::= \"x\" (\",\" list)?\n", false, "(", "x,", 3000, 0},
    /* The empty e keeps l out of tail position: every mask reads the whole
     * run of x's (one pair per x) to learn whether ")" or ";" closes it. */
    {"root ::= \"(\" l \")\" | l \";\"\nl ::= \"x\" l e | \"x\"\ne ::= \"\"\n", false, "(", "x", 3000, 0},
    {"root ::= \"(\" l \")\" | l \";\"\nl ::= \"x\" l e | \"x\"\ne ::= \"\"\n", false, "", "x", 3000, 100},
};

START_TEST(test_counter_counts)
{
    counting = 1;
    n_allocs = 0;
    void *(*volatile alloc)(size_t) = malloc; /* not a builtin the compiler may elide */
    void *p = alloc(16);
    counting = 0;
    free(p);
    ck_assert_uint_eq(n_allocs, ALLOC_COUNTING ? 1 : 0);
}
END_TEST

START_TEST(test_fill_mask_allocates_nothing)
{
    const alloc_case *c = &alloc_cases[_i];
    char *src = c->file ? read_grammar(c->grammar) : NULL;
    gcg_artifact *art = compile_eos(src ? src : c->grammar);
    free(src);
    gcg_matcher_options o;
    gcg_matcher_options_default(&o);
    o.max_mask_work = c->mask_work;
    gcg_matcher *m = NULL;
    ck_assert_int_eq(gcg_matcher_new(art, &o, &m, NULL), GCG_OK);
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)c->prefix, strlen(c->prefix), NULL), GCG_OK);
    uint32_t w[WORDS], b[WORDS];
    size_t unit = strlen(c->unit);
    unsigned long limited = 0;
    n_allocs = 0;
    for (uint32_t i = 0; i < c->repeat * unit; i++) {
        ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)c->unit + i % unit, 1, NULL), GCG_OK);
        counting = 1;
        gcg_status st = gcg_matcher_fill_mask(m, w, WORDS);
        counting = 0;
        ck_assert_msg(st == GCG_OK || (st == GCG_ERR_LIMIT && c->mask_work), "byte %u: %s", i,
                      gcg_status_str(st));
        limited += st == GCG_ERR_LIMIT;
        if (st == GCG_OK && i % 97 == 0) {
            ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, b, WORDS), GCG_OK);
            ck_assert_mem_eq(w, b, sizeof w);
        }
    }
    ck_assert_msg(n_allocs == 0, "case %d: %lu allocations in fill_mask", _i, n_allocs);
    if (c->mask_work)
        ck_assert_uint_gt(limited, 0);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

static Suite *alloc_suite(void)
{
    Suite *s = suite_create("mask_alloc");
    TCase *tc = tcase_create("alloc");
    tcase_add_test(tc, test_counter_counts);
    tcase_add_loop_test(tc, test_fill_mask_allocates_nothing, 0, sizeof alloc_cases / sizeof *alloc_cases);
    tcase_set_timeout(tc, 300);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(alloc_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
