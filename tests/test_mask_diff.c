/*
 * test_mask_diff.c — the mask automaton against brute force, bit for bit.
 *
 * fill_mask reads the stack once with the compiled automaton; the brute
 * force tries every token's bytes against the stack along a token trie. They
 * share nothing but the LR tables, so every disagreement is a bug in one of
 * them. A third answer, the definition (commit each token, roll it back),
 * uses neither trie and catches what both tries could get wrong together.
 *
 * 1. Random grammars (tests/ref/randgram.h) x random vocabularies x random
 *    valid prefixes. Each vocabulary (20-300 tokens, ids shuffled) is made
 *    from the grammar's alphabet: single bytes, whole code points, runs of
 *    code points, substrings of derivations at arbitrary byte offsets (so a
 *    token spans several grammar constructs, or starts with a continuation
 *    byte, or ends inside a UTF-8 sequence), partial code points on purpose,
 *    duplicate texts under two ids, bytes no grammar accepts, special
 *    tokens and EOS tokens. A walk starts from the empty text, from
 *    commit_bytes of a derivation's prefix (cut at any byte) or from the
 *    valid part of a mutated string, then commits tokens drawn from the
 *    mask, comparing the three masks at every step, until EOS, an empty
 *    mask or the length limit; then it rolls back a random number of steps
 *    and the mask must be the one seen there. EOS bits must equal
 *    is_complete; after EOS the mask is empty. When the certificate is
 *    bounded no mask may read deeper than it says; unbounded grammars must
 *    agree all the same. Each compile runs in a child process under a time
 *    limit, so that a compile that runs away names its seed instead of
 *    stalling the run: every pair must compile within it (the most
 *    ambiguous grammars here take about two seconds optimized, seven under
 *    sanitizers at -O1).
 * 2. grammars/json.gbnf with a byte-level-BPE-like vocabulary of a few
 *    thousand tokens built here deterministically (all 256 bytes, frequent
 *    substrings of tests/data/json/, JSON punctuation runs such as "}]},\n",
 *    escapes, space runs, literal fragments, digits, whole and partial UTF-8
 *    sequences, duplicates, special and EOS tokens). Every document of
 *    tests/data/json/ is tokenized greedily (longest match) and the masks
 *    compared before every token: y_* must be accepted and complete, p_*
 *    accepted, n_* until the first token the matcher rejects, whose bit must
 *    be clear. Then random walks drawn from the mask.
 *
 * Knobs: GCG_MASKDIFF_SEED, GCG_MASKDIFF_GRAMMARS, GCG_MASKDIFF_VOCABS (per
 * grammar), GCG_MASKDIFF_WALKS (per vocabulary), GCG_MASKDIFF_MAXLEN (bytes
 * committed per walk), GCG_MASKDIFF_TOKEN_BYTES (longest random token),
 * GCG_MASKDIFF_COMPILE_MS (time limit of one compile; 0 = none, in this
 * process), GCG_MASKDIFF_JSON_WALKS, GCG_MASKDIFF_DUMP (file prefix: write
 * each random case's grammar, hex vocabulary and EOS ids before compiling).
 * A failure prints the seed, grammar, vocabulary, committed text and the
 * token that differs.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compile.h"
#include "gcg.h"
#include "randgram.h"
#include "vocab.h"
#include "test_files.h"

#define DEFAULT_SEED 1
#define DEFAULT_GRAMMARS 150
#define DEFAULT_VOCABS 2
#define DEFAULT_WALKS 4
#define DEFAULT_MAXLEN 32
#define DEFAULT_JSON_WALKS 40
#define DEFAULT_TOKEN_BYTES 8

/* A compile of these grammars and vocabularies takes milliseconds, the most
 * ambiguous ones about two seconds (seeds 30 and 45: forms of many stacks).
 * The limit is five times that, and a pair past it fails the run, naming
 * its seed. Sanitizers slow those compiles about threefold at -O1 (CI's
 * ASan build; 6.6 s at most) and eightfold unoptimized: their limit is
 * 30 s. */
#if defined(__SANITIZE_ADDRESS__)
#define DEFAULT_COMPILE_MS 30000
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DEFAULT_COMPILE_MS 30000
#endif
#endif
#ifndef DEFAULT_COMPILE_MS
#define DEFAULT_COMPILE_MS 10000
#endif
#define MAX_TEXT 512
#define MAX_STEPS 256

static unsigned long env_ulong(const char *name, unsigned long dflt)
{
    const char *s = getenv(name);
    return s && *s ? strtoul(s, NULL, 0) : dflt;
}

static uint32_t below(uint64_t *rng, uint32_t n)
{
    return n ? (uint32_t)(rg_rand(rng) % n) : 0;
}

static bool chance(uint64_t *rng, uint32_t percent)
{
    return below(rng, 100) < percent;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static bool bit(const uint32_t *w, uint32_t i)
{
    return (w[i >> 5] >> (i & 31)) & 1u;
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

/* ------------------------------------------------------------------ */
/* Vocabulary builder                                                   */
/* ------------------------------------------------------------------ */

enum { K_TEXT, K_SPECIAL, K_EOS };

/* Tokens collected in any order, laid out (optionally shuffled) by vb_finish. */
typedef struct vb {
    uint8_t *pool;
    uint32_t n_pool, cap_pool;
    uint32_t *off, *len;
    uint8_t *kind;
    uint32_t n, cap;
} vb;

static void vb_add(vb *b, const uint8_t *s, uint32_t len, uint8_t kind)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 256;
        b->off = realloc(b->off, b->cap * sizeof *b->off);
        b->len = realloc(b->len, b->cap * sizeof *b->len);
        b->kind = realloc(b->kind, b->cap);
        ck_assert(b->off && b->len && b->kind);
    }
    if (b->n_pool + len > b->cap_pool) {
        while (b->n_pool + len > b->cap_pool)
            b->cap_pool = b->cap_pool ? 2 * b->cap_pool : 4096;
        b->pool = realloc(b->pool, b->cap_pool);
        ck_assert_ptr_nonnull(b->pool);
    }
    if (len)
        memcpy(b->pool + b->n_pool, s, len);
    b->off[b->n] = b->n_pool, b->len[b->n] = len, b->kind[b->n] = kind;
    b->n_pool += len;
    b->n++;
}

static void vb_text(vb *b, const void *s, uint32_t len)
{
    ck_assert_uint_gt(len, 0);
    vb_add(b, s, len, K_TEXT);
}

static void vb_str(vb *b, const char *s)
{
    vb_text(b, s, (uint32_t)strlen(s));
}

static void vb_free(vb *b)
{
    free(b->pool), free(b->off), free(b->len), free(b->kind);
    memset(b, 0, sizeof *b);
}

/* Lays the tokens out as a gcg_vocab, in a random order when rng is given.
 * Frees the builder. */
