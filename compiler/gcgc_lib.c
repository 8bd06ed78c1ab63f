/* gcgc_lib.c — the compile library's public face (see gcgc.h): prepared
 * vocabularies, options and results around the phases of compile.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/artifact.h"
#include "compile.h"
#include "container_write.h"
#include "emit.h"
#include "gcgc.h"
#include "token_trie.h"

struct gcgc_vocab {
    gcg_vocab v;
    gcg_vocabulary *rt;       /* the same as the runtime opens it (.gcgv)   */
    gcg_vocab_sections sec;   /* VOCAB and TRIE bytes, made once: in rt's    */
    token_trie trie;          /* the byte trie the mask automaton walks      */
};

struct gcgc_result {
    gcg_diag diag;
    uint8_t *artifact;
    size_t size;
    gcgc_stats stats;
    char *text;       /* all messages, one a line (NULL: none, or no memory) */
};

/* ---- vocabularies -------------------------------------------------------- */

/* The first error of a loader's diagnostics, as a gcg_error. */
static void first_error(const gcg_diag *d, gcg_status st, gcg_error *err)
{
    if (!err)
        return;
    err->code = st;
    err->offset = UINT64_MAX;
    err->msg[0] = 0;
    for (uint32_t i = 0; i < d->n; i++)
        if (d->v[i].severity == GCG_SEV_ERROR) {
            if (d->v[i].line)
                snprintf(err->msg, sizeof err->msg, "%s:%u:%u: %s", d->file ? d->file : "", d->v[i].line,
                         d->v[i].col, d->v[i].msg);
            else
                snprintf(err->msg, sizeof err->msg, "%s%s%s", d->file ? d->file : "", d->file ? ": " : "",
                         d->v[i].msg);
            return;
        }
    snprintf(err->msg, sizeof err->msg, "%s", gcg_status_str(st));
}

static gcg_status borrow_sections(gcgc_vocab *pv);

/* The sections, made once, and the runtime's view of them: the .gcgv bytes
 * opened as gcg_vocabulary_open_memory would, the sections then borrowed
 * from there so the vocabulary is held once. */
static gcg_status prepare(gcgc_vocab *pv)
{
    gcg_status st = gcg_vocab_sections_build(&pv->v, &pv->sec);
    uint8_t *bytes = NULL;
    size_t n = 0;
    if (st == GCG_OK)
        st = gcgc_vocab_write(pv, &bytes, &n);
    if (st == GCG_OK)
        st = gcg_vocabulary_open_memory(bytes, n, &pv->rt, NULL);
    free(bytes);
    if (st != GCG_OK)
        return st;
    gcg_vocab_sections_free(&pv->sec);
    return borrow_sections(pv);
}

typedef gcg_status (*vocab_loader)(const char *, const uint32_t *, uint32_t, gcg_vocab *, gcg_diag *);

static gcg_status load(vocab_loader fn, const char *path, const uint32_t *eos, uint32_t n_eos,
                       gcgc_vocab **out, gcg_error *err)
{
    if (!out)
        return GCG_ERR_ARG;
    *out = NULL;
    gcgc_vocab *pv = calloc(1, sizeof *pv);
    if (!pv) {
        if (err)
            *err = (gcg_error){GCG_ERR_NOMEM, UINT64_MAX, "out of memory"};
        return GCG_ERR_NOMEM;
    }
    gcg_diag d;
    gcg_diag_init(&d, path);
    gcg_status st = path ? fn(path, eos, n_eos, &pv->v, &d) : gcg_vocab_bytes256(eos, n_eos, &pv->v);
    if (st == GCG_OK && (st = prepare(pv)) != GCG_OK) {
        gcg_diag_add(&d, GCG_SEV_ERROR, 0, 0, "out of memory");
        gcgc_vocab_free(pv);
        pv = NULL;
    }
    if (st != GCG_OK) {
        first_error(&d, st, err);
        free(pv);
    } else {
        *out = pv;
    }
    gcg_diag_free(&d);
    return st;
}

gcg_status gcgc_vocab_load_hf(const char *path, const uint32_t *eos, uint32_t n_eos, gcgc_vocab **out,
                              gcg_error *err)
{
    return path ? load(gcg_vocab_load_hf, path, eos, n_eos, out, err) : GCG_ERR_ARG;
}

gcg_status gcgc_vocab_load_hex(const char *path, const uint32_t *eos, uint32_t n_eos, gcgc_vocab **out,
                               gcg_error *err)
{
    return path ? load(gcg_vocab_load_hex, path, eos, n_eos, out, err) : GCG_ERR_ARG;
}

gcg_status gcgc_vocab_load_tiktoken(const char *path, const uint32_t *eos, uint32_t n_eos,
                                    gcgc_vocab **out, gcg_error *err)
{
    return path ? load(gcg_vocab_load_tiktoken, path, eos, n_eos, out, err) : GCG_ERR_ARG;
}

