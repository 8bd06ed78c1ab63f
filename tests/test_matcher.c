/*
 * test_matcher.c — the matcher's public contract (gcg.h), through
 * gcg_compile, gcg_artifact_open_memory and gcg_matcher_*:
 *
 *   - atomic commit: a rejected commit_bytes leaves completeness, rollback
 *     depth, the mask and what later commits do exactly as before, and
 *     `consumed` is the exact offset of the first byte that fails;
 *   - rollback of n commits restores the state after the earlier commit;
 *     GCG_ERR_ROLLBACK past the kept history (max_rollback), changing
 *     nothing; max_rollback 0;
 *   - reset, also after the history has dropped its oldest entries;
 *   - commit_eos / is_terminated / GCG_ERR_TERMINATED, EOS tokens;
 *   - token commits: EOS ids, special ids, ids out of range;
 *   - masks: fill_mask and fill_mask_bruteforce on the 256-byte vocabulary
 *     (with EOS 256) equal the set of bytes b for which commit_bytes(b)
 *     succeeds, and the EOS bit equals is_complete — in many states of
 *     several grammars; bits past the vocabulary are zero, extra words are
 *     untouched, a short buffer is GCG_ERR_ARG;
 *   - work limits (max_commit_work, max_mask_work) on grammars/ambiguous.gbnf:
 *     GCG_ERR_LIMIT at a known length of the run, the matcher unchanged;
 *   - two whitespace rules that meet: commit and mask work after 4,000
 *     spaces equal to that after 40 (equal stack nodes are shared).
 *
 * "State" below is compared by a snapshot: is_complete, is_terminated,
 * rollback depth and the brute-force mask.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "gcg.h"
#include "vocab.h"
#include "test_files.h"

#define EOS_ID 256u
#define WORDS 9 /* 257 tokens */

/* Work limits on grammars/ambiguous.gbnf after "x = " and a run of a's: the
 * commit of the k-th a is the first to pass AMB_COMMIT_LIMIT units when
 * k = AMB_COMMIT_LIMIT_AT; the mask after AMB_MASK_LIMIT_AT a's is the first
 * to follow more than AMB_MASK_LIMIT edges. */
#define AMB_COMMIT_LIMIT 10000u
#define AMB_COMMIT_LIMIT_AT 79u
#define AMB_MASK_LIMIT 50u
#define AMB_MASK_LIMIT_AT 46u

/* ---- helpers ------------------------------------------------------------ */

/* Compiles src against the 256 single bytes plus EOS 256. */
static gcg_artifact *compile_eos(const char *src)
{
    gcg_vocab v;
    uint32_t eos = EOS_ID;
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
    gcg_error err;
    ck_assert_int_eq(gcg_artifact_open_memory(bytes, size, &art, &err), GCG_OK);
    free(bytes);
    ck_assert_uint_eq(gcg_artifact_vocab_size(art), 257);
    ck_assert_uint_eq(gcg_artifact_mask_words(art), WORDS);
    return art;
}

static gcg_matcher *matcher(const gcg_artifact *art, uint32_t max_rollback)
{
    gcg_matcher_options o;
    gcg_matcher_options_default(&o);
    o.max_rollback = max_rollback;
    gcg_matcher *m = NULL;
    ck_assert_int_eq(gcg_matcher_new(art, &o, &m, NULL), GCG_OK);
    return m;
}

static gcg_status commit_str(gcg_matcher *m, const char *s)
{
    return gcg_matcher_commit_bytes(m, (const uint8_t *)s, strlen(s), NULL);
}

typedef struct snapshot {
    bool complete, terminated;
    uint32_t depth;
    uint32_t mask[WORDS];
} snapshot;

static snapshot snap(gcg_matcher *m)
{
    snapshot s;
    memset(&s, 0, sizeof s);
    s.complete = gcg_matcher_is_complete(m);
    s.terminated = gcg_matcher_is_terminated(m);
    s.depth = gcg_matcher_rollback_depth(m);
    ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, s.mask, WORDS), GCG_OK);
    return s;
}

static void expect_snap(const snapshot *a, const snapshot *b)
{
    ck_assert_int_eq(a->complete, b->complete);
    ck_assert_int_eq(a->terminated, b->terminated);
    ck_assert_uint_eq(a->depth, b->depth);
    for (int i = 0; i < WORDS; i++)
        ck_assert_msg(a->mask[i] == b->mask[i], "mask word %d: 0x%08x vs 0x%08x", i, a->mask[i],
                      b->mask[i]);
}

static bool bit(const uint32_t *w, uint32_t i)
{
    return (w[i >> 5] >> (i & 31)) & 1u;
}

/* The mask by definition: byte b is allowed iff committing it succeeds. */
static void mask_by_commits(gcg_matcher *m, uint32_t *w)
{
    memset(w, 0, WORDS * sizeof *w);
    uint32_t depth = gcg_matcher_rollback_depth(m);
    bool complete = gcg_matcher_is_complete(m);
    for (uint32_t b = 0; b < 256; b++) {
        uint8_t byte = (uint8_t)b;
        gcg_status st = gcg_matcher_commit_bytes(m, &byte, 1, NULL);
        if (st == GCG_OK) {
            w[b >> 5] |= 1u << (b & 31);
            ck_assert_int_eq(gcg_matcher_rollback(m, 1), GCG_OK);
        } else {
            ck_assert_int_eq(st, gcg_matcher_is_terminated(m) ? GCG_ERR_TERMINATED : GCG_ERR_REJECTED);
        }
        ck_assert_uint_eq(gcg_matcher_rollback_depth(m), depth);
    }
    if (complete)
        w[EOS_ID >> 5] |= 1u << (EOS_ID & 31);
}

