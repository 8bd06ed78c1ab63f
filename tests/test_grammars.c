/*
 * test_grammars.c — every grammar shipped in grammars/ compiles with
 * gcg_compile, and the engine classifies texts exactly as expected: complete
 * sentences, proper prefixes, and rejected texts with the offset of the first
 * byte that cannot be consumed. Each text is also run through the reference
 * Earley recognizer, so a wrong expectation and a wrong engine both show.
 * Expected values were written by hand from the grammars.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "earley.h"
#include "engine_run.h"
#include "gbnf.h"
#include "test_files.h"

#define EXPECT_COMPLETE (-1)
#define EXPECT_PREFIX (-2)

/* One text and its expected answer: EXPECT_COMPLETE, EXPECT_PREFIX, or the
 * reject offset. Lengths come from sizeof, so texts may hold NUL bytes. */
typedef struct gcase {
    const char *text;
    size_t len;
    long expect;
} gcase;

#define YES(s) {s, sizeof(s) - 1, EXPECT_COMPLETE}
#define PRE(s) {s, sizeof(s) - 1, EXPECT_PREFIX}
#define REJ(s, off) {s, sizeof(s) - 1, off}

static const gcase json_cases[] = {
    YES("{}"),
    YES("[]"),
    YES("0"),
    YES("-0"),
    YES("\"a\""),
    YES(" {\"a\": 1} "),
    YES("[1, 2.5, -3e+2, 4E-1]"),
    YES("true"),
    YES("null"),
    YES("{\"k\":{\"n\":[false]}}"),
    YES("\"\\u00e9\\n\""),
    YES("\"é€😀\""),
    YES("1.0e10"),
    YES("\t\r\n[]\n"),
    YES("\"\x7F\""),
    YES("[[[]]]"),
    YES("{\"a\":1,\"b\":2}"),
    YES("\"\\ud800\""),
    YES("-12.5E+3"),
    YES("\"\""),
    PRE(""),
    PRE("{"),
    PRE("[1,"),
    PRE("\"abc"),
    PRE("-"),
    PRE("1."),
    PRE("1e"),
    PRE("1e+"),
    PRE("tr"),
    PRE("{\"a\""),
    PRE("{\"a\":"),
    PRE("\"\\u12"),
    PRE("\"\xC3"),
    REJ("01", 1),
    REJ("[1,]", 3),
    REJ("{\"a\" 1}", 5),
    REJ("True", 0),
    REJ("[1 2]", 3),
    REJ("\"\x01\"", 1),
    REJ("\"\\x\"", 2),
    REJ(".5", 0),
    REJ("+1", 0),
    REJ("1.e5", 2),
    REJ("{,}", 1),
    REJ("﻿{}", 0),
    REJ("nul1", 3),
    REJ("\"\xC3(\"", 2),
    REJ("\"\xED\xA0\x80\"", 2),
    REJ("[1]]", 3),
    REJ("{\"a\":1,}", 7),
    REJ("- 1", 1),
    REJ("1 2", 2),
    REJ("\x0B" "1", 0),
    REJ("\"\xC0\xAF\"", 1),
    REJ("\"\xF5\"", 1),
};

static const gcase arith_cases[] = {
    YES("1"),
    YES(" 1 "),
    YES("1+2"),
    YES("1 + 2 * 3"),
    YES("-(1 + 2.5) * 3 ^ 2 ^ -1 - 4 % 5"),
    YES("((1))"),
    YES("--1"),
    YES("2^-1"),
    YES("1.5"),
    YES("10/2/5"),
    YES("  (  3  )  "),
    YES("- 1"),
    YES("1-2-3"),
    YES("007"),
    YES("3 % 2"),
    YES("(1+2)*(3-4)"),
    YES("2 ^ 3 ^ 2"),
    YES("1 *-2"),
    YES("1 - -2"),
    YES("1 "),
    YES("1+2 "),
    PRE(""),
    PRE(" "),
    PRE("1 +"),
    PRE("(1"),
    PRE("1."),
    PRE("-"),
    PRE("(("),
    PRE("1 ^"),
    PRE("(1 + 2"),
    REJ("1 2", 2),
    REJ("+1", 0),
    REJ("1++2", 2),
    REJ("()", 1),
    REJ("1.2.3", 3),
    REJ("1)", 1),
    REJ("1 +* 2", 3),
    REJ("a", 0),
    REJ("1..2", 2),
    REJ(".5", 0),
    REJ("(1))", 3),
    REJ("1 ^ ^ 2", 4),
    REJ("2 3", 2),
};

