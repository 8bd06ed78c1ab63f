/*
 * measure.c — the timed replay loop (see measure.h for what is measured and
 * which disagreements count as failures).
 */
#include "measure.h"

#include "probe.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct run_ctx {
    const gcg_artifact *art;
    gcg_matcher *m;
    uint32_t *mask, *bf_mask;
    size_t words;
    const uint32_t *eos;
    uint32_t n_eos;
    gcg_certificate cert;
    bool timed, record;            /* push samples / record repeat-0 details  */
    uint32_t bf_stride;            /* current brute-force stride (0: off)      */
    size_t bf_next;                /* next step to compare with brute force    */
    uint64_t bf_budget_ns, bf_spent_ns;
    size_t total_steps;            /* steps per repeat                         */
    size_t step;                   /* steps so far in this repeat              */
    size_t commit;                 /* commits so far in this repeat            */
    bench_samples mask_ns, commit_ns;
    bench_samples allowed, bf_ns, bf_auto_ns;
    bench_measure_result *r;
} run_ctx;

size_t bench_failures_total(const bench_failures *f) {
    return f->rejected + f->not_in_mask + f->eos_refused + f->bf_mismatch + f->reads_over_cert + f->other;
}

/* Counts a failure in repeat 0 only: later repeats replay the same steps. */
static void fail(run_ctx *c, size_t *counter, const char *fmt, ...) {
    if (!c->record) return;
    (*counter)++;
    if (c->r->first_failure[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->r->first_failure, sizeof c->r->first_failure, fmt, ap);
    va_end(ap);
}

static bool bit(const uint32_t *mask, size_t words, uint32_t id) {
    return id / 32 < words && (mask[id / 32] >> (id % 32) & 1u);
}

static uint64_t popcount(const uint32_t *w, size_t n) {
    uint64_t c = 0;
    for (size_t i = 0; i < n; i++) c += (uint64_t)__builtin_popcount(w[i]);
    return c;
}

/* Brute force costs what it costs (up to ~0.1 s a mask inside a string): at
 * the mean time seen so far, total_steps/stride samples must fit the budget. */
static void widen_stride(run_ctx *c, uint64_t dt) {
    c->bf_spent_ns += dt;
    size_t n = c->bf_ns.n + 1;
    if (c->bf_budget_ns) {
        double mean = (double)c->bf_spent_ns / (double)n;
        double need = (double)c->total_steps * mean / (double)c->bf_budget_ns;
        if (need > c->bf_stride) c->bf_stride = need > UINT32_MAX ? UINT32_MAX : (uint32_t)need + 1;
    }
    c->bf_next = c->step + c->bf_stride;
}

/* Which token sets the mask OR-ed (replayed, untimed), and how often each
 * set is used over the whole repeat: a rarely used set is cold in cache. */
static void probe_sets(run_ctx *c, bench_step_info *info) {
    uint32_t ids[64];
    uint64_t bytes;
    uint32_t n = bench_probe_sets(c->m, ids, 64, &bytes);
    info->set_bytes = bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)bytes;
    for (uint32_t i = 0; i < BENCH_STEP_SETS; i++) info->sets[i] = i < n ? ids[i] : UINT32_MAX;
    for (uint32_t i = 0; i < n && i < 64; i++)
        if (ids[i] < c->r->n_sets) c->r->set_uses[ids[i]]++;
}

