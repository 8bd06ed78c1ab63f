/*
 * test_token_refs.c — token references in GBNF (`<[ID]>`, `<TEXT>`, `!<...>`;
 * compiler/token_refs.c, runtime/token_ref_section.c).
 *
 *   - llama.cpp's token-reference cases (tests/test-grammar-integration.cpp,
 *     MIT): each sequence of special tokens and text (the text committed one
 *     byte token at a time) is accepted and complete, or rejected;
 *   - at every step of those sequences and of random walks drawn from the
 *     mask, on grammars where a reference and text can match one token
 *     (the commit then follows both), fill_mask equals the brute force and
 *     the definition (commit each token, roll it back);
 *   - a token whose bytes are the byte standing for a reference is not
 *     that reference; rollback across a reference; EOS and negation;
 *   - special tokens named as tokenizer.json names them (<|end|>);
 *   - errors: <TEXT> that is no token or several, an id out of range, a
 *     grammar compiled without a vocabulary, too many references.
 */
#include "tok_util.h"

/* Vocabulary: 0..99 special (99 EOS), 100 + b the single byte b, then a few
 * multi-byte tokens. */
#define BYTE(b) (100u + (uint32_t)(unsigned char)(b))
#define N_VOCAB 361u
static tok VOCAB[N_VOCAB];
static char BYTES[256];

static void vocab_init(void)
{
    for (uint32_t i = 0; i < 100; i++)
        VOCAB[i] = (tok)SPECIAL;
    VOCAB[99] = (tok)EOS;
    for (uint32_t b = 0; b < 256; b++) {
        BYTES[b] = (char)b;
        VOCAB[BYTE(b)] = (tok){&BYTES[b], 1, false};
    }
    VOCAB[356] = (tok)TXT("ab");
    VOCAB[357] = (tok)TXT("<think>");
    VOCAB[358] = (tok)TXT("hello");
    VOCAB[359] = (tok)TXT("</think>");
    VOCAB[360] = (tok)TXT("ab"); /* the same text under two ids */
}

static gcg_artifact *compile_refs(const char *src)
{
    gcg_compile_options opt = {0};
    return compile_ok(src, opt, VOCAB, N_VOCAB);
}

/* ---- three masks ------------------------------------------------------ */

/* The definition: token t is allowed iff committing it succeeds. */
static void mask_by_commit(gcg_matcher *m, uint32_t *words, size_t n_words)
{
    memset(words, 0, n_words * sizeof *words);
    for (uint32_t t = 0; t < N_VOCAB; t++)
        if (gcg_matcher_commit(m, t) == GCG_OK) {
            words[t >> 5] |= 1u << (t & 31);
            ck_assert_int_eq(gcg_matcher_rollback(m, 1), GCG_OK);
        }
}

static void check_masks(gcg_matcher *m, const gcg_artifact *art, const char *what)
{
    uint32_t a[MAX_WORDS], b[MAX_WORDS], c[MAX_WORDS];
    size_t w = gcg_artifact_mask_words(art);
    ck_assert_uint_le(w, MAX_WORDS);
    ck_assert_int_eq(gcg_matcher_fill_mask(m, a, w), GCG_OK);
    ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, b, w), GCG_OK);
    mask_by_commit(m, c, w);
    for (size_t i = 0; i < w; i++) {
        ck_assert_msg(a[i] == b[i], "%s: word %zu: mask %08x brute force %08x", what, i, a[i], b[i]);
        ck_assert_msg(a[i] == c[i], "%s: word %zu: mask %08x definition %08x", what, i, a[i], c[i]);
    }
}

/* ---- llama.cpp's cases ------------------------------------------------ */

/* An item: a token (text NULL) or text committed byte by byte. */
typedef struct item { int token; const char *text; } item;
#define T(id) {id, NULL}
#define S(s) {-1, s}
#define END {-2, NULL}

static const char *SIMPLE = "root ::= <[10]> content <[11]>\ncontent ::= (!<[11]>)*\n";
static const item SIMPLE_ACCEPT[][8] = {
    {T(10), S("hello world"), T(11), END},
    {T(10), S("text with "), T(12), S(" other tokens "), T(13), S(" mixed in"), T(11), END},
    {T(10), T(11), END},
    {T(10), T(12), T(13), T(14), T(15), T(11), END},
    {T(10), S("a"), T(11), END}};
static const item SIMPLE_REJECT[][8] = {
    {T(10), S("missing end token"), END}, {T(10), END}, {S("missing start token"), T(11), END},
    {T(10), T(11), T(11), END}, {T(11), S("wrong order"), T(10), END}};

