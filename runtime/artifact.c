/* artifact.c — opening a .gcg file: map or copy it, validate the container,
 * then check every table index the matcher will follow, so that a corrupt
 * artifact is an error here and never an out-of-bounds read later. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artifact.h"
#include "error.h"
#include "token_ref_section.h"
#include "trigger_section.h"

/* A required section of exactly `want` bytes (want = 0: any size). */
static const uint8_t *section(const gcg_artifact *a, uint32_t id, uint64_t want, bool exact,
                              uint64_t *size, gcg_error *err)
{
    const uint8_t *p = gcg_container_section(&a->c, id, size);
    if (!p && *size == 0 && !(exact && want == 0)) {
        gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "missing section %s (id %u)",
                      gcg_section_name(id), id);
        return NULL;
    }
    if (exact && *size != want) {
        gcg_error_set(err, GCG_ERR_FORMAT, (uint64_t)(p - a->c.base),
                      "section %s: size %llu, expected %llu", gcg_section_name(id),
                      (unsigned long long)*size, (unsigned long long)want);
        return NULL;
    }
    return p ? p : (const uint8_t *)"";
}

static gcg_status check_action(const gcg_tables *t, uint32_t a, bool in_multi, gcg_error *err)
{
    uint32_t arg = GCG_ACT_ARG(a);
    switch (GCG_ACT_KIND(a)) {
    case GCG_ACT_SHIFT:
        if (arg < t->n_states)
            return GCG_OK;
        break;
    case GCG_ACT_REDUCE:
        if (arg < t->n_prods)
            return GCG_OK;
        break;
    case GCG_ACT_MULTI:
        if (!in_multi && arg < t->n_multi && t->multi[arg] >= 2 &&
            t->multi[arg] <= t->n_multi - arg - 1) {
            for (uint32_t i = 1; i <= t->multi[arg]; i++) {
                uint32_t b = t->multi[arg + i];
                if (GCG_ACT_KIND(b) == GCG_ACT_MULTI || check_action(t, b, true, err) != GCG_OK)
                    return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET,
                                         "conflict list at %u: bad entry %u", arg, i);
            }
            return GCG_OK;
        }
        break;
    default:
        return in_multi ? GCG_ERR_FORMAT : GCG_OK; /* error cell */
    }
    return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "action 0x%08x out of range", a);
}

/* A packed section (artifact_format.h): *out points at it, its counts go to
 * c and its layout to l, once its size matches them. Absent: *out = NULL,
 * GCG_OK when optional, "missing section" otherwise. */
static gcg_status packed(const gcg_container *cont, uint32_t id, bool required, uint32_t c[4],
                         gcg_layout *l, const uint8_t **out, gcg_error *err)
{
    uint64_t size;
    const uint8_t *p = *out = gcg_container_section(cont, id, &size);
    if (!p)
        return required ? gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "missing section %s (id %u)",
                                        gcg_section_name(id), id)
                        : GCG_OK;
    uint64_t at = (uint64_t)(p - cont->base);
    if (size < 16)
        return gcg_error_set(err, GCG_ERR_FORMAT, at, "section %s truncated", gcg_section_name(id));
    memcpy(c, p, 16);
    gcg_section_layout(id, c, l);
    if (l->size != size)
        return gcg_error_set(err, GCG_ERR_FORMAT, at, "section %s: size %llu does not match its counts",
                             gcg_section_name(id), (unsigned long long)size);
    return GCG_OK;
}

/* A displaced table (GCG_SEC_ACTION or GCG_SEC_GOTO) of `width` columns
 * over the LR states: every row's slots lie inside the table. */
