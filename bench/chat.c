/*
 * chat.c — gcg_bench_chat: mask and commit latency on chat-style traces
 * (prose, a <think> block, a tool call with JSON arguments, prose) in the two
 * ways an engine can constrain only part of a generation:
 *   lazy      an artifact compiled with triggers (gcg_lazy): free text until
 *             "</think>" or "<tool_call>" fires, then the grammar;
 *   budget    the same with a reasoning budget: after --budget free tokens the
 *             mask forces "</think>" (the rest of the thought is skipped, the
 *             trace resumes at its "</think>");
 *   tagged    an artifact compiled with --tag '<tool_call>' RULE '</tool_call>'
 *             (one grammar over free text and regions, a plain gcg_matcher).
 * Every step is classified: free (free text, masks and commits), switch (the
 * commit that fires the trigger or completes the begin tag, and the mask right
 * after it), grammar (lazy: the grammar's prose after the switch), region (the
 * tool call's body and end tag), forcing (budget: the forced closing tag).
 * Checks: every trace token is in its mask, EOS at the end, and every K-th
 * mask of the first repeat equals the brute-force mask bit for bit.
 *
 * Exit status: 0 all checks passed; 1 a check failed; 2 usage; 3 setup.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chat_traces.h"
#include "gcg.h"
#include "stats.h"

enum { C_FREE, C_SWITCH, C_GRAMMAR, C_REGION, C_FORCING, N_CLASSES };
static const char *const CLASS_NAMES[N_CLASSES] = {"free", "switch", "grammar", "region", "forcing"};
#define MAX_REPEATS 16

typedef struct run {
    const char *name;
    const gcg_artifact *art;
    bool lazy;
    uint32_t budget;
    gcg_lazy *lz;
    gcg_matcher *m;
    uint32_t *mask, *bf;
    size_t words;
    uint32_t bf_every, checked, failures;
    size_t step;
    bool record;  /* first repeat: checks */
    bench_samples mask_ns[N_CLASSES], commit_ns[N_CLASSES];
    bench_summary mask_rep[N_CLASSES][MAX_REPEATS], commit_rep[N_CLASSES][MAX_REPEATS];
} run;

static bool bit(const uint32_t *w, uint32_t t) { return (w[t >> 5] >> (t & 31)) & 1u; }

static void fail(run *r, const char *msg, size_t tr, uint32_t pos, uint32_t tok) {
    if (r->failures++ < 10) {
        fprintf(stderr, "%s: trace %zu, token %u (id %u): %s\n", r->name, tr, pos, tok, msg);
    }
}

static gcg_status fill(run *r, uint32_t *w) {
    return r->lazy ? gcg_lazy_fill_mask(r->lz, w, r->words) : gcg_matcher_fill_mask(r->m, w, r->words);
}
static gcg_status fill_bf(run *r, uint32_t *w) {
    return r->lazy ? gcg_lazy_fill_mask_bruteforce(r->lz, w, r->words)
                   : gcg_matcher_fill_mask_bruteforce(r->m, w, r->words);
}
static gcg_status commit(run *r, uint32_t t) { return r->lazy ? gcg_lazy_commit(r->lz, t) : gcg_matcher_commit(r->m, t); }
static int mode(const run *r) { return r->lazy ? (int)gcg_lazy_get_mode(r->lz) : GCG_LAZY_FREE; }
static void reset(run *r) {
    if (r->lazy)
        gcg_lazy_reset(r->lz);
    else
        gcg_matcher_reset(r->m);
}

/* The class of a step whose commit is in segment seg, in mode md (before it). */
static int classify(const run *r, int md, uint8_t seg) {
    if (md == GCG_LAZY_FORCING) return C_FORCING;
    if (seg == CHAT_CALL || seg == CHAT_CALL_CLOSE) return C_REGION;
    if (r->lazy && md == GCG_LAZY_GRAMMAR) return C_GRAMMAR;
    return C_FREE;
}

