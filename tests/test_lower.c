/*
 * test_lower.c — lowering a GBNF syntax tree to the byte-level CFG
 * (gcg_gbnf_parse + gcg_lower): the exact productions made for literals,
 * byte classes, code point classes, ".", "*", "+", "?", "{m}", "{m,n}",
 * the sharing of repetition helpers, the augmented start production, and
 * the repetition-bound error with its message and position.
 *
 * Productions are compared as text: "lhs -> item item ...", where a
 * nonterminal is its name and a terminal set is "[..]" with its bytes in
 * hex, ranges as "61-63", separated by commas.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "count_fold.h"
#include "gbnf.h"
#include "lower.h"
#include "normalize.h"

/* Under -fsanitize=undefined, undefined behaviour fails the test instead of
 * printing a warning: lowering builds ε-productions, and cfg_add_prod must
 * not hand memmove a NULL pointer for them (not even with length 0). */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
    return "halt_on_error=1:print_stacktrace=1";
}

/* ---- helpers ------------------------------------------------------------ */

typedef struct lowered {
    gbnf_grammar ast;
    cfg g;
    gcg_diag diag;
} lowered;

static gcg_status lower_src(const char *src, lowered *l)
{
    memset(l, 0, sizeof *l);
    gcg_diag_init(&l->diag, "t.gbnf");
    gcg_status st = gcg_gbnf_parse(src, strlen(src), NULL, &l->ast, &l->diag);
    ck_assert_int_eq(st, GCG_OK);
    return gcg_lower(&l->ast, &l->g, NULL, &l->diag);
}

static void lowered_ok(const char *src, lowered *l)
{
    ck_assert_int_eq(lower_src(src, l), GCG_OK);
    ck_assert_uint_eq(l->diag.n_errors, 0);
}

static void lowered_free(lowered *l)
{
    cfg_free(&l->g);
    gcg_gbnf_free(&l->ast);
    gcg_diag_free(&l->diag);
}

static void tset_str(const bset256 *s, char *out, size_t cap)
{
    size_t n = 0;
    n += (size_t)snprintf(out + n, cap - n, "[");
    bool first = true;
    for (unsigned b = 0; b < 256; b++) {
        if (!bset_has(s, b))
            continue;
        unsigned e = b;
        while (e + 1 < 256 && bset_has(s, e + 1))
            e++;
        if (e == b)
            n += (size_t)snprintf(out + n, cap - n, "%s%02x", first ? "" : ",", b);
        else
            n += (size_t)snprintf(out + n, cap - n, "%s%02x-%02x", first ? "" : ",", b, e);
        first = false;
        b = e;
    }
    snprintf(out + n, cap - n, "]");
}

/* "lhs -> items" of production p (into a static buffer). */
static const char *prod_str(const cfg *g, uint32_t p)
{
    static char buf[2048];
    const cfg_prod *pr = &g->prods[p];
    size_t n = (size_t)snprintf(buf, sizeof buf, "%s ->", g->nts[pr->lhs].name);
    for (uint32_t k = 0; k < pr->len; k++) {
        uint32_t s = g->rhs[pr->rhs + k];
        if (CFG_IS_TERM(s)) {
            char t[600];
            tset_str(&g->tsets[CFG_INDEX(s)], t, sizeof t);
            n += (size_t)snprintf(buf + n, sizeof buf - n, " %s", t);
        } else {
            n += (size_t)snprintf(buf + n, sizeof buf - n, " %s", g->nts[s].name);
        }
    }
    return buf;
}

/* Asserts the whole grammar, production by production. */
static void expect_prods(const cfg *g, const char *const *want, uint32_t n)
{
    for (uint32_t p = 0; p < n && p < g->n_prods; p++)
        ck_assert_str_eq(prod_str(g, p), want[p]);
    ck_assert_uint_eq(g->n_prods, n);
}