static gcg_status load_disp(const gcg_artifact *a, uint32_t id, uint32_t width, const gcg_disp_row **rows,
                            const gcg_disp_slot **slots, uint32_t *n_slots, gcg_error *err)
{
    uint32_t c[4];
    gcg_layout l;
    const uint8_t *p;
    if (packed(&a->c, id, true, c, &l, &p, err) != GCG_OK)
        return GCG_ERR_FORMAT;
    if (c[0] != a->t.n_states || c[2] != width)
        return gcg_error_set(err, GCG_ERR_FORMAT, (uint64_t)(p - a->c.base),
                             "section %s: dimensions %u x %u, expected %u x %u", gcg_section_name(id),
                             c[0], c[2], a->t.n_states, width);
    *rows = (const gcg_disp_row *)(p + l.off[0]);
    *slots = (const gcg_disp_slot *)(p + l.off[1]);
    *n_slots = c[1];
    /* No row may carry the free tag: a free slot would then read as its. */
    for (uint32_t s = 0; s < c[0]; s++)
        if (c[1] < width || (*rows)[s].base > c[1] - width || (*rows)[s].tag == GCG_DISP_FREE)
            return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "section %s: row %u out of range",
                                 gcg_section_name(id), s);
    return GCG_OK;
}

static gcg_status check_tables(const gcg_tables *t, gcg_error *err)
{
    for (uint32_t b = 0; b < 256; b++)
        if (t->class_of[b] >= t->n_classes)
            return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "byte %u: class out of range", b);
    for (uint32_t p = 0; p < t->n_prods; p++)
        if (t->prods[p].lhs >= t->n_nts || t->prods[p].len > t->max_rhs)
            return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "production %u out of range", p);
    /* Every slot, owned or not: a slot no row owns is never read, but
     * checking it too keeps the rule simple. */
    for (uint32_t i = 0; i < t->n_act_slots; i++)
        if (check_action(t, t->act_slots[i].value, false, err) != GCG_OK)
            return GCG_ERR_FORMAT;
    for (uint32_t i = 0; i < t->n_go_slots; i++)
        if (t->go_slots[i].tag != GCG_DISP_FREE && t->go_slots[i].value >= t->n_states)
            return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "goto entry %u out of range", i);
    return GCG_OK;
}

/* GCG_SEC_COUNTS (optional): each entry a production of length 2, in
 * ascending order, exiting to a nonterminal. */
static gcg_status load_counts(gcg_artifact *a, gcg_error *err)
{
    gcg_tables *t = &a->t;
    uint32_t c[4];
    gcg_layout l;
    const uint8_t *p;
    t->counts = NULL, t->n_counts = 0;
    if (packed(&a->c, GCG_SEC_COUNTS, false, c, &l, &p, err) != GCG_OK || !p)
        return p ? GCG_ERR_FORMAT : GCG_OK;
    const gcg_count_entry *e = (const gcg_count_entry *)(p + l.off[0]);
    for (uint32_t i = 0; i < c[0]; i++)
        if (e[i].prod >= t->n_prods || t->prods[e[i].prod].len != 2 || e[i].exit >= t->n_nts ||
            e[i].max >= UINT32_MAX - 1 || e[i].reserved || (i && e[i].prod <= e[i - 1].prod))
            return gcg_error_set(err, GCG_ERR_FORMAT, (uint64_t)(p - a->c.base), "counted repetition %u invalid",
                                 i);
    t->counts = e, t->n_counts = c[0];
    return GCG_OK;
}

static gcg_status load_tables(gcg_artifact *a, gcg_error *err)
{
    gcg_tables *t = &a->t;
    uint64_t size;
    const gcg_tables_header *h =
        (const gcg_tables_header *)section(a, GCG_SEC_BYTECLASS, sizeof *h, true, &size, err);
    if (!h)
        return GCG_ERR_FORMAT;
    if (h->n_classes < 1 || h->n_classes > 256 || h->n_states < 1 || h->n_states > GCG_MAX_STATES ||
        h->n_prods < 1 || h->n_nts < 1 || h->n_nts > (1u << 24) || h->n_prods > (1u << 26) ||
        h->max_rhs > (1u << 24))
        return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "table dimensions out of range");
    t->n_classes = h->n_classes, t->n_terms = h->n_classes + 1, t->n_states = h->n_states;
    t->n_nts = h->n_nts, t->n_prods = h->n_prods, t->n_multi = h->n_multi, t->max_rhs = h->max_rhs;
    t->class_of = h->class_of;
    if ((t->prods = (const void *)section(a, GCG_SEC_PRODUCTIONS, (uint64_t)t->n_prods * 8, true, &size, err)) == NULL ||
        (t->multi = (const void *)section(a, GCG_SEC_MULTI, (uint64_t)t->n_multi * 4, true, &size, err)) == NULL ||
        load_disp(a, GCG_SEC_ACTION, t->n_terms, &t->act_rows, &t->act_slots, &t->n_act_slots, err) != GCG_OK ||
        load_disp(a, GCG_SEC_GOTO, t->n_nts, &t->go_rows, &t->go_slots, &t->n_go_slots, err) != GCG_OK)
        return GCG_ERR_FORMAT;
    if (load_counts(a, err) != GCG_OK)
        return GCG_ERR_FORMAT;
    t->symbols = (const char *)gcg_container_section(&a->c, GCG_SEC_SYMBOLS, &size);
    t->symbols_size = t->symbols && size < UINT32_MAX && size > 0 && t->symbols[size - 1] == 0
                          ? (uint32_t)size : 0;
    if (!t->symbols_size)
        t->symbols = NULL;
    return check_tables(t, err);
}

