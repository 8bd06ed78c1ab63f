/* compile.c — the compiler's phases in order (see compile.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "artifact.h"
#include "artifact_format.h"
#include "automaton.h"
#include "certificate.h"
#include "byteclass.h"
#include "compile.h"
#include "count_fold.h"
#include "container_write.h"
#include "emit.h"
#include "gbnf.h"
#include "lower.h"
#include "lr_build.h"
#include "lr_minimize.h"
#include "normalize.h"
#include "tags.h"
#include "triggers.h"
#include "token_refs.h"
#include "token_trie.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Everything the phases produce, freed together. */
typedef struct compilation {
    gbnf_grammar ast;
    cfg g;
    byteclass bc;
    lr_tables lr;
    gcg_vocab bytes256;
    gcg_token_refs refs;  /* the grammar's token references              */
} compilation;

static void compilation_free(compilation *c)
{
    gcg_gbnf_free(&c->ast);
    cfg_free(&c->g);
    gcg_byteclass_free(&c->bc);
    gcg_lr_free(&c->lr);
    gcg_vocab_free(&c->bytes256);
}

/* The longest token in bytes (1: the 256 single bytes); every token counts,
 * special or not, so the window of count_fold.h is never too short. */
static uint32_t longest_token(const gcg_vocab *v)
{
    uint32_t most = 1;
    for (uint32_t i = 0; v && i < v->n_tokens; i++)
        if (v->offsets[i + 1] - v->offsets[i] > most)
            most = v->offsets[i + 1] - v->offsets[i];
    return most;
}

/* Lower -> normalize -> fold counts, building only the chain links the fold
 * keeps; in full again (lowering window 0) in the rare case a chain left
 * short did not fold, without the first try's warnings. */
static gcg_status folded_grammar(compilation *c, const gcg_compile_options *opt, gcg_diag *diag)
{
    uint32_t window = longest_token(opt->vocab) + 1, n_diag = diag ? diag->n : 0;
    for (uint32_t lower_window = window;; lower_window = 0) {
        bool short_left = false;
        gcg_status st = gcg_lower_folding(&c->ast, &c->g, &opt->limits, lower_window, diag);
        if (st == GCG_OK)
            st = gcg_normalize_latency(&c->g, &c->ast, diag);
        if (st == GCG_OK)
            st = gcg_count_fold(&c->g, window, &short_left);
        if (st != GCG_OK || !short_left)
            return st;
        cfg_free(&c->g);
        gcg_diag_truncate(diag, n_diag);
    }
}

/* Front end and LR tables: parse -> lower -> normalize -> fold counts ->
 * classes -> LALR(1). */
static gcg_status build_tables(compilation *c, const char *src, size_t len,
                               const gcg_compile_options *opt, gcg_compile_stats *stats,
                               gcg_diag *diag)
{
    double t0 = now();
    gcg_status st = gcg_gbnf_parse(src, len, opt->root_name, &c->ast, diag);
    if (st == GCG_OK)
        st = gcg_token_refs_resolve(&c->ast, opt->vocab, &c->refs, diag);
    if (st == GCG_OK)
        st = folded_grammar(c, opt, diag);
    if (st == GCG_OK)
        st = gcg_byteclass_build(&c->g, &c->bc);
    double t1 = now();
    if (st == GCG_OK)
        st = gcg_lr_build(&c->g, &c->bc, &opt->limits, &c->lr, diag);
    stats->lr_states_built = c->lr.n_states;
    if (st == GCG_OK && !opt->no_lr_merge)
        st = gcg_lr_minimize(&c->lr, &c->g);
    stats->seconds_front = t1 - t0;
    stats->seconds_lr = now() - t1;
    if (st != GCG_OK)
        return st;
    stats->gbnf_rules = c->ast.n_rules;
    stats->nonterminals = c->g.n_nts;
    stats->productions = c->g.n_prods;
    stats->byte_classes = c->bc.n_classes;
    stats->lr_states = c->lr.n_states;
    stats->sr_conflicts = c->lr.sr_conflicts;
    stats->rr_conflicts = c->lr.rr_conflicts;
    return GCG_OK;
}