/* True when committing a token of segment seg at index i (of n in its trace)
 * is the switch: the trigger fired (lazy), or the begin tag's last token (tagged). */
static bool is_switch(const run *r, int before, int after, const uint8_t *seg, uint32_t i, uint32_t n) {
    if (r->lazy) return before != GCG_LAZY_GRAMMAR && after == GCG_LAZY_GRAMMAR;
    return seg[i] == CHAT_CALL_OPEN && (i + 1 == n || seg[i + 1] != CHAT_CALL_OPEN);
}

/* In FORCING mode: the token to commit — the trace's own next closing-tag
 * token when the mask allows it, else the allowed token with the most bytes. */
static uint32_t forced_token(run *r, const uint32_t *tok, const uint8_t *seg, uint32_t *i, uint32_t n) {
    while (*i < n && seg[*i] != CHAT_THINK_CLOSE) (*i)++;
    if (*i < n && bit(r->mask, tok[*i])) return tok[(*i)++];
    uint32_t best = UINT32_MAX, best_len = 0, V = gcg_artifact_vocab_size(r->art);
    for (uint32_t t = 0; t < V; t++) {
        uint32_t len;
        if (bit(r->mask, t) && gcg_artifact_token_bytes(r->art, t, &len) && (best == UINT32_MAX || len > best_len))
            best = t, best_len = len;
    }
    return best;
}

static void check_bf(run *r, size_t tr, uint32_t pos, uint32_t tok) {
    if (!r->record || !r->bf_every || r->step % r->bf_every) return;
    if (fill_bf(r, r->bf) != GCG_OK) return fail(r, "brute-force mask failed", tr, pos, tok);
    r->checked++;
    if (memcmp(r->bf, r->mask, r->words * sizeof *r->mask)) fail(r, "mask differs from brute force", tr, pos, tok);
}

/* Replays one trace; timed into the samples when timed. */
static void replay(run *r, const chat_traceset *s, size_t tr, bool timed) {
    const uint32_t *tok = s->tok + s->tr[tr].start;
    const uint8_t *seg = s->seg + s->tr[tr].start;
    uint32_t n = s->tr[tr].n;
    bool after_switch = false;
    reset(r);
    for (uint32_t i = 0; i < n;) {
        int before = mode(r);
        uint64_t t0 = bench_now_ns();
        gcg_status st = fill(r, r->mask);
        uint64_t t1 = bench_now_ns();
        if (st != GCG_OK) return fail(r, "fill_mask failed", tr, i, tok[i]);
        uint32_t pos = i, t = before == GCG_LAZY_FORCING ? forced_token(r, tok, seg, &i, n) : tok[i++];
        if (t == UINT32_MAX) return fail(r, "forcing mode allows no token", tr, pos, 0);
        check_bf(r, tr, pos, t);
        if (r->record && !bit(r->mask, t)) fail(r, "not in the mask", tr, pos, t);
        uint8_t sg = seg[i - 1];
        uint64_t t2 = bench_now_ns();
        st = commit(r, t);
        uint64_t t3 = bench_now_ns();
        if (st != GCG_OK) return fail(r, "commit rejected", tr, pos, t);
        int after = mode(r);
        bool sw = is_switch(r, before, after, seg, i - 1, n);
        if (before == GCG_LAZY_FORCING && after != GCG_LAZY_FORCING) /* the tag is complete */
            while (i < n && seg[i] == CHAT_THINK_CLOSE) i++;
        if (timed) {
            bench_samples_push(&r->mask_ns[after_switch ? C_SWITCH : classify(r, before, sg)], t1 - t0);
            bench_samples_push(&r->commit_ns[sw ? C_SWITCH : classify(r, before, sg)], t3 - t2);
        }
        after_switch = sw;
        r->step++;
    }
    if (fill(r, r->mask) != GCG_OK) return fail(r, "fill_mask failed", tr, n, 0);
    uint32_t n_eos;
    const uint32_t *eos = gcg_artifact_eos(r->art, &n_eos);
    if (r->record && n_eos && !bit(r->mask, eos[0])) fail(r, "EOS not in the final mask", tr, n, eos[0]);
}