/* Repeat-0 bookkeeping after a fill that took auto_ns: counts, reads, brute force. */
static void record_step(run_ctx *c, size_t seq, uint32_t pos, uint64_t auto_ns) {
    bench_measure_result *r = c->r;
    uint64_t allowed = popcount(c->mask, c->words);
    bench_samples_push(&c->allowed, allowed);
    gcg_mask_stats ms;
    gcg_matcher_last_mask_stats(c->m, &ms);
    r->info[c->step] = (bench_step_info){.seq = (uint32_t)seq, .pos = pos, .token = UINT32_MAX,
                                         .frontier = ms.frontier_nodes, .reads = ms.max_stack_reads,
                                         .set_ops = ms.set_ops, .depth = bench_probe_stack_depth(c->m),
                                         .allowed = (uint32_t)allowed};
    probe_sets(c, &r->info[c->step]);
    if (ms.max_stack_reads > r->max_reads) r->max_reads = ms.max_stack_reads;
    if (ms.frontier_nodes > r->max_frontier) r->max_frontier = ms.frontier_nodes;
    if (ms.set_ops > r->max_set_ops) r->max_set_ops = ms.set_ops;
    /* The certificate bounds one whole mask: reads and edges in total when
     * bounded, set operations always. */
    if (c->cert.bounded && (ms.stack_reads > c->cert.max_stack_reads || ms.edges > c->cert.max_edges))
        fail(c, &r->fail.reads_over_cert, "sequence %zu, token %u: %u stack reads, %u edges, certificate bound %u, %u",
             seq, pos, ms.stack_reads, ms.edges, c->cert.max_stack_reads, c->cert.max_edges);
    if (ms.set_ops > c->cert.max_set_ops)
        fail(c, &r->fail.reads_over_cert, "sequence %zu, token %u: %u set operations, certificate bound %u", seq, pos,
             ms.set_ops, c->cert.max_set_ops);
    if (!c->bf_stride || c->step != c->bf_next) return;
    uint64_t t0 = bench_now_ns();
    gcg_status st = gcg_matcher_fill_mask_bruteforce(c->m, c->bf_mask, c->words);
    uint64_t dt = bench_now_ns() - t0;
    widen_stride(c, dt);
    if (st != GCG_OK) {
        fail(c, &r->fail.other, "sequence %zu, token %u: fill_mask_bruteforce: %s", seq, pos, gcg_status_str(st));
        return;
    }
    bench_samples_push(&c->bf_ns, dt);
    bench_samples_push(&c->bf_auto_ns, auto_ns);
    if (memcmp(c->bf_mask, c->mask, c->words * sizeof *c->mask))
        fail(c, &r->fail.bf_mismatch, "sequence %zu, token %u: automaton mask differs from brute force (%llu vs %llu "
             "tokens)", seq, pos, (unsigned long long)popcount(c->mask, c->words),
             (unsigned long long)popcount(c->bf_mask, c->words));
}

/* One timed fill; false when the runtime failed. */
static bool step_fill(run_ctx *c, size_t seq, uint32_t pos) {
    uint64_t t0 = bench_now_ns();
    gcg_status st = gcg_matcher_fill_mask(c->m, c->mask, c->words);
    uint64_t dt = bench_now_ns() - t0;
    if (st != GCG_OK) {
        fail(c, &c->r->fail.other, "sequence %zu, token %u: fill_mask: %s", seq, pos, gcg_status_str(st));
        return false;
    }
    if (c->timed) {
        bench_samples_push(&c->mask_ns, dt);
        if (dt < c->r->mask_min.v[c->step]) c->r->mask_min.v[c->step] = dt;
    }
    if (c->record) record_step(c, seq, pos, dt);
    c->step++;
    return true;
}

/* Records a commit's time (and in repeat 0 which step it followed). */
static void timed_commit(run_ctx *c, uint64_t dt, uint32_t tok) {
    if (!c->timed) return;
    bench_measure_result *r = c->r;
    bench_samples_push(&c->commit_ns, dt);
    if (dt < r->commit_min.v[c->commit]) r->commit_min.v[c->commit] = dt;
    if (c->record && c->step) {
        r->commit_step[c->commit] = (uint32_t)(c->step - 1);
        r->info[c->step - 1].token = tok;
    }
    c->commit++;
}

/* The commit just made against the certificate's commit bound (per step). */
static void check_commit(run_ctx *c, size_t seq, uint32_t pos) {
    gcg_commit_stats cs;
    gcg_matcher_last_commit_stats(c->m, &cs);
    if (c->cert.commit_bounded && cs.max_step_work > c->cert.max_commit_step_work)
        fail(c, &c->r->fail.reads_over_cert, "sequence %zu, token %u: a commit step of %llu work, certificate bound %u",
             seq, pos, (unsigned long long)cs.max_step_work, c->cert.max_commit_step_work);
}