static uint32_t nt_named(const cfg *g, const char *name)
{
    for (uint32_t a = 0; a < g->n_nts; a++)
        if (strcmp(g->nts[a].name, name) == 0)
            return a;
    return UINT32_MAX;
}

/* ---- shapes ------------------------------------------------------------- */

START_TEST(test_start_production)
{
    lowered l;
    lowered_ok("a ::= \"x\"\nroot ::= a a\n", &l);
    /* Rule i is nonterminal i; $start comes after the rules. */
    ck_assert_uint_eq(l.g.n_nts, 3);
    ck_assert_str_eq(l.g.nts[0].name, "a");
    ck_assert_str_eq(l.g.nts[1].name, "root");
    ck_assert_str_eq(l.g.nts[2].name, "$start");
    ck_assert_int_eq(l.g.nts[0].kind, CFG_NT_RULE);
    ck_assert_int_eq(l.g.nts[2].kind, CFG_NT_START);
    ck_assert_uint_eq(l.g.nts[2].rule, UINT32_MAX);
    ck_assert_uint_eq(l.g.start, 2);
    ck_assert_uint_eq(l.g.prods[0].lhs, l.g.start);
    ck_assert_uint_eq(l.g.prods[0].len, 1);
    ck_assert_uint_eq(l.g.rhs[l.g.prods[0].rhs], 1);
    static const char *const want[] = {"$start -> root", "a -> [78]", "root -> a a"};
    expect_prods(&l.g, want, 3);
    lowered_free(&l);
}
END_TEST

START_TEST(test_start_custom_root)
{
    lowered l;
    memset(&l, 0, sizeof l);
    gcg_diag_init(&l.diag, NULL);
    const char *src = "root ::= \"r\"\nother ::= root \"o\"\n";
    ck_assert_int_eq(gcg_gbnf_parse(src, strlen(src), "other", &l.ast, &l.diag), GCG_OK);
    ck_assert_int_eq(gcg_lower(&l.ast, &l.g, NULL, &l.diag), GCG_OK);
    static const char *const want[] = {"$start -> other", "root -> [72]", "other -> root [6f]"};
    expect_prods(&l.g, want, 3);
    lowered_free(&l);
}
END_TEST

START_TEST(test_literal_one_set_per_byte)
{
    lowered l;
    lowered_ok("root ::= \"abca\"\n", &l);
    static const char *const want[] = {"$start -> root", "root -> [61] [62] [63] [61]"};
    expect_prods(&l.g, want, 2);
    /* Terminal sets are deduplicated: the two "a" bytes share one. */
    ck_assert_uint_eq(l.g.n_tsets, 3);
    ck_assert_uint_eq(l.g.rhs[l.g.prods[1].rhs], l.g.rhs[l.g.prods[1].rhs + 3]);
    lowered_free(&l);
}
END_TEST

START_TEST(test_literal_utf8)
{
    lowered l;
    lowered_ok("root ::= \"é\\n\\x41\\u20AC\"\n", &l);
    static const char *const want[] = {"$start -> root",
                                       "root -> [c3] [a9] [0a] [41] [e2] [82] [ac]"};
    expect_prods(&l.g, want, 2);
    lowered_free(&l);
}
END_TEST

START_TEST(test_byte_class_is_one_set)
{
    lowered l;
    lowered_ok("root ::= [a-c] [^\\x00-\\x7e\\x80-\\U0010FFFF] [xa-b]\n", &l);
    /* [^...] leaves only U+007F; [xa-b] is {a, b, x}. */
    static const char *const want[] = {"$start -> root", "root -> [61-63] [7f] [61-62,78]"};
    expect_prods(&l.g, want, 2);
    ck_assert_uint_eq(l.g.n_nts, 2);
    lowered_free(&l);
}
END_TEST