static void repeat(run *r, const chat_traceset *s, uint32_t rep) {
    for (int c = 0; c < N_CLASSES; c++) bench_samples_clear(&r->mask_ns[c]), bench_samples_clear(&r->commit_ns[c]);
    r->record = rep == 0;
    r->step = 0;
    for (size_t tr = 0; tr < s->n_tr; tr++) replay(r, s, tr, true);
    for (int c = 0; c < N_CLASSES; c++) {
        bench_summarize(&r->mask_ns[c], &r->mask_rep[c][rep]);
        bench_summarize(&r->commit_ns[c], &r->commit_rep[c][rep]);
    }
}

static void print_row(const char *name, const char *cls, const char *what, const bench_summary *reps, uint32_t n) {
    bench_combined c;
    bench_combine(reps, n, &c);
    if (!c.median.n) return;
    printf("| %s | %s | %s | %zu | %.2f | %.2f | %.2f | %.2f |\n", name, cls, what, c.median.n, c.median.p50 / 1e3,
           c.median.p99 / 1e3, c.median.p999 / 1e3, c.median.max / 1e3);
}

static gcg_status run_new(run *r, const char *name, const gcg_artifact *art, bool lazy, uint32_t budget,
                          uint32_t bf_every) {
    memset(r, 0, sizeof *r);
    r->name = name, r->art = art, r->lazy = lazy, r->budget = budget, r->bf_every = bf_every;
    r->words = gcg_artifact_mask_words(art);
    r->mask = calloc(r->words, sizeof *r->mask);
    r->bf = calloc(r->words, sizeof *r->bf);
    if (!r->mask || !r->bf) return GCG_ERR_NOMEM;
    gcg_error err = {0};
    gcg_status st;
    if (lazy) {
        gcg_lazy_options o;
        gcg_lazy_options_default(&o);
        o.budget_tokens = budget;
        st = gcg_lazy_new(art, &o, &r->lz, &err);
    } else {
        st = gcg_matcher_new(art, NULL, &r->m, &err);
    }
    if (st != GCG_OK) fprintf(stderr, "gcg_bench_chat: %s: %s\n", name, err.msg);
    return st;
}

static void run_free(run *r) {
    gcg_lazy_free(r->lz);
    gcg_matcher_free(r->m);
    free(r->mask);
    free(r->bf);
    for (int c = 0; c < N_CLASSES; c++) bench_samples_free(&r->mask_ns[c]), bench_samples_free(&r->commit_ns[c]);
}

/* Runs one configuration and prints its rows; false when a check failed. */
static bool bench_one(const char *name, const gcg_artifact *art, bool lazy, uint32_t budget, const chat_traceset *s,
                      uint32_t repeats, uint32_t bf_every, bool *setup_failed) {
    run *r = malloc(sizeof *r);
    if (!r || run_new(r, name, art, lazy, budget, bf_every) != GCG_OK) {
        *setup_failed = true;
        if (r) run_free(r);
        free(r);
        return false;
    }
    for (size_t tr = 0; tr < s->n_tr && tr < 4; tr++) replay(r, s, tr, false); /* warm caches */
    r->failures = 0;
    for (uint32_t rep = 0; rep < repeats; rep++) repeat(r, s, rep);
    for (int c = 0; c < N_CLASSES; c++) {
        print_row(name, CLASS_NAMES[c], "mask", r->mask_rep[c], repeats);
        print_row(name, CLASS_NAMES[c], "commit", r->commit_rep[c], repeats);
    }
    fprintf(stderr, "%s: %zu steps a repeat, %u masks compared with brute force, %u failures\n", name, r->step,
            r->checked, r->failures);
    bool ok = r->failures == 0;
    run_free(r);
    free(r);
    return ok;
}

static void pin_last_cpu(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set)) return;
    int last = -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set)) last = c;
    CPU_ZERO(&set);
    CPU_SET(last, &set);
    if (last >= 0) sched_setaffinity(0, sizeof set, &set);
}

