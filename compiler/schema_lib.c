/* schema_lib.c — the JSON Schema converter behind gcgc.h (section 4). */
#include <stdio.h>
#include <stdlib.h>

#include "gcgc.h"
#include "schema.h"
#include "schema_buf.h"

static gcg_schema_options to_internal(const gcgc_schema_options *o)
{
    gcg_schema_options s;
    gcg_schema_options_default(&s);
    if (o) {
        s.ws = o->ws == 1 ? GCG_SCHEMA_WS_COMPACT : o->ws == 2 ? GCG_SCHEMA_WS_MAX : GCG_SCHEMA_WS_JSON;
        s.ws_max = o->ws_max;
        s.lenient = o->lenient;
        s.oneof_as_anyof = o->oneof_as_anyof;
    }
    return s;
}

static char *messages_text(const gcg_diag *d)
{
    gcg_buf b = {0};
    gcg_buf_puts(&b, "");
    for (uint32_t i = 0; i < d->n; i++) {
        const char *sev = d->v[i].severity == GCG_SEV_ERROR ? "error" : "warning";
        if (d->v[i].line)
            gcg_buf_printf(&b, "%u:%u: %s: %s\n", d->v[i].line, d->v[i].col, sev, d->v[i].msg);
        else
            gcg_buf_printf(&b, "%s: %s\n", sev, d->v[i].msg);
    }
    return gcg_buf_take(&b);
}

gcg_status gcgc_schema_to_gbnf(const char *json, size_t len, const gcgc_schema_options *sopt, char **gbnf_out,
                               char **messages_out)
{
    gcg_diag d;
    gcg_diag_init(&d, NULL);
    gcg_schema_options o = to_internal(sopt);
    gcg_status st = gcg_schema_to_gbnf(json, len, &o, gbnf_out, &d);
    if (messages_out)
        *messages_out = messages_text(&d);
    gcg_diag_free(&d);
    return st;
}

gcg_status gcgc_compile_schema(const gcgc_vocab *vocab, const char *json, size_t len,
                               const gcgc_schema_options *sopt, const gcgc_options *opt, gcgc_result **out,
                               char **messages_out)
{
    if (!out)
        return GCG_ERR_ARG;
    *out = NULL;
    char *gbnf = NULL;
    gcg_status st = gcgc_schema_to_gbnf(json, len, sopt, &gbnf, messages_out);
    if (st != GCG_OK)
        return st;
    gcgc_options o;
    if (opt)
        o = *opt;
    else
        gcgc_options_default(&o);
    if (!o.root)
        o.root = "root";
    size_t n = 0;
    while (gbnf[n])
        n++;
    st = gcgc_compile(vocab, gbnf, n, &o, out);
    free(gbnf);
    return st;
}