static const char *COMPLEX = "root ::= reasoning+ content tool-call*\n"
                             "reasoning ::= <[10]> (!<[11]>)* <[11]>\n"
                             "content ::= <[20]> (!<[21]>)* <[21]>\n"
                             "tool-call ::= <[12]> name <[13]> args <[14]>\n"
                             "name ::= (!<[13]>)+\n"
                             "args ::= (!<[14]>)*\n";
static const item COMPLEX_ACCEPT[][24] = {
    {T(10), S("I am thinking"), T(11), T(20), S("hello world!"), T(21), T(12), S("search"), T(13),
     S("query=test"), T(14), END},
    {T(10), S("reasoning 1"), T(11), T(10), S("reasoning 2"), T(11), T(20), T(21), T(12), S("tool"), T(13),
     T(14), END},
    {T(10), T(11), T(20), S("content"), T(21), END},
    {T(10), S("think"), T(12), S(" nested"), T(11), T(20), T(10), S("more content"), T(21), T(12), S("fn"),
     T(13), S("x=1,y=2"), T(14), T(12), S("fn2"), T(13), T(14), END},
    {T(10), S("reasoning"), T(11), T(10), S("more"), T(11), T(10), S("even more"), T(11), T(20), S("text"),
     T(21), T(12), S("a"), T(13), S("b"), T(14), T(12), S("c"), T(13), S("d"), T(14), END}};
static const item COMPLEX_REJECT[][24] = {
    {T(20), S("content only"), T(21), END},
    {T(10), S("no closing reasoning"), END},
    {T(10), T(11), T(20), S("no closing content"), END},
    {T(10), T(11), T(20), T(21), T(12), S("incomplete tool"), END},
    {T(10), T(11), T(11), T(20), T(21), END}};

/* The last mask and the last commit did no more than the certificate says,
 * where it states a bound. */
static void within_certificate(const gcg_matcher *m, const gcg_artifact *art)
{
    gcg_certificate c;
    ck_assert_int_eq(gcg_artifact_certificate(art, &c), GCG_OK);
    gcg_mask_stats ms;
    gcg_matcher_last_mask_stats(m, &ms);
    gcg_commit_stats cs;
    gcg_matcher_last_commit_stats(m, &cs);
    ck_assert_uint_le(ms.set_ops, c.max_set_ops);
    if (c.bounded) {
        ck_assert_uint_le(ms.stack_reads, c.max_stack_reads);
        ck_assert_uint_le(ms.edges, c.max_edges);
    }
    if (c.commit_bounded)
        ck_assert_uint_le(cs.max_step_work, c.max_commit_step_work);
}

/* Commits the items (masks checked before every token, every commit and
 * mask held to the certificate); true iff all commit and the text is
 * complete. */
static bool run_items(const gcg_artifact *art, const item *it)
{
    gcg_matcher *m = NULL;
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    bool ok = true;
    for (; ok && it->token != -2; it++) {
        size_t n = it->text ? strlen(it->text) : 1;
        for (size_t i = 0; ok && i < n; i++) {
            check_masks(m, art, it->text ? it->text : "token");
            within_certificate(m, art);
            ok = gcg_matcher_commit(m, it->text ? BYTE(it->text[i]) : (uint32_t)it->token) == GCG_OK;
            within_certificate(m, art);
        }
    }
    ok = ok && gcg_matcher_is_complete(m);
    gcg_matcher_free(m);
    return ok;
}

START_TEST(llamacpp_cases)
{
    vocab_init();
    gcg_artifact *art = compile_refs(SIMPLE);
    for (size_t i = 0; i < sizeof SIMPLE_ACCEPT / sizeof *SIMPLE_ACCEPT; i++)
        ck_assert_msg(run_items(art, SIMPLE_ACCEPT[i]), "simple: accept #%zu", i);
    for (size_t i = 0; i < sizeof SIMPLE_REJECT / sizeof *SIMPLE_REJECT; i++)
        ck_assert_msg(!run_items(art, SIMPLE_REJECT[i]), "simple: reject #%zu", i);
    gcg_artifact_free(art);
    art = compile_refs(COMPLEX);
    for (size_t i = 0; i < sizeof COMPLEX_ACCEPT / sizeof *COMPLEX_ACCEPT; i++)
        ck_assert_msg(run_items(art, COMPLEX_ACCEPT[i]), "complex: accept #%zu", i);
    for (size_t i = 0; i < sizeof COMPLEX_REJECT / sizeof *COMPLEX_REJECT; i++)
        ck_assert_msg(!run_items(art, COMPLEX_REJECT[i]), "complex: reject #%zu", i);
    gcg_artifact_free(art);
}
END_TEST

