/* matcher.c — commit, rollback and reset over the GSS (see matcher.h). */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "matcher.h"
#include "token_ref_section.h"

void gcg_matcher_options_default(gcg_matcher_options *opt)
{
    opt->max_rollback = 32;
    opt->initial_nodes = 4096;
    opt->max_nodes = 1u << 26;
    opt->max_commit_work = 0;
    opt->max_mask_work = 0;
}

/* A commit's work budget (glr.h counts the units). */
static void commit_begin(gcg_matcher *m)
{
    memset(&m->last_commit, 0, sizeof m->last_commit);
    m->p.work = 0;
    m->p.work_limit = m->max_commit_work ? m->max_commit_work : UINT64_MAX;
}

/* Counts the work since w0 as one step of the commit (gcg_commit_stats). */
static void note_step_work(gcg_matcher *m, uint64_t w0)
{
    if (m->p.work - w0 > m->last_commit.max_step_work)
        m->last_commit.max_step_work = m->p.work - w0;
}

static void commit_end(gcg_matcher *m)
{
    m->last_commit.work = m->p.work;
    m->p.work_limit = UINT64_MAX;
}

void matcher_release_frontier(gcg_matcher *m, const uint32_t *nodes, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        gss_release(&m->p.g, nodes[i]);
}

gcg_status matcher_run_bytes(gcg_matcher *m, const uint32_t *in, uint32_t n_in, const uint8_t *bytes,
                             size_t n, uint32_t **out, uint32_t *n_out, size_t *bad, uint64_t *max_step)
{
    const gcg_tables *t = &m->art->t;
    const uint32_t *cur = in;
    uint32_t n_cur = n_in, which = 0;
    bool owned = false, accept;
    for (size_t i = 0; i < n; i++) {
        uint32_t *next = m->scratch[which], n_next;
        uint64_t w0 = m->p.work;
        gcg_status st = glr_step(&m->p, cur, n_cur, t->class_of[bytes[i]], next, &n_next, &accept);
        if (max_step && m->p.work - w0 > *max_step)
            *max_step = m->p.work - w0;
        if (owned)
            matcher_release_frontier(m, cur, n_cur);
        if (st != GCG_OK) {
            *bad = i;
            return st;
        }
        cur = next, n_cur = n_next, owned = true;
        which ^= 1;
    }
    if (!owned) { /* no bytes: the result is the input, with its own holds */
        for (uint32_t i = 0; i < n_in; i++)
            gss_retain(&m->p.g, in[i]);
        memcpy(m->scratch[which], in, (size_t)n_in * sizeof *in);
        cur = m->scratch[which];
    }
    *out = (uint32_t *)cur;
    *n_out = n_cur;
    return GCG_OK;
}

gcg_status matcher_accepts(gcg_matcher *m, const uint32_t *front, uint32_t n, bool *complete)
{
    uint32_t n_out;
    return glr_step(&m->p, front, n, m->art->t.n_classes, NULL, &n_out, complete);
}

/* ---- history ------------------------------------------------------------ */

static void drop_oldest(gcg_matcher *m)
{
    hist_entry *h = &m->hist[0];
    matcher_release_frontier(m, m->hist_nodes + h->start, h->n);
    uint32_t shift = h->n;
    memmove(m->hist_nodes, m->hist_nodes + shift, (size_t)(m->n_hist_nodes - shift) * sizeof *m->hist_nodes);
    m->n_hist_nodes -= shift;
    memmove(m->hist, m->hist + 1, (size_t)(m->n_hist - 1) * sizeof *m->hist);
    m->n_hist--;
    for (uint32_t i = 0; i < m->n_hist; i++)
        m->hist[i].start -= shift;
}