gcg_status gcgc_vocab_bytes256(const uint32_t *eos, uint32_t n_eos, gcgc_vocab **out, gcg_error *err)
{
    return load(NULL, NULL, eos, n_eos, out, err);
}

/* A .gcgv file: its checked views copied into a gcg_vocab, its sections
 * borrowed as they are (the same bytes, so the same fingerprint). */
static gcg_status from_gcgv(const gcg_vocabulary *f, gcgc_vocab *pv)
{
    const gcg_vocab_view *x = &f->v;
    gcg_vocab *v = &pv->v;
    uint32_t nb = x->offsets[x->n_tokens];
    v->n_tokens = x->n_tokens, v->n_eos = x->n_eos;
    v->offsets = malloc(((size_t)x->n_tokens + 1) * 4);
    v->bytes = malloc(nb ? nb : 1);
    v->flags = malloc(x->n_tokens);
    v->eos = malloc((size_t)(x->n_eos ? x->n_eos : 1) * 4);
    if (!v->offsets || !v->bytes || !v->flags || !v->eos)
        return GCG_ERR_NOMEM;
    memcpy(v->offsets, x->offsets, ((size_t)x->n_tokens + 1) * 4);
    memcpy(v->bytes, x->bytes, nb);
    memcpy(v->flags, x->flags, x->n_tokens);
    if (x->n_eos)
        memcpy(v->eos, x->eos, (size_t)x->n_eos * 4);
    gcg_vocab_set_eos_source(v, "%s", "the prepared vocabulary (.gcgv)");
    return borrow_sections(pv);
}

/* The sections as they lie in the runtime vocabulary's bytes. */
static gcg_status borrow_sections(gcgc_vocab *pv)
{
    if (gcg_trie_build(&pv->v, NULL, &pv->trie) != GCG_OK)
        return GCG_ERR_NOMEM;
    const gcg_vocabulary *f = pv->rt;
    uint64_t vsize, tsize;
    pv->sec = (gcg_vocab_sections){
        .vocab = (uint8_t *)gcg_container_section(&f->c, GCG_SEC_VOCAB, &vsize),
        .trie = (uint8_t *)gcg_container_section(&f->c, GCG_SEC_TRIE, &tsize),
        .n_tokens = f->v.n_tokens, .fingerprint = f->fingerprint, .borrowed = true,
    };
    pv->sec.vocab_size = (size_t)vsize, pv->sec.trie_size = (size_t)tsize;
    return GCG_OK;
}

gcg_status gcgc_vocab_load_gcgv(const char *path, gcgc_vocab **out, gcg_error *err)
{
    if (!out || !path)
        return GCG_ERR_ARG;
    *out = NULL;
    gcg_vocabulary *f;
    gcg_status st = gcg_vocabulary_open_file(path, &f, err);
    if (st != GCG_OK)
        return st;
    gcgc_vocab *pv = calloc(1, sizeof *pv);
    if (pv)
        pv->rt = f;
    else
        gcg_vocabulary_free(f);
    st = pv ? from_gcgv(f, pv) : GCG_ERR_NOMEM;
    if (st != GCG_OK) {
        gcgc_vocab_free(pv);
        if (err)
            *err = (gcg_error){GCG_ERR_NOMEM, UINT64_MAX, "out of memory"};
        return st;
    }
    *out = pv;
    return GCG_OK;
}

gcg_status gcgc_vocab_write(const gcgc_vocab *v, uint8_t **out, size_t *size)
{
    if (!v || !out || !size)
        return GCG_ERR_ARG;
    *out = NULL, *size = 0;
    gcg_writer w;
    gcg_writer_init(&w);
    gcg_status st = gcg_emit_vocab(&v->sec, false, &w);
    if (st == GCG_OK)
        st = gcg_writer_finish(&w, out, size);
    gcg_writer_free(&w);
    return st;
}

uint64_t gcgc_vocab_fingerprint(const gcgc_vocab *v)
{
    return v ? v->sec.fingerprint : 0;
}

void gcgc_vocab_free(gcgc_vocab *v)
{
    if (!v)
        return;
    gcg_vocab_free(&v->v);
    gcg_vocab_sections_free(&v->sec);
    gcg_trie_free(&v->trie);
    gcg_vocabulary_free(v->rt);
    free(v);
}

const gcg_vocabulary *gcgc_vocab_runtime(const gcgc_vocab *v)
{
    return v ? v->rt : NULL;
}

uint32_t gcgc_vocab_size(const gcgc_vocab *v)
{
    return v ? v->v.n_tokens : 0;
}

const uint32_t *gcgc_vocab_eos(const gcgc_vocab *v, uint32_t *n)
{
    *n = v ? v->v.n_eos : 0;
    return v ? v->v.eos : NULL;
}

