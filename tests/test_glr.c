/*
 * test_glr.c — the GLR engine behind the matcher, through the public API
 * (gcg_compile, gcg_artifact_open_memory, gcg_matcher_*):
 *
 *   - ambiguous grammars with exponentially many parses (S ::= S S | "a" on
 *     200 bytes; the shipped ambiguous.gbnf), byte by byte and at once;
 *   - the empty sentence;
 *   - depth: right recursion 100k deep (r ::= "a" r | "b") and 100k nested
 *     brackets in grammars/json.gbnf, as a prefix and then complete; rolling
 *     back a 100k-deep commit;
 *   - memory: committing 1M bytes of a JSON list keeps gcg_matcher_memory
 *     constant after warm-up (the reference-counted GSS frees old nodes),
 *     and never needs more than a few hundred live nodes;
 *   - max_nodes: GCG_ERR_LIMIT, with the matcher unchanged;
 *   - counted repetitions (compiler/count_fold.h): x{0,65535} takes as few
 *     LR states as x{0,40} and ends exactly at 65535 copies, byte by byte,
 *     at once and across a rollback; copies of ambiguous length keep the
 *     lowest count; the count survives the sharing of equal nodes.
 *
 * The deep cases run under a 30 s check timeout, the ambiguous ones under
 * 300 s: guards against hangs and runaway (quadratic) costs, not latency
 * assertions. A parser linear in the input does each deep case in well
 * under a second, sanitizers included.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "gcg.h"

#define DEEP 100000u

/* ---- helpers ------------------------------------------------------------ */

static char *read_grammar(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/grammars/%s.gbnf", GCG_SOURCE_ROOT, name);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = 0;
    return buf;
}

/* Byte-level artifact (256 single-byte tokens, no EOS token). */
static gcg_artifact *compile_src(const char *src, gcg_compile_stats *stats)
{
    gcg_diag d;
    gcg_diag_init(&d, "t.gbnf");
    uint8_t *bytes = NULL;
    size_t size = 0;
    gcg_compile_options opt = {0};
    opt.no_automaton = true;
    gcg_status st = gcg_compile(src, strlen(src), &opt, false, &bytes, &size, stats, &d);
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

static gcg_artifact *compile_grammar(const char *name)
{
    char *src = read_grammar(name);
    gcg_artifact *art = compile_src(src, NULL);
    free(src);
    return art;
}

static gcg_matcher *matcher_opts(const gcg_artifact *art, uint32_t max_rollback, uint32_t max_nodes)
{
    gcg_matcher_options o;
    gcg_matcher_options_default(&o);
    o.max_rollback = max_rollback;
    if (max_nodes)
        o.max_nodes = max_nodes;
    gcg_matcher *m = NULL;
    ck_assert_int_eq(gcg_matcher_new(art, &o, &m, NULL), GCG_OK);
    return m;
}

static gcg_status commit_str(gcg_matcher *m, const char *s)
{
    return gcg_matcher_commit_bytes(m, (const uint8_t *)s, strlen(s), NULL);
}

static gcg_status commit_run(gcg_matcher *m, uint8_t byte, size_t n, size_t chunk)
{
    static uint8_t buf[4096];
    memset(buf, byte, sizeof buf);
    for (size_t done = 0; done < n;) {
        size_t k = n - done < chunk ? n - done : chunk;
        gcg_status st = gcg_matcher_commit_bytes(m, buf, k, NULL);
        if (st != GCG_OK)
            return st;
        done += k;
    }
    return GCG_OK;
}

/* The 256-bit byte mask (brute force: by definition). */
static void byte_mask(gcg_matcher *m, uint32_t w[8])
{
    ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, w, 8), GCG_OK);
}