/* Both mask builders equal the definition in m's current state. */
static void check_masks(gcg_matcher *m, const char *where)
{
    uint32_t want[WORDS], fast[WORDS + 2], brute[WORDS + 2];
    mask_by_commits(m, want);
    for (int i = 0; i < WORDS + 2; i++)
        fast[i] = brute[i] = 0xA5A5A5A5u;
    ck_assert_int_eq(gcg_matcher_fill_mask(m, fast, WORDS + 1), GCG_OK);
    ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, brute, WORDS + 1), GCG_OK);
    for (int i = 0; i < WORDS; i++) {
        ck_assert_msg(fast[i] == want[i], "%s: fill_mask word %d: 0x%08x, want 0x%08x", where, i,
                      fast[i], want[i]);
        ck_assert_msg(brute[i] == want[i], "%s: bruteforce word %d: 0x%08x, want 0x%08x", where, i,
                      brute[i], want[i]);
    }
    /* Bits 257..287 of the last word are zero (257 tokens); the words past
     * mask_words are untouched. */
    ck_assert_uint_eq(fast[WORDS - 1] & ~1u, 0);
    ck_assert_uint_eq(fast[WORDS], 0xA5A5A5A5u);
    ck_assert_uint_eq(brute[WORDS], 0xA5A5A5A5u);
    ck_assert_int_eq(bit(fast, EOS_ID), gcg_matcher_is_complete(m));
}

/* ---- atomic commit ------------------------------------------------------- */

START_TEST(test_reject_leaves_state)
{
    char *src = test_read_grammar("json");
    gcg_artifact *art = compile_eos(src);
    gcg_matcher *m = matcher(art, 32);
    ck_assert_int_eq(commit_str(m, "[1,"), GCG_OK);
    snapshot before = snap(m);
    ck_assert(!before.complete);
    ck_assert_uint_eq(before.depth, 1);

    size_t consumed = 99;
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"2x3", 3, &consumed), GCG_ERR_REJECTED);
    ck_assert_uint_eq(consumed, 1);
    snapshot after = snap(m);
    expect_snap(&before, &after);

    /* Rejected at the very first byte, and at the very last. */
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"]", 1, &consumed), GCG_ERR_REJECTED);
    ck_assert_uint_eq(consumed, 0);
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"23 , 4}", 7, &consumed),
                     GCG_ERR_REJECTED);
    ck_assert_uint_eq(consumed, 6);
    after = snap(m);
    expect_snap(&before, &after);

    /* What follows behaves as if nothing had been tried. */
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"23 , 4]", 7, &consumed), GCG_OK);
    ck_assert_uint_eq(consumed, 7);
    ck_assert(gcg_matcher_is_complete(m));
    ck_assert_uint_eq(gcg_matcher_rollback_depth(m), 2);
    ck_assert_int_eq(gcg_matcher_rollback(m, 1), GCG_OK);
    after = snap(m);
    expect_snap(&before, &after);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
    free(src);
}
END_TEST

typedef struct consumed_case {
    const char *text;
    size_t consumed; /* (size_t)-1: accepted */
} consumed_case;

static const consumed_case consumed_cases[] = {
    {"[1,2,]", 5},       {"{\"a\":1,}", 7},     {"[01]", 2},         {"\"abc\x01\"", 4},
    {"tru", (size_t)-1}, {"trux", 3},           {"nul l", 3},        {"[1 2]", 3},
    {" \t\n[ ]", (size_t)-1}, {"\"\xc3\xa9\"", (size_t)-1}, {"\"\xc3\x28\"", 2},
    {"\"\xed\xa0\x80\"", 2}, {"\"\xf4\x90\"", 2}, {"\"\xc0\xaf\"", 1}, {"-", (size_t)-1},
    {"-a", 1},           {"1.e5", 2},           {"[[[[[[]]]]]]]", 12}, {"", (size_t)-1},
};

START_TEST(test_consumed_offset)
{
    const consumed_case *c = &consumed_cases[_i];
    char *src = test_read_grammar("json");
    gcg_artifact *art = compile_eos(src);
    gcg_matcher *m = matcher(art, 8);
    size_t n = strlen(c->text), consumed = 12345;
    gcg_status st = gcg_matcher_commit_bytes(m, (const uint8_t *)c->text, n, &consumed);
    if (c->consumed == (size_t)-1) {
        ck_assert_int_eq(st, GCG_OK);
        ck_assert_uint_eq(consumed, n);
        ck_assert_uint_eq(gcg_matcher_rollback_depth(m), 1);
    } else {
        ck_assert_int_eq(st, GCG_ERR_REJECTED);
        ck_assert_uint_eq(consumed, c->consumed);
        ck_assert_uint_eq(gcg_matcher_rollback_depth(m), 0);
        /* The prefix before the offset is accepted, one more byte is not. */
        ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)c->text, c->consumed, NULL), GCG_OK);
        ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)c->text + c->consumed, 1, NULL),
                         GCG_ERR_REJECTED);
    }
    gcg_matcher_free(m);
    gcg_artifact_free(art);
    free(src);
}
END_TEST

