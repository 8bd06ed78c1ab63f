/*
 * schema_cmd.h — the JSON Schema commands of `gcgc`:
 *
 *   gcgc schema SCHEMA.json [-o G.gbnf] [schema options]
 *   gcgc compile --schema SCHEMA.json -o OUT.gcg [--tokenizer FILE |
 *        --vocab-hex FILE] [--eos ID]... [schema options]
 *
 * schema options: --ws json|compact|max=N, --lenient, --oneof-as-anyof.
 * Each function takes the arguments after the command name and returns the
 * exit status (0 ok, 1 errors, 2 usage).
 */
#ifndef GCGC_SCHEMA_CMD_H
#define GCGC_SCHEMA_CMD_H

#include <stdbool.h>

int gcgc_schema_cmd(int argc, char **argv);

/* True when `gcgc compile` was given --schema (then gcgc_schema_compile_cmd runs it). */
bool gcgc_schema_compile_wanted(int argc, char **argv);
int gcgc_schema_compile_cmd(int argc, char **argv);

#endif /* GCGC_SCHEMA_CMD_H */