START_TEST(test_codepoint_class)
{
    lowered l;
    lowered_ok("root ::= [α-ω] [α-ω]\n", &l);
    /* U+03B1..U+03C9 is CE B1..CE BF and CF 80..CF 89; one shared nonterminal. */
    static const char *const want[] = {
        "$start -> root",
        "root/class@1:10 -> [ce] [b1-bf]",
        "root/class@1:10 -> [cf] [80-89]",
        "root -> root/class@1:10 root/class@1:10",
    };
    expect_prods(&l.g, want, 4);
    uint32_t c = nt_named(&l.g, "root/class@1:10");
    ck_assert_uint_ne(c, UINT32_MAX);
    ck_assert_int_eq(l.g.nts[c].kind, CFG_NT_CLASS);
    ck_assert_uint_eq(l.g.nts[c].rule, 0);
    lowered_free(&l);
}
END_TEST

START_TEST(test_mixed_class_merges_ascii)
{
    lowered l;
    lowered_ok("root ::= [a-cé]\n", &l);
    static const char *const want[] = {
        "$start -> root",
        "root/class@1:10 -> [61-63]",
        "root/class@1:10 -> [c3] [a9]",
        "root -> root/class@1:10",
    };
    expect_prods(&l.g, want, 4);
    lowered_free(&l);
}
END_TEST

START_TEST(test_any_is_strict_utf8)
{
    lowered l;
    lowered_ok("root ::= .\n", &l);
    static const char *const want[] = {
        "$start -> root",
        "root/class@1:10 -> [00-7f]",
        "root/class@1:10 -> [c2-df] [80-bf]",
        "root/class@1:10 -> [e0] [a0-bf] [80-bf]",
        "root/class@1:10 -> [e1-ec] [80-bf] [80-bf]",
        "root/class@1:10 -> [ed] [80-9f] [80-bf]",
        "root/class@1:10 -> [ee-ef] [80-bf] [80-bf]",
        "root/class@1:10 -> [f0] [90-bf] [80-bf] [80-bf]",
        "root/class@1:10 -> [f1-f3] [80-bf] [80-bf] [80-bf]",
        "root/class@1:10 -> [f4] [80-8f] [80-bf] [80-bf]",
        "root -> root/class@1:10",
    };
    expect_prods(&l.g, want, 11);
    lowered_free(&l);
}
END_TEST

START_TEST(test_star_left_recursive_list)
{
    lowered l;
    lowered_ok("root ::= x*\nx ::= \"x\"\n", &l);
    static const char *const want[] = {
        "$start -> root",
        "root/list@1:10 -> root/list@1:10 x",
        "root/list@1:10 ->",
        "root -> root/list@1:10",
        "x -> [78]",
    };
    expect_prods(&l.g, want, 5);
    ck_assert_int_eq(l.g.nts[nt_named(&l.g, "root/list@1:10")].kind, CFG_NT_REPEAT);
    lowered_free(&l);
}
END_TEST

START_TEST(test_plus_is_x_then_list)
{
    lowered l;
    lowered_ok("root ::= x+\nx ::= \"x\"\n", &l);
    static const char *const want[] = {
        "$start -> root",
        "root/list@1:10 -> root/list@1:10 x",
        "root/list@1:10 ->",
        "root -> x root/list@1:10",
        "x -> [78]",
    };
    expect_prods(&l.g, want, 5);
    lowered_free(&l);
}
END_TEST

START_TEST(test_list_shared_per_symbol)
{
    lowered l;
    lowered_ok("root ::= x* \"-\" x+ \"-\" \"y\"*\nx ::= \"x\"\n", &l);
    /* x* and x+ share one list; "y"* (a single byte) gets its own. */
    static const char *const want[] = {
        "$start -> root",
        "root/list@1:10 -> root/list@1:10 x",
        "root/list@1:10 ->",
        "root/list@1:24 -> root/list@1:24 [79]",
        "root/list@1:24 ->",
        "root -> root/list@1:10 [2d] x root/list@1:10 [2d] root/list@1:24",
        "x -> [78]",
    };
    expect_prods(&l.g, want, 7);
    lowered_free(&l);
}
END_TEST

