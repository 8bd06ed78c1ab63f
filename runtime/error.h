/*
 * error.h — filling a gcg_error. Every runtime and compiler module reports
 * through this one helper so messages are formatted the same way.
 */
#ifndef GCG_ERROR_H
#define GCG_ERROR_H

#include <stdint.h>

#include "gcg.h"

#define GCG_NO_OFFSET UINT64_MAX

/* Sets err (if not NULL) to code, offset and a printf-style message; returns code. */
gcg_status gcg_error_set(gcg_error *err, gcg_status code, uint64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif /* GCG_ERROR_H */
