/*
 * test_gbnf.c — the GBNF parser: every syntax feature parses to the exact
 * AST expected (printed as an S-expression), every error is reported with
 * its exact position and message, deep nesting is an error and not a crash,
 * and grammars from llama.cpp's test suite parse.
 *
 * AST notation: (seq a b), (alt a b), () for ε, "bytes" for a literal (bytes
 * outside 0x20..0x7E as \xHH), [61-7A 5F] for a class (hex code points, ^
 * when negated), . for any, a rule name for a reference, {m,n x} for a
 * repetition (n = inf when unbounded). A grammar prints as `name=ast;` per
 * rule in rule order.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbnf.h"

/* ---- printing the AST ---------------------------------------------------- */

typedef struct sbuf {
    char s[8192];
    size_t n;
} sbuf;

static void put(sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (b->n < sizeof b->s)
        b->n += (size_t)vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
    va_end(ap);
}

static void print_node(sbuf *b, const gbnf_grammar *g, uint32_t i);

static void print_kids(sbuf *b, const gbnf_grammar *g, const gbnf_node *x)
{
    for (uint32_t k = 0; k < x->n_kids; k++) {
        put(b, k ? " " : "");
        print_node(b, g, x->kids[k]);
    }
}

static void print_lit(sbuf *b, const gbnf_node *x)
{
    put(b, "\"");
    for (uint32_t k = 0; k < x->n_bytes; k++) {
        uint8_t c = x->bytes[k];
        if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\')
            put(b, "%c", c);
        else
            put(b, "\\x%02X", c);
    }
    put(b, "\"");
}

static void print_class(sbuf *b, const gbnf_node *x)
{
    put(b, "[%s", x->negated ? "^" : "");
    for (uint32_t k = 0; k < x->n_ranges; k++) {
        put(b, k ? " " : "");
        if (x->ranges[k].lo == x->ranges[k].hi)
            put(b, "%X", x->ranges[k].lo);
        else
            put(b, "%X-%X", x->ranges[k].lo, x->ranges[k].hi);
    }
    put(b, "]");
}

static void print_node(sbuf *b, const gbnf_grammar *g, uint32_t i)
{
    ck_assert_uint_lt(i, g->n_nodes);
    const gbnf_node *x = &g->nodes[i];
    switch (x->kind) {
    case GBNF_SEQ: put(b, x->n_kids ? "(seq " : "("); print_kids(b, g, x); put(b, ")"); break;
    case GBNF_ALT: put(b, "(alt "); print_kids(b, g, x); put(b, ")"); break;
    case GBNF_LIT: print_lit(b, x); break;
    case GBNF_CLASS: print_class(b, x); break;
    case GBNF_ANY: put(b, "."); break;
    case GBNF_REF: ck_assert_uint_lt(x->rule, g->n_rules); put(b, "%s", g->rules[x->rule].name); break;
    case GBNF_TOKEN:
        put(b, "%s", x->negated ? "!" : "");
        if (x->by_id)
            put(b, "<[%u]>", x->token);
        else
            print_lit(b, x);
        break;
    case GBNF_REPEAT:
        if (x->max == GBNF_INF)
            put(b, "{%u,inf ", x->min);
        else
            put(b, "{%u,%u ", x->min, x->max);
        print_kids(b, g, x);
        put(b, "}");
        break;
    }
}

static const char *print_grammar(sbuf *b, const gbnf_grammar *g)
{
    b->n = 0;
    b->s[0] = '\0';
    for (uint32_t r = 0; r < g->n_rules; r++) {
        put(b, "%s=", g->rules[r].name);
        print_node(b, g, g->rules[r].body);
        put(b, ";");
    }
    return b->s;
}

/* ---- helpers --------------------------------------------------------------- */

static gcg_status parse(const char *src, size_t len, const char *root, gbnf_grammar *g,
                        gcg_diag *d)
{
    gcg_diag_init(d, "t.gbnf");
    return gcg_gbnf_parse(src, len, root, g, d);
}

/* Parses and returns the printed AST; fails the test on any diagnostic. */
static void expect_ast(const char *src, const char *root, const char *want)
{
    gbnf_grammar g;
    gcg_diag d;
    sbuf b;
    gcg_status st = parse(src, strlen(src), root, &g, &d);
    if (st != GCG_OK || d.n != 0)
        ck_abort_msg("%s: status %d, first diagnostic %u:%u %s", src, st, d.n ? d.v[0].line : 0,
                     d.n ? d.v[0].col : 0, d.n ? d.v[0].msg : "-");
    ck_assert_str_eq(print_grammar(&b, &g), want);
    gcg_gbnf_free(&g);
    gcg_diag_free(&d);
}

/* Parses (with an explicit length) and checks the first diagnostic, which
 * must be an error, and that the grammar came back zeroed. */
static void expect_error_n(const char *src, size_t len, const char *root, uint32_t line,
                           uint32_t col, const char *msg)
{
    gbnf_grammar g;
    gcg_diag d;
    gcg_status st = parse(src, len, root, &g, &d);
    ck_assert_int_eq(st, GCG_ERR_FORMAT);
    ck_assert_uint_ge(d.n, 1);
    ck_assert_uint_ge(d.n_errors, 1);
    ck_assert_int_eq(d.v[0].severity, GCG_SEV_ERROR);
    ck_assert_str_eq(d.v[0].msg, msg);
    ck_assert_uint_eq(d.v[0].line, line);
    ck_assert_uint_eq(d.v[0].col, col);
    ck_assert_ptr_null(g.nodes);
    ck_assert_ptr_null(g.rules);
    ck_assert_uint_eq(g.n_nodes, 0);
    gcg_diag_free(&d);
}