/* Exactly the bytes in `allowed` are in the mask. */
static void expect_mask(gcg_matcher *m, const char *allowed)
{
    size_t n_allowed = strlen(allowed);
    uint32_t w[8];
    byte_mask(m, w);
    uint32_t want[8] = {0};
    for (size_t i = 0; i < n_allowed; i++)
        want[(uint8_t)allowed[i] >> 5] |= 1u << ((uint8_t)allowed[i] & 31);
    for (int i = 0; i < 8; i++)
        ck_assert_msg(w[i] == want[i], "mask word %d: 0x%08x, want 0x%08x", i, w[i], want[i]);
}

/* ---- ambiguity -------------------------------------------------------------- */

START_TEST(test_concat_200_bytes)
{
    gcg_compile_stats stats;
    /* The empty `e` keeps root out of tail position, so the compiler keeps
     * the ambiguous concatenation as written. */
    gcg_artifact *art = compile_src("root ::= root root e | \"a\"\ne ::= \"\"\n", &stats);
    ck_assert_uint_eq(stats.sr_conflicts, 1);
    gcg_matcher *m = matcher_opts(art, 8, 0);
    ck_assert(!gcg_matcher_is_complete(m));
    /* Catalan(199) parses of a^200: the GSS shares them. */
    for (int i = 0; i < 200; i++) {
        ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"a", 1, NULL), GCG_OK);
        ck_assert(gcg_matcher_is_complete(m));
    }
    ck_assert_uint_eq(gcg_matcher_rollback_depth(m), 8);
    expect_mask(m, "a");
    ck_assert_int_eq(commit_str(m, "b"), GCG_ERR_REJECTED);
    ck_assert_int_eq(gcg_matcher_commit_eos(m), GCG_OK);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

START_TEST(test_concat_200_bytes_at_once)
{
    gcg_artifact *art = compile_src("root ::= root root | \"a\" | \"(\" root \")\"\n", NULL);
    gcg_matcher *m = matcher_opts(art, 8, 0);
    char text[256];
    memset(text, 'a', 200);
    memcpy(text + 50, "(aa(a)a)", 8);
    text[200] = 0;
    size_t consumed = 0;
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)text, 200, &consumed), GCG_OK);
    ck_assert_uint_eq(consumed, 200);
    ck_assert(gcg_matcher_is_complete(m));
    ck_assert_int_eq(commit_str(m, "(a"), GCG_OK);
    ck_assert(!gcg_matcher_is_complete(m));
    expect_mask(m, "a()");
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"a))", 3, &consumed), GCG_ERR_REJECTED);
    ck_assert_uint_eq(consumed, 2);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