gcg_status gcg_load_vocab_view(const gcg_container *c, gcg_vocab_view *v, gcg_error *err)
{
    uint32_t h[4];
    gcg_layout l;
    const uint8_t *p;
    memset(v, 0, sizeof *v);
    if (packed(c, GCG_SEC_VOCAB, false, h, &l, &p, err) != GCG_OK || !p)
        return p ? GCG_ERR_FORMAT : GCG_OK;
    if (h[0] == 0 || h[0] > (1u << 24) || h[1] > h[0])
        return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "vocabulary section: counts out of range");
    v->n_tokens = h[0], v->n_eos = h[1];
    v->offsets = (const uint32_t *)(p + l.off[0]);
    v->eos = (const uint32_t *)(p + l.off[1]);
    v->flags = p + l.off[2];
    v->bytes = p + l.off[3];
    if (v->offsets[0] != 0 || v->offsets[h[0]] != h[2])
        return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "vocabulary offsets do not span the bytes");
    for (uint32_t i = 0; i < h[0]; i++)
        if (v->offsets[i] > v->offsets[i + 1])
            return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "vocabulary offset %u decreases", i);
    for (uint32_t i = 0; i < h[1]; i++)
        if (v->eos[i] >= h[0] || (i && v->eos[i] <= v->eos[i - 1]) || !(v->flags[v->eos[i]] & 2))
            return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "vocabulary EOS list entry %u invalid", i);
    return GCG_OK;
}

/* GCG_SEC_TRIE: every node range nested, every token listed once in range. */
gcg_status gcg_load_trie_view(const gcg_container *c, uint32_t n_tokens, gcg_trie_view *t, gcg_error *err)
{
    uint32_t h[4];
    gcg_layout l;
    const uint8_t *p;
    memset(t, 0, sizeof *t);
    if (packed(c, GCG_SEC_TRIE, false, h, &l, &p, err) != GCG_OK || !p)
        return p ? GCG_ERR_FORMAT : GCG_OK;
    uint64_t n = h[0], m = h[1];
    if (n == 0 || n > (1u << 28) || m > n_tokens)
        return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "trie section: counts out of range");
    t->end = (const uint32_t *)(p + l.off[0]);
    t->tok_start = (const uint32_t *)(p + l.off[1]);
    t->tokens = (const uint32_t *)(p + l.off[2]);
    t->byte = p + l.off[3];
    if (t->end[0] != n || t->tok_start[0] != 0 || t->tok_start[n] != m)
        return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "trie root does not span the trie");
    for (uint32_t i = 0; i < n; i++) {
        if (t->end[i] <= i || t->end[i] > n || t->tok_start[i] > t->tok_start[i + 1])
            return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "trie node %u out of range", i);
        /* children must nest: the first child's subtree ends inside ours */
        if (i + 1 < t->end[i] && t->end[i + 1] > t->end[i])
            return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "trie node %u not nested", i);
    }
    for (uint64_t k = 0; k < m; k++)
        if (t->tokens[k] >= n_tokens)
            return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "trie token %llu out of range",
                                 (unsigned long long)k);
    t->n_nodes = (uint32_t)n, t->n_listed = (uint32_t)m;
    return GCG_OK;
}