static void vb_finish(vb *b, uint64_t *rng, gcg_vocab *v)
{
    uint32_t n = b->n, *perm = malloc((n + 1) * sizeof *perm), eos[16], n_eos = 0;
    ck_assert_ptr_nonnull(perm);
    for (uint32_t i = 0; i < n; i++)
        perm[i] = i;
    for (uint32_t i = n; rng && i > 1; i--) {
        uint32_t j = below(rng, i), t = perm[i - 1];
        perm[i - 1] = perm[j], perm[j] = t;
    }
    memset(v, 0, sizeof *v);
    v->n_tokens = n;
    v->offsets = malloc((n + 1) * sizeof *v->offsets);
    v->bytes = malloc(b->n_pool + 1);
    v->flags = malloc(n + 1);
    ck_assert(v->offsets && v->bytes && v->flags);
    uint32_t at = 0;
    for (uint32_t id = 0; id < n; id++) {
        uint32_t k = perm[id];
        v->offsets[id] = at;
        v->flags[id] = b->kind[k] == K_TEXT ? 0 : GCG_TOKEN_SPECIAL;
        if (b->kind[k] == K_TEXT) {
            memcpy(v->bytes + at, b->pool + b->off[k], b->len[k]);
            at += b->len[k];
        }
        if (b->kind[k] == K_EOS) {
            ck_assert_uint_lt(n_eos, 16);
            eos[n_eos++] = id;
        }
    }
    v->offsets[n] = at;
    free(perm);
    vb_free(b);
    ck_assert_int_eq(gcg_vocab_set_eos(v, eos, n_eos, NULL), GCG_OK);
}

static void print_vocab(FILE *f, const gcg_vocab *v)
{
    for (uint32_t i = 0; i < v->n_tokens; i++) {
        fprintf(f, "  %u: ", i);
        if (v->flags[i] & GCG_TOKEN_EOS)
            fputs("<eos>", f);
        else if (v->flags[i] & GCG_TOKEN_SPECIAL)
            fputs("<special>", f);
        else
            print_bytes(f, v->bytes + v->offsets[i], v->offsets[i + 1] - v->offsets[i]);
        fputc('\n', f);
    }
}

/* ------------------------------------------------------------------ */
/* Comparing masks                                                      */
/* ------------------------------------------------------------------ */

typedef struct counts {
    unsigned long grammars, compiled, refused, unbounded, vocabs, prefixes, masks, definition;
    double compile_max, compile_sum;
    unsigned long slow, empty, eos_allowed, rollbacks, tokens_committed, max_tokens_vocab;
    uint32_t max_reads, max_cert;
    unsigned long failed;
    unsigned long long first_fail;
} counts;

/* One matcher on one artifact, and what a failure message needs. */
typedef struct run {
    const gcg_artifact *art;
    const gcg_vocab *v;      /* for the failure report */
    const char *grammar;     /* for the failure report */
    unsigned long long seed;
    gcg_matcher *m;
    size_t words;
    uint32_t n_tokens;
    gcg_certificate cert;
    bool definition;         /* also check commit-and-roll-back per token */
    uint8_t text[4 * MAX_TEXT];
    size_t n_text;
    uint32_t *fast, *brute, *def;
    counts *c;
} run;

static void run_init(run *r, const gcg_artifact *art, counts *c)
{
    memset(r, 0, sizeof *r);
    r->art = art;
    r->c = c;
    r->words = gcg_artifact_mask_words(art);
    r->n_tokens = gcg_artifact_vocab_size(art);
    gcg_matcher_options opt;
    gcg_matcher_options_default(&opt);
    opt.max_rollback = 2 * MAX_STEPS; /* a walk never drops history */
    ck_assert_int_eq(gcg_matcher_new(art, &opt, &r->m, NULL), GCG_OK);
    ck_assert_int_eq(gcg_artifact_certificate(art, &r->cert), GCG_OK);
    r->fast = malloc((r->words + 1) * sizeof *r->fast);
    r->brute = malloc((r->words + 1) * sizeof *r->brute);
    r->def = malloc((r->words + 1) * sizeof *r->def);
    ck_assert(r->fast && r->brute && r->def);
}

static void run_free(run *r)
{
    gcg_matcher_free(r->m);
    free(r->fast), free(r->brute), free(r->def);
}

static void run_reset(run *r)
{
    gcg_matcher_reset(r->m);
    r->n_text = 0;
}

static void note_text(run *r, const uint8_t *s, size_t n)
{
    if (r->n_text + n <= sizeof r->text) {
        memcpy(r->text + r->n_text, s, n);
        r->n_text += n;
    }
}

static void report(run *r, const char *what, uint32_t token)
{
    fprintf(stderr, "MASK MISMATCH seed %llu: %s, token %u", r->seed, what, token);
    uint32_t len;
    const uint8_t *b = gcg_artifact_token_bytes(r->art, token, &len);
    if (b) {
        fputc(' ', stderr);
        print_bytes(stderr, b, len);
    }
    fprintf(stderr, ": automaton %d, brute force %d, commit %d\n", bit(r->fast, token),
            bit(r->brute, token), r->definition ? bit(r->def, token) : -1);
    fprintf(stderr, "--- committed text (%s) ", gcg_matcher_is_complete(r->m) ? "complete" : "incomplete");
    print_bytes(stderr, r->text, r->n_text);
    if (r->grammar)
        fprintf(stderr, "\n--- grammar\n%s", r->grammar);
    if (r->v && r->v->n_tokens <= 400) {
        fprintf(stderr, "--- vocabulary\n");
        print_vocab(stderr, r->v);
    }
    fprintf(stderr, "---\n");
}

/* The mask by definition: a token is allowed iff committing it succeeds. */
static void mask_by_commits(run *r)
{
    memset(r->def, 0, r->words * sizeof *r->def);
    uint32_t depth = gcg_matcher_rollback_depth(r->m);
    for (uint32_t t = 0; t < r->n_tokens; t++) {
        gcg_status st = gcg_matcher_commit(r->m, t);
        if (st == GCG_OK) {
            r->def[t >> 5] |= 1u << (t & 31);
            ck_assert_int_eq(gcg_matcher_rollback(r->m, 1), GCG_OK);
        } else {
            gcg_status want = gcg_matcher_is_terminated(r->m) ? GCG_ERR_TERMINATED : GCG_ERR_REJECTED;
            ck_assert_msg(st == want, "commit of token %u: %s", t, gcg_status_str(st));
        }
    }
    ck_assert_uint_eq(gcg_matcher_rollback_depth(r->m), depth);
    r->c->definition++;
}

/* Fills r->fast (and compares it with brute force and, if asked, the
 * definition). False after reporting the first difference. */
