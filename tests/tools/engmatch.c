/*
 * engmatch.c — runs texts through the engine (gcg_compile + matcher, byte
 * by byte) and through the reference recognizer side by side, marking
 * disagreements; for reducing a failing differential case by hand:
 *
 *   engmatch GRAMMAR.gbnf TEXT...     (escapes \n \t \r \\ \xHH)
 *
 * Prints "engine | reference" per text, with "  <-- differs" when they do.
 * Build by hand against a build directory, e.g.:
 *   cc -Icompiler -Iruntime -Itests/ref tests/tools/engmatch.c tests/ref/earley.c \
 *      tests/ref/randgram.c tests/ref/engine_run.c \
 *      build/compiler/libgcgc.a -Lbuild/runtime -lgcg -lxxhash -ljansson -lgmp -lm
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "earley.h"
#include "engine_run.h"
#include "gbnf.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *s = malloc(1 << 20);
    *len = s ? fread(s, 1, 1 << 20, f) : 0;
    fclose(f);
    return s;
}

static size_t unescape(char *s)
{
    size_t k = 0;
    for (size_t i = 0; s[i]; i++) {
        if (s[i] != '\\' || !s[i + 1]) {
            s[k++] = s[i];
            continue;
        }
        char c = s[++i];
        if (c == 'x' && s[i + 1] && s[i + 2]) {
            char hex[3] = {s[i + 1], s[i + 2], 0};
            s[k++] = (char)strtoul(hex, NULL, 16);
            i += 2;
        } else {
            s[k++] = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
        }
    }
    return k;
}

static void show(ref_result r)
{
    if (r.verdict == REF_REJECT)
        printf("reject %zu", r.offset);
    else
        printf("%s", ref_verdict_str(r.verdict));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: engmatch GRAMMAR.gbnf TEXT...\n");
        return 2;
    }
    size_t len;
    char *src = slurp(argv[1], &len);
    if (!src)
        return 1;
    char msg[256];
    eng *e;
    if (eng_open(src, len, NULL, false, &e, msg, sizeof msg) != GCG_OK) {
        printf("engine refuses: %s\n", msg);
        e = NULL;
    }
    gbnf_grammar g;
    gcg_diag d;
    gcg_diag_init(&d, argv[1]);
    ref_grammar *rg = NULL;
    ref_status rs = REF_NOMEM;
    if (gcg_gbnf_parse(src, len, NULL, &g, &d) == GCG_OK) {
        rs = ref_grammar_build(&g, &rg);
        gcg_gbnf_free(&g);
    }
    if (rs != REF_OK)
        printf("reference: %s\n", ref_status_str(rs));
    for (int i = 2; e && rg && i < argc; i++) {
        size_t n = unescape(argv[i]);
        ref_result a = eng_match(e, (const uint8_t *)argv[i], n);
        ref_result b = ref_match(rg, (const uint8_t *)argv[i], n);
        show(a);
        printf(" | ");
        show(b);
        puts(a.verdict == b.verdict && a.offset == b.offset ? "" : "  <-- differs");
    }
    eng_free(e);
    ref_grammar_free(rg);
    gcg_diag_free(&d);
    free(src);
    return 0;
}
