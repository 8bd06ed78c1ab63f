/*
 * test_mask.c — the mask automaton on small cases whose answers are worked
 * out by hand: exact masks, exact stack-read depths and exact certificates.
 *
 *   - the design's worked example (S -> ( S ) | x; tokens (, x, ), x), )),
 *     (x and EOS): after "((x" the mask is exactly { ), )) }, found with 2
 *     stack reads, and nesting deeper does not read deeper; the certificate
 *     is the longest read chain (4, after "(((x)");
 *   - masks decided by the top state alone (RootAcc only: no read, one set
 *     operation);
 *   - mutual right recursion: root ::= "(" list ")" | list ";" with list
 *     recursing through a second rule is rewritten into left-linear form:
 *     bounded certificate, reads within it after any run of x's;
 *     json.gbnf's certificate is exactly 14 reads, 14 edges, 14 set operations;
 *   - EOS ids set exactly when the text is complete; special tokens never;
 *     after commit_eos the mask is empty, and rollback brings it back;
 *   - tokens that end inside, or start with the middle of, a UTF-8 sequence;
 *   - empty masks (the vocabulary cannot continue the text);
 *   - a GLR fork: the mask of a two-node frontier;
 *   - certificates of conflicts: a fork that re-merges after one byte and
 *     one that lives as long as the input but keeps its shape are bounded
 *     (2 stacks x 1 pair), so is a run split between two repetitions
 *     (value ::= [0-9]+ ws then ws "}": 2 stacks x 3 pairs, thanks to the
 *     sharing of equal nodes), so are two identical alternatives before
 *     llama.cpp's space rule (one stack's 5 pairs), so is a fork whose
 *     stacks share a growing chain (a gap); e ::= e e "c" | e "c" | "a" is
 *     unbounded for ambiguity (rule e); the repository's grammars but
 *     ambiguous.gbnf are bounded;
 *   - the buffer contract: n_words too small or NULL words is GCG_ERR_ARG,
 *     bits past the vocabulary are zero, words past the mask untouched;
 *   - byte-level use without a vocabulary file (the 256 single bytes), and
 *     an artifact built without the automaton (fill_mask says NO_VOCAB);
 *   - a dense stack (100 c's of root ::= root root "c" |): fill_mask must
 *     return, with brute force's mask;
 *   - compile time: an ambiguous grammar with one long token must compile
 *     in well under the case's 10 s timeout (the symbolic simulation must
 *     not enumerate every parse of the token).
 *
 * Every mask is taken from fill_mask (the automaton) and compared with the
 * expected set and with fill_mask_bruteforce, so a wrong expectation and a
 * wrong engine both show up here.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "gcg.h"
#include "vocab.h"
#include "test_files.h"

#define MAX_WORDS 16 /* the vocabularies here have at most 512 tokens */
#define END UINT32_MAX

/* ---- vocabularies and artifacts ---------------------------------------- */

/* A token for vocab_make: text (NULL = special), its length (-1 = strlen),
 * and whether it is an EOS token. */
typedef struct tok {
    const char *text;
    int len;
    bool eos;
} tok;

#define TXT(s) {s, -1, false}
#define BIN(s) {s, (int)sizeof(s) - 1, false}
#define SPECIAL {NULL, 0, false}
#define EOS {NULL, 0, true}

/* Builds a vocabulary in memory: token i is toks[i]. */
static void vocab_make(const tok *toks, uint32_t n, gcg_vocab *v)
{
    memset(v, 0, sizeof *v);
    uint32_t total = 0, eos[8], n_eos = 0;
    for (uint32_t i = 0; i < n; i++)
        total += toks[i].text ? (uint32_t)(toks[i].len < 0 ? (int)strlen(toks[i].text) : toks[i].len) : 0;
    v->n_tokens = n;
    v->offsets = malloc(((size_t)n + 1) * sizeof *v->offsets);
    v->bytes = malloc(total + 1);
    v->flags = malloc(n + 1);
    ck_assert(v->offsets && v->bytes && v->flags);
    uint32_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        v->offsets[i] = at;
        v->flags[i] = toks[i].text ? 0 : GCG_TOKEN_SPECIAL;
        if (toks[i].text) {
            uint32_t len = (uint32_t)(toks[i].len < 0 ? (int)strlen(toks[i].text) : toks[i].len);
            memcpy(v->bytes + at, toks[i].text, len);
            at += len;
        }
        if (toks[i].eos) {
            ck_assert_uint_lt(n_eos, 8);
            eos[n_eos++] = i;
        }
    }
    v->offsets[n] = at;
    ck_assert_int_eq(gcg_vocab_set_eos(v, eos, n_eos, NULL), GCG_OK);
}

/* Compiles src against v (NULL = the 256 single bytes); fails the test on a
 * compile error. */