static void expect_error(const char *src, uint32_t line, uint32_t col, const char *msg)
{
    expect_error_n(src, strlen(src), NULL, line, col, msg);
}

/* ---- accepted syntax, exact AST -------------------------------------------- */

typedef struct ast_case {
    const char *src, *root, *want;
} ast_case;

static const ast_case ast_cases[] = {
    /* literals, names, "::=" spacing */
    {"root ::= \"a\"", NULL, "root=\"a\";"},
    /* token references (llama.cpp's parse_token): <[ID]>, <TEXT> kept with
     * its brackets, "!" negating either */
    {"root ::= <[12]>", NULL, "root=<[12]>;"},
    {"root ::= \"a\" !<[12]>", NULL, "root=(seq \"a\" !<[12]>);"},
    {"root ::= (<think>)", NULL, "root=\"<think>\";"},
    {"root ::= <|eot_id|>!<a b>*", NULL, "root=(seq \"<|eot_id|>\" {0,inf !\"<a b>\"});"},
    {"root ::= <[0]> <[4294967295]>", NULL, "root=(seq <[0]> <[4294967295]>);"},
    {"root ::= <a\nb>", NULL, "root=\"<a\\x0Ab>\";"},
    {"root ::= <>", NULL, "root=\"<>\";"},
    {"\n        root  ::= <[1000]> !<[1001]> <[1001]>\n    ", NULL, "root=(seq <[1000]> !<[1001]> <[1001]>);"},
    {"root::=\"ab\"", NULL, "root=\"ab\";"},
    {"root\t::=  \"a\"  \n\n", NULL, "root=\"a\";"},
    {"root ::= a-b_C9\na-b_C9 ::= \"x\"", NULL, "root=a-b_C9;a-b_C9=\"x\";"},
    {"root ::= 9\n9 ::= \"x\"", NULL, "root=9;9=\"x\";"},
    /* comments wherever whitespace may be */
    {"# head\nroot ::= # after\n  \"a\" # tail\n# end", NULL, "root=\"a\";"},
    {"root ::= (\"a\" # in group\n \"b\")", NULL, "root=(seq \"a\" \"b\");"},
    /* sequences and alternatives */
    {"root ::= \"a\" \"b\" | \"c\"", NULL, "root=(alt (seq \"a\" \"b\") \"c\");"},
    {"root ::= \"a\" |\n  \"b\" |\n\n  \"c\"", NULL, "root=(alt \"a\" \"b\" \"c\");"},
    {"root ::=\n  \"a\"", NULL, "root=\"a\";"},
    {"root ::= | \"x\"", NULL, "root=(alt () \"x\");"},
    {"root ::= \"x\" |", NULL, "root=(alt \"x\" ());"},
    {"root ::= ", NULL, "root=();"},
    {"root ::= \"\"", NULL, "root=();"},
    {"root ::= \"a\" \"\" \"b\"", NULL, "root=(seq \"a\" \"b\");"},
    {"root ::= \"a\"\"b\"x\nx ::= \"c\"", NULL, "root=(seq \"a\" \"b\" x);x=\"c\";"},
    /* groups: newlines inside, flattening */
    {"root ::= (\n  \"a\"\n  |\n  \"b\"\n)", NULL, "root=(alt \"a\" \"b\");"},
    {"root ::= \"a\" (\"b\" \"c\") \"d\"", NULL, "root=(seq \"a\" \"b\" \"c\" \"d\");"},
    {"root ::= (\"a\" | (\"b\" | \"c\")) | \"d\"", NULL, "root=(alt \"a\" \"b\" \"c\" \"d\");"},
    {"root ::= ((\"a\"))", NULL, "root=\"a\";"},
    {"root ::= () \"a\"", NULL, "root=\"a\";"},
    {"root ::= (\"a\" \"b\")*", NULL, "root={0,inf (seq \"a\" \"b\")};"},
    {"root ::= (| \"a\")", NULL, "root=(alt () \"a\");"},
    /* classes */
    {"root ::= [a-z0-9_]", NULL, "root=[61-7A 30-39 5F];"},
    {"root ::= [^\"\\\\]", NULL, "root=[^22 5C];"},
    {"root ::= [-a-]", NULL, "root=[2D 61 2D];"},
    {"root ::= [a-c-e]", NULL, "root=[61-63 2D 65];"},
    {"root ::= [\\]\\[\\-]", NULL, "root=[5D 5B 2D];"},
    {"root ::= []", NULL, "root=[];"},
    {"root ::= [^]", NULL, "root=[^];"},
    {"root ::= [a^]", NULL, "root=[61 5E];"},
    {"root ::= [\\x00-\\x1F\\u00e9-\\U0010FFFF]", NULL, "root=[0-1F E9-10FFFF];"},
    {"root ::= [\xC3\xA9-\xC3\xB6\xF0\x9F\x98\x80]", NULL, "root=[E9-F6 1F600];"},
    {"root ::= [\\ud7ff-\\ue000]", NULL, "root=[D7FF-E000];"},
    {"root ::= [\n]", NULL, "root=[A];"},
    {"root ::= .", NULL, "root=.;"},
    /* escapes in literals: \xHH is U+00HH, stored as UTF-8 */
    {"root ::= \"\\n\\t\\r\\\\\\\"\\[\\]\\-\\/\"", NULL, "root=\"\\x0A\\x09\\x0D\\x5C\\x22[]-/\";"},
    {"root ::= \"\\x41\\xff\\u00E9\\U0001F600\"", NULL,
     "root=\"A\\xC3\\xBF\\xC3\\xA9\\xF0\\x9F\\x98\\x80\";"},
    {"root ::= \"\\x00\"", NULL, "root=\"\\x00\";"},
    {"root ::= \"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"", NULL,
     "root=\"\\xC3\\xA9\\xE2\\x82\\xAC\\xF0\\x9F\\x98\\x80\";"},
    {"root ::= \"a\nb\"", NULL, "root=\"a\\x0Ab\";"},
    /* repetition */
    {"root ::= \"a\"* \"b\"+ \"c\"?", NULL,
     "root=(seq {0,inf \"a\"} {1,inf \"b\"} {0,1 \"c\"});"},
    {"root ::= \"a\"{3} \"b\"{2,} \"c\"{2,5} \"d\"{,4}", NULL,
     "root=(seq {3,3 \"a\"} {2,inf \"b\"} {2,5 \"c\"} {0,4 \"d\"});"},
    {"root ::= \"a\"{ 4} \"b\" { 2 , 5 } \"c\"{0,0}", NULL,
     "root=(seq {4,4 \"a\"} {2,5 \"b\"} {0,0 \"c\"});"},
    {"root ::= \"a\" *", NULL, "root={0,inf \"a\"};"},
    {"root ::= \"a\"*?", NULL, "root={0,1 {0,inf \"a\"}};"},
    {"root ::= \"a\"{4294967294}", NULL, "root={4294967294,4294967294 \"a\"};"},
    {"root ::= (\"a\"{\n2\n,\n3\n})", NULL, "root={2,3 \"a\"};"},
    {"root ::= x*\nx ::= [0-9]", NULL, "root={0,inf x};x=[30-39];"},
    /* line endings, start rule, recursion */
    {"start ::= \"a\"", "start", "start=\"a\";"},
    {"root ::= \"a\" | root \"a\"", NULL, "root=(alt \"a\" (seq root \"a\"));"},
    {"root ::= x\nx ::= \"(\" x \")\" | ", NULL, "root=x;x=(alt (seq \"(\" x \")\") ());"},
};