const char *gcgc_vocab_eos_source(const gcgc_vocab *v)
{
    return v ? v->v.eos_source : "";
}

const char *gcgc_vocab_eos_warning(const gcgc_vocab *v)
{
    return v ? v->v.eos_warning : "";
}

size_t gcgc_vocab_memory(const gcgc_vocab *v)
{
    if (!v)
        return 0;
    const gcg_vocab *x = &v->v;
    return sizeof *v + ((size_t)x->n_tokens + 1) * sizeof *x->offsets + x->offsets[x->n_tokens] +
           x->n_tokens + (size_t)x->n_eos * sizeof *x->eos + v->sec.vocab_size + v->sec.trie_size +
           gcg_trie_memory(&v->trie);
}

/* ---- compiling ----------------------------------------------------------- */

void gcgc_options_default(gcgc_options *opt)
{
    memset(opt, 0, sizeof *opt);
}

/* The diagnostics as printed text, made once so the result is read-only after. */
static void format_messages(gcgc_result *r)
{
    size_t n = 0;
    FILE *f = open_memstream(&r->text, &n);
    if (!f)
        return;
    gcg_diag_print(&r->diag, f);
    if (fclose(f) != 0) {
        free(r->text);
        r->text = NULL;
    }
}

gcg_status gcgc_compile(const gcgc_vocab *vocab, const char *src, size_t len, const gcgc_options *opt,
                        gcgc_result **out)
{
    if (!out)
        return GCG_ERR_ARG;
    *out = NULL;
    gcgc_options defaults;
    gcgc_options_default(&defaults);
    if (!opt)
        opt = &defaults;
    gcgc_result *r = calloc(1, sizeof *r);
    if (!r)
        return GCG_ERR_NOMEM;
    gcg_diag_init(&r->diag, opt->grammar_name ? opt->grammar_name : "grammar");
    *out = r;
    if (!src && len)
        return GCG_ERR_ARG;
    gcg_compile_options co = {
        .root_name = opt->root,
        .grammar_name = opt->grammar_name,
        .vocab_name = opt->vocab_name,
        .vocab = vocab ? &vocab->v : NULL,
        .vocab_sections = vocab ? &vocab->sec : NULL,
        .vocab_trie = vocab ? &vocab->trie : NULL,
        .vocab_by_reference = opt->vocab_by_reference,
        .strict_latency = opt->strict_latency,
        .no_automaton = opt->no_automaton,
        .limits = {opt->max_repeat, opt->max_grammar_symbols, opt->max_lr_states, opt->max_automaton_states,
                   opt->max_sim_stacks},
        .tags = opt->tags,
        .n_tags = opt->n_tags,
        .tags_eos_free_only = opt->tags_eos_free_only,
        .triggers = opt->triggers,
        .n_triggers = opt->n_triggers,
    };
    gcg_compile_stats cs;
    gcg_status st = gcg_compile(src ? src : "", len, &co, false, &r->artifact, &r->size, &cs, &r->diag);
    r->stats = (gcgc_stats){
        .lr_states = cs.lr_states,
        .lr_states_built = cs.lr_states_built,
        .sr_conflicts = cs.sr_conflicts,
        .rr_conflicts = cs.rr_conflicts,
        .automaton_states = cs.dfa_states,
        .automaton_states_built = cs.dfa_states_built,
        .token_sets = cs.token_sets,
        .artifact_bytes = cs.artifact_bytes,
        .seconds = cs.seconds_total,
        .certificate = cs.certificate,
    };
    format_messages(r);
    return st;
}

void gcgc_result_free(gcgc_result *r)
{
    if (!r)
        return;
    gcg_diag_free(&r->diag);
    free(r->artifact);
    free(r->text);
    free(r);
}

const uint8_t *gcgc_result_artifact(const gcgc_result *r, size_t *size)
{
    *size = r ? r->size : 0;
    return r ? r->artifact : NULL;
}

void gcgc_result_stats(const gcgc_result *r, gcgc_stats *out)
{
    *out = r->stats;
}

uint32_t gcgc_result_message_count(const gcgc_result *r)
{
    return r ? r->diag.n : 0;
}

const char *gcgc_result_message(const gcgc_result *r, uint32_t i, gcgc_severity *severity, uint32_t *line,
                                uint32_t *col)
{
    if (!r || i >= r->diag.n)
        return NULL;
    const gcg_diag_entry *e = &r->diag.v[i];
    if (severity)
        *severity = (gcgc_severity)e->severity;
    if (line)
        *line = e->line;
    if (col)
        *col = e->col;
    return e->msg;
}

const char *gcgc_result_messages_text(const gcgc_result *r)
{
    return r && r->text ? r->text : "";
}
