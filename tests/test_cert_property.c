/*
 * test_cert_property.c — the latency certificate is a true bound: on random
 * grammars (tests/ref/randgram.h) compiled with the 256-byte vocabulary
 * (EOS 256), long random walks never see a mask do more than the
 * certificate says: set operations always, stack reads and edges (in total,
 * over the whole mask) whenever it is bounded.
 *
 * A walk commits bytes drawn from the mask; half the time it repeats the
 * previous byte while the mask allows it, so runs (of whitespace-like or
 * ambiguous material) grow long: those are what widen the stack. Commits run
 * under max_commit_work so that a grammar ambiguous enough to be cubic ends
 * its walk (GCG_ERR_LIMIT) instead of the test. Every 64 steps the mask is
 * checked against the brute force as well. Every commit, and the end-of-input
 * check after each walk, is held to the commit bound where one is stated
 * (the most work one GLR step does: compiler/commit_bound.h).
 *
 * Knobs: GCG_CERTPROP_SEED (first grammar seed), GCG_CERTPROP_GRAMMARS,
 * GCG_CERTPROP_LEN (bytes per walk). A failure names the seed, the grammar
 * and the committed text's length.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "gcg.h"
#include "randgram.h"
#include "vocab.h"

#define WORDS 9
#define WALKS 3

static uint64_t env_u64(const char *name, uint64_t def)
{
    const char *v = getenv(name);
    return v && *v ? strtoull(v, NULL, 10) : def;
}

static gcg_artifact *compile_bytes(const char *src)
{
    gcg_vocab v;
    uint32_t eos = 256;
    if (gcg_vocab_bytes256(&eos, 1, &v) != GCG_OK)
        return NULL;
    gcg_compile_options opt = {0};
    opt.vocab = &v;
    gcg_diag d;
    gcg_diag_init(&d, "rand.gbnf");
    uint8_t *bytes = NULL;
    size_t size = 0;
    gcg_status st = gcg_compile(src, strlen(src), &opt, false, &bytes, &size, NULL, &d);
    gcg_diag_free(&d);
    gcg_vocab_free(&v);
    gcg_artifact *art = NULL;
    if (st == GCG_OK)
        gcg_artifact_open_memory(bytes, size, &art, NULL);
    free(bytes);
    return art;
}

/* A byte the mask allows: the previous one half the time, if allowed. */
static int pick(const uint32_t *w, int prev, uint64_t *rng)
{
    if (prev >= 0 && (w[prev >> 5] >> (prev & 31) & 1) && rg_rand(rng) % 2)
        return prev;
    int allowed[256], n = 0;
    for (int b = 0; b < 256; b++)
        if (w[b >> 5] >> (b & 31) & 1)
            allowed[n++] = b;
    return n ? allowed[rg_rand(rng) % (uint64_t)n] : -1;
}

typedef struct walk_max {
    uint32_t reads, edges, set_ops;
    uint64_t step_work;
} walk_max;

/* The last commit's costliest step against the commit bound. */
static void check_commit(gcg_matcher *m, const gcg_certificate *c, uint64_t seed, size_t i, walk_max *mx)
{
    gcg_commit_stats cs;
    gcg_matcher_last_commit_stats(m, &cs);
    mx->step_work = cs.max_step_work > mx->step_work ? cs.max_step_work : mx->step_work;
    if (c->commit_bounded)
        ck_assert_msg(cs.max_step_work <= c->max_commit_step_work, "seed %llu, %zu bytes: a step of %llu work > %u",
                      (unsigned long long)seed, i, (unsigned long long)cs.max_step_work, c->max_commit_step_work);
}