static bool step_commit(run_ctx *c, size_t seq, uint32_t pos, uint32_t tok) {
    bool allowed = bit(c->mask, c->words, tok);
    uint64_t t0 = bench_now_ns();
    gcg_status st = gcg_matcher_commit(c->m, tok);
    uint64_t dt = bench_now_ns() - t0;
    if (st != GCG_OK) {
        fail(c, &c->r->fail.rejected, "sequence %zu, token %u (id %u): commit: %s%s", seq, pos, tok,
             gcg_status_str(st), allowed ? " although the mask allows it" : "");
        return false;
    }
    timed_commit(c, dt, tok);
    check_commit(c, seq, pos);
    if (!allowed)
        fail(c, &c->r->fail.not_in_mask, "sequence %zu, token %u (id %u): committed but not in the mask", seq, pos,
             tok);
    return true;
}

/* EOS after the last fill: allowed by the mask (or complete, without EOS ids) and committable. */
static void step_eos(run_ctx *c, size_t seq, uint32_t pos) {
    uint32_t id = c->n_eos ? c->eos[0] : UINT32_MAX;
    for (uint32_t i = 0; i < c->n_eos; i++)
        if (bit(c->mask, c->words, c->eos[i])) id = c->eos[i];
    bool allowed = c->n_eos ? bit(c->mask, c->words, id) : gcg_matcher_is_complete(c->m);
    uint64_t t0 = bench_now_ns();
    gcg_status st = c->n_eos ? gcg_matcher_commit(c->m, id) : gcg_matcher_commit_eos(c->m);
    uint64_t dt = bench_now_ns() - t0;
    if (st != GCG_OK || !allowed) {
        fail(c, &c->r->fail.eos_refused, "sequence %zu, after token %u: EOS %s", seq, pos,
             st != GCG_OK ? gcg_status_str(st) : "committed but not in the mask");
        return;
    }
    timed_commit(c, dt, id);
    check_commit(c, seq, pos);
}

static void replay(run_ctx *c, const bench_seqset *s, size_t i) {
    const bench_seq *q = &s->seq[i];
    const uint32_t *tok = bench_seqset_tokens(s, i);
    gcg_matcher_reset(c->m);
    for (uint32_t pos = 0;; pos++) {
        if (!step_fill(c, i, pos)) return;
        if (pos == q->n) break;
        if (!step_commit(c, i, pos, tok[pos])) return;
    }
    if (q->eos) step_eos(c, i, q->n);
    if (c->record) {
        size_t mem = gcg_matcher_memory(c->m);
        if (mem > c->r->memory_max) c->r->memory_max = mem;
    }
}

static void warm_up(run_ctx *c, const bench_seqset *s, uint32_t steps) {
    c->timed = c->record = false;
    c->step = 0;
    for (size_t i = 0; s->n_seq && c->step < steps; i = (i + 1) % s->n_seq) {
        size_t before = c->step;
        replay(c, s, i);
        if (c->step == before) break;  /* nothing replays: avoid spinning */
    }
}

static void summarize_bf(run_ctx *c) {
    bench_measure_result *r = c->r;
    bench_summary b, a;
    bench_summarize(&c->bf_ns, &b);
    bench_summarize(&c->bf_auto_ns, &a);
    r->bf_steps = b.n;
    r->bf_mean_ns = b.mean;
    r->bf_p50_ns = (double)b.p50;
    r->auto_mean_ns = a.mean;
    r->auto_p50_ns = (double)a.p50;
    r->bf_ratio = a.mean > 0 ? b.mean / a.mean : 0;
    r->bf_ratio_p50 = a.p50 > 0 ? (double)b.p50 / (double)a.p50 : 0;
}

