/*
 * test_horizon.c — walks shared between LR states (compiler/horizon.h).
 *
 * Sharing a walk must change nothing but the compile time: every grammar
 * here is compiled twice, with shared walks and with every state walked, and
 * the two artifacts must be equal byte for byte. The grammars are counted
 * chains longer than the vocabulary's longest token (6 bytes; the longest
 * fold into a counter and keep only their last links, count_fold.h), in the
 * shapes that reach the checks: character classes, multi-byte items, chains
 * nested in chains, chains ending in a reduction that needs the stack, chains
 * of a GLR grammar, two chains over overlapping classes merged into one LR
 * state, right recursion around a chain. States far from a chain's end share
 * whole walks; those nearer take their twin's short tokens and walk only the
 * subtrees of longer ones, so both paths are compared. Each must also share some walks
 * (else the test would pass with sharing broken off), and random walks of
 * tokens compare the shared artifact's masks with brute force. The same
 * holds for root runs that replay one memo entry and for resumes shared by
 * the states below (schema objects, at the end).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "schema.h"
#include "gcg.h"
#include "vocab.h"

static const char *const grammars[] = {
    "root ::= \"\\\"\" [a-c]{0,40} \"\\\"\"\n",
    "root ::= \"[\" (\"ab\" | \"c\"){2,50} \"]\"\n",
    "root ::= (\"x\" [ab]{0,30} \",\"){0,20} \".\"\n",
    "item ::= \"\\\"\" [a-c]{0,25} \"\\\"\"\nroot ::= item (\",\" item){0,30}\n",
    "char ::= [^\"\\\\] | \"\\\\\" ([\"\\\\nt] | \"u\" [0-9a-f]{4})\n"
    "root ::= \"\\\"\" char{0,64} \"\\\"\" ws\nws ::= [ ]{0,12}\n",
    "root ::= (\"a\" | \"aa\"){0,40} \"b\"\n",
    "root ::= [a-c]{5,60} | [ab]{0,70} \"!\"\n",
    "root ::= (\"a\"{0,20} \"b\"){0,15}\n",
    "root ::= \"{\" (kv (\",\" kv){0,9})? \"}\"\nkv ::= \"\\\"\" [a-z]{1,30} \"\\\":\" [0-9]{1,20}\n",
    "root ::= \"(\" root \")\" | [ab]{0,33}\n",
    /* exact counts of at least 20 are chains too (lower.c, EXACT_CHAIN) */
    "root ::= \"\\\"\" [a-c]{24} [ab]{0,9} \"\\\"\"\n",
    "root ::= \"[\" (\"ab\" | \"c\"){21} \"]\"\n",
    "root ::= \"\\\"\" ([a-c]{0,0} | [a-c]{20} [a-c]* | [a-c]* [x,] [a-cx,]*) \"\\\"\"\n",
};

/* Single bytes for everything above, and longer tokens up to 6 bytes that
 * cross chain links, item boundaries and the chains' ends. */
static const char *const multi[] = {"aa", "ab", "abc", "aaaa", "aaaaaa", "ba", "cc", "ccccc", "\"a", "a\"",
                                    "\",\"", "\\u00", "\\n", "0123", "12", "xa", "xab,", "a,", "ab\",", "b!",
                                    "((", "))", "ab)", "\":1", "  ", "b]", "\"}", ".", "x"};

/* A vocabulary of n tokens (the last one EOS, special, no bytes) and total
 * bytes, to be filled; vocab_done ends the last token at `at`. */
static void vocab_alloc(gcg_vocab *v, uint32_t n, uint32_t total)
{
    memset(v, 0, sizeof *v);
    v->n_tokens = n;
    v->offsets = malloc(((size_t)n + 1) * sizeof *v->offsets);
    v->bytes = malloc(total + 1);
    v->flags = calloc(n + 1, 1);
    ck_assert(v->offsets && v->bytes && v->flags);
}

static void vocab_done(gcg_vocab *v, uint32_t at)
{
    uint32_t eos = v->n_tokens - 1;
    v->offsets[eos] = at;
    v->flags[eos] = GCG_TOKEN_SPECIAL;
    v->offsets[v->n_tokens] = at;
    ck_assert_int_eq(gcg_vocab_set_eos(v, &eos, 1, NULL), GCG_OK);
}

