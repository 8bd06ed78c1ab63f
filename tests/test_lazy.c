/*
 * test_lazy.c — lazy grammars and triggers (compiler/triggers.c,
 * runtime/lazy.c, runtime/trigger_section.c), with exact expectations:
 *
 *   - free mode: every token in the mask (special and EOS too); a word
 *     trigger split across tokens, at the very start, inside a longer word
 *     (fires: substring semantics), overlapping candidates ("ab" and "bc" on
 *     "abc": "ab" ends first), the rest of the token replayed;
 *   - patterns: searched with a capture group (grammar starts at the group),
 *     pattern_full, alternatives and classes; refused syntax is an error;
 *   - trigger tokens, special ones included;
 *   - rollback across the switch, and a rejected replay leaving the state
 *     unchanged;
 *   - a grammar that would block its own trigger text in non-lazy use;
 *   - masks equal the lazy brute force at every step of every token path;
 *   - the reasoning budget: FORCING allows exactly the tokens that continue
 *     the closing tag (also from a partly written tag), then the grammar.
 */
#include "tok_util.h"

static const char *JSONISH = "root ::= \"</think>\" [ ]* \"{\" [a-z]* \"}\"\n";

static const tok VOCAB[] = {
    TXT("</"), TXT("think"), TXT(">"), TXT("</think>"), TXT(" "), TXT("{"), TXT("}"), TXT("ab"),
    TXT("c"), TXT("x</think>{"), TXT("a"), TXT("b"), TXT("</th"), TXT("ink>"), SPECIAL, EOS,
};
enum { T_LT = 0, T_THINK, T_GT, T_TAG, T_SP, T_LB, T_RB, T_AB, T_C, T_XTAG, T_A, T_B, T_TH, T_INK,
       T_SPECIAL, T_EOS, N_TOK };

static gcg_artifact *lazy_art(const char *grammar, const gcgc_trigger *t, uint32_t n)
{
    gcg_compile_options o = {0};
    o.triggers = t, o.n_triggers = n;
    return compile_ok(grammar, o, VOCAB, NTOK(VOCAB));
}

static gcg_lazy *lazy_new(const gcg_artifact *art, uint32_t budget)
{
    gcg_lazy_options o;
    gcg_lazy_options_default(&o);
    o.budget_tokens = budget;
    gcg_lazy *lz = NULL;
    gcg_error err;
    ck_assert_int_eq(gcg_lazy_new(art, &o, &lz, &err), GCG_OK);
    return lz;
}

/* The mask as a bit set over the 16 tokens; also checks it against brute force. */
static uint32_t mask_of(gcg_lazy *lz)
{
    uint32_t a[MAX_WORDS], b[MAX_WORDS];
    ck_assert_int_eq(gcg_lazy_fill_mask(lz, a, MAX_WORDS), GCG_OK);
    ck_assert_int_eq(gcg_lazy_fill_mask_bruteforce(lz, b, MAX_WORDS), GCG_OK);
    ck_assert_uint_eq(a[0], b[0]);
    return a[0];
}

#define ALL ((1u << N_TOK) - 1)
#define BIT(t) (1u << (t))

static const gcgc_trigger THINK_WORD[] = {{GCGC_TRIGGER_WORD, "</think>", 0}};