START_TEST(test_bounded_repeat_chain)
{
    lowered l;
    lowered_ok("root ::= x{2,4}\nx ::= \"x\"\n", &l);
    /* x x, then X{0,2} as upto2 -> count0 | count1 | count2 over the chain
     * count0 -> ε, count_j -> count_{j-1} x. */
    static const char *const want[] = {
        "$start -> root",
        "root/count0@1:10 ->",
        "root/count1@1:10 -> root/count0@1:10 x",
        "root/count2@1:10 -> root/count1@1:10 x",
        "root/upto2@1:10 -> root/count0@1:10",
        "root/upto2@1:10 -> root/count1@1:10",
        "root/upto2@1:10 -> root/count2@1:10",
        "root -> x x root/upto2@1:10",
        "x -> [78]",
    };
    expect_prods(&l.g, want, 9);
    ck_assert_int_eq(l.g.nts[nt_named(&l.g, "root/count2@1:10")].kind, CFG_NT_COUNT);
    ck_assert_int_eq(l.g.nts[nt_named(&l.g, "root/upto2@1:10")].kind, CFG_NT_GROUP);
    lowered_free(&l);
}
END_TEST

START_TEST(test_bounded_repeats_own_chains)
{
    lowered l;
    lowered_ok("root ::= x{0,3} | x{1,2}\nx ::= \"x\"\n", &l);
    static const char *const want[] = {
        "$start -> root",
        "root/count0@1:10 ->",
        "root/count1@1:10 -> root/count0@1:10 x",
        "root/count2@1:10 -> root/count1@1:10 x",
        "root/count3@1:10 -> root/count2@1:10 x",
        "root/upto3@1:10 -> root/count0@1:10",
        "root/upto3@1:10 -> root/count1@1:10",
        "root/upto3@1:10 -> root/count2@1:10",
        "root/upto3@1:10 -> root/count3@1:10",
        "root -> root/upto3@1:10",
        "root/count0@1:19 ->",
        "root/count1@1:19 -> root/count0@1:19 x",
        "root/upto1@1:19 -> root/count0@1:19",
        "root/upto1@1:19 -> root/count1@1:19",
        "root -> x root/upto1@1:19",
        "x -> [78]",
    };
    expect_prods(&l.g, want, 16);
    lowered_free(&l);
}
END_TEST

START_TEST(test_exact_and_open_repeat)
{
    lowered l;
    lowered_ok("root ::= x{3} \"-\" x{2,} \"-\" x{0} \"-\" x{,1}\nx ::= \"x\"\n", &l);
    static const char *const want[] = {
        "$start -> root",
        "root/list@1:19 -> root/list@1:19 x",
        "root/list@1:19 ->",
        "root/count0@1:38 ->",
        "root/count1@1:38 -> root/count0@1:38 x",
        "root/upto1@1:38 -> root/count0@1:38",
        "root/upto1@1:38 -> root/count1@1:38",
        "root -> x x x [2d] x x root/list@1:19 [2d] [2d] root/upto1@1:38",
        "x -> [78]",
    };
    expect_prods(&l.g, want, 9);
    lowered_free(&l);
}
END_TEST

START_TEST(test_optional_group)
{
    lowered l;
    lowered_ok("root ::= (\"ab\" | [a-c])? \"q\"\n", &l);
    static const char *const want[] = {
        "$start -> root",
        "root/group@1:11 -> [61] [62]",
        "root/group@1:11 -> [61-63]",
        "root/count0@1:11 ->",
        "root/count1@1:11 -> root/count0@1:11 root/group@1:11",
        "root/upto1@1:11 -> root/count0@1:11",
        "root/upto1@1:11 -> root/count1@1:11",
        "root -> root/upto1@1:11 [71]",
    };
    expect_prods(&l.g, want, 8);
    lowered_free(&l);
}
END_TEST

