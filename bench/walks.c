/*
 * walks.c — random and adversarial walks over the grammar (see walks.h).
 * Random numbers: SplitMix64 (Steele, Lea, Flood 2014), seeded per run.
 */
#include "walks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

typedef struct walker {
    const gcg_artifact *art;
    const bench_walk_options *opt;
    gcg_matcher *m;
    uint32_t *mask;        /* current mask                                 */
    size_t words;
    uint32_t *allowed;     /* ids set in mask, ascending                    */
    size_t n_allowed;
    uint64_t rng;          /* SplitMix64 state                             */
    char *err;
    size_t err_len;
} walker;

void bench_walk_options_default(bench_walk_kind kind, bench_walk_options *opt) {
    opt->kind = kind;
    opt->walks = 200;
    opt->max_len = 256;
    opt->sample = kind == BENCH_WALK_ADVERSARIAL ? 16 : 8;
    opt->p_stop = 0.1;
    opt->seed = 1;
}

static uint64_t rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n): n is far below 2^32, so the modulo bias is negligible. */
static size_t rng_below(uint64_t *s, size_t n) { return (size_t)(rng_next(s) % n); }

static double rng_unit(uint64_t *s) { return (double)(rng_next(s) >> 11) * 0x1.0p-53; }

static bool is_eos(const gcg_artifact *art, uint32_t id) {
    uint32_t n;
    const uint32_t *e = gcg_artifact_eos(art, &n);
    for (uint32_t i = 0; i < n; i++)
        if (e[i] == id) return true;
    return false;
}

static uint32_t token_len(const gcg_artifact *art, uint32_t id) {
    uint32_t len = 0;
    gcg_artifact_token_bytes(art, id, &len);
    return len;
}

/* Fills the mask and the list of allowed ids. */
static gcg_status refresh(walker *w) {
    gcg_status st = gcg_matcher_fill_mask(w->m, w->mask, w->words);
    if (st != GCG_OK) {
        snprintf(w->err, w->err_len, "fill_mask: %s", gcg_status_str(st));
        return st;
    }
    w->n_allowed = 0;
    for (size_t i = 0; i < w->words; i++)
        for (uint32_t b = w->mask[i]; b; b &= b - 1)
            w->allowed[w->n_allowed++] = (uint32_t)(i * 32 + (uint32_t)__builtin_ctz(b));
    return GCG_OK;
}

/* Fill time after committing `tok`, best of two; UINT64_MAX if tok is rejected. */
static uint64_t probe(walker *w, uint32_t tok, uint32_t *scratch) {
    if (gcg_matcher_commit(w->m, tok) != GCG_OK) return UINT64_MAX;
    uint64_t best = UINT64_MAX;
    for (int r = 0; r < 2; r++) {
        uint64_t t0 = bench_now_ns();
        gcg_matcher_fill_mask(w->m, scratch, w->words);
        uint64_t dt = bench_now_ns() - t0;
        if (dt < best) best = dt;
    }
    gcg_matcher_rollback(w->m, 1);
    return best;
}

/* The slowest of up to `sample` distinct non-EOS allowed tokens (partial
 * Fisher-Yates over the allowed list). UINT32_MAX when none. */
static uint32_t pick_adversarial(walker *w, uint32_t *scratch) {
    uint32_t best = UINT32_MAX;
    uint64_t worst = 0;
    size_t tried = 0;
    for (size_t i = 0; i < w->n_allowed && tried < w->opt->sample; i++) {
        size_t j = i + rng_below(&w->rng, w->n_allowed - i);
        uint32_t t = w->allowed[j];
        w->allowed[j] = w->allowed[i];
        w->allowed[i] = t;
        if (is_eos(w->art, t)) continue;
        tried++;
        uint64_t dt = probe(w, t, scratch);
        if (dt != UINT64_MAX && (best == UINT32_MAX || dt > worst)) {
            worst = dt;
            best = t;
        }
    }
    return best;
}

static uint32_t pick(walker *w, uint32_t *scratch) {
    switch (w->opt->kind) {
    case BENCH_WALK_UNIFORM:
        return w->allowed[rng_below(&w->rng, w->n_allowed)];
    case BENCH_WALK_LONG: {
        uint32_t best = w->allowed[rng_below(&w->rng, w->n_allowed)];
        for (uint32_t k = 1; k < w->opt->sample; k++) {
            uint32_t t = w->allowed[rng_below(&w->rng, w->n_allowed)];
            if (token_len(w->art, t) > token_len(w->art, best)) best = t;
        }
        return best;
    }
    case BENCH_WALK_ADVERSARIAL:
        return pick_adversarial(w, scratch);
    }
    return UINT32_MAX;
}

/* One walk appended to out as a new sequence. */
static gcg_status walk_one(walker *w, bench_seqset *out, uint32_t *scratch) {
    gcg_matcher_reset(w->m);
    if (!bench_seqset_begin(out)) return GCG_ERR_NOMEM;
    for (uint32_t step = 0; step < w->opt->max_len; step++) {
        gcg_status st = refresh(w);
        if (st != GCG_OK) return st;
        if (gcg_matcher_is_complete(w->m) && rng_unit(&w->rng) < w->opt->p_stop) {
            out->seq[out->n_seq - 1].eos = true;
            return GCG_OK;
        }
        if (w->n_allowed == 0) return GCG_OK;
        uint32_t t = pick(w, scratch);
        if (t == UINT32_MAX) return GCG_OK;
        if (is_eos(w->art, t)) {
            out->seq[out->n_seq - 1].eos = true;
            return GCG_OK;
        }
        st = gcg_matcher_commit(w->m, t);
        if (st != GCG_OK) {
            snprintf(w->err, w->err_len, "token %u is in the mask but commit says: %s", t, gcg_status_str(st));
            return st;
        }
        if (!bench_seqset_push(out, t)) return GCG_ERR_NOMEM;
    }
    return GCG_OK;
}

gcg_status bench_walks_generate(const gcg_artifact *art, const bench_walk_options *opt, bench_seqset *out,
                                char *err, size_t err_len) {
    walker w = {.art = art, .opt = opt, .words = gcg_artifact_mask_words(art), .rng = opt->seed,
                .err = err, .err_len = err_len};
    snprintf(err, err_len, "out of memory");
    gcg_status st = gcg_matcher_new(art, NULL, &w.m, NULL);
    if (st != GCG_OK) return st;
    w.mask = calloc(w.words + 1, sizeof *w.mask);
    uint32_t *scratch = calloc(w.words + 1, sizeof *scratch);
    w.allowed = malloc((w.words * 32 + 1) * sizeof *w.allowed);
    st = (w.mask && scratch && w.allowed) ? GCG_OK : GCG_ERR_NOMEM;
    for (uint32_t i = 0; st == GCG_OK && i < opt->walks; i++) st = walk_one(&w, out, scratch);
    if (st == GCG_OK) err[0] = 0;
    free(w.allowed);
    free(scratch);
    free(w.mask);
    gcg_matcher_free(w.m);
    return st;
}