/* The mask automaton and its certificate; --strict-latency refuses a cyclic one. */
static gcg_status build_automaton(compilation *c, const gcg_vocab *v, const token_trie *trie,
                                  const uint8_t *class_of, const gcg_compile_options *opt, gcg_writer *w,
                                  gcg_compile_stats *stats, gcg_diag *diag)
{
    double t0 = now();
    const char **names = malloc(((size_t)c->ast.n_rules + 1) * sizeof *names);
    if (!names)
        return GCG_ERR_NOMEM;
    for (uint32_t r = 0; r < c->ast.n_rules; r++)
        names[r] = c->ast.rules[r].name;
    mask_automaton a;
    gcg_status st = gcg_automaton_build(&c->g, &c->lr, v, trie, class_of, &opt->limits,
                                        !opt->no_shared_walks, opt->resume_group_min, names, &a, diag);
    /* A commit may follow a reference and the token's bytes at once, or two
     * references: the frontier is then their union, which neither the fork
     * analysis nor the commit bound models, unless no state reads both. */
    bool one_path = c->refs.n && gcg_token_refs_one_path(&c->refs, opt->vocab, &c->lr, class_of);
    bool unions = !one_path && gcg_token_refs_overlap_text(&c->refs, opt->vocab);
    if (st == GCG_OK)
        st = gcg_certify_whole(&a, &c->lr, &c->g, names, unions);
    if (st == GCG_OK && c->refs.n && !one_path && a.commit_bounded == GCG_CERT_BOUNDED) {
        a.commit_bounded = GCG_CERT_UNBOUNDED_AMBIGUITY;
        snprintf(a.commit_rule, sizeof a.commit_rule, "%s", "token reference");
    }
    free(names);
    stats->trie_nodes = trie->n_nodes;
    if (st != GCG_OK)
        return st;
    stats->dfa_states = a.n_states;
    stats->dfa_states_built = a.n_states_built;
    stats->token_sets = a.n_sets;
    stats->walks_shared = a.walks_shared;
    stats->roots_replayed = a.roots_replayed;
    stats->resumes_shared = a.resumes_shared;
    stats->shared_dropped = a.shared_dropped;
    stats->trie_visits = a.sim_steps;
    if (!a.bounded && opt->strict_latency) {
        gcg_diag_add(diag, GCG_SEV_ERROR, 0, 0,
                     "latency unbounded: masks may read arbitrarily %s because of rule \"%s\" "
                     "(--strict-latency)",
                     a.unbounded_reason == GCG_CERT_UNBOUNDED_AMBIGUITY ? "wide (ambiguity)" : "deep",
                     a.unbounded_rule);
        st = GCG_ERR_LIMIT;
    }
    if (st == GCG_OK)
        st = gcg_emit_automaton(&a, c->lr.n_states, w);
    if (st == GCG_OK) {
        gcg_cert_entry ce;
        gcg_commit_entry e;
        gcg_cert_entry_of(&a, &ce);
        gcg_commit_entry_of(&a, &e);
        gcg_cert_entry_decode(&ce, &stats->certificate);
        gcg_commit_entry_decode(&e, &stats->certificate);
    }
    gcg_automaton_free(&a);
    stats->seconds_automaton = now() - t0;
    return st;
}