START_TEST(word_split_across_tokens)
{
    gcg_artifact *art = lazy_art(JSONISH, THINK_WORD, 1);
    ck_assert(gcg_artifact_is_lazy(art));
    gcg_lazy *lz = lazy_new(art, 0);
    ck_assert_int_eq(gcg_lazy_get_mode(lz), GCG_LAZY_FREE);
    ck_assert_uint_eq(mask_of(lz), ALL);
    ck_assert(gcg_lazy_is_complete(lz));
    ck_assert_int_eq(gcg_lazy_commit(lz, T_AB), GCG_OK);
    ck_assert_int_eq(gcg_lazy_commit(lz, T_SPECIAL), GCG_OK); /* allowed in free mode */
    ck_assert_int_eq(gcg_lazy_commit(lz, T_LT), GCG_OK);
    ck_assert_int_eq(gcg_lazy_commit(lz, T_THINK), GCG_OK);
    ck_assert_int_eq(gcg_lazy_get_mode(lz), GCG_LAZY_FREE);
    ck_assert_uint_eq(mask_of(lz), ALL);
    ck_assert_int_eq(gcg_lazy_rollback(lz, 0), GCG_OK); /* a no-op, whatever the history */
    ck_assert_int_eq(gcg_lazy_get_mode(lz), GCG_LAZY_FREE);
    ck_assert_int_eq(gcg_lazy_commit(lz, T_GT), GCG_OK);
    ck_assert_int_eq(gcg_lazy_get_mode(lz), GCG_LAZY_GRAMMAR);
    ck_assert_uint_eq(gcg_lazy_grammar_start(lz), 2);
    ck_assert_uint_eq(mask_of(lz), BIT(T_SP) | BIT(T_LB));
    ck_assert(!gcg_lazy_is_complete(lz));
    ck_assert_int_eq(gcg_lazy_commit(lz, T_AB), GCG_ERR_REJECTED);
    ck_assert_int_eq(gcg_lazy_commit(lz, T_LB), GCG_OK);
    ck_assert_int_eq(gcg_lazy_commit(lz, T_RB), GCG_OK);
    ck_assert_uint_eq(mask_of(lz), BIT(T_EOS));
    ck_assert_int_eq(gcg_lazy_commit(lz, T_EOS), GCG_OK);
    ck_assert(gcg_lazy_is_terminated(lz));
    ck_assert_uint_eq(mask_of(lz), 0);
    /* rollback across the switch: back to free mode, then forward again */
    ck_assert_int_eq(gcg_lazy_rollback(lz, 4), GCG_OK);
    ck_assert_int_eq(gcg_lazy_get_mode(lz), GCG_LAZY_FREE);
    ck_assert_uint_eq(mask_of(lz), ALL);
    ck_assert_uint_eq(gcg_lazy_grammar_start(lz), SIZE_MAX);
    ck_assert_int_eq(gcg_lazy_commit(lz, T_C), GCG_OK); /* "ab</thinkc": no trigger */
    ck_assert_int_eq(gcg_lazy_get_mode(lz), GCG_LAZY_FREE);
    ck_assert_int_eq(gcg_lazy_rollback(lz, 1), GCG_OK);
    ck_assert_int_eq(gcg_lazy_commit(lz, T_GT), GCG_OK);
    ck_assert_int_eq(gcg_lazy_get_mode(lz), GCG_LAZY_GRAMMAR);
    ck_assert_int_eq(gcg_lazy_rollback(lz, 6), GCG_ERR_ROLLBACK);
    ck_assert_int_eq(gcg_lazy_rollback(lz, 5), GCG_OK);
    ck_assert_int_eq(gcg_lazy_get_mode(lz), GCG_LAZY_FREE);
    /* at the very start, and inside a longer word with the token's rest */
    ck_assert_int_eq(gcg_lazy_commit(lz, T_TAG), GCG_OK);
    ck_assert_uint_eq(gcg_lazy_grammar_start(lz), 0);
    gcg_lazy_reset(lz);
    ck_assert_int_eq(gcg_lazy_commit(lz, T_XTAG), GCG_OK);
    ck_assert_int_eq(gcg_lazy_get_mode(lz), GCG_LAZY_GRAMMAR);
    ck_assert_uint_eq(gcg_lazy_grammar_start(lz), 1);
    ck_assert_uint_eq(mask_of(lz), BIT(T_RB) | BIT(T_THINK) | BIT(T_AB) | BIT(T_C) | BIT(T_A) | BIT(T_B));
    gcg_lazy_free(lz);
    gcg_artifact_free(art);
}
END_TEST

START_TEST(rejected_replay_changes_nothing)
{
    gcg_artifact *art = lazy_art(JSONISH, THINK_WORD, 1);
    gcg_lazy *lz = lazy_new(art, 0);
    ck_assert_int_eq(gcg_lazy_commit(lz, T_TH), GCG_OK);
    /* "</think>}" — the grammar refuses "}" after the tag */
    ck_assert_int_eq(gcg_lazy_commit_bytes(lz, (const uint8_t *)"ink>}", 5), GCG_ERR_REJECTED);
    ck_assert_int_eq(gcg_lazy_get_mode(lz), GCG_LAZY_FREE);
    ck_assert_int_eq(gcg_lazy_commit(lz, T_INK), GCG_OK); /* the DFA state was restored */
    ck_assert_int_eq(gcg_lazy_get_mode(lz), GCG_LAZY_GRAMMAR);
    ck_assert_uint_eq(gcg_lazy_grammar_start(lz), 0);
    ck_assert_int_eq(gcg_lazy_rollback(lz, 2), GCG_OK);
    ck_assert_uint_eq(mask_of(lz), ALL);
    gcg_lazy_free(lz);
    gcg_artifact_free(art);
}
END_TEST

