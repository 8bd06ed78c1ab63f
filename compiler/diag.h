/*
 * diag.h — compiler diagnostics: errors and warnings with a source position,
 * collected (never printed by library code) and printed by the CLI as
 * `file:line:col: error: message`.
 */
#ifndef GCG_DIAG_H
#define GCG_DIAG_H

#include <stdint.h>
#include <stdio.h>

typedef enum gcg_severity { GCG_SEV_ERROR = 0, GCG_SEV_WARNING = 1, GCG_SEV_NOTE = 2 } gcg_severity;

typedef struct gcg_diag_entry {
    gcg_severity severity;
    uint32_t line, col;   /* 1-based; 0 when the message has no position */
    char *msg;            /* owned */
} gcg_diag_entry;

typedef struct gcg_diag {
    const char *file;     /* name printed before positions (not owned); may be NULL */
    gcg_diag_entry *v;
    uint32_t n, cap;
    uint32_t n_errors;
} gcg_diag;

void gcg_diag_init(gcg_diag *d, const char *file);
void gcg_diag_free(gcg_diag *d);

/* Adds a diagnostic. Out of memory drops the message but still counts an error. */
void gcg_diag_add(gcg_diag *d, gcg_severity sev, uint32_t line, uint32_t col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Drops the entries after the first n (a phase that is run again). */
void gcg_diag_truncate(gcg_diag *d, uint32_t n);

/* Prints every entry as `file:line:col: error: msg` (file/line/col omitted when unknown). */
void gcg_diag_print(const gcg_diag *d, FILE *out);

#endif /* GCG_DIAG_H */
