/* lazy.c — lazy grammars (gcg.h section 6): free text watched by trigger
 * DFAs (GCG_SEC_TRIGGERS), then a gcg_matcher from the trigger on.
 *
 * Free mode keeps the committed text (it is replayed into the grammar from
 * wherever the trigger says it starts) and one state per trigger's find
 * DFA, stepped once per byte. Finding the start is done once, at the
 * switch: the trigger's reversed-suffix DFA marks the positions s where the
 * grammar's part can begin (reading back from the match end), and the
 * prefix DFA, run forwards, picks the first of them it accepts at. Every
 * commit pushes a history entry (text length, DFA states, mode, and how many
 * matcher commits it made), so rollback across the switch is a pop plus one
 * gcg_matcher_rollback. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "matcher.h"
#include "trigger_section.h"

typedef struct lazy_hist {
    size_t n_text, grammar_start;
    uint32_t free_tokens;
    bool grammar, terminated;
    uint8_t matcher_commits;  /* 0 or 1: what gcg_matcher commits this made */
} lazy_hist;

struct gcg_lazy {
    const gcg_artifact *art;
    gcg_matcher *m;
    gcg_trigger_view tv;
    uint32_t *state;          /* per trigger: its find DFA's state          */
    uint32_t *saved;          /* per trigger: scratch for an atomic commit  */
    lazy_hist *hist;          /* oldest first                               */
    uint32_t *hist_states;    /* hist[k]'s states at [k * n_triggers]       */
    uint32_t n_hist, max_rollback;
    uint8_t *text, *marks;    /* free text; marks: one per position + 1     */
    size_t n_text, cap_text;
    bool grammar, terminated;
    size_t grammar_start;
    uint32_t free_tokens, budget;
};

/* ---- state ------------------------------------------------------------------ */

static void start_states(gcg_lazy *lz)
{
    for (uint32_t k = 0; k < lz->tv.n_triggers; k++)
        lz->state[k] = lz->tv.trig[k].find;
}

static gcg_status reserve_text(gcg_lazy *lz, size_t need)
{
    if (need <= lz->cap_text)
        return GCG_OK;
    size_t cap = lz->cap_text ? lz->cap_text : 4096;
    while (cap < need)
        cap *= 2;
    uint8_t *t = realloc(lz->text, cap);
    if (t)
        lz->text = t;
    uint8_t *m = t ? realloc(lz->marks, cap + 1) : NULL;
    if (!m)
        return GCG_ERR_NOMEM;
    lz->marks = m, lz->cap_text = cap;
    return GCG_OK;
}

/* Pushes the state before a commit (n_text and states as they were). */
static void push_hist(gcg_lazy *lz, size_t n_text, const uint32_t *states, uint8_t matcher_commits)
{
    uint32_t nt = lz->tv.n_triggers;
    if (lz->max_rollback == 0)
        return;
    if (lz->n_hist == lz->max_rollback) { /* drop the oldest */
        memmove(lz->hist, lz->hist + 1, (size_t)(lz->n_hist - 1) * sizeof *lz->hist);
        memmove(lz->hist_states, lz->hist_states + nt, (size_t)(lz->n_hist - 1) * nt * sizeof *lz->state);
        lz->n_hist--;
    }
    lz->hist[lz->n_hist] = (lazy_hist){n_text, lz->grammar_start, lz->free_tokens, lz->grammar,
                                       lz->terminated, matcher_commits};
    memcpy(lz->hist_states + (size_t)lz->n_hist * nt, states, nt * sizeof *states);
    lz->n_hist++;
}

/* ---- triggers ------------------------------------------------------------------ */

/* Where the grammar starts for trigger k whose match ends at e (see the
 * file comment and artifact_format.h). */
static size_t find_start(gcg_lazy *lz, uint32_t k, size_t e)
{
    const gcg_trigger_view *v = &lz->tv;
    const gcg_trigger_entry *t = &v->trig[k];
    uint32_t q = t->suffix;
    lz->marks[e] = v->accept[q];
    for (size_t s = e; s > 0; s--) {
        q = v->trans[(size_t)q * 256 + lz->text[s - 1]];
        lz->marks[s - 1] = v->accept[q];
    }
    q = t->prefix;
    for (size_t s = 0; s <= e; s++) {
        if (v->accept[q] && lz->marks[s])
            return s;
        if (s < e)
            q = v->trans[(size_t)q * 256 + lz->text[s]];
    }
    return e; /* unreachable for a well-formed section: the find DFA accepted */
}

/* Appends bytes to the free text, stepping every find DFA; returns where the
 * grammar starts (SIZE_MAX: no trigger fired). */