/* Moves the current frontier (and its holds) onto the history. */
static gcg_status push_history(gcg_matcher *m)
{
    if (m->max_rollback == 0) {
        matcher_release_frontier(m, m->front, m->n_front);
        return GCG_OK;
    }
    if (m->n_hist == m->max_rollback)
        drop_oldest(m);
    if (m->n_hist_nodes + m->n_front > m->cap_hist_nodes) {
        uint32_t cap = m->cap_hist_nodes ? m->cap_hist_nodes : 64;
        while (cap < m->n_hist_nodes + m->n_front)
            cap *= 2;
        uint32_t *q = realloc(m->hist_nodes, (size_t)cap * sizeof *q);
        if (!q)
            return GCG_ERR_NOMEM;
        m->hist_nodes = q, m->cap_hist_nodes = cap;
    }
    memcpy(m->hist_nodes + m->n_hist_nodes, m->front, (size_t)m->n_front * sizeof *m->front);
    m->hist[m->n_hist++] = (hist_entry){m->n_hist_nodes, m->n_front, m->complete, m->terminated};
    m->n_hist_nodes += m->n_front;
    return GCG_OK;
}

/* Makes `nodes` (holds included) the frontier after pushing the old one. */
static gcg_status advance(gcg_matcher *m, const uint32_t *nodes, uint32_t n, bool complete)
{
    gcg_status st = push_history(m);
    if (st != GCG_OK) {
        matcher_release_frontier(m, nodes, n);
        return st;
    }
    memcpy(m->front, nodes, (size_t)n * sizeof *nodes);
    m->n_front = n;
    m->complete = complete;
    return GCG_OK;
}

/* ---- mask scratch --------------------------------------------------------- */

/* Per LR state q: the automaton transitions on q that lead on (t.next).
 * A walk marks a pair (t.next, node) only for such a transition on the
 * node's state, so a node of state q is in at most this many pairs. */
static uint32_t *pair_weights(const gcg_artifact *art)
{
    const gcg_mask_view *v = &art->mask;
    uint32_t *w = calloc((size_t)art->t.n_states + 1, sizeof *w);
    for (uint32_t k = 0; w && k < v->n_trans; k++)
        if (v->trans[k].next != GCG_NO_STATE)
            w[v->trans[k].q]++;
    return w;
}

/* The most pairs the next mask can push: one per frontier node (its root)
 * plus the marked pairs, which are at most the live nodes' weights; when the
 * certificate is bounded, at most its stack reads (every push is popped and
 * counted as a read); with max_mask_work, at most that many (one per edge). */
static uint32_t mask_pairs_bound(const gcg_matcher *m)
{
    const gcg_cert_entry *c = m->art->mask.cert;
    uint64_t pairs = m->p.g.weight_live;
    if (c && c->bounded == GCG_CERT_BOUNDED && c->max_stack_reads < pairs)
        pairs = c->max_stack_reads;
    if (m->max_mask_work && m->max_mask_work < pairs)
        pairs = m->max_mask_work;
    pairs += m->art->t.n_states;
    return pairs > UINT32_MAX / 4 ? UINT32_MAX / 4 : (uint32_t)pairs;
}

/* Sizes the mask walk for the stack as it is now (after every commit), so
 * that fill_mask does not allocate. */
static gcg_status mask_reserve(gcg_matcher *m)
{
    if (!m->pair_weight)
        return GCG_OK;
    return mask_scratch_reserve(&m->mask, mask_pairs_bound(m)) ? GCG_OK : GCG_ERR_NOMEM;
}

/* Run edges (glr.h) where no bound is stated: a certificate counts the work
 * of stacks read and popped frame by frame, and a run edge read copy by copy
 * may repeat copies that frames would share, so a matcher whose masks or
 * commits are certified keeps its frames. */
static bool runs_allowed(const gcg_artifact *art)
{
    const gcg_cert_entry *c = art->mask.cert;
    const gcg_commit_entry *k = art->mask.commit;
    return !(c && c->bounded == GCG_CERT_BOUNDED) && !(k && k->bounded == GCG_CERT_BOUNDED);
}

/* ---- public API --------------------------------------------------------- */

