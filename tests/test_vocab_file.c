/*
 * test_vocab_file.c — prepared vocabularies (.gcgv) and artifacts compiled
 * by reference to one (gcgc_options.vocab_by_reference).
 *
 * The fingerprint is stable (a fixed value for a fixed vocabulary, the same
 * from the compile library, the .gcgv and a self-contained artifact) and
 * tells vocabularies apart; a by-reference artifact opens only with its
 * vocabulary, with exact messages otherwise; its masks equal those of the
 * self-contained artifact and of brute force along a walk; two artifacts
 * share one vocabulary's memory; corrupted .gcgv files fail with exact
 * messages (kept as files in tests/data/vocab_corrupt/, made by
 * `test_vocab_file --write-corrupt DIR`).
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "artifact.h"
#include "gcgc.h"

#define CORRUPT_DIR GCG_SOURCE_ROOT "/tests/data/vocab_corrupt"

/* Tokens: a b ( ) ab (( )) a) and EOS (special) as id 8. */
static const char hex[] = "61\n62\n28\n29\n6162\n2828\n2929\n6129\n-\n";
static const char grammar[] = "root ::= \"(\" root \")\" | \"a\" | \"b\" root\n";
static const char grammar2[] = "root ::= (\"a\" | \"b\")+\n";

/* Plain returns: also used by --write-corrupt. */
static gcgc_vocab *small_vocab(const uint32_t *eos, uint32_t n_eos)
{
    char path[] = "/tmp/gcg_test_vocab_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    bool ok = write(fd, hex, strlen(hex)) == (ssize_t)strlen(hex);
    close(fd);
    gcgc_vocab *v = NULL;
    if (ok && gcgc_vocab_load_hex(path, eos, n_eos, &v, NULL) != GCG_OK)
        v = NULL;
    unlink(path);
    return v;
}

static const uint32_t EOS[] = {8};

/* Compiles src against v; the artifact bytes are malloc'ed into *out. */
static bool compile(const gcgc_vocab *v, const char *src, bool by_ref, uint8_t **out, size_t *n)
{
    gcgc_options opt;
    gcgc_options_default(&opt);
    opt.vocab_by_reference = by_ref;
    gcgc_result *r = NULL;
    bool ok = gcgc_compile(v, src, strlen(src), &opt, &r) == GCG_OK;
    const uint8_t *a = ok ? gcgc_result_artifact(r, n) : NULL;
    *out = a ? malloc(*n) : NULL;
    if (*out)
        memcpy(*out, a, *n);
    gcgc_result_free(r);
    return *out != NULL;
}

static gcg_vocabulary *open_vocab(const gcgc_vocab *v)
{
    uint8_t *bytes;
    size_t n;
    gcg_vocabulary *rv = NULL;
    if (gcgc_vocab_write(v, &bytes, &n) != GCG_OK)
        return NULL;
    if (gcg_vocabulary_open_memory(bytes, n, &rv, NULL) != GCG_OK)
        rv = NULL;
    free(bytes);
    return rv;
}

/* ---- container patching (layout in runtime/container.h) ----------------- */

static uint32_t get32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint64_t get64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static void put32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

static int entry_of(const uint8_t *p, uint32_t id)
{
    for (uint32_t i = 0; i < get32(p + 20); i++)
        if (get32(p + 48 + 32 * i) == id)
            return (int)i;
    return -1;
}

static uint8_t *section(uint8_t *p, uint32_t id)
{
    int e = entry_of(p, id);
    return e < 0 ? NULL : p + get64(p + 48 + 32 * e + 8);
}

static void reseal(uint8_t *p)
{
    uint32_t n = get32(p + 20);
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *ent = p + 48 + 32 * i;
        put64(ent + 24, XXH3_64bits(p + get64(ent + 8), (size_t)get64(ent + 16)));
    }
    put64(p + 32, 0);
    put64(p + 32, XXH3_64bits(p, 48 + 32 * (size_t)n));
}

