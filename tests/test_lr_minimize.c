/*
 * test_lr_minimize.c — the merged LR tables (compiler/lr_minimize.h)
 * recognize what the built ones did: on every shipped grammar and on
 * schema-shaped ones (and a fork whose stacks differ in a shift, so stay
 * apart), the masks and completions of the two artifacts are equal at every
 * step of random walks; each grammar's state counts, merged and built, are
 * exact. The exact merges of small grammars are in test_lr.c.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "gcg.h"
#include "vocab.h"

/* ---- the merged tables recognize what the built ones did ----------------- */

/* Every byte, and a few longer tokens, then EOS (special, no bytes). */
static void vocab_make(gcg_vocab *v)
{
    static const char *const multi[] = {"  ", "\":", "{\"", "\"}", "true", "null", "12", "\",\"", "if", "int ",
                                        "();", "\n  ", "e4", "Nf3", "O-O", "# ", "**", "é", "\xF0\x9F\x98\x80", "ab"};
    uint32_t n_multi = sizeof multi / sizeof *multi, n = 255 + n_multi + 1, total = 255;
    for (uint32_t i = 0; i < n_multi; i++)
        total += (uint32_t)strlen(multi[i]);
    memset(v, 0, sizeof *v);
    v->n_tokens = n;
    v->offsets = malloc(((size_t)n + 1) * sizeof *v->offsets);
    v->bytes = malloc(total + 1);
    v->flags = calloc(n + 1, 1);
    ck_assert(v->offsets && v->bytes && v->flags);
    uint32_t at = 0, id = 0;
    for (uint32_t c = 1; c < 256; c++)
        v->offsets[id++] = at, v->bytes[at++] = (uint8_t)c;
    for (uint32_t i = 0; i < n_multi; i++) {
        v->offsets[id++] = at;
        memcpy(v->bytes + at, multi[i], strlen(multi[i]));
        at += (uint32_t)strlen(multi[i]);
    }
    uint32_t eos = n - 1;
    v->offsets[eos] = at, v->offsets[n] = at;
    v->flags[eos] = GCG_TOKEN_SPECIAL;
    ck_assert_int_eq(gcg_vocab_set_eos(v, &eos, 1, NULL), GCG_OK);
}

static gcg_artifact *compile(const char *src, size_t len, const gcg_vocab *v, bool no_merge, gcg_compile_stats *stats)
{
    gcg_compile_options opt = {0};
    opt.vocab = v;
    opt.no_lr_merge = no_merge;
    gcg_diag d;
    gcg_diag_init(&d, "t.gbnf");
    uint8_t *bytes = NULL;
    size_t size = 0;
    gcg_status st = gcg_compile(src, len, &opt, false, &bytes, &size, stats, &d);
    if (st != GCG_OK)
        gcg_diag_print(&d, stderr);
    ck_assert_int_eq(st, GCG_OK);
    gcg_diag_free(&d);
    gcg_artifact *art = NULL;
    gcg_error err;
    ck_assert_int_eq(gcg_artifact_open_memory(bytes, size, &art, &err), GCG_OK);
    free(bytes);
    return art;
}

/* Random walks over both artifacts: equal masks and completions at every
 * step, each token drawn from the mask. */