gcg_status gcg_matcher_new(const gcg_artifact *art, const gcg_matcher_options *opt,
                           gcg_matcher **out, gcg_error *err)
{
    gcg_matcher_options o;
    gcg_matcher_options_default(&o);
    if (opt)
        o = *opt;
    if (out)
        *out = NULL;
    if (!art || !out)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET, "matcher: %s is NULL",
                             art ? "out" : "artifact");
    if (o.max_nodes == 0)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET, "matcher: max_nodes is 0");
    gcg_matcher *m = calloc(1, sizeof *m);
    if (!m)
        return gcg_error_set(err, GCG_ERR_NOMEM, GCG_NO_OFFSET, "matcher: out of memory");
    m->art = art;
    m->max_rollback = o.max_rollback;
    m->max_commit_work = o.max_commit_work;
    m->max_mask_work = o.max_mask_work;
    uint32_t ns = art->t.n_states;
    m->front = malloc((size_t)ns * sizeof *m->front);
    m->scratch[0] = malloc((size_t)ns * sizeof *m->scratch[0]);
    m->scratch[1] = malloc((size_t)ns * sizeof *m->scratch[1]);
    m->hist = malloc(((size_t)o.max_rollback + 1) * sizeof *m->hist);
    if (art->refs.n)
        m->unite = malloc((size_t)ns * sizeof *m->unite);
    brute_scratch_init(&m->brute);
    bool mask_ok = art->mask.n_sets == 0 ||
                   ((m->pair_weight = pair_weights(art)) &&
                    mask_scratch_init(&m->mask, art->mask.n_sets));
    if (!m->front || !m->scratch[0] || !m->scratch[1] || !m->hist || !mask_ok || (art->refs.n && !m->unite) ||
        glr_init(&m->p, &art->t, o.initial_nodes, o.max_nodes) != GCG_OK) {
        gcg_matcher_free(m);
        return gcg_error_set(err, GCG_ERR_NOMEM, GCG_NO_OFFSET,
                             "matcher: out of memory for %u stack nodes", o.initial_nodes);
    }
    gss_set_weight(&m->p.g, m->pair_weight);
    m->p.runs = runs_allowed(art);
    uint32_t root = gss_new(&m->p.g, 0);
    if (root == GSS_NONE) {
        gcg_matcher_free(m);
        return gcg_error_set(err, GCG_ERR_NOMEM, GCG_NO_OFFSET, "matcher: out of memory");
    }
    m->front[0] = root, m->n_front = 1;
    gcg_status st = matcher_accepts(m, m->front, 1, &m->complete);
    if (st == GCG_OK)
        st = mask_reserve(m);
    if (st != GCG_OK) { /* GCG_ERR_LIMIT: max_nodes cannot even hold the start */
        gcg_matcher_free(m);
        return gcg_error_set(err, st, GCG_NO_OFFSET,
                             "matcher: max_nodes %u cannot hold the start of a sentence",
                             o.max_nodes);
    }
    *out = m;
    return GCG_OK;
}

void gcg_matcher_free(gcg_matcher *m)
{
    if (!m)
        return;
    mask_scratch_free(&m->mask);
    brute_scratch_free(&m->brute);
    free(m->pair_weight);
    glr_free(&m->p);
    free(m->front), free(m->scratch[0]), free(m->scratch[1]), free(m->unite);
    free(m->hist), free(m->hist_nodes);
    free(m);
}

gcg_status gcg_matcher_commit_bytes(gcg_matcher *m, const uint8_t *bytes, size_t n, size_t *consumed)
{
    if (!m || (!bytes && n))
        return GCG_ERR_ARG;
    if (m->terminated)
        return GCG_ERR_TERMINATED;
    uint32_t *out, n_out;
    size_t bad = 0;
    bool complete = false;
    commit_begin(m);
    gcg_status st = matcher_run_bytes(m, m->front, m->n_front, bytes, n, &out, &n_out, &bad,
                                      &m->last_commit.max_step_work);
    uint64_t w0 = m->p.work;
    if (st == GCG_OK && (st = matcher_accepts(m, out, n_out, &complete)) != GCG_OK)
        matcher_release_frontier(m, out, n_out);
    note_step_work(m, w0);
    commit_end(m);
    if (consumed)
        *consumed = st == GCG_OK ? n : bad;
    if (st != GCG_OK)
        return st;
    st = advance(m, out, n_out, complete);
    /* The mask walk grows with the stack here, not inside fill_mask; a
     * failure leaves the commit done and fill_mask growing on demand. */
    if (st == GCG_OK)
        mask_reserve(m);
    return st;
}