static const gcase chess_cases[] = {
    YES("1. e4"),
    YES("1. e4 e5"),
    YES("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6"),
    YES("1. O-O"),
    YES("1. O-O-O+"),
    YES("1. exd5"),
    YES("1. e8=Q#"),
    YES("1. dxc1=N+"),
    YES("1. Nbd7"),
    YES("1. R1a3"),
    YES("1. Qh4xe1"),
    YES("1. e4 e5 1-0"),
    YES("1. d4 d5 *"),
    YES("1. e4 1/2-1/2"),
    YES("10. Kxe2!"),
    YES("1. e4?! e5!!"),
    YES("12. Rfe1 Bxh2+"),
    YES("1. e4 e5 0-1"),
    YES("1. Nf3 2. e4"),
    YES("1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#"),
    PRE(""),
    PRE("1"),
    PRE("1."),
    PRE("1. "),
    PRE("1. N"),
    PRE("1. Nf"),
    PRE("1. O-O-"),
    PRE("1. e8="),
    PRE("1. e4 1/2"),
    PRE("1. e4 e5 2"),
    REJ("0. e4", 0),
    REJ("1 e4", 1),
    REJ("1. e9", 4),
    REJ("1. Pe4", 3),
    REJ("1. e4  e5", 6),
    REJ("1. Kxx", 5),
    REJ("1. i4", 3),
    REJ("1. e4 e5 e6", 9),
    REJ("1. O-O-O-O", 8),
    REJ("1. e4 e5 1-1", 11),
    REJ("1. e4#+", 6),
};

static const gcase unicode_cases[] = {
    YES("héllo Ωmega"),
    YES("こんにちは 世界"),
    YES("¡hola! ÿ"),
    YES("𝄞 x"),
    YES("漢字"),
    YES("漢字。"),
    YES("😀😃🚀"),
    YES("❤️"),
    YES("❤️😀"),
    YES("λόγος"),
    YES("α β γ"),
    YES("привет мир"),
    YES("Ёж"),
    YES("«»"),
    YES("«a»"),
    YES("any:x"),
    YES("any:\n"),
    YES("any:😀"),
    YES("~αβγ 123"),
    YES("~!"),
    YES("héllo x\n漢字\n😀"),
    YES("㐀"),
    YES("~Ā"),
    PRE(""),
    PRE("h"),
    PRE("hé"),
    PRE("h\xC3"),
    PRE("héllo"),
    PRE("héllo "),
    PRE("\xE6\xBC"),
    PRE("\xF0\x9F"),
    PRE("any:"),
    PRE("«"),
    PRE("~"),
    PRE("α "),
    PRE("привет "),
    PRE("\xF0\x9D\x84"),
    PRE("❤"),
    REJ("hello x", 1),
    REJ("héllo  x", 7),
    REJ("~a", 1),
    REJ("~é", 1),
    REJ("~\xC3", 1),
    REJ("~\xC2", 1),
    REJ("«a\n»", 3),
    REJ("any:ab", 5),
    REJ("αβΓ", 5),
    REJ("\xED\xA0\x80", 0),
    REJ("~\xED\xA0\x80", 2),
    REJ("~\xC0\x80", 1),
    REJ("any:\xF4\x90\x80\x80", 5),
    REJ("😀x", 4),
    REJ("漢字。。", 9),
    REJ("«a»»", 5),
};