START_TEST(test_ast_case)
{
    const ast_case *c = &ast_cases[_i];
    expect_ast(c->src, c->root, c->want);
}
END_TEST

/* CRLF: b is defined and unused, so a warning and no error. */
START_TEST(test_crlf)
{
    const char *src = "root ::= \"a\" |\r\n \"b\"\r\nb ::= \"c\"\r\n";
    gbnf_grammar g;
    gcg_diag d;
    sbuf b;
    ck_assert_int_eq(parse(src, strlen(src), NULL, &g, &d), GCG_OK);
    ck_assert_str_eq(print_grammar(&b, &g), "root=(alt \"a\" \"b\");b=\"c\";");
    ck_assert_uint_eq(d.n, 1);
    ck_assert_uint_eq(d.v[0].line, 3);
    ck_assert_uint_eq(d.v[0].col, 1);
    gcg_gbnf_free(&g);
    gcg_diag_free(&d);
}
END_TEST

/* ---- errors, exact position and message -------------------------------------- */

typedef struct err_case {
    const char *src;
    uint32_t line, col;
    const char *msg;
} err_case;

static const err_case err_cases[] = {
    /* rules */
    {"root = \"a\"", 1, 6, "expected \"::=\" after rule name \"root\""},
    {"root\n::= \"a\"", 1, 5, "expected \"::=\" after rule name \"root\""},
    {"root :: \"a\"", 1, 6, "expected \"::=\" after rule name \"root\""},
    {"@ ::= \"a\"", 1, 1, "expected a rule name, found \"@\""},
    {"root ::= \"a\"\n| \"b\"", 2, 1,
     "expected a rule name, found \"|\" (to continue a rule on the next line, end the line "
     "before with \"|\")"},
    {"root ::= x\nx ::= \"a\"\nroot ::= \"b\"", 3, 1, "rule \"root\" defined twice (first at 1:1)"},
    {"root ::= x", 1, 10, "undefined rule \"x\""},
    {"root ::= \"a\" y\nz ::= y", 1, 14, "undefined rule \"y\""},
    {"a ::= \"x\"", 0, 0, "no rule named \"root\""},
    {"", 0, 0, "no rule named \"root\""},
    {"# only a comment\n", 0, 0, "no rule named \"root\""},
    {"root ::= foo ::= \"a\"", 1, 14, "unexpected \":\" (a rule definition must start on a new line)"},
    {"root ::= \"a\" )", 1, 14, "unexpected \")\" without a matching \"(\""},
    {"root ::= \"a\" @", 1, 14, "expected an item, \"|\" or end of line, found \"@\""},
    {"root ::= \"a\" \xC3\xA9", 1, 14, "expected an item, \"|\" or end of line, found U+00E9"},
    /* literals and escapes */
    {"root ::= \"abc", 1, 10, "unterminated literal"},
    {"root ::= \"abc\\", 1, 10, "unterminated literal"},
    {"root ::= \"\\q\"", 1, 11, "unknown escape \"\\q\""},
    {"root ::= \"\\x4\"", 1, 11, "expected 2 hex digits after \"\\x\""},
    {"root ::= \"\\u12G4\"", 1, 11, "expected 4 hex digits after \"\\u\""},
    {"root ::= \"\\U0010FFF\"", 1, 11, "expected 8 hex digits after \"\\U\""},
    {"root ::= \"\\U00110000\"", 1, 11, "code point U+110000 out of range"},
    {"root ::= [\\UFFFFFFFF]", 1, 11, "code point U+FFFFFFFF out of range"},
    {"root ::= \"\\uD800\"", 1, 11, "surrogate U+D800 is not a character (no UTF-8 encoding)"},
    {"root ::= \"ab\\U0000DFFF\"", 1, 13,
     "surrogate U+DFFF is not a character (no UTF-8 encoding)"},
    {"root ::= [\\ud800-\\udfff]", 1, 11,
     "class range U+D800-U+DFFF holds only surrogates (no UTF-8 encoding)"},
    {"root ::= [a\\udc00]", 1, 12, "surrogate U+DC00 is not a character (no UTF-8 encoding)"},
    /* classes */
    {"root ::= [abc", 1, 14, "expected \"]\" to close the class opened at 1:10"},
    {"root ::= [a-", 1, 13, "expected \"]\" to close the class opened at 1:10"},
    {"root ::= [a\\", 1, 13, "expected \"]\" to close the class opened at 1:10"},
    {"root ::= [z-a]", 1, 11, "invalid class range U+007A-U+0061 (start above end)"},
    {"root ::= [\\u00e9-\\x41]", 1, 11, "invalid class range U+00E9-U+0041 (start above end)"},
    /* groups */
    {"root ::= (\"a\"", 1, 14, "expected \")\" to close the group opened at 1:10, found end of input"},
    {"root ::= (\"a\" @)", 1, 15, "expected \")\" to close the group opened at 1:10, found \"@\""},
    /* repetition */
    {"root ::= * \"a\"", 1, 10, "\"*\" must follow an item to repeat"},
    {"root ::= \"a\" | +", 1, 16, "\"+\" must follow an item to repeat"},
    {"root ::= \"a\"{5,2}", 1, 13, "invalid repetition bounds {5,2}"},
    {"root ::= \"a\"{x}", 1, 14, "expected a number after \"{\", found \"x\""},
    {"root ::= \"a\"{2", 1, 15, "expected \",\" or \"}\" in repetition, found end of input"},
    {"root ::= \"a\"{2\n}", 1, 15, "expected \",\" or \"}\" in repetition, found end of line"},
    {"root ::= \"a\"{2,x}", 1, 16, "expected \"}\" to close the repetition opened at 1:13, found \"x\""},
    {"root ::= \"a\"{,}", 1, 15, "expected a number after \"{,\", found \"}\""},
    /* token references */
    {"root ::= <[]>", 1, 12, "expected a token id after \"<[\""},
    {"root ::= <[x]>", 1, 12, "expected a token id after \"<[\""},
    {"root ::= <[12", 1, 14, "expected \"]>\" to close the token reference opened at 1:10"},
    {"root ::= !<[12]", 1, 15, "expected \"]>\" to close the token reference opened at 1:11"},
    {"root ::= <[12] >", 1, 14, "expected \"]>\" to close the token reference opened at 1:10"},
    {"root ::= <[4294967296]>", 1, 12, "token id out of range (at most 4294967295)"},
    {"root ::= \"a\" <abc", 1, 14, "expected \">\" to close the token reference"},
    {"root ::= ! \"a\"", 1, 10, "expected an item, \"|\" or end of line, found \"!\""},
    /* invalid UTF-8: overlong, surrogate, above U+10FFFF, stray, truncated */
    {"root ::= \"\xC0\x80\"", 1, 11, "invalid UTF-8 (byte 0xC0)"},
    {"root ::= \"\xE0\x80\xAF\"", 1, 11, "invalid UTF-8 (byte 0xE0)"},
    {"root ::= \"\xED\xA0\x80\"", 1, 11, "invalid UTF-8 (byte 0xED)"},
    {"root ::= \"\xF4\x90\x80\x80\"", 1, 11, "invalid UTF-8 (byte 0xF4)"},
    {"root ::= \"\xF5\x80\x80\x80\"", 1, 11, "invalid UTF-8 (byte 0xF5)"},
    {"root ::= \"a\x80\"", 1, 12, "invalid UTF-8 (byte 0x80)"},
    {"root ::= [\xC3\x28]", 1, 11, "invalid UTF-8 (byte 0xC3)"},
    {"root ::= \"a\" # \xFF comment", 1, 16, "invalid UTF-8 (byte 0xFF)"},
    /* found after the scan: its line, and its column in code points */
    {"root ::= \"a\"\r\nx ::= \"\xC3\xA9\xC0\"", 2, 9, "invalid UTF-8 (byte 0xC0)"},
    {"root ::= \"\xE2\x82", 1, 11, "invalid UTF-8 (byte 0xE2)"},
    /* columns count code points; tabs are one column; lines on \n, \r\n, \r */
    {"root ::= \"\xC3\xA9\xF0\x9F\x98\x80\" x", 1, 15, "undefined rule \"x\""},
    {"root\t::=\t\"a\"\tx", 1, 14, "undefined rule \"x\""},
    {"root ::= \"a\"\r\n\r\nx ::= y", 3, 7, "undefined rule \"y\""},
    {"root ::= \"a\"\r\rx ::= y", 3, 7, "undefined rule \"y\""},
    {"root ::= \"a\nb\" x", 2, 4, "undefined rule \"x\""},
};