gcg_status gcg_matcher_commit_eos(gcg_matcher *m)
{
    if (!m)
        return GCG_ERR_ARG;
    if (m->terminated)
        return GCG_ERR_TERMINATED;
    if (!m->complete)
        return GCG_ERR_REJECTED;
    memset(&m->last_commit, 0, sizeof m->last_commit); /* known complete: no GLR step */
    for (uint32_t i = 0; i < m->n_front; i++)
        gss_retain(&m->p.g, m->front[i]);
    gcg_status st = advance(m, m->front, m->n_front, true);
    if (st == GCG_OK)
        m->terminated = true;
    return st;
}

/* ---- token references ---------------------------------------------------- */

/* Adds node x (and its hold) to the union u[0..*n): a node of the same state
 * already there is replaced by a new node with the edges of both, so the
 * frontier keeps one node per state as a GLR level does. */
static gcg_status unite_node(gcg_matcher *m, uint32_t *u, uint32_t *n, uint32_t x)
{
    gss *g = &m->p.g;
    uint32_t i = 0;
    while (i < *n && (g->nodes[u[i]].state != g->nodes[x].state || g->nodes[u[i]].count != g->nodes[x].count))
        i++;
    if (i == *n) {
        u[(*n)++] = x;
        return GCG_OK;
    }
    uint32_t y = u[i];
    if (y == x) { /* both paths ended on one shared node */
        gss_release(g, x);
        return GCG_OK;
    }
    uint32_t z = gss_new(g, g->nodes[x].state);
    if (z == GSS_NONE) {
        gss_release(g, x);
        return GCG_ERR_LIMIT;
    }
    g->nodes[z].count = g->nodes[x].count;
    const uint32_t from[2] = {y, x};
    for (uint32_t k = 0; k < 2; k++)
        for (uint32_t e = g->nodes[from[k]].edge; e != GSS_NONE; e = g->edges[e].next)
            if (!gss_linked_run(g, z, g->edges[e].to, g->edges[e].lo, g->edges[e].hi) &&
                !gss_link_run(g, z, g->edges[e].to, g->edges[e].lo, g->edges[e].hi)) {
                gss_release(g, z), gss_release(g, x);
                return GCG_ERR_NOMEM;
            }
    u[i] = z;
    gss_release(g, y), gss_release(g, x);
    return GCG_OK;
}

/* A commit in a grammar with token references: the token's bytes, and the
 * terminal of every reference that matches it, each read from the frontier
 * as it was; the new frontier is the union of the paths that succeed
 * (llama.cpp's stacks advance the same way). Nothing changes unless one
 * does. */
static gcg_status commit_with_refs(gcg_matcher *m, uint32_t token)
{
    const gcg_artifact *a = m->art;
    const gcg_vocab_view *v = &a->v;
    uint32_t off = v->offsets[token], len = v->offsets[token + 1] - off, n_u = 0, *out, n_out;
    gcg_status st = GCG_ERR_REJECTED, any = GCG_ERR_REJECTED;
    commit_begin(m);
    if (!(v->flags[token] & 1) && len > 0) {
        size_t bad;
        st = matcher_run_bytes(m, m->front, m->n_front, v->bytes + off, len, &out, &n_out, &bad,
                               &m->last_commit.max_step_work);
        if (st == GCG_OK)
            memcpy(m->unite, out, (size_t)n_out * sizeof *out), n_u = n_out, any = GCG_OK;
    }
    for (uint32_t k = 0; k < a->refs.n && (st == GCG_OK || st == GCG_ERR_REJECTED); k++) {
        if (!gcg_token_ref_matches(a, &a->refs.e[k], token))
            continue;
        bool accept;
        uint64_t w0 = m->p.work;
        st = glr_step(&m->p, m->front, m->n_front, a->refs.e[k].cls, m->scratch[0], &n_out, &accept);
        note_step_work(m, w0);
        for (uint32_t i = 0; st == GCG_OK && i < n_out; i++)
            if ((st = unite_node(m, m->unite, &n_u, m->scratch[0][i])) != GCG_OK)
                matcher_release_frontier(m, m->scratch[0] + i + 1, n_out - i - 1);
        any = st == GCG_OK ? GCG_OK : any;
    }
    bool complete = false;
    uint64_t w0 = m->p.work;
    if (st == GCG_OK || st == GCG_ERR_REJECTED)
        st = any == GCG_OK ? matcher_accepts(m, m->unite, n_u, &complete) : any;
    note_step_work(m, w0);
    commit_end(m);
    if (st != GCG_OK) {
        matcher_release_frontier(m, m->unite, n_u);
        return st;
    }
    st = advance(m, m->unite, n_u, complete);
    if (st == GCG_OK)
        mask_reserve(m);
    return st;
}

