/*
 * test_differential.c — the engine against an independent Earley recognizer.
 *
 * 1. The reference itself, on textbook grammars with hand-checked answers
 *    (nullable rules, left/right/hidden-left recursion, unit cycles,
 *    ambiguity, bounded repetition, UTF-8 classes, empty languages).
 * 2. Random grammars (tests/ref/randgram.h) x random strings: gcg_compile +
 *    a matcher fed byte by byte (and in one commit) must answer exactly what
 *    the reference answers: complete, prefix, or reject at the same offset.
 *    A grammar the compiler refuses must be one the reference also finds
 *    degenerate (its language is empty).
 * GCG_DIFF_SEED, GCG_DIFF_GRAMMARS and GCG_DIFF_MAXLEN override the first
 * seed, the number of grammars and the longest string; a failure prints the
 * seed, the grammar and the string. Strings are kept short because GLR on
 * the most ambiguous random grammars costs a high power of the length.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "earley.h"
#include "engine_run.h"
#include "gbnf.h"
#include "randgram.h"

#define DEFAULT_SEED 1
#define DEFAULT_GRAMMARS 1000
#define STRINGS_PER_GRAMMAR 40
#define DEFAULT_MAXLEN 32
#define MAX_STRING 256

/* ------------------------------------------------------------------ */
/* Part 1: the reference on textbook grammars                           */
/* ------------------------------------------------------------------ */

#define C_ (-1L) /* complete */
#define P_ (-2L) /* prefix   */

typedef struct rcase {
    const char *text;
    size_t len;
    long expect; /* C_, P_ or the reject offset */
} rcase;

#define T(s, e) {s, sizeof(s) - 1, e}

static ref_status parse_ref(const char *src, ref_grammar **out)
{
    gbnf_grammar g;
    gcg_diag d;
    gcg_diag_init(&d, "test");
    gcg_status st = gcg_gbnf_parse(src, strlen(src), NULL, &g, &d);
    ck_assert_msg(st == GCG_OK, "grammar does not parse: %s", src);
    ref_status rs = ref_grammar_build(&g, out);
    gcg_gbnf_free(&g);
    gcg_diag_free(&d);
    return rs;
}

static void run_cases(const char *src, const rcase *cs, size_t n)
{
    ref_grammar *rg;
    ck_assert_int_eq(parse_ref(src, &rg), REF_OK);
    for (size_t i = 0; i < n; i++) {
        ref_result r = ref_match(rg, (const uint8_t *)cs[i].text, cs[i].len);
        long got = r.verdict == REF_COMPLETE ? C_ : r.verdict == REF_PREFIX ? P_ : (long)r.offset;
        ck_assert_msg(r.verdict != REF_ERROR && got == cs[i].expect,
                      "%s on \"%s\": expected %ld, got %ld", src, cs[i].text, cs[i].expect, got);
    }
    ref_grammar_free(rg);
}

#define RUN(src, cases) run_cases(src, cases, sizeof cases / sizeof *cases)

START_TEST(test_ref_balanced)
{
    static const rcase cs[] = {T("", C_),     T("ab", C_),   T("aabb", C_), T("a", P_),
                               T("aab", P_),  T("abb", 2),   T("ba", 0),    T("aabbb", 4)};
    RUN("root ::= | \"a\" root \"b\"\n", cs);
}
END_TEST

START_TEST(test_ref_left_recursion)
{
    static const rcase cs[] = {T("n", C_), T("n+n+n", C_), T("n+", P_), T("", P_),
                               T("+n", 0), T("nn", 1),     T("n++", 2)};
    RUN("root ::= root \"+\" \"n\" | \"n\"\n", cs);
}
END_TEST

START_TEST(test_ref_right_recursion)
{
    static const rcase cs[] = {T("x", C_), T("ax", C_), T("aaax", C_), T("aaa", P_), T("xa", 1)};
    RUN("root ::= \"a\" root | \"x\"\n", cs);
}
END_TEST

/* c^j b a^k with j <= k: each "a" may bring one optional "c" before. */
START_TEST(test_ref_hidden_left_recursion)
{
    static const rcase cs[] = {T("b", C_),   T("ba", C_),    T("cba", C_), T("ccbaa", C_),
                               T("cbaa", C_), T("ccba", P_), T("ccb", P_), T("a", 0),
                               T("bc", 1)};
    RUN("root ::= x root \"a\" | \"b\"\nx ::= \"c\"?\n", cs);
}
END_TEST