START_TEST(test_err_case)
{
    const err_case *c = &err_cases[_i];
    expect_error(c->src, c->line, c->col, c->msg);
}
END_TEST

START_TEST(test_nul_byte)
{
    static const char src[] = "root ::= \"a\" \0";
    expect_error_n(src, sizeof src - 1, NULL, 1, 14,
                   "expected an item, \"|\" or end of line, found U+0000");
    static const char lit[] = "root ::= \"a\0b\"";
    gbnf_grammar g;
    gcg_diag d;
    ck_assert_int_eq(parse(lit, sizeof lit - 1, NULL, &g, &d), GCG_OK);
    ck_assert_uint_eq(g.nodes[g.rules[0].body].n_bytes, 3);
    ck_assert_mem_eq(g.nodes[g.rules[0].body].bytes, "a\0b", 3);
    gcg_gbnf_free(&g);
    gcg_diag_free(&d);
}
END_TEST

START_TEST(test_custom_root_missing)
{
    expect_error_n("root ::= \"a\"", 12, "start", 0, 0, "no rule named \"start\"");
    /* llama.cpp's test_custom_root_symbol_check */
    const char *src = "\n        foobar ::= \"foobar\"\n    ";
    expect_error_n(src, strlen(src), "root", 0, 0, "no rule named \"root\"");
}
END_TEST