START_TEST(overlapping_words)
{
    const char *g = "root ::= (\"ab\" | \"bc\") [a-z]*\n";
    const gcgc_trigger t[] = {{GCGC_TRIGGER_WORD, "bc", 0}, {GCGC_TRIGGER_WORD, "ab", 0}};
    gcg_artifact *art = lazy_art(g, t, 2);
    gcg_lazy *lz = lazy_new(art, 0);
    ck_assert_int_eq(gcg_lazy_commit(lz, T_C), GCG_OK);
    ck_assert_int_eq(gcg_lazy_commit(lz, T_A), GCG_OK);
    ck_assert_int_eq(gcg_lazy_get_mode(lz), GCG_LAZY_FREE);
    ck_assert_int_eq(gcg_lazy_commit_bytes(lz, (const uint8_t *)"bc", 2), GCG_OK); /* "cabc" */
    ck_assert_int_eq(gcg_lazy_get_mode(lz), GCG_LAZY_GRAMMAR);
    ck_assert_uint_eq(gcg_lazy_grammar_start(lz), 1); /* "ab" ended first; "abc" replayed */
    ck_assert(gcg_lazy_is_complete(lz));
    gcg_lazy_reset(lz);
    ck_assert_int_eq(gcg_lazy_commit_bytes(lz, (const uint8_t *)"xbc", 3), GCG_OK);
    ck_assert_uint_eq(gcg_lazy_grammar_start(lz), 1);
    gcg_lazy_free(lz);
    gcg_artifact_free(art);
}
END_TEST

/* Commits text byte run by byte run and returns the grammar's start. */
static size_t start_after(const gcg_artifact *art, const char *text)
{
    gcg_lazy *lz = lazy_new(art, 0);
    ck_assert_int_eq(gcg_lazy_commit_bytes(lz, (const uint8_t *)text, strlen(text)), GCG_OK);
    size_t s = gcg_lazy_grammar_start(lz);
    gcg_lazy_free(lz);
    return s;
}

START_TEST(patterns)
{
    const char *g = "root ::= [a-z<>{} ]*\n";
    const gcgc_trigger search[] = {{GCGC_TRIGGER_PATTERN, "x+(<t>|<u>)\\s?\\{", 0}};
    gcg_artifact *art = lazy_art(g, search, 1);
    ck_assert_uint_eq(start_after(art, "ab xx<t> {"), 5);  /* at the group */
    ck_assert_uint_eq(start_after(art, "ab x<u>{c"), 4);
    ck_assert_uint_eq(start_after(art, "ab <t> {"), SIZE_MAX);
    gcg_artifact_free(art);
    const gcgc_trigger nogroup[] = {{GCGC_TRIGGER_PATTERN, "[ab]c|d{2}", 0}};
    art = lazy_art(g, nogroup, 1);
    ck_assert_uint_eq(start_after(art, "zzbc"), 2);        /* at the match */
    ck_assert_uint_eq(start_after(art, "zdzdd"), 3);
    ck_assert_uint_eq(start_after(art, "zdcz"), SIZE_MAX);
    gcg_artifact_free(art);
    const gcgc_trigger full[] = {{GCGC_TRIGGER_PATTERN_FULL, "[\\s\\S]*?(<t>.*)", 0}};
    art = lazy_art(g, full, 1);
    ck_assert_uint_eq(start_after(art, "ab <t>"), 3);
    gcg_artifact_free(art);
    const gcgc_trigger full2[] = {{GCGC_TRIGGER_PATTERN_FULL, "a+b", 0}};
    art = lazy_art(g, full2, 1);
    ck_assert_uint_eq(start_after(art, "aab"), 0);
    ck_assert_uint_eq(start_after(art, "caab"), SIZE_MAX); /* anchored at the start */
    gcg_artifact_free(art);
}
END_TEST