static gcg_artifact *compile_opt(const char *src, const gcg_vocab *v, bool no_automaton)
{
    gcg_compile_options opt = {0};
    opt.vocab = v;
    opt.no_automaton = no_automaton;
    gcg_diag d;
    gcg_diag_init(&d, "t.gbnf");
    uint8_t *bytes = NULL;
    size_t size = 0;
    gcg_status st = gcg_compile(src, strlen(src), &opt, false, &bytes, &size, NULL, &d);
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

static gcg_artifact *compile_toks(const char *src, const tok *toks, uint32_t n)
{
    gcg_vocab v;
    vocab_make(toks, n, &v);
    gcg_artifact *art = compile_opt(src, &v, false);
    gcg_vocab_free(&v);
    ck_assert_uint_eq(gcg_artifact_vocab_size(art), n);
    return art;
}

#define COMPILE(src, toks) compile_toks(src, toks, (uint32_t)(sizeof toks / sizeof *toks))

static gcg_matcher *matcher(const gcg_artifact *art)
{
    gcg_matcher *m = NULL;
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    return m;
}

/* ---- masks --------------------------------------------------------------- */

/* Commits tokens ids[0..] up to END; each must be accepted. */
static void commit_ids(gcg_matcher *m, const uint32_t *ids)
{
    for (uint32_t i = 0; ids[i] != END; i++)
        ck_assert_msg(gcg_matcher_commit(m, ids[i]) == GCG_OK, "token %u (#%u) rejected", ids[i], i);
}

static void commit_str(gcg_matcher *m, const char *s)
{
    ck_assert_msg(gcg_matcher_commit_bytes(m, (const uint8_t *)s, strlen(s), NULL) == GCG_OK,
                  "\"%s\" rejected", s);
}

/* The mask in m's state equals exactly the ids want[0..] (up to END), by
 * the automaton and by brute force; returns the automaton's stats. */
static gcg_mask_stats expect_mask(gcg_matcher *m, const gcg_artifact *art, const uint32_t *want,
                                  const char *where)
{
    uint32_t exp[MAX_WORDS] = {0}, fast[MAX_WORDS], brute[MAX_WORDS];
    size_t words = gcg_artifact_mask_words(art);
    ck_assert_uint_le(words, MAX_WORDS);
    for (uint32_t i = 0; want[i] != END; i++)
        exp[want[i] >> 5] |= 1u << (want[i] & 31);
    ck_assert_int_eq(gcg_matcher_fill_mask(m, fast, words), GCG_OK);
    gcg_mask_stats st;
    gcg_matcher_last_mask_stats(m, &st);
    ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, brute, words), GCG_OK);
    for (uint32_t t = 0; t < words * 32; t++) {
        bool e = (exp[t >> 5] >> (t & 31)) & 1, f = (fast[t >> 5] >> (t & 31)) & 1,
             b = (brute[t >> 5] >> (t & 31)) & 1;
        ck_assert_msg(f == e && b == e, "%s: token %u: expected %d, automaton %d, brute force %d",
                      where, t, e, f, b);
    }
    return st;
}

#define L(...) ((const uint32_t[]){__VA_ARGS__, END})
#define NONE_ ((const uint32_t[]){END})

/* ---- the worked example ------------------------------------------------- */

/* Token ids of the worked example's vocabulary. */
enum { W_OPEN, W_X, W_CLOSE, W_XCLOSE, W_CLOSE2, W_OPENX, W_EOS };

static const tok worked_toks[] = {TXT("("), TXT("x"), TXT(")"), TXT("x)"), TXT("))"), TXT("(x"), EOS};
static const char *const worked_src = "root ::= \"(\" root \")\" | \"x\"\n";