static gcg_status load_sets(gcg_artifact *a, gcg_error *err)
{
    gcg_mask_view *m = &a->mask;
    uint32_t h[4];
    gcg_layout l;
    const uint8_t *p;
    if (packed(&a->c, GCG_SEC_TOKENSETS, true, h, &l, &p, err) != GCG_OK)
        return GCG_ERR_FORMAT;
    /* bits past the vocabulary: one per token reference */
    uint32_t bits = a->v.n_tokens + a->refs.n;
    if (h[1] != (bits + 31) / 32)
        return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "token set section: %u words, expected %u",
                             h[1], (bits + 31) / 32);
    m->n_sets = h[0], m->words = h[1];
    m->sets = (const gcg_set_entry *)(p + l.off[0]);
    m->set_data = (const uint32_t *)(p + l.off[1]);
    for (uint32_t i = 0; i < m->n_sets; i++) {
        const gcg_set_entry *e = &m->sets[i];
        uint64_t len = e->kind == GCG_SET_DENSE ? m->words : e->count;
        if (e->kind > GCG_SET_SPARSE || e->offset + len > h[2])
            return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "token set %u out of range", i);
        for (uint32_t k = 0; e->kind == GCG_SET_SPARSE && k < e->count; k++)
            if (m->set_data[e->offset + k] >= bits)
                return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "token set %u: id out of range", i);
    }
    return GCG_OK;
}

/* GCG_SEC_AUTOMATON, GCG_SEC_ROOTS, GCG_SEC_CERTIFICATE: present together
 * with the token sets, or not at all (a byte-level-only artifact). */
static gcg_status load_automaton(gcg_artifact *a, gcg_error *err)
{
    gcg_mask_view *m = &a->mask;
    uint32_t h[4], r[4];
    gcg_layout l, rl;
    const uint8_t *p, *roots;
    if (packed(&a->c, GCG_SEC_AUTOMATON, false, h, &l, &p, err) != GCG_OK || !p)
        return p ? GCG_ERR_FORMAT : GCG_OK;
    if (load_sets(a, err) != GCG_OK)
        return GCG_ERR_FORMAT;
    m->n_states = h[0], m->n_trans = h[1];
    m->trans_start = (const uint32_t *)(p + l.off[0]);
    m->trans = (const gcg_trans_entry *)(p + l.off[1]);
    if (m->trans_start[0] != 0 || m->trans_start[h[0]] != h[1])
        return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "automaton transitions do not span the table");
    for (uint32_t d = 0; d < m->n_states; d++) {
        if (m->trans_start[d] > m->trans_start[d + 1])
            return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "automaton state %u out of range", d);
        for (uint32_t i = m->trans_start[d]; i < m->trans_start[d + 1]; i++) {
            const gcg_trans_entry *t = &m->trans[i];
            if (t->q >= a->t.n_states || t->acc >= m->n_sets ||
                (t->next != GCG_NO_STATE && t->next >= m->n_states) ||
                (i > m->trans_start[d] && t->q <= m->trans[i - 1].q))
                return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "automaton transition %u out of range", i);
        }
    }
    if (packed(&a->c, GCG_SEC_ROOTS, true, r, &rl, &roots, err) != GCG_OK)
        return GCG_ERR_FORMAT;
    if (r[0] != a->t.n_states)
        return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "roots section: %u states, expected %u", r[0],
                             a->t.n_states);
    m->root_acc = (const uint32_t *)(roots + rl.off[0]), m->root_d = (const uint32_t *)(roots + rl.off[1]);
    for (uint32_t s = 0; s < a->t.n_states; s++)
        if (m->root_acc[s] >= m->n_sets || (m->root_d[s] != GCG_NO_STATE && m->root_d[s] >= m->n_states))
            return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "root of state %u out of range", s);
    uint64_t size;
    m->cert = (const gcg_cert_entry *)gcg_container_section(&a->c, GCG_SEC_CERTIFICATE, &size);
    if (!m->cert || size != sizeof *m->cert)
        return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "certificate section missing or of the wrong size");
    if (m->cert->bounded > GCG_CERT_UNBOUNDED_AMBIGUITY)
        return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "certificate: unknown bound kind %u",
                             m->cert->bounded);
    m->commit = (const gcg_commit_entry *)gcg_container_section(&a->c, GCG_SEC_COMMIT, &size);
    if (m->commit && (size != sizeof *m->commit || m->commit->bounded > GCG_CERT_UNBOUNDED_AMBIGUITY))
        return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET, "commit bound section of the wrong size or kind");
    return GCG_OK;
}

