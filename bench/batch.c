/*
 * batch.c — lock-step batch replay over a thread pool (see batch.h).
 */
#include "batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"

typedef struct lane {
    gcg_matcher *m;
    uint32_t *mask;
    size_t seq;     /* sequence being replayed, or SIZE_MAX when idle */
    uint32_t pos;   /* next token of that sequence                    */
    bool failed;    /* a commit failed in this step                   */
    gcg_status st;
} lane;

typedef struct batch_ctx {
    const gcg_artifact *art;
    const bench_seqset *seqs;
    lane *lanes;
    uint32_t n_lanes;
    size_t words;
    size_t next_seq;       /* next sequence not yet started   */
    const uint32_t *eos;
    uint32_t n_eos;
    bench_batch_result *r;
    bool count;            /* count failures (repeat 0)       */
} batch_ctx;

static void job_fill(void *arg, size_t i) {
    batch_ctx *c = arg;
    lane *l = &c->lanes[i];
    if (l->seq != SIZE_MAX) gcg_matcher_fill_mask(l->m, l->mask, c->words);
}

static void job_commit(void *arg, size_t i) {
    batch_ctx *c = arg;
    lane *l = &c->lanes[i];
    if (l->seq == SIZE_MAX) return;
    const bench_seq *q = &c->seqs->seq[l->seq];
    if (l->pos < q->n) {
        l->st = gcg_matcher_commit(l->m, bench_seqset_tokens(c->seqs, l->seq)[l->pos]);
    } else {
        l->st = !q->eos ? GCG_OK : c->n_eos ? gcg_matcher_commit(l->m, c->eos[0]) : gcg_matcher_commit_eos(l->m);
    }
    l->failed = l->st != GCG_OK;
    l->pos++;
}

/* Gives lane l its next sequence, or makes it idle. */
static void assign(batch_ctx *c, lane *l) {
    l->seq = c->next_seq < c->seqs->n_seq ? c->next_seq++ : SIZE_MAX;
    l->pos = 0;
    gcg_matcher_reset(l->m);
}

/* After a commit step: record failures, move finished lanes on. True while any lane works. */
static bool advance(batch_ctx *c) {
    bool any = false;
    for (uint32_t i = 0; i < c->n_lanes; i++) {
        lane *l = &c->lanes[i];
        if (l->seq == SIZE_MAX) continue;
        if (l->failed && c->count && c->r->failures++ == 0)
            snprintf(c->r->first_failure, sizeof c->r->first_failure, "sequence %zu, token %u: commit: %s", l->seq,
                     l->pos - 1, gcg_status_str(l->st));
        if (l->failed || l->pos > c->seqs->seq[l->seq].n) assign(c, l);
        l->failed = false;
        any |= l->seq != SIZE_MAX;
    }
    return any;
}

/* One pass over all sequences; pushes per-step times when fill/commit are not NULL. */
static void pass(batch_ctx *c, bench_pool *pool, bench_samples *fill, bench_samples *commit, size_t max_steps) {
    c->next_seq = 0;
    for (uint32_t i = 0; i < c->n_lanes; i++) assign(c, &c->lanes[i]);
    for (size_t step = 0; step < max_steps; step++) {
        uint64_t t0 = bench_now_ns();
        bench_pool_run(pool, job_fill, c, c->n_lanes);
        uint64_t t1 = bench_now_ns();
        bench_pool_run(pool, job_commit, c, c->n_lanes);
        uint64_t t2 = bench_now_ns();
        if (fill) bench_samples_push(fill, t1 - t0);
        if (commit) bench_samples_push(commit, t2 - t1);
        if (!advance(c)) break;
    }
}

static gcg_status make_lanes(batch_ctx *c) {
    c->lanes = calloc(c->n_lanes, sizeof *c->lanes);
    if (!c->lanes) return GCG_ERR_NOMEM;
    for (uint32_t i = 0; i < c->n_lanes; i++) {
        gcg_status st = gcg_matcher_new(c->art, NULL, &c->lanes[i].m, NULL);
        if (st != GCG_OK) return st;
        c->lanes[i].mask = calloc(c->words + 1, sizeof(uint32_t));
        if (!c->lanes[i].mask) return GCG_ERR_NOMEM;
    }
    return GCG_OK;
}

static void free_lanes(batch_ctx *c) {
    for (uint32_t i = 0; c->lanes && i < c->n_lanes; i++) {
        gcg_matcher_free(c->lanes[i].m);
        free(c->lanes[i].mask);
    }
    free(c->lanes);
}

gcg_status bench_batch_run(const gcg_artifact *art, const bench_seqset *seqs, const bench_batch_options *opt,
                           bench_batch_result *r) {
    memset(r, 0, sizeof *r);
    r->batch = opt->batch ? opt->batch : 1;
    r->threads = opt->threads ? opt->threads : 1;
    r->repeats = opt->repeats < 1 ? 1 : opt->repeats > BENCH_MAX_REPEATS ? BENCH_MAX_REPEATS : opt->repeats;
    batch_ctx c = {.art = art, .seqs = seqs, .n_lanes = r->batch, .words = gcg_artifact_mask_words(art), .r = r};
    c.eos = gcg_artifact_eos(art, &c.n_eos);
    bench_samples fill, commit;
    bench_samples_init(&fill);
    bench_samples_init(&commit);
    bench_pool *pool = bench_pool_new(r->threads, opt->cpus, opt->n_cpus);
    gcg_status st = pool ? make_lanes(&c) : GCG_ERR_NOMEM;
    if (st == GCG_OK) pass(&c, pool, NULL, NULL, opt->warmup_steps);
    for (uint32_t rep = 0; st == GCG_OK && rep < r->repeats; rep++) {
        bench_samples_clear(&fill);
        bench_samples_clear(&commit);
        c.count = rep == 0;
        pass(&c, pool, &fill, &commit, SIZE_MAX);
        if (!bench_summarize(&fill, &r->fill_rep[rep]) || !bench_summarize(&commit, &r->commit_rep[rep]))
            st = GCG_ERR_NOMEM;
        r->steps = fill.n;
    }
    if (st == GCG_OK) {
        bench_combine(r->fill_rep, r->repeats, &r->fill);
        bench_combine(r->commit_rep, r->repeats, &r->commit);
    }
    bench_pool_free(pool);
    free_lanes(&c);
    bench_samples_free(&fill);
    bench_samples_free(&commit);
    return st;
}