START_TEST(test_alternatives_and_empty)
{
    lowered l;
    lowered_ok("root ::= \"a\" | | b\nb ::= \"b\" (\"c\" | \"d\" \"e\")\n", &l);
    static const char *const want[] = {
        "$start -> root",
        "root -> [61]",
        "root ->",
        "root -> b",
        "b/group@2:12 -> [63]",
        "b/group@2:12 -> [64] [65]",
        "b -> [62] b/group@2:12",
    };
    expect_prods(&l.g, want, 7);
    lowered_free(&l);
}
END_TEST

START_TEST(test_repeat_at_limit)
{
    lowered l;
    lowered_ok("root ::= \"x\"{1048576}\n", &l);
    /* $start, count0..count1048576 (a chain of its own: EXACT_CHAIN),
     * exactly1048576 -> count1048576, root -> exactly1048576 */
    ck_assert_uint_eq(l.g.n_prods, 1 + 1048577 + 1 + 1);
    uint32_t last = nt_named(&l.g, "root/count1048576@1:10");
    uint32_t exactly = nt_named(&l.g, "root/exactly1048576@1:10");
    ck_assert_uint_ne(last, UINT32_MAX);
    ck_assert_uint_ne(exactly, UINT32_MAX);
    const cfg_prod *e = &l.g.prods[l.g.n_prods - 2], *top = &l.g.prods[l.g.n_prods - 1];
    ck_assert_uint_eq(e->lhs, exactly);
    ck_assert_uint_eq(e->len, 1);
    ck_assert_uint_eq(l.g.rhs[e->rhs], last);
    ck_assert_uint_eq(top->len, 1);
    ck_assert_uint_eq(l.g.rhs[top->rhs], exactly);
    lowered_free(&l);
    lowered_ok("root ::= \"x\"{0,1048576}\n", &l);
    /* $start, count0..count1048576, upto1048576 (1048577 alternatives),
     * root; the compiler folds the chain later (count_fold.h). */
    ck_assert_uint_eq(l.g.n_prods, 1 + 1048577 + 1048577 + 1);
    ck_assert_uint_ne(nt_named(&l.g, "root/count1048576@1:10"), UINT32_MAX);
    ck_assert_uint_eq(nt_named(&l.g, "root/count1048577@1:10"), UINT32_MAX);
    lowered_free(&l);
}
END_TEST

typedef struct bound_case {
    const char *src;
    uint32_t line, col;
    const char *msg;
} bound_case;

#define OVER_LIMIT "repetition bound 1048577 too large (limit 1048576; raise it with --max-repeat)"
static const bound_case bound_cases[] = {
    {"root ::= \"a\" x{1048577}\nx ::= \"x\"\n", 1, 14, OVER_LIMIT},
    {"root ::= \"a\"  x{2,1048577}\nx ::= \"x\"\n", 1, 15, OVER_LIMIT},
    {"root ::= \"a\" |\n  \"b\" x{1048577,}\nx ::= \"x\"\n", 2, 7, OVER_LIMIT},
    {"root ::= x{,1048577}\nx ::= \"x\"\n", 1, 10, OVER_LIMIT},
    /* Counts past 32 bits reach the same limit, with the same message. */
    {"root ::= \"a\"{4294967295}", 1, 10,
     "repetition bound over 4294967293 too large (limit 1048576; raise it with --max-repeat)"},
    {"root ::= \"a\"{2,99999999999999999999999}", 1, 10,
     "repetition bound over 4294967293 too large (limit 1048576; raise it with --max-repeat)"},
};

