/* emit.c — writing the grammar, tables and vocabulary sections. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../runtime/artifact_format.h"
#include "emit.h"

static gcg_status emit_meta(const gcg_emit_input *in, gcg_writer *w)
{
    char buf[1024];
    uint64_t vh = 0;
    if (in->vocab)
        vh = XXH3_64bits(in->vocab->bytes, in->vocab->offsets[in->vocab->n_tokens]);
    int n = snprintf(buf, sizeof buf,
                     "compiler=gcgc %s\ngrammar=%s\nroot=%s\ngrammar_xxh3=%016llx\nvocab=%s\n"
                     "vocab_size=%u\nvocab_xxh3=%016llx\n",
                     GCG_VERSION_STRING, in->grammar_name ? in->grammar_name : "-",
                     in->root ? in->root : "root",
                     (unsigned long long)XXH3_64bits(in->grammar_src, in->grammar_len),
                     in->vocab_name ? in->vocab_name : "none", in->vocab ? in->vocab->n_tokens : 0,
                     (unsigned long long)vh);
    return gcg_writer_add(w, GCG_SEC_META, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static gcg_status emit_lr(const gcg_emit_input *in, gcg_writer *w)
{
    const lr_tables *t = in->lr;
    gcg_tables_header h;
    memset(&h, 0, sizeof h);
    h.n_classes = in->bc->n_classes, h.n_states = t->n_states, h.n_nts = t->n_nts;
    h.n_prods = t->n_prods, h.n_multi = t->n_multi;
    for (uint32_t p = 0; p < t->n_prods; p++)
        h.max_rhs = t->prod_len[p] > h.max_rhs ? t->prod_len[p] : h.max_rhs;
    memcpy(h.class_of, in->bc->class_of, 256);
    gcg_prod_entry *pe = malloc((size_t)(t->n_prods ? t->n_prods : 1) * sizeof *pe);
    if (!pe)
        return GCG_ERR_NOMEM;
    for (uint32_t p = 0; p < t->n_prods; p++)
        pe[p] = (gcg_prod_entry){t->prod_lhs[p], t->prod_len[p]};
    gcg_status st = gcg_writer_add(w, GCG_SEC_BYTECLASS, &h, sizeof h);
    if (st == GCG_OK)
        st = gcg_writer_add(w, GCG_SEC_PRODUCTIONS, pe, (size_t)t->n_prods * sizeof *pe);
    free(pe);
    size_t cells = (size_t)t->n_states * t->n_terms;
    if (st == GCG_OK)
        st = gcg_writer_add(w, GCG_SEC_ACTION, t->action, cells * sizeof *t->action);
    if (st == GCG_OK)
        st = gcg_writer_add(w, GCG_SEC_MULTI, t->multi, (size_t)t->n_multi * sizeof *t->multi);
    if (st == GCG_OK)
        st = gcg_writer_add(w, GCG_SEC_GOTO, t->go, (size_t)t->n_states * t->n_nts * sizeof *t->go);
    return st;
}

static gcg_status emit_symbols(const cfg *g, gcg_writer *w)
{
    size_t n = 0;
    for (uint32_t a = 0; a < g->n_nts; a++)
        n += strlen(g->nts[a].name) + 1;
    char *buf = malloc(n ? n : 1), *p = buf;
    if (!buf)
        return GCG_ERR_NOMEM;
    for (uint32_t a = 0; a < g->n_nts; a++) {
        size_t l = strlen(g->nts[a].name) + 1;
        memcpy(p, g->nts[a].name, l);
        p += l;
    }
    gcg_status st = gcg_writer_add(w, GCG_SEC_SYMBOLS, buf, n);
    free(buf);
    return st;
}

/* GCG_SEC_VOCAB: header {n_tokens, n_eos, n_bytes, 0}, offsets[n_tokens + 1],
 * eos[n_eos], flags[n_tokens] (uint8), then the bytes. */
static gcg_status emit_vocab(const gcg_vocab *v, gcg_writer *w)
{
    uint32_t nb = v->offsets[v->n_tokens];
    size_t size = 16 + ((size_t)v->n_tokens + 1 + v->n_eos) * 4 + v->n_tokens + nb;
    uint8_t *buf = malloc(size), *p = buf;
    if (!buf)
        return GCG_ERR_NOMEM;
    uint32_t h[4] = {v->n_tokens, v->n_eos, nb, 0};
    memcpy(p, h, 16), p += 16;
    memcpy(p, v->offsets, ((size_t)v->n_tokens + 1) * 4), p += ((size_t)v->n_tokens + 1) * 4;
    if (v->n_eos) /* eos may be NULL when there are none */
        memcpy(p, v->eos, (size_t)v->n_eos * 4);
    p += (size_t)v->n_eos * 4;
    memcpy(p, v->flags, v->n_tokens), p += v->n_tokens;
    memcpy(p, v->bytes, nb);
    gcg_status st = gcg_writer_add(w, GCG_SEC_VOCAB, buf, size);
    free(buf);
    return st;
}