static size_t append_scan(gcg_lazy *lz, const uint8_t *b, size_t n)
{
    const gcg_trigger_view *v = &lz->tv;
    size_t fired = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        lz->text[lz->n_text++] = b[i];
        if (fired != SIZE_MAX)
            continue;
        for (uint32_t k = 0; k < v->n_triggers; k++) {
            uint32_t q = lz->state[k] = v->trans[(size_t)lz->state[k] * 256 + b[i]];
            if (v->accept[q]) {
                size_t s = find_start(lz, k, lz->n_text);
                fired = s < fired ? s : fired;
            }
        }
    }
    return fired;
}

static bool is_trigger_token(const gcg_lazy *lz, uint32_t token)
{
    for (uint32_t i = 0; i < lz->tv.n_tokens; i++)
        if (lz->tv.tokens[i] == token)
            return true;
    return false;
}

/* A commit in FREE or FORCING mode: append, scan, and switch when a trigger
 * fires (start = the grammar's start, SIZE_MAX: scan). Atomic. */
static gcg_status free_commit(gcg_lazy *lz, const uint8_t *b, size_t n, size_t start, bool token)
{
    size_t n_text = lz->n_text;
    gcg_status st = reserve_text(lz, n_text + n);
    if (st != GCG_OK)
        return st;
    memcpy(lz->saved, lz->state, lz->tv.n_triggers * sizeof *lz->state);
    size_t fired = append_scan(lz, b, n);
    if (start == SIZE_MAX)
        start = fired;
    uint8_t commits = 0;
    if (start != SIZE_MAX && start < lz->n_text) {
        st = gcg_matcher_commit_bytes(lz->m, lz->text + start, lz->n_text - start, NULL);
        commits = 1;
    }
    if (st != GCG_OK) {
        lz->n_text = n_text;
        memcpy(lz->state, lz->saved, lz->tv.n_triggers * sizeof *lz->state);
        return st;
    }
    push_hist(lz, n_text, lz->saved, commits);
    if (start != SIZE_MAX)
        lz->grammar = true, lz->grammar_start = start;
    else if (token)
        lz->free_tokens++;
    return GCG_OK;
}

/* ---- forcing ---------------------------------------------------------------------- */

/* The part of the forced text still to come: after the longest proper
 * prefix of it that the free text ends with. */
static const uint8_t *force_rest(const gcg_lazy *lz, size_t *len)
{
    const gcg_trigger_view *v = &lz->tv;
    size_t k = v->force_len ? v->force_len - 1 : 0;
    for (; k > 0; k--)
        if (k <= lz->n_text && memcmp(lz->text + lz->n_text - k, v->force, k) == 0)
            break;
    *len = v->force_len - k;
    return v->force + k;
}

/* Whether token's bytes continue the forced text (or it is the forced token). */
static bool force_allows(const gcg_lazy *lz, uint32_t token)
{
    const gcg_vocab_view *vv = &lz->art->v;
    if (lz->tv.n_tokens)
        return token == lz->tv.tokens[0];
    if (vv->flags[token] & 1)
        return false;
    size_t rest_len, len = vv->offsets[token + 1] - vv->offsets[token];
    const uint8_t *rest = force_rest(lz, &rest_len);
    return len > 0 && len <= rest_len && memcmp(vv->bytes + vv->offsets[token], rest, len) == 0;
}

/* The forcing mask along the token trie: the tokens on the path of the rest. */
static void force_mask(const gcg_lazy *lz, uint32_t *words)
{
    if (lz->tv.n_tokens) {
        words[lz->tv.tokens[0] >> 5] |= 1u << (lz->tv.tokens[0] & 31);
        return;
    }
    const gcg_trie_view *t = &lz->art->trie;
    size_t len;
    const uint8_t *rest = force_rest(lz, &len);
    uint32_t node = 0;
    for (size_t i = 0; i < len && t->n_nodes; i++) {
        uint32_t c = node + 1;
        while (c < t->end[node] && t->byte[c] != rest[i])
            c = t->end[c];
        if (c >= t->end[node])
            return;
        node = c;
        for (uint32_t k = t->tok_start[node]; k < t->tok_start[node + 1]; k++)
            words[t->tokens[k] >> 5] |= 1u << (t->tokens[k] & 31);
    }
}

/* ---- public API ------------------------------------------------------------------- */

bool gcg_artifact_is_lazy(const gcg_artifact *art)
{
    gcg_trigger_view v;
    if (!art)
        return false;
    gcg_trigger_section_view(art, &v);
    return v.n_triggers || v.n_tokens;
}

void gcg_lazy_options_default(gcg_lazy_options *opt)
{
    memset(opt, 0, sizeof *opt);
    gcg_matcher_options_default(&opt->matcher);
    opt->initial_text = 4096;
}