/* The single bytes, multi[] and `extra` (n_extra tokens). */
static void vocab_make_with(gcg_vocab *v, const char *const *extra, uint32_t n_extra)
{
    static const char singles[] = "abcxz0123456789\"\\,.:;[](){}!' tnu";
    uint32_t n_multi = sizeof multi / sizeof *multi, n_single = sizeof singles - 1;
    uint32_t n = n_single + n_multi + n_extra + 1, total = n_single;
    for (uint32_t i = 0; i < n_multi + n_extra; i++)
        total += (uint32_t)strlen(i < n_multi ? multi[i] : extra[i - n_multi]);
    vocab_alloc(v, n, total);
    uint32_t at = 0, id = 0;
    for (uint32_t i = 0; i < n_single; i++)
        v->offsets[id++] = at, v->bytes[at++] = (uint8_t)singles[i];
    for (uint32_t i = 0; i < n_multi + n_extra; i++) {
        const char *t = i < n_multi ? multi[i] : extra[i - n_multi];
        v->offsets[id++] = at;
        memcpy(v->bytes + at, t, strlen(t));
        at += (uint32_t)strlen(t);
    }
    vocab_done(v, at);
}

static void vocab_make(gcg_vocab *v)
{
    vocab_make_with(v, NULL, 0);
}

static uint32_t resume_group_min; /* gcg_compile_options's, for equal_resumes_shared */

static uint8_t *compile(const char *src, const gcg_vocab *v, bool no_shared, size_t *size, gcg_compile_stats *stats)
{
    gcg_compile_options opt = {0};
    opt.vocab = v;
    opt.no_shared_walks = no_shared;
    opt.resume_group_min = resume_group_min;
    gcg_diag d;
    gcg_diag_init(&d, "t.gbnf");
    uint8_t *bytes = NULL;
    gcg_status st = gcg_compile(src, strlen(src), &opt, false, &bytes, size, stats, &d);
    if (st != GCG_OK)
        gcg_diag_print(&d, stderr);
    ck_assert_int_eq(st, GCG_OK);
    gcg_diag_free(&d);
    return bytes;
}

/* Random walks: at every step the automaton's mask equals brute force. */
static void walks_match_brute_force(const uint8_t *bytes, size_t size, const char *src)
{
    gcg_artifact *art = NULL;
    gcg_error err;
    ck_assert_int_eq(gcg_artifact_open_memory(bytes, size, &art, &err), GCG_OK);
    size_t words = gcg_artifact_mask_words(art);
    uint32_t n_eos = 0;
    const uint32_t *eos = gcg_artifact_eos(art, &n_eos);
    ck_assert_uint_eq(n_eos, 1);
    uint32_t *fast = malloc(words * 4), *brute = malloc(words * 4);
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    for (int w = 0; w < 30; w++) {
        gcg_matcher *m = NULL;
        ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
        for (int step = 0; step < 120; step++) {
            ck_assert_int_eq(gcg_matcher_fill_mask(m, fast, words), GCG_OK);
            ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, brute, words), GCG_OK);
            ck_assert_msg(memcmp(fast, brute, words * 4) == 0, "mask differs from brute force: %s walk %d step %d",
                          src, w, step);
            uint32_t ids[512], n = 0;
            for (uint32_t t = 0; t < words * 32 && n < 512; t++)
                if ((fast[t >> 5] >> (t & 31)) & 1 && t != eos[0])
                    ids[n++] = t;
            if (n == 0)
                break;
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            ck_assert_int_eq(gcg_matcher_commit(m, ids[(rng >> 33) % n]), GCG_OK);
        }
        gcg_matcher_free(m);
    }
    free(fast), free(brute);
    gcg_artifact_free(art);
}

/* Compiles src over v with shared walks and without: the artifacts must be
 * equal and the shared one's masks equal brute force. */
static void same_over(const char *src, const gcg_vocab *v, gcg_compile_stats *with, gcg_compile_stats *without)
{
    size_t n_shared = 0, n_plain = 0;
    uint8_t *a = compile(src, v, false, &n_shared, with);
    uint8_t *b = compile(src, v, true, &n_plain, without);
    ck_assert_uint_eq(n_shared, n_plain);
    ck_assert_msg(memcmp(a, b, n_plain) == 0, "the artifacts differ for %s", src);
    walks_match_brute_force(a, n_shared, src);
    free(a), free(b);
}

