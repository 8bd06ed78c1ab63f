/*
 * tail.c — the slowest steps by per-step minimum and their common traits
 * (see tail.h).
 */
#include "tail.h"

#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Token bytes as a C-escaped string (EOS and special tokens by name). */
static void token_text(const gcg_artifact *art, uint32_t tok, char *out, size_t max) {
    uint32_t len = 0;
    const uint8_t *b = tok == UINT32_MAX ? NULL : gcg_artifact_token_bytes(art, tok, &len);
    if (!b) {
        snprintf(out, max, tok == UINT32_MAX ? "<none>" : "<special %u>", tok);
        return;
    }
    size_t o = 0;
    for (uint32_t i = 0; i < len && o + 5 < max; i++) {
        uint8_t c = b[i];
        if (c == '\n') o += (size_t)snprintf(out + o, max - o, "\\n");
        else if (c == '"' || c == '\\') o += (size_t)snprintf(out + o, max - o, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f) o += (size_t)snprintf(out + o, max - o, "\\x%02x", c);
        else out[o++] = (char)c;
    }
    out[o] = 0;
}

static uint64_t token_len(const gcg_artifact *art, uint32_t tok) {
    uint32_t len = 0;
    if (tok != UINT32_MAX) gcg_artifact_token_bytes(art, tok, &len);
    return len;
}

/* Uses of the least used set among the step's first ones. */
static uint64_t cold_uses(const bench_measure_result *m, const bench_step_info *i) {
    uint64_t least = UINT64_MAX;
    for (int k = 0; k < BENCH_STEP_SETS; k++)
        if (i->sets[k] < m->n_sets && m->set_uses[i->sets[k]] < least) least = m->set_uses[i->sets[k]];
    return least == UINT64_MAX ? 0 : least;
}

#define N_QUANTITIES 8

/* The value of quantity k of step info i. */
static uint64_t quantity(const gcg_artifact *art, const bench_measure_result *m, const bench_step_info *i, int k) {
    switch (k) {
    case 0: return i->frontier;
    case 1: return i->reads;
    case 2: return i->set_ops;
    case 3: return i->depth;
    case 4: return i->allowed;
    case 5: return token_len(art, i->token);
    case 6: return i->set_bytes;
    default: return cold_uses(m, i);
    }
}

/* p50 and max of every quantity over the steps idx[0..n) (NULL: all steps). */
static bool columns(const gcg_artifact *art, const bench_measure_result *m, const size_t *idx, size_t n,
                    bench_tail_cols *out) {
    uint64_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v) return false;
    bench_tail_col *cols[N_QUANTITIES] = {&out->frontier, &out->reads,     &out->set_ops,   &out->depth,
                                          &out->allowed,  &out->token_len, &out->set_bytes, &out->cold_uses};
    for (int k = 0; k < N_QUANTITIES; k++) {
        for (size_t i = 0; i < n; i++) v[i] = quantity(art, m, &m->info[idx ? idx[i] : i], k);
        qsort(v, n, sizeof *v, cmp_u64);
        cols[k]->p50 = bench_percentile_sorted(v, n, 0.5);
        cols[k]->max = n ? v[n - 1] : 0;
    }
    free(v);
    return true;
}

/* The tokens committed after the tail's steps, most frequent first (the
 * tail holds n / 1000 steps, so counting by pairs is cheap). */
static void top_tokens(const gcg_artifact *art, const bench_measure_result *m, const size_t *idx, size_t n,
                       bench_tail *t) {
    for (size_t i = 0; i < n; i++) {
        uint32_t tok = m->info[idx[i]].token, c = 0;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++) seen = m->info[idx[j]].token == tok;
        if (seen) continue;
        for (size_t j = i; j < n; j++) c += m->info[idx[j]].token == tok;
        uint32_t k = t->n_top;
        if (k == BENCH_TAIL_TOP) {
            if (t->top_count[k - 1] >= c) continue;
            k--;  /* replaces the least frequent */
        } else {
            t->n_top++;
        }
        for (; k > 0 && t->top_count[k - 1] < c; k--) {
            t->top_token[k] = t->top_token[k - 1];
            t->top_count[k] = t->top_count[k - 1];
        }
        t->top_token[k] = tok;
        t->top_count[k] = c;
    }
    for (uint32_t k = 0; k < t->n_top; k++) token_text(art, t->top_token[k], t->top_text[k], sizeof t->top_text[k]);
}