/* ---- corrupt .gcgv cases -------------------------------------------------- */

typedef bool (*corrupt_fn)(uint8_t *p, size_t *n, char *want, size_t cap);

static bool c_missing_trie(uint8_t *p, size_t *n, char *want, size_t cap)
{
    (void)n;
    put32(p + 48 + 32 * entry_of(p, GCG_SEC_TRIE), 99);
    snprintf(want, cap, "missing section trie (id 14)");
    return true;
}

static bool c_fingerprint(uint8_t *p, size_t *n, char *want, size_t cap)
{
    (void)n;
    uint8_t *r = section(p, GCG_SEC_VOCAB_REF);
    put32(r + 8, get32(r + 8) ^ 1);
    snprintf(want, cap, "vocabulary section does not match its fingerprint %08x%08x", get32(r + 12),
             get32(r + 8));
    return true;
}

static bool c_vocab_counts(uint8_t *p, size_t *n, char *want, size_t cap)
{
    (void)n;
    uint8_t *v = section(p, GCG_SEC_VOCAB);
    put32(v + 8, get32(v + 8) + 1); /* one byte more than the section holds */
    snprintf(want, cap, "section vocab: size %llu does not match its counts",
             (unsigned long long)get64(p + 48 + 32 * entry_of(p, GCG_SEC_VOCAB) + 16));
    return true;
}

static bool c_trie_token(uint8_t *p, size_t *n, char *want, size_t cap)
{
    (void)n;
    uint8_t *t = section(p, GCG_SEC_TRIE);
    uint32_t nodes = get32(t);
    put32(t + 16 + 4 * (size_t)nodes + 4 * ((size_t)nodes + 1), 9); /* 9 tokens: 0..8 */
    snprintf(want, cap, "trie token 0 out of range");
    return true;
}

static const struct {
    const char *name;
    corrupt_fn fn;
} cases[] = {
    {"missing_trie", c_missing_trie},
    {"fingerprint", c_fingerprint},
    {"vocab_counts", c_vocab_counts},
    {"trie_token", c_trie_token},
};
#define N_CASES (sizeof cases / sizeof *cases)

/* The .gcgv of the small vocabulary with case i applied and resealed. */
static uint8_t *corrupt_gcgv(size_t i, size_t *n, char *want, size_t cap)
{
    gcgc_vocab *v = small_vocab(EOS, 1);
    uint8_t *p = NULL;
    if (!v || gcgc_vocab_write(v, &p, n) != GCG_OK || !cases[i].fn(p, n, want, cap)) {
        free(p);
        p = NULL;
    }
    if (p)
        reseal(p);
    gcgc_vocab_free(v);
    return p;
}

/* ---- tests ---------------------------------------------------------------------- */

START_TEST(test_fingerprint_stable)
{
    gcgc_vocab *v = small_vocab(EOS, 1), *w = small_vocab(EOS, 1), *x = small_vocab(NULL, 0);
    ck_assert_ptr_nonnull(v);
    ck_assert_ptr_nonnull(w);
    ck_assert_ptr_nonnull(x);
    uint64_t fp = gcgc_vocab_fingerprint(v);
    /* A fixed value: the canonical encoding (artifact_format.h) must not drift. */
    ck_assert_uint_eq(fp, 0xd63eecd58c2e3b94ull);
    ck_assert_uint_eq(gcgc_vocab_fingerprint(w), fp);
    ck_assert_uint_ne(gcgc_vocab_fingerprint(x), fp); /* no EOS: another vocabulary */
    gcg_vocabulary *rv = open_vocab(v);
    ck_assert_ptr_nonnull(rv);
    ck_assert_uint_eq(gcg_vocabulary_fingerprint(rv), fp);
    ck_assert_uint_eq(gcg_vocabulary_size(rv), 9);
    ck_assert_uint_eq(gcg_vocabulary_fingerprint(gcgc_vocab_runtime(v)), fp);
    uint8_t *art;
    size_t n;
    ck_assert(compile(v, grammar, false, &art, &n));
    gcg_artifact *a;
    ck_assert_int_eq(gcg_artifact_open_memory(art, n, &a, NULL), GCG_OK);
    bool embedded = false;
    ck_assert_uint_eq(gcg_artifact_vocab_fingerprint(a, &embedded), fp);
    ck_assert(embedded);
    gcg_artifact_free(a);
    free(art);
    gcg_vocabulary_free(rv);
    gcgc_vocab_free(v);
    gcgc_vocab_free(w);
    gcgc_vocab_free(x);
}
END_TEST