static bool check_masks(run *r, const char *where)
{
    r->fast[r->words] = r->brute[r->words] = 0x5A5A5A5Au;
    ck_assert_int_eq(gcg_matcher_fill_mask(r->m, r->fast, r->words), GCG_OK);
    gcg_mask_stats st;
    gcg_matcher_last_mask_stats(r->m, &st);
    ck_assert_int_eq(gcg_matcher_fill_mask_bruteforce(r->m, r->brute, r->words), GCG_OK);
    ck_assert_uint_eq(r->fast[r->words], 0x5A5A5A5Au);
    ck_assert_uint_eq(r->brute[r->words], 0x5A5A5A5Au);
    if (r->definition)
        mask_by_commits(r);
    r->c->masks++;
    char what[96];
    for (uint32_t t = 0; t < r->words * 32; t++) {
        bool f = bit(r->fast, t);
        if (f != bit(r->brute, t) || (r->definition && f != bit(r->def, t)) || (t >= r->n_tokens && f)) {
            snprintf(what, sizeof what, "%s", where);
            report(r, what, t);
            return false;
        }
    }
    /* EOS ids: set iff the text is complete (and never after EOS). */
    uint32_t n_eos;
    const uint32_t *eos = gcg_artifact_eos(r->art, &n_eos);
    bool want = gcg_matcher_is_complete(r->m) && !gcg_matcher_is_terminated(r->m);
    for (uint32_t i = 0; i < n_eos; i++)
        if (bit(r->fast, eos[i]) != want) {
            snprintf(what, sizeof what, "%s: EOS bit is not is_complete (%d)", where, want);
            report(r, what, eos[i]);
            return false;
        }
    if (r->cert.bounded && st.max_stack_reads > r->cert.max_stack_reads) {
        snprintf(what, sizeof what, "%s: read %u entries, certificate says at most %u", where,
                 st.max_stack_reads, r->cert.max_stack_reads);
        report(r, what, 0);
        return false;
    }
    if (st.max_stack_reads > r->c->max_reads)
        r->c->max_reads = st.max_stack_reads;
    bool empty = true;
    for (size_t i = 0; i < r->words; i++)
        empty &= r->fast[i] == 0;
    if (gcg_matcher_is_terminated(r->m) && !empty) {
        snprintf(what, sizeof what, "%s: mask not empty after EOS", where);
        report(r, what, 0);
        return false;
    }
    r->c->empty += empty;
    r->c->eos_allowed += want && n_eos;
    return true;
}

/* A random token from the current mask (r->fast): an EOS id now and then
 * when EOS is allowed, always when nothing else is; UINT32_MAX when the
 * mask is empty. */
static uint32_t draw_token(run *r, uint64_t *rng)
{
    static uint32_t pick[1u << 16];
    uint32_t n_pick = 0, n_eos, n_eos_on = 0, eos_on[16];
    const uint32_t *eos = gcg_artifact_eos(r->art, &n_eos);
    for (uint32_t t = 0; t < r->n_tokens && n_pick < (1u << 16); t++) {
        if (!bit(r->fast, t))
            continue;
        bool is_eos = false;
        for (uint32_t i = 0; i < n_eos; i++)
            is_eos |= eos[i] == t;
        if (is_eos && n_eos_on < 16)
            eos_on[n_eos_on++] = t;
        else if (!is_eos)
            pick[n_pick++] = t;
    }
    if (n_eos_on && (n_pick == 0 || chance(rng, 15)))
        return eos_on[below(rng, n_eos_on)];
    return n_pick ? pick[below(rng, n_pick)] : UINT32_MAX;
}

/* Commits tokens drawn from the mask, checking every mask, until EOS, an
 * empty mask, or maxlen bytes; then rolls back and checks a kept mask. */
static bool walk_tokens(run *r, uint64_t *rng, size_t maxlen)
{
    enum { KEEP = 33, KEEP_WORDS = 8 * 1024 };
    static uint32_t kept[KEEP][KEEP_WORDS]; /* the masks of the last steps, by step % KEEP */
    uint32_t steps = 0;
    bool keep = r->words <= KEEP_WORDS;
    char where[64];
    for (;;) {
        snprintf(where, sizeof where, "walk step %u", steps);
        if (!check_masks(r, where))
            return false;
        if (keep)
            memcpy(kept[steps % KEEP], r->fast, r->words * sizeof *r->fast);
        if (gcg_matcher_is_terminated(r->m))
            break;
        uint32_t t = draw_token(r, rng);
        if (t == UINT32_MAX || r->n_text >= maxlen || steps >= MAX_STEPS)
            break;
        ck_assert_msg(gcg_matcher_commit(r->m, t) == GCG_OK, "seed %llu: token %u from the mask rejected",
                      r->seed, t);
        uint32_t len;
        const uint8_t *b = gcg_artifact_token_bytes(r->art, t, &len);
        note_text(r, b ? b : (const uint8_t *)"", len);
        r->c->tokens_committed++;
        steps++;
    }
    /* Roll back 1..n of the walk's commits (as many as the history and the
     * kept masks allow): the mask must be the one seen at that step. */
    uint32_t most = gcg_matcher_rollback_depth(r->m);
    most = most < steps ? most : steps;
    most = most < KEEP - 1 ? most : KEEP - 1;
    if (keep && most > 0) {
        uint32_t back = 1 + below(rng, most);
        ck_assert_int_eq(gcg_matcher_rollback(r->m, back), GCG_OK);
        ck_assert_int_eq(gcg_matcher_fill_mask(r->m, r->fast, r->words), GCG_OK);
        if (memcmp(r->fast, kept[(steps - back) % KEEP], r->words * sizeof *r->fast) != 0) {
            snprintf(where, sizeof where, "after rolling back %u of %u commits", back, steps);
            report(r, where, 0);
            return false;
        }
        r->c->rollbacks++;
    }
    return true;
}

/* ------------------------------------------------------------------ */
/* Part 1: random grammars                                              */
/* ------------------------------------------------------------------ */

/* Code points the generator writes, and a few it never does. */
static const char *const units[] = {"a", "b", "c", "x", "\n", "é", "ê", "€", "😀",
                                    "d", "z", "ä", "✓", "\xF4\x8F\xBF\xBF"};
#define N_UNITS (sizeof units / sizeof *units)
#define N_OWN_UNITS 9
static const char *const multi[] = {"é", "ê", "€", "😀", "ä", "✓"};
#define N_MULTI (sizeof multi / sizeof *multi)
static const uint8_t alpha_bytes[] = {'a', 'b', 'c', 'x', '\n', 0xC3, 0xA9, 0xAA, 0xE2,
                                      0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80};
static const uint8_t junk[] = {0x00, 0xFF, 0xC0, 0xF5, 0xED, 0xA0, 0xBF, 'y', '"', 0x7F};

#define N_DERIV 8
#define DERIV_CAP 48

typedef struct derivs {
    uint8_t s[N_DERIV][DERIV_CAP];
    size_t n[N_DERIV];
    uint32_t count;
} derivs;

static const char *unit(uint64_t *rng, bool own_only)
{
    return units[below(rng, own_only || chance(rng, 80) ? N_OWN_UNITS : N_UNITS)];
}