/* Every semantic error is reported, not only the first. */
START_TEST(test_several_errors)
{
    const char *src = "root ::= a b a\nroot ::= \"x\"\nc ::= b";
    gbnf_grammar g;
    gcg_diag d;
    ck_assert_int_eq(parse(src, strlen(src), NULL, &g, &d), GCG_ERR_FORMAT);
    ck_assert_uint_eq(d.n, 3);
    ck_assert_uint_eq(d.n_errors, 3);
    ck_assert_str_eq(d.v[0].msg, "rule \"root\" defined twice (first at 1:1)");
    ck_assert_str_eq(d.v[1].msg, "undefined rule \"a\"");
    ck_assert_uint_eq(d.v[1].col, 10);
    ck_assert_str_eq(d.v[2].msg, "undefined rule \"b\"");
    ck_assert_uint_eq(d.v[2].col, 12);
    gcg_diag_free(&d);
}
END_TEST

START_TEST(test_unused_warning)
{
    const char *src = "root ::= a\na ::= \"x\"\nunused ::= b | \"y\"\nb ::= unused\n";
    gbnf_grammar g;
    gcg_diag d;
    ck_assert_int_eq(parse(src, strlen(src), NULL, &g, &d), GCG_OK);
    ck_assert_uint_eq(d.n_errors, 0);
    ck_assert_uint_eq(d.n, 2);
    ck_assert_int_eq(d.v[0].severity, GCG_SEV_WARNING);
    ck_assert_str_eq(d.v[0].msg, "unused rule \"unused\" (not reachable from \"root\")");
    ck_assert_uint_eq(d.v[0].line, 3);
    ck_assert_uint_eq(d.v[0].col, 1);
    ck_assert_str_eq(d.v[1].msg, "unused rule \"b\" (not reachable from \"root\")");
    ck_assert_uint_eq(d.v[1].line, 4);
    ck_assert_uint_eq(g.root, 0);
    gcg_gbnf_free(&g);
    gcg_diag_free(&d);
}
END_TEST

/* A rule referenced before its definition: one rule, positioned at the
 * definition; the root need not be the first rule. */
START_TEST(test_forward_reference)
{
    const char *src = "a ::= \"x\" b\nb ::= \"y\"\nroot ::= a b";
    gbnf_grammar g;
    gcg_diag d;
    sbuf b;
    ck_assert_int_eq(parse(src, strlen(src), NULL, &g, &d), GCG_OK);
    ck_assert_str_eq(print_grammar(&b, &g), "a=(seq \"x\" b);b=\"y\";root=(seq a b);");
    ck_assert_uint_eq(g.n_rules, 3);
    ck_assert_uint_eq(g.root, 2);
    ck_assert_uint_eq(g.rules[1].line, 2);
    ck_assert_uint_eq(g.rules[1].col, 1);
    ck_assert_uint_eq(d.n, 0);
    gcg_gbnf_free(&g);
    gcg_diag_free(&d);
}
END_TEST

/* Node positions, index order (kids before parents) and no unreferenced
 * nodes left behind by flattening. */