/* same_over, on the vocabulary of the chain grammars. */
static void same_either_way(const char *src, gcg_compile_stats *with, gcg_compile_stats *without)
{
    gcg_vocab v;
    vocab_make(&v);
    same_over(src, &v, with, without);
    gcg_vocab_free(&v);
}

START_TEST(shared_walks_change_nothing)
{
    gcg_compile_stats with, without;
    same_either_way(grammars[_i], &with, &without);
    ck_assert_uint_eq(without.walks_shared, 0);
    ck_assert_msg(with.walks_shared > 0, "no walk shared for %s", grammars[_i]);
}
END_TEST

/* A chain longer than the window (compiler/count_fold.h: the longest token,
 * 6 bytes, plus one) folds into a counter: {0,60} and {0,6000} take the same
 * LR states, and at every count up to the end, byte by byte, the mask
 * equals brute force, tokens across the end included. */
START_TEST(long_chain_counted)
{
    gcg_vocab v;
    vocab_make(&v);
    size_t size = 0;
    gcg_compile_stats s60, s6000;
    free(compile("root ::= \"\\\"\" [a-c]{0,6000} \"\\\"\"\n", &v, false, &size, &s6000));
    uint8_t *bytes = compile("root ::= \"\\\"\" [a-c]{0,60} \"\\\"\"\n", &v, false, &size, &s60);
    ck_assert_uint_eq(s60.lr_states, s6000.lr_states);
    ck_assert_uint_eq(s60.lr_states, 22);
    gcg_artifact *art = NULL;
    gcg_error err;
    ck_assert_int_eq(gcg_artifact_open_memory(bytes, size, &art, &err), GCG_OK);
    size_t words = gcg_artifact_mask_words(art);
    uint32_t *fast = malloc(words * 4), *brute = malloc(words * 4);
    gcg_matcher *m = NULL;
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"\"", 1, NULL), GCG_OK);
    for (int n = 0; n <= 60; n++) {
        ck_assert_int_eq(gcg_matcher_fill_mask(m, fast, words), GCG_OK);
        ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, brute, words), GCG_OK);
        ck_assert_msg(memcmp(fast, brute, words * 4) == 0, "mask differs from brute force after %d copies", n);
        ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"a", 1, NULL), n < 60 ? GCG_OK : GCG_ERR_REJECTED);
    }
    gcg_matcher_free(m);
    free(fast), free(brute);
    gcg_artifact_free(art);
    free(bytes);
    gcg_vocab_free(&v);
}
END_TEST

/* Grammars with loops: string bodies, whitespace runs, lists, a tail
 * recursion made iterative. Subtrees taken whole (mask_sim.c) must leave the
 * artifact as it is, and must be taken: fewer trie nodes are entered. */
static const char *const loop_grammars[] = {
    "root ::= \"\\\"\" ([a-c] | \"\\\\\" [nt] | \"\\\\u\" [0-9a-f]{4})* \"\\\"\" ws\nws ::= [ ]*\n",
    "root ::= \"[\" ws (item (\",\" ws item)*)? \"]\"\nitem ::= [a-c0-9]+ ws\nws ::= [ \\t]*\n",
    "root ::= (\"x\" [ab]* \";\")* \".\"\n",
    "root ::= \"(\" s \")\"\ns ::= [abc] s | \"!\"\n",
    "root ::= \"{\" ([a-c] | root)* \"}\"\n",
};

START_TEST(loops_change_nothing)
{
    gcg_compile_stats with, without;
    same_either_way(loop_grammars[_i], &with, &without);
    ck_assert_msg(with.trie_visits < without.trie_visits, "no subtree taken whole for %s", loop_grammars[_i]);
}
END_TEST

/* A chain no longer than the longest token has no state far from its end:
 * nothing is shared whole, only the short tokens of the states before the
 * end, and the artifact is the same. */
START_TEST(short_chain_same_artifact)
{
    gcg_vocab v;
    vocab_make(&v);
    size_t n1 = 0, n2 = 0;
    gcg_compile_stats with, without;
    uint8_t *a = compile("root ::= [a-c]{0,5} \"!\"\n", &v, false, &n1, &with);
    uint8_t *b = compile("root ::= [a-c]{0,5} \"!\"\n", &v, true, &n2, &without);
    ck_assert_uint_eq(without.walks_shared, 0);
    ck_assert_uint_eq(n1, n2);
    ck_assert(memcmp(a, b, n1) == 0);
    free(a), free(b);
    gcg_vocab_free(&v);
}
END_TEST