static gcg_status write_artifact(compilation *c, const char *src, size_t len,
                                 const gcg_compile_options *opt, uint8_t **out, size_t *out_size,
                                 gcg_compile_stats *stats, gcg_diag *diag)
{
    const gcg_vocab *v = opt->vocab;
    if (!v) {
        gcg_status st = gcg_vocab_bytes256(NULL, 0, &c->bytes256);
        if (st != GCG_OK)
            return st;
        v = &c->bytes256;
    }
    gcg_emit_input in = {
        .grammar_src = src, .grammar_len = len, .root = opt->root_name,
        .grammar_name = opt->grammar_name,
        .g = &c->g, .bc = &c->bc, .lr = &c->lr, .vocab = v,
        .vocab_name = opt->vocab ? (opt->vocab_name ? opt->vocab_name : "tokenizer") : "bytes256",
    };
    /* The vocabulary's sections: prepared once per vocabulary when given. */
    gcg_vocab_sections own = {0};
    const gcg_vocab_sections *vs = opt->vocab && opt->vocab_sections ? opt->vocab_sections : &own;
    gcg_status st = vs == &own ? gcg_vocab_sections_build(v, &own) : GCG_OK;
    /* Token references: the automaton reads their terminal bytes; the
     * runtime's byte map sends those bytes, in a token's text, to the dead
     * class, and the TOKEN_REFS section names the references' classes. */
    uint8_t walk_class[256];
    memcpy(walk_class, c->bc.class_of, sizeof walk_class);
    for (uint32_t k = 0; k < c->refs.n; k++)
        c->bc.class_of[c->refs.ref[k].byte] = walk_class[GCG_TOKEN_REF_DEAD];
    gcg_writer w;
    gcg_writer_init(&w);
    if (st == GCG_OK)
        st = gcg_emit_tables(&in, &w);
    if (st == GCG_OK && c->refs.n)
        st = gcg_token_refs_emit(&c->refs, walk_class, v->n_tokens, &w);
    if (st == GCG_OK)
        st = gcg_emit_vocab(vs, opt->vocab_by_reference, &w);
    /* The byte trie the mask automaton walks: the prepared vocabulary's, or
     * with token references one with a virtual token for each. */
    token_trie own_trie = {0};
    gcg_vocab ref_vocab = {0};
    const gcg_vocab *walk_v = v;
    if (st == GCG_OK && c->refs.n && !opt->no_automaton) {
        st = gcg_token_refs_vocab(v, &c->refs, &ref_vocab);
        walk_v = &ref_vocab;
    }
    const token_trie *trie = opt->vocab && opt->vocab_trie && !c->refs.n ? opt->vocab_trie : &own_trie;
    if (st == GCG_OK && !opt->no_automaton && trie == &own_trie)
        st = gcg_trie_build(walk_v, NULL, &own_trie);
    if (st == GCG_OK && !opt->no_automaton)
        st = build_automaton(c, walk_v, trie, walk_class, opt, &w, stats, diag);
    gcg_trie_free(&own_trie);
    gcg_vocab_free(&ref_vocab);
    if (st == GCG_OK && opt->n_triggers)
        st = gcg_triggers_emit(opt->triggers, opt->n_triggers, v->n_tokens, &w, diag);
    if (st == GCG_OK)
        st = gcg_writer_finish(&w, out, out_size);
    gcg_writer_free(&w);
    gcg_vocab_sections_free(&own);
    return st;
}

gcg_status gcg_compile(const char *src, size_t len, const gcg_compile_options *opt, bool check_only,
                       uint8_t **out, size_t *out_size, gcg_compile_stats *stats, gcg_diag *diag)
{
    static const gcg_compile_options defaults = {0};
    gcg_compile_stats local;
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    if (!opt)
        opt = &defaults;
    if (out)
        *out = NULL;
    if (out_size)
        *out_size = 0;
    double t0 = now();
    compilation c;
    memset(&c, 0, sizeof c);
    char *tagged = NULL, *tag_root = NULL;
    gcg_compile_options tag_opt = *opt;
    gcg_status st = GCG_OK;
    if (opt->n_tags) { /* tagged regions: compile the grammar that wraps src */
        st = gcg_tags_wrap(src, len, opt->tags, opt->n_tags, opt->tags_eos_free_only, &tagged,
                           &len, &tag_root, diag);
        src = tagged, tag_opt.root_name = tag_root, opt = &tag_opt;
    }
    if (st == GCG_OK)
        st = build_tables(&c, src, len, opt, stats, diag);
    if (st == GCG_OK && !check_only) {
        if (!out || !out_size)
            st = GCG_ERR_ARG;
        else
            st = write_artifact(&c, src, len, opt, out, out_size, stats, diag);
        if (st == GCG_OK)
            stats->artifact_bytes = *out_size;
    }
    compilation_free(&c);
    free(tagged), free(tag_root);
    stats->seconds_total = now() - t0;
    if (st != GCG_OK && diag->n_errors == 0)
        gcg_diag_add(diag, GCG_SEV_ERROR, 0, 0, "compilation failed: %s", gcg_status_str(st));
    return st;
}
