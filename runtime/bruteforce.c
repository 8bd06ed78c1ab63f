/* bruteforce.c — the naive mask: every token's bytes tried against the stack.
 *
 * A depth-first walk over the token trie keeps one GLR frontier per depth,
 * so tokens sharing a prefix share its steps; a subtree whose prefix fails is
 * skipped whole. Correct by construction (it is the definition of the mask),
 * slow (it is the baseline the mask automaton replaces), and allocation-free
 * once its stack has grown to the longest token. */
#include <stdlib.h>
#include <string.h>

#include "brute_scratch.h"
#include "matcher.h"
#include "token_ref_section.h"

static void set_tokens(const gcg_trie_view *t, uint32_t node, uint32_t *words)
{
    for (uint32_t k = t->tok_start[node]; k < t->tok_start[node + 1]; k++)
        words[t->tokens[k] >> 5] |= 1u << (t->tokens[k] & 31);
}

/* Tries the child edge of the top frame; pushes a frame when it shifts. */
static gcg_status try_child(gcg_matcher *m, brute_scratch *b, uint32_t *depth, uint32_t *words)
{
    const gcg_trie_view *t = &m->art->trie;
    brute_frame *f = &b->frames[*depth];
    uint32_t c = f->child;
    f->child = t->end[c]; /* next sibling */
    uint32_t *out, n_out;
    size_t bad;
    gcg_status st = matcher_run_bytes(m, b->nodes + f->start, f->n, &t->byte[c], 1, &out, &n_out, &bad, NULL);
    if (st == GCG_ERR_REJECTED)
        return GCG_OK;
    if (st != GCG_OK)
        return st;
    if (!brute_scratch_reserve(b, *depth + 2, f->start + f->n + n_out)) {
        matcher_release_frontier(m, out, n_out);
        return GCG_ERR_NOMEM;
    }
    f = &b->frames[*depth];
    set_tokens(t, c, words);
    uint32_t start = f->start + f->n;
    memcpy(b->nodes + start, out, (size_t)n_out * sizeof *out);
    b->frames[++*depth] = (brute_frame){c, c + 1, start, n_out};
    return GCG_OK;
}

static gcg_status walk(gcg_matcher *m, brute_scratch *b, uint32_t *words)
{
    const gcg_trie_view *t = &m->art->trie;
    if (!brute_scratch_reserve(b, 1, m->n_front))
        return GCG_ERR_NOMEM;
    memcpy(b->nodes, m->front, (size_t)m->n_front * sizeof *m->front);
    b->frames[0] = (brute_frame){0, 1, 0, m->n_front}; /* the root's holds are the matcher's */
    uint32_t depth = 0;
    gcg_status st = GCG_OK;
    while (1) {
        brute_frame *f = &b->frames[depth];
        if (st == GCG_OK && f->child < t->end[f->node]) {
            st = try_child(m, b, &depth, words);
            continue;
        }
        if (depth == 0)
            return st;
        matcher_release_frontier(m, b->nodes + f->start, f->n);
        depth--;
    }
}

/* Token references: each one whose terminal the stack can read allows every
 * token it matches (by definition, token by token). */
static gcg_status try_refs(gcg_matcher *m, uint32_t *words)
{
    const gcg_artifact *a = m->art;
    for (uint32_t k = 0; k < a->refs.n; k++) {
        uint32_t n_out;
        bool accept;
        gcg_status st = glr_step(&m->p, m->front, m->n_front, a->refs.e[k].cls, m->scratch[0], &n_out, &accept);
        if (st == GCG_ERR_REJECTED)
            continue;
        if (st != GCG_OK)
            return st;
        matcher_release_frontier(m, m->scratch[0], n_out);
        for (uint32_t t = 0; t < a->v.n_tokens; t++)
            if (gcg_token_ref_matches(a, &a->refs.e[k], t))
                words[t >> 5] |= 1u << (t & 31);
    }
    return GCG_OK;
}

gcg_status gcg_matcher_fill_mask_bruteforce(gcg_matcher *m, uint32_t *words, size_t n_words)
{
    if (!m || !words)
        return GCG_ERR_ARG;
    const gcg_vocab_view *v = &m->art->v;
    if (v->n_tokens == 0 || m->art->trie.n_nodes == 0)
        return GCG_ERR_NO_VOCAB;
    size_t need = gcg_artifact_mask_words(m->art);
    if (n_words < need)
        return GCG_ERR_ARG;
    memset(words, 0, need * sizeof *words);
    if (m->terminated)
        return GCG_OK;
    /* Outside a commit: no work limit, and no node sharing (a shared node
     * changes no answer, and each trie node's stacks are dropped at once). */
    m->p.no_merge = true;
    gcg_status st = walk(m, &m->brute, words);
    if (st == GCG_OK)
        st = try_refs(m, words);
    m->p.no_merge = false;
    if (st != GCG_OK)
        return st;
    for (uint32_t i = 0; m->complete && i < v->n_eos; i++)
        words[v->eos[i] >> 5] |= 1u << (v->eos[i] & 31);
    return GCG_OK;
}
