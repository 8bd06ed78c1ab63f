/* schema_buf.c — growable text buffer (see schema_buf.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema_buf.h"

void gcg_buf_free(gcg_buf *b)
{
    free(b->s);
    *b = (gcg_buf){0};
}

static bool reserve(gcg_buf *b, size_t extra)
{
    if (b->oom)
        return false;
    if (b->len + extra + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->oom = true;
        return false;
    }
    b->s = s;
    b->cap = cap;
    return true;
}

void gcg_buf_putn(gcg_buf *b, const char *s, size_t n)
{
    if (!reserve(b, n))
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void gcg_buf_puts(gcg_buf *b, const char *s)
{
    gcg_buf_putn(b, s, strlen(s));
}

/* Whether fmt's conversions are all plain %s, %c, %u or %%: the formats
 * that assemble grammar text, whose %s arguments run to tens of kilobytes
 * (vsnprintf copies those a few bytes at a time). */
static bool plain_format(const char *fmt)
{
    for (const char *p = strchr(fmt, '%'); p; p = strchr(p + 2, '%'))
        if (p[1] != 's' && p[1] != 'c' && p[1] != 'u' && p[1] != '%')
            return false;
    return true;
}

static void put_plain(gcg_buf *b, const char *fmt, va_list ap)
{
    for (const char *p = fmt; *p;) {
        const char *q = strchr(p, '%');
        size_t lit = q ? (size_t)(q - p) : strlen(p);
        gcg_buf_putn(b, p, lit);
        if (!q)
            return;
        char one[16];
        switch (q[1]) {
        case 's': {
            const char *str = va_arg(ap, const char *);
            gcg_buf_puts(b, str ? str : "(null)"); /* as glibc prints it */
            break;
        }
        case 'c':
            one[0] = (char)va_arg(ap, int);
            gcg_buf_putn(b, one, 1);
            break;
        case 'u':
            gcg_buf_putn(b, one, (size_t)snprintf(one, sizeof one, "%u", va_arg(ap, unsigned)));
            break;
        default: /* "%%" */
            gcg_buf_putn(b, "%", 1);
        }
        p = q + 2;
    }
}

void gcg_buf_printf(gcg_buf *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    if (plain_format(fmt)) {
        put_plain(b, fmt, ap);
        va_end(ap);
        return;
    }
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        gcg_buf_putn(b, tmp, (size_t)n);
        return;
    }
    if (!reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void gcg_buf_gbnf_char(gcg_buf *b, uint32_t c)
{
    if (c == '"' || c == '\\' || c == '[' || c == ']' || c == '-')
        gcg_buf_printf(b, "\\%c", (char)c);
    else if (c >= 0x20 && c < 0x7f && c != '^')
        gcg_buf_printf(b, "%c", (char)c);
    else if (c < 0x100)
        gcg_buf_printf(b, "\\x%02X", c);
    else if (c < 0x10000)
        gcg_buf_printf(b, "\\u%04X", c);
    else
        gcg_buf_printf(b, "\\U%08X", c);
}

char *gcg_buf_take(gcg_buf *b)
{
    if (b->oom) {
        gcg_buf_free(b);
        return NULL;
    }
    char *s = b->s ? b->s : calloc(1, 1);
    *b = (gcg_buf){0};
    return s;
}
