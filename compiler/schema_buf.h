/*
 * schema_buf.h — a growable text buffer for the JSON Schema and regex front
 * ends, which build GBNF text piece by piece. Out of memory is sticky: the
 * buffer remembers it (`oom`) and every later append is a no-op, so callers
 * check once at the end.
 */
#ifndef GCG_SCHEMA_BUF_H
#define GCG_SCHEMA_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gcg_buf {
    char *s;       /* NUL-terminated when len > 0 or after any append */
    size_t len, cap;
    bool oom;
} gcg_buf;

void gcg_buf_free(gcg_buf *b);
void gcg_buf_putn(gcg_buf *b, const char *s, size_t n);
void gcg_buf_puts(gcg_buf *b, const char *s);
void gcg_buf_printf(gcg_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Appends code point c inside a GBNF literal or class: printable ASCII as
 * itself (with `"`, `\`, `[`, `]`, `-` escaped; `^` as \x5E), anything else as
 * \xHH, \uHHHH or \UHHHHHHHH. */
void gcg_buf_gbnf_char(gcg_buf *b, uint32_t c);
/* Hands the text to the caller (malloc'ed; "" for an empty buffer) and
 * empties the buffer. NULL when memory ran out. */
char *gcg_buf_take(gcg_buf *b);

#endif /* GCG_SCHEMA_BUF_H */
