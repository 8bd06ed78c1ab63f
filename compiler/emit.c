/* emit.c — writing the grammar, tables and vocabulary sections. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "../runtime/artifact_format.h"
#include "emit.h"
#include "table_pack.h"

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

/* A packed section: the counts, then each array where gcg_section_layout
 * (artifact_format.h) places it, with the length it gives. */
static gcg_status pack_section(uint32_t id, const uint32_t c[4], const void *const *arrays, uint8_t **out,
                               size_t *size)
{
    gcg_layout l;
    gcg_section_layout(id, c, &l);
    uint8_t *buf = *out = malloc(l.size);
    if (!buf)
        return GCG_ERR_NOMEM;
    memcpy(buf, c, 16);
    for (uint32_t i = 0; i < l.n; i++)
        if (gcg_layout_len(&l, i)) /* an empty array may be NULL */
            memcpy(buf + l.off[i], arrays[i], gcg_layout_len(&l, i));
    *size = l.size;
    return GCG_OK;
}

static gcg_status emit_packed(gcg_writer *w, uint32_t id, const uint32_t c[4], const void *const *arrays)
{
    uint8_t *buf;
    size_t size;
    gcg_status st = pack_section(id, c, arrays, &buf, &size);
    return st == GCG_OK ? gcg_writer_take(w, id, buf, size) : st;
}

static gcg_status emit_disp(gcg_writer *w, uint32_t id, uint32_t n_rows, uint32_t width,
                            const uint32_t *start, const uint32_t *cols, const uint32_t *vals)
{
    disp_table d;
    gcg_status st = gcg_disp_pack(n_rows, width, start, cols, vals, &d);
    if (st != GCG_OK)
        return st;
    uint32_t c[4] = {d.n_rows, d.n_slots, d.width, 0};
    st = emit_packed(w, id, c, (const void *[]){d.rows, d.slots});
    gcg_disp_free(&d);
    return st;
}

/* The action cells other than errors, as sparse rows for the packer. */
static gcg_status emit_actions(const lr_tables *t, gcg_writer *w)
{
    size_t n = 0, cells = (size_t)t->n_states * t->n_terms;
    for (size_t i = 0; i < cells; i++)
        n += t->action[i] != GCG_ACT_ERROR;
    uint32_t *start = malloc(((size_t)t->n_states + 1) * sizeof *start);
    uint32_t *cols = malloc((n ? n : 1) * sizeof *cols), *vals = malloc((n ? n : 1) * sizeof *vals);
    gcg_status st = start && cols && vals ? GCG_OK : GCG_ERR_NOMEM;
    for (uint32_t s = 0, k = 0; st == GCG_OK && s <= t->n_states; s++) {
        start[s] = k;
        for (uint32_t x = 0; s < t->n_states && x < t->n_terms; x++)
            if (lr_action(t, s, x) != GCG_ACT_ERROR)
                cols[k] = x, vals[k++] = lr_action(t, s, x);
    }
    if (st == GCG_OK)
        st = emit_disp(w, GCG_SEC_ACTION, t->n_states, t->n_terms, start, cols, vals);
    free(start), free(cols), free(vals);
    return st;
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
        st = gcg_writer_take(w, GCG_SEC_PRODUCTIONS, (uint8_t *)pe, (size_t)t->n_prods * sizeof *pe);
    else
        free(pe);
    if (st == GCG_OK)
        st = emit_actions(t, w);
    if (st == GCG_OK)
        st = gcg_writer_add(w, GCG_SEC_MULTI, t->multi, (size_t)t->n_multi * sizeof *t->multi);
    if (st == GCG_OK)
        st = emit_disp(w, GCG_SEC_GOTO, t->n_states, t->n_nts, t->go_start, t->go_nt, t->go_to);
    return st;
}

/* GCG_SEC_COUNTS, when the grammar folded a repetition into a counter. */
static gcg_status emit_counts(const cfg *g, gcg_writer *w)
{
    if (!g->n_counts)
        return GCG_OK;
    uint32_t c[4] = {g->n_counts, 0, 0, 0};
    gcg_layout l;
    gcg_section_layout(GCG_SEC_COUNTS, c, &l);
    uint8_t *buf = calloc(1, l.size);
    if (!buf)
        return GCG_ERR_NOMEM;
    memcpy(buf, c, sizeof c);
    gcg_count_entry *e = (gcg_count_entry *)(buf + l.off[0]);
    for (uint32_t i = 0; i < g->n_counts; i++)
        e[i] = (gcg_count_entry){g->counts[i].prod, g->counts[i].max, g->counts[i].exit, 0};
    return gcg_writer_take(w, GCG_SEC_COUNTS, buf, l.size);
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
    return gcg_writer_take(w, GCG_SEC_SYMBOLS, (uint8_t *)buf, n);
}

/* GCG_SEC_VOCAB and GCG_SEC_TRIE (the byte trie: the brute-force mask
 * walks it), serialized once per vocabulary. */