uint64_t gcg_vocab_fingerprint_of(const gcg_container *c)
{
    for (uint32_t i = 0; i < c->n_sections; i++)
        if (c->sections[i].id == GCG_SEC_VOCAB)
            return c->sections[i].hash; /* XXH3-64 of the section: checked by the parse */
    return 0;
}

gcg_status gcg_load_vocab_ref(const gcg_container *c, uint32_t *n_tokens, uint64_t *fp, gcg_error *err)
{
    uint32_t h[4];
    gcg_layout l;
    const uint8_t *p;
    *n_tokens = 0, *fp = 0;
    if (packed(c, GCG_SEC_VOCAB_REF, false, h, &l, &p, err) != GCG_OK)
        return GCG_ERR_FORMAT;
    if (p)
        *n_tokens = h[0], *fp = h[2] | (uint64_t)h[3] << 32;
    return GCG_OK;
}

/* The vocabulary: the artifact's own sections, or the one given for a
 * by-reference artifact; a given one must have the artifact's fingerprint. */
static gcg_status attach_vocab(gcg_artifact *a, const gcg_vocabulary *vocab, gcg_error *err)
{
    uint32_t ref_tokens;
    uint64_t ref_fp;
    if (gcg_load_vocab_ref(&a->c, &ref_tokens, &ref_fp, err) != GCG_OK)
        return GCG_ERR_FORMAT;
    a->vocab_embedded = gcg_container_section(&a->c, GCG_SEC_VOCAB, &(uint64_t){0}) != NULL;
    if (a->vocab_embedded) {
        if (gcg_load_vocab_view(&a->c, &a->v, err) != GCG_OK ||
            gcg_load_trie_view(&a->c, a->v.n_tokens, &a->trie, err) != GCG_OK)
            return GCG_ERR_FORMAT;
        a->vocab_fp = gcg_vocab_fingerprint_of(&a->c);
        if (ref_fp && ref_fp != a->vocab_fp)
            return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET,
                                 "vocabulary section does not match its fingerprint %016llx",
                                 (unsigned long long)ref_fp);
    } else {
        a->vocab_fp = ref_fp;
    }
    if (!a->vocab_embedded && ref_fp && !vocab)
        return gcg_error_set(err, GCG_ERR_VOCAB_MISMATCH, GCG_NO_OFFSET,
                             "this artifact was compiled against vocabulary fingerprint %016llx; "
                             "open it with gcg_artifact_open_file_vocab", (unsigned long long)ref_fp);
    if (!vocab)
        return GCG_OK;
    if (vocab->fingerprint != a->vocab_fp)
        return gcg_error_set(err, GCG_ERR_VOCAB_MISMATCH, GCG_NO_OFFSET,
                             "vocabulary does not match the artifact: fingerprint %016llx, expected %016llx",
                             (unsigned long long)vocab->fingerprint, (unsigned long long)a->vocab_fp);
    if (!a->vocab_embedded) {
        if (ref_tokens != vocab->v.n_tokens)
            return gcg_error_set(err, GCG_ERR_FORMAT, GCG_NO_OFFSET,
                                 "vocabulary reference: %u tokens, the vocabulary has %u", ref_tokens,
                                 vocab->v.n_tokens);
        a->v = vocab->v, a->trie = vocab->trie; /* borrowed: vocab outlives a */
    }
    return GCG_OK;
}