/* One token of a random kind into tmp; returns its length (>= 1). */
static uint32_t random_token(uint64_t *rng, const derivs *d, const vb *b, uint8_t *tmp)
{
    uint32_t n = 0, r = below(rng, 100);
    if (r < 28 && d->count) { /* substring of a derivation, any byte offsets */
        uint32_t k = below(rng, d->count);
        size_t len = d->n[k];
        if (len > 0) {
            uint32_t a = below(rng, (uint32_t)len), l = 1 + below(rng, 8);
            if (a + l > len)
                l = (uint32_t)len - a;
            memcpy(tmp, d->s[k] + a, l);
            return l;
        }
    }
    if (r < 36 && d->count) { /* a derivation's prefix or suffix */
        uint32_t k = below(rng, d->count);
        uint32_t len = (uint32_t)d->n[k];
        if (len > 0) {
            uint32_t l = 1 + below(rng, len < 10 ? len : 10);
            memcpy(tmp, chance(rng, 50) ? d->s[k] : d->s[k] + len - l, l);
            return l;
        }
    }
    if (r < 56) { /* 2..4 code points */
        for (uint32_t i = 0, k = 2 + below(rng, 3); i < k; i++) {
            const char *u = unit(rng, false);
            memcpy(tmp + n, u, strlen(u)), n += (uint32_t)strlen(u);
        }
        return n;
    }
    if (r < 64) { /* one code point */
        const char *u = unit(rng, false);
        memcpy(tmp, u, strlen(u));
        return (uint32_t)strlen(u);
    }
    if (r < 74) { /* ends inside a code point */
        for (uint32_t i = 0, k = below(rng, 3); i < k; i++) {
            const char *u = unit(rng, true);
            memcpy(tmp + n, u, strlen(u)), n += (uint32_t)strlen(u);
        }
        const char *u = multi[below(rng, N_MULTI)];
        uint32_t l = 1 + below(rng, (uint32_t)strlen(u) - 1);
        memcpy(tmp + n, u, l);
        return n + l;
    }
    if (r < 84) { /* starts inside a code point */
        const char *u = multi[below(rng, N_MULTI)];
        uint32_t l = 1 + below(rng, (uint32_t)strlen(u) - 1), len = (uint32_t)strlen(u);
        memcpy(tmp, u + len - l, l), n = l;
        for (uint32_t i = 0, k = below(rng, 3); i < k; i++) {
            const char *v = unit(rng, true);
            memcpy(tmp + n, v, strlen(v)), n += (uint32_t)strlen(v);
        }
        return n;
    }
    if (r < 94 && b->n) { /* the text of an earlier token, under a new id */
        for (int tries = 0; tries < 8; tries++) {
            uint32_t k = below(rng, b->n);
            if (b->kind[k] == K_TEXT) {
                memcpy(tmp, b->pool + b->off[k], b->len[k]);
                return b->len[k];
            }
        }
    }
    for (uint32_t i = 0, k = 1 + below(rng, 3); i < k; i++) /* junk around the alphabet */
        tmp[n++] = chance(rng, 50) ? junk[below(rng, sizeof junk)] : alpha_bytes[below(rng, sizeof alpha_bytes)];
    return n;
}

/* A random vocabulary for grammar g: 20-300 tokens, ids shuffled. */
static void random_vocab(const rg_grammar *g, uint64_t *rng, uint32_t maxtok, gcg_vocab *v)
{
    derivs d = {0};
    for (int i = 0; i < N_DERIV; i++) {
        size_t n = rg_derive(g, rng, d.s[d.count], DERIV_CAP);
        if (n != SIZE_MAX)
            d.n[d.count++] = n;
    }
    vb b = {0};
    uint32_t target = 20 + below(rng, 281);
    uint32_t n_special = below(rng, 3), n_eos = chance(rng, 85) ? 1 + chance(rng, 15) : 0;
    /* Single bytes: usually most of the alphabet, sometimes a thin subset
     * (then walks meet empty masks). */
    uint32_t keep = chance(rng, 75) ? 90 : 35;
    for (size_t i = 0; i < sizeof alpha_bytes && b.n + n_special + n_eos < target; i++)
        if (chance(rng, keep))
            vb_text(&b, &alpha_bytes[i], 1);
    uint8_t tmp[DERIV_CAP + 64];
    while (b.n + n_special + n_eos < target) {
        uint32_t n = random_token(rng, &d, &b, tmp);
        vb_text(&b, tmp, n < maxtok ? n : maxtok);
    }
    for (uint32_t i = 0; i < n_special; i++)
        vb_add(&b, NULL, 0, K_SPECIAL);
    for (uint32_t i = 0; i < n_eos; i++)
        vb_add(&b, NULL, 0, K_EOS);
    vb_finish(&b, rng, v);
}

/* GCG_MASKDIFF_DUMP=PREFIX writes each random case's grammar and vocabulary
 * (gcgc's hex format, EOS ids listed in PREFIX.eos) before compiling, so a
 * case that fails or hangs can be replayed with gcgc and gcg. */
static void dump_case(const char *src, const gcg_vocab *v)
{
    const char *prefix = getenv("GCG_MASKDIFF_DUMP");
    if (!prefix || !*prefix)
        return;
    char path[512];
    snprintf(path, sizeof path, "%s.gbnf", prefix);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(src, f);
    fclose(f);
    snprintf(path, sizeof path, "%s.hex", prefix);
    f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    for (uint32_t i = 0; i < v->n_tokens; i++) {
        if (v->flags[i] & GCG_TOKEN_SPECIAL)
            fputc('-', f);
        for (uint32_t k = v->offsets[i]; k < v->offsets[i + 1]; k++)
            fprintf(f, "%02x", v->bytes[k]);
        fputc('\n', f);
    }
    fclose(f);
    snprintf(path, sizeof path, "%s.eos", prefix);
    f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    for (uint32_t i = 0; i < v->n_eos; i++)
        fprintf(f, "%s%u", i ? "," : "", v->eos[i]);
    fputc('\n', f);
    fclose(f);
}

static gcg_status compile(const char *src, const gcg_vocab *v, bool no_automaton, gcg_artifact **art,
                          char *msg, size_t cap)
{
    gcg_compile_options opt = {0};
    opt.vocab = v;
    opt.no_automaton = no_automaton;
    gcg_diag d;
    gcg_diag_init(&d, "grammar");
    uint8_t *bytes = NULL;
    size_t size = 0;
    gcg_status st = gcg_compile(src, strlen(src), &opt, false, &bytes, &size, NULL, &d);
    if (msg && cap)
        snprintf(msg, cap, "%s", gcg_status_str(st));
    for (uint32_t i = 0; st != GCG_OK && msg && i < d.n; i++)
        if (d.v[i].severity == GCG_SEV_ERROR) {
            snprintf(msg, cap, "%s", d.v[i].msg ? d.v[i].msg : "");
            break;
        }
    gcg_diag_free(&d);
    *art = NULL;
    if (st == GCG_OK) {
        gcg_error err;
        st = gcg_artifact_open_memory(bytes, size, art, &err);
        ck_assert_int_eq(st, GCG_OK);
    }
    free(bytes);
    return st;
}

/* Everything of fd, or false when the deadline passes first. */
static bool read_all(int fd, void *buf, size_t n, double deadline)
{
    uint8_t *p = buf;
    while (n) {
        double left = deadline - now();
        if (left <= 0)
            return false;
        struct pollfd pfd = {fd, POLLIN, 0};
        int r = poll(&pfd, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r == 0 ? false : (ck_assert_msg(0, "poll: %s", strerror(errno)), false);
        ssize_t got = read(fd, p, n);
        if (got < 0 && errno == EINTR)
            continue;
        ck_assert_msg(got > 0, "compiler child died");
        p += got, n -= (size_t)got;
    }
    return true;
}

static void write_all(int fd, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            _exit(3);
        p += w, n -= (size_t)w;
    }
}

/* compile() in a child process that gets `limit` seconds: a compile that
 * runs away (the symbolic simulation on an ambiguous grammar with long
 * tokens, if it regresses) must not stall the whole run. *slow is set when
 * the child was killed. limit <= 0 compiles in this process. */