START_TEST(test_by_reference_open)
{
    gcgc_vocab *v = small_vocab(EOS, 1), *x = small_vocab(NULL, 0);
    gcg_vocabulary *rv = open_vocab(v), *rx = open_vocab(x);
    uint8_t *ref, *self;
    size_t nref, nself;
    ck_assert(compile(v, grammar, true, &ref, &nref));
    ck_assert(compile(v, grammar, false, &self, &nself));
    ck_assert_uint_lt(nref, nself);
    char want[256];
    gcg_error err;
    gcg_artifact *a = (gcg_artifact *)1;
    /* Without a vocabulary. */
    ck_assert_int_eq(gcg_artifact_open_memory(ref, nref, &a, &err), GCG_ERR_VOCAB_MISMATCH);
    ck_assert_ptr_null(a);
    snprintf(want, sizeof want,
             "this artifact was compiled against vocabulary fingerprint %016llx; open it with "
             "gcg_artifact_open_file_vocab",
             (unsigned long long)gcgc_vocab_fingerprint(v));
    ck_assert_str_eq(err.msg, want);
    ck_assert_str_eq(gcg_status_str(GCG_ERR_VOCAB_MISMATCH), "vocabulary mismatch");
    /* Another vocabulary, by reference and self-contained. */
    snprintf(want, sizeof want, "vocabulary does not match the artifact: fingerprint %016llx, expected %016llx",
             (unsigned long long)gcgc_vocab_fingerprint(x), (unsigned long long)gcgc_vocab_fingerprint(v));
    ck_assert_int_eq(gcg_artifact_open_memory_vocab(ref, nref, rx, &a, &err), GCG_ERR_VOCAB_MISMATCH);
    ck_assert_str_eq(err.msg, want);
    ck_assert_int_eq(gcg_artifact_open_memory_vocab(self, nself, rx, &a, &err), GCG_ERR_VOCAB_MISMATCH);
    ck_assert_str_eq(err.msg, want);
    /* Its own. */
    ck_assert_int_eq(gcg_artifact_open_memory_vocab(ref, nref, rv, &a, &err), GCG_OK);
    bool embedded = true;
    ck_assert_uint_eq(gcg_artifact_vocab_fingerprint(a, &embedded), gcgc_vocab_fingerprint(v));
    ck_assert(!embedded);
    ck_assert_uint_eq(gcg_artifact_vocab_size(a), 9);
    gcg_artifact_free(a);
    ck_assert_int_eq(gcg_artifact_open_memory_vocab(self, nself, rv, &a, &err), GCG_OK);
    gcg_artifact_free(a);
    free(ref), free(self);
    gcg_vocabulary_free(rv), gcg_vocabulary_free(rx);
    gcgc_vocab_free(v), gcgc_vocab_free(x);
}
END_TEST