static gcg_status open_validated(gcg_artifact *a, const gcg_vocabulary *vocab, gcg_error *err)
{
    gcg_status st = gcg_container_parse(a->mem, a->size, &a->c, err);
    if (st == GCG_OK)
        st = load_tables(a, err);
    if (st == GCG_OK)
        st = attach_vocab(a, vocab, err);
    if (st == GCG_OK)
        st = gcg_token_ref_section_load(a, err);
    if (st == GCG_OK)
        st = load_automaton(a, err);
    if (st == GCG_OK)
        st = gcg_trigger_section_check(a, err);
    return st;
}

gcg_status gcg_copy_aligned(const void *data, size_t size, uint8_t **mem, gcg_error *err)
{
    void *m = NULL;
    if (posix_memalign(&m, 64, size ? size : 1) != 0)
        return gcg_error_set(err, GCG_ERR_NOMEM, GCG_NO_OFFSET, "out of memory");
    if (size)
        memcpy(m, data, size);
    *mem = m;
    return GCG_OK;
}

gcg_status gcg_map_file(const char *path, uint8_t **mem, size_t *size, gcg_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return gcg_error_set(err, GCG_ERR_IO, GCG_NO_OFFSET, "%s: %s", path, strerror(e));
    }
    if (st.st_size == 0) {
        close(fd);
        return gcg_error_set(err, GCG_ERR_FORMAT, 0, "%s: empty file", path);
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return gcg_error_set(err, GCG_ERR_IO, GCG_NO_OFFSET, "%s: cannot map: %s", path, strerror(errno));
    *mem = m, *size = (size_t)st.st_size;
    return GCG_OK;
}

void gcg_release(uint8_t *mem, size_t size, bool mapped)
{
    if (mapped)
        munmap(mem, size);
    else
        free(mem);
}

/* Takes over mem (mapped or owned) whatever the outcome. */
static gcg_status open_bytes(uint8_t *mem, size_t size, bool mapped, const gcg_vocabulary *vocab,
                             gcg_artifact **out, gcg_error *err)
{
    gcg_artifact *a = calloc(1, sizeof *a);
    if (!a) {
        gcg_release(mem, size, mapped);
        return gcg_error_set(err, GCG_ERR_NOMEM, GCG_NO_OFFSET, "out of memory");
    }
    a->mem = mem, a->size = size, a->mapped = mapped;
    gcg_status st = open_validated(a, vocab, err);
    if (st != GCG_OK) {
        gcg_artifact_free(a);
        return st;
    }
    *out = a;
    return GCG_OK;
}

gcg_status gcg_artifact_open_memory_vocab(const void *data, size_t size, const gcg_vocabulary *vocab,
                                          gcg_artifact **out, gcg_error *err)
{
    if (!out || (!data && size))
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET, "NULL argument");
    *out = NULL;
    uint8_t *mem;
    if (gcg_copy_aligned(data, size, &mem, err) != GCG_OK)
        return GCG_ERR_NOMEM;
    return open_bytes(mem, size, false, vocab, out, err);
}

gcg_status gcg_artifact_open_file_vocab(const char *path, const gcg_vocabulary *vocab, gcg_artifact **out,
                                        gcg_error *err)
{
    if (!out || !path)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET, "NULL argument");
    *out = NULL;
    uint8_t *mem;
    size_t size;
    gcg_status st = gcg_map_file(path, &mem, &size, err);
    return st == GCG_OK ? open_bytes(mem, size, true, vocab, out, err) : st;
}

gcg_status gcg_artifact_open_memory(const void *data, size_t size, gcg_artifact **out, gcg_error *err)
{
    return gcg_artifact_open_memory_vocab(data, size, NULL, out, err);
}

gcg_status gcg_artifact_open_file(const char *path, gcg_artifact **out, gcg_error *err)
{
    return gcg_artifact_open_file_vocab(path, NULL, out, err);
}

uint64_t gcg_artifact_vocab_fingerprint(const gcg_artifact *a, bool *embedded)
{
    if (embedded)
        *embedded = a->vocab_embedded;
    return a->vocab_fp;
}

void gcg_artifact_free(gcg_artifact *a)
{
    if (!a)
        return;
    gcg_release(a->mem, a->size, a->mapped);
    free(a);
}

uint32_t gcg_artifact_vocab_size(const gcg_artifact *a)
{
    return a->v.n_tokens;
}