static void same_walks(gcg_artifact *merged, gcg_artifact *built_art, const char *name)
{
    size_t words = gcg_artifact_mask_words(merged);
    ck_assert_uint_eq(words, gcg_artifact_mask_words(built_art));
    uint32_t *a = malloc(words * 4), *b = malloc(words * 4), n_eos = 0;
    const uint32_t *eos = gcg_artifact_eos(merged, &n_eos);
    ck_assert_uint_eq(n_eos, 1);
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    for (int w = 0; w < 40; w++) {
        gcg_matcher *m = NULL, *n = NULL;
        ck_assert_int_eq(gcg_matcher_new(merged, NULL, &m, NULL), GCG_OK);
        ck_assert_int_eq(gcg_matcher_new(built_art, NULL, &n, NULL), GCG_OK);
        for (int step = 0; step < 80; step++) {
            ck_assert_int_eq(gcg_matcher_fill_mask(m, a, words), GCG_OK);
            ck_assert_int_eq(gcg_matcher_fill_mask(n, b, words), GCG_OK);
            ck_assert_msg(memcmp(a, b, words * 4) == 0, "%s: masks differ, walk %d step %d", name, w, step);
            ck_assert_int_eq(gcg_matcher_is_complete(m), gcg_matcher_is_complete(n));
            uint32_t ids[512], k = 0;
            for (uint32_t t = 0; t < words * 32 && k < 512; t++)
                if ((a[t >> 5] >> (t & 31)) & 1 && t != eos[0])
                    ids[k++] = t;
            if (k == 0)
                break;
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t id = ids[(rng >> 33) % k];
            ck_assert_int_eq(gcg_matcher_commit(m, id), GCG_OK);
            ck_assert_int_eq(gcg_matcher_commit(n, id), GCG_OK);
        }
        gcg_matcher_free(m), gcg_matcher_free(n);
    }
    free(a), free(b);
}

static void same_either_way(const char *src, size_t len, const char *name, uint32_t states, uint32_t built_states)
{
    gcg_vocab v;
    vocab_make(&v);
    gcg_compile_stats sm, sb;
    gcg_artifact *merged = compile(src, len, &v, false, &sm), *plain = compile(src, len, &v, true, &sb);
    ck_assert_uint_eq(sb.lr_states, sb.lr_states_built);
    ck_assert_uint_eq(sm.lr_states_built, sb.lr_states);
    ck_assert_msg(sm.lr_states == states && sb.lr_states == built_states, "%s: %u states of %u built", name,
                  sm.lr_states, sb.lr_states);
    same_walks(merged, plain, name);
    gcg_artifact_free(merged), gcg_artifact_free(plain);
    gcg_vocab_free(&v);
}

static const struct {
    const char *name;
    uint32_t states, built;
} shipped[] = {
    {"json", 109, 126}, {"arith", 42, 45}, {"c_subset", 442, 560}, {"chess", 85, 94},
    {"markdown", 171, 240}, {"unicode", 169, 236}, {"ambiguous", 62, 63},
};

START_TEST(shipped_grammars_same_masks)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/grammars/%s.gbnf", GCG_SOURCE_ROOT, shipped[_i].name);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static char src[1 << 16];
    size_t len = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    src[len] = 0;
    same_either_way(src, len, shipped[_i].name, shipped[_i].states, shipped[_i].built);
}
END_TEST

/* Object grammars as the schema converter writes them: members in order,
 * the optional ones in chains whose links meet (last0 "," ... | more ","),
 * whitespace that meets whitespace, and a fork. */
static const struct {
    const char *src;
    uint32_t states, built;
} shaped[] = {
    {"root ::= \"{\" ws (kv0 | kv1) more* \"}\"\n"
     "kv0 ::= \"\\\"a\\\"\" ws \":\" ws val ws\nkv1 ::= \"\\\"b\\\"\" ws \":\" ws val ws\n"
     "more ::= \",\" ws (kv0 | kv1)\nval ::= [0-9]+ | \"\\\"\" [a-z]* \"\\\"\"\nws ::= [ \\n]*\n",
     36, 37},
    {"root ::= s \"!\"\ns ::= a \"x\" | b \"x\" \"x\"?\na ::= \"p\"\nb ::= \"p\" | \"q\"\n", 14, 14},
    {"root ::= (\"a\" t | \"b\" t)+\nt ::= \"x\"{1,5} \";\"\n", 19, 21},
};

START_TEST(shaped_grammars_same_masks)
{
    char name[32];
    snprintf(name, sizeof name, "shaped %d", _i);
    same_either_way(shaped[_i].src, strlen(shaped[_i].src), name, shaped[_i].states, shaped[_i].built);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("lr_minimize");
    TCase *c = tcase_create("core");
    tcase_set_timeout(c, 300);
    tcase_add_loop_test(c, shipped_grammars_same_masks, 0, sizeof shipped / sizeof *shipped);
    tcase_add_loop_test(c, shaped_grammars_same_masks, 0, sizeof shaped / sizeof *shaped);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