static gcg_status run_repeats(run_ctx *c, const bench_seqset *s, const bench_measure_options *opt) {
    bench_measure_result *r = c->r;
    for (uint32_t rep = 0; rep < r->repeats; rep++) {
        bench_samples_clear(&c->mask_ns);
        bench_samples_clear(&c->commit_ns);
        c->timed = true;
        c->record = rep == 0;
        c->step = c->commit = 0;
        for (size_t i = 0; i < s->n_seq; i++) replay(c, s, i);
        if (!bench_summarize(&c->mask_ns, &r->mask_rep[rep]) || !bench_summarize(&c->commit_ns, &r->commit_rep[rep]))
            return GCG_ERR_NOMEM;
        if (rep == 0) {
            r->steps = c->mask_ns.n;
            r->commits = c->commit_ns.n;
            bench_summarize(&c->allowed, &r->allowed);
            summarize_bf(c);
            r->bf_stride = c->bf_stride;
            if (opt->keep_steps) {
                /* hand repeat 0's samples over; fresh ones are sized up front so that
                 * no later push reallocates between timed calls */
                r->mask0 = c->mask_ns;
                r->commit0 = c->commit_ns;
                bench_samples_init(&c->mask_ns);
                bench_samples_init(&c->commit_ns);
                if (!bench_samples_reserve(&c->mask_ns, r->mask0.n) ||
                    !bench_samples_reserve(&c->commit_ns, r->commit0.n))
                    return GCG_ERR_NOMEM;
            }
        }
    }
    bench_combine(r->mask_rep, r->repeats, &r->mask);
    bench_combine(r->commit_rep, r->repeats, &r->commit);
    r->mask_min.n = r->steps;
    r->commit_min.n = r->commits;
    if (!bench_summarize(&r->mask_min, &r->mask_min_sum) || !bench_summarize(&r->commit_min, &r->commit_min_sum))
        return GCG_ERR_NOMEM;
    return GCG_OK;
}

/* Per-step minima start at the largest value; info is filled in repeat 0. */
static bool alloc_minima(bench_measure_result *r, const gcg_artifact *art, size_t total) {
    r->n_sets = bench_probe_n_sets(art);
    if (!bench_samples_reserve(&r->mask_min, total) || !bench_samples_reserve(&r->commit_min, total)) return false;
    for (size_t i = 0; i < total; i++) r->mask_min.v[i] = r->commit_min.v[i] = UINT64_MAX;
    r->info = calloc(total, sizeof *r->info);
    r->commit_step = calloc(total, sizeof *r->commit_step);
    r->set_uses = calloc(r->n_sets + 1, sizeof *r->set_uses);
    return r->info && r->commit_step && r->set_uses;
}

gcg_status bench_measure_run(const gcg_artifact *art, const bench_seqset *seqs, const bench_measure_options *opt,
                             bench_measure_result *r) {
    memset(r, 0, sizeof *r);
    r->repeats = opt->repeats < 1 ? 1 : opt->repeats > BENCH_MAX_REPEATS ? BENCH_MAX_REPEATS : opt->repeats;
    run_ctx c = {.art = art, .words = gcg_artifact_mask_words(art), .bf_stride = opt->bf_every, .r = r,
                 .bf_budget_ns = (uint64_t)(opt->bf_budget_s * 1e9), .total_steps = seqs->n_tok + seqs->n_seq};
    c.eos = gcg_artifact_eos(art, &c.n_eos);
    if (gcg_artifact_certificate(art, &c.cert) != GCG_OK)
        c.cert.bounded = c.cert.commit_bounded = false, c.cert.max_set_ops = UINT32_MAX;
    gcg_status st = gcg_matcher_new(art, NULL, &c.m, NULL);
    if (st != GCG_OK) return st;
    c.mask = calloc(c.words + 1, sizeof *c.mask);
    c.bf_mask = calloc(c.words + 1, sizeof *c.bf_mask);
    size_t total = seqs->n_tok + 2 * seqs->n_seq;
    if (!alloc_minima(r, art, total) || !c.mask || !c.bf_mask || !bench_samples_reserve(&c.mask_ns, total) ||
        !bench_samples_reserve(&c.commit_ns, total) || !bench_samples_reserve(&c.allowed, total)) {
        st = GCG_ERR_NOMEM;
    } else {
        warm_up(&c, seqs, opt->warmup_steps);
        st = run_repeats(&c, seqs, opt);
    }
    bench_samples_free(&c.mask_ns);
    bench_samples_free(&c.commit_ns);
    bench_samples_free(&c.allowed);
    bench_samples_free(&c.bf_ns);
    bench_samples_free(&c.bf_auto_ns);
    free(c.mask);
    free(c.bf_mask);
    gcg_matcher_free(c.m);
    return st;
}

void bench_measure_free(bench_measure_result *r) {
    bench_samples_free(&r->mask0);
    bench_samples_free(&r->commit0);
    bench_samples_free(&r->mask_min);
    bench_samples_free(&r->commit_min);
    free(r->info);
    free(r->commit_step);
    free(r->set_uses);
    r->set_uses = NULL;
    r->info = NULL;
    r->commit_step = NULL;
}