size_t gcg_artifact_mask_words(const gcg_artifact *a)
{
    /* with token references, the automaton's sets have a bit for each */
    return a->mask.n_sets ? a->mask.words : ((size_t)a->v.n_tokens + 31) / 32;
}

const uint32_t *gcg_artifact_eos(const gcg_artifact *a, uint32_t *n)
{
    *n = a->v.n_eos;
    return a->v.eos;
}

const uint8_t *gcg_artifact_token_bytes(const gcg_artifact *a, uint32_t id, uint32_t *len)
{
    if (id >= a->v.n_tokens || (a->v.flags[id] & 1)) {
        *len = 0;
        return NULL;
    }
    *len = a->v.offsets[id + 1] - a->v.offsets[id];
    return a->v.bytes + a->v.offsets[id];
}

void gcg_cert_entry_decode(const gcg_cert_entry *c, gcg_certificate *out)
{
    memset(out, 0, sizeof *out);
    out->bounded = c->bounded == GCG_CERT_BOUNDED;
    out->max_edges = c->max_edges;
    out->unbounded_reason = c->bounded == GCG_CERT_BOUNDED ? GCG_UNBOUNDED_NONE
                            : c->bounded == GCG_CERT_UNBOUNDED_AMBIGUITY ? GCG_UNBOUNDED_AMBIGUITY
                                                                          : GCG_UNBOUNDED_RECURSION;
    out->max_stack_reads = c->max_stack_reads;
    out->max_set_ops = c->max_set_ops;
    out->max_bytes = c->max_bytes;
    memcpy(out->unbounded_rule, c->unbounded_rule, sizeof out->unbounded_rule);
    out->unbounded_rule[sizeof out->unbounded_rule - 1] = 0;
}

void gcg_commit_entry_decode(const gcg_commit_entry *e, gcg_certificate *out)
{
    out->commit_bounded = e && e->bounded == GCG_CERT_BOUNDED;
    out->max_commit_step_work = out->commit_bounded ? e->max_step_work : 0;
    out->commit_unbounded_reason = !e || out->commit_bounded ? GCG_UNBOUNDED_NONE
                                   : e->bounded == GCG_CERT_UNBOUNDED_AMBIGUITY ? GCG_UNBOUNDED_AMBIGUITY
                                                                               : GCG_UNBOUNDED_RECURSION;
    memset(out->commit_unbounded_rule, 0, sizeof out->commit_unbounded_rule);
    if (e && !out->commit_bounded)
        memcpy(out->commit_unbounded_rule, e->unbounded_rule, sizeof out->commit_unbounded_rule - 1);
}

gcg_status gcg_artifact_certificate(const gcg_artifact *a, gcg_certificate *out)
{
    if (!a || !out)
        return GCG_ERR_ARG;
    if (!a->mask.cert)
        return GCG_ERR_NO_VOCAB;
    gcg_cert_entry_decode(a->mask.cert, out);
    gcg_commit_entry_decode(a->mask.commit, out);
    return GCG_OK;
}

const gcg_container *gcg_artifact_container(const gcg_artifact *a)
{
    return &a->c;
}

const char *gcg_artifact_meta(const gcg_artifact *a, const char *key, size_t *len)
{
    uint64_t size;
    const char *p = (const char *)gcg_container_section(&a->c, GCG_SEC_META, &size);
    size_t klen = strlen(key);
    for (const char *end = p ? p + size : NULL; p && p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        if ((size_t)(eol - p) > klen && memcmp(p, key, klen) == 0 && p[klen] == '=') {
            *len = (size_t)(eol - p - klen - 1);
            return p + klen + 1;
        }
        p = nl ? nl + 1 : end;
    }
    *len = 0;
    return NULL;
}

const char *gcg_section_name(uint32_t id)
{
    static const char *const names[] = {"unknown", "meta", "grammar", "byteclass", "productions",
                                        "action", "multi", "goto", "symbols", "vocab", "tokensets",
                                        "automaton", "roots", "certificate", "trie", "triggers",
                                        "vocabref", "tokenrefs", "counts", "commit"};
    return id < sizeof names / sizeof *names ? names[id] : "unknown";
}