/* Every string over {a,b,c,d} of 1 to 4 bytes, and the quote: the subtree
 * under each letter has 1 + 4 + 16 + 64 = 85 nodes, enough to be shared. */
static void vocab_letters(gcg_vocab *v)
{
    uint32_t at = 0, id = 0;
    vocab_alloc(v, 1 + 4 + 16 + 64 + 256 + 1, 1 + 4 + 2 * 16 + 3 * 64 + 4 * 256);
    v->offsets[id++] = at, v->bytes[at++] = '"';
    for (uint32_t len = 1; len <= 4; len++)
        for (uint32_t x = 0; x < (1u << (2 * len)); x++) {
            v->offsets[id++] = at;
            for (uint32_t k = 0; k < len; k++)
                v->bytes[at++] = (uint8_t)('a' + ((x >> (2 * k)) & 3));
        }
    vocab_done(v, at);
}

/* The string body is walked once, and mostly not at all. States: before the
 * quote, after it (the list still empty), in the list, after a letter,
 * after the closing quote, and the accepting state. Only the states a shift
 * enters (and the start) can top the frontier, so "in the list" and the
 * accepting state, entered by gotos, are not walked. A walk enters only the
 * children on which some stack lives: the quote before the quote, the quote
 * and the 4 letters after it and after a letter, none after the closing
 * quote.
 * - The start enters the quote: 1.
 * - After the quote the only action is to start the empty list, so the
 *   walk starts from the list itself (pending reductions come first at the
 *   root too, mask_sim.c). There a letter takes the stacks back to
 *   themselves, and the subtree below each letter holds only letters: a
 *   step into that loop takes the whole subtree without entering it. The
 *   walk enters the quote and the 4 letters: 5.
 * - After a letter the only action is to add it to the list: the walk
 *   starts from the list again and is replayed from the walk after the
 *   quote, entering nothing: 1 + 5 = 6.
 * - With shared walks off no subtree is taken whole, no root walk is
 *   replayed, and only the first of the walks that reach the body walks
 *   its 336 nodes: 11 + 336 = 347. */
START_TEST(string_body_walked_once)
{
    gcg_vocab v;
    vocab_letters(&v);
    const char *src = "root ::= \"\\\"\" [a-d]* \"\\\"\"\n";
    size_t size = 0;
    gcg_compile_stats stats;
    uint8_t *bytes = compile(src, &v, false, &size, &stats);
    ck_assert_uint_eq(stats.lr_states, 6);
    ck_assert_uint_eq(stats.trie_visits, 6);
    walks_match_brute_force(bytes, size, src);
    free(bytes);
    bytes = compile(src, &v, true, &size, &stats);
    ck_assert_uint_eq(stats.trie_visits, 347);
    free(bytes);
    gcg_vocab_free(&v);
}
END_TEST

/* A chain's start pairs with its first link (horizon.c, is_start): the
 * state after D_1 is the one after D_0 renamed, and the state after the
 * link that follows a fold's first kept link is the one after that link
 * renamed. Without the start's pair the first two states of each chain
 * walked in full: {0,12} entered 1,134 trie nodes and shared 8 walks, the
 * folded {0,40} 458 and 1. */
static const struct {
    const char *src;
    uint64_t visits, shared;
} chain_starts[] = {
    {"root ::= \"\\\"\" [a-d]{0,12} \"\\\"\"\n", 793, 9},
    {"root ::= \"\\\"\" [a-d]{0,40} \"\\\"\"\n", 457, 2},
};

START_TEST(chain_start_twin)
{
    gcg_vocab v;
    vocab_letters(&v);
    gcg_compile_stats with, without;
    same_over(chain_starts[_i].src, &v, &with, &without);
    ck_assert_uint_eq(with.trie_visits, chain_starts[_i].visits);
    ck_assert_uint_eq(with.walks_shared, chain_starts[_i].shared);
    gcg_vocab_free(&v);
}
END_TEST

/* The quote, and every string x over {a,b,c,d} of 1 to 4 bytes as x, "x,
 * "x", "x"a and "x"b: the subtree under the quote is big enough to be
 * shared, holds strings that close, and tokens that close one and go on. */