START_TEST(test_repeat_bound_error)
{
    const bound_case *bc = &bound_cases[_i];
    lowered l;
    ck_assert_int_eq(lower_src(bc->src, &l), GCG_ERR_LIMIT);
    ck_assert_uint_eq(l.diag.n_errors, 1);
    ck_assert_uint_ge(l.diag.n, 1);
    const gcg_diag_entry *e = &l.diag.v[l.diag.n - 1];
    ck_assert_int_eq(e->severity, GCG_SEV_ERROR);
    ck_assert_str_eq(e->msg, bc->msg);
    ck_assert_uint_eq(e->line, bc->line);
    ck_assert_uint_eq(e->col, bc->col);
    /* A failed lowering leaves an empty grammar. */
    ck_assert_uint_eq(l.g.n_prods, 0);
    ck_assert_uint_eq(l.g.n_nts, 0);
    lowered_free(&l);
}
END_TEST

START_TEST(test_repeat_bound_error_printed)
{
    lowered l;
    ck_assert_int_eq(lower_src("root ::= \"a\" x{10001,1048577}\nx ::= \"x\"\n", &l), GCG_ERR_LIMIT);
    char buf[256] = {0};
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    ck_assert_ptr_nonnull(f);
    gcg_diag_print(&l.diag, f);
    fclose(f);
    ck_assert_str_eq(buf, "t.gbnf:1:14: error: repetition bound 1048577 too large (limit 1048576; raise it with "
                          "--max-repeat)\n");
    lowered_free(&l);
}
END_TEST

/* Token references left unresolved (no vocabulary: token_refs.h) are
 * refused by lowering, each at its position. */
START_TEST(test_token_refs_refused)
{
    lowered l;
    ck_assert_int_eq(lower_src("root ::= \"a\" <[12]> x\nx ::= !<think>\n", &l), GCG_ERR_FORMAT);
    ck_assert_uint_eq(l.diag.n_errors, 2);
    ck_assert_uint_eq(l.g.n_prods, 0);
    uint32_t at[2][2] = {{1, 14}, {2, 7}};
    for (uint32_t i = 0; i < 2; i++) {
        ck_assert_str_eq(l.diag.v[i].msg, "a token reference needs a tokenizer vocabulary "
                                          "(--tokenizer, --tiktoken, --vocab-hex or --vocab)");
        ck_assert_uint_eq(l.diag.v[i].line, at[i][0]);
        ck_assert_uint_eq(l.diag.v[i].col, at[i][1]);
    }
    lowered_free(&l);
}
END_TEST

/* ---- chains left short for the fold --------------------------------------
 *
 * gcg_lower_folding leaves out the middle links of a long X{0,k}, which
 * count_fold.c drops anyway: after normalization and the fold, the grammar
 * must be the one full lowering gives, name for name and production for
 * production, counters included. */

#define FOLD_WINDOW 2u /* the 256 single bytes: tokens of one byte */

/* The grammar after lowering (folding or not), normalization and the fold,
 * as text; *short_left from gcg_count_fold. */
static char *folded_text(const char *src, bool folding, bool *short_left)
{
    lowered l;
    memset(&l, 0, sizeof l);
    gcg_diag_init(&l.diag, "t.gbnf");
    ck_assert_int_eq(gcg_gbnf_parse(src, strlen(src), NULL, &l.ast, &l.diag), GCG_OK);
    gcg_status st = folding ? gcg_lower_folding(&l.ast, &l.g, NULL, FOLD_WINDOW, &l.diag)
                            : gcg_lower(&l.ast, &l.g, NULL, &l.diag);
    ck_assert_int_eq(st, GCG_OK);
    ck_assert_int_eq(gcg_normalize_latency(&l.g, &l.ast, &l.diag), GCG_OK);
    ck_assert_int_eq(gcg_count_fold(&l.g, FOLD_WINDOW, short_left), GCG_OK);
    size_t cap = 1 << 20, n = 0;
    char *out = malloc(cap);
    ck_assert_ptr_nonnull(out);
    for (uint32_t a = 0; a < l.g.n_nts && n < cap; a++)
        n += (size_t)snprintf(out + n, cap - n, "nt %s %d\n", l.g.nts[a].name, (int)l.g.nts[a].kind);
    for (uint32_t p = 0; p < l.g.n_prods && n < cap; p++)
        n += (size_t)snprintf(out + n, cap - n, "%s\n", prod_str(&l.g, p));
    for (uint32_t i = 0; i < l.g.n_counts && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "count %u %u %s\n", l.g.counts[i].prod, l.g.counts[i].max,
                              l.g.nts[l.g.counts[i].exit].name);
    ck_assert_uint_lt(n, cap);
    lowered_free(&l);
    return out;
}