void gcg_lazy_free(gcg_lazy *lz)
{
    if (!lz)
        return;
    gcg_matcher_free(lz->m);
    free(lz->state), free(lz->saved), free(lz->hist), free(lz->hist_states);
    free(lz->text), free(lz->marks);
    free(lz);
}

static gcg_status lazy_check(const gcg_artifact *art, const gcg_lazy_options *o, gcg_error *err)
{
    if (!gcg_artifact_is_lazy(art))
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET, "lazy: the artifact has no triggers");
    if (art->v.n_tokens == 0)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET, "lazy: the artifact has no vocabulary");
    gcg_trigger_view v;
    gcg_trigger_section_view(art, &v);
    if (o->budget_tokens && v.n_tokens == 0 && v.force_len == 0)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET,
                             "lazy: a budget needs a trigger word or token to force");
    return GCG_OK;
}

gcg_status gcg_lazy_new(const gcg_artifact *art, const gcg_lazy_options *opt, gcg_lazy **out,
                        gcg_error *err)
{
    gcg_lazy_options o;
    gcg_lazy_options_default(&o);
    if (opt)
        o = *opt;
    if (out)
        *out = NULL;
    if (!art || !out)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET, "lazy: %s is NULL", art ? "out" : "artifact");
    gcg_status st = lazy_check(art, &o, err);
    if (st != GCG_OK)
        return st;
    gcg_lazy *lz = calloc(1, sizeof *lz);
    if (!lz)
        return gcg_error_set(err, GCG_ERR_NOMEM, GCG_NO_OFFSET, "lazy: out of memory");
    lz->art = art;
    gcg_trigger_section_view(art, &lz->tv);
    lz->max_rollback = o.matcher.max_rollback;
    lz->budget = o.budget_tokens;
    size_t nt = lz->tv.n_triggers ? lz->tv.n_triggers : 1;
    lz->state = malloc(nt * sizeof *lz->state);
    lz->saved = malloc(nt * sizeof *lz->saved);
    lz->hist = malloc(((size_t)lz->max_rollback + 1) * sizeof *lz->hist);
    lz->hist_states = malloc(((size_t)lz->max_rollback + 1) * nt * sizeof *lz->hist_states);
    if (!lz->state || !lz->saved || !lz->hist || !lz->hist_states ||
        reserve_text(lz, o.initial_text ? o.initial_text : 1) != GCG_OK) {
        gcg_lazy_free(lz);
        return gcg_error_set(err, GCG_ERR_NOMEM, GCG_NO_OFFSET, "lazy: out of memory");
    }
    if ((st = gcg_matcher_new(art, &o.matcher, &lz->m, err)) != GCG_OK) {
        gcg_lazy_free(lz);
        return st;
    }
    start_states(lz);
    *out = lz;
    return GCG_OK;
}

gcg_lazy_mode gcg_lazy_get_mode(const gcg_lazy *lz)
{
    if (lz->grammar)
        return GCG_LAZY_GRAMMAR;
    return lz->budget && lz->free_tokens >= lz->budget && !lz->terminated ? GCG_LAZY_FORCING
                                                                         : GCG_LAZY_FREE;
}

size_t gcg_lazy_grammar_start(const gcg_lazy *lz)
{
    return lz->grammar ? lz->grammar_start : SIZE_MAX;
}

gcg_status gcg_lazy_commit_eos(gcg_lazy *lz)
{
    if (!lz)
        return GCG_ERR_ARG;
    if (lz->grammar) {
        gcg_status st = gcg_matcher_commit_eos(lz->m);
        if (st == GCG_OK)
            push_hist(lz, lz->n_text, lz->state, 1);
        return st;
    }
    if (lz->terminated)
        return GCG_ERR_TERMINATED;
    if (gcg_lazy_get_mode(lz) == GCG_LAZY_FORCING)
        return GCG_ERR_REJECTED;
    push_hist(lz, lz->n_text, lz->state, 0);
    lz->terminated = true;
    return GCG_OK;
}

gcg_status gcg_lazy_commit_bytes(gcg_lazy *lz, const uint8_t *bytes, size_t n)
{
    if (!lz || (!bytes && n))
        return GCG_ERR_ARG;
    if (lz->grammar) {
        gcg_status st = gcg_matcher_commit_bytes(lz->m, bytes, n, NULL);
        if (st == GCG_OK)
            push_hist(lz, lz->n_text, lz->state, 1);
        return st;
    }
    if (lz->terminated)
        return GCG_ERR_TERMINATED;
    if (gcg_lazy_get_mode(lz) == GCG_LAZY_FORCING) {
        size_t len;
        const uint8_t *rest = force_rest(lz, &len);
        if (lz->tv.n_tokens || n == 0 || n > len || memcmp(bytes, rest, n) != 0)
            return GCG_ERR_REJECTED;
    }
    return free_commit(lz, bytes, n, SIZE_MAX, false);
}