static const gcase ambiguous_cases[] = {
    YES("x = a"),
    YES("y = a+b"),
    YES("x = (a)"),
    YES("x = abcd"),
    YES("if c then x = a"),
    YES("if c then if c then x = a else x = b"),
    YES("if !c and c then y = a+a+a"),
    YES("x = a\ny = b"),
    YES("x = a\n"),
    YES("if c then x = a else if c then y = b else x = c"),
    YES("x = a+ab"),
    YES("x = ((a)(b))"),
    YES("if c and c and c then x = d"),
    YES("x = ab+cd+a(b)"),
    YES("if c then if c then if c then x = a else x = b else y = c"),
    YES("y = a\nx = b\nif c then x = c\n"),
    YES("x = a+b+c+d"),
    YES("x = (a+b)(c+d)"),
    YES("if !!c then y = d"),
    YES("x = dcba"),
    PRE(""),
    PRE("x"),
    PRE("x ="),
    PRE("x = "),
    PRE("if c then "),
    PRE("if c then x = a else"),
    PRE("x = (a"),
    PRE("x = a+"),
    PRE("if !"),
    PRE("if c and "),
    REJ("z = a", 0),
    REJ("x = e", 4),
    REJ("x = a b", 5),
    REJ("y = a+b c", 7),
    REJ("if c else x = a", 5),
    REJ("x = ()", 5),
    REJ("x = a\n\n", 6),
    REJ("x = a++b", 6),
    REJ("x=a", 1),
};

static const gcase markdown_cases[] = {
    YES(""),
    YES("# Title\n"),
    YES("###### h6\n"),
    YES("- item\n"),
    YES("* item\n"),
    YES("+ item\n"),
    YES("  - nested\n"),
    YES("1. first\n"),
    YES("23. x\n"),
    YES("Hello world\n"),
    YES("Some `code` here\n"),
    YES("**bold** text\n"),
    YES("\n"),
    YES("```\ncode\n```\n"),
    YES("```c\nint x;\n```\n"),
    YES("```\n`a\n``b\n\n```\n"),
    YES("Para\n\n- a\n- b\n1. c\n"),
    YES("Hi **there**\n"),
    YES("```py\n```\n"),
    YES("# T\nbody\n"),
    PRE("#"),
    PRE("# T"),
    PRE("- "),
    PRE("```"),
    PRE("```\ncode\n"),
    PRE("1"),
    PRE("Hello"),
    PRE("**b"),
    PRE("```\n``"),
    PRE("a `x"),
    REJ("####### h7\n", 6),
    REJ("#Title\n", 1),
    REJ("-item\n", 1),
    REJ("Hello\n * x\n", 7),
    REJ("a * b\n", 3),
    REJ("```\ncode\n``` x\n", 12),
    REJ("1.x\n", 2),
    REJ("1234. a\n", 3),
    REJ(" x\n", 1),
    REJ("`a`\n", 1),
};

static const gcase c_subset_cases[] = {
    YES(""),
    YES("int x;"),
    YES("int x = 1;"),
    YES("int *p;"),
    YES("char* s = \"hi\";"),
    YES("int main() { return 0; }"),
    YES("void f(int a, char *b) {}"),
    YES("int main() {\n  int i;\n  for (i = 0; i < 10; i = i + 1) { f(i); }\n  return i;\n}\n"),
    YES("int g() { if (a == b) { x = 1; } else { y = 2; } }"),
    YES("int g() { if (a) { x = 1; } else if (b) { } else if (c) {} else{} }"),
    YES("int h() { while (!done) { step(); } }"),
    YES("int f() { elseif (x); iffy = whiley + int_; }"),
    YES("int f() { x = a / b / -c + a/(b) + a/ *p; }"),
    YES("/* c */ int x; // end\n"),
    YES("int f() { x = y = 3; }"),
    YES("int f() { c = 'a'; }"),
    YES("int f() { c = '\\n'; }"),
    YES("int f() { return a && b || c; }"),
    YES("int f() { return *p + -x * (y - 1) % 2; }"),
    YES("int f() { a[i] = g(1, 2)[0]; }"),
    YES("int f() { for (;;) { break; } }"),
    YES("int f() { continue ; }"),
    YES("int x; int y;"),
    YES("int x = 1 /* c */ ;"),
    YES("int f() { return0; }"),
    YES("int**q;"),
    PRE("int"),
    PRE("int x"),
    PRE("int main("),
    PRE("int f() {"),
    PRE("int f() { if ("),
    PRE("/* open"),
    PRE("char *s = \""),
    PRE("int f() { return"),
    PRE("char c = '"),
    PRE("int f() { x = 1 +"),
    PRE("// no newline"),
    REJ("int 1x;", 4),
    REJ("intx;", 3),
    REJ("float x;", 0),
    REJ("int f() { x = ; }", 14),
    REJ("int f() { a b; }", 12),
    REJ("int x;;", 6),
    REJ("/* a */ */", 8),
    REJ("int f() { if x; }", 13),
    REJ("int f() { if (a) x = 1; }", 17),
    REJ("int f() { while (a) x; }", 20),
    REJ("int f() { if (a) {} elseif (b) {} }", 31),
    REJ("int if;", 6),
    REJ("int f() { return (x); while (1) {} for (;;) {} x = for; }", 54),
    PRE("int f() { x = a /*c; }"),
    REJ("char c = 'ab';", 11),
    REJ("int x = 1 +;", 11),
};