static gcg_status compile_limited(const char *src, const gcg_vocab *v, double limit, gcg_artifact **art,
                                  char *msg, size_t cap, bool *slow)
{
    *slow = false;
    *art = NULL;
    if (limit <= 0)
        return compile(src, v, false, art, msg, cap);
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        gcg_compile_options opt = {0};
        opt.vocab = v;
        gcg_diag d;
        gcg_diag_init(&d, "grammar");
        uint8_t *bytes = NULL;
        size_t size = 0;
        int32_t st = gcg_compile(src, strlen(src), &opt, false, &bytes, &size, NULL, &d);
        char m[256];
        snprintf(m, sizeof m, "%s", gcg_status_str(st));
        for (uint32_t i = 0; st != GCG_OK && i < d.n; i++)
            if (d.v[i].severity == GCG_SEV_ERROR) {
                snprintf(m, sizeof m, "%s", d.v[i].msg ? d.v[i].msg : "");
                break;
            }
        uint64_t n = st == GCG_OK ? size : 0;
        write_all(fds[1], &st, sizeof st);
        write_all(fds[1], m, sizeof m);
        write_all(fds[1], &n, sizeof n);
        write_all(fds[1], bytes, n);
        _exit(0);
    }
    close(fds[1]);
    double deadline = now() + limit;
    int32_t st = 0;
    char m[256];
    uint64_t n = 0;
    uint8_t *bytes = NULL;
    bool done = read_all(fds[0], &st, sizeof st, deadline) && read_all(fds[0], m, sizeof m, deadline) &&
                read_all(fds[0], &n, sizeof n, deadline);
    if (done) {
        bytes = malloc(n + 1);
        ck_assert_ptr_nonnull(bytes);
        done = read_all(fds[0], bytes, n, deadline);
    }
    if (!done)
        kill(pid, SIGKILL);
    close(fds[0]);
    int wst;
    while (waitpid(pid, &wst, 0) < 0 && errno == EINTR)
        ;
    if (!done) {
        free(bytes);
        *slow = true;
        snprintf(msg, cap, "compile took more than %.1f s", limit);
        return GCG_ERR_LIMIT;
    }
    m[sizeof m - 1] = 0;
    snprintf(msg, cap, "%s", m);
    if (st == GCG_OK) {
        gcg_error err;
        ck_assert_int_eq(gcg_artifact_open_memory(bytes, n, art, &err), GCG_OK);
    }
    free(bytes);
    return (gcg_status)st;
}

/* The starting text of walk k: empty, a derivation's prefix, or the valid
 * part of a random (often mutated) string. False on a disagreement. */
static bool start_walk(run *r, const rg_grammar *g, uint64_t *rng, uint32_t k, size_t maxlen)
{
    uint8_t buf[MAX_TEXT];
    run_reset(r);
    if (k % 3 == 0)
        return true;
    if (k % 3 == 1) {
        size_t n = rg_derive(g, rng, buf, maxlen < MAX_TEXT ? maxlen : MAX_TEXT);
        if (n == SIZE_MAX)
            return true;
        n = below(rng, (uint32_t)n + 1);
        size_t consumed = 0;
        gcg_status st = gcg_matcher_commit_bytes(r->m, buf, n, &consumed);
        if (st != GCG_OK) {
            note_text(r, buf, n);
            report(r, "commit_bytes of a derivation's prefix rejected", 0);
            return false;
        }
        note_text(r, buf, n);
        return true;
    }
    size_t n = rg_string(g, rng, buf, maxlen < MAX_TEXT ? maxlen : MAX_TEXT), consumed = 0;
    if (gcg_matcher_commit_bytes(r->m, buf, n, &consumed) != GCG_OK) {
        ck_assert_uint_lt(consumed, n);
        ck_assert_int_eq(gcg_matcher_commit_bytes(r->m, buf, consumed, NULL), GCG_OK);
        n = consumed;
    }
    note_text(r, buf, n);
    return true;
}

/* One grammar x its vocabularies x walks. False on the first disagreement. */
static bool diff_grammar(uint64_t seed, unsigned long n_vocabs, unsigned long n_walks, size_t maxlen,
                         double limit, uint32_t maxtok, counts *c)
{
    rg_grammar *g = rg_generate(seed);
    ck_assert_ptr_nonnull(g);
    const char *text = rg_text(g);
    c->grammars++;
    bool ok = true, counted = false;
    for (unsigned long vi = 0; vi < n_vocabs && ok; vi++) {
        uint64_t rng = seed * 0x9E3779B97F4A7C15ull + vi * 0xD1B54A32D192ED03ull + 7;
        gcg_vocab v;
        random_vocab(g, &rng, maxtok, &v);
        gcg_artifact *art = NULL;
        char msg[256];
        dump_case(text, &v);
        bool slow;
        double t0 = now();
        gcg_status st = compile_limited(text, &v, limit, &art, msg, sizeof msg, &slow);
        double dt = now() - t0;
        if (!slow) {
            c->compile_sum += dt;
            c->compile_max = dt > c->compile_max ? dt : c->compile_max;
        }
        if (slow) {
            printf("seed %llu vocabulary %lu: %s (not compared; GCG_MASKDIFF_DUMP writes the case)\n",
                   (unsigned long long)seed, vi, msg);
            c->slow++;
            gcg_vocab_free(&v);
            continue;
        }
        if (st != GCG_OK) {
            /* Refused: fine if the grammar itself is refused (empty
             * language, repetition too big), a bug if only the mask
             * automaton is. */
            gcg_artifact *plain = NULL;
            if (compile(text, NULL, true, &plain, NULL, 0) == GCG_OK) {
                fprintf(stderr, "AUTOMATON REFUSED seed %llu vocabulary %lu: %s\n--- grammar\n%s",
                        (unsigned long long)seed, vi, msg, text);
                print_vocab(stderr, &v);
                ok = false;
            }
            gcg_artifact_free(plain);
            gcg_vocab_free(&v);
            c->refused += ok;
            break;
        }
        if (!counted) {
            c->compiled++;
            counted = true;
        }
        c->vocabs++;
        if (v.n_tokens > c->max_tokens_vocab)
            c->max_tokens_vocab = v.n_tokens;
        run r;
        run_init(&r, art, c);
        r.v = &v, r.grammar = text, r.seed = seed, r.definition = true;
        if (vi == 0 && !r.cert.bounded)
            c->unbounded++;
        if (r.cert.bounded && r.cert.max_stack_reads > c->max_cert)
            c->max_cert = r.cert.max_stack_reads;
        for (unsigned long k = 0; k < n_walks && ok; k++) {
            c->prefixes++;
            ok = start_walk(&r, g, &rng, (uint32_t)k, maxlen) && walk_tokens(&r, &rng, maxlen);
        }
        run_free(&r);
        gcg_artifact_free(art);
        gcg_vocab_free(&v);
    }
    rg_free(g);
    return ok;
}

