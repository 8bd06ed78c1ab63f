/* token_refs.c — resolving token references and the vocabulary the mask
 * automaton walks for them (see token_refs.h). */
#include <stdlib.h>
#include <string.h>

#include "artifact_format.h"
#include "token_refs.h"

/* The terminal bytes, in order of first use: bytes UTF-8 never uses, less
 * the dead byte. */
static const uint8_t TERM_BYTES[GCG_TOKEN_REFS_MAX] = {0xC1, 0xF5, 0xF6, 0xF7, 0xF8, 0xF9,
                                                       0xFA, 0xFB, 0xFC, 0xFD, 0xFE, 0xFF};

static bool never_utf8(uint8_t b)
{
    return b == 0xC0 || b == 0xC1 || b >= 0xF5;
}

/* Whether token t's text (an ordinary token's bytes, a special token's
 * name) is the node's. */
static bool has_text(const gcg_vocab *v, uint32_t t, const gbnf_node *nd)
{
    const uint8_t *p = v->bytes + v->offsets[t];
    uint32_t len = v->offsets[t + 1] - v->offsets[t];
    if (v->flags[t] & GCG_TOKEN_SPECIAL) {
        if (!v->name_offsets)
            return false;
        p = (const uint8_t *)v->names + v->name_offsets[t];
        len = v->name_offsets[t + 1] - v->name_offsets[t];
    }
    return len == nd->n_bytes && !memcmp(p, nd->bytes, len);
}

/* The one token whose text is the node's, or an error. */
static bool token_of_text(const gbnf_node *nd, const gcg_vocab *v, uint32_t *id, gcg_diag *diag)
{
    uint32_t found = UINT32_MAX, n_found = 0;
    for (uint32_t t = 0; t < v->n_tokens; t++)
        if (has_text(v, t, nd))
            found = n_found++ ? found : t;
    if (n_found == 1) {
        *id = found;
        return true;
    }
    int len = (int)(nd->n_bytes > 200 ? 200 : nd->n_bytes);
    if (n_found)
        gcg_diag_add(diag, GCG_SEV_ERROR, nd->line, nd->col,
                     "token reference %.*s: %u tokens of the vocabulary have that text", len,
                     (const char *)nd->bytes, n_found);
    else
        gcg_diag_add(diag, GCG_SEV_ERROR, nd->line, nd->col,
                     "token reference %.*s: no token of the vocabulary has that text%s", len, (const char *)nd->bytes,
                     v->name_offsets ? "" : " (this vocabulary names no special token: use <[ID]>)");
    return false;
}

/* The reference's index in *out, added when new; UINT32_MAX when full. */
static uint32_t ref_index(gcg_token_refs *out, uint32_t token, bool negated)
{
    for (uint32_t k = 0; k < out->n; k++)
        if (out->ref[k].token == token && out->ref[k].negated == negated)
            return k;
    if (out->n == GCG_TOKEN_REFS_MAX)
        return UINT32_MAX;
    out->ref[out->n] = (gcg_token_ref){token, negated, TERM_BYTES[out->n]};
    return out->n++;
}

gcg_status gcg_token_refs_resolve(gbnf_grammar *ast, const gcg_vocab *v, gcg_token_refs *out, gcg_diag *diag)
{
    memset(out, 0, sizeof *out);
    gcg_status st = GCG_OK;
    for (uint32_t i = 0; v && i < ast->n_nodes; i++) {
        gbnf_node *nd = &ast->nodes[i];
        if (nd->kind != GBNF_TOKEN)
            continue;
        uint32_t id = nd->token;
        if (!nd->by_id && !token_of_text(nd, v, &id, diag)) {
            st = GCG_ERR_FORMAT;
            continue;
        }
        if (id >= v->n_tokens) {
            gcg_diag_add(diag, GCG_SEV_ERROR, nd->line, nd->col,
                         "token reference <[%u]>: the vocabulary has %u tokens", id, v->n_tokens);
            st = GCG_ERR_FORMAT;
            continue;
        }
        if (v->flags[id] & GCG_TOKEN_EOS) {
            gcg_diag_add(diag, GCG_SEV_ERROR, nd->line, nd->col,
                         "token reference to %u, an EOS token: EOS ends the text where the grammar is "
                         "complete, and no reference matches it", id);
            st = GCG_ERR_FORMAT;
            continue;
        }
        uint32_t k = ref_index(out, id, nd->negated);
        if (k == UINT32_MAX) {
            gcg_diag_add(diag, GCG_SEV_ERROR, nd->line, nd->col,
                         "more than %u distinct token references in one grammar", GCG_TOKEN_REFS_MAX);
            st = GCG_ERR_LIMIT;
            continue;
        }
        nd->term_byte = out->ref[k].byte;
    }
    return st;
}