typedef struct ranked {
    uint64_t ns;
    size_t step;
} ranked;

static int cmp_ranked_desc(const void *a, const void *b) {
    const ranked *x = a, *y = b;
    if (x->ns != y->ns) return (x->ns < y->ns) - (x->ns > y->ns);
    return (x->step > y->step) - (x->step < y->step);
}

bool bench_tail_find(const gcg_artifact *art, const bench_measure_result *m, bool commits, bench_tail *t) {
    memset(t, 0, sizeof *t);
    const bench_samples *mins = commits ? &m->commit_min : &m->mask_min;
    size_t n = mins->n;
    if (!n || !m->info) return false;
    /* the slowest ceil(n / 1000) entries: those at or above p99.9 by rank */
    size_t k = (n + 999) / 1000;
    ranked *r = malloc(n * sizeof *r);
    size_t *idx = malloc(k * sizeof *idx);
    bool ok = r && idx;
    if (ok) {
        for (size_t i = 0; i < n; i++) r[i] = (ranked){mins->v[i], commits ? m->commit_step[i] : i};
        qsort(r, n, sizeof *r, cmp_ranked_desc);
        for (size_t i = 0; i < k; i++) idx[i] = r[i].step;
        t->n = k;
        t->threshold_ns = r[k - 1].ns;
        for (size_t i = 0; i < k && i < BENCH_TAIL_EXAMPLES; i++, t->n_examples++) {
            t->example[i] = m->info[idx[i]];
            t->example_ns[i] = r[i].ns;
            token_text(art, t->example[i].token, t->example_text[i], sizeof t->example_text[i]);
        }
        top_tokens(art, m, idx, k, t);
        ok = columns(art, m, idx, k, &t->slow) && columns(art, m, NULL, m->steps, &t->all);
    }
    free(r);
    free(idx);
    return ok;
}

static void col(FILE *out, const char *name, const bench_tail_col *s, const bench_tail_col *a) {
    fprintf(out, " %s %llu/%llu (all %llu/%llu)", name, (unsigned long long)s->p50, (unsigned long long)s->max,
            (unsigned long long)a->p50, (unsigned long long)a->max);
}

void bench_tail_print(FILE *out, const char *name, const char *what, const bench_tail *t) {
    if (!t->n) return;
    fprintf(out, "tail: %s: slowest 0.1%% of %s by per-step minimum: %zu, >= %.2f us; p50/max:", name, what, t->n,
            (double)t->threshold_ns / 1000.0);
    col(out, "frontier", &t->slow.frontier, &t->all.frontier);
    col(out, "reads", &t->slow.reads, &t->all.reads);
    col(out, "set_ops", &t->slow.set_ops, &t->all.set_ops);
    col(out, "depth", &t->slow.depth, &t->all.depth);
    col(out, "allowed", &t->slow.allowed, &t->all.allowed);
    col(out, "token_bytes", &t->slow.token_len, &t->all.token_len);
    col(out, "set_bytes", &t->slow.set_bytes, &t->all.set_bytes);
    col(out, "cold_set_uses", &t->slow.cold_uses, &t->all.cold_uses);
    fprintf(out, "\ntail: %s: %s: tokens committed next:", name, what);
    for (uint32_t k = 0; k < t->n_top; k++) fprintf(out, " \"%s\" x%u", t->top_text[k], t->top_count[k]);
    fprintf(out, "\ntail: %s: %s: slowest:", name, what);
    for (uint32_t i = 0; i < t->n_examples && i < 5; i++)
        fprintf(out, " [%.2f us seq %u pos %u \"%s\" front %u sets %u (%u B) depth %u]",
                (double)t->example_ns[i] / 1000.0, t->example[i].seq, t->example[i].pos, t->example_text[i],
                t->example[i].frontier, t->example[i].set_ops, t->example[i].set_bytes, t->example[i].depth);
    fputc('\n', out);
}
