/*
 * fuzz_schema.c — libFuzzer target for the JSON Schema converter: any input
 * is converted, strict and lenient, with each whitespace mode. Whatever the
 * input, the converter returns (no crash, hang or leak); when it succeeds the
 * grammar it wrote must parse as GBNF without errors, so a schema can never
 * turn into a grammar the compiler rejects for its syntax.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gbnf.h"
#include "schema.h"

static void require(int ok)
{
    if (!ok)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int mode = 0; mode < 4; mode++) {
        gcg_schema_options o;
        gcg_schema_options_default(&o);
        o.lenient = mode & 1;
        o.oneof_as_anyof = mode & 1;
        o.ws = mode < 2 ? GCG_SCHEMA_WS_JSON : mode == 2 ? GCG_SCHEMA_WS_COMPACT : GCG_SCHEMA_WS_MAX;
        o.ws_max = 3;
        gcg_diag d;
        gcg_diag_init(&d, NULL);
        char *g = NULL;
        gcg_status st = gcg_schema_to_gbnf((const char *)data, size, &o, &g, &d);
        require((st == GCG_OK) == (g != NULL));
        require(st == GCG_OK || d.n_errors > 0);
        gcg_diag_free(&d);
        if (g) {
            gbnf_grammar gr;
            gcg_diag pd;
            gcg_diag_init(&pd, NULL);
            gcg_status ps = gcg_gbnf_parse(g, strlen(g), NULL, &gr, &pd);
            /* only the parser's nesting limit may refuse a converted grammar */
            require(ps == GCG_OK || (pd.n > 0 && strstr(pd.v[0].msg, "nesting deeper") != NULL));
            if (ps == GCG_OK)
                gcg_gbnf_free(&gr);
            gcg_diag_free(&pd);
            free(g);
        }
    }
    return 0;
}