/* Masks of both forms and brute force after each token of a walk. */
static void walk_compare(gcg_matcher *mr, gcg_matcher *ms, const uint32_t *tokens, uint32_t n)
{
    uint32_t a[1], b[1], c[1];
    for (uint32_t i = 0; i <= n; i++) {
        ck_assert_int_eq(gcg_matcher_fill_mask(mr, a, 1), GCG_OK);
        ck_assert_int_eq(gcg_matcher_fill_mask(ms, b, 1), GCG_OK);
        ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(mr, c, 1), GCG_OK);
        ck_assert_uint_eq(a[0], b[0]);
        ck_assert_uint_eq(a[0], c[0]);
        if (i < n) {
            ck_assert_int_eq(gcg_matcher_commit(mr, tokens[i]), GCG_OK);
            ck_assert_int_eq(gcg_matcher_commit(ms, tokens[i]), GCG_OK);
        }
    }
}

START_TEST(test_masks_equal)
{
    gcgc_vocab *v = small_vocab(EOS, 1);
    gcg_vocabulary *rv = open_vocab(v);
    uint8_t *ref, *self;
    size_t nref, nself;
    ck_assert(compile(v, grammar, true, &ref, &nref));
    ck_assert(compile(v, grammar, false, &self, &nself));
    gcg_artifact *ar, *as;
    ck_assert_int_eq(gcg_artifact_open_memory_vocab(ref, nref, rv, &ar, NULL), GCG_OK);
    ck_assert_int_eq(gcg_artifact_open_memory(self, nself, &as, NULL), GCG_OK);
    gcg_matcher *mr, *ms;
    ck_assert_int_eq(gcg_matcher_new(ar, NULL, &mr, NULL), GCG_OK);
    ck_assert_int_eq(gcg_matcher_new(as, NULL, &ms, NULL), GCG_OK);
    /* b (( b a ) ) a) : "b((ba))" then "a)" closes nothing more: stop before. */
    static const uint32_t walk[] = {1, 5, 1, 0, 3, 3};
    walk_compare(mr, ms, walk, sizeof walk / sizeof *walk);
    ck_assert(gcg_matcher_is_complete(mr));
    gcg_matcher_free(mr), gcg_matcher_free(ms);
    gcg_artifact_free(ar), gcg_artifact_free(as);
    free(ref), free(self);
    gcg_vocabulary_free(rv);
    gcgc_vocab_free(v);
}
END_TEST

START_TEST(test_two_artifacts_share)
{
    gcgc_vocab *v = small_vocab(EOS, 1);
    gcg_vocabulary *rv = open_vocab(v);
    uint8_t *p1, *p2;
    size_t n1, n2;
    ck_assert(compile(v, grammar, true, &p1, &n1));
    ck_assert(compile(v, grammar2, true, &p2, &n2));
    gcg_artifact *a1, *a2;
    ck_assert_int_eq(gcg_artifact_open_memory_vocab(p1, n1, rv, &a1, NULL), GCG_OK);
    ck_assert_int_eq(gcg_artifact_open_memory_vocab(p2, n2, rv, &a2, NULL), GCG_OK);
    free(p1), free(p2);
    uint32_t l1, l2;
    const uint8_t *b1 = gcg_artifact_token_bytes(a1, 4, &l1), *b2 = gcg_artifact_token_bytes(a2, 4, &l2);
    ck_assert_ptr_eq(b1, b2); /* one copy of the vocabulary */
    ck_assert_uint_eq(l1, 2);
    ck_assert_mem_eq(b1, "ab", 2);
    gcg_matcher *m;
    ck_assert_int_eq(gcg_matcher_new(a2, NULL, &m, NULL), GCG_OK);
    ck_assert_int_eq(gcg_matcher_commit(m, 4), GCG_OK);
    ck_assert_int_eq(gcg_matcher_commit(m, 2), GCG_ERR_REJECTED);
    ck_assert_int_eq(gcg_matcher_commit_eos(m), GCG_OK);
    gcg_matcher_free(m);
    gcg_artifact_free(a1), gcg_artifact_free(a2);
    gcg_vocabulary_free(rv);
    gcgc_vocab_free(v);
}
END_TEST