/* ---- random walks ------------------------------------------------------ */

/* Grammars where a reference and the text can match one token: the commit
 * follows both paths (and `<think>` is an ordinary token by its text). */
static const char *const WALK_GRAMMARS[] = {
    "root ::= <[10]> content <[11]>\ncontent ::= (!<[11]>)*\n",
    "root ::= ( <think> | \"<think>\" \"!\" ) [a-c]* \"</think>\" ( <[12]> | \"x\" )?\n",
    "root ::= item+\nitem ::= \"ab\" \"c\"? | <[356]> \"d\" | !<[358]> \"e\" | </think>\n",
    "root ::= ( !<[10]> | \"ab\" )* <[10]>\n",
    "root ::= \"a\" ( <[20]> | <[21]> !<[20]> ) \"b\" | \"a\" <[21]> <[20]> \"c\"\n",
};

START_TEST(random_walks)
{
    vocab_init();
    unsigned seed = 12345;
    for (size_t g = 0; g < sizeof WALK_GRAMMARS / sizeof *WALK_GRAMMARS; g++) {
        gcg_artifact *art = compile_refs(WALK_GRAMMARS[g]);
        gcg_matcher *m = NULL;
        ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
        for (int walk = 0; walk < 12; walk++) {
            gcg_matcher_reset(m);
            for (int step = 0; step < 12; step++) {
                check_masks(m, art, WALK_GRAMMARS[g]);
                uint32_t w[MAX_WORDS], allowed[N_VOCAB], n = 0;
                ck_assert_int_eq(gcg_matcher_fill_mask(m, w, gcg_artifact_mask_words(art)), GCG_OK);
                for (uint32_t t = 0; t < N_VOCAB; t++)
                    if (w[t >> 5] >> (t & 31) & 1)
                        allowed[n++] = t;
                if (n == 0)
                    break;
                within_certificate(m, art);
                seed = seed * 1103515245u + 12345u;
                uint32_t t = allowed[(seed >> 8) % n];
                ck_assert_int_eq(gcg_matcher_commit(m, t), GCG_OK);
                within_certificate(m, art);
                if (gcg_matcher_is_terminated(m))
                    break;
            }
        }
        gcg_matcher_free(m);
        gcg_artifact_free(art);
    }
}
END_TEST

/* ---- certificates -------------------------------------------------------- */

/* A commit follows one path where no state acts on two things one token can
 * be (its text and a reference it matches, or two references it matches):
 * llama.cpp's grammars of references keep both bounds, and the commits of
 * their cases stay within them. Where a state reads a negation beside text,
 * or a reference to an ordinary token beside its text, a commit may follow
 * both and neither bound is stated. */
static void check_bounds(const char *src, uint32_t reads, uint32_t step_work)
{
    gcg_artifact *art = compile_refs(src);
    gcg_certificate c;
    ck_assert_int_eq(gcg_artifact_certificate(art, &c), GCG_OK);
    ck_assert_msg(c.bounded, "%s: unbounded (%s)", src, c.unbounded_rule);
    ck_assert_uint_eq(c.max_stack_reads, reads);
    ck_assert_msg(c.commit_bounded, "%s: commit unbounded (%s)", src, c.commit_unbounded_rule);
    ck_assert_uint_eq(c.max_commit_step_work, step_work);
    gcg_artifact_free(art);
}

static void check_unbounded(const char *src)
{
    gcg_artifact *art = compile_refs(src);
    gcg_certificate c;
    ck_assert_int_eq(gcg_artifact_certificate(art, &c), GCG_OK);
    ck_assert_msg(!c.bounded, "%s: bounded", src);
    ck_assert_uint_eq(c.unbounded_reason, GCG_UNBOUNDED_AMBIGUITY);
    ck_assert_str_eq(c.unbounded_rule, "token reference");
    ck_assert(!c.commit_bounded);
    ck_assert_str_eq(c.commit_unbounded_rule, "token reference");
    gcg_artifact_free(art);
}

/* The costliest commit step of the items: the closing reference of
 * SIMPLE's first case reduces the content list and the root, and meets the
 * bound (a reference's step counts as a byte's). */