static void vocab_quoted(gcg_vocab *v)
{
    static const char *const pre[] = {"", "\"", "\"", "\"", "\""}, *const post[] = {"", "", "\"", "\"a", "\"b"};
    uint32_t at = 0, id = 0, n = 1, total = 1;
    for (uint32_t f = 0; f < 5; f++)
        for (uint32_t len = 1; len <= 4; len++)
            n += 1u << (2 * len), total += (len + (uint32_t)strlen(pre[f]) + (uint32_t)strlen(post[f])) << (2 * len);
    vocab_alloc(v, n + 1, total);
    v->offsets[id++] = at, v->bytes[at++] = '"';
    for (uint32_t f = 0; f < 5; f++)
        for (uint32_t len = 1; len <= 4; len++)
            for (uint32_t x = 0; x < (1u << (2 * len)); x++) {
                v->offsets[id++] = at;
                memcpy(v->bytes + at, pre[f], strlen(pre[f])), at += (uint32_t)strlen(pre[f]);
                for (uint32_t k = 0; k < len; k++)
                    v->bytes[at++] = (uint8_t)('a' + ((x >> (2 * k)) & 3));
                memcpy(v->bytes + at, post[f], strlen(post[f])), at += (uint32_t)strlen(post[f]);
            }
    vocab_done(v, at);
}

/* A string in three places, none a twin of another: after "a", "b" and
 * "cc" the body below the quote is walked once in its general form
 * (mask_sim.c, general walks) and replayed; for each place only the tokens
 * that close the string are resumed. The artifact is the plain walk's. Trie
 * nodes entered: 4,122 (5,819 plain; 4,118 when memo entries of over 1,024
 * words were kept at once, not on a second walk). */
START_TEST(string_body_shared_across_places)
{
    gcg_vocab v;
    vocab_quoted(&v);
    const char *src = "root ::= \"a\" s \"a\" | \"b\" s s | \"cc\" s \"b\"\ns ::= \"\\\"\" [a-d]* \"\\\"\"\n";
    gcg_compile_stats general, plain;
    same_over(src, &v, &general, &plain);
    ck_assert_uint_eq(general.trie_visits, 4122);
    ck_assert_uint_eq(plain.trie_visits, 5819);
    gcg_vocab_free(&v);
}
END_TEST

/* Text tokens in UTF-8, and tokens that are not well-formed. Below "aa",
 * "b", "é" and "中" every token goes on as well-formed UTF-8 (one stops
 * inside a character); below "bb" and "è" some do not (a lone
 * continuation byte) or hold a quote; at the root a lead byte alone, a lone
 * continuation byte, a surrogate, a code point past U+10FFFF, an overlong
 * form and F5. */
