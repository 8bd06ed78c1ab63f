/*
 * test_tags.c — tagged regions (compiler/tags.c): free text around regions
 * opened by begin tags, compiled into one grammar.
 *
 *   - exact languages: every string of up to 6 bytes over an 8-letter
 *     alphabet is accepted iff an independent reference (naive scan for the
 *     earliest tag end, the longest tag on a tie, then a hand-written
 *     matcher of the region) accepts it — with two tags of which one is a
 *     suffix of the other ("<t>", "t>"), with and without eos_free_only;
 *   - masks equal brute force along every token path of a small vocabulary
 *     (tokens that straddle a tag, contain one whole, or split UTF-8);
 *   - free text is UTF-8: a lone continuation byte or 0xFF is refused;
 *   - errors: a begin tag that can never open, an empty begin tag, a bad
 *     rule name, an undefined rule; the generated names never collide.
 */
#include "tok_util.h"

static const char *GRAMMAR =
    "call ::= \"{\" \"a\"* \"}\"\n"
    "num ::= \"a\"+\n";

static const gcgc_tag TAGS[] = {{"<t>", "call", "</t>"}, {"t>", "num", ";"}};

/* ---- the reference ---------------------------------------------------- */

/* The earliest end e > pos of a tag starting at or after pos; the longest
 * tag there. Returns the tag index or -1. */
static int ref_next_tag(const char *s, size_t n, size_t pos, size_t *e)
{
    for (*e = pos + 1; *e <= n; (*e)++) {
        int best = -1;
        size_t best_len = 0;
        for (int i = 0; i < 2; i++) {
            size_t l = strlen(TAGS[i].begin);
            if (*e - pos >= l && memcmp(s + *e - l, TAGS[i].begin, l) == 0 && l > best_len)
                best = i, best_len = l;
        }
        if (best >= 0)
            return best;
    }
    return -1;
}

/* Valid UTF-8 (strict). */
static bool ref_utf8(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i], len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
                                              : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (!len || i + len > n || (len == 2 && c < 0xC2))
            return false;
        for (unsigned k = 1; k < len; k++)
            if ((s[i + k] & 0xC0) != 0x80)
                return false;
        i += len;
    }
    return true;
}

static bool ref_complete(const char *s, size_t n, bool eos_free_only)
{
    size_t pos = 0, e;
    for (;;) {
        int t = ref_next_tag(s, n, pos, &e);
        if (t < 0)
            return ref_utf8((const unsigned char *)s + pos, n - pos);
        if (!ref_utf8((const unsigned char *)s + pos, e - pos))
            return false;
        pos = e;
        if (t == 0) { /* "{" "a"* "}" then "</t>" */
            if (pos == n || s[pos++] != '{')
                return false;
            while (pos < n && s[pos] == 'a')
                pos++;
            if (pos == n || s[pos++] != '}')
                return false;
        } else { /* "a"+ then ";" */
            if (pos == n || s[pos] != 'a')
                return false;
            while (pos < n && s[pos] == 'a')
                pos++;
        }
        if (pos == n)
            return !eos_free_only;
        const char *end = TAGS[t].end;
        size_t l = strlen(end);
        if (n - pos < l || memcmp(s + pos, end, l) != 0)
            return false;
        pos += l;
    }
}

static gcg_compile_options tag_options(bool eos_free_only)
{
    gcg_compile_options o = {0};
    o.tags = TAGS, o.n_tags = 2, o.tags_eos_free_only = eos_free_only;
    return o;
}