static const char *const fold_cases[] = {
    "root ::= \"a\"{0,100}\n",
    "root ::= [a-z]{3,200} \"x\" | \"b\"{0,50} [0-9]{0,300}\n",
    "root ::= s \",\" s\ns ::= \"q\"{0,500}\n",
    "root ::= \"q\"{0,500} \",\" \"q\"{0,400} \",\" \"q\"{0,21}\n",
    "root ::= ( \"ab\" | \"c\" ){0,80} [^\"]{30,90}\n",
    "root ::= x{0,64} y{0,64}\nx ::= \"a\" | \"bc\"\ny ::= \"a\" | \"bc\"\n",
};

START_TEST(test_folding_same_grammar)
{
    bool short_full = true, short_folding = true;
    char *full = folded_text(fold_cases[_i], false, &short_full);
    char *folding = folded_text(fold_cases[_i], true, &short_folding);
    ck_assert_msg(strstr(full, "\ncount ") != NULL, "no chain folded in case %d", _i);
    ck_assert(!short_full && !short_folding);
    ck_assert_str_eq(folding, full);
    free(full), free(folding);
}
END_TEST

/* A chain over a nullable item does not fold: the chain left short says so,
 * and the caller lowers it again in full (compile.c). */
START_TEST(test_folding_short_chain_reported)
{
    bool short_left = false;
    char *t = folded_text("root ::= ( \"a\"? ){0,60} \"b\"\n", true, &short_left);
    ck_assert(short_left);
    free(t);
    t = folded_text("root ::= ( \"a\"? ){0,60} \"b\"\n", false, &short_left);
    ck_assert(!short_left);
    free(t);
}
END_TEST

static Suite *lower_suite(void)
{
    Suite *s = suite_create("lower");
    TCase *tc = tcase_create("shapes");
    tcase_add_test(tc, test_start_production);
    tcase_add_test(tc, test_start_custom_root);
    tcase_add_test(tc, test_literal_one_set_per_byte);
    tcase_add_test(tc, test_literal_utf8);
    tcase_add_test(tc, test_byte_class_is_one_set);
    tcase_add_test(tc, test_codepoint_class);
    tcase_add_test(tc, test_mixed_class_merges_ascii);
    tcase_add_test(tc, test_any_is_strict_utf8);
    tcase_add_test(tc, test_alternatives_and_empty);
    tcase_add_test(tc, test_token_refs_refused);
    suite_add_tcase(s, tc);
    tc = tcase_create("repetition");
    tcase_add_test(tc, test_star_left_recursive_list);
    tcase_add_test(tc, test_plus_is_x_then_list);
    tcase_add_test(tc, test_list_shared_per_symbol);
    tcase_add_test(tc, test_bounded_repeat_chain);
    tcase_add_test(tc, test_bounded_repeats_own_chains);
    tcase_add_test(tc, test_exact_and_open_repeat);
    tcase_add_test(tc, test_optional_group);
    tcase_add_test(tc, test_repeat_at_limit);
    tcase_add_loop_test(tc, test_repeat_bound_error, 0, sizeof bound_cases / sizeof *bound_cases);
    tcase_add_test(tc, test_repeat_bound_error_printed);
    tcase_add_loop_test(tc, test_folding_same_grammar, 0, sizeof fold_cases / sizeof *fold_cases);
    tcase_add_test(tc, test_folding_short_chain_reported);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(lower_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