START_TEST(test_empty_commit)
{
    gcg_artifact *art = compile_eos("root ::= \"ab\"\n");
    gcg_matcher *m = matcher(art, 4);
    size_t consumed = 7;
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, NULL, 0, &consumed), GCG_OK);
    ck_assert_uint_eq(consumed, 0);
    ck_assert_uint_eq(gcg_matcher_rollback_depth(m), 1); /* one (empty) step */
    ck_assert(!gcg_matcher_is_complete(m));
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, NULL, 3, NULL), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_matcher_commit_bytes(NULL, (const uint8_t *)"a", 1, NULL), GCG_ERR_ARG);
    ck_assert_int_eq(commit_str(m, "ab"), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* ---- rollback ------------------------------------------------------------ */

START_TEST(test_rollback_n)
{
    char *src = test_read_grammar("json");
    gcg_artifact *art = compile_eos(src);
    gcg_matcher *m = matcher(art, 32);
    static const char *const steps[] = {"{", "\"k\"", ":", " [", "1", ",", "2", "]", "}"};
    snapshot at[10];
    at[0] = snap(m);
    for (int i = 0; i < 9; i++) {
        ck_assert_int_eq(commit_str(m, steps[i]), GCG_OK);
        at[i + 1] = snap(m);
        ck_assert_uint_eq(at[i + 1].depth, (uint32_t)i + 1);
    }
    ck_assert(at[9].complete);
    for (uint32_t n = 1; n <= 9; n++) {
        ck_assert_int_eq(gcg_matcher_rollback(m, n), GCG_OK);
        snapshot s = snap(m);
        expect_snap(&s, &at[9 - n]);
        for (uint32_t i = 9 - n; i < 9; i++)
            ck_assert_int_eq(commit_str(m, steps[i]), GCG_OK);
        s = snap(m);
        expect_snap(&s, &at[9]);
    }
    /* Past the history: an error, nothing changes. */
    ck_assert_int_eq(gcg_matcher_rollback(m, 10), GCG_ERR_ROLLBACK);
    snapshot s = snap(m);
    expect_snap(&s, &at[9]);
    ck_assert_int_eq(gcg_matcher_rollback(m, 0), GCG_OK);
    s = snap(m);
    expect_snap(&s, &at[9]);
    ck_assert_int_eq(gcg_matcher_rollback(m, 9), GCG_OK);
    s = snap(m);
    expect_snap(&s, &at[0]);
    ck_assert_int_eq(gcg_matcher_rollback(m, 1), GCG_ERR_ROLLBACK);
    ck_assert_int_eq(gcg_matcher_rollback(NULL, 1), GCG_ERR_ARG);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
    free(src);
}
END_TEST

START_TEST(test_rollback_limited_history)
{
    gcg_artifact *art = compile_eos("root ::= [a-z]+\n");
    gcg_matcher *m = matcher(art, 3);
    snapshot at[6];
    at[0] = snap(m);
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(commit_str(m, i % 2 ? "b" : "cd"), GCG_OK);
        at[i + 1] = snap(m);
    }
    ck_assert_uint_eq(gcg_matcher_rollback_depth(m), 3);
    ck_assert_uint_eq(at[2].depth, 2);
    ck_assert_uint_eq(at[5].depth, 3);
    ck_assert_int_eq(gcg_matcher_rollback(m, 4), GCG_ERR_ROLLBACK);
    ck_assert_uint_eq(gcg_matcher_rollback_depth(m), 3);
    ck_assert_int_eq(gcg_matcher_rollback(m, 3), GCG_OK);
    snapshot s = snap(m);
    at[2].depth = 0;
    expect_snap(&s, &at[2]);
    ck_assert_int_eq(gcg_matcher_rollback(m, 1), GCG_ERR_ROLLBACK);
    gcg_matcher_free(m);

    /* max_rollback 0: nothing is kept. */
    m = matcher(art, 0);
    ck_assert_int_eq(commit_str(m, "ab"), GCG_OK);
    ck_assert_uint_eq(gcg_matcher_rollback_depth(m), 0);
    ck_assert_int_eq(gcg_matcher_rollback(m, 1), GCG_ERR_ROLLBACK);
    ck_assert(gcg_matcher_is_complete(m));
    ck_assert_int_eq(commit_str(m, "c"), GCG_OK);
    ck_assert_int_eq(gcg_matcher_commit_eos(m), GCG_OK);
    ck_assert(gcg_matcher_is_terminated(m));
    ck_assert_int_eq(gcg_matcher_rollback(m, 1), GCG_ERR_ROLLBACK);
    ck_assert(gcg_matcher_is_terminated(m));
    gcg_matcher_reset(m);
    ck_assert(!gcg_matcher_is_terminated(m));
    ck_assert(!gcg_matcher_is_complete(m));
    ck_assert_int_eq(commit_str(m, "z"), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* ---- reset ---------------------------------------------------------------- */

START_TEST(test_reset)
{
    char *src = test_read_grammar("json");
    gcg_artifact *art = compile_eos(src);
    gcg_matcher *m = matcher(art, 2);
    snapshot start = snap(m);
    ck_assert(!start.complete);
    /* More commits than the history keeps: its oldest frontier is no longer
     * the start of the sentence. */
    static const char *const steps[] = {"[", "[", "1", "]", ",", "2", "]"};
    for (int i = 0; i < 7; i++)
        ck_assert_int_eq(commit_str(m, steps[i]), GCG_OK);
    ck_assert_int_eq(gcg_matcher_commit_eos(m), GCG_OK);
    ck_assert(gcg_matcher_is_terminated(m));
    gcg_matcher_reset(m);
    snapshot s = snap(m);
    expect_snap(&s, &start);
    /* And it works like a new matcher. */
    ck_assert_int_eq(commit_str(m, "{\"a\": true}"), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_reset(m);
    gcg_matcher_reset(m);
    s = snap(m);
    expect_snap(&s, &start);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
    free(src);
}
END_TEST

/* ---- end of sentence ------------------------------------------------------ */

START_TEST(test_eos)
{
    gcg_artifact *art = compile_eos("root ::= \"a\"+\n");
    gcg_matcher *m = matcher(art, 8);
    ck_assert(!gcg_matcher_is_complete(m));
    ck_assert_int_eq(gcg_matcher_commit_eos(m), GCG_ERR_REJECTED);
    ck_assert_int_eq(gcg_matcher_commit(m, EOS_ID), GCG_ERR_REJECTED);
    ck_assert_uint_eq(gcg_matcher_rollback_depth(m), 0);
    ck_assert(!gcg_matcher_is_terminated(m));

    ck_assert_int_eq(commit_str(m, "aa"), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    ck_assert_int_eq(gcg_matcher_commit_eos(m), GCG_OK);
    ck_assert(gcg_matcher_is_terminated(m));
    ck_assert(!gcg_matcher_is_complete(m));
    ck_assert_uint_eq(gcg_matcher_rollback_depth(m), 2);
    ck_assert_int_eq(commit_str(m, "a"), GCG_ERR_TERMINATED);
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, NULL, 0, NULL), GCG_ERR_TERMINATED);
    ck_assert_int_eq(gcg_matcher_commit_eos(m), GCG_ERR_TERMINATED);
    ck_assert_int_eq(gcg_matcher_commit(m, 'a'), GCG_ERR_TERMINATED);
    ck_assert_int_eq(gcg_matcher_commit(m, EOS_ID), GCG_ERR_TERMINATED);
    ck_assert_uint_eq(gcg_matcher_rollback_depth(m), 2);
    uint32_t w[WORDS];
    memset(w, 0xff, sizeof w);
    ck_assert_int_eq(gcg_matcher_fill_mask(m, w, WORDS), GCG_OK);
    for (int i = 0; i < WORDS; i++)
        ck_assert_uint_eq(w[i], 0);
    memset(w, 0xff, sizeof w);
    ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, w, WORDS), GCG_OK);
    for (int i = 0; i < WORDS; i++)
        ck_assert_uint_eq(w[i], 0);

    /* Rolling back the EOS reopens the sentence. */
    ck_assert_int_eq(gcg_matcher_rollback(m, 1), GCG_OK);
    ck_assert(!gcg_matcher_is_terminated(m));
    ck_assert(gcg_matcher_is_complete(m));
    ck_assert_int_eq(commit_str(m, "a"), GCG_OK);
    /* EOS through the token id. */
    ck_assert_int_eq(gcg_matcher_commit(m, EOS_ID), GCG_OK);
    ck_assert(gcg_matcher_is_terminated(m));
    ck_assert_uint_eq(gcg_matcher_rollback_depth(m), 3); /* "aa", "a", EOS */
    ck_assert_int_eq(gcg_matcher_rollback(m, 2), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    ck_assert(!gcg_matcher_is_terminated(m));
    ck_assert_uint_eq(gcg_matcher_rollback_depth(m), 1);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

START_TEST(test_tokens)
{
    gcg_artifact *art = compile_eos("root ::= \"x\" [0-9]*\n");
    uint32_t n_eos;
    const uint32_t *eos = gcg_artifact_eos(art, &n_eos);
    ck_assert_uint_eq(n_eos, 1);
    ck_assert_uint_eq(eos[0], EOS_ID);
    uint32_t len = 9;
    ck_assert_ptr_null(gcg_artifact_token_bytes(art, EOS_ID, &len));
    ck_assert_uint_eq(len, 0);
    const uint8_t *b = gcg_artifact_token_bytes(art, '7', &len);
    ck_assert_uint_eq(len, 1);
    ck_assert_uint_eq(b[0], '7');

    gcg_matcher *m = matcher(art, 8);
    ck_assert_int_eq(gcg_matcher_commit(m, 257), GCG_ERR_TOKEN_RANGE);
    ck_assert_int_eq(gcg_matcher_commit(m, UINT32_MAX), GCG_ERR_TOKEN_RANGE);
    ck_assert_int_eq(gcg_matcher_commit(m, '7'), GCG_ERR_REJECTED);
    ck_assert_uint_eq(gcg_matcher_rollback_depth(m), 0);
    ck_assert_int_eq(gcg_matcher_commit(m, 'x'), GCG_OK);
    ck_assert_int_eq(gcg_matcher_commit(m, '7'), GCG_OK);
    ck_assert_uint_eq(gcg_matcher_rollback_depth(m), 2);
    ck_assert_int_eq(gcg_matcher_commit(m, EOS_ID), GCG_OK);
    ck_assert(gcg_matcher_is_terminated(m));
    ck_assert_int_eq(gcg_matcher_commit(m, 300), GCG_ERR_TOKEN_RANGE);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

START_TEST(test_tokens_with_gap)
{
    /* EOS 300: ids 256..299 are gaps (special, no text), never allowed. */
    gcg_vocab v;
    uint32_t eos = 300;
    ck_assert_int_eq(gcg_vocab_bytes256(&eos, 1, &v), GCG_OK);
    ck_assert_uint_eq(v.n_tokens, 301);
    gcg_compile_options opt = {0};
    opt.vocab = &v;
    gcg_diag d;
    gcg_diag_init(&d, NULL);
    uint8_t *bytes;
    size_t size;
    const char *src = "root ::= [a-c]*\n";
    ck_assert_int_eq(gcg_compile(src, strlen(src), &opt, false, &bytes, &size, NULL, &d), GCG_OK);
    gcg_diag_free(&d);
    gcg_vocab_free(&v);
    gcg_artifact *art;
    ck_assert_int_eq(gcg_artifact_open_memory(bytes, size, &art, NULL), GCG_OK);
    free(bytes);
    ck_assert_uint_eq(gcg_artifact_vocab_size(art), 301);
    ck_assert_uint_eq(gcg_artifact_mask_words(art), 10);
    gcg_matcher *m = matcher(art, 8);
    ck_assert_int_eq(gcg_matcher_commit(m, 280), GCG_ERR_REJECTED);
    ck_assert_int_eq(gcg_matcher_commit(m, 'b'), GCG_OK);
    uint32_t w[11], wb[11];
    for (int i = 0; i < 11; i++)
        w[i] = wb[i] = 0xdeadbeefu;
    ck_assert_int_eq(gcg_matcher_fill_mask(m, w, 9), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, wb, 9), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_matcher_fill_mask(m, w, 10), GCG_OK);
    ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, wb, 10), GCG_OK);
    for (int i = 0; i < 10; i++)
        ck_assert_uint_eq(w[i], wb[i]);
    ck_assert_uint_eq(w[3], 0x0000000eu);  /* 'a' 'b' 'c' = 97..99 */
    ck_assert_uint_eq(w[8], 0);            /* 256..287: gaps */
    ck_assert_uint_eq(w[9], 1u << (300 - 288)); /* EOS; nothing past 300 */
    ck_assert_uint_eq(w[10], 0xdeadbeefu);
    ck_assert_int_eq(gcg_matcher_commit(m, 300), GCG_OK);
    ck_assert(gcg_matcher_is_terminated(m));
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* ---- masks against the definition ------------------------------------------ */

typedef struct mask_case {
    const char *grammar;   /* a shipped grammar name, or inline source */
    const char *prefix;    /* committed first, in one call             */
    uint32_t steps;        /* then this many pseudo-random allowed bytes */
} mask_case;

static const mask_case mask_cases[] = {
    {"json", "", 60},
    {"json", "{\"key\": [1.5e3, \"\xc3", 20},
    {"json", "[[[[[[[[[[", 30},
    {"arith", "", 40},
    {"arith", "(1 + 2) * -", 20},
    {"ambiguous", "", 40},
    {"ambiguous", "if c then x = (a", 20},
    {"unicode", "", 40},
    {"chess", "1. e4 e5 2. N", 20},
    {"markdown", "", 40},
    {"c_subset", "", 40},
    {"=root ::= root root | \"a\" | \"(\" root \")\"\n", "", 40},
    {"=root ::= (\"a\"? \"b\"?)* \"c\" | \"a\" root \"z\" |\n", "", 40},
    {"=root ::= \"a\" root | \"b\"\n", "aaaa", 20},
    {"=root ::= [\xce\xb1-\xcf\x89]{2,3} \"!\" | \"\xf0\x9f\x98\x80\"+\n", "", 20},
};

START_TEST(test_mask_equals_commits)
{
    const mask_case *c = &mask_cases[_i];
    char *src = c->grammar[0] == '=' ? strdup(c->grammar + 1) : test_read_grammar(c->grammar);
    gcg_artifact *art = compile_eos(src);
    gcg_matcher *m = matcher(art, 64);
    ck_assert_int_eq(commit_str(m, c->prefix), GCG_OK);
    uint64_t rng = 0x9E3779B97F4A7C15ull * (uint64_t)(_i + 1);
    char where[64];
    for (uint32_t step = 0; step <= c->steps; step++) {
        snprintf(where, sizeof where, "case %d step %u", _i, step);
        check_masks(m, where);
        uint32_t w[WORDS];
        ck_assert_int_eq(gcg_matcher_fill_mask(m, w, WORDS), GCG_OK);
        uint32_t n_allowed = 0;
        for (uint32_t b = 0; b < 256; b++)
            n_allowed += bit(w, b);
        if (n_allowed == 0)
            break;
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t pick = (uint32_t)(rng >> 33) % n_allowed;
        for (uint32_t b = 0; b < 256; b++) {
            if (bit(w, b) && pick-- == 0) {
                uint8_t byte = (uint8_t)b;
                ck_assert_int_eq(gcg_matcher_commit_bytes(m, &byte, 1, NULL), GCG_OK);
                break;
            }
        }
    }
    /* A few EOS states: after EOS the masks are empty. */
    if (gcg_matcher_is_complete(m)) {
        ck_assert_int_eq(gcg_matcher_commit_eos(m), GCG_OK);
        check_masks(m, "after EOS");
    }
    gcg_matcher_free(m);
    gcg_artifact_free(art);
    free(src);
}
END_TEST

START_TEST(test_mask_default_vocab_has_no_eos)
{
    gcg_diag d;
    gcg_diag_init(&d, NULL);
    uint8_t *bytes;
    size_t size;
    const char *src = "root ::= \"a\"?\n";
    ck_assert_int_eq(gcg_compile(src, strlen(src), NULL, false, &bytes, &size, NULL, &d), GCG_OK);
    gcg_diag_free(&d);
    gcg_artifact *art;
    ck_assert_int_eq(gcg_artifact_open_memory(bytes, size, &art, NULL), GCG_OK);
    free(bytes);
    ck_assert_uint_eq(gcg_artifact_vocab_size(art), 256);
    ck_assert_uint_eq(gcg_artifact_mask_words(art), 8);
    uint32_t n_eos = 7;
    gcg_artifact_eos(art, &n_eos);
    ck_assert_uint_eq(n_eos, 0);
    gcg_matcher *m = matcher(art, 8);
    ck_assert(gcg_matcher_is_complete(m));
    uint32_t w[9];
    memset(w, 0x5a, sizeof w);
    ck_assert_int_eq(gcg_matcher_fill_mask(m, w, 8), GCG_OK);
    for (int i = 0; i < 8; i++)
        ck_assert_uint_eq(w[i], i == 3 ? 2u : 0u);
    ck_assert_uint_eq(w[8], 0x5a5a5a5au);
    ck_assert_int_eq(gcg_matcher_commit(m, 256), GCG_ERR_TOKEN_RANGE);
    ck_assert_int_eq(gcg_matcher_commit(m, 'a'), GCG_OK);
    ck_assert_int_eq(gcg_matcher_fill_mask(m, w, 8), GCG_OK);
    for (int i = 0; i < 8; i++)
        ck_assert_uint_eq(w[i], 0);
    ck_assert(gcg_matcher_is_complete(m));
    ck_assert_int_eq(gcg_matcher_commit_eos(m), GCG_OK);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

START_TEST(test_matcher_args)
{
    gcg_artifact *art = compile_eos("root ::= \"a\"\n");
    gcg_matcher *m = (gcg_matcher *)1;
    ck_assert_int_eq(gcg_matcher_new(NULL, NULL, &m, NULL), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_matcher_new(art, NULL, NULL, NULL), GCG_ERR_ARG);
    gcg_matcher_options o;
    gcg_matcher_options_default(&o);
    ck_assert_uint_eq(o.max_rollback, 32);
    ck_assert_uint_eq(o.initial_nodes, 4096);
    ck_assert_uint_eq(o.max_nodes, 1u << 26);
    o.max_nodes = 0;
    ck_assert_int_eq(gcg_matcher_new(art, &o, &m, NULL), GCG_ERR_ARG);
    o.max_nodes = 1 << 20;
    o.initial_nodes = 0;
    ck_assert_int_eq(gcg_matcher_new(art, &o, &m, NULL), GCG_OK);
    ck_assert_int_eq(commit_str(m, "a"), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    ck_assert_int_eq(gcg_matcher_fill_mask(m, NULL, WORDS), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, NULL, WORDS), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_matcher_commit(NULL, 0), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_matcher_commit_eos(NULL), GCG_ERR_ARG);
    gcg_matcher_free(m);
    gcg_matcher_free(NULL);
    gcg_artifact_free(art);
}
END_TEST

/* ---- work limits --------------------------------------------------------- */

/* grammars/ambiguous.gbnf after "x = " and k a's: e ::= e e makes one commit
 * cost about 1.5 k^2 units (every split of the run is a reduction path) and
 * one mask follow k + 5 stack edges. */
static gcg_matcher *limited(const gcg_artifact *art, uint64_t commit_work, uint32_t mask_work)
{
    gcg_matcher_options o;
    gcg_matcher_options_default(&o);
    o.max_commit_work = commit_work;
    o.max_mask_work = mask_work;
    gcg_matcher *m = NULL;
    ck_assert_int_eq(gcg_matcher_new(art, &o, &m, NULL), GCG_OK);
    ck_assert_int_eq(commit_str(m, "x = "), GCG_OK);
    return m;
}

START_TEST(test_commit_work_limit)
{
    char *src = test_read_grammar("ambiguous");
    gcg_artifact *art = compile_eos(src);
    free(src);
    gcg_matcher *m = limited(art, AMB_COMMIT_LIMIT, 0);
    gcg_commit_stats cs;
    uint32_t k = 0;
    gcg_status st;
    snapshot before = snap(m);
    while ((st = commit_str(m, "a")) == GCG_OK) {
        gcg_matcher_last_commit_stats(m, &cs);
        ck_assert_uint_le(cs.work, AMB_COMMIT_LIMIT);
        ck_assert_uint_le(cs.max_step_work, cs.work);
        before = snap(m);
        k++;
    }
    ck_assert_int_eq(st, GCG_ERR_LIMIT);
    ck_assert_uint_eq(k, AMB_COMMIT_LIMIT_AT - 1);
    gcg_matcher_last_commit_stats(m, &cs);
    ck_assert_uint_gt(cs.work, AMB_COMMIT_LIMIT);
    /* Nothing changed: same mask, completeness and history; the same
     * commit fails the same way, and a rollback makes room again. */
    snapshot after = snap(m);
    expect_snap(&before, &after);
    uint32_t w[WORDS];
    ck_assert_int_eq(gcg_matcher_fill_mask(m, w, WORDS), GCG_OK);
    for (int i = 0; i < WORDS; i++)
        ck_assert_uint_eq(w[i], before.mask[i]);
    ck_assert_int_eq(commit_str(m, "a"), GCG_ERR_LIMIT);
    ck_assert_int_eq(gcg_matcher_rollback(m, 1), GCG_OK);
    ck_assert_int_eq(commit_str(m, "a"), GCG_OK);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

START_TEST(test_mask_work_limit)
{
    char *src = test_read_grammar("ambiguous");
    gcg_artifact *art = compile_eos(src);
    free(src);
    gcg_matcher *m = limited(art, 0, AMB_MASK_LIMIT);
    uint32_t w[WORDS], last[WORDS];
    gcg_mask_stats ms;
    uint32_t k = 0;
    gcg_status st;
    while ((st = gcg_matcher_fill_mask(m, w, WORDS)) == GCG_OK) {
        gcg_matcher_last_mask_stats(m, &ms);
        ck_assert_uint_le(ms.edges, AMB_MASK_LIMIT);
        memcpy(last, w, sizeof w);
        ck_assert_int_eq(commit_str(m, "a"), GCG_OK);
        k++;
    }
    ck_assert_int_eq(st, GCG_ERR_LIMIT);
    ck_assert_uint_eq(k, AMB_MASK_LIMIT_AT);
    /* The matcher is unchanged: one step back the mask is whole again, and
     * the brute force (which has no limit) agrees with it. */
    ck_assert_int_eq(gcg_matcher_rollback(m, 1), GCG_OK);
    ck_assert_int_eq(gcg_matcher_fill_mask(m, w, WORDS), GCG_OK);
    snapshot s = snap(m);
    for (int i = 0; i < WORDS; i++) {
        ck_assert_uint_eq(w[i], last[i]);
        ck_assert_uint_eq(w[i], s.mask[i]);
    }
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* Two whitespace rules that meet (`value ::= [0-9]+ ws` then `ws "}"`):
 * every space could end `value`, so each level makes a `value` node on the
 * same node below. Equal nodes are shared across levels (glr_merge.h), so
 * the stack keeps a constant width: a commit and a mask after 4,000 spaces
 * do exactly the work they do after 40, and the mask is the brute force's. */
START_TEST(test_meeting_whitespace_constant_work)
{
    gcg_artifact *art = compile_eos("root ::= \"{\" ws \"\\\"a\\\":\" ws value ws \"}\"\n"
                                    "value ::= [0-9]+ ws\nws ::= [ \\t\\n]*\n");
    gcg_matcher *m = matcher(art, 4);
    ck_assert_int_eq(commit_str(m, "{\"a\": 1"), GCG_OK);
    gcg_commit_stats c40, c;
    gcg_mask_stats m40, ms;
    uint32_t w[WORDS], b[WORDS];
    for (uint32_t n = 1; n <= 4000; n++) {
        ck_assert_int_eq(commit_str(m, " "), GCG_OK);
        ck_assert_int_eq(gcg_matcher_fill_mask(m, w, WORDS), GCG_OK);
        gcg_matcher_last_commit_stats(m, &c);
        gcg_matcher_last_mask_stats(m, &ms);
        if (n == 40)
            c40 = c, m40 = ms;
        if (n == 40 || n == 4000) {
            ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, b, WORDS), GCG_OK);
            ck_assert_mem_eq(w, b, sizeof w);
        }
    }
    ck_assert_uint_eq(c.work, c40.work);
    ck_assert_uint_eq(ms.edges, m40.edges);
    ck_assert_uint_eq(ms.stack_reads, m40.stack_reads);
    ck_assert_uint_eq(ms.set_ops, m40.set_ops);
    ck_assert_uint_le(ms.edges, 4);
    ck_assert_int_eq(commit_str(m, "}"), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* e ::= e e "c" | e "c" | "a" after a^n c^n: each c pops one e frame or two,
 * so the top stands on the run of e frames at every depth from 1 to n. The
 * GSS keeps those as one run edge (glr.h): the next commit and mask do the
 * same work for n = 4,000 as for n = 40, and the mask is the brute force's. */
static void eec_run(const gcg_artifact *art, uint32_t n, gcg_commit_stats *c, gcg_mask_stats *ms)
{
    gcg_matcher *m = matcher(art, 4);
    uint32_t w[WORDS], b[WORDS];
    for (uint32_t i = 0; i < 2 * n; i++)
        ck_assert_int_eq(commit_str(m, i < n ? "a" : "c"), GCG_OK);
    ck_assert_int_eq(commit_str(m, "c"), GCG_OK);
    gcg_matcher_last_commit_stats(m, c);
    ck_assert_int_eq(gcg_matcher_fill_mask(m, w, WORDS), GCG_OK);
    gcg_matcher_last_mask_stats(m, ms);
    ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, b, WORDS), GCG_OK);
    ck_assert_mem_eq(w, b, sizeof w);
    ck_assert(gcg_matcher_is_complete(m)); /* e c ... c reduces to one e */
    ck_assert_int_eq(commit_str(m, "a"), GCG_OK);
    ck_assert(!gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
}

START_TEST(test_counting_ambiguity_constant_work)
{
    gcg_artifact *art = compile_eos("root ::= e\ne ::= e e \"c\" | e \"c\" | \"a\"\n");
    gcg_commit_stats c40, c;
    gcg_mask_stats m40, ms;
    eec_run(art, 40, &c40, &m40);
    eec_run(art, 4000, &c, &ms);
    ck_assert_uint_eq(c.work, c40.work);
    ck_assert_uint_eq(ms.edges, m40.edges);
    ck_assert_uint_eq(ms.stack_reads, m40.stack_reads);
    ck_assert_uint_eq(ms.set_ops, m40.set_ops);
    ck_assert_uint_eq(c.work, 55);
    ck_assert_uint_eq(ms.edges, 6);
    gcg_artifact_free(art);
}
END_TEST

/* The same grammar's language is a counter: the e's on the stack can number
 * any k in a set K; "a" adds one, "c" keeps k >= 1 (e c) or takes two to one
 * (e e c), and the text is complete when 1 is in K. With e e e "c" instead,
 * K gets holes (n, n-2, n-4, ...), which one run edge cannot hold. Random
 * texts with long runs, byte by byte: the matcher accepts, rejects and
 * completes exactly as the counter does, and its mask, brute force and the
 * counter agree on "c". */
static const struct {
    const char *grammar;
    int pops; /* e's one "c" can take */
} counting_cases[] = {
    {"root ::= e\ne ::= e e \"c\" | e \"c\" | \"a\"\n", 2},
    {"root ::= e\ne ::= e e e \"c\" | e \"c\" | \"a\"\n", 3},
};

START_TEST(test_counting_ambiguity_language)
{
    gcg_artifact *art = compile_eos(counting_cases[_i].grammar);
    int pops = counting_cases[_i].pops;
    enum { MAXK = 1200 };
    static bool K[MAXK + 2], next[MAXK + 2];
    uint64_t rng = 12345;
    for (int walk = 0; walk < 6; walk++) {
        gcg_matcher *m = matcher(art, 4);
        memset(K, 0, sizeof K);
        K[0] = true;
        uint32_t w[WORDS], b[WORDS], run = 0;
        char byte = 'a';
        for (int i = 0; i < 1500; i++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            if (run == 0) { /* a run of one byte, up to 300 long */
                byte = (rng >> 33) % 2 ? 'a' : 'c';
                run = 1 + (uint32_t)((rng >> 40) % 300);
            }
            run--;
            memset(next, 0, sizeof next);
            bool any = false;
            for (int k = 0; k <= MAXK; k++) {
                if (!K[k])
                    continue;
                if (byte == 'a' && k < MAXK)
                    next[k + 1] = true, any = true;
                if (byte == 'c' && k >= 1)
                    next[k] = true, any = true;
                if (byte == 'c' && k >= pops)
                    next[k - pops + 1] = true;
            }
            char text[2] = {byte, 0};
            ck_assert_int_eq(commit_str(m, text), any ? GCG_OK : GCG_ERR_REJECTED);
            if (any)
                memcpy(K, next, sizeof K);
            ck_assert(gcg_matcher_is_complete(m) == K[1]);
            ck_assert_int_eq(gcg_matcher_fill_mask(m, w, WORDS), GCG_OK);
            bool c_ok = false;
            for (int k = 1; k <= MAXK; k++)
                c_ok |= K[k];
            ck_assert(!!(w['c' >> 5] & 1u << ('c' & 31)) == c_ok);
            ck_assert(w['a' >> 5] & 1u << ('a' & 31));
            if (i % 50 == 0) {
                ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, b, WORDS), GCG_OK);
                ck_assert_mem_eq(w, b, sizeof w);
            }
        }
        gcg_matcher_free(m);
    }
    gcg_artifact_free(art);
}
END_TEST

static Suite *matcher_suite(void)
{
    Suite *s = suite_create("matcher");
    TCase *tc = tcase_create("commit");
    tcase_add_test(tc, test_reject_leaves_state);
    tcase_add_loop_test(tc, test_consumed_offset, 0, sizeof consumed_cases / sizeof *consumed_cases);
    tcase_add_test(tc, test_empty_commit);
    tcase_add_test(tc, test_rollback_n);
    tcase_add_test(tc, test_rollback_limited_history);
    tcase_add_test(tc, test_reset);
    tcase_add_test(tc, test_eos);
    tcase_add_test(tc, test_tokens);
    tcase_add_test(tc, test_tokens_with_gap);
    tcase_add_test(tc, test_matcher_args);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    tc = tcase_create("mask");
    tcase_add_loop_test(tc, test_mask_equals_commits, 0, sizeof mask_cases / sizeof *mask_cases);
    tcase_add_test(tc, test_mask_default_vocab_has_no_eos);
    tcase_set_timeout(tc, 300);
    suite_add_tcase(s, tc);
    tc = tcase_create("limits");
    tcase_add_test(tc, test_commit_work_limit);
    tcase_add_test(tc, test_mask_work_limit);
    tcase_add_test(tc, test_meeting_whitespace_constant_work);
    tcase_add_test(tc, test_counting_ambiguity_constant_work);
    tcase_add_loop_test(tc, test_counting_ambiguity_language, 0,
                        sizeof counting_cases / sizeof *counting_cases);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(matcher_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