gcg_status gcg_matcher_commit(gcg_matcher *m, uint32_t token)
{
    if (!m)
        return GCG_ERR_ARG;
    const gcg_vocab_view *v = &m->art->v;
    if (v->n_tokens == 0)
        return GCG_ERR_NO_VOCAB;
    if (token >= v->n_tokens)
        return GCG_ERR_TOKEN_RANGE;
    if (m->terminated)
        return GCG_ERR_TERMINATED;
    if (v->flags[token] & 2)
        return gcg_matcher_commit_eos(m);
    if (m->art->refs.n)
        return commit_with_refs(m, token);
    if (v->flags[token] & 1)
        return GCG_ERR_REJECTED;
    uint32_t off = v->offsets[token], len = v->offsets[token + 1] - off;
    if (len == 0)
        return GCG_ERR_REJECTED;
    return gcg_matcher_commit_bytes(m, v->bytes + off, len, NULL);
}

gcg_status gcg_matcher_rollback(gcg_matcher *m, uint32_t n)
{
    if (!m)
        return GCG_ERR_ARG;
    if (n > m->n_hist)
        return GCG_ERR_ROLLBACK;
    for (uint32_t k = 0; k < n; k++) {
        hist_entry h = m->hist[--m->n_hist];
        matcher_release_frontier(m, m->front, m->n_front);
        memcpy(m->front, m->hist_nodes + h.start, (size_t)h.n * sizeof *m->front);
        m->n_front = h.n;
        m->n_hist_nodes = h.start;
        m->complete = h.complete;
        m->terminated = h.terminated;
    }
    return GCG_OK;
}

uint32_t gcg_matcher_rollback_depth(const gcg_matcher *m)
{
    return m->n_hist;
}

void gcg_matcher_reset(gcg_matcher *m)
{
    if (m->n_hist)
        gcg_matcher_rollback(m, m->n_hist);
    m->terminated = false;
    /* The oldest kept frontier may not be the start: rebuild it. */
    matcher_release_frontier(m, m->front, m->n_front);
    uint32_t root = gss_new(&m->p.g, 0); /* a node was just freed: cannot fail */
    m->front[0] = root, m->n_front = root == GSS_NONE ? 0 : 1;
    matcher_accepts(m, m->front, m->n_front, &m->complete);
}

bool gcg_matcher_is_complete(const gcg_matcher *m)
{
    return m->complete && !m->terminated;
}

bool gcg_matcher_is_terminated(const gcg_matcher *m)
{
    return m->terminated;
}

void gcg_matcher_last_mask_stats(const gcg_matcher *m, gcg_mask_stats *out)
{
    *out = m->last;
}

void gcg_matcher_last_commit_stats(const gcg_matcher *m, gcg_commit_stats *out)
{
    *out = m->last_commit;
}

size_t gcg_matcher_memory(const gcg_matcher *m)
{
    size_t ns = m->art->t.n_states;
    return sizeof *m + glr_size(&m->p) + (m->unite ? 4 : 3) * ns * sizeof(uint32_t) /* front, scratch, unite */ +
           (size_t)m->cap_hist_nodes * sizeof(uint32_t) + ((size_t)m->max_rollback + 1) * sizeof(hist_entry) +
           (m->pair_weight ? (ns + 1) * sizeof(uint32_t) + mask_scratch_size(&m->mask) : 0) +
           brute_scratch_size(&m->brute);
}
