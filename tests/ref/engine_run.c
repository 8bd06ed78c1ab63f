/*
 * engine_run.c — the engine side of the comparisons (engine_run.h).
 */
#include "engine_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcg.h"

struct eng {
    gcg_artifact *art;
    gcg_matcher *m;
};

static void copy_msg(char *msg, size_t cap, const char *s)
{
    if (cap)
        snprintf(msg, cap, "%s", s ? s : "");
}

/* The first error of a diagnostic list, else the status name. */
static void first_error(const gcg_diag *d, gcg_status st, char *msg, size_t cap)
{
    for (uint32_t i = 0; i < d->n; i++) {
        if (d->v[i].severity == GCG_SEV_ERROR) {
            if (cap)
                snprintf(msg, cap, "%u:%u: %s", d->v[i].line, d->v[i].col,
                         d->v[i].msg ? d->v[i].msg : "");
            return;
        }
    }
    copy_msg(msg, cap, gcg_status_str(st));
}

static gcg_status compile_src(const char *src, size_t len, const char *root, bool with_automaton,
                              uint8_t **bytes, size_t *size, char *msg, size_t cap)
{
    gcg_compile_options opt = {0};
    opt.root_name = root;
    opt.no_automaton = !with_automaton;
    gcg_compile_stats stats;
    gcg_diag d;
    gcg_diag_init(&d, "grammar");
    gcg_status st = gcg_compile(src, len, &opt, false, bytes, size, &stats, &d);
    if (st == GCG_OK && d.n_errors)
        st = GCG_ERR_ARG; /* an error reported without an error status */
    if (st != GCG_OK)
        first_error(&d, st, msg, cap);
    gcg_diag_free(&d);
    return st;
}

gcg_status eng_open(const char *src, size_t len, const char *root, bool with_automaton, eng **out,
                    char *msg, size_t msg_cap)
{
    *out = NULL;
    copy_msg(msg, msg_cap, "");
    uint8_t *bytes = NULL;
    size_t size = 0;
    gcg_status st = compile_src(src, len, root, with_automaton, &bytes, &size, msg, msg_cap);
    if (st != GCG_OK)
        return st;
    eng *e = calloc(1, sizeof *e);
    gcg_error err = {0};
    st = e ? gcg_artifact_open_memory(bytes, size, &e->art, &err) : GCG_ERR_NOMEM;
    free(bytes);
    if (st == GCG_OK)
        st = gcg_matcher_new(e->art, NULL, &e->m, NULL);
    if (st != GCG_OK) {
        copy_msg(msg, msg_cap, err.msg[0] ? err.msg : gcg_status_str(st));
        eng_free(e);
        return st;
    }
    *out = e;
    return GCG_OK;
}

void eng_free(eng *e)
{
    if (!e)
        return;
    gcg_matcher_free(e->m);
    gcg_artifact_free(e->art);
    free(e);
}

gcg_matcher *eng_matcher(eng *e)
{
    return e->m;
}

/* After the text is consumed: complete iff EOS is accepted. */
static ref_result end_verdict(eng *e, size_t n)
{
    bool complete = gcg_matcher_is_complete(e->m);
    gcg_status eos = gcg_matcher_commit_eos(e->m);
    if ((eos == GCG_OK) != complete || (eos != GCG_OK && eos != GCG_ERR_REJECTED))
        return (ref_result){REF_ERROR, n};
    return (ref_result){complete ? REF_COMPLETE : REF_PREFIX, n};
}

ref_result eng_match(eng *e, const uint8_t *text, size_t n)
{
    gcg_matcher_reset(e->m);
    for (size_t i = 0; i < n; i++) {
        size_t used = 0;
        gcg_status st = gcg_matcher_commit_bytes(e->m, text + i, 1, &used);
        if (st == GCG_ERR_REJECTED)
            return (ref_result){used == 0 ? REF_REJECT : REF_ERROR, i};
        if (st != GCG_OK)
            return (ref_result){REF_ERROR, i};
    }
    return end_verdict(e, n);
}

ref_result eng_match_whole(eng *e, const uint8_t *text, size_t n)
{
    gcg_matcher_reset(e->m);
    size_t used = 0;
    gcg_status st = gcg_matcher_commit_bytes(e->m, text, n, &used);
    if (st == GCG_ERR_REJECTED)
        return (ref_result){REF_REJECT, used};
    if (st != GCG_OK)
        return (ref_result){REF_ERROR, used};
    return end_verdict(e, n);
}