static const char *const utf8_tokens[] = {
    "\"", "a", "b", "\\", "ab", "a\"", "\"a", "a\xC3", "a\xC3\xA9", "aa", "aab", "aa\xC3\xA9",
    "aa\xE4\xB8\xAD\xE6\x96\x87", "aa\xC3\xA9\xC3\xA9", "aa\xF0\x9F\x98\x80", "bb", "bb\xC3\xA9", "bb\xA9", "bb\"",
    "b\xC3\xA9", "b\xE4\xB8\xAD\xE6\x96\x87", "b\xE4\xB8", "ba",
    "\xC3\xA9", "\xC3\xA9" "a", "\xC3\xA9\xC3\xA9", "\xC3\xA9\xE4\xB8\xAD", "\xC3\xA9\xC3\xA9\xE4\xB8\xAD",
    "\xE4\xB8\xAD", "\xE4\xB8\xAD\xE6\x96\x87", "\xE4\xB8\xAD\xE6\x96\x87" "a",
    "\xE4\xB8\xAD\xE6\x96\x87\xE6\x96\x87\xE6\x96\x87",
    "\xC3\xA8", "\xC3\xA8\"", "\xC3\xA8\xC3\xA8\xC3\xA8", "\xC3\xA8\xC3", "\xC3\xA8\xA9",
    "\xF0\x9F\x98\x80", "\xF0\x9F\x98\x80" "a",
    "\xC3", "\xE4\xB8", "\xA9", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xC0\xAF", "\xF5\x80"};

static void vocab_utf8(gcg_vocab *v)
{
    uint32_t n = sizeof utf8_tokens / sizeof *utf8_tokens, total = 0, at = 0;
    for (uint32_t i = 0; i < n; i++)
        total += (uint32_t)strlen(utf8_tokens[i]);
    vocab_alloc(v, n + 1, total);
    for (uint32_t i = 0; i < n; i++) {
        v->offsets[i] = at;
        memcpy(v->bytes + at, utf8_tokens[i], strlen(utf8_tokens[i]));
        at += (uint32_t)strlen(utf8_tokens[i]);
    }
    vocab_done(v, at);
}

/* String bodies over code points: where the body's loop keeps every
 * non-ASCII character, a subtree of well-formed UTF-8 from a character
 * boundary is taken whole (mask_sim.c, loop_holds); where the grammar
 * leaves a character out (é), or a token is not well-formed, the walk goes
 * byte by byte. Either way the artifact is the plain walk's, and the masks
 * are brute force's. A subtree entered inside a character is taken whole
 * too when the loop's character check met its form in that decoder state
 * (char_holds). Trie nodes entered with shared walks, and plain: 32 and
 * 375 where every character loops, 66 and 295 without é. The states after
 * the quote and after a character are one state (lr_minimize.h), so even
 * the plain walk takes their walk once. */
static const struct {
    const char *src;
    uint64_t visits, plain;
} utf8_cases[] = {
    {"root ::= \"\\\"\" [^\"\\\\]* \"\\\"\"\n", 32, 375},
    {"root ::= \"\\\"\" [^\"\\\\\u00e9]* \"\\\"\"\n", 66, 295},
    {"root ::= \"\\\"\" ([a-z] | [\\x80-\\U0010FFFF])* \"\\\"\" ws\nws ::= [ ]*\n", 32, 375},
};

START_TEST(utf8_subtrees_taken_whole)
{
    gcg_vocab v;
    vocab_utf8(&v);
    gcg_compile_stats shared, plain;
    same_over(utf8_cases[_i].src, &v, &shared, &plain);
    ck_assert_uint_eq(plain.trie_visits, utf8_cases[_i].plain);
    ck_assert_uint_eq(shared.trie_visits, utf8_cases[_i].visits);
    gcg_vocab_free(&v);
}
END_TEST

/* A key trie as the schema converter writes it (compiler/schema_struct.c):
 * the states that close a trie node each reduce whatever the next byte, and
 * several reduce to the same stack, so their root runs replay one memo
 * entry at one offset; the second such run takes the first's token set and
 * configurations (automaton.c, run_root). The artifact is that of the plain
 * walk and its masks equal brute force. */
static const char key_trie[] =
    "root ::= \"{\" ws members? \"}\"\n"
    "k ::= \"\\\"\"\n"
    "k2 ::= k \"a\"\n"
    "k3 ::= k2 \"b\"\n"
    "k4 ::= k2 \"c\"\n"
    "k5 ::= k \"b\"\n"
    "kany ::= k | k2 | k3 | k4 | k5\n"
    "kleft ::= k [ !#-\\[\\]-`c-~] | k2 [ !#-\\[\\]-ad-~] | k3 [ !#-\\[\\]-~] | k4 [ !#-\\[\\]-~] | "
    "k5 [ !#-\\[\\]-~] | kany \"\\\\\" [\"\\\\/bfnrt]\n"
    "kendat ::= k | k2\n"
    "kended ::= kendat \"\\\"\"\n"
    "additional ::= ( kleft rest | kended ) ws \":\" ws [0-9]+ ws\n"
    "last0 ::= k3 \"\\\"\" ws \":\" ws [0-9]+ ws\n"
    "last1 ::= k4 \"\\\"\" ws \":\" ws \"true\" ws | last0 \",\" ws k4 \"\\\"\" ws \":\" ws \"true\" ws\n"
    "more ::= additional | last0 \",\" ws additional | last1 \",\" ws additional | more \",\" ws additional\n"
    "members ::= last0 | last1 | more\n"
    "rest ::= [^\"\\\\]* \"\\\"\"\n"
    "ws ::= [ \\t]*\n";

START_TEST(equal_root_replays_shared)
{
    gcg_compile_stats with, without;
    same_either_way(key_trie, &with, &without);
    ck_assert_uint_eq(without.roots_replayed, 0);
    ck_assert_msg(with.roots_replayed > 0, "no root run took another's replay");
}
END_TEST

/* The single bytes of the chain vocabulary and every string of 2 to 4
 * bytes over `alphabet`: subtrees of hundreds of nodes, which the walks
 * memoize (mask_sim.c, MEMO_MIN). */
static void vocab_dense(gcg_vocab *v, const char *alphabet)
{
    static const char singles[] = "abcxz0123456789\"\\,.:;[](){}! tnu";
    uint32_t k = (uint32_t)strlen(alphabet), n = 0, total = 0;
    for (uint32_t len = 2, w = k * k; len <= 4; len++, w *= k)
        n += w, total += w * len;
    uint32_t n_single = sizeof singles - 1;
    vocab_alloc(v, n_single + n + 1, total + n_single);
    uint32_t at = 0, id = 0;
    for (uint32_t i = 0; i < n_single; i++)
        v->offsets[id++] = at, v->bytes[at++] = (uint8_t)singles[i];
    for (uint32_t len = 2, w = k * k; len <= 4; len++, w *= k)
        for (uint32_t x = 0; x < w; x++) {
            v->offsets[id++] = at;
            for (uint32_t i = 0, y = x; i < len; i++, y /= k)
                v->bytes[at++] = (uint8_t)alphabet[y % k];
        }
    vocab_done(v, at);
}

/* Objects as the schema converter writes them (compiler/schema_struct.c):
 * a key trie that every member position reads, so that resuming a key's
 * configurations asks each position for the same gotos. The positions that
 * agree are resumed together over a shared reference (automaton.c,
 * "resumes shared by the states below"); a group whose run touches it (the
 * positions differ within a token's reach: here `":1` ends a member, and
 * what may follow it differs) is dropped and resumed one by one. Either
 * way the artifact is that of the plain walk, and its masks equal brute
 * force. */
static const struct {
    const char *schema;
    uint32_t counts[2][4]; /* resumes shared and runs dropped over the chain
                              vocabulary, then over vocab_dense's; with the
                              default groups, then with groups of two on */
} objects[] = {
    {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"ab\":{\"type\":\"boolean\"},"
     "\"abc\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"},\"ba\":{\"type\":\"boolean\"},"
     "\"bb\":{\"type\":\"integer\"},\"c\":{\"type\":\"integer\"},\"ca\":{\"type\":\"boolean\"},"
     "\"cab\":{\"type\":\"integer\"},\"cc\":{\"type\":\"integer\"}}}", {{56, 2, 157, 3}, {121, 11, 236, 21}}},
    {"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"},\"ab\":{\"type\":\"string\"},"
     "\"abc\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"},\"ba\":{\"type\":\"integer\"},"
     "\"bb\":{\"type\":\"boolean\"},\"c\":{\"type\":\"integer\"},\"ca\":{\"type\":\"integer\"},"
     "\"cab\":{\"type\":\"string\"},\"cc\":{\"type\":\"boolean\"}},"
     "\"additionalProperties\":{\"type\":\"integer\"}}", {{52, 2, 116, 2}, {114, 8, 210, 13}}},
};

