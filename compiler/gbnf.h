/*
 * gbnf.h — the GBNF abstract syntax tree and its parser.
 *
 * The syntax is llama.cpp's (grammars/README.md there):
 *
 *   grammar     -> { rule | comment | blank line }
 *   rule        -> name "::=" alternation
 *   alternation -> sequence { "|" sequence }       ("|" may be followed by newlines)
 *   sequence    -> { item }                         (may be empty: "a ::= | x")
 *   item        -> primary [ "*" | "+" | "?" | "{" m "}" | "{" m ",}" | "{" m "," n "}" | "{," n "}" ]
 *   primary     -> name | literal | class | "." | "(" alternation ")" | token
 *   token       -> ["!"] "<[" digit+ "]>" | ["!"] "<" { any byte but ">" } ">"
 *   literal     -> '"' { char | escape } '"'
 *   class       -> "[" ["^"] { char ["-" char] } "]"
 *   escape      -> \n \t \r \\ \" \[ \] \- \/ \xHH \uHHHH \UHHHHHHHH
 *   name        -> [a-zA-Z0-9_-]+
 *
 * A rule ends at a newline unless the line ends in "|" or inside "(" ")".
 * Everything is in code points: \xHH is U+00HH, and literals are stored as
 * UTF-8. Token references, as llama.cpp: <[ID]> is the token with that id;
 * <TEXT> the token whose text is the whole reference, brackets included
 * (e.g. <think>, <|eot_id|>: llama.cpp tokenizes those bytes with special
 * tokens enabled and wants exactly one token); "!" before either negates it
 * (any single token but that one). The parser only records them; resolving
 * <TEXT> needs the vocabulary (lowering).
 *
 * Nodes live in one array and refer to each other by index, so a grammar is
 * freed with one call and never recursed over by the parser's callers.
 */
#ifndef GCG_GBNF_H
#define GCG_GBNF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "gcg.h"

#define GBNF_INF UINT32_MAX       /* repeat max for "*", "+", "{m,}"        */
#define GBNF_MAX_CODEPOINT 0x10FFFFu

typedef enum gbnf_kind {
    GBNF_SEQ,     /* kids in order; zero kids is the empty string ε      */
    GBNF_ALT,     /* two or more kids                                     */
    GBNF_LIT,     /* bytes: UTF-8 of the literal's code points (non-empty) */
    GBNF_CLASS,   /* ranges of code points; `negated` as written          */
    GBNF_ANY,     /* "." — any code point                                 */
    GBNF_REF,     /* rule reference: `rule` is an index into rules        */
    GBNF_REPEAT,  /* kids[0] repeated min..max times (max may be GBNF_INF) */
    GBNF_TOKEN    /* token reference: `token` (<[ID]>) or `bytes` (<TEXT>, the
                     whole reference); `negated` for "!"                   */
} gbnf_kind;

typedef struct gbnf_range { uint32_t lo, hi; } gbnf_range; /* inclusive */

typedef struct gbnf_node {
    gbnf_kind kind;
    uint32_t line, col;     /* where the node starts in the source             */
    uint32_t n_kids;
    uint32_t *kids;         /* SEQ, ALT: n_kids; REPEAT: 1                      */
    uint8_t *bytes;         /* LIT: UTF-8 bytes                                 */
    uint32_t n_bytes;
    gbnf_range *ranges;     /* CLASS: as written (may overlap, unsorted)        */
    uint32_t n_ranges;
    bool negated;           /* CLASS: "[^...]"; TOKEN: "!<...>"                 */
    bool by_id;             /* TOKEN: <[ID]> (else <TEXT>, text in bytes)       */
    uint32_t token;         /* TOKEN with by_id: the id                         */
    uint8_t term_byte;      /* TOKEN, once resolved (token_refs.h): the byte
                               standing for it in the byte grammar, or 0      */
    uint32_t rule;          /* REF: index into gbnf_grammar.rules               */
    uint32_t min, max;      /* REPEAT                                           */
} gbnf_node;

typedef struct gbnf_rule {
    char *name;             /* owned, NUL-terminated                          */
    uint32_t body;          /* node index; UINT32_MAX while only referenced   */
    uint32_t line, col;     /* of the definition (or of the first reference)  */
} gbnf_rule;

typedef struct gbnf_grammar {
    gbnf_node *nodes;
    uint32_t n_nodes;
    gbnf_rule *rules;
    uint32_t n_rules;
    uint32_t root;          /* index of the start rule                         */
} gbnf_grammar;

/* Parses `src` (need not be NUL-terminated); `root_name` selects the start
 * rule (NULL means "root"). Errors and warnings go to `diag` (which may be
 * NULL), positioned by 1-based line and column counted in code points.
 * Checks: syntax, undefined rules, rules defined twice, missing start rule
 * (errors); unused rules (warnings); nesting deeper than GBNF_MAX_NESTING
 * (an error: no recursion is unbounded). Returns GCG_OK only without errors;
 * GCG_ERR_FORMAT for a grammar with errors, GCG_ERR_ARG for NULL g or src,
 * GCG_ERR_NOMEM. On error *g is freed and zeroed. */
#define GBNF_MAX_NESTING 1000
gcg_status gcg_gbnf_parse(const char *src, size_t len, const char *root_name, gbnf_grammar *g,
                          gcg_diag *diag);

void gcg_gbnf_free(gbnf_grammar *g);

#endif /* GCG_GBNF_H */