START_TEST(test_worked_example)
{
    gcg_artifact *art = COMPILE(worked_src, worked_toks);
    gcg_matcher *m = matcher(art);
    commit_ids(m, L(W_OPEN, W_OPEN, W_X));
    gcg_mask_stats st = expect_mask(m, art, L(W_CLOSE, W_CLOSE2), "((x");
    ck_assert_uint_eq(st.frontier_nodes, 1);
    ck_assert_uint_eq(st.max_stack_reads, 2);
    ck_assert_uint_eq(st.set_ops, 3); /* RootAcc[3], Acc(D1, 2), Acc(D', 2) */
    /* Deeper nesting reads no deeper: only the two entries below decide. */
    gcg_matcher_reset(m);
    commit_str(m, "((((((x");
    st = expect_mask(m, art, L(W_CLOSE, W_CLOSE2), "((((((x");
    ck_assert_uint_eq(st.max_stack_reads, 2);
    /* The same text through the token (x. */
    gcg_matcher_reset(m);
    commit_ids(m, L(W_OPEN, W_OPENX));
    st = expect_mask(m, art, L(W_CLOSE, W_CLOSE2), "( (x");
    ck_assert_uint_eq(st.max_stack_reads, 2);
    /* "(((x)": S->(S) pops 4 and 2 (two reads), the third read finds 2:
     * ")" closes one more, and the fourth finds 2 again: "))" fits too. */
    gcg_matcher_reset(m);
    commit_ids(m, L(W_OPEN, W_OPEN, W_OPEN, W_XCLOSE));
    st = expect_mask(m, art, L(W_CLOSE, W_CLOSE2), "(((x)");
    ck_assert_uint_eq(st.max_stack_reads, 4);
    /* RootAcc and four transitions fire, naming three distinct sets: each
     * set is OR-ed once per mask (five unions if keyed by transition). */
    ck_assert_uint_eq(st.set_ops, 3);
    gcg_certificate cert;
    ck_assert_int_eq(gcg_artifact_certificate(art, &cert), GCG_OK);
    ck_assert(cert.bounded);
    ck_assert_str_eq(cert.unbounded_rule, "");
    /* Four reads deep: five pairs popped (the last finds no transition),
     * each following the one edge of its node on a deterministic stack. */
    ck_assert_uint_eq(cert.max_stack_reads, 5);
    ck_assert_uint_eq(cert.max_edges, 5);
    ck_assert_uint_eq(cert.max_set_ops, 5);
    ck_assert_uint_le(st.stack_reads, cert.max_stack_reads);
    ck_assert_uint_le(st.edges, cert.max_edges);
    ck_assert_uint_ge(st.set_ops, 1);
    ck_assert_uint_le(st.set_ops, cert.max_set_ops);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* Masks the top state decides alone: no stack read, one set operation. */
START_TEST(test_worked_example_root_only)
{
    gcg_artifact *art = COMPILE(worked_src, worked_toks);
    gcg_matcher *m = matcher(art);
    /* Start: "x)" dies in the known part (state 1 has no ")"). */
    gcg_mask_stats st = expect_mask(m, art, L(W_OPEN, W_X, W_OPENX), "start");
    ck_assert_uint_eq(st.max_stack_reads, 0);
    ck_assert_uint_eq(st.set_ops, 1);
    ck_assert_uint_eq(st.frontier_nodes, 1);
    /* After "(" and "((": "x)" reduces S -> x inside the known part. */
    commit_ids(m, L(W_OPEN));
    st = expect_mask(m, art, L(W_OPEN, W_X, W_XCLOSE, W_OPENX), "(");
    ck_assert_uint_eq(st.max_stack_reads, 0);
    ck_assert_uint_eq(st.set_ops, 1);
    commit_ids(m, L(W_OPEN));
    st = expect_mask(m, art, L(W_OPEN, W_X, W_XCLOSE, W_OPENX), "((");
    ck_assert_uint_eq(st.max_stack_reads, 0);
    ck_assert_uint_eq(st.set_ops, 1);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* Complete texts: only EOS; incomplete: never EOS. */
START_TEST(test_worked_example_eos)
{
    gcg_artifact *art = COMPILE(worked_src, worked_toks);
    gcg_matcher *m = matcher(art);
    commit_ids(m, L(W_X));
    expect_mask(m, art, L(W_EOS), "x");
    gcg_matcher_reset(m);
    commit_ids(m, L(W_OPEN, W_XCLOSE));
    expect_mask(m, art, L(W_EOS), "(x)");
    gcg_matcher_reset(m);
    commit_ids(m, L(W_OPEN, W_OPEN, W_XCLOSE));
    expect_mask(m, art, L(W_CLOSE), "((x)");
    commit_ids(m, L(W_CLOSE));
    expect_mask(m, art, L(W_EOS), "((x))");
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* ---- right recursion and the certificate -------------------------------- */

enum { R_OPEN, R_X, R_CLOSE, R_SEMI, R_XSEMI, R_XCLOSE, R_EOS };

static const tok right_toks[] = {TXT("("), TXT("x"), TXT(")"), TXT(";"), TXT("x;"), TXT("x)"), EOS};
/* The recursion goes through a second rule (mutual tail recursion): the
 * compiler rewrites the group into left-linear form, so the run of x's is
 * reduced as it is read. */
static const char *const right_src = "root ::= \"(\" list \")\" | list \";\"\n"
                                     "list ::= \"x\" tail | \"x\"\n"
                                     "tail ::= list\n";

/* Which of ")" or ";" may close a run of n x's depends on the entry below
 * the whole run; written right-recursively the mask would read all n
 * entries. After the rewrite the certificate is bounded (2 reads per
 * frontier node) and the reads stay at that bound for every n. */
START_TEST(test_right_recursion_unbounded)
{
    gcg_artifact *art = COMPILE(right_src, right_toks);
    gcg_certificate cert;
    ck_assert_int_eq(gcg_artifact_certificate(art, &cert), GCG_OK);
    ck_assert(cert.bounded);
    ck_assert_str_eq(cert.unbounded_rule, "");
    gcg_matcher *m = matcher(art);
    char where[32];
    for (uint32_t n = 1; n <= 40; n++) {
        gcg_matcher_reset(m);
        for (uint32_t i = 0; i < n; i++)
            commit_ids(m, L(R_X));
        snprintf(where, sizeof where, "x^%u", n);
        gcg_mask_stats st = expect_mask(m, art, L(R_X, R_SEMI, R_XSEMI), where);
        ck_assert_uint_le(st.max_stack_reads, cert.max_stack_reads);
        ck_assert_uint_le(st.set_ops, cert.max_set_ops);
        gcg_matcher_reset(m);
        commit_ids(m, L(R_OPEN));
        for (uint32_t i = 0; i < n; i++)
            commit_ids(m, L(R_X));
        snprintf(where, sizeof where, "(x^%u", n);
        st = expect_mask(m, art, L(R_X, R_CLOSE, R_XCLOSE), where);
        ck_assert_uint_le(st.max_stack_reads, cert.max_stack_reads);
        ck_assert_uint_le(st.set_ops, cert.max_set_ops);
    }
    commit_ids(m, L(R_XCLOSE));
    expect_mask(m, art, L(R_EOS), "(x^41)");
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* The JSON grammar reads a bounded depth however deep the nesting. */
START_TEST(test_json_certificate_bounded)
{
    char *src = test_read_grammar("json");
    gcg_vocab v;
    uint32_t eos = 256;
    ck_assert_int_eq(gcg_vocab_bytes256(&eos, 1, &v), GCG_OK);
    gcg_artifact *art = compile_opt(src, &v, false);
    gcg_vocab_free(&v);
    free(src);
    gcg_certificate cert;
    ck_assert_int_eq(gcg_artifact_certificate(art, &cert), GCG_OK);
    ck_assert(cert.bounded);
    ck_assert_str_eq(cert.unbounded_rule, "");
    /* No conflict: one stack, whose longest read chain is 13 transitions
     * (14 pairs popped, one edge each). */
    ck_assert_uint_eq(cert.unbounded_reason, GCG_UNBOUNDED_NONE);
    ck_assert_uint_eq(cert.max_stack_reads, 14);
    ck_assert_uint_eq(cert.max_edges, 14);
    ck_assert_uint_eq(cert.max_set_ops, 14);
    /* 300 nested arrays and objects: the reads stay under the bound. */
    gcg_matcher *m = matcher(art);
    uint32_t mask[9];
    for (int i = 0; i < 300; i++) {
        commit_str(m, i % 2 ? "{\"k\": " : "[");
        ck_assert_int_eq(gcg_matcher_fill_mask(m, mask, 9), GCG_OK);
        gcg_mask_stats st;
        gcg_matcher_last_mask_stats(m, &st);
        ck_assert_uint_le(st.max_stack_reads, cert.max_stack_reads);
    }
    commit_str(m, "1");
    for (int i = 299; i >= 0; i--) {
        ck_assert_int_eq(gcg_matcher_fill_mask(m, mask, 9), GCG_OK);
        gcg_mask_stats st;
        gcg_matcher_last_mask_stats(m, &st);
        ck_assert_uint_le(st.max_stack_reads, cert.max_stack_reads);
        commit_str(m, i % 2 ? "}" : "]");
    }
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* ---- EOS, special tokens, termination ----------------------------------- */

enum { E_A, E_PAD, E_B, E_EOS1, E_AB, E_EOS2, E_BB };

static const tok eos_toks[] = {TXT("a"), SPECIAL, TXT("b"), EOS, TXT("ab"), EOS, TXT("bb")};

START_TEST(test_eos_iff_complete)
{
    gcg_artifact *art = COMPILE("root ::= \"a\" \"b\"?\n", eos_toks);
    uint32_t n_eos;
    const uint32_t *eos = gcg_artifact_eos(art, &n_eos);
    ck_assert_uint_eq(n_eos, 2);
    ck_assert_uint_eq(eos[0], E_EOS1);
    ck_assert_uint_eq(eos[1], E_EOS2);
    gcg_matcher *m = matcher(art);
    expect_mask(m, art, L(E_A, E_AB), "start");
    ck_assert_int_eq(gcg_matcher_commit(m, E_PAD), GCG_ERR_REJECTED);
    ck_assert_int_eq(gcg_matcher_commit(m, E_EOS1), GCG_ERR_REJECTED);
    commit_ids(m, L(E_A));
    expect_mask(m, art, L(E_B, E_EOS1, E_EOS2), "a");
    commit_ids(m, L(E_B));
    expect_mask(m, art, L(E_EOS1, E_EOS2), "ab");
    ck_assert_int_eq(gcg_matcher_commit(m, E_EOS2), GCG_OK);
    ck_assert(gcg_matcher_is_terminated(m));
    /* Terminated: the mask is empty, by both builders, and says no reads. */
    gcg_mask_stats st = expect_mask(m, art, NONE_, "ab EOS");
    ck_assert_uint_eq(st.max_stack_reads, 0);
    ck_assert_uint_eq(st.set_ops, 0);
    ck_assert_int_eq(gcg_matcher_commit(m, E_A), GCG_ERR_TERMINATED);
    /* Back before EOS, the mask is back. */
    ck_assert_int_eq(gcg_matcher_rollback(m, 1), GCG_OK);
    expect_mask(m, art, L(E_EOS1, E_EOS2), "ab (rolled back)");
    ck_assert_int_eq(gcg_matcher_commit_eos(m), GCG_OK);
    expect_mask(m, art, NONE_, "ab commit_eos");
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* ---- UTF-8 inside tokens --------------------------------------------------- */

/* é = C3 A9: tokens may end after C3 and start with A9. */
enum { U_LEAD, U_CONT, U_E, U_CONTX, U_X, U_EOS, U_EX, U_OTHER };

static const tok utf8_toks[] = {BIN("\xC3"), BIN("\xA9"), BIN("\xC3\xA9"), BIN("\xA9x"), TXT("x"), EOS,
                                BIN("\xC3\xA9x"), BIN("\xC3\xA8")};

START_TEST(test_utf8_split_tokens)
{
    gcg_artifact *art = COMPILE("root ::= [é-ê] \"x\"\n", utf8_toks);
    gcg_matcher *m = matcher(art);
    expect_mask(m, art, L(U_LEAD, U_E, U_EX), "start");
    commit_ids(m, L(U_LEAD));
    expect_mask(m, art, L(U_CONT, U_CONTX), "C3");
    commit_ids(m, L(U_CONT));
    expect_mask(m, art, L(U_X), "C3 A9");
    commit_ids(m, L(U_X));
    expect_mask(m, art, L(U_EOS), "C3 A9 x");
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* ---- empty masks ----------------------------------------------------------- */

START_TEST(test_empty_mask)
{
    static const tok toks[] = {TXT("a"), TXT("c"), EOS, TXT("bb")};
    gcg_artifact *art = COMPILE("root ::= \"ab\" \"c\"*\n", toks);
    gcg_matcher *m = matcher(art);
    expect_mask(m, art, L(0), "start");
    commit_ids(m, L(0));
    /* Only "b" continues, and no token starts with a single b. */
    expect_mask(m, art, NONE_, "a");
    ck_assert(!gcg_matcher_is_complete(m));
    /* Committed as bytes, the text goes on; then c's and EOS. */
    commit_str(m, "b");
    expect_mask(m, art, L(1, 2), "ab");
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* ---- a GLR fork --------------------------------------------------------- */

/* After "xx" the parser cannot know yet whether the x's reduce as l (left
 * recursion, then "y") or stay shifted for r (right recursion, then "z"):
 * two stack tops, each contributing its own tokens. */
START_TEST(test_glr_fork)
{
    static const tok toks[] = {TXT("x"), TXT("y"), TXT("z"), TXT("xy"), TXT("xz"), EOS, TXT("yz")};
    gcg_artifact *art = COMPILE("root ::= l \"y\" | r \"z\"\nl ::= \"x\" | l \"x\"\nr ::= \"x\" | \"x\" r\n",
                                toks);
    gcg_matcher *m = matcher(art);
    expect_mask(m, art, L(0, 3, 4), "start");
    commit_str(m, "xx");
    gcg_mask_stats st = expect_mask(m, art, L(0, 1, 2, 3, 4), "xx");
    ck_assert_uint_ge(st.frontier_nodes, 2);
    commit_str(m, "y");
    expect_mask(m, art, L(5), "xxy");
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* A walk shared with a twin state's (horizon.h) after a configuration
 * resumed over the entry: e{,3} with e ::= "a" | r r?. After "E de fg h"
 * the stack may hold one copy of e (de fg) with h starting the second;
 * "ia\n" then makes e, e and a fourth copy starting at "\n", one too many,
 * while over the chain's state with no copy yet it fits. The twin's walk
 * agrees only on tokens of at most two bytes here: the goto on e follows
 * one byte after the entry is resumed, not e's fewest bytes. */
START_TEST(test_twin_walk_after_resume)
{
    static const tok toks[] = {TXT("ia\n"), TXT("ia"), TXT("i"), TXT("a"), TXT("c"), EOS};
    gcg_artifact *art = COMPILE("root ::= [d-z\n] [d-z] | \"E\" (\"a\" | root root?){,3} \"c\"\n", toks);
    gcg_matcher *m = matcher(art);
    commit_str(m, "Edefg");
    expect_mask(m, art, L(2, 3, 4), "Edefg");
    commit_str(m, "h");
    expect_mask(m, art, L(1, 2), "Edefgh");
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* ---- certificates of grammars with GLR conflicts ------------------------ */

/* The certificate of src over the 256 single bytes. */
static gcg_certificate cert_of(const char *src, gcg_artifact **keep)
{
    gcg_artifact *art = compile_opt(src, NULL, false);
    gcg_certificate c;
    ck_assert_int_eq(gcg_artifact_certificate(art, &c), GCG_OK);
    if (keep)
        *keep = art;
    else
        gcg_artifact_free(art);
    return c;
}

/* Commits `text` byte by byte; after each, the mask equals brute force and
 * stays within the certificate. Returns the widest frontier seen. */
static uint32_t walk_within(gcg_matcher *m, const gcg_certificate *c, const char *text)
{
    uint32_t w[9] = {0}, b[9] = {0}, widest = 0; /* words past the mask stay 0 */
    for (size_t i = 0;; i++) {
        ck_assert_int_eq(gcg_matcher_fill_mask(m, w, 9), GCG_OK);
        ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, b, 9), GCG_OK);
        ck_assert(memcmp(w, b, sizeof w) == 0);
        gcg_mask_stats st;
        gcg_matcher_last_mask_stats(m, &st);
        ck_assert_uint_le(st.stack_reads, c->max_stack_reads);
        ck_assert_uint_le(st.edges, c->max_edges);
        ck_assert_uint_le(st.set_ops, c->max_set_ops);
        widest = st.frontier_nodes > widest ? st.frontier_nodes : widest;
        if (!text[i])
            return widest;
        ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)text + i, 1, NULL), GCG_OK);
    }
}

/* s ::= a "x" | b "x" "x"? with a and b both deriving "p" (b also "q", so
 * the two rules are not one merged rule): on "x" after "p" both
 * reductions apply (one byte of lookahead cannot choose), so after "px" two
 * stacks are alive, [0 a ax] and [0 b bx] (bx, which may shift a second
 * "x", is no state ax is equivalent to: lr_minimize.h); "!" reduces both to
 * the same [0 s]. Every mask is decided by the top state (no read below),
 * so the bound is 2 stacks x 1 pair. */
START_TEST(test_cert_fork_remerges)
{
    gcg_artifact *art;
    gcg_certificate c = cert_of("root ::= s \"!\"\ns ::= a \"x\" | b \"x\" \"x\"?\na ::= \"p\"\nb ::= \"p\" | \"q\"\n", &art);
    ck_assert(c.bounded);
    ck_assert_uint_eq(c.unbounded_reason, GCG_UNBOUNDED_NONE);
    ck_assert_uint_eq(c.max_stack_reads, 2);
    ck_assert_uint_eq(c.max_edges, 2);
    ck_assert_uint_eq(c.max_set_ops, 2);
    gcg_matcher *m = matcher(art);
    ck_assert_uint_eq(walk_within(m, &c, "px"), 2);
    gcg_matcher_reset(m);
    ck_assert_uint_eq(walk_within(m, &c, "px!"), 2);
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* Two left-recursive lists of x's that only the last byte tells apart: the
 * two stacks live as long as the x's last, but each stays [0 a] / [0 b]
 * between bytes, so the bound holds for any length: 2 stacks x 1 pair. */
START_TEST(test_cert_fork_lives_bounded)
{
    gcg_artifact *art;
    gcg_certificate c = cert_of("root ::= a \"1\" | b \"2\"\na ::= a \"x\" | \"x\"\nb ::= b \"x\" | \"x\"\n", &art);
    ck_assert(c.bounded);
    ck_assert_uint_eq(c.max_stack_reads, 2);
    ck_assert_uint_eq(c.max_edges, 2);
    char text[302];
    memset(text, 'x', 300);
    text[300] = '2', text[301] = 0;
    gcg_matcher *m = matcher(art);
    ck_assert_uint_eq(walk_within(m, &c, text), 2);
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* value ::= [0-9]+ ws before ws "}": a space after the digits may belong to
 * either ws, and k spaces have k + 1 parses. The stacks differ only by
 * where the run was split, and the runtime shares equal nodes across
 * levels (glr_merge.c), so between bytes there are two stacks, the space in
 * value's ws or in the outer one, each read at most 3 pairs deep: 2 x 3. */
START_TEST(test_cert_split_run_bounded)
{
    gcg_artifact *art;
    gcg_certificate c = cert_of("root ::= \"{\" value ws \"}\"\nvalue ::= [0-9]+ ws\nws ::= [ ]*\n", &art);
    ck_assert(c.bounded);
    ck_assert_uint_eq(c.max_stack_reads, 6);
    ck_assert_uint_eq(c.max_edges, 6);
    char text[304] = "{12";
    memset(text + 3, ' ', 299);
    text[302] = '}', text[303] = 0;
    gcg_matcher *m = matcher(art);
    ck_assert_uint_eq(walk_within(m, &c, text), 1);
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* The converters' shape: two identical alternatives (v0, v1) and the
 * llama.cpp space rule. The reduce/reduce conflict forks on the byte after
 * the value, and both reductions reach the same v node of the same level:
 * one stack again before the byte is shifted, so the bound is one stack's,
 * 4 reads deep, 5 pairs. */
START_TEST(test_cert_identical_alternatives)
{
    gcg_artifact *art;
    gcg_certificate c = cert_of("root ::= \"{\" space \"\\\"k\\\"\" space \":\" space v \"}\" space\n"
                                "v ::= v0 | v1\nv0 ::= \"\\\"x\\\"\" space\nv1 ::= \"\\\"x\\\"\" space\n"
                                "space ::= | \" \" | \"\\n\"{1,2} [ \\t]{0,20}\n",
                                &art);
    ck_assert(c.bounded);
    ck_assert_uint_eq(c.max_stack_reads, 5);
    ck_assert_uint_eq(c.max_edges, 5);
    gcg_matcher *m = matcher(art);
    ck_assert_uint_eq(walk_within(m, &c, "{\n\t\"k\" : \"x\"\n\n\t\t\t}"), 1);
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* llama.cpp's expression shape, cut down: a space after "x" may be the
 * factor's w or the term's, and with "x" a factor or the head of a call the
 * stacks below the bracket differ. Inside nested calls they share one
 * chain that grows with the nesting, so the exact fork exploration never
 * repeats a configuration; forgetting the chain's middle (a gap) finds a
 * bounded set of shapes. */
START_TEST(test_cert_shared_chain_bounded)
{
    gcg_artifact *art;
    gcg_certificate c = cert_of("root ::= e\ne ::= t w (\"+\" t)*\nt ::= f w\n"
                                "f ::= \"x\" | \"x\" w \"(\" e? \")\"\nw ::= \" \"?\n",
                                &art);
    ck_assert_msg(c.bounded, "unbounded (rule %s)", c.unbounded_rule);
    ck_assert_uint_eq(c.max_stack_reads, 60);
    ck_assert_uint_eq(c.max_edges, 60);
    char text[2000] = "";
    for (int i = 0; i < 120; i++)
        strcat(text, i % 3 ? "x (" : "x(");
    for (int i = 0; i < 120; i++)
        strcat(text, i % 5 ? ") " : ")+x ");
    gcg_matcher *m = matcher(art);
    ck_assert_uint_eq(walk_within(m, &c, text), 1);
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* e ::= e e "c" | e "c" | "a": "a" then "ac" repeated leaves ever more ways
 * to split the e's: the certificate, which reads stacks frame by frame, says
 * unbounded for ambiguity, naming e. The runtime keeps the frames that grow
 * with the input as one run edge (glr.h), so the mask after 100 "ac" does
 * what it does after 10, and equals the brute force. */
START_TEST(test_cert_ambiguity_unbounded)
{
    gcg_artifact *art;
    gcg_certificate c = cert_of("root ::= e\ne ::= e e \"c\" | e \"c\" | \"a\"\n", &art);
    ck_assert(!c.bounded);
    ck_assert_uint_eq(c.unbounded_reason, GCG_UNBOUNDED_AMBIGUITY);
    ck_assert_str_eq(c.unbounded_rule, "e");
    ck_assert_uint_gt(c.max_set_ops, 0);
    gcg_matcher *m = matcher(art);
    commit_str(m, "a");
    gcg_mask_stats at10, st;
    uint32_t w[9], b[9];
    for (int i = 1; i <= 100; i++) {
        commit_str(m, "ac");
        ck_assert_int_eq(gcg_matcher_fill_mask(m, w, 9), GCG_OK);
        gcg_matcher_last_mask_stats(m, &st);
        if (i == 10)
            at10 = st;
    }
    ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, b, 9), GCG_OK);
    ck_assert_mem_eq(w, b, sizeof w);
    ck_assert_uint_eq(st.edges, 6);
    ck_assert_uint_eq(st.stack_reads, 4);
    ck_assert_uint_eq(st.edges, at10.edges);
    ck_assert_uint_eq(st.stack_reads, at10.stack_reads);
    ck_assert_uint_le(st.set_ops, c.max_set_ops);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* The repository's grammars: every one but ambiguous.gbnf (ambiguity) has a
 * bounded certificate. */
START_TEST(test_cert_repository_grammars)
{
    static const char *const bounded[] = {"arith", "c_subset", "chess", "json", "markdown", "unicode"};
    for (size_t i = 0; i < sizeof bounded / sizeof *bounded; i++) {
        char *src = test_read_grammar(bounded[i]);
        gcg_certificate c = cert_of(src, NULL);
        free(src);
        ck_assert_msg(c.bounded, "%s: unbounded (rule %s)", bounded[i], c.unbounded_rule);
    }
    char *src = test_read_grammar("ambiguous");
    gcg_certificate c = cert_of(src, NULL);
    free(src);
    ck_assert(!c.bounded);
    ck_assert_uint_eq(c.unbounded_reason, GCG_UNBOUNDED_AMBIGUITY);
}
END_TEST

/* ---- the buffer contract ---------------------------------------------------- */

START_TEST(test_n_words)
{
    /* 33 tokens: two words, the second with one valid bit. */
    tok toks[33];
    char letters[33][2];
    for (int i = 0; i < 32; i++) {
        letters[i][0] = (char)('A' + i), letters[i][1] = 0;
        toks[i] = (tok){letters[i], -1, false};
    }
    toks[32] = (tok){NULL, 0, true};
    gcg_artifact *art = compile_toks("root ::= [A-Z]+\n", toks, 33);
    ck_assert_uint_eq(gcg_artifact_mask_words(art), 2);
    gcg_matcher *m = matcher(art);
    uint32_t w[4] = {1, 2, 3, 4};
    ck_assert_int_eq(gcg_matcher_fill_mask(m, w, 1), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_matcher_fill_mask(m, w, 0), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_matcher_fill_mask(m, NULL, 2), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_matcher_fill_mask(NULL, w, 2), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, w, 1), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, NULL, 2), GCG_ERR_ARG);
    w[0] = w[1] = w[2] = w[3] = 0xDEADBEEFu;
    ck_assert_int_eq(gcg_matcher_fill_mask(m, w, 3), GCG_OK);
    ck_assert_uint_eq(w[0], 0x03FFFFFFu); /* A..Z */
    ck_assert_uint_eq(w[1], 0);            /* "[", ..., "`", EOS: none yet */
    ck_assert_uint_eq(w[2], 0xDEADBEEFu);
    commit_str(m, "Q");
    ck_assert_int_eq(gcg_matcher_fill_mask(m, w, 2), GCG_OK);
    ck_assert_uint_eq(w[0], 0x03FFFFFFu);
    ck_assert_uint_eq(w[1], 1); /* EOS, and nothing past token 32 */
    ck_assert_uint_eq(w[2], 0xDEADBEEFu);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* ---- without a vocabulary file ------------------------------------------- */

/* No vocabulary given: the 256 single bytes are the tokens, so the mask is
 * the set of bytes that may come next. */
START_TEST(test_bytes_without_vocab)
{
    gcg_artifact *art = compile_opt("root ::= \"n\" [0-9]+ (\"é\" | \";\")\n", NULL, false);
    ck_assert_uint_eq(gcg_artifact_vocab_size(art), 256);
    ck_assert_uint_eq(gcg_artifact_mask_words(art), 8);
    uint32_t n_eos = 99;
    gcg_artifact_eos(art, &n_eos);
    ck_assert_uint_eq(n_eos, 0);
    gcg_matcher *m = matcher(art);
    expect_mask(m, art, L('n'), "start");
    commit_str(m, "n");
    expect_mask(m, art, L('0', '1', '2', '3', '4', '5', '6', '7', '8', '9'), "n");
    commit_str(m, "42");
    expect_mask(m, art, L('0', '1', '2', '3', '4', '5', '6', '7', '8', '9', ';', 0xC3), "n42");
    ck_assert_int_eq(gcg_matcher_commit(m, 0xC3), GCG_OK);
    expect_mask(m, art, L(0xA9), "n42 C3");
    ck_assert_int_eq(gcg_matcher_commit(m, 0xA9), GCG_OK);
    expect_mask(m, art, NONE_, "n42é"); /* complete, but there is no EOS token */
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* Built without the automaton: byte-level matching works, the automaton's
 * mask and certificate do not exist, brute force still does. */
START_TEST(test_no_automaton)
{
    gcg_artifact *art = compile_opt("root ::= \"ab\"\n", NULL, true);
    gcg_matcher *m = matcher(art);
    uint32_t w[8];
    ck_assert_int_eq(gcg_matcher_fill_mask(m, w, 8), GCG_ERR_NO_VOCAB);
    gcg_certificate cert;
    ck_assert_int_eq(gcg_artifact_certificate(art, &cert), GCG_ERR_NO_VOCAB);
    ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, w, 8), GCG_OK);
    for (int i = 0; i < 8; i++) /* only 'a' = 97 = word 3, bit 1 */
        ck_assert_uint_eq(w[i], i == 3 ? 2u : 0u);
    commit_str(m, "ab");
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* ---- a wide stack ------------------------------------------------------------ */

/* root ::= root root "c" | (c*, every split of the c's a parse) after 100
 * c's committed in one call: the stack below the tops is a dense graph, so
 * the walk meets many more (automaton state, stack node) pairs than there
 * are live nodes. fill_mask must still return, with the mask brute force
 * gives. It did not: the visited-pair set is sized for the live nodes and
 * grown by pairs popped, not pairs marked, so with many pairs pending it
 * fills up and the probe loops forever (mask_walk.c, seen_add). At 48 c's
 * it still returned; at 100 it never does. The time limit is the case's
 * timeout. */
START_TEST(test_wide_stack_walk_returns)
{
    static const tok toks[] = {TXT("c"), TXT("cccccccc"), EOS};
    gcg_artifact *art = COMPILE("root ::= root root \"c\" | \n", toks);
    gcg_matcher *m = matcher(art);
    char cs[101];
    memset(cs, 'c', 100), cs[100] = 0;
    commit_str(m, cs);
    gcg_mask_stats st = expect_mask(m, art, L(0, 1, 2), "c^100");
    gcg_certificate cert;
    ck_assert_int_eq(gcg_artifact_certificate(art, &cert), GCG_OK);
    if (cert.bounded)
        ck_assert_uint_le(st.max_stack_reads, cert.max_stack_reads);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* ---- compile time ------------------------------------------------------------ */

/* root ::= (root root+ "a")* is a* with a great deal of ambiguity (root is
 * nullable). The runtime follows it with a shared stack; the symbolic
 * simulation of one long token must not fork into every parse either: with
 * the single-byte token, EOS and one token of 9 a's, the compile must take
 * milliseconds, not minutes (with stacks copied at each fork it grew about
 * tenfold per byte of the token: 0.4 s at 6 bytes, 3 s at 7, 29 s at 8;
 * forks that meet are merged, and a form of many stacks is walked on a
 * graph-structured stack, mask_gss.h). The time limit is the test case's
 * timeout. */
START_TEST(test_ambiguous_long_token_compile_time)
{
    static const tok toks[] = {TXT("a"), EOS, TXT("aaaaaaaaa")};
    gcg_artifact *art = COMPILE("root ::= (root root+ \"a\")*\n", toks);
    gcg_matcher *m = matcher(art);
    expect_mask(m, art, L(0, 1, 2), "start");
    commit_ids(m, L(2, 0));
    expect_mask(m, art, L(0, 1, 2), "a^10");
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mask");
    TCase *tc = tcase_create("automaton");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_worked_example);
    tcase_add_test(tc, test_worked_example_root_only);
    tcase_add_test(tc, test_worked_example_eos);
    tcase_add_test(tc, test_right_recursion_unbounded);
    tcase_add_test(tc, test_json_certificate_bounded);
    tcase_add_test(tc, test_eos_iff_complete);
    tcase_add_test(tc, test_utf8_split_tokens);
    tcase_add_test(tc, test_empty_mask);
    tcase_add_test(tc, test_glr_fork);
    tcase_add_test(tc, test_twin_walk_after_resume);
    tcase_add_test(tc, test_cert_fork_remerges);
    tcase_add_test(tc, test_cert_fork_lives_bounded);
    tcase_add_test(tc, test_cert_split_run_bounded);
    tcase_add_test(tc, test_cert_identical_alternatives);
    tcase_add_test(tc, test_cert_shared_chain_bounded);
    tcase_add_test(tc, test_cert_ambiguity_unbounded);
    tcase_add_test(tc, test_cert_repository_grammars);
    tcase_add_test(tc, test_n_words);
    tcase_add_test(tc, test_bytes_without_vocab);
    tcase_add_test(tc, test_no_automaton);
    suite_add_tcase(s, tc);
    TCase *wide = tcase_create("wide_stack");
    tcase_set_timeout(wide, 10);
    tcase_add_test(wide, test_wide_stack_walk_returns);
    suite_add_tcase(s, wide);
    TCase *slow = tcase_create("compile_time");
    tcase_set_timeout(slow, 10);
    tcase_add_test(slow, test_ambiguous_long_token_compile_time);
    suite_add_tcase(s, slow);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