START_TEST(test_ambiguous_grammar_file)
{
    gcg_compile_stats stats;
    char *src = read_grammar("ambiguous");
    gcg_artifact *art = compile_src(src, &stats);
    free(src);
    ck_assert_uint_gt(stats.sr_conflicts + stats.rr_conflicts, 0);
    gcg_matcher *m = matcher_opts(art, 8, 0);
    /* Dangling else, and e ::= e e | e "+" e over 120 bytes. */
    ck_assert_int_eq(commit_str(m, "if c then if !c and c then x = a else y = b\n"), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    ck_assert_int_eq(commit_str(m, "x = "), GCG_OK);
    for (int i = 0; i < 30; i++)
        ck_assert_int_eq(commit_str(m, i % 3 ? "ab+c" : "(d)a"), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    ck_assert_int_eq(commit_str(m, "+"), GCG_OK);
    ck_assert(!gcg_matcher_is_complete(m));
    expect_mask(m, "(abcd");
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* ---- the empty sentence ----------------------------------------------------- */

typedef struct empty_case {
    const char *src;
    bool empty_ok;        /* "" is a sentence          */
    const char *after;    /* then this is committed    */
    bool after_complete;
} empty_case;

static const empty_case empty_cases[] = {
    {"root ::= \"\"\n", true, NULL, false},
    {"root ::= \"a\"*\n", true, "aaa", true},
    {"root ::= \"a\"?\n", true, "a", true},
    {"root ::= | \"ab\"\n", true, "a", false},
    {"root ::= x y\nx ::= \"x\"*\ny ::= \"y\"?\n", true, "xxy", true},
    {"root ::= \"a\"\n", false, "a", true},
    {"root ::= \"a\"+\n", false, "aa", true},
    {"root ::= (\"a\"? \"b\"?)*\n", true, "ba", true},
    {"root ::= root root | \"x\" |\n", true, "xx", true},
};

START_TEST(test_empty_sentence)
{
    const empty_case *c = &empty_cases[_i];
    gcg_artifact *art = compile_src(c->src, NULL);
    gcg_matcher *m = matcher_opts(art, 8, 0);
    ck_assert_int_eq(gcg_matcher_is_complete(m), c->empty_ok);
    ck_assert_int_eq(gcg_matcher_commit_eos(m), c->empty_ok ? GCG_OK : GCG_ERR_REJECTED);
    ck_assert_int_eq(gcg_matcher_is_terminated(m), c->empty_ok);
    gcg_matcher_reset(m);
    ck_assert_int_eq(gcg_matcher_is_complete(m), c->empty_ok);
    /* An empty commit keeps completeness. */
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, NULL, 0, NULL), GCG_OK);
    ck_assert_int_eq(gcg_matcher_is_complete(m), c->empty_ok);
    if (c->after) {
        ck_assert_int_eq(commit_str(m, c->after), GCG_OK);
        ck_assert_int_eq(gcg_matcher_is_complete(m), c->after_complete);
    } else {
        uint32_t w[8];
        byte_mask(m, w);
        for (int i = 0; i < 8; i++)
            ck_assert_uint_eq(w[i], 0);
        ck_assert_int_eq(commit_str(m, "a"), GCG_ERR_REJECTED);
    }
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* ---- depth --------------------------------------------------------------------- */

START_TEST(test_right_recursion_100k)
{
    gcg_artifact *art = compile_src("root ::= \"a\" root | \"b\"\n", NULL);
    gcg_matcher *m = matcher_opts(art, 32, 0);
    ck_assert_int_eq(commit_run(m, 'a', DEEP, 1000), GCG_OK);
    ck_assert(!gcg_matcher_is_complete(m));
    ck_assert_uint_eq(gcg_matcher_rollback_depth(m), 32);
    expect_mask(m, "ab");
    ck_assert_int_eq(gcg_matcher_commit_eos(m), GCG_ERR_REJECTED);
    ck_assert_int_eq(commit_str(m, "b"), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    expect_mask(m, "");
    ck_assert_int_eq(gcg_matcher_commit_eos(m), GCG_OK);
    ck_assert(gcg_matcher_is_terminated(m));
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

START_TEST(test_right_recursion_byte_by_byte)
{
    /* 20k single-byte commits, then the 20k reductions in one step. */
    gcg_artifact *art = compile_src("root ::= \"a\" root | \"b\"\n", NULL);
    gcg_matcher *m = matcher_opts(art, 4, 0);
    ck_assert_int_eq(commit_run(m, 'a', 20000, 1), GCG_OK);
    ck_assert(!gcg_matcher_is_complete(m));
    ck_assert_int_eq(commit_str(m, "b"), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    ck_assert_int_eq(commit_str(m, "a"), GCG_ERR_REJECTED);
    ck_assert_int_eq(gcg_matcher_rollback(m, 1), GCG_OK);
    expect_mask(m, "ab");
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

START_TEST(test_json_nesting_100k)
{
    gcg_artifact *art = compile_grammar("json");
    gcg_matcher *m = matcher_opts(art, 32, 0);
    ck_assert_int_eq(commit_run(m, '[', DEEP, 1000), GCG_OK);
    ck_assert(!gcg_matcher_is_complete(m));
    /* Inside an array: a value, whitespace, or the closing bracket. */
    expect_mask(m, "[]{\"-0123456789tfn \t\n\r");
    ck_assert_int_eq(commit_run(m, ']', DEEP - 1, 1000), GCG_OK);
    ck_assert(!gcg_matcher_is_complete(m));
    expect_mask(m, "],\t\n\r ");
    ck_assert_int_eq(commit_str(m, "]"), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    expect_mask(m, " \t\n\r");
    ck_assert_int_eq(commit_str(m, "]"), GCG_ERR_REJECTED);
    ck_assert_int_eq(gcg_matcher_commit_eos(m), GCG_OK);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

START_TEST(test_json_nesting_100k_objects)
{
    gcg_artifact *art = compile_grammar("json");
    gcg_matcher *m = matcher_opts(art, 4, 0);
    for (uint32_t i = 0; i < DEEP; i++)
        ck_assert_int_eq(commit_str(m, "{\"k\":["), GCG_OK);
    ck_assert_int_eq(commit_str(m, "1"), GCG_OK);
    for (uint32_t i = 0; i < DEEP; i++)
        ck_assert_int_eq(commit_str(m, "]}"), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

START_TEST(test_rollback_deep_commit)
{
    gcg_artifact *art = compile_grammar("json");
    gcg_matcher *m = matcher_opts(art, 4, 0);
    size_t mem0 = gcg_matcher_memory(m);
    ck_assert_int_eq(commit_str(m, " "), GCG_OK);
    /* One commit 100k deep; rolling it back frees the whole stack (without
     * recursion) and leaves the matcher as after " ". */
    uint8_t *buf = malloc(DEEP);
    ck_assert_ptr_nonnull(buf);
    memset(buf, '[', DEEP);
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, buf, DEEP, NULL), GCG_OK);
    ck_assert_uint_gt(gcg_matcher_memory(m), mem0);
    ck_assert_int_eq(gcg_matcher_rollback(m, 1), GCG_OK);
    ck_assert_uint_eq(gcg_matcher_rollback_depth(m), 1);
    expect_mask(m, "[{\"-0123456789tfn \t\n\r"); /* not ']' */
    ck_assert_int_eq(commit_str(m, "[]"), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    /* Again, then reset. */
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, buf, DEEP, NULL), GCG_ERR_REJECTED);
    ck_assert_int_eq(commit_str(m, ","), GCG_ERR_REJECTED);
    gcg_matcher_reset(m);
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, buf, DEEP, NULL), GCG_OK);
    gcg_matcher_reset(m);
    ck_assert_uint_eq(gcg_matcher_rollback_depth(m), 0);
    ck_assert(!gcg_matcher_is_complete(m));
    free(buf);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* ---- memory ----------------------------------------------------------------------- */

START_TEST(test_memory_bounded_1m_list)
{
    gcg_artifact *art = compile_grammar("json");
    /* 300 live nodes are plenty for a flat list; a GSS that kept old
     * nodes would need ~1M and fail with GCG_ERR_LIMIT. */
    gcg_matcher *m = matcher_opts(art, 32, 300);
    ck_assert_int_eq(commit_str(m, "[0"), GCG_OK);
    size_t warm = 0;
    static const char *const items[] = {",1", ", 23", ",\"x\"", ",[]", ",{}", ",4.5e6", ",true"};
    size_t bytes = 2;
    for (uint32_t i = 0; bytes < 1000000; i++) {
        const char *it = items[i % 7];
        ck_assert_int_eq(commit_str(m, it), GCG_OK);
        bytes += strlen(it);
        if (i == 1000)
            warm = gcg_matcher_memory(m);
    }
    size_t end = gcg_matcher_memory(m);
    /* The bound: 4 KiB (one pool doubling of 4096 nodes alone would be
     * 48 KiB; 1M retained nodes and edges would be ~20 MB). */
    ck_assert_msg(end <= warm + 4096, "memory grew from %zu to %zu bytes", warm, end);
    ck_assert_int_eq(commit_str(m, "]"), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

START_TEST(test_memory_bounded_byte_commits)
{
    gcg_artifact *art = compile_src("root ::= (\"ab\" | \"a\" \"c\"* \"d\" | [x-z]+ \";\")*\n", NULL);
    gcg_matcher *m = matcher_opts(art, 8, 200);
    static const char text[] = "abacccdxyz;ad";
    size_t warm = 0;
    for (uint32_t i = 0; i < 13 * 76923; i++) { /* 999999 bytes, ending after "ad" */
        ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)&text[i % 13], 1, NULL), GCG_OK);
        if (i == 13000)
            warm = gcg_matcher_memory(m);
    }
    ck_assert(gcg_matcher_is_complete(m));
    ck_assert_uint_le(gcg_matcher_memory(m), warm + 4096);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* ---- max_nodes -------------------------------------------------------------------- */

START_TEST(test_max_nodes_limit)
{
    gcg_artifact *art = compile_grammar("json");
    /* `ref` has no node limit and follows the same commits. Near the limit
     * even a brute-force mask may need more nodes than allowed, so masks of
     * the limited matcher are read only after rolling back a little. */
    gcg_matcher *m = matcher_opts(art, 4, 64), *ref = matcher_opts(art, 4, 0);
    int opened = 0;
    gcg_status st = GCG_OK;
    for (; opened < 1000; opened++) {
        bool complete = gcg_matcher_is_complete(m);
        uint32_t depth = gcg_matcher_rollback_depth(m);
        st = commit_str(m, "[");
        if (st != GCG_OK) {
            ck_assert_int_eq(st, GCG_ERR_LIMIT);
            ck_assert_int_eq(gcg_matcher_is_complete(m), complete);
            ck_assert_uint_eq(gcg_matcher_rollback_depth(m), depth);
            break;
        }
        ck_assert_int_eq(commit_str(ref, "["), GCG_OK);
    }
    ck_assert_int_eq(st, GCG_ERR_LIMIT);
    ck_assert_int_gt(opened, 4);
    ck_assert_int_lt(opened, 64);
    /* A longer commit that hits the limit part-way changes nothing either. */
    ck_assert_int_eq(commit_str(m, "1,[[[[[[[["), GCG_ERR_LIMIT);
    ck_assert_uint_eq(gcg_matcher_rollback_depth(m), 4);
    /* The history is intact: four steps back, m and ref agree. */
    ck_assert_int_eq(gcg_matcher_rollback(m, 4), GCG_OK);
    ck_assert_int_eq(gcg_matcher_rollback(ref, 4), GCG_OK);
    uint32_t wm[8], wr[8];
    byte_mask(m, wm);
    byte_mask(ref, wr);
    ck_assert_mem_eq(wm, wr, sizeof wm);
    ck_assert_int_eq(gcg_matcher_is_complete(m), gcg_matcher_is_complete(ref));
    /* And the matcher is usable: a closing bracket (each one holds a few
     * more nodes while the history keeps the old frontiers), then a whole
     * document after reset. */
    ck_assert_int_eq(commit_str(m, "]"), GCG_OK);
    ck_assert(!gcg_matcher_is_complete(m));
    gcg_matcher_reset(m);
    ck_assert_int_eq(commit_str(m, "[[1],{\"a\":[2]}]"), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(ref);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

START_TEST(test_max_nodes_too_small_to_start)
{
    /* At the start the end-of-input check already reduces (list -> ε,
     * root -> list): with one node allowed that is a limit, not a lack of
     * memory. */
    gcg_artifact *art = compile_src("root ::= \"a\"*\n", NULL);
    gcg_matcher_options o;
    gcg_matcher_options_default(&o);
    o.max_nodes = 1;
    gcg_matcher *m = (gcg_matcher *)1;
    ck_assert_int_eq(gcg_matcher_new(art, &o, &m, NULL), GCG_ERR_LIMIT);
    ck_assert_ptr_null(m);
    o.max_nodes = 3;
    ck_assert_int_eq(gcg_matcher_new(art, &o, &m, NULL), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

START_TEST(test_max_nodes_ambiguous)
{
    /* The ambiguous GSS grows with the input; the limit stops it cleanly. */
    gcg_artifact *art = compile_src("root ::= root root | \"a\"\n", NULL);
    gcg_matcher *m = matcher_opts(art, 4, 50);
    int n = 0;
    gcg_status st;
    while ((st = commit_str(m, "a")) == GCG_OK)
        n++;
    ck_assert_int_eq(st, GCG_ERR_LIMIT);
    ck_assert_int_gt(n, 3);
    ck_assert(gcg_matcher_is_complete(m));
    ck_assert_int_eq(gcg_matcher_rollback(m, 4), GCG_OK);
    ck_assert_int_eq(commit_str(m, "a"), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* ---- counted repetitions -------------------------------------------------- */

/* Commits n copies of byte b in one call; all must go in. */
static void commit_copies(gcg_matcher *m, uint8_t b, size_t n)
{
    ck_assert_int_eq(commit_run(m, b, n, 4096), GCG_OK);
}

START_TEST(test_count_end_exact)
{
    gcg_compile_stats small, big, plain;
    gcg_artifact_free(compile_src("root ::= \"\\\"\" [a-c]{0,40} \"\\\"\"\n", &small));
    gcg_artifact_free(compile_src("root ::= \"\\\"\" [a-c]{0,18} \"\\\"\"\n", &plain));
    gcg_artifact *art = compile_src("root ::= \"\\\"\" [a-c]{0,65535} \"\\\"\"\n", &big);
    /* Folded: the start, the quotes, the list and its copy, and the last
     * W + 1 = 3 links (the window for single-byte tokens) kept explicit. */
    ck_assert_uint_eq(big.lr_states, small.lr_states);
    ck_assert_uint_eq(big.lr_states, 12);
    ck_assert_uint_eq(plain.lr_states, 42); /* 18 links: too short to fold */
    gcg_matcher *m = matcher_opts(art, 4, 0);
    ck_assert_int_eq(commit_str(m, "\""), GCG_OK);
    commit_copies(m, 'b', 65533);
    expect_mask(m, "\"abc");
    ck_assert_int_eq(commit_str(m, "c"), GCG_OK);
    expect_mask(m, "\"abc");
    ck_assert_int_eq(commit_str(m, "a"), GCG_OK);
    expect_mask(m, "\"");
    ck_assert_int_eq(commit_str(m, "a"), GCG_ERR_REJECTED);
    ck_assert_int_eq(gcg_matcher_rollback(m, 2), GCG_OK);
    expect_mask(m, "\"abc");
    ck_assert_int_eq(commit_str(m, "cc\""), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    /* In one call: the reject offset is the first copy too many. */
    m = matcher_opts(art, 0, 0);
    uint8_t *text = malloc(65540);
    memset(text, 'a', 65540);
    text[0] = '"';
    size_t consumed = 0;
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, text, 65540, &consumed), GCG_ERR_REJECTED);
    ck_assert_uint_eq(consumed, 65536);
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, text, 65536, &consumed), GCG_OK);
    ck_assert_int_eq(commit_str(m, "\""), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    free(text);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* ("a" | "aa"){0,50}: a^n splits into anywhere from n/2 to n copies; the
 * paths of one level differ only by their count, and the lowest decides. */
START_TEST(test_count_ambiguous_copies)
{
    gcg_artifact *art = compile_src("root ::= (\"a\" | \"aa\"){0,50} \".\"\n", NULL);
    gcg_matcher *m = matcher_opts(art, 0, 0);
    commit_copies(m, 'a', 100);
    expect_mask(m, ".");
    ck_assert_int_eq(commit_str(m, "."), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    m = matcher_opts(art, 0, 0);
    commit_copies(m, 'a', 99);
    expect_mask(m, "a.");
    gcg_matcher_free(m);
    gcg_artifact_free(art);
    /* At least 30 copies: 59 bytes are 30 copies at most... */
    art = compile_src("root ::= (\"a\" | \"aa\"){30,80} \".\"\n", NULL);
    m = matcher_opts(art, 0, 0);
    commit_copies(m, 'a', 29);
    expect_mask(m, "a");
    commit_copies(m, 'a', 131);
    expect_mask(m, "."); /* ...and 160 bytes are 80 copies at least */
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* A list of counted strings: the list's ε-reductions make equal nodes on
 * every level, which are shared (glr_merge.c); counts must not be mixed up
 * by it. Every string holds at most 30 letters, wherever it starts. */
START_TEST(test_count_shared_nodes)
{
    gcg_artifact *art = compile_src("root ::= (ws [a-c]{0,30} \";\")* \".\"\nws ::= [ ]*\n", NULL);
    gcg_matcher *m = matcher_opts(art, 0, 0);
    for (int k = 0; k < 5; k++) {
        ck_assert_int_eq(commit_str(m, "  "), GCG_OK);
        commit_copies(m, 'a', 20 + (size_t)k * 2 + (k == 4));
        ck_assert_int_eq(commit_str(m, ";"), GCG_OK);
    }
    commit_copies(m, 'b', 30);
    expect_mask(m, ";");
    ck_assert_int_eq(commit_str(m, ";."), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* A counted list that starts at two places: after "x", and after "x" and
 * the optional "a" (a GLR fork), so one level's nodes of the list state
 * stand on both starts with counts that differ by start and by split; the
 * lowest count per start decides. The language is "x" a^m "." with m <= 61
 * (30 copies of "aa" and the optional "a"); every m is checked, one byte at
 * a time. */
START_TEST(test_count_two_starts)
{
    gcg_artifact *art = compile_src("root ::= \"x\" \"a\"? (\"a\" | \"aa\"){0,30} \".\"\n", NULL);
    for (int m = 0; m <= 62; m++) {
        gcg_matcher *mt = matcher_opts(art, 0, 0);
        ck_assert_int_eq(commit_str(mt, "x"), GCG_OK);
        for (int i = 0; i < m && i < 61; i++)
            ck_assert_int_eq(commit_str(mt, "a"), GCG_OK);
        if (m == 62) {
            ck_assert_int_eq(commit_str(mt, "a"), GCG_ERR_REJECTED);
            expect_mask(mt, ".");
        } else {
            expect_mask(mt, m < 61 ? "a." : ".");
            ck_assert_int_eq(commit_str(mt, "."), GCG_OK);
            ck_assert(gcg_matcher_is_complete(mt));
        }
        gcg_matcher_free(mt);
    }
    gcg_artifact_free(art);
}
END_TEST

static Suite *glr_suite(void)
{
    Suite *s = suite_create("glr");
    TCase *tc = tcase_create("ambiguity");
    tcase_add_test(tc, test_concat_200_bytes);
    tcase_add_test(tc, test_concat_200_bytes_at_once);
    tcase_add_test(tc, test_ambiguous_grammar_file);
    tcase_add_loop_test(tc, test_empty_sentence, 0, sizeof empty_cases / sizeof *empty_cases);
    tcase_set_timeout(tc, 300);
    suite_add_tcase(s, tc);
    tc = tcase_create("depth");
    tcase_add_test(tc, test_right_recursion_100k);
    tcase_add_test(tc, test_right_recursion_byte_by_byte);
    tcase_add_test(tc, test_json_nesting_100k);
    tcase_add_test(tc, test_json_nesting_100k_objects);
    tcase_add_test(tc, test_rollback_deep_commit);
    tcase_set_timeout(tc, 30);
    suite_add_tcase(s, tc);
    tc = tcase_create("memory");
    tcase_add_test(tc, test_memory_bounded_1m_list);
    tcase_add_test(tc, test_memory_bounded_byte_commits);
    tcase_add_test(tc, test_max_nodes_limit);
    tcase_add_test(tc, test_max_nodes_too_small_to_start);
    tcase_add_test(tc, test_max_nodes_ambiguous);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    tc = tcase_create("counts");
    tcase_add_test(tc, test_count_end_exact);
    tcase_add_test(tc, test_count_ambiguous_copies);
    tcase_add_test(tc, test_count_shared_nodes);
    tcase_add_test(tc, test_count_two_starts);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(glr_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
