/*
 * schema.h — JSON Schema (draft 2020-12, with the draft-04/06/07 spellings
 * found in the wild) to GBNF. The grammar accepts exactly the JSON texts
 * (RFC 8259) that are valid instances, with two documented restrictions:
 * object properties appear in schema order with additional properties
 * after them, and \uXXXX spellings of characters that need no escape are
 * accepted only in unconstrained strings (docs/json-schema.md).
 *
 * A keyword that cannot be enforced exactly is an error naming the keyword
 * and its JSON pointer; with `lenient` it becomes a warning and the
 * constraint is dropped (the language only grows by what that keyword
 * would have removed).
 *
 * Rules are named after the JSON pointer of their subschema: `root`,
 * `root-properties-name`, `root-defs-node-items`, ...
 */
#ifndef GCG_SCHEMA_H
#define GCG_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "gcg.h"

typedef enum gcg_schema_ws {
    GCG_SCHEMA_WS_JSON = 0,  /* any run of RFC 8259 whitespace between tokens   */
    GCG_SCHEMA_WS_COMPACT,   /* none                                            */
    GCG_SCHEMA_WS_MAX        /* runs of at most ws_max whitespace characters    */
} gcg_schema_ws;

typedef struct gcg_schema_options {
    gcg_schema_ws ws;
    uint32_t ws_max;         /* for GCG_SCHEMA_WS_MAX                           */
    bool lenient;            /* unenforceable keywords: warning, dropped        */
    bool oneof_as_anyof;     /* overlapping oneOf branches: treated as anyOf    */
} gcg_schema_options;

/* Fills *opt with the defaults (every field zero / false). */
void gcg_schema_options_default(gcg_schema_options *opt);

/* Converts the schema `json` (len bytes) to GBNF text with start rule
 * `root`. On GCG_OK *gbnf_out is a malloc'ed NUL-terminated grammar (free
 * it); otherwise NULL. Errors and warnings go to `diag` (may be NULL):
 * GCG_ERR_FORMAT for invalid JSON or an unsupported schema, GCG_ERR_LIMIT
 * for a bound over a grammar limit, GCG_ERR_NOMEM. */
gcg_status gcg_schema_to_gbnf(const char *json, size_t len, const gcg_schema_options *opt, char **gbnf_out,
                              gcg_diag *diag);

#endif /* GCG_SCHEMA_H */