/* Aycock-Horspool's problem case: completions of empty constituents. */
START_TEST(test_ref_nullable_chain)
{
    static const rcase cs[] = {T("x", C_),   T("yx", C_), T("yyyx", C_), T("yy", P_),
                               T("yyyy", 3), T("", P_)};
    RUN("root ::= a a a \"x\"\na ::= | \"y\"\n", cs);
    /* c's item waiting for the nullable a appears after a was completed. */
    static const rcase cs2[] = {T("x", C_), T("yyx", C_), T("yx", C_), T("yyy", 2)};
    RUN("root ::= a c\nc ::= a \"x\"\na ::= | \"y\"\n", cs2);
}
END_TEST

START_TEST(test_ref_nullable_repetition)
{
    static const rcase cs[] = {T("", C_), T("aaaa", C_), T("b", 0)};
    RUN("root ::= (\"a\"?)*\n", cs);
    static const rcase cs2[] = {T("", C_), T("aaaaa", C_), T("ab", 1)};
    RUN("root ::= (\"a\"?){2,}\n", cs2);
}
END_TEST

START_TEST(test_ref_unit_cycle)
{
    static const rcase cs[] = {T("x", C_), T("", P_), T("xx", 1), T("y", 0)};
    RUN("root ::= b | \"x\"\nb ::= root\n", cs);
}
END_TEST

START_TEST(test_ref_ambiguous)
{
    static const rcase cs[] = {T("a", C_), T("aaaa", C_), T("a+aa+a", C_), T("a+", P_),
                               T("+", 0),  T("a++", 2)};
    RUN("root ::= root root | root \"+\" root | \"a\"\n", cs);
}
END_TEST

START_TEST(test_ref_bounded_repetition)
{
    static const rcase cs[] = {T("a", P_), T("aa", C_), T("aaa", C_), T("aaaa", 3)};
    RUN("root ::= \"a\"{2,3}\n", cs);
    static const rcase cs2[] = {T("bc", C_), T("bac", 1)};
    RUN("root ::= \"b\" \"a\"{0} \"c\"\n", cs2);
    static const rcase cs3[] = {T("", C_), T("aa", C_), T("aaa", 2)};
    RUN("root ::= \"a\"{,2}\n", cs3);
    static const rcase cs4[] = {T("aab", P_), T("aabbb", C_), T("aabbbbbb", C_), T("ab", 1)};
    RUN("root ::= \"a\"{2} \"b\"{3,}\n", cs4);
}
END_TEST

/* é = C3 A9, ê = C3 AA, è = C3 A8, € = E2 82 AC. */
START_TEST(test_ref_utf8_class)
{
    static const rcase cs[] = {
        T("\xC3\xA9\xE2\x82\xAC", C_), T("\xC3", P_), T("\xC3\xA8", 1), T("\xE2\x82", P_),
        T("\xE2\x82\xAD", 2),          T("\xE2\x81", 1), T("\xC3\xC3", 1), T("e", 0)};
    RUN("root ::= [é-ê€]+\n", cs);
}
END_TEST

START_TEST(test_ref_any)
{
    static const rcase cs[] = {
        T("ab", C_),           T("\xEF\xBF\xBF\x00", C_), T("\xF4\x8F\xBF\xBF", P_),
        T("\xED\xA0\x80", 1),  T("\xED\x9F\xBF" "a", C_), T("\xF4\x90", 1),
        T("\xC0\x80", 0),      T("\xE0\x9F", 1),          T("\xF0\x8F", 1),
        T("\x80", 0),          T("\xF5", 0),              T("abc", 2)};
    RUN("root ::= . .\n", cs);
}
END_TEST

START_TEST(test_ref_negated_class)
{
    static const rcase cs[] = {T("b", C_), T("a", 0), T("\xF0\x9F\x98\x80", C_),
                               T("\xED\x9F\xBF", C_), T("", P_), T("bb", 1)};
    RUN("root ::= [^a]\n", cs);
}
END_TEST

START_TEST(test_ref_literal_utf8)
{
    static const rcase cs[] = {T("n\xC3", P_), T("n\xC3\xA9", C_), T("n\xC3\xA8", 2), T("ne", 1)};
    RUN("root ::= \"né\"\n", cs);
}
END_TEST

