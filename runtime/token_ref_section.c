/* token_ref_section.c — GCG_SEC_TOKEN_REFS: validation, matching, and the
 * mask bits of references (see token_ref_section.h and artifact_format.h). */
#include <string.h>

#include "error.h"
#include "token_ref_section.h"

#define MAX_REFS 256u

gcg_status gcg_token_ref_section_load(gcg_artifact *a, gcg_error *err)
{
    memset(&a->refs, 0, sizeof a->refs);
    uint64_t size = 0;
    const uint8_t *p = gcg_container_section(&a->c, GCG_SEC_TOKEN_REFS, &size);
    if (!p)
        return GCG_OK;
    const uint32_t *h = (const uint32_t *)p;
    if (size < 16 || h[0] == 0 || h[0] > MAX_REFS || size != 16 + (uint64_t)h[0] * sizeof(gcg_token_ref_entry))
        return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "token reference section: size does not match");
    if (h[1] != a->v.n_tokens || h[2] || h[3])
        return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET,
                             "token reference section: for %u tokens, the vocabulary has %u", h[1], a->v.n_tokens);
    const gcg_token_ref_entry *e = (const gcg_token_ref_entry *)(h + 4);
    for (uint32_t k = 0; k < h[0]; k++)
        if (e[k].cls >= a->t.n_classes || e[k].token >= a->v.n_tokens || e[k].flags > GCG_TOKEN_REF_NEGATED ||
            e[k].reserved)
            return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "token reference section: entry %u bad", k);
    a->refs.n = h[0], a->refs.e = e;
    return GCG_OK;
}

static bool is_eos(const gcg_artifact *a, uint32_t token)
{
    for (uint32_t i = 0; i < a->v.n_eos; i++)
        if (a->v.eos[i] == token)
            return true;
    return false;
}

bool gcg_token_ref_matches(const gcg_artifact *a, const gcg_token_ref_entry *e, uint32_t token)
{
    if (is_eos(a, token)) /* EOS ends the text; no reference matches it */
        return false;
    return (token == e->token) != ((e->flags & GCG_TOKEN_REF_NEGATED) != 0);
}

static bool bit(const uint32_t *words, uint32_t i)
{
    return (words[i >> 5] >> (i & 31)) & 1u;
}

/* Adds every token but the EOS tokens and, unless it is UINT32_MAX, `except`
 * (which keeps the value it had). */
static void add_all_but(const gcg_artifact *a, uint32_t except, uint32_t *words)
{
    uint32_t n = a->v.n_tokens, full = n / 32;
    bool kept = except != UINT32_MAX && bit(words, except);
    memset(words, 0xFF, (size_t)full * sizeof *words);
    if (n % 32)
        words[full] |= (1u << (n % 32)) - 1;
    for (uint32_t i = 0; i < a->v.n_eos; i++)
        words[a->v.eos[i] >> 5] &= ~(1u << (a->v.eos[i] & 31));
    if (except != UINT32_MAX && !kept)
        words[except >> 5] &= ~(1u << (except & 31));
}

void gcg_token_refs_expand(const gcg_artifact *a, uint32_t *words)
{
    uint32_t n = a->v.n_tokens, except = UINT32_MAX;
    bool negated = false;
    for (uint32_t k = 0; k < a->refs.n; k++) {
        const gcg_token_ref_entry *e = &a->refs.e[k];
        if (!bit(words, n + k) || !(e->flags & GCG_TOKEN_REF_NEGATED))
            continue;
        /* two different exceptions: every token */
        except = !negated || e->token == except ? e->token : UINT32_MAX;
        negated = true;
    }
    if (negated)
        add_all_but(a, except, words);
    for (uint32_t k = 0; k < a->refs.n; k++) {
        const gcg_token_ref_entry *e = &a->refs.e[k];
        uint32_t b = n + k;
        if (!bit(words, b))
            continue;
        words[b >> 5] &= ~(1u << (b & 31));
        if (!(e->flags & GCG_TOKEN_REF_NEGATED) && !is_eos(a, e->token))
            words[e->token >> 5] |= 1u << (e->token & 31);
    }
}