START_TEST(equal_resumes_shared)
{
    char *gbnf = NULL;
    gcg_schema_options so;
    gcg_schema_options_default(&so);
    ck_assert_int_eq(gcg_schema_to_gbnf(objects[_i].schema, strlen(objects[_i].schema), &so, &gbnf, NULL), GCG_OK);
    gcg_vocab v[2];
    vocab_make(&v[0]);
    vocab_dense(&v[1], "abc\":1,");
    for (int small = 0; small < 2; small++) {
        resume_group_min = small ? 2 : 0;
        for (int k = 0; k < 2; k++) {
            gcg_compile_stats with, without;
            same_over(gbnf, &v[k], &with, &without);
            ck_assert_uint_eq(without.resumes_shared, 0);
            ck_assert_uint_eq(without.shared_dropped, 0);
            ck_assert_uint_eq(with.resumes_shared, objects[_i].counts[small][2 * k]);
            ck_assert_uint_eq(with.shared_dropped, objects[_i].counts[small][2 * k + 1]);
        }
    }
    gcg_vocab_free(&v[0]), gcg_vocab_free(&v[1]);
    free(gbnf);
}
END_TEST

/* Strings of five bounds over one class, each closed by a quote, end in one
 * shared tail (count_fold.h). The vocabulary's longest token has 12 bytes,
 * so the window is 13: the chains of 8 to 12 links enter the tail at their
 * bound (a redirect), those of 20 and 40 fold into counters handing over to
 * its top. s10's chain follows a whitespace run, whose reduction before the
 * first copy needs the tail's bytes as lookaheads. The tail's links are
 * shared, so other bounds in the same range give the same LR states; at
 * every count of every chain, byte by byte up to its end, the mask equals
 * brute force, and random walks compare whole tokens. */