gcg_status gcg_vocab_sections_build(const gcg_vocab *v, gcg_vocab_sections *out)
{
    memset(out, 0, sizeof *out);
    uint32_t c[4] = {v->n_tokens, v->n_eos, v->offsets[v->n_tokens], 0};
    gcg_status st = pack_section(GCG_SEC_VOCAB, c, (const void *[]){v->offsets, v->eos, v->flags, v->bytes},
                                 &out->vocab, &out->vocab_size);
    token_trie t;
    if (st == GCG_OK && (st = gcg_trie_build(v, NULL, &t)) == GCG_OK) {
        uint32_t tc[4] = {t.n_nodes, t.n_tokens, 0, 0};
        st = pack_section(GCG_SEC_TRIE, tc, (const void *[]){t.end, t.tok_start, t.tokens, t.byte},
                          &out->trie, &out->trie_size);
        gcg_trie_free(&t);
    }
    if (st != GCG_OK) {
        gcg_vocab_sections_free(out);
        return st;
    }
    out->n_tokens = v->n_tokens;
    out->fingerprint = XXH3_64bits(out->vocab, out->vocab_size);
    return GCG_OK;
}

void gcg_vocab_sections_free(gcg_vocab_sections *s)
{
    if (!s->borrowed)
        free(s->vocab), free(s->trie);
    memset(s, 0, sizeof *s);
}

gcg_status gcg_emit_vocab(const gcg_vocab_sections *s, bool by_reference, gcg_writer *w)
{
    uint32_t c[4] = {s->n_tokens, 0, (uint32_t)s->fingerprint, (uint32_t)(s->fingerprint >> 32)};
    gcg_status st = emit_packed(w, GCG_SEC_VOCAB_REF, c, NULL);
    if (st == GCG_OK && !by_reference)
        st = gcg_writer_add(w, GCG_SEC_VOCAB, s->vocab, s->vocab_size);
    if (st == GCG_OK && !by_reference)
        st = gcg_writer_add(w, GCG_SEC_TRIE, s->trie, s->trie_size);
    return st;
}

static gcg_status emit_sets(const mask_automaton *a, gcg_writer *w)
{
    uint64_t n_data = 0;
    for (uint32_t i = 0; i < a->n_sets; i++)
        n_data += gcg_automaton_set_bytes(a, i) / 4;
    gcg_set_entry *e = malloc(((size_t)a->n_sets + 1) * sizeof *e);
    uint32_t *data = malloc((size_t)(n_data ? n_data : 1) * 4), off = 0;
    gcg_status st = e && data ? GCG_OK : GCG_ERR_NOMEM;
    for (uint32_t i = 0; st == GCG_OK && i < a->n_sets; i++) {
        bool sparse = gcg_automaton_set_is_sparse(a, i);
        e[i] = (gcg_set_entry){sparse ? GCG_SET_SPARSE : GCG_SET_DENSE, a->set_count[i], off};
        uint32_t n = sparse ? a->set_count[i] : a->words; /* as the automaton holds it */
        if (n)
            memcpy(data + off, a->sets[i], (size_t)n * 4);
        off += n;
    }
    uint32_t c[4] = {a->n_sets, a->words, (uint32_t)n_data, 0};
    if (st == GCG_OK)
        st = emit_packed(w, GCG_SEC_TOKENSETS, c, (const void *[]){e, data});
    free(e), free(data);
    return st;
}

/* The mask automaton, roots and certificate sections. */
void gcg_cert_entry_of(const mask_automaton *a, gcg_cert_entry *ce)
{
    memset(ce, 0, sizeof *ce);
    ce->bounded = a->bounded ? GCG_CERT_BOUNDED : a->unbounded_reason;
    ce->max_stack_reads = a->whole_reads, ce->max_set_ops = a->whole_set_ops;
    ce->max_edges = a->whole_edges, ce->max_bytes = a->max_bytes;
    memcpy(ce->unbounded_rule, a->unbounded_rule, sizeof ce->unbounded_rule);
}

void gcg_commit_entry_of(const mask_automaton *a, gcg_commit_entry *e)
{
    memset(e, 0, sizeof *e);
    e->bounded = a->commit_bounded;
    e->max_step_work = a->commit_bounded == GCG_CERT_BOUNDED ? a->max_step_work : 0;
    memcpy(e->unbounded_rule, a->commit_rule, sizeof e->unbounded_rule);
}

gcg_status gcg_emit_automaton(const mask_automaton *a, uint32_t n_lr_states, gcg_writer *w)
{
    gcg_status st = emit_sets(a, w);
    gcg_trans_entry *t = st == GCG_OK ? malloc(((size_t)a->n_trans + 1) * sizeof *t) : NULL;
    if (st == GCG_OK && !t)
        st = GCG_ERR_NOMEM;
    if (st == GCG_OK) {
        for (uint32_t i = 0; i < a->n_trans; i++)
            t[i] = (gcg_trans_entry){a->trans[i].q, a->trans[i].acc, a->trans[i].next};
        uint32_t c[4] = {a->n_states, a->n_trans, 0, 0};
        st = emit_packed(w, GCG_SEC_AUTOMATON, c, (const void *[]){a->trans_start, t});
    }
    free(t);
    if (st == GCG_OK) {
        uint32_t c[4] = {n_lr_states, 0, 0, 0};
        st = emit_packed(w, GCG_SEC_ROOTS, c, (const void *[]){a->root_acc, a->root_d});
    }
    if (st == GCG_OK) {
        gcg_cert_entry ce;
        gcg_cert_entry_of(a, &ce);
        st = gcg_writer_add(w, GCG_SEC_CERTIFICATE, &ce, sizeof ce);
    }
    if (st == GCG_OK) {
        gcg_commit_entry e;
        gcg_commit_entry_of(a, &e);
        st = gcg_writer_add(w, GCG_SEC_COMMIT, &e, sizeof e);
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
        st = emit_counts(in->g, w);
    if (st == GCG_OK)
        st = emit_symbols(in->g, w);
    return st;
}