START_TEST(test_node_layout)
{
    const char *src = "root ::= \"a\" (\"b\" [c])\n  x*\nx ::= \"\"";
    gbnf_grammar g;
    gcg_diag d;
    ck_assert_int_eq(parse(src, strlen(src), NULL, &g, &d), GCG_ERR_FORMAT);
    /* the rule ended at the newline, so "x" starts a new rule */
    ck_assert_str_eq(d.v[0].msg, "expected \"::=\" after rule name \"x\"");
    ck_assert_uint_eq(d.v[0].line, 2);
    ck_assert_uint_eq(d.v[0].col, 4);
    gcg_diag_free(&d);

    src = "root ::= \"a\" (\"b\" [c]) x*\nx ::= \"\"";
    ck_assert_int_eq(parse(src, strlen(src), NULL, &g, &d), GCG_OK);
    /* root: SEQ("a", "b", [c], REPEAT(REF x)); x: SEQ() — 7 nodes */
    ck_assert_uint_eq(g.n_nodes, 7);
    const gbnf_node *seq = &g.nodes[g.rules[0].body];
    ck_assert_int_eq(seq->kind, GBNF_SEQ);
    ck_assert_uint_eq(seq->n_kids, 4);
    const uint32_t want_col[] = {10, 15, 19, 24};
    for (uint32_t k = 0; k < 4; k++) {
        ck_assert_uint_lt(seq->kids[k], g.rules[0].body);
        ck_assert_uint_eq(g.nodes[seq->kids[k]].line, 1);
        ck_assert_uint_eq(g.nodes[seq->kids[k]].col, want_col[k]);
    }
    const gbnf_node *rep = &g.nodes[seq->kids[3]];
    ck_assert_int_eq(rep->kind, GBNF_REPEAT);
    ck_assert_uint_lt(rep->kids[0], seq->kids[3]);
    ck_assert_int_eq(g.nodes[rep->kids[0]].kind, GBNF_REF);
    ck_assert_uint_eq(g.nodes[rep->kids[0]].rule, 1);
    ck_assert_int_eq(g.nodes[g.rules[1].body].kind, GBNF_SEQ);
    ck_assert_uint_eq(g.nodes[g.rules[1].body].n_kids, 0);
    ck_assert_uint_eq(g.nodes[g.rules[1].body].line, 2);
    ck_assert_uint_eq(g.nodes[g.rules[1].body].col, 7);
    gcg_gbnf_free(&g);
    ck_assert_uint_eq(g.n_nodes, 0);
    gcg_diag_free(&d);
}
END_TEST

/* ---- nesting limits ------------------------------------------------------ */

static char *nested(uint32_t depth, const char *open, const char *inner, const char *close)
{
    size_t lo = strlen(open), li = strlen(inner), lc = strlen(close);
    char *s = malloc(10 + depth * (lo + lc) + li);
    size_t n = 0;
    memcpy(s, "root ::= ", 9);
    n = 9;
    for (uint32_t k = 0; k < depth; k++, n += lo)
        memcpy(s + n, open, lo);
    memcpy(s + n, inner, li);
    n += li;
    for (uint32_t k = 0; k < depth; k++, n += lc)
        memcpy(s + n, close, lc);
    s[n] = '\0';
    return s;
}

START_TEST(test_nesting_100k_parens)
{
    char *s = nested(100000, "(", "\"a\"", ")");
    expect_error(s, 1, 10 + GBNF_MAX_NESTING, "nesting deeper than 1000");
    free(s);
    s = nested(100000, "(", "", "");
    expect_error(s, 1, 10 + GBNF_MAX_NESTING, "nesting deeper than 1000");
    free(s);
}
END_TEST

START_TEST(test_nesting_at_limit)
{
    char *s = nested(GBNF_MAX_NESTING, "(", "\"a\" | \"b\"", ")");
    expect_ast(s, NULL, "root=(alt \"a\" \"b\");");
    free(s);
    s = nested(GBNF_MAX_NESTING, "(\"x\" ", "\"a\"", ")*");
    gbnf_grammar g;
    gcg_diag d;
    ck_assert_int_eq(parse(s, strlen(s), NULL, &g, &d), GCG_ERR_FORMAT);
    ck_assert_str_eq(d.v[0].msg, "nesting deeper than 1000");
    gcg_diag_free(&d);
    free(s);
}
END_TEST

START_TEST(test_nesting_repeat_chain)
{
    char *s = nested(100000, "", "\"a\"", "*");
    expect_error(s, 1, 13 + GBNF_MAX_NESTING, "nesting deeper than 1000");
    free(s);
    s = nested(GBNF_MAX_NESTING, "", "\"a\"", "?");
    gbnf_grammar g;
    gcg_diag d;
    ck_assert_int_eq(parse(s, strlen(s), NULL, &g, &d), GCG_OK);
    ck_assert_uint_eq(g.n_nodes, GBNF_MAX_NESTING + 1);
    gcg_gbnf_free(&g);
    gcg_diag_free(&d);
    free(s);
}
END_TEST

/* A long flat grammar: many rules, long sequences and alternations. */
START_TEST(test_wide_grammar)
{
    const uint32_t n = 20000;
    char *s = malloc(n * 40 + 64);
    size_t len = (size_t)sprintf(s, "root ::= r0");
    for (uint32_t k = 1; k < n; k++)
        len += (size_t)sprintf(s + len, " | r%u", k);
    for (uint32_t k = 0; k < n; k++)
        len += (size_t)sprintf(s + len, "\nr%u ::= \"%u\" [a-z]*", k, k);
    gbnf_grammar g;
    gcg_diag d;
    ck_assert_int_eq(parse(s, len, NULL, &g, &d), GCG_OK);
    ck_assert_uint_eq(g.n_rules, n + 1);
    ck_assert_uint_eq(g.nodes[g.rules[0].body].n_kids, n);
    ck_assert_str_eq(g.rules[n].name, "r19999");
    ck_assert_uint_eq(d.n, 0);
    gcg_gbnf_free(&g);
    gcg_diag_free(&d);
    free(s);
}
END_TEST