/* Unproductive rules are dropped: "a" can never be completed. */
START_TEST(test_ref_unproductive)
{
    static const rcase cs[] = {T("b", C_), T("a", 0)};
    RUN("root ::= \"a\" x | \"b\"\nx ::= x \"c\"\n", cs);
    ref_grammar *rg = NULL;
    ck_assert_int_eq(parse_ref("root ::= root \"a\"\n", &rg), REF_EMPTY_LANGUAGE);
    ck_assert_ptr_null(rg);
    ck_assert_int_eq(parse_ref("root ::= \"a\" x\nx ::= x | y\ny ::= x \"b\"\n", &rg),
                     REF_EMPTY_LANGUAGE);
    ck_assert_int_eq(parse_ref("root ::= []\n", &rg), REF_EMPTY_LANGUAGE);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Part 2: random grammars, engine against reference                    */
/* ------------------------------------------------------------------ */

/* What happened over the whole run, printed at the end. */
typedef struct diff_stats {
    unsigned long grammars, compiled, cases;
    unsigned long refused_empty, refused_too_big;
    unsigned long complete, prefix, reject;
    size_t maxlen;                 /* longest string tried            */
    unsigned long failed;          /* grammars with any disagreement */
    unsigned long long first_fail; /* its seed                        */
} diff_stats;

static unsigned long env_ulong(const char *name, unsigned long dflt)
{
    const char *s = getenv(name);
    return s && *s ? strtoul(s, NULL, 0) : dflt;
}

static void print_bytes(FILE *f, const uint8_t *b, size_t n)
{
    fputc('"', f);
    for (size_t i = 0; i < n; i++)
        if (b[i] >= 0x20 && b[i] < 0x7F && b[i] != '"' && b[i] != '\\')
            fputc(b[i], f);
        else
            fprintf(f, "\\x%02X", b[i]);
    fputc('"', f);
}

static void report_mismatch(uint64_t seed, const char *text, const uint8_t *s, size_t n,
                            const char *who, ref_result want, ref_result got)
{
    fprintf(stderr, "MISMATCH seed %llu\n--- grammar\n%s--- string ", (unsigned long long)seed,
            text);
    print_bytes(stderr, s, n);
    fprintf(stderr, "\nreference: %s at %zu; %s: %s at %zu\n", ref_verdict_str(want.verdict),
            want.offset, who, ref_verdict_str(got.verdict), got.offset);
}

static bool same(ref_result a, ref_result b)
{
    return a.verdict == b.verdict && a.offset == b.offset;
}

static void count_verdict(diff_stats *st, ref_verdict v)
{
    st->cases++;
    st->complete += v == REF_COMPLETE;
    st->prefix += v == REF_PREFIX;
    st->reject += v == REF_REJECT;
}

/* Compares engine and reference on the strings of one grammar; reports the
 * first disagreement and returns false on it. */
static bool compare_strings(uint64_t seed, const rg_grammar *g, eng *e, const ref_grammar *rg,
                            diff_stats *st)
{
    uint64_t rng = seed * 0x2545F4914F6CDD1Dull + 1;
    uint8_t buf[MAX_STRING];
    for (int k = 0; k < STRINGS_PER_GRAMMAR; k++) {
        size_t n = rg_string(g, &rng, buf, st->maxlen);
        ref_result want = ref_match(rg, buf, n);
        ck_assert_int_ne(want.verdict, REF_ERROR);
        ref_result got = eng_match(e, buf, n);
        const char *who = "engine (byte by byte)";
        if (same(want, got)) {
            got = eng_match_whole(e, buf, n);
            who = "engine (one commit)";
        }
        if (!same(want, got)) {
            report_mismatch(seed, rg_text(g), buf, n, who, want, got);
            return false;
        }
        count_verdict(st, want.verdict);
    }
    return true;
}

/* The compiler refused the grammar: acceptable only if the reference finds
 * it degenerate too. */
static bool check_refusal(uint64_t seed, const char *text, ref_status rs, const char *msg,
                          diff_stats *st)
{
    if (rs != REF_EMPTY_LANGUAGE && rs != REF_TOO_BIG) {
        fprintf(stderr, "REFUSED seed %llu: %s\n--- grammar\n%s", (unsigned long long)seed, msg,
                text);
        return false;
    }
    st->refused_empty += rs == REF_EMPTY_LANGUAGE;
    st->refused_too_big += rs == REF_TOO_BIG;
    return true;
}

static ref_status reference_for(uint64_t seed, const char *text, ref_grammar **rg)
{
    gbnf_grammar ast;
    gcg_diag d;
    gcg_diag_init(&d, "random");
    gcg_status ps = gcg_gbnf_parse(text, strlen(text), NULL, &ast, &d);
    ck_assert_msg(ps == GCG_OK, "seed %llu: generated grammar does not parse:\n%s",
                  (unsigned long long)seed, text);
    ref_status rs = ref_grammar_build(&ast, rg);
    gcg_gbnf_free(&ast);
    gcg_diag_free(&d);
    return rs;
}

/* One grammar: true when engine and reference agree on everything. Every
 * fourth grammar is compiled with the mask automaton too. */
static bool diff_one(uint64_t seed, diff_stats *st)
{
    rg_grammar *g = rg_generate(seed);
    ck_assert_ptr_nonnull(g);
    const char *text = rg_text(g);
    ref_grammar *rg = NULL;
    ref_status rs = reference_for(seed, text, &rg);
    char msg[256];
    eng *e = NULL;
    gcg_status cs = eng_open(text, strlen(text), NULL, seed % 4 == 0, &e, msg, sizeof msg);
    bool ok;
    st->grammars++;
    if (cs != GCG_OK) {
        ok = check_refusal(seed, text, rs, msg, st);
    } else if (rs != REF_OK) {
        fprintf(stderr, "ACCEPTED seed %llu: the reference says %s\n--- grammar\n%s",
                (unsigned long long)seed, ref_status_str(rs), text);
        ok = false;
    } else {
        st->compiled++;
        ok = compare_strings(seed, g, e, rg, st);
    }
    eng_free(e);
    ref_grammar_free(rg);
    rg_free(g);
    return ok;
}

/* Runs every grammar even after a failure, so one run shows how many seeds
 * disagree; the first failing seed is in the assertion message. */
START_TEST(test_random_grammars)
{
    unsigned long first = env_ulong("GCG_DIFF_SEED", DEFAULT_SEED);
    unsigned long count = env_ulong("GCG_DIFF_GRAMMARS", DEFAULT_GRAMMARS);
    diff_stats st = {0};
    st.maxlen = env_ulong("GCG_DIFF_MAXLEN", DEFAULT_MAXLEN);
    if (st.maxlen > MAX_STRING)
        st.maxlen = MAX_STRING;
    for (unsigned long k = 0; k < count; k++) {
        if (!diff_one(first + k, &st) && st.failed++ == 0)
            st.first_fail = first + k;
    }
    printf("differential: %lu grammars (seeds %lu..%lu), %lu compiled, %lu refused "
           "(%lu empty language, %lu repetition too big); %lu grammar x string cases "
           "(%lu complete, %lu prefix, %lu reject); %lu grammars disagree\n",
           st.grammars, first, first + count - 1, st.compiled,
           st.refused_empty + st.refused_too_big, st.refused_empty, st.refused_too_big, st.cases,
           st.complete, st.prefix, st.reject, st.failed);
    fflush(stdout);
    ck_assert_msg(st.failed == 0, "%lu of %lu grammars disagree with the reference; first: seed %llu",
                  st.failed, st.grammars, st.first_fail);
    /* The generator must give mostly usable grammars and every verdict. */
    ck_assert_uint_ge(st.compiled * 10, count * 8);
    ck_assert_uint_gt(st.complete, 0);
    ck_assert_uint_gt(st.prefix, 0);
    ck_assert_uint_gt(st.reject, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("differential");
    TCase *ref = tcase_create("reference");
    tcase_add_test(ref, test_ref_balanced);
    tcase_add_test(ref, test_ref_left_recursion);
    tcase_add_test(ref, test_ref_right_recursion);
    tcase_add_test(ref, test_ref_hidden_left_recursion);
    tcase_add_test(ref, test_ref_nullable_chain);
    tcase_add_test(ref, test_ref_nullable_repetition);
    tcase_add_test(ref, test_ref_unit_cycle);
    tcase_add_test(ref, test_ref_ambiguous);
    tcase_add_test(ref, test_ref_bounded_repetition);
    tcase_add_test(ref, test_ref_utf8_class);
    tcase_add_test(ref, test_ref_any);
    tcase_add_test(ref, test_ref_negated_class);
    tcase_add_test(ref, test_ref_literal_utf8);
    tcase_add_test(ref, test_ref_unproductive);
    suite_add_tcase(s, ref);
    TCase *diff = tcase_create("random");
    tcase_set_timeout(diff, 600);
    tcase_add_test(diff, test_random_grammars);
    suite_add_tcase(s, diff);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
