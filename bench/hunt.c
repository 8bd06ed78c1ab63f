/* hunt.c — inputs that widen the stack, against the certificate (see hunt.h). */
#include <stdlib.h>
#include <string.h>

#include "hunt.h"

#define COMMIT_LIMIT (1u << 22) /* about 10 ms of GLR work */

typedef struct hunt {
    const gcg_artifact *art;
    gcg_matcher *m;
    gcg_certificate cert;
    uint32_t *mask, *trial, *allowed, n_allowed;
    size_t words;
    uint64_t rng;
    bench_hunt_result *r;
} hunt;

static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static bool is_eos(const gcg_artifact *art, uint32_t id)
{
    uint32_t n;
    const uint32_t *eos = gcg_artifact_eos(art, &n);
    for (uint32_t i = 0; i < n; i++)
        if (eos[i] == id)
            return true;
    return false;
}

/* fill_mask into `w`, folding its statistics into the maxima. */
static gcg_status mask(hunt *h, uint32_t *w, uint32_t *edges)
{
    gcg_status st = gcg_matcher_fill_mask(h->m, w, h->words);
    if (st != GCG_OK)
        return st;
    gcg_mask_stats s;
    gcg_matcher_last_mask_stats(h->m, &s);
    bench_hunt_result *r = h->r;
    r->masks++;
    r->max_reads = s.stack_reads > r->max_reads ? s.stack_reads : r->max_reads;
    r->max_edges = s.edges > r->max_edges ? s.edges : r->max_edges;
    r->max_set_ops = s.set_ops > r->max_set_ops ? s.set_ops : r->max_set_ops;
    r->over |= s.set_ops > h->cert.max_set_ops;
    r->over |= h->cert.bounded && (s.stack_reads > h->cert.max_stack_reads || s.edges > h->cert.max_edges);
    *edges = s.edges;
    return GCG_OK;
}

static gcg_status commit(hunt *h, uint32_t tok)
{
    gcg_status st = gcg_matcher_commit(h->m, tok);
    gcg_commit_stats c;
    gcg_matcher_last_commit_stats(h->m, &c);
    h->r->max_commit_work = c.work > h->r->max_commit_work ? c.work : h->r->max_commit_work;
    h->r->max_step_work = c.max_step_work > h->r->max_step_work ? c.max_step_work : h->r->max_step_work;
    h->r->over |= h->cert.commit_bounded && c.max_step_work > h->cert.max_commit_step_work;
    return st;
}

/* The tokens the mask allows, EOS left out. */
static void list_allowed(hunt *h)
{
    uint32_t n_tok = gcg_artifact_vocab_size(h->art);
    h->n_allowed = 0;
    for (uint32_t t = 0; t < n_tok; t++)
        if ((h->mask[t >> 5] >> (t & 31) & 1) && !is_eos(h->art, t))
            h->allowed[h->n_allowed++] = t;
}

/* Of up to `sample` allowed tokens, the one whose next mask follows the
 * most edges; UINT32_MAX when none can be committed. */
static uint32_t widest(hunt *h, uint32_t sample)
{
    uint32_t best = UINT32_MAX, best_edges = 0;
    for (uint32_t k = 0; k < sample && h->n_allowed; k++) {
        uint32_t t = h->allowed[next_rand(&h->rng) % h->n_allowed], edges = 0;
        if (commit(h, t) != GCG_OK)
            continue;
        gcg_status st = mask(h, h->trial, &edges);
        gcg_matcher_rollback(h->m, 1);
        if (st == GCG_OK && (best == UINT32_MAX || edges > best_edges))
            best = t, best_edges = edges;
    }
    return best;
}

static gcg_status one_walk(hunt *h, uint32_t len, uint32_t sample)
{
    uint32_t prev = UINT32_MAX, edges;
    gcg_matcher_reset(h->m);
    for (uint32_t i = 0; i < len; i++) {
        gcg_status st = mask(h, h->mask, &edges);
        if (st != GCG_OK)
            return st;
        bool again = prev != UINT32_MAX && (h->mask[prev >> 5] >> (prev & 31) & 1) && next_rand(&h->rng) % 4;
        uint32_t t = prev;
        if (!again) {
            list_allowed(h);
            t = widest(h, sample);
        }
        if (t == UINT32_MAX)
            return GCG_OK;
        st = commit(h, t);
        if (st == GCG_ERR_LIMIT) {
            h->r->limited++;
            return GCG_OK;
        }
        if (st != GCG_OK)
            return st;
        prev = t;
    }
    return GCG_OK;
}

gcg_status bench_hunt(const gcg_artifact *art, uint32_t walks, uint32_t len, uint32_t sample, uint64_t seed,
                      FILE *out, bench_hunt_result *r)
{
    memset(r, 0, sizeof *r);
    hunt h = {.art = art, .words = gcg_artifact_mask_words(art), .rng = seed, .r = r};
    gcg_status st = gcg_artifact_certificate(art, &h.cert);
    gcg_matcher_options o;
    gcg_matcher_options_default(&o);
    o.max_commit_work = COMMIT_LIMIT;
    o.max_rollback = 2;
    h.mask = malloc(h.words * sizeof *h.mask);
    h.trial = malloc(h.words * sizeof *h.trial);
    h.allowed = malloc(((size_t)gcg_artifact_vocab_size(art) + 1) * sizeof *h.allowed);
    if (st == GCG_OK && (!h.mask || !h.trial || !h.allowed))
        st = GCG_ERR_NOMEM;
    if (st == GCG_OK)
        st = gcg_matcher_new(art, &o, &h.m, NULL);
    for (uint32_t k = 0; st == GCG_OK && k < walks; k++)
        st = one_walk(&h, len, sample);
    if (st == GCG_OK) {
        fprintf(out, "hunt: %llu masks, %llu walks ended by the commit work limit\n",
                (unsigned long long)r->masks, (unsigned long long)r->limited);
        fprintf(out, "hunt: observed at most %u stack reads, %u edges, %u set operations per mask; "
                     "%llu work per commit, %llu per step\n",
                r->max_reads, r->max_edges, r->max_set_ops, (unsigned long long)r->max_commit_work,
                (unsigned long long)r->max_step_work);
        if (h.cert.bounded)
            fprintf(out, "hunt: certificate %u stack reads, %u edges, %u set operations\n", h.cert.max_stack_reads,
                    h.cert.max_edges, h.cert.max_set_ops);
        else
            fprintf(out, "hunt: certificate unbounded reads and edges (rule %s), %u set operations\n",
                    h.cert.unbounded_rule, h.cert.max_set_ops);
        if (h.cert.commit_bounded)
            fprintf(out, "hunt: certificate %u work per commit step\n", h.cert.max_commit_step_work);
        else
            fprintf(out, "hunt: no commit bound stated (%s, rule %s)\n",
                    h.cert.commit_unbounded_reason == GCG_UNBOUNDED_RECURSION ? "recursion" : "ambiguity",
                    h.cert.commit_unbounded_rule);
        fprintf(out, "hunt: %s\n",
                r->over ? "FAILED: a mask or a commit step exceeded the certificate" : "within the certificate");
    }
    gcg_matcher_free(h.m);
    free(h.mask), free(h.trial), free(h.allowed);
    return st;
}