/* Every string over ALPHA up to MAXLEN: the artifact agrees with the reference. */
static void check_language(bool eos_free_only)
{
    static const char ALPHA[] = "<t>/{}a;";
    enum { K = 8, MAXLEN = 6 };
    gcg_artifact *art = compile_ok(GRAMMAR, tag_options(eos_free_only), NULL, 0);
    gcg_matcher *m;
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    char s[MAXLEN];
    uint32_t accepted = 0, total = 0;
    for (int len = 0; len <= MAXLEN; len++) {
        long count = 1;
        for (int k = 0; k < len; k++)
            count *= K;
        for (long x = 0; x < count; x++) {
            long y = x;
            for (int k = 0; k < len; k++, y /= K)
                s[k] = ALPHA[y % K];
            gcg_matcher_reset(m);
            bool ok = gcg_matcher_commit_bytes(m, (const uint8_t *)s, (size_t)len, NULL) == GCG_OK &&
                      gcg_matcher_is_complete(m);
            bool want = ref_complete(s, (size_t)len, eos_free_only);
            ck_assert_msg(ok == want, "\"%.*s\": matcher %d, reference %d", len, s, ok, want);
            accepted += ok, total++;
        }
    }
    /* The reference itself: known members and non-members. */
    ck_assert(ref_complete("x<t>{a}</t>t>aa;", 16, true));
    ck_assert(!ref_complete("<t>aa;", 6, true)); /* "<t>" wins over "t>" */
    ck_assert(accepted > total / 4 && accepted < total);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}

START_TEST(language_exact) { check_language(false); }
END_TEST

START_TEST(language_exact_eos_free_only) { check_language(true); }
END_TEST

START_TEST(free_text_is_utf8)
{
    gcg_artifact *art = compile_ok(GRAMMAR, tag_options(true), NULL, 0);
    gcg_matcher *m;
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    size_t used;
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"h\xc3\xa9 \xe2\x82\xac", 7, &used), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"\xc3", 1, &used), GCG_OK);
    ck_assert(!gcg_matcher_is_complete(m)); /* inside a code point */
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"<", 1, &used), GCG_ERR_REJECTED);
    gcg_matcher_reset(m);
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"ab\xff", 3, &used), GCG_ERR_REJECTED);
    ck_assert_uint_eq(used, 2);
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"\x80", 1, &used), GCG_ERR_REJECTED);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* ---- masks against brute force ----------------------------------------- */

static const tok VOCAB[] = {
    TXT("<"), TXT("t"), TXT(">"), TXT("<t"), TXT("t>"), TXT("<t>"), TXT("</t>"), TXT("</"),
    TXT("{"), TXT("}"), TXT("a"), TXT("aa"), TXT(";"), TXT("/"), TXT("a<t>{"), TXT("}</"),
    TXT("x"), TXT("\xc3\xa9"), BIN("\xc3"), BIN("\xa9"), TXT("a;x"), TXT("}</t>x<"), SPECIAL, EOS,
};

/* Depth-first over every token path up to `depth`: at each node the
 * automaton's mask equals brute force's, and the mask is exactly the tokens
 * whose commit succeeds. Returns the number of nodes visited. */
static uint32_t walk_masks(const gcg_artifact *art, gcg_matcher *m, int depth)
{
    uint32_t a[MAX_WORDS], b[MAX_WORDS], n = gcg_artifact_vocab_size(art), visited = 1;
    ck_assert_int_eq(gcg_matcher_fill_mask(m, a, MAX_WORDS), GCG_OK);
    ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(m, b, MAX_WORDS), GCG_OK);
    ck_assert_mem_eq(a, b, gcg_artifact_mask_words(art) * sizeof *a);
    for (uint32_t t = 0; t < n; t++) {
        bool allowed = a[t / 32] >> (t % 32) & 1;
        gcg_status st = gcg_matcher_commit(m, t);
        ck_assert_msg((st == GCG_OK) == allowed, "token %u: mask %d, commit %s", t, allowed,
                      gcg_status_str(st));
        if (st != GCG_OK)
            continue;
        if (depth > 1 && !gcg_matcher_is_terminated(m))
            visited += walk_masks(art, m, depth - 1);
        ck_assert_int_eq(gcg_matcher_rollback(m, 1), GCG_OK);
    }
    return visited;
}

START_TEST(masks_equal_bruteforce)
{
    for (int efo = 0; efo < 2; efo++) {
        gcg_artifact *art = compile_ok(GRAMMAR, tag_options(efo), VOCAB, NTOK(VOCAB));
        gcg_matcher *m;
        ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
        ck_assert_uint_gt(walk_masks(art, m, 4), 1000);
        gcg_matcher_free(m);
        gcg_artifact_free(art);
    }
}
END_TEST