/* One walk of at most len bytes, keeping the largest mask seen in *mx. */
static void walk(gcg_matcher *m, const gcg_certificate *c, uint64_t seed, uint64_t *rng, size_t len, walk_max *mx)
{
    uint32_t w[WORDS], b[WORDS];
    int prev = -1;
    for (size_t i = 0; i <= len; i++) {
        ck_assert_int_eq(gcg_matcher_fill_mask(m, w, WORDS), GCG_OK);
        gcg_mask_stats s;
        gcg_matcher_last_mask_stats(m, &s);
        mx->reads = s.stack_reads > mx->reads ? s.stack_reads : mx->reads;
        mx->edges = s.edges > mx->edges ? s.edges : mx->edges;
        mx->set_ops = s.set_ops > mx->set_ops ? s.set_ops : mx->set_ops;
        ck_assert_msg(s.set_ops <= c->max_set_ops, "seed %llu, %zu bytes: %u set operations > %u",
                      (unsigned long long)seed, i, s.set_ops, c->max_set_ops);
        if (c->bounded)
            ck_assert_msg(s.stack_reads <= c->max_stack_reads && s.edges <= c->max_edges,
                          "seed %llu, %zu bytes: %u reads, %u edges > %u, %u", (unsigned long long)seed, i,
                          s.stack_reads, s.edges, c->max_stack_reads, c->max_edges);
        if (i % 64 == 0) {
            ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, b, WORDS), GCG_OK);
            ck_assert_msg(memcmp(w, b, sizeof w) == 0, "seed %llu, %zu bytes: mask differs from brute force",
                          (unsigned long long)seed, i);
        }
        int byte = pick(w, prev, rng);
        if (byte < 0)
            break;
        uint8_t u = (uint8_t)byte;
        gcg_status st = gcg_matcher_commit_bytes(m, &u, 1, NULL);
        if (st == GCG_ERR_LIMIT)
            return;
        check_commit(m, c, seed, i, mx);
        ck_assert_msg(st == GCG_OK, "seed %llu: byte 0x%02x from the mask: %s", (unsigned long long)seed, u,
                      gcg_status_str(st));
        prev = byte;
    }
    if (gcg_matcher_commit_eos(m) != GCG_ERR_LIMIT)
        check_commit(m, c, seed, len, mx);
}

START_TEST(test_certificate_holds)
{
    uint64_t first = env_u64("GCG_CERTPROP_SEED", 1), n = env_u64("GCG_CERTPROP_GRAMMARS", 100);
    size_t len = (size_t)env_u64("GCG_CERTPROP_LEN", 600);
    uint32_t tried = 0, bounded = 0, commit_bounded = 0;
    walk_max all = {0, 0, 0, 0};
    for (uint64_t seed = first; seed < first + n; seed++) {
        rg_grammar *g = rg_generate(seed);
        ck_assert_ptr_nonnull(g);
        gcg_artifact *art = compile_bytes(rg_text(g));
        if (!art) { /* a grammar the compiler refuses: nothing to bound */
            rg_free(g);
            continue;
        }
        gcg_certificate c;
        ck_assert_int_eq(gcg_artifact_certificate(art, &c), GCG_OK);
        gcg_matcher_options o;
        gcg_matcher_options_default(&o);
        o.max_commit_work = 1u << 18;
        o.max_rollback = 0;
        gcg_matcher *m = NULL;
        ck_assert_int_eq(gcg_matcher_new(art, &o, &m, NULL), GCG_OK);
        uint64_t rng = seed * 0x9E3779B97F4A7C15ull;
        for (int k = 0; k < WALKS; k++) {
            gcg_matcher_reset(m);
            walk(m, &c, seed, &rng, len, &all);
        }
        tried++;
        bounded += c.bounded;
        commit_bounded += c.commit_bounded;
        gcg_matcher_free(m);
        gcg_artifact_free(art);
        rg_free(g);
    }
    /* The sample must hold both kinds, or the test proves little. */
    ck_assert_uint_gt(bounded, 0);
    ck_assert_uint_lt(bounded, tried);
    ck_assert_uint_gt(commit_bounded, 0);
    ck_assert_uint_lt(commit_bounded, tried);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cert_property");
    TCase *tc = tcase_create("random");
    tcase_add_test(tc, test_certificate_holds);
    tcase_set_timeout(tc, 600);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