typedef struct gsuite {
    const char *name;
    const gcase *cases;
    size_t n;
} gsuite;

#define SUITE(name) {#name, name##_cases, sizeof name##_cases / sizeof *name##_cases}

static const gsuite suites[] = {
    SUITE(json), SUITE(arith), SUITE(chess), SUITE(unicode),
    SUITE(ambiguous), SUITE(markdown), SUITE(c_subset),
};
#define N_SUITES (sizeof suites / sizeof *suites)

static ref_result expected(const gcase *c)
{
    if (c->expect == EXPECT_COMPLETE)
        return (ref_result){REF_COMPLETE, c->len};
    if (c->expect == EXPECT_PREFIX)
        return (ref_result){REF_PREFIX, c->len};
    return (ref_result){REF_REJECT, (size_t)c->expect};
}

static void describe(char *buf, size_t cap, ref_result r)
{
    if (r.verdict == REF_REJECT)
        snprintf(buf, cap, "reject at %zu", r.offset);
    else
        snprintf(buf, cap, "%s", ref_verdict_str(r.verdict));
}

static void check_answer(const char *grammar, const char *who, const gcase *c, ref_result got)
{
    ref_result want = expected(c);
    char w[64], g[64];
    describe(w, sizeof w, want);
    describe(g, sizeof g, got);
    ck_assert_msg(got.verdict == want.verdict && got.offset == want.offset,
                  "%s: %s on \"%.*s\": expected %s, got %s", grammar, who, (int)c->len, c->text,
                  w, g);
}

static ref_grammar *reference_for(const char *src, size_t len)
{
    gbnf_grammar g;
    gcg_diag d;
    gcg_diag_init(&d, "grammar");
    ck_assert_int_eq(gcg_gbnf_parse(src, len, NULL, &g, &d), GCG_OK);
    ref_grammar *rg = NULL;
    ck_assert_int_eq(ref_grammar_build(&g, &rg), REF_OK);
    gcg_gbnf_free(&g);
    gcg_diag_free(&d);
    return rg;
}

/* Suite _i: compile with the mask automaton, then every case three ways. */
START_TEST(test_grammar_cases)
{
    const gsuite *s = &suites[_i];
    char *src = test_read_grammar(s->name);
    size_t len = strlen(src);
    char msg[256];
    eng *e = NULL;
    gcg_status st = eng_open(src, len, NULL, true, &e, msg, sizeof msg);
    ck_assert_msg(st == GCG_OK, "%s.gbnf does not compile: %s", s->name, msg);
    ref_grammar *rg = reference_for(src, len);
    for (size_t k = 0; k < s->n; k++) {
        const gcase *c = &s->cases[k];
        const uint8_t *t = (const uint8_t *)c->text;
        check_answer(s->name, "reference", c, ref_match(rg, t, c->len));
        check_answer(s->name, "engine (byte by byte)", c, eng_match(e, t, c->len));
        check_answer(s->name, "engine (one commit)", c, eng_match_whole(e, t, c->len));
    }
    ref_grammar_free(rg);
    eng_free(e);
    free(src);
}
END_TEST

/* Each suite has at least 20 complete texts, and prefixes and rejects. */
START_TEST(test_suite_sizes)
{
    const gsuite *s = &suites[_i];
    size_t yes = 0, pre = 0, rej = 0;
    for (size_t k = 0; k < s->n; k++) {
        long x = s->cases[k].expect;
        yes += x == EXPECT_COMPLETE;
        pre += x == EXPECT_PREFIX;
        rej += x >= 0;
    }
    ck_assert_uint_ge(yes, 20);
    ck_assert_uint_ge(pre, 9);
    ck_assert_uint_ge(rej, 9);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("grammars");
    TCase *tc = tcase_create("shipped");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_suite_sizes, 0, N_SUITES);
    tcase_add_loop_test(tc, test_grammar_cases, 0, N_SUITES);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