static void expect_error(const gcgc_trigger *t, const char *msg)
{
    gcg_compile_options o = {0};
    o.triggers = t, o.n_triggers = 1;
    gcg_diag d;
    gcg_status st;
    gcg_artifact *art = compile_with(JSONISH, o, VOCAB, NTOK(VOCAB), &d, &st);
    ck_assert_ptr_null(art);
    ck_assert_int_ne(st, GCG_OK);
    ck_assert_msg(d.n > 0 && strstr(d.v[0].msg, msg), "want \"%s\", got \"%s\"", msg,
                  d.n ? d.v[0].msg : "-");
    gcg_diag_free(&d);
}

START_TEST(pattern_errors)
{
    const struct { const char *re, *msg; } cases[] = {
        {"^a", "pattern offset 0: anchors (^, $) are not supported"},
        {"a$", "pattern offset 1: anchors"},
        {"a(?=b)", "pattern offset 2: lookaround and named groups are not supported"},
        {"\\bx", "word boundaries"},
        {"(a)\\1", "back references are not supported"},
        {"(?:(a))", "the first capture group must be at the top level of the pattern"},
        {"(a)*", "the first capture group cannot be repeated"},
        {"a|(b)", "not inside an alternative"},
        {"[\xc3\xa9]", "non-ASCII characters in a class are not supported"},
        {"a{1,200}", "repetition counts are 0..100"},
        {"(a", "missing )"},
        {"a)", "unmatched )"},
        {"*a", "nothing to repeat"},
        {"[ab", "unterminated character class"},
        {"[b-a]", "range out of order"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        gcgc_trigger t = {GCGC_TRIGGER_PATTERN, cases[i].re, 0};
        expect_error(&t, cases[i].msg);
    }
    gcgc_trigger tok = {GCGC_TRIGGER_TOKEN, NULL, 99};
    expect_error(&tok, "trigger 1: token id past the vocabulary");
    gcgc_trigger empty = {GCGC_TRIGGER_WORD, "", 0};
    expect_error(&empty, "trigger 1: empty text");
    gcgc_trigger big = {GCGC_TRIGGER_PATTERN, "[ab]*a[ab]{14}", 0};
    expect_error(&big, "pattern too large");
}
END_TEST

START_TEST(trigger_tokens)
{
    const gcgc_trigger t[] = {{GCGC_TRIGGER_TOKEN, NULL, T_SPECIAL}, {GCGC_TRIGGER_TOKEN, NULL, T_TAG}};
    gcg_artifact *art = lazy_art("root ::= \"</think>\"? \"{\" [a-z]* \"}\"\n", t, 2);
    gcg_lazy *lz = lazy_new(art, 0);
    ck_assert_int_eq(gcg_lazy_commit_bytes(lz, (const uint8_t *)"hi </think>", 11), GCG_OK);
    ck_assert_int_eq(gcg_lazy_get_mode(lz), GCG_LAZY_FREE); /* the text alone does not fire */
    ck_assert_int_eq(gcg_lazy_commit(lz, T_SPECIAL), GCG_OK);
    ck_assert_int_eq(gcg_lazy_get_mode(lz), GCG_LAZY_GRAMMAR);
    ck_assert_uint_eq(gcg_lazy_grammar_start(lz), 11);
    ck_assert_uint_eq(mask_of(lz), BIT(T_LT) | BIT(T_TAG) | BIT(T_LB) | BIT(T_TH));
    ck_assert_int_eq(gcg_lazy_rollback(lz, 1), GCG_OK);
    ck_assert_int_eq(gcg_lazy_commit(lz, T_TAG), GCG_OK); /* its bytes start the grammar */
    ck_assert_uint_eq(mask_of(lz), BIT(T_LB));
    gcg_lazy_free(lz);
    gcg_artifact_free(art);
}
END_TEST

/* A grammar that cannot produce free text before its tag: used directly it
 * never allows "ab"; lazily the text before "</think>" is free. */
START_TEST(grammar_does_not_block_its_trigger)
{
    gcg_artifact *art = lazy_art(JSONISH, THINK_WORD, 1);
    gcg_matcher *m;
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    uint32_t w[MAX_WORDS];
    ck_assert_int_eq(gcg_matcher_fill_mask(m, w, MAX_WORDS), GCG_OK);
    ck_assert_uint_eq(w[0], BIT(T_LT) | BIT(T_TAG) | BIT(T_TH));
    gcg_matcher_free(m);
    gcg_lazy *lz = lazy_new(art, 0);
    ck_assert_int_eq(gcg_lazy_commit(lz, T_AB), GCG_OK);
    ck_assert_int_eq(gcg_lazy_commit(lz, T_TAG), GCG_OK);
    ck_assert_int_eq(gcg_lazy_get_mode(lz), GCG_LAZY_GRAMMAR);
    gcg_lazy_free(lz);
    gcg_artifact_free(art);
}
END_TEST

/* Every token path up to `depth`: masks equal brute force, and a token is
 * in the mask iff its commit succeeds (free mode: unless its replay is
 * rejected, which the free mask cannot foresee). */
static uint32_t walk(gcg_lazy *lz, int depth)
{
    uint32_t mask = mask_of(lz), visited = 1;
    for (uint32_t t = 0; t < N_TOK; t++) {
        bool free_mode = gcg_lazy_get_mode(lz) == GCG_LAZY_FREE;
        gcg_status st = gcg_lazy_commit(lz, t);
        if (!free_mode || st == GCG_OK)
            ck_assert_msg((st == GCG_OK) == (mask >> t & 1), "token %u: %s", t, gcg_status_str(st));
        if (st != GCG_OK)
            continue;
        if (depth > 1)
            visited += walk(lz, depth - 1);
        ck_assert_int_eq(gcg_lazy_rollback(lz, 1), GCG_OK);
    }
    return visited;
}

START_TEST(masks_equal_bruteforce)
{
    gcg_artifact *art = lazy_art(JSONISH, THINK_WORD, 1);
    gcg_lazy *lz = lazy_new(art, 2);
    ck_assert_uint_gt(walk(lz, 4), 500);
    gcg_lazy_free(lz);
    lz = lazy_new(art, 0);
    ck_assert_uint_gt(walk(lz, 3), 200);
    gcg_lazy_free(lz);
    gcg_artifact_free(art);
}
END_TEST

START_TEST(reasoning_budget)
{
    gcg_artifact *art = lazy_art(JSONISH, THINK_WORD, 1);
    gcg_lazy *lz = lazy_new(art, 3);
    ck_assert_int_eq(gcg_lazy_commit(lz, T_AB), GCG_OK);
    ck_assert_int_eq(gcg_lazy_commit(lz, T_C), GCG_OK);
    ck_assert_int_eq(gcg_lazy_get_mode(lz), GCG_LAZY_FREE);
    ck_assert_int_eq(gcg_lazy_commit(lz, T_LT), GCG_OK); /* "abc</": budget spent */
    ck_assert_int_eq(gcg_lazy_get_mode(lz), GCG_LAZY_FORCING);
    ck_assert(!gcg_lazy_is_complete(lz));
    /* continues from "</": "think" and "th"-less tokens do not fit */
    ck_assert_uint_eq(mask_of(lz), BIT(T_THINK));
    ck_assert_int_eq(gcg_lazy_commit(lz, T_TAG), GCG_ERR_REJECTED);
    ck_assert_int_eq(gcg_lazy_commit_eos(lz), GCG_ERR_REJECTED);
    ck_assert_int_eq(gcg_lazy_commit(lz, T_THINK), GCG_OK);
    ck_assert_uint_eq(mask_of(lz), BIT(T_GT));
    ck_assert_int_eq(gcg_lazy_commit(lz, T_GT), GCG_OK);
    ck_assert_int_eq(gcg_lazy_get_mode(lz), GCG_LAZY_GRAMMAR);
    ck_assert_uint_eq(gcg_lazy_grammar_start(lz), 3);
    ck_assert_int_eq(gcg_lazy_rollback(lz, 3), GCG_OK);
    ck_assert_int_eq(gcg_lazy_get_mode(lz), GCG_LAZY_FREE);
    ck_assert_int_eq(gcg_lazy_commit(lz, T_A), GCG_OK); /* "abca": nothing of the tag */
    ck_assert_uint_eq(mask_of(lz), BIT(T_LT) | BIT(T_TAG) | BIT(T_TH));
    gcg_lazy_free(lz);
    gcg_artifact_free(art);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("lazy");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, word_split_across_tokens);
    tcase_add_test(tc, rejected_replay_changes_nothing);
    tcase_add_test(tc, overlapping_words);
    tcase_add_test(tc, patterns);
    tcase_add_test(tc, pattern_errors);
    tcase_add_test(tc, trigger_tokens);
    tcase_add_test(tc, grammar_does_not_block_its_trigger);
    tcase_add_test(tc, masks_equal_bruteforce);
    tcase_add_test(tc, reasoning_budget);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