START_TEST(test_random_grammars)
{
    unsigned long first = env_ulong("GCG_MASKDIFF_SEED", DEFAULT_SEED);
    unsigned long count = env_ulong("GCG_MASKDIFF_GRAMMARS", DEFAULT_GRAMMARS);
    unsigned long n_vocabs = env_ulong("GCG_MASKDIFF_VOCABS", DEFAULT_VOCABS);
    unsigned long n_walks = env_ulong("GCG_MASKDIFF_WALKS", DEFAULT_WALKS);
    size_t maxlen = env_ulong("GCG_MASKDIFF_MAXLEN", DEFAULT_MAXLEN);
    double limit = (double)env_ulong("GCG_MASKDIFF_COMPILE_MS", DEFAULT_COMPILE_MS) / 1000.0;
    uint32_t maxtok = (uint32_t)env_ulong("GCG_MASKDIFF_TOKEN_BYTES", DEFAULT_TOKEN_BYTES);
    if (maxtok < 1)
        maxtok = 1;
    if (maxlen > MAX_TEXT)
        maxlen = MAX_TEXT;
    counts c = {0};
    double t0 = now();
    for (unsigned long k = 0; k < count; k++)
        if (!diff_grammar(first + k, n_vocabs, n_walks, maxlen, limit, maxtok, &c) && c.failed++ == 0)
            c.first_fail = first + k;
    printf("mask differential: %lu grammars (seeds %lu..%lu), %lu compiled (%lu with an unbounded "
           "certificate), %lu refused; %lu grammar x vocabulary pairs over the compile time limit; %lu grammar x vocabulary pairs (up to %lu tokens), %lu "
           "grammar x vocabulary x prefix cases; %lu masks compared (automaton = brute force = "
           "commit per token), %lu empty, %lu with EOS allowed; %lu tokens committed, %lu "
           "rollbacks checked; deepest read %u, largest bounded certificate %u; compiles "
           "%.3f s on average, %.3f s at most (under the limit); %.1f s; %lu grammars disagree\n",
           c.grammars, first, first + count - 1, c.compiled, c.unbounded, c.refused, c.slow, c.vocabs,
           c.max_tokens_vocab, c.prefixes, c.masks, c.empty, c.eos_allowed, c.tokens_committed,
           c.rollbacks, c.max_reads, c.max_cert, c.compile_sum / (c.vocabs ? c.vocabs : 1),
           c.compile_max, now() - t0, c.failed);
    fflush(stdout);
    ck_assert_msg(c.failed == 0, "%lu of %lu grammars give different masks; first: seed %llu", c.failed,
                  c.grammars, c.first_fail);
    ck_assert_msg(c.slow == 0,
                  "%lu grammar x vocabulary pairs took more than %.1f s to compile (named above; "
                  "GCG_MASKDIFF_COMPILE_MS=0 waits for them)", c.slow, limit);
    /* The run must have met what it is meant to meet: most pairs compared
     * (a refused grammar has none), empty masks, EOS, unbounded
     * certificates, reads below the top. */
    ck_assert_uint_ge(c.vocabs * 2, count * n_vocabs);
    if (count >= 50) {
        ck_assert_uint_gt(c.empty, 0);
        ck_assert_uint_gt(c.eos_allowed, 0);
        ck_assert_uint_gt(c.unbounded, 0);
        ck_assert_uint_gt(c.max_reads, 1);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* Part 2: JSON with a BPE-like vocabulary                              */
/* ------------------------------------------------------------------ */

#define JSON_DIR GCG_SOURCE_ROOT "/tests/data/json"
#define MAX_DOCS 512
#define SUB_MAX 10         /* longest corpus substring made a token */
#define SUB_TOKENS 2400    /* how many corpus substrings become tokens */

typedef struct doc {
    char name[128];
    uint8_t *s;
    size_t n;
} doc;

static int cmp_doc(const void *a, const void *b)
{
    return strcmp(((const doc *)a)->name, ((const doc *)b)->name);
}

static uint32_t load_docs(doc *docs)
{
    DIR *d = opendir(JSON_DIR);
    ck_assert_ptr_nonnull(d);
    uint32_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0 || l >= sizeof docs->name)
            continue;
        ck_assert_uint_lt(n, MAX_DOCS);
        memcpy(docs[n].name, e->d_name, l + 1);
        char path[512];
        snprintf(path, sizeof path, "%s/%s", JSON_DIR, e->d_name);
        docs[n].s = (uint8_t *)test_read_file(path, &docs[n].n);
        n++;
    }
    closedir(d);
    qsort(docs, n, sizeof *docs, cmp_doc);
    return n;
}

/* A set of byte strings (open addressing), mapping text -> first id. */
typedef struct strset {
    const uint8_t **k;
    uint32_t *len, *val, cap, n;
} strset;

static uint64_t hash_bytes(const uint8_t *s, uint32_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 1099511628211ull;
    return h ^ n;
}

static uint32_t *strset_slot(strset *t, const uint8_t *s, uint32_t n, bool insert)
{
    if (insert && 2 * (t->n + 1) > t->cap) {
        strset old = *t;
        t->cap = old.cap ? 2 * old.cap : 4096;
        t->k = calloc(t->cap, sizeof *t->k);
        t->len = calloc(t->cap, sizeof *t->len);
        t->val = calloc(t->cap, sizeof *t->val);
        ck_assert(t->k && t->len && t->val);
        t->n = 0;
        for (uint32_t i = 0; i < old.cap; i++)
            if (old.k[i])
                *strset_slot(t, old.k[i], old.len[i], true) = old.val[i];
        free(old.k), free(old.len), free(old.val);
    }
    if (!t->cap)
        return NULL;
    uint32_t h = (uint32_t)hash_bytes(s, n) & (t->cap - 1);
    while (t->k[h] && !(t->len[h] == n && memcmp(t->k[h], s, n) == 0))
        h = (h + 1) & (t->cap - 1);
    if (t->k[h])
        return &t->val[h];
    if (!insert)
        return NULL;
    t->k[h] = s, t->len[h] = n, t->val[h] = 0;
    t->n++;
    return &t->val[h];
}

static void strset_free(strset *t)
{
    free(t->k), free(t->len), free(t->val);
    memset(t, 0, sizeof *t);
}

typedef struct sub_count {
    const uint8_t *s;
    uint32_t len, count;
} sub_count;

static int cmp_sub(const void *a, const void *b)
{
    const sub_count *x = a, *y = b;
    uint64_t wx = (uint64_t)x->count * (x->len - 1), wy = (uint64_t)y->count * (y->len - 1);
    if (wx != wy)
        return wx > wy ? -1 : 1;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return memcmp(x->s, y->s, x->len);
}

/* The corpus's substrings of 2..SUB_MAX bytes seen at least twice, most
 * weight (count x (len - 1)) first. */
static void corpus_substrings(const doc *docs, uint32_t n_docs, vb *b)
{
    strset t = {0};
    sub_count *subs = NULL;
    uint32_t n_subs = 0, cap = 0;
    for (uint32_t d = 0; d < n_docs; d++)
        for (size_t i = 0; i < docs[d].n; i++)
            for (uint32_t l = 2; l <= SUB_MAX && i + l <= docs[d].n; l++) {
                uint32_t *slot = strset_slot(&t, docs[d].s + i, l, true);
                if (*slot == 0) {
                    if (n_subs == cap) {
                        cap = cap ? 2 * cap : 4096;
                        subs = realloc(subs, cap * sizeof *subs);
                        ck_assert_ptr_nonnull(subs);
                    }
                    subs[n_subs] = (sub_count){docs[d].s + i, l, 0};
                    *slot = ++n_subs;
                }
                subs[*slot - 1].count++;
            }
    qsort(subs, n_subs, sizeof *subs, cmp_sub);
    /* Seen twice or more, any length; once, only short ones. */
    for (uint32_t i = 0, taken = 0; i < n_subs && taken < SUB_TOKENS; i++)
        if (subs[i].count >= 2 || subs[i].len <= 3) {
            vb_text(b, subs[i].s, subs[i].len);
            taken++;
        }
    free(subs);
    strset_free(&t);
}

