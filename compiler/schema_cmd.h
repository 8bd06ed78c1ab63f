/*
 * schema_cmd.h — the JSON Schema commands of `gcgc`:
 *
 *   gcgc schema SCHEMA.json [-o G.gbnf] [schema options]
 *   gcgc compile --schema SCHEMA.json -o OUT.gcg [--tokenizer FILE |
 *        --vocab-hex FILE | --vocab MODEL.gcgv] [--eos ID]... [--vocab-ref]
 *        [--strict-latency] [schema options]
 *
 * schema options: --ws json|compact|max=N, --lenient, --oneof-as-anyof.
 * Each function takes the arguments after the command name and returns the
 * exit status (0 ok, 1 errors, 2 usage).
 */
#ifndef GCGC_SCHEMA_CMD_H
#define GCGC_SCHEMA_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "gcg.h"

int gcgc_schema_cmd(int argc, char **argv);

/* True when `gcgc compile` was given --schema (then gcgc_schema_compile_cmd runs it). */
bool gcgc_schema_compile_wanted(int argc, char **argv);
int gcgc_schema_compile_cmd(int argc, char **argv);

/* The latency certificate's summary lines, as `gcgc compile` prints them
 * (gcgc_main.c). */
void gcgc_print_certificate(FILE *out, const gcg_certificate *c);

#endif /* GCGC_SCHEMA_CMD_H */
