/*
 * schema_internal.h — the JSON Schema converter's shared context, used by
 * schema.c (documents, references, combinators), schema_struct.c (objects,
 * arrays), schema_scalar.c (numbers, strings, literal values) and
 * schema_formats.c (string formats). Not a public interface.
 */
#ifndef GCG_SCHEMA_INTERNAL_H
#define GCG_SCHEMA_INTERNAL_H

#include <jansson.h>

#include "schema.h"
#include "schema_buf.h"

/* Fixed rules every converted grammar defines. */
#define SX_WS "ws"
#define SX_VALUE "json-value"
#define SX_STRING "json-string"
#define SX_CHAR "json-char"
#define SX_STRING_REST "json-string-rest"   /* json-char* then the closing quote */
#define SX_NUMBER "json-number"

#define SX_MAX_DEPTH 64u   /* subschema nesting and merge depth */

typedef struct sctx {
    json_t *doc;             /* the whole schema document                     */
    gcg_schema_options opt;
    gcg_diag *diag;
    json_t *rules;           /* array of "name ::= body" strings, creation order */
    json_t *names;           /* object used as a set of the rule names in use */
    json_t *memo;            /* JSON pointer -> rule name                     */
    gcg_status st;           /* first error                                   */
    unsigned depth;
    bool ref_alone;          /* drafts 04-07: "$ref" siblings are ignored     */
} sctx;

/* Records an error about the subschema at `ptr` (first status kept). */
void sx_error(sctx *c, gcg_status st, const char *ptr, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* A keyword that cannot be enforced: an error, or a warning under lenient.
 * Returns true when it was an error. */
bool sx_unsupported(sctx *c, const char *ptr, const char *kw, const char *why);

/* "ptr/seg" with `seg` escaped per RFC 6901 (malloc'ed). */
char *sx_ptr(const char *ptr, const char *seg);
char *sx_ptr_index(const char *ptr, const char *seg, size_t i);

/* The rule matching instances of subschema `s` found at `ptr` (memoized by
 * pointer, so recursion through $ref terminates). NULL after an error. The
 * name lives as long as the context. */
const char *sx_rule(sctx *c, json_t *s, const char *ptr);

/* Defines a helper rule `<base>-<suffix>` (made unique) with this body. */
const char *sx_helper(sctx *c, const char *base, const char *suffix, const char *body);

/* A helper rule named now and defined later (for mutual recursion). */
typedef struct sx_decl { const char *name; size_t slot; } sx_decl;
sx_decl sx_declare(sctx *c, const char *base, const char *suffix);
void sx_define(sctx *c, sx_decl d, const char *body);

/* The keys a simple pattern does not match (schema_pattern.c). */
typedef enum sx_complement {
    SX_COMPLEMENT_UNSUPPORTED, /* a shape the complement is not written for     */
    SX_COMPLEMENT_EMPTY,       /* the pattern matches every string              */
    SX_COMPLEMENT_SOME         /* written: a GBNF expression over string content */
} sx_complement;
struct gcg_regex_simple;
sx_complement sx_pattern_complement(const struct gcg_regex_simple *sp, gcg_buf *out);
/* Whether the pattern matches `name` (UTF-8): 1, 0, or -1 out of memory. */
int sx_pattern_matches(const struct gcg_regex_simple *sp, const char *name);

/* Whether value v satisfies schema s: 1, 0, or -1 when s uses a keyword
 * this does not decide (schema_value.c). */
int sx_value_valid(sctx *c, json_t *s, json_t *v);

/* The name the rule for `ptr` has or will have. */
char *sx_rule_name_for(const char *ptr);

/* Resolves a local $ref ("#", "#/json/pointer", "#anchor"); on success
 * *target is the subschema and *tptr its canonical pointer (malloc'ed). */
bool sx_resolve(sctx *c, const char *ref, const char *ptr, json_t **target, char **tptr);

/* JSON type bits. */
enum { T_NULL = 1, T_BOOL = 2, T_OBJECT = 4, T_ARRAY = 8, T_STRING = 16, T_INTEGER = 32, T_NUMBER = 64,
       T_ALL = 127 };
unsigned sx_value_type(const json_t *v);

/* Replaces, in every subschema of s, a `not` whose complement is a plain
 * schema by that schema as one more allOf entry (schema_not.c); other `not`s
 * stay, for the converter to refuse. */
void sx_rewrite_not(json_t *s);
/* Schemas no instance satisfies that are cheap to recognize: false, and an
 * enum/const none of whose values has an allowed type. */
bool sx_unsatisfiable(sctx *c, json_t *s);      /* a value's bits (integral reals: T_INTEGER) */

/* schema_scalar.c */
void sx_literal(sctx *c, const json_t *v, gcg_buf *out);     /* exactly this JSON value     */
void sx_string_literal(const char *s, size_t n, gcg_buf *out); /* exactly this string         */
void sx_number_body(sctx *c, json_t *s, const char *ptr, bool integer, gcg_buf *out);
void sx_string_body(sctx *c, json_t *s, const char *ptr, gcg_buf *out);

/* schema_struct.c */
void sx_object_body(sctx *c, json_t *s, const char *ptr, gcg_buf *out);
void sx_array_body(sctx *c, json_t *s, const char *ptr, gcg_buf *out);

/* schema_formats.c: the name of the rule for a string's contents in
 * `format`; NULL for an unknown format. */
const char *sx_format_rule(const char *format);
/* Format i's rule and its GBNF body; false past the last. */
bool sx_format_nth(size_t i, const char **rule, const char **body);
#define SX_FORMATS_MAX 32 /* entries sx_format_nth can give */
/* The least and greatest length of a format's strings (UINT64_MAX: none). */
void sx_format_lengths(const char *format, uint64_t *min, uint64_t *max);

#endif /* GCG_SCHEMA_INTERNAL_H */