/* Everything a JSON tokenizer would learn besides the corpus's substrings. */
static void json_punctuation(vb *b)
{
    static const char *const fixed[] = {
        "{\"", "[{\"", "[[", "[{", "{\n", "[\n", "{}", "[]", "\": \"", "\":\"", "\": ", "\":",
        "\": {", "\": [", "\", \"", "\",\"", "\",", "\",\n", "\"],", "\"]", "\"}", "\\u00", "\\u",
        "\\n", "\\\"", "\\\\", "\\/", "\\t", "\\b", "\\f", "\\r", "\\ud83d", "\\uD8", "\\uDC",
        "\r\n", ": ", ", ", ",\"", "true", "false", "null", "tr", "tru", "ue", "rue", "fa", "fal",
        "fals", "alse", "lse", "se", "nu", "nul", "ull", "ll", "000", "123", "1e", "e+", "e-",
        "E+", "E-", ".0", "0.", "-0", "-1", "1.", "e1", "E1", "0e", "00", "\"\"", "\"\\", "\\u0000",
    };
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        vb_str(b, fixed[i]);
    char s[64];
    for (int d = 10; d < 1000; d++) { /* all 2- and 3-digit numbers, as Llama-3 has */
        snprintf(s, sizeof s, "%d", d);
        vb_str(b, s);
    }
    for (int d = 0; d < 100; d++) {
        snprintf(s, sizeof s, "%02d", d);
        vb_str(b, s);
        snprintf(s, sizeof s, ".%d", d);
        vb_str(b, s);
    }
    /* Words as a tokenizer trained on JSON and prose would have them: bare,
     * after a space, capitalized, as a key. */
    static const char *const words[] = {
        "name", "value", "id", "type", "data", "key", "items", "list", "text", "title", "user",
        "count", "size", "index", "error", "status", "message", "result", "code", "time", "date",
        "url", "path", "file", "version", "description", "tags", "config", "enabled", "default",
        "label", "price", "total", "the", "and", "of", "to", "in", "is", "for", "with", "on",
        "that", "this", "string", "number", "object", "array", "bool", "int", "float", "abc",
        "foo", "bar", "baz", "test", "hello", "world", "x", "y", "z", "a", "b", "c"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        vb_str(b, words[i]);
        snprintf(s, sizeof s, " %s", words[i]);
        vb_str(b, s);
        snprintf(s, sizeof s, "%c%s", words[i][0] - 32, words[i] + 1);
        vb_str(b, s);
        snprintf(s, sizeof s, "\"%s\"", words[i]);
        vb_str(b, s);
        snprintf(s, sizeof s, "\"%s\": ", words[i]);
        vb_str(b, s);
        snprintf(s, sizeof s, "{\"%s\":", words[i]);
        vb_str(b, s);
    }
    /* Closing runs: a quote or not, 1-4 of } and ], then a separator. */
    static const char *const pre[] = {"", "\""}, *const post[] = {"", ",", ",\n", "\n", ", "};
    for (int len = 1; len <= 4; len++)
        for (int bits = 0; bits < (1 << len); bits++)
            for (int p = 0; p < 2; p++)
                for (int q = 0; q < 5; q++) {
                    int n = snprintf(s, sizeof s, "%s", pre[p]);
                    for (int i = 0; i < len; i++)
                        s[n++] = (bits >> i) & 1 ? ']' : '}';
                    snprintf(s + n, sizeof s - n, "%s", post[q]);
                    if (strlen(s) > 1)
                        vb_str(b, s);
                }
    /* Runs of spaces, indented newlines, tabs. */
    for (int n = 2; n <= 16; n++) {
        memset(s, ' ', n), s[n] = 0;
        vb_str(b, s);
    }
    static const int indents[] = {0, 2, 4, 6, 8, 12, 16};
    for (size_t i = 0; i < sizeof indents / sizeof *indents; i++) {
        s[0] = '\n';
        memset(s + 1, ' ', indents[i]), s[1 + indents[i]] = 0;
        if (indents[i])
            vb_str(b, s);
        s[0] = ','; s[1] = '\n';
        memset(s + 2, ' ', indents[i]), s[2 + indents[i]] = 0;
        vb_str(b, s);
    }
    vb_str(b, "\t\t"), vb_str(b, "\t\t\t"), vb_str(b, "\n\t");
    /* Whole code points, their proper prefixes (ending inside the
     * sequence) and suffixes (starting with a continuation byte), and
     * a quote glued to either end. */
    static const char *const cps[] = {"é", "ü", "€", "中", "😀", "\xEF\xBF\xBF", "\xF4\x8F\xBF\xBF",
                                      "\xE2\x80\xA8", "\xC2\x80", "\xED\x9F\xBF"};
    for (size_t i = 0; i < sizeof cps / sizeof *cps; i++) {
        uint32_t len = (uint32_t)strlen(cps[i]);
        vb_text(b, cps[i], len);
        for (uint32_t l = 2; l < len; l++)
            vb_text(b, cps[i], l);
        for (uint32_t l = 1; l < len; l++)
            vb_text(b, cps[i] + len - l, l);
        snprintf(s, sizeof s, "\"%c", cps[i][0]);
        vb_str(b, s);
        snprintf(s, sizeof s, "%s\"", cps[i]);
        vb_str(b, s);
        snprintf(s, sizeof s, "%s\",", cps[i] + 1);
        vb_str(b, s);
    }
    /* Bytes never valid in JSON text, glued to valid ones. */
    vb_text(b, "\xC0\x80", 2), vb_text(b, "\xED\xA0\x80", 3), vb_text(b, "\"\xFF", 2);
    vb_text(b, "a\x00", 2), vb_text(b, "\x01\"", 2);
}

/* The JSON vocabulary: texts de-duplicated, then a few deliberate
 * duplicates, special and EOS tokens; ids shuffled with a fixed seed. */
static void json_vocab(const doc *docs, uint32_t n_docs, gcg_vocab *v)
{
    vb all = {0}, b = {0};
    for (int i = 0; i < 256; i++) {
        uint8_t byte = (uint8_t)i;
        vb_text(&all, &byte, 1);
    }
    json_punctuation(&all);
    corpus_substrings(docs, n_docs, &all);
    strset seen = {0};
    for (uint32_t i = 0; i < all.n; i++) {
        uint32_t *slot = strset_slot(&seen, all.pool + all.off[i], all.len[i], true);
        if (*slot == 0) {
            *slot = 1;
            vb_text(&b, all.pool + all.off[i], all.len[i]);
        }
    }
    strset_free(&seen);
    uint64_t rng = 0x4A534F4E; /* fixed: the vocabulary is the same every run */
    for (int i = 0; i < 24; i++) {
        uint32_t k = below(&rng, b.n);
        vb_text(&b, b.pool + b.off[k], b.len[k]);
    }
    for (int i = 0; i < 5; i++)
        vb_add(&b, NULL, 0, K_SPECIAL);
    vb_add(&b, NULL, 0, K_EOS);
    vb_add(&b, NULL, 0, K_EOS);
    vb_free(&all);
    vb_finish(&b, &rng, v);
}