/* GCG_SEC_TRIE (artifact_format.h). */
gcg_status gcg_emit_trie(const token_trie *t, gcg_writer *w)
{
    size_t n = t->n_nodes, size = 16 + n * 4 + (n + 1) * 4 + (size_t)t->n_tokens * 4 + n;
    uint8_t *buf = malloc(size), *p = buf;
    if (!buf)
        return GCG_ERR_NOMEM;
    uint32_t h[4] = {t->n_nodes, t->n_tokens, 0, 0};
    memcpy(p, h, 16), p += 16;
    memcpy(p, t->end, n * 4), p += n * 4;
    memcpy(p, t->tok_start, (n + 1) * 4), p += (n + 1) * 4;
    memcpy(p, t->tokens, (size_t)t->n_tokens * 4), p += (size_t)t->n_tokens * 4;
    memcpy(p, t->byte, n);
    gcg_status st = gcg_writer_add(w, GCG_SEC_TRIE, buf, size);
    free(buf);
    return st;
}

static gcg_status emit_sets(const mask_automaton *a, gcg_writer *w)
{
    uint64_t n_data = 0;
    for (uint32_t i = 0; i < a->n_sets; i++)
        n_data += gcg_automaton_set_bytes(a, i) / 4;
    size_t size = 16 + (size_t)a->n_sets * sizeof(gcg_set_entry) + (size_t)n_data * 4;
    uint8_t *buf = calloc(1, size);
    if (!buf)
        return GCG_ERR_NOMEM;
    uint32_t h[4] = {a->n_sets, a->words, (uint32_t)n_data, 0};
    memcpy(buf, h, 16);
    gcg_set_entry *e = (gcg_set_entry *)(buf + 16);
    uint32_t *data = (uint32_t *)(e + a->n_sets), off = 0;
    for (uint32_t i = 0; i < a->n_sets; i++) {
        bool sparse = (uint64_t)a->set_count[i] < a->words;
        e[i] = (gcg_set_entry){sparse ? GCG_SET_SPARSE : GCG_SET_DENSE, a->set_count[i], off};
        if (!sparse) {
            memcpy(data + off, a->sets[i], (size_t)a->words * 4);
            off += a->words;
            continue;
        }
        for (uint32_t k = 0; k < a->words; k++)
            for (uint32_t bits = a->sets[i][k]; bits; bits &= bits - 1)
                data[off++] = k * 32 + (uint32_t)__builtin_ctz(bits);
    }
    gcg_status st = gcg_writer_add(w, GCG_SEC_TOKENSETS, buf, size);
    free(buf);
    return st;
}

/* The mask automaton, roots and certificate sections. */
gcg_status gcg_emit_automaton(const mask_automaton *a, uint32_t n_lr_states, gcg_writer *w)
{
    gcg_status st = emit_sets(a, w);
    size_t size = 16 + ((size_t)a->n_states + 1) * 4 + (size_t)a->n_trans * sizeof(gcg_trans_entry);
    uint8_t *buf = st == GCG_OK ? malloc(size) : NULL;
    if (st == GCG_OK && !buf)
        st = GCG_ERR_NOMEM;
    if (st == GCG_OK) {
        uint32_t h[4] = {a->n_states, a->n_trans, 0, 0};
        memcpy(buf, h, 16);
        memcpy(buf + 16, a->trans_start, ((size_t)a->n_states + 1) * 4);
        gcg_trans_entry *t = (gcg_trans_entry *)(buf + 16 + ((size_t)a->n_states + 1) * 4);
        for (uint32_t i = 0; i < a->n_trans; i++)
            t[i] = (gcg_trans_entry){a->trans[i].q, a->trans[i].acc, a->trans[i].next};
        st = gcg_writer_add(w, GCG_SEC_AUTOMATON, buf, size);
    }
    free(buf);
    uint32_t *roots = st == GCG_OK ? malloc((size_t)n_lr_states * 8) : NULL;
    if (st == GCG_OK && !roots)
        st = GCG_ERR_NOMEM;
    if (st == GCG_OK) {
        memcpy(roots, a->root_acc, (size_t)n_lr_states * 4);
        memcpy(roots + n_lr_states, a->root_d, (size_t)n_lr_states * 4);
        st = gcg_writer_add(w, GCG_SEC_ROOTS, roots, (size_t)n_lr_states * 8);
    }
    free(roots);
    if (st == GCG_OK) {
        gcg_cert_entry ce;
        memset(&ce, 0, sizeof ce);
        ce.bounded = a->bounded ? GCG_CERT_BOUNDED : a->unbounded_reason;
        ce.max_stack_reads = a->whole_reads, ce.max_set_ops = a->whole_set_ops;
        ce.max_edges = a->whole_edges, ce.max_bytes = a->max_bytes;
        memcpy(ce.unbounded_rule, a->unbounded_rule, sizeof ce.unbounded_rule);
        st = gcg_writer_add(w, GCG_SEC_CERTIFICATE, &ce, sizeof ce);
    }
    return st;
}

gcg_status gcg_emit_tables(const gcg_emit_input *in, gcg_writer *w)
{
    gcg_status st = emit_meta(in, w);
    if (st == GCG_OK)
        st = gcg_writer_add(w, GCG_SEC_GRAMMAR, in->grammar_src, in->grammar_len);
    if (st == GCG_OK)
        st = emit_lr(in, w);
    if (st == GCG_OK)
        st = emit_symbols(in->g, w);
    if (st == GCG_OK && in->vocab)
        st = emit_vocab(in->vocab, w);
    return st;
}