static uint64_t costliest_step(const char *src, const item *it)
{
    gcg_artifact *art = compile_refs(src);
    gcg_matcher *m = NULL;
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    uint64_t most = 0;
    for (; it->token != -2; it++)
        for (size_t i = 0; i < (it->text ? strlen(it->text) : 1); i++) {
            ck_assert_int_eq(gcg_matcher_commit(m, it->text ? BYTE(it->text[i]) : (uint32_t)it->token), GCG_OK);
            gcg_commit_stats cs;
            gcg_matcher_last_commit_stats(m, &cs);
            most = cs.max_step_work > most ? cs.max_step_work : most;
        }
    gcg_matcher_free(m);
    gcg_artifact_free(art);
    return most;
}

START_TEST(certificates)
{
    vocab_init();
    check_bounds(SIMPLE, 1, 11);
    ck_assert_uint_eq(costliest_step(SIMPLE, SIMPLE_ACCEPT[0]), 11);
    check_bounds(COMPLEX, 4, 21);
    check_bounds("root ::= <[30]> !<[31]> <[31]>\n", 1, 7);
    check_unbounded(WALK_GRAMMARS[1]);
    check_unbounded(WALK_GRAMMARS[3]);
}
END_TEST

/* ---- semantics ---------------------------------------------------------- */

static uint32_t count_mask(const gcg_artifact *art, gcg_matcher *m, bool *has, uint32_t t)
{
    uint32_t w[MAX_WORDS], n = 0;
    ck_assert_int_eq(gcg_matcher_fill_mask(m, w, gcg_artifact_mask_words(art)), GCG_OK);
    for (uint32_t i = 0; i < 32 * gcg_artifact_mask_words(art); i++)
        n += w[i >> 5] >> (i & 31) & 1;
    *has = w[t >> 5] >> (t & 31) & 1;
    return n;
}

START_TEST(semantics)
{
    vocab_init();
    gcg_matcher *m = NULL;
    bool has;
    /* the byte standing for a reference, in a token's text, is not it */
    gcg_artifact *art = compile_refs("root ::= <[10]> <[11]>\n");
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    ck_assert_uint_eq(count_mask(art, m, &has, 10), 1);
    ck_assert(has);
    for (uint32_t b = 0xC0; b <= 0xFF; b++)
        ck_assert_int_eq(gcg_matcher_commit(m, BYTE(b)), GCG_ERR_REJECTED);
    ck_assert_int_eq(gcg_matcher_commit(m, 11), GCG_ERR_REJECTED);
    ck_assert_int_eq(gcg_matcher_commit(m, 10), GCG_OK);
    ck_assert_uint_eq(count_mask(art, m, &has, 11), 1);
    ck_assert(has);
    ck_assert_int_eq(gcg_matcher_commit(m, 11), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    /* rollback across a reference */
    ck_assert_int_eq(gcg_matcher_rollback(m, 2), GCG_OK);
    ck_assert(!gcg_matcher_is_complete(m));
    ck_assert_uint_eq(count_mask(art, m, &has, 10), 1);
    ck_assert(has);
    gcg_matcher_free(m);
    gcg_artifact_free(art);

    /* negation: every token but the one and EOS; EOS only when complete */
    art = compile_refs("root ::= !<[11]>\n");
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    ck_assert_uint_eq(count_mask(art, m, &has, 11), N_VOCAB - 2);
    ck_assert(!has);
    ck_assert_int_eq(gcg_matcher_commit(m, 99), GCG_ERR_REJECTED);
    ck_assert_int_eq(gcg_matcher_commit(m, 356), GCG_OK); /* "ab", whatever its bytes */
    ck_assert_uint_eq(count_mask(art, m, &has, 99), 1);
    ck_assert(has);
    gcg_matcher_free(m);
    gcg_artifact_free(art);

    /* <TEXT> names the one ordinary token with that text */
    art = compile_refs("root ::= <think> \"a\"\n");
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    ck_assert_uint_eq(count_mask(art, m, &has, 357), 1);
    ck_assert(has);
    ck_assert_int_eq(gcg_matcher_commit(m, BYTE('<')), GCG_ERR_REJECTED);
    ck_assert_int_eq(gcg_matcher_commit(m, 357), GCG_OK);
    gcg_matcher_free(m);
    gcg_artifact_free(art);

    /* text matching keeps byte semantics: a reference never matches text */
    art = compile_refs("root ::= <think>\n");
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"<think>", 7, NULL), GCG_ERR_REJECTED);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* Special tokens named as a tokenizer.json names them: <TEXT> finds them. */
START_TEST(special_names)
{
    vocab_init();
    gcg_vocab v;
    vocab_make(VOCAB, N_VOCAB, &v);
    const uint32_t ids[] = {10, 11, 12, 99};
    const char *const names[] = {"<|start|>", "<|end|>", "<think>", "<|eos|>"};
    ck_assert_int_eq(gcg_vocab_set_names(&v, ids, names, 4), GCG_OK);
    gcg_compile_options opt = {0};
    opt.vocab = &v;
    gcg_diag d;
    gcg_diag_init(&d, "t.gbnf");
    uint8_t *bytes = NULL;
    size_t size = 0;
    const char *src = "root ::= <|start|> !<|end|>* <|end|>\n";
    ck_assert_int_eq(gcg_compile(src, strlen(src), &opt, false, &bytes, &size, NULL, &d), GCG_OK);
    gcg_artifact *art = NULL;
    ck_assert_int_eq(gcg_artifact_open_memory(bytes, size, &art, NULL), GCG_OK);
    free(bytes);
    ck_assert(run_items(art, (const item[]){T(10), S("hi"), T(12), T(11), END}));
    ck_assert(!run_items(art, (const item[]){T(11), END}));
    gcg_artifact_free(art);
    gcg_diag_free(&d);
    /* "<think>" is now the name of 12 and the text of 357: two tokens */
    const char *const bad[] = {"root ::= <think>\n", "root ::= <|eos|>\n"};
    const char *const want[] = {"t.gbnf:1:10: error: token reference <think>: 2 tokens of the vocabulary have that text",
                                "t.gbnf:1:10: error: token reference to 99, an EOS token"};
    for (int i = 0; i < 2; i++) {
        gcg_diag_init(&d, "t.gbnf");
        ck_assert_int_eq(gcg_compile(bad[i], strlen(bad[i]), &opt, false, &bytes, &size, NULL, &d), GCG_ERR_FORMAT);
        char buf[2048];
        FILE *f = fmemopen(buf, sizeof buf, "w");
        gcg_diag_print(&d, f);
        fclose(f);
        ck_assert_msg(strstr(buf, want[i]), "%s", buf);
        gcg_diag_free(&d);
    }
    gcg_vocab_free(&v);
}
END_TEST