/* Longest-match tokenization: the id of the longest token that is a
 * prefix of s[0..n); duplicates alternate between their ids. */
typedef struct tokenizer {
    strset ids; /* text -> 1 + id */
    uint32_t *twin; /* id -> the other id with the same text, or itself */
    uint32_t max_len;
} tokenizer;

static void tokenizer_init(tokenizer *tk, const gcg_vocab *v)
{
    memset(tk, 0, sizeof *tk);
    tk->twin = malloc(v->n_tokens * sizeof *tk->twin);
    ck_assert_ptr_nonnull(tk->twin);
    for (uint32_t i = 0; i < v->n_tokens; i++) {
        tk->twin[i] = i;
        uint32_t len = v->offsets[i + 1] - v->offsets[i];
        if (v->flags[i] & GCG_TOKEN_SPECIAL)
            continue;
        uint32_t *slot = strset_slot(&tk->ids, v->bytes + v->offsets[i], len, true);
        if (*slot)
            tk->twin[*slot - 1] = i, tk->twin[i] = *slot - 1;
        else
            *slot = i + 1;
        tk->max_len = len > tk->max_len ? len : tk->max_len;
    }
}

static uint32_t tokenizer_next(tokenizer *tk, const uint8_t *s, size_t n, uint32_t step, uint32_t *len)
{
    for (uint32_t l = (uint32_t)(n < tk->max_len ? n : tk->max_len); l > 0; l--) {
        uint32_t *slot = strset_slot(&tk->ids, s, l, false);
        if (slot) {
            *len = l;
            return step % 2 ? tk->twin[*slot - 1] : *slot - 1;
        }
    }
    ck_assert_msg(0, "no token for byte 0x%02X", s[0]);
    return 0;
}

typedef struct json_counts {
    unsigned long docs_y, docs_p, docs_n, steps, n_rejected_at, n_accepted, walks;
} json_counts;

/* One document, token by token. Returns false on a disagreement. */
static bool json_doc(run *r, tokenizer *tk, const doc *d, json_counts *jc)
{
    char kind = d->name[0];
    run_reset(r);
    char where[192];
    size_t at = 0;
    for (uint32_t step = 0; at < d->n; step++) {
        snprintf(where, sizeof where, "%s at byte %zu", d->name, at);
        if (!check_masks(r, where))
            return false;
        uint32_t len, t = tokenizer_next(tk, d->s + at, d->n - at, step, &len);
        gcg_status st = gcg_matcher_commit(r->m, t);
        jc->steps++;
        if (st == GCG_ERR_REJECTED && bit(r->fast, t)) {
            report(r, "token in the mask rejected by commit", t);
            return false;
        }
        if (st == GCG_OK && !bit(r->fast, t)) {
            report(r, "token not in the mask accepted by commit", t);
            return false;
        }
        if (st != GCG_OK) {
            ck_assert_msg(kind == 'n', "%s: token %u at byte %zu rejected", d->name, t, at);
            ck_assert_int_eq(st, GCG_ERR_REJECTED);
            jc->n_rejected_at++;
            return true;
        }
        note_text(r, d->s + at, len);
        at += len;
    }
    snprintf(where, sizeof where, "%s at its end", d->name);
    if (!check_masks(r, where))
        return false;
    if (kind == 'y') {
        ck_assert_msg(gcg_matcher_is_complete(r->m), "%s: not complete", d->name);
        uint32_t n_eos;
        const uint32_t *eos = gcg_artifact_eos(r->art, &n_eos);
        ck_assert_int_eq(gcg_matcher_commit(r->m, eos[n_eos - 1]), GCG_OK);
        snprintf(where, sizeof where, "%s after EOS", d->name);
        if (!check_masks(r, where))
            return false;
        for (size_t i = 0; i < r->words; i++)
            ck_assert_uint_eq(r->fast[i], 0);
    }
    jc->n_accepted += kind == 'n';
    return true;
}

START_TEST(test_json_bpe)
{
    double t0 = now();
    doc *docs = calloc(MAX_DOCS, sizeof *docs);
    ck_assert_ptr_nonnull(docs);
    uint32_t n_docs = load_docs(docs);
    ck_assert_uint_gt(n_docs, 50);
    gcg_vocab v;
    json_vocab(docs, n_docs, &v);
    ck_assert_uint_gt(v.n_tokens, 2000);
    char *src = test_read_file(GCG_SOURCE_ROOT "/grammars/json.gbnf", NULL);
    gcg_artifact *art = NULL;
    char msg[256];
    ck_assert_msg(compile(src, &v, false, &art, msg, sizeof msg) == GCG_OK, "json.gbnf: %s", msg);
    double t_compile = now() - t0;
    counts c = {0};
    run r;
    run_init(&r, art, &c);
    r.v = &v, r.seed = 0;
    /* The definition check costs a commit per token: every fourth step. */
    ck_assert(r.cert.bounded);
    tokenizer tk;
    tokenizer_init(&tk, &v);
    json_counts jc = {0};
    bool ok = true;
    for (uint32_t i = 0; i < n_docs && ok; i++) {
        char kind = docs[i].name[0];
        if (kind != 'y' && kind != 'p' && kind != 'n')
            continue;
        jc.docs_y += kind == 'y', jc.docs_p += kind == 'p', jc.docs_n += kind == 'n';
        r.definition = i % 4 == 0;
        ok = json_doc(&r, &tk, &docs[i], &jc);
    }
    unsigned long doc_masks = c.masks;
    unsigned long n_walks = env_ulong("GCG_MASKDIFF_JSON_WALKS", DEFAULT_JSON_WALKS);
    uint64_t rng = 0x57414C4B;
    for (unsigned long k = 0; k < n_walks && ok; k++) {
        run_reset(&r);
        r.definition = k % 8 == 0;
        ok = walk_tokens(&r, &rng, 200);
        jc.walks++;
    }
    printf("mask differential, json.gbnf: %u tokens (%u EOS), %.2f s to compile; %lu y_, %lu p_, "
           "%lu n_ documents (%lu n_ rejected at a token outside the mask, %lu accepted as "
           "prefixes), %lu token steps, %lu masks; %lu random walks, %lu masks; %lu checked "
           "against commit per token; %lu empty; deepest read %u, certificate %u; %.1f s\n",
           v.n_tokens, v.n_eos, t_compile, jc.docs_y, jc.docs_p, jc.docs_n, jc.n_rejected_at,
           jc.n_accepted, jc.steps, doc_masks, jc.walks, c.masks - doc_masks, c.definition,
           c.empty, c.max_reads, r.cert.max_stack_reads, now() - t0);
    fflush(stdout);
    ck_assert_msg(ok, "json.gbnf: the masks disagree (see above)");
    ck_assert_uint_gt(jc.docs_y, 50);
    ck_assert_uint_gt(jc.n_rejected_at, 50);
    ck_assert_uint_gt(c.max_reads, 1);
    strset_free(&tk.ids);
    free(tk.twin);
    run_free(&r);
    gcg_artifact_free(art);
    gcg_vocab_free(&v);
    free(src);
    for (uint32_t i = 0; i < n_docs; i++)
        free(docs[i].s);
    free(docs);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mask_diff");
    TCase *tc = tcase_create("differential");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_random_grammars);
    tcase_add_test(tc, test_json_bpe);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
