/*
 * batch.c — lock-step batch replay over a thread pool (see batch.h).
 */
#define _GNU_SOURCE
#include "batch.h"

#include <sched.h>
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
    bool counted;   /* the sequence is in the pass's first round      */
    gcg_status st;
} lane;

typedef struct batch_ctx {
    bench_batch_mode mode;
    gcg_pool *api_pool;    /* BENCH_BATCH_API                  */
    gcg_matcher **act;     /* the working lanes' matchers, this step */
    uint32_t *act_tok;     /* their tokens                     */
    gcg_status *act_st;    /* their commit status              */
    uint32_t *rows;        /* the batch's mask rows             */
    uint32_t *act_lane;    /* lane of each working row         */
    uint32_t n_act;
    const gcg_artifact *art;
    const bench_seqset *seqs;
    lane *lanes;
    uint32_t n_lanes;
    size_t words;
    size_t next_seq;       /* sequences started in this pass  */
    size_t finished;       /* first-round sequences finished  */
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

/* The lane's next token: its sequence's, then EOS (UINT32_MAX: EOS
 * without an EOS id; UINT32_MAX - 1: nothing, the sequence has no EOS). */
static uint32_t next_token(const batch_ctx *c, const lane *l) {
    const bench_seq *q = &c->seqs->seq[l->seq];
    if (l->pos < q->n) return bench_seqset_tokens(c->seqs, l->seq)[l->pos];
    return !q->eos ? UINT32_MAX - 1 : c->n_eos ? c->eos[0] : UINT32_MAX;
}

static gcg_status commit_one(gcg_matcher *m, uint32_t tok) {
    return tok == UINT32_MAX - 1 ? GCG_OK : tok == UINT32_MAX ? gcg_matcher_commit_eos(m) : gcg_matcher_commit(m, tok);
}

static void job_commit(void *arg, size_t i) {
    batch_ctx *c = arg;
    lane *l = &c->lanes[i];
    if (l->seq == SIZE_MAX) return;
    l->st = commit_one(l->m, next_token(c, l));
    l->failed = l->st != GCG_OK;
    l->pos++;
}

/* The working lanes, gathered for the batch calls (outside the timed region). */
static void gather(batch_ctx *c) {
    c->n_act = 0;
    for (uint32_t i = 0; i < c->n_lanes; i++) {
        lane *l = &c->lanes[i];
        if (l->seq == SIZE_MAX) continue;
        c->act[c->n_act] = l->m;
        c->act_tok[c->n_act] = next_token(c, l);
        c->act_lane[c->n_act++] = i;
    }
}

/* After the batch commit: the lanes' status and positions. Rows without a
 * committable token (a sequence without EOS) were committed as EOS-less
 * no-ops by commit_one in the other modes; the API has no such row, so an
 * EOS-less end is counted as done here. */
static void scatter(batch_ctx *c) {
    for (uint32_t k = 0; k < c->n_act; k++) {
        lane *l = &c->lanes[c->act_lane[k]];
        l->st = c->act_tok[k] == UINT32_MAX - 1 ? GCG_OK : c->act_st[k];
        l->failed = l->st != GCG_OK;
        l->pos++;
    }
}

/* One step's masks, then one step's commits, in the chosen mode. */
static void run_fill(batch_ctx *c, bench_pool *pool) {
    if (c->mode == BENCH_BATCH_POOL) bench_pool_run(pool, job_fill, c, c->n_lanes);
    else if (c->mode == BENCH_BATCH_API) gcg_batch_fill_masks(c->api_pool, c->act, c->n_act, c->rows, c->words, NULL);
    else
        for (uint32_t k = 0; k < c->n_act; k++) gcg_matcher_fill_mask(c->act[k], c->rows + (size_t)k * c->words, c->words);
}

static void run_commit(batch_ctx *c, bench_pool *pool) {
    if (c->mode == BENCH_BATCH_POOL) bench_pool_run(pool, job_commit, c, c->n_lanes);
    else if (c->mode == BENCH_BATCH_API) gcg_batch_commit(c->api_pool, c->act, c->act_tok, c->n_act, c->act_st);
    else
        for (uint32_t k = 0; k < c->n_act; k++) c->act_st[k] = commit_one(c->act[k], c->act_tok[k]);
}

/* Gives lane l the next sequence. Past the last one the lanes start over
 * from the first, so that every step has B working lanes, as a batch that
 * is refilled as its sequences end; only the first n_seq count. */
static void assign(batch_ctx *c, lane *l) {
    size_t n = c->seqs->n_seq;
    l->counted = c->next_seq < n;
    l->seq = n ? c->next_seq++ % n : SIZE_MAX;
    l->pos = 0;
    gcg_matcher_reset(l->m);
}

/* After a commit step: record failures, move finished lanes on. True until
 * every sequence has been replayed once. */
static bool advance(batch_ctx *c) {
    for (uint32_t i = 0; i < c->n_lanes; i++) {
        lane *l = &c->lanes[i];
        if (l->seq == SIZE_MAX) continue;
        if (l->failed && c->count && c->r->failures++ == 0)
            snprintf(c->r->first_failure, sizeof c->r->first_failure, "sequence %zu, token %u: commit: %s", l->seq,
                     l->pos - 1, gcg_status_str(l->st));
        if (l->failed || l->pos > c->seqs->seq[l->seq].n) {
            c->finished += l->counted;
            assign(c, l);
        }
        l->failed = false;
    }
    return c->finished < c->seqs->n_seq;
}

/* One pass over all sequences; pushes per-step times when fill/commit are not NULL. */
static void pass(batch_ctx *c, bench_pool *pool, bench_samples *fill, bench_samples *commit, size_t max_steps) {
    c->next_seq = c->finished = 0;
    for (uint32_t i = 0; i < c->n_lanes; i++) assign(c, &c->lanes[i]);
    /* A pass times about as many masks as one replay of every sequence:
     * B lanes stay busy, so the longest sequence alone would otherwise
     * make a wide batch replay the corpus many times over. */
    size_t masks = c->seqs->n_tok + c->seqs->n_seq;
    size_t limit = (masks + c->n_lanes - 1) / c->n_lanes;
    if (limit < max_steps) max_steps = limit;
    for (size_t step = 0; step < max_steps; step++) {
        if (c->mode != BENCH_BATCH_POOL) gather(c);
        uint64_t t0 = bench_now_ns();
        run_fill(c, pool);
        uint64_t t1 = bench_now_ns();
        run_commit(c, pool);
        uint64_t t2 = bench_now_ns();
        if (c->mode != BENCH_BATCH_POOL) scatter(c);
        if (fill) bench_samples_push(fill, t1 - t0);
        if (commit) bench_samples_push(commit, t2 - t1);
        if (!advance(c)) break;
    }
}

static gcg_status make_lanes(batch_ctx *c) {
    c->lanes = calloc(c->n_lanes, sizeof *c->lanes);
    c->act = calloc(c->n_lanes, sizeof *c->act);
    c->act_tok = calloc(c->n_lanes, sizeof *c->act_tok);
    c->act_st = calloc(c->n_lanes, sizeof *c->act_st);
    c->act_lane = calloc(c->n_lanes, sizeof *c->act_lane);
    c->rows = calloc((size_t)c->n_lanes * c->words + 1, sizeof *c->rows);
    if (!c->lanes || !c->act || !c->act_tok || !c->act_st || !c->act_lane || !c->rows) return GCG_ERR_NOMEM;
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
    free(c->act);
    free(c->act_tok);
    free(c->act_st);
    free(c->act_lane);
    free(c->rows);
}

/* The library's pool, its workers on the CPUs other than the main thread's
 * (threads inherit their creator's affinity, and the main thread is pinned
 * to one CPU: workers created as it is would share that CPU). */
static gcg_status api_pool_new(uint32_t threads, const int *cpus, size_t n_cpus, gcg_pool **out) {
    cpu_set_t mine, others;
    bool moved = n_cpus > 1 && sched_getaffinity(0, sizeof mine, &mine) == 0;
    if (moved) {
        CPU_ZERO(&others);
        for (size_t i = 1; i < n_cpus; i++) CPU_SET(cpus[i], &others);
        moved = sched_setaffinity(0, sizeof others, &others) == 0;
    }
    gcg_status st = gcg_pool_new(threads, out);
    if (moved) sched_setaffinity(0, sizeof mine, &mine);
    return st;
}

/* Per batch step, the minimum over repeats (steps replay identically). */
static void keep_min(bench_samples *min, const bench_samples *s, bool first) {
    if (first) {
        min->n = 0;
        for (size_t i = 0; i < s->n; i++) bench_samples_push(min, s->v[i]);
        return;
    }
    for (size_t i = 0; i < s->n && i < min->n; i++)
        if (s->v[i] < min->v[i]) min->v[i] = s->v[i];
}

gcg_status bench_batch_run(const gcg_artifact *art, const bench_seqset *seqs, const bench_batch_options *opt,
                           bench_batch_result *r) {
    memset(r, 0, sizeof *r);
    r->batch = opt->batch ? opt->batch : 1;
    r->threads = opt->threads ? opt->threads : 1;
    r->repeats = opt->repeats < 1 ? 1 : opt->repeats > BENCH_MAX_REPEATS ? BENCH_MAX_REPEATS : opt->repeats;
    r->mode = opt->mode;
    batch_ctx c = {.mode = opt->mode, .art = art, .seqs = seqs, .n_lanes = r->batch,
                   .words = gcg_artifact_mask_words(art), .r = r};
    c.eos = gcg_artifact_eos(art, &c.n_eos);
    bench_samples fill, commit, fill_min, commit_min;
    bench_samples_init(&fill);
    bench_samples_init(&commit);
    bench_samples_init(&fill_min);
    bench_samples_init(&commit_min);
    bench_pool *pool = bench_pool_new(opt->mode == BENCH_BATCH_POOL ? r->threads : 1, opt->cpus, opt->n_cpus);
    gcg_status st = pool ? make_lanes(&c) : GCG_ERR_NOMEM;
    if (st == GCG_OK && opt->mode == BENCH_BATCH_API) st = api_pool_new(r->threads, opt->cpus, opt->n_cpus, &c.api_pool);
    if (opt->mode == BENCH_BATCH_SINGLE) r->threads = 1;
    if (st == GCG_OK) pass(&c, pool, NULL, NULL, opt->warmup_steps);
    for (uint32_t rep = 0; st == GCG_OK && rep < r->repeats; rep++) {
        bench_samples_clear(&fill);
        bench_samples_clear(&commit);
        c.count = rep == 0;
        pass(&c, pool, &fill, &commit, SIZE_MAX);
        if (!bench_summarize(&fill, &r->fill_rep[rep]) || !bench_summarize(&commit, &r->commit_rep[rep]))
            st = GCG_ERR_NOMEM;
        r->steps = fill.n;
        keep_min(&fill_min, &fill, rep == 0);
        keep_min(&commit_min, &commit, rep == 0);
    }
    if (st == GCG_OK) {
        bench_combine(r->fill_rep, r->repeats, &r->fill);
        bench_combine(r->commit_rep, r->repeats, &r->commit);
        if (!bench_summarize(&fill_min, &r->fill_min) || !bench_summarize(&commit_min, &r->commit_min))
            st = GCG_ERR_NOMEM;
    }
    bench_samples_free(&fill_min);
    bench_samples_free(&commit_min);
    gcg_pool_free(c.api_pool);
    bench_pool_free(pool);
    free_lanes(&c);
    bench_samples_free(&fill);
    bench_samples_free(&commit);
    return st;
}