static const char tails_grammar[] =
    "root ::= \"{\" (\"a\" s8 | \"b\" s10 | \"c\" s12 | \"d\" s20 | \"e\" s40) \"}\"\n"
    "s8 ::= \"\\\"\" [a-c]{0,%u} \"\\\"\"\n"
    "s10 ::= \"\\\"\" ws [a-c]{0,%u} \"\\\"\"\n"
    "ws ::= [ ]*\n"
    "s12 ::= \"'\" [a-c]{0,%u} \"\\\"\"\n"
    "s20 ::= \"\\\"\" [a-c]{0,%u} \"\\\"\"\n"
    "s40 ::= \"\\\"\" [a-c]{0,%u} \"\\\"\"\n";

static const char *const long_tokens[] = {"aaaaaaaaaaaa", "abcabcabc\"}", "ccccccccccc\"", "  a"};

/* Opens `prefix`, then for n = 0..k copies of "a" compares the masks with
 * brute force; the (k+1)-th copy is rejected and the string then closes. */
static void chain_matches_brute_force(const gcg_artifact *art, const char *prefix, uint32_t k)
{
    size_t words = gcg_artifact_mask_words(art);
    uint32_t *fast = malloc(words * 4), *brute = malloc(words * 4);
    gcg_matcher *m = NULL;
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)prefix, strlen(prefix), NULL), GCG_OK);
    for (uint32_t n = 0; n <= k; n++) {
        ck_assert_int_eq(gcg_matcher_fill_mask(m, fast, words), GCG_OK);
        ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, brute, words), GCG_OK);
        ck_assert_msg(memcmp(fast, brute, words * 4) == 0, "%s: mask differs from brute force after %u copies",
                      prefix, n);
        ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"a", 1, NULL),
                         n < k ? GCG_OK : GCG_ERR_REJECTED);
    }
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"\"}", 2, NULL), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    free(fast), free(brute);
}

START_TEST(chains_share_one_tail)
{
    static const uint32_t bounds[2][5] = {{8, 10, 12, 20, 40}, {9, 11, 12, 25, 60}};
    static const char *const prefixes[5] = {"{a\"", "{b\"  ", "{c'", "{d\"", "{e\""};
    gcg_vocab v;
    vocab_make_with(&v, long_tokens, sizeof long_tokens / sizeof *long_tokens);
    uint32_t states[2];
    for (int b = 0; b < 2; b++) {
        const uint32_t *k = bounds[b];
        char src[sizeof tails_grammar + 64];
        snprintf(src, sizeof src, tails_grammar, k[0], k[1], k[2], k[3], k[4]);
        gcg_compile_stats with, without;
        same_over(src, &v, &with, &without);
        states[b] = with.lr_states;
        size_t size = 0;
        uint8_t *bytes = compile(src, &v, false, &size, &with);
        gcg_artifact *art = NULL;
        gcg_error err;
        ck_assert_int_eq(gcg_artifact_open_memory(bytes, size, &art, &err), GCG_OK);
        for (int i = 0; i < 5; i++)
            chain_matches_brute_force(art, prefixes[i], k[i]);
        gcg_artifact_free(art);
        free(bytes);
    }
    ck_assert_uint_eq(states[0], 65);
    ck_assert_uint_eq(states[1], states[0]);
    gcg_vocab_free(&v);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("horizon");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, shared_walks_change_nothing, 0, (int)(sizeof grammars / sizeof *grammars));
    tcase_add_test(tc, short_chain_same_artifact);
    tcase_add_test(tc, equal_root_replays_shared);
    tcase_add_loop_test(tc, equal_resumes_shared, 0, (int)(sizeof objects / sizeof *objects));
    tcase_add_test(tc, long_chain_counted);
    tcase_add_test(tc, chains_share_one_tail);
    tcase_add_loop_test(tc, loops_change_nothing, 0, (int)(sizeof loop_grammars / sizeof *loop_grammars));
    tcase_add_test(tc, string_body_walked_once);
    tcase_add_test(tc, string_body_shared_across_places);
    tcase_add_loop_test(tc, chain_start_twin, 0, (int)(sizeof chain_starts / sizeof *chain_starts));
    tcase_add_loop_test(tc, utf8_subtrees_taken_whole, 0, (int)(sizeof utf8_cases / sizeof *utf8_cases));
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