gcg_status gcg_token_refs_vocab(const gcg_vocab *v, const gcg_token_refs *r, gcg_vocab *out)
{
    memset(out, 0, sizeof *out);
    uint32_t n = v->n_tokens + r->n, len = v->offsets[v->n_tokens];
    out->offsets = malloc(((size_t)n + 1) * sizeof *out->offsets);
    out->bytes = malloc((size_t)len + r->n + 1);
    out->flags = malloc((size_t)n + 1);
    out->eos = malloc(((size_t)v->n_eos + 1) * sizeof *out->eos);
    if (!out->offsets || !out->bytes || !out->flags || !out->eos) {
        gcg_vocab_free(out);
        return GCG_ERR_NOMEM;
    }
    out->n_tokens = n;
    memcpy(out->offsets, v->offsets, ((size_t)v->n_tokens + 1) * sizeof *out->offsets);
    for (uint32_t i = 0; i < len; i++)
        out->bytes[i] = never_utf8(v->bytes[i]) ? GCG_TOKEN_REF_DEAD : v->bytes[i];
    memcpy(out->flags, v->flags, v->n_tokens);
    for (uint32_t k = 0; k < r->n; k++) {
        out->bytes[len + k] = r->ref[k].byte;
        out->offsets[v->n_tokens + k + 1] = len + k + 1;
        out->flags[v->n_tokens + k] = 0;
    }
    memcpy(out->eos, v->eos, (size_t)v->n_eos * sizeof *out->eos);
    out->n_eos = v->n_eos;
    return GCG_OK;
}

/* Whether a token reference k matches can have text of its own. */
static bool ref_overlaps_text(const gcg_token_ref *k, const gcg_vocab *v)
{
    uint32_t t = k->token;
    return k->negated || (!(v->flags[t] & GCG_TOKEN_SPECIAL) && v->offsets[t + 1] > v->offsets[t]);
}

bool gcg_token_refs_overlap_text(const gcg_token_refs *r, const gcg_vocab *v)
{
    for (uint32_t k = 0; k < r->n; k++)
        if (ref_overlaps_text(&r->ref[k], v))
            return true;
    return false;
}

/* Whether some token matches both references (a negation matches every token
 * but its own, EOS aside). */
static bool refs_overlap(const gcg_token_ref *a, const gcg_token_ref *b)
{
    if (a->negated && b->negated)
        return true;
    return a->negated == b->negated ? a->token == b->token : a->token != b->token;
}

/* Whether state q acts on any class a text byte can have. */
static bool acts_on_text(const lr_tables *lr, uint32_t q, const bool text_class[256])
{
    for (uint32_t c = 0; c < 256 && c + 1 < lr->n_terms; c++)
        if (text_class[c] && lr_action(lr, q, c) != GCG_ACT_ERROR)
            return true;
    return false;
}

/* Whether state q acts on two things one token can be: its text and a
 * reference it matches, or two references it matches. */
static bool state_forks(const gcg_token_refs *r, const gcg_vocab *v, const lr_tables *lr, uint32_t q,
                        const uint8_t class_of[256], const bool text_class[256])
{
    uint32_t acted = 0;
    for (uint32_t k = 0; k < r->n; k++)
        if (lr_action(lr, q, class_of[r->ref[k].byte]) != GCG_ACT_ERROR)
            acted |= 1u << k;
    bool text = acted && acts_on_text(lr, q, text_class);
    for (uint32_t k = 0; k < r->n; k++) {
        if (!(acted >> k & 1))
            continue;
        if (text && ref_overlaps_text(&r->ref[k], v))
            return true;
        for (uint32_t j = k + 1; j < r->n; j++)
            if ((acted >> j & 1) && refs_overlap(&r->ref[k], &r->ref[j]))
                return true;
    }
    return false;
}

bool gcg_token_refs_one_path(const gcg_token_refs *r, const gcg_vocab *v, const lr_tables *lr,
                             const uint8_t class_of[256])
{
    if (lr->sr_conflicts || lr->rr_conflicts)
        return false;
    bool text_class[256] = {false};
    for (uint32_t b = 0; b < 256; b++) {
        bool ref = false;
        for (uint32_t k = 0; k < r->n; k++)
            ref |= r->ref[k].byte == b;
        text_class[class_of[b]] |= !ref;
    }
    for (uint32_t q = 0; q < lr->n_states; q++)
        if (state_forks(r, v, lr, q, class_of, text_class))
            return false;
    return true;
}

gcg_status gcg_token_refs_emit(const gcg_token_refs *r, const uint8_t class_of[256], uint32_t n_tokens,
                               gcg_writer *w)
{
    struct {
        uint32_t head[4];
        gcg_token_ref_entry e[GCG_TOKEN_REFS_MAX];
    } sec;
    memset(&sec, 0, sizeof sec);
    sec.head[0] = r->n, sec.head[1] = n_tokens;
    for (uint32_t k = 0; k < r->n; k++)
        sec.e[k] = (gcg_token_ref_entry){class_of[r->ref[k].byte], r->ref[k].token,
                                         r->ref[k].negated ? GCG_TOKEN_REF_NEGATED : 0u, 0};
    return gcg_writer_add(w, GCG_SEC_TOKEN_REFS, &sec, sizeof sec.head + r->n * sizeof sec.e[0]);
}
