/* diag.c — collecting and printing compiler diagnostics. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

void gcg_diag_init(gcg_diag *d, const char *file)
{
    memset(d, 0, sizeof *d);
    d->file = file;
}

void gcg_diag_free(gcg_diag *d)
{
    for (uint32_t i = 0; i < d->n; i++)
        free(d->v[i].msg);
    free(d->v);
    d->v = NULL;
    d->n = d->cap = d->n_errors = 0;
}

void gcg_diag_truncate(gcg_diag *d, uint32_t n)
{
    for (; d && d->n > n; d->n--) {
        d->n_errors -= d->v[d->n - 1].severity == GCG_SEV_ERROR && d->n_errors;
        free(d->v[d->n - 1].msg);
    }
}

void gcg_diag_add(gcg_diag *d, gcg_severity sev, uint32_t line, uint32_t col, const char *fmt, ...)
{
    if (sev == GCG_SEV_ERROR)
        d->n_errors++;
    if (d->n == d->cap) {
        uint32_t cap = d->cap ? d->cap * 2 : 8;
        gcg_diag_entry *v = realloc(d->v, cap * sizeof *v);
        if (!v)
            return;
        d->v = v;
        d->cap = cap;
    }
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *msg = strdup(buf);
    if (!msg)
        return;
    d->v[d->n++] = (gcg_diag_entry){sev, line, col, msg};
}

static const char *severity_name(gcg_severity s)
{
    return s == GCG_SEV_ERROR ? "error" : s == GCG_SEV_WARNING ? "warning" : "note";
}

void gcg_diag_print(const gcg_diag *d, FILE *out)
{
    for (uint32_t i = 0; i < d->n; i++) {
        const gcg_diag_entry *e = &d->v[i];
        if (d->file)
            fprintf(out, "%s:", d->file);
        if (e->line)
            fprintf(out, "%u:%u:", e->line, e->col);
        fprintf(out, "%s%s: %s\n", (d->file || e->line) ? " " : "", severity_name(e->severity),
                e->msg);
    }
}