START_TEST(masks_exact)
{
    gcg_artifact *art = compile_ok(GRAMMAR, tag_options(true), VOCAB, NTOK(VOCAB));
    gcg_matcher *m;
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    uint32_t w[MAX_WORDS];
    /* After "<t" (free text): everything but "\xa9" (not UTF-8 there),
     * "}</t>x<" ("t>" opens region 1, which needs an "a"), the special token;
     * EOS is allowed (free text). ">" and "<t>" open region 0, "t>" and
     * "</t>" region 1 ("<tt>", "<t</t>": "t>" ends first). */
    ck_assert_int_eq(gcg_matcher_commit(m, 3), GCG_OK); /* "<t" */
    ck_assert_int_eq(gcg_matcher_fill_mask(m, w, MAX_WORDS), GCG_OK);
    ck_assert_uint_eq(w[0], 0x7FFFFu | 1u << 20 | 1u << 23);
    /* After "<t>": region 0, whose rule starts with "{". */
    ck_assert_int_eq(gcg_matcher_commit(m, 2), GCG_OK);
    ck_assert_int_eq(gcg_matcher_fill_mask(m, w, MAX_WORDS), GCG_OK);
    ck_assert_uint_eq(w[0], 1u << 8);
    /* After "<t>{a}": only the end tag's beginnings (eos_free_only). */
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"{a}", 3, NULL), GCG_OK);
    ck_assert_int_eq(gcg_matcher_fill_mask(m, w, MAX_WORDS), GCG_OK);
    ck_assert_uint_eq(w[0], 1u << 0 | 1u << 6 | 1u << 7);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* ---- errors ------------------------------------------------------------- */

static void expect_error(const gcgc_tag *tags, uint32_t n, const char *src, const char *msg)
{
    gcg_compile_options o = {0};
    o.tags = tags, o.n_tags = n;
    gcg_diag d;
    gcg_status st;
    gcg_artifact *art = compile_with(src, o, NULL, 0, &d, &st);
    ck_assert_ptr_null(art);
    ck_assert_int_eq(st, GCG_ERR_FORMAT);
    bool found = false;
    for (uint32_t i = 0; i < d.n; i++)
        found |= strstr(d.v[i].msg, msg) != NULL;
    ck_assert_msg(found, "no diagnostic containing \"%s\" (first: %s)", msg, d.n ? d.v[0].msg : "-");
    gcg_diag_free(&d);
}

START_TEST(errors)
{
    const gcgc_tag never[] = {{"abc", "num", ";"}, {"b", "num", ";"}};
    expect_error(never, 2, GRAMMAR, "tag 1 (\"abc\") can never open: begin tag \"b\" always ends inside it first");
    const gcgc_tag empty[] = {{"", "num", ";"}};
    expect_error(empty, 1, GRAMMAR, "the begin tag is empty");
    const gcgc_tag bad_rule[] = {{"<a>", "num ::= x", ";"}};
    expect_error(bad_rule, 1, GRAMMAR, "the rule must be a rule name");
    const gcgc_tag undefined[] = {{"<a>", "nope", ";"}};
    expect_error(undefined, 1, GRAMMAR, "nope");
    const gcgc_tag bad_utf8[] = {{"<\xff>", "num", ";"}};
    expect_error(bad_utf8, 1, GRAMMAR, "valid UTF-8");
}
END_TEST

START_TEST(names_never_collide)
{
    /* The grammar already uses the names the generator would pick first. */
    const char *src = "tags-root ::= \"z\"\ntags-s0 ::= tags-root\nnum ::= \"a\"+ tags-s0?\n";
    const gcgc_tag tags[] = {{"<n>", "num", "</n>"}};
    gcg_compile_options o = {0};
    o.tags = tags, o.n_tags = 1, o.tags_eos_free_only = true;
    gcg_artifact *art = compile_ok(src, o, NULL, 0);
    gcg_matcher *m;
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"hi <n>aaz</n> ok", 16, NULL), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("tags");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, language_exact);
    tcase_add_test(tc, language_exact_eos_free_only);
    tcase_add_test(tc, free_text_is_utf8);
    tcase_add_test(tc, masks_equal_bruteforce);
    tcase_add_test(tc, masks_exact);
    tcase_add_test(tc, errors);
    tcase_add_test(tc, names_never_collide);
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