START_TEST(test_corrupt_gcgv)
{
    char want[256];
    size_t n;
    uint8_t *p = corrupt_gcgv((size_t)_i, &n, want, sizeof want);
    ck_assert_ptr_nonnull(p);
    gcg_vocabulary *rv = (gcg_vocabulary *)1;
    gcg_error err;
    ck_assert_int_eq(gcg_vocabulary_open_memory(p, n, &rv, &err), GCG_ERR_FORMAT);
    ck_assert_ptr_null(rv);
    ck_assert_msg(strcmp(err.msg, want) == 0, "%s: \"%s\", want \"%s\"", cases[_i].name, err.msg, want);
    free(p);
}
END_TEST

START_TEST(test_vocab_open_errors)
{
    gcg_vocabulary *rv = (gcg_vocabulary *)1;
    gcg_error err;
    ck_assert_int_eq(gcg_vocabulary_open_memory(NULL, 10, &rv, &err), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_vocabulary_open_file(NULL, &rv, &err), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_vocabulary_open_file("/nonexistent/x.gcgv", &rv, &err), GCG_ERR_IO);
    ck_assert_str_eq(err.msg, "/nonexistent/x.gcgv: No such file or directory");
    ck_assert_int_eq(gcg_vocabulary_open_memory("abc", 3, &rv, &err), GCG_ERR_FORMAT);
    ck_assert_str_eq(err.msg, "truncated: need 48 bytes of header, have 3");
    /* A by-reference grammar artifact is no vocabulary. */
    gcgc_vocab *v = small_vocab(EOS, 1);
    uint8_t *ref;
    size_t n;
    ck_assert(compile(v, grammar, true, &ref, &n));
    ck_assert_int_eq(gcg_vocabulary_open_memory(ref, n, &rv, &err), GCG_ERR_FORMAT);
    ck_assert_str_eq(err.msg, "missing section vocab (id 9)");
    ck_assert_uint_eq(gcg_vocabulary_size(NULL), 0);
    gcg_vocabulary_free(NULL);
    free(ref);
    gcgc_vocab_free(v);
}
END_TEST

/* Every file of the corrupt folder fails to open from disk. */
START_TEST(test_corrupt_folder)
{
    DIR *dir = opendir(CORRUPT_DIR);
    ck_assert_ptr_nonnull(dir);
    struct dirent *e;
    uint32_t count = 0;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", CORRUPT_DIR, e->d_name);
        gcg_vocabulary *rv = (gcg_vocabulary *)1;
        ck_assert_msg(gcg_vocabulary_open_file(path, &rv, NULL) == GCG_ERR_FORMAT, "%s opened", e->d_name);
        ck_assert_ptr_null(rv);
        count++;
    }
    closedir(dir);
    ck_assert_uint_eq(count, N_CASES);
}
END_TEST

static int write_corrupt(const char *dir)
{
    mkdir(dir, 0755);
    for (size_t i = 0; i < N_CASES; i++) {
        char want[256], path[1024];
        size_t n;
        uint8_t *p = corrupt_gcgv(i, &n, want, sizeof want);
        snprintf(path, sizeof path, "%s/%s.gcgv", dir, cases[i].name);
        FILE *f = p ? fopen(path, "wb") : NULL;
        if (!f || fwrite(p, 1, n, f) != n) {
            fprintf(stderr, "%s: cannot write\n", path);
            return 1;
        }
        fclose(f);
        free(p);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-corrupt") == 0)
        return write_corrupt(argv[2]);
    Suite *s = suite_create("vocab_file");
    TCase *tc = tcase_create("vocab");
    tcase_add_test(tc, test_fingerprint_stable);
    tcase_add_test(tc, test_by_reference_open);
    tcase_add_test(tc, test_masks_equal);
    tcase_add_test(tc, test_two_artifacts_share);
    tcase_add_test(tc, test_vocab_open_errors);
    tcase_add_loop_test(tc, test_corrupt_gcgv, 0, N_CASES);
    tcase_add_test(tc, test_corrupt_folder);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
