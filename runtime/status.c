/* status.c — status names and gcg_error formatting. */
#include <stdarg.h>
#include <stdio.h>

#include "error.h"

const char *gcg_status_str(gcg_status status)
{
    switch (status) {
    case GCG_OK: return "ok";
    case GCG_ERR_NOMEM: return "out of memory";
    case GCG_ERR_IO: return "i/o error";
    case GCG_ERR_FORMAT: return "artifact format error";
    case GCG_ERR_VERSION: return "artifact version not supported";
    case GCG_ERR_ARG: return "invalid argument";
    case GCG_ERR_TOKEN_RANGE: return "token id out of range";
    case GCG_ERR_REJECTED: return "rejected by the grammar";
    case GCG_ERR_TERMINATED: return "sequence already terminated";
    case GCG_ERR_ROLLBACK: return "cannot roll back that far";
    case GCG_ERR_LIMIT: return "limit reached";
    case GCG_ERR_NO_VOCAB: return "artifact has no vocabulary";
    case GCG_ERR_VOCAB_MISMATCH: return "vocabulary mismatch";
    }
    return "unknown status";
}

gcg_status gcg_error_set(gcg_error *err, gcg_status code, uint64_t offset, const char *fmt, ...)
{
    if (err) {
        err->code = code;
        err->offset = offset;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}