START_TEST(test_bad_args)
{
    gbnf_grammar g;
    ck_assert_int_eq(gcg_gbnf_parse(NULL, 3, NULL, &g, NULL), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_gbnf_parse("x", 1, NULL, NULL, NULL), GCG_ERR_ARG);
    /* a NULL diagnostics list is allowed: the status still tells */
    ck_assert_int_eq(gcg_gbnf_parse("root ::= x", 10, NULL, &g, NULL), GCG_ERR_FORMAT);
    ck_assert_int_eq(gcg_gbnf_parse("root ::= \"x\"", 12, NULL, &g, NULL), GCG_OK);
    gcg_gbnf_free(&g);
    gcg_gbnf_free(NULL);
}
END_TEST

/* ---- grammars from llama.cpp's tests (tests/test-grammar-parser.cpp,
 *      test-grammar-integration.cpp, test-json-schema-to-grammar.cpp) ------- */

static const char *const llama_grammars[] = {
    /* test-grammar-parser/verify_parsing#2 */
    "\n"
    "        root  ::= \"a\" | [bdx-z] | [^1-3]\n"
    "    ",
    /* test-grammar-parser/verify_parsing#3 */
    "\n"
    "        root  ::= a+\n"
    "        a     ::= \"a\"\n"
    "    ",
    /* test-grammar-parser/verify_parsing#11 */
    "\n"
    "        root  ::= \"a\"{ 4}\n"
    "    ",
    /* test-grammar-parser/verify_parsing#13 */
    "\n"
    "        root  ::= (expr \"=\" term \"\\n\")+\n"
    "        expr  ::= term ([-+*/] term)*\n"
    "        term  ::= [0-9]+\n"
    "    ",
    /* test-grammar-parser/verify_parsing#14 */
    "\n"
    "        root  ::= (expr \"=\" ws term \"\\n\")+\n"
    "        expr  ::= term ([-+*/] term)*\n"
    "        term  ::= ident | num | \"(\" ws expr \")\" ws\n"
    "        ident ::= [a-z] [a-z0-9_]* ws\n"
    "        num   ::= [0-9]+ ws\n"
    "        ws    ::= [ \\t\\n]*\n"
    "    ",
    /* test-json-schema-to-grammar/min 0 */
    "root ::= ([0] | [1-9] [0-9]{0,15})\n"
    "space ::= | \" \" | \"\\n\"{1,2} [ \\t]{0,20}\n",
    /* test-json-schema-to-grammar/string w/ min length 3 */
    "char ::= [^\"\\\\\\x7F\\x00-\\x1F] | [\\\\] ([\"\\\\bfnrt] | \"u\" [0-9a-fA-F]{4})\n"
    "root ::= \"\\\"\" char{3,} \"\\\"\"\n"
    "space ::= | \" \" | \"\\n\"{1,2} [ \\t]{0,20}\n",
    /* test-json-schema-to-grammar/number */
    "decimal-part ::= [0-9]{1,16}\n"
    "integral-part ::= [0] | [1-9] [0-9]{0,15}\n"
    "root ::= (\"-\"? integral-part) (\".\" decimal-part)? ([eE] [-+]? integral-part)?\n"
    "space ::= | \" \" | \"\\n\"{1,2} [ \\t]{0,20}\n",
    /* test-json-schema-to-grammar/regexp */
    "dot ::= [^\\x0A\\x0D]\n"
    "root ::= \"\\\"\" ((\"(\" root-1{1,3} \")\")? root-1{3,3} \"-\" root-1{4,4} \" \" \"a\"{3,5} \"nd\" dot dot dot) \"\\\"\"\n"
    "root-1 ::= [0-9]\n"
    "space ::= | \" \" | \"\\n\"{1,2} [ \\t]{0,20}\n",
    /* test-json-schema-to-grammar/optional props with empty name */
    "-kv ::= \"\\\"\\\"\" space \":\" space root\n"
    "-rest ::= ( \",\" space a-kv )? a-rest\n"
    "a-kv ::= \"\\\"a\\\"\" space \":\" space integer\n"
    "a-rest ::= ( \",\" space additional-kv )*\n"
    "additional-k ::= [\"] ( [a] char+ | [^\"a] char* ) [\"]\n"
    "additional-kv ::= additional-k \":\" space integer\n"
    "char ::= [^\"\\\\\\x7F\\x00-\\x1F] | [\\\\] ([\"\\\\bfnrt] | \"u\" [0-9a-fA-F]{4})\n"
    "integer ::= (\"-\"? integral-part)\n"
    "integral-part ::= [0] | [1-9] [0-9]{0,15}\n"
    "root ::= (\"-\"? integral-part)\n"
    "root0 ::= \"{\" space  (-kv -rest | a-kv a-rest | additional-kv ( \",\" space additional-kv )* )? space \"}\"\n"
    "space ::= | \" \" | \"\\n\"{1,2} [ \\t]{0,20}\n",
    /* test-grammar-integration/test_failure_left_recursion/hardest_str (valid_grammar false there: left recursion, which GLR handles) */
    "\n"
    "        root ::= asdf\n"
    "        asdf ::= \"a\" | foo \"b\"\n"
    "        foo ::= \"c\" | empty asdf \"d\" | \"e\"\n"
    "        empty ::= \"blah\" | ",
    /* test-grammar-parser/verify_failure#2 (refused there by a size limit that lowering applies, not the parser) */
    "\n"
    "        root ::= (((((([^x]*){0,99}){0,99}){0,99}){0,99}){0,99}){0,99}\n"
    "    ",
    /* test-json-schema-to-grammar/literal string with escapes */
    "code ::= \"\\\" \\\\r \\\\n \\\\\\\" \\\\\\\\ \\\"\"\n"
    "code-kv ::= \"\\\"code\\\"\" space \":\" space code\n"
    "root ::= \"{\" space code-kv space \"}\"\n"
    "space ::= | \" \" | \"\\n\"{1,2} [ \\t]{0,20}\n",
    /* test-json-schema-to-grammar/regexp escapes */
    "root ::= \"\\\"\" (\"[]{}()|+*?\") \"\\\"\"\n"
    "space ::= | \" \" | \"\\n\"{1,2} [ \\t]{0,20}\n",
    /* test-json-schema-to-grammar/empty schema (object) */
    "array ::= \"[\" space ( value (\",\" space value)* )? space \"]\"\n"
    "boolean ::= (\"true\" | \"false\")\n"
    "char ::= [^\"\\\\\\x7F\\x00-\\x1F] | [\\\\] ([\"\\\\bfnrt] | \"u\" [0-9a-fA-F]{4})\n"
    "decimal-part ::= [0-9]{1,16}\n"
    "integral-part ::= [0] | [1-9] [0-9]{0,15}\n"
    "null ::= \"null\"\n"
    "number ::= (\"-\"? integral-part) (\".\" decimal-part)? ([eE] [-+]? integral-part)?\n"
    "object ::= \"{\" space ( string \":\" space value (\",\" space string \":\" space value)* )? space \"}\"\n"
    "root ::= object\n"
    "space ::= | \" \" | \"\\n\"{1,2} [ \\t]{0,20}\n"
    "string ::= \"\\\"\" char* \"\\\"\"\n"
    "value ::= object | array | string | number | boolean | null\n",
};