gcg_status gcg_lazy_commit(gcg_lazy *lz, uint32_t token)
{
    if (!lz)
        return GCG_ERR_ARG;
    const gcg_vocab_view *v = &lz->art->v;
    if (token >= v->n_tokens)
        return GCG_ERR_TOKEN_RANGE;
    if (lz->grammar) {
        gcg_status st = gcg_matcher_commit(lz->m, token);
        if (st == GCG_OK)
            push_hist(lz, lz->n_text, lz->state, 1);
        return st;
    }
    if (lz->terminated)
        return GCG_ERR_TERMINATED;
    if (gcg_lazy_get_mode(lz) == GCG_LAZY_FORCING && !force_allows(lz, token))
        return GCG_ERR_REJECTED;
    bool trig = is_trigger_token(lz, token);
    if ((v->flags[token] & 2) && !trig)
        return gcg_lazy_commit_eos(lz);
    uint32_t off = v->offsets[token], len = v->offsets[token + 1] - off;
    return free_commit(lz, v->bytes + off, len, trig ? lz->n_text : SIZE_MAX, true);
}

gcg_status gcg_lazy_rollback(gcg_lazy *lz, uint32_t n)
{
    if (!lz)
        return GCG_ERR_ARG;
    if (n > lz->n_hist)
        return GCG_ERR_ROLLBACK;
    if (n == 0) /* nothing to undo; hist[n_hist] is not an entry */
        return GCG_OK;
    uint32_t mc = 0;
    for (uint32_t k = 0; k < n; k++)
        mc += lz->hist[lz->n_hist - 1 - k].matcher_commits;
    gcg_status st = gcg_matcher_rollback(lz->m, mc);
    if (st != GCG_OK)
        return st;
    lz->n_hist -= n;
    const lazy_hist *h = &lz->hist[lz->n_hist];
    lz->n_text = h->n_text, lz->grammar_start = h->grammar_start;
    lz->free_tokens = h->free_tokens, lz->grammar = h->grammar, lz->terminated = h->terminated;
    memcpy(lz->state, lz->hist_states + (size_t)lz->n_hist * lz->tv.n_triggers,
           lz->tv.n_triggers * sizeof *lz->state);
    return GCG_OK;
}

void gcg_lazy_reset(gcg_lazy *lz)
{
    gcg_matcher_reset(lz->m);
    lz->n_hist = 0, lz->n_text = 0, lz->free_tokens = 0;
    lz->grammar = lz->terminated = false;
    start_states(lz);
}

bool gcg_lazy_is_complete(const gcg_lazy *lz)
{
    if (lz->grammar)
        return gcg_matcher_is_complete(lz->m);
    return gcg_lazy_get_mode(lz) == GCG_LAZY_FREE && !lz->terminated;
}

bool gcg_lazy_is_terminated(const gcg_lazy *lz)
{
    return lz->grammar ? gcg_matcher_is_terminated(lz->m) : lz->terminated;
}

/* The mask outside GRAMMAR mode; `brute`: FORCING tries every token. */
static gcg_status free_mask(gcg_lazy *lz, uint32_t *words, size_t n_words, bool brute)
{
    uint32_t nt = lz->art->v.n_tokens;
    size_t need = ((size_t)nt + 31) / 32;
    if (!words || n_words < need)
        return GCG_ERR_ARG;
    memset(words, 0, need * sizeof *words);
    if (lz->terminated)
        return GCG_OK;
    if (gcg_lazy_get_mode(lz) == GCG_LAZY_FREE) {
        memset(words, 0xFF, need * sizeof *words);
        if (nt % 32)
            words[need - 1] = (1u << (nt % 32)) - 1;
    } else if (!brute) {
        force_mask(lz, words);
    } else {
        for (uint32_t t = 0; t < nt; t++)
            if (force_allows(lz, t))
                words[t >> 5] |= 1u << (t & 31);
    }
    return GCG_OK;
}

gcg_status gcg_lazy_fill_mask(gcg_lazy *lz, uint32_t *words, size_t n_words)
{
    if (!lz)
        return GCG_ERR_ARG;
    return lz->grammar ? gcg_matcher_fill_mask(lz->m, words, n_words)
                       : free_mask(lz, words, n_words, false);
}

gcg_status gcg_lazy_fill_mask_bruteforce(gcg_lazy *lz, uint32_t *words, size_t n_words)
{
    if (!lz)
        return GCG_ERR_ARG;
    return lz->grammar ? gcg_matcher_fill_mask_bruteforce(lz->m, words, n_words)
                       : free_mask(lz, words, n_words, true);
}