/* ---- errors ------------------------------------------------------------- */

static void check_error(const char *src, bool with_vocab, gcg_status want, const char *msg)
{
    gcg_diag d;
    gcg_status st;
    gcg_compile_options opt = {0};
    gcg_artifact *art = compile_with(src, opt, with_vocab ? VOCAB : NULL, with_vocab ? N_VOCAB : 0, &d, &st);
    ck_assert_ptr_null(art);
    ck_assert_int_eq(st, want);
    char buf[4096];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    gcg_diag_print(&d, f);
    fclose(f);
    ck_assert_msg(strstr(buf, msg), "%s: diagnostics lack \"%s\":\n%s", src, msg, buf);
    gcg_diag_free(&d);
}

START_TEST(errors)
{
    vocab_init();
    check_error("root ::= \"a\" <nothere>\n", true, GCG_ERR_FORMAT,
                "t.gbnf:1:14: error: token reference <nothere>: no token of the vocabulary has that text "
                "(this vocabulary names no special token: use <[ID]>)");
    check_error("root ::= <ab>\n", true, GCG_ERR_FORMAT, "t.gbnf:1:10: error: token reference <ab>: no");
    check_error("root ::= <[361]>\n", true, GCG_ERR_FORMAT,
                "t.gbnf:1:10: error: token reference <[361]>: the vocabulary has 361 tokens");
    check_error("root ::= \"a\" !<[99]>\n", true, GCG_ERR_FORMAT,
                "t.gbnf:1:14: error: token reference to 99, an EOS token");
    check_error("root ::= <[10]>\n", false, GCG_ERR_FORMAT,
                "t.gbnf:1:10: error: a token reference needs a tokenizer vocabulary");
    check_error("root ::= <[1]> <[2]> <[3]> <[4]> <[5]> <[6]> <[7]> <[8]> <[9]> <[10]> <[11]> <[12]> "
                "!<[12]>\n",
                true, GCG_ERR_LIMIT, "t.gbnf:1:85: error: more than 12 distinct token references");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("token_refs");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, llamacpp_cases);
    tcase_add_test(tc, random_walks);
    tcase_add_test(tc, certificates);
    tcase_add_test(tc, semantics);
    tcase_add_test(tc, special_names);
    tcase_add_test(tc, errors);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