static const char USAGE[] =
    "usage: gcg_bench_chat --traces FILE [--lazy A.gcg] [--tagged B.gcg] [options]\n"
    "  --traces FILE     chat traces (bench/chat_traces.mjs)\n"
    "  --lazy A.gcg      artifact with triggers: runs lazy (and budget with --budget)\n"
    "  --tagged B.gcg    artifact with tagged regions: runs tagged\n"
    "  --budget N        reasoning budget in tokens for the budget run (0: no budget run)\n"
    "  --max-traces N    replay only the first N traces\n"
    "  --repeats R       timed replays (default 3, at most 16); medians are reported\n"
    "  --bf-every K      compare every K-th mask of the first replay with brute force (0: never)\n";

static bool parse_u32(const char *s, uint32_t *out) {
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (!*s || *end || s[0] == '-' || v > UINT32_MAX) return false;
    *out = (uint32_t)v;
    return true;
}

int main(int argc, char **argv) {
    const char *traces = NULL, *lazy = NULL, *tagged = NULL;
    uint32_t budget = 0, max_traces = 0, repeats = 3, bf_every = 50;
    static const struct option LONG[] = {{"traces", 1, 0, 't'}, {"lazy", 1, 0, 'l'},      {"tagged", 1, 0, 'g'},
                                         {"budget", 1, 0, 'b'}, {"max-traces", 1, 0, 'n'}, {"repeats", 1, 0, 'r'},
                                         {"bf-every", 1, 0, 'k'}, {"help", 0, 0, 'h'},    {0, 0, 0, 0}};
    for (int o; (o = getopt_long(argc, argv, "", LONG, NULL)) != -1;) {
        bool ok = true;
        switch (o) {
        case 't': traces = optarg; break;
        case 'l': lazy = optarg; break;
        case 'g': tagged = optarg; break;
        case 'b': ok = parse_u32(optarg, &budget); break;
        case 'n': ok = parse_u32(optarg, &max_traces); break;
        case 'r': ok = parse_u32(optarg, &repeats) && repeats >= 1 && repeats <= MAX_REPEATS; break;
        case 'k': ok = parse_u32(optarg, &bf_every); break;
        case 'h': fputs(USAGE, stdout); return 0;
        default: ok = false;
        }
        if (!ok) return fprintf(stderr, "gcg_bench_chat: bad option value '%s'\n%s", optarg ? optarg : "", USAGE), 2;
    }
    if (!traces || (!lazy && !tagged) || optind != argc) return fputs(USAGE, stderr), 2;
    chat_traceset s;
    chat_traceset_init(&s);
    char err[800];
    if (!chat_traces_read(traces, max_traces, &s, err, sizeof err))
        return fprintf(stderr, "gcg_bench_chat: %s\n", err), chat_traceset_free(&s), 3;
    pin_last_cpu();
    printf("| run | steps | latency of | n | p50 µs | p99 µs | p99.9 µs | max µs |\n|---|---|---|---|---|---|---|---|\n");
    bool ok = true, setup_failed = false;
    const char *paths[2] = {lazy, tagged};
    for (int k = 0; k < 2; k++) {
        if (!paths[k]) continue;
        gcg_artifact *art;
        gcg_error e = {0};
        if (gcg_artifact_open_file(paths[k], &art, &e) != GCG_OK) {
            fprintf(stderr, "gcg_bench_chat: %s: %s\n", paths[k], e.msg);
            setup_failed = true;
            continue;
        }
        if (k == 0) {
            ok &= bench_one("lazy", art, true, 0, &s, repeats, bf_every, &setup_failed);
            if (budget) ok &= bench_one("budget", art, true, budget, &s, repeats, bf_every, &setup_failed);
        } else {
            ok &= bench_one("tagged", art, false, 0, &s, repeats, bf_every, &setup_failed);
        }
        gcg_artifact_free(art);
    }
    chat_traceset_free(&s);
    return setup_failed ? 3 : ok ? 0 : 1;
}