START_TEST(test_llama_grammar)
{
    const char *src = llama_grammars[_i];
    gbnf_grammar g;
    gcg_diag d;
    gcg_status st = parse(src, strlen(src), NULL, &g, &d);
    if (st != GCG_OK)
        ck_abort_msg("grammar %d: %u:%u %s", _i, d.v[0].line, d.v[0].col, d.v[0].msg);
    ck_assert_uint_eq(d.n_errors, 0);
    gcg_gbnf_free(&g);
    gcg_diag_free(&d);
}
END_TEST

/* The JSON grammar above (the last one), its string-character rule
 * checked exactly. */
START_TEST(test_llama_json_shape)
{
    const char *src = llama_grammars[sizeof llama_grammars / sizeof *llama_grammars - 1];
    gbnf_grammar g;
    gcg_diag d;
    ck_assert_int_eq(parse(src, strlen(src), NULL, &g, &d), GCG_OK);
    /* rules are numbered by first appearance, references included */
    ck_assert_uint_eq(g.n_rules, 12);
    ck_assert_str_eq(g.rules[0].name, "array");
    ck_assert_str_eq(g.rules[1].name, "space");
    ck_assert_str_eq(g.rules[2].name, "value");
    ck_assert_str_eq(g.rules[4].name, "char");
    ck_assert_str_eq(g.rules[g.root].name, "root");
    sbuf b = {0};
    print_node(&b, &g, g.rules[4].body);
    ck_assert_str_eq(b.s, "(alt [^22 5C 7F 0-1F] (seq [5C] (alt [22 5C 62 66 6E 72 74] "
                          "(seq \"u\" {4,4 [30-39 61-66 41-46]}))))");
    gcg_gbnf_free(&g);
    gcg_diag_free(&d);
}
END_TEST

static Suite *gbnf_suite(void)
{
    Suite *s = suite_create("gbnf");
    TCase *tc = tcase_create("syntax");
    tcase_add_loop_test(tc, test_ast_case, 0, sizeof ast_cases / sizeof *ast_cases);
    tcase_add_test(tc, test_crlf);
    tcase_add_test(tc, test_forward_reference);
    tcase_add_test(tc, test_node_layout);
    tcase_add_test(tc, test_wide_grammar);
    suite_add_tcase(s, tc);
    tc = tcase_create("errors");
    tcase_add_loop_test(tc, test_err_case, 0, sizeof err_cases / sizeof *err_cases);
    tcase_add_test(tc, test_nul_byte);
    tcase_add_test(tc, test_custom_root_missing);
    tcase_add_test(tc, test_several_errors);
    tcase_add_test(tc, test_unused_warning);
    tcase_add_test(tc, test_bad_args);
    suite_add_tcase(s, tc);
    tc = tcase_create("nesting");
    tcase_add_test(tc, test_nesting_100k_parens);
    tcase_add_test(tc, test_nesting_at_limit);
    tcase_add_test(tc, test_nesting_repeat_chain);
    suite_add_tcase(s, tc);
    tc = tcase_create("llama.cpp");
    tcase_add_loop_test(tc, test_llama_grammar, 0, sizeof llama_grammars / sizeof *llama_grammars);
    tcase_add_test(tc, test_llama_json_shape);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(gbnf_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
