/*
 * refmatch.c — runs the reference Earley recognizer from the command line,
 * for checking expected values by hand:
 *
 *   refmatch GRAMMAR.gbnf [-r ROOT] TEXT...
 *   refmatch GRAMMAR.gbnf [-r ROOT] -f FILE...
 *
 * Each TEXT may use the escapes \n \t \r \\ \xHH; with -f the texts are
 * the raw bytes of the files. Prints one line per text:
 * "complete", "prefix" or "reject N" (N = offset of the first byte that
 * cannot be consumed). Build by hand (it is not part of the build):
 *   cc -Icompiler -Iruntime -Itests/ref tests/tools/refmatch.c \
 *      tests/ref/earley.c compiler/gbnf_parse.c compiler/diag.c -o refmatch
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "earley.h"
#include "gbnf.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return s;
}

/* Decodes the escapes above in place; returns the length. */
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

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: refmatch GRAMMAR.gbnf [-r ROOT] TEXT...\n");
        return 2;
    }
    size_t len;
    char *src = slurp(argv[1], &len);
    int first = 2;
    const char *root = NULL;
    if (argc > 3 && strcmp(argv[2], "-r") == 0) {
        root = argv[3];
        first = 4;
    }
    gbnf_grammar g;
    gcg_diag d;
    gcg_diag_init(&d, argv[1]);
    if (!src || gcg_gbnf_parse(src, len, root, &g, &d) != GCG_OK) {
        gcg_diag_print(&d, stderr);
        gcg_diag_free(&d);
        free(src);
        return 1;
    }
    ref_grammar *rg;
    ref_status st = ref_grammar_build(&g, &rg);
    if (st != REF_OK) {
        fprintf(stderr, "%s: %s\n", argv[1], ref_status_str(st));
        gcg_gbnf_free(&g);
        gcg_diag_free(&d);
        free(src);
        return 1;
    }
    bool files = first < argc && strcmp(argv[first], "-f") == 0;
    for (int i = first + files; i < argc; i++) {
        size_t n;
        char *text = files ? slurp(argv[i], &n) : argv[i];
        if (!text) {
            printf("unreadable\n");
            continue;
        }
        if (!files)
            n = unescape(text);
        ref_result r = ref_match(rg, (const uint8_t *)text, n);
        if (files)
            free(text);
        if (r.verdict == REF_REJECT)
            printf("reject %zu\n", r.offset);
        else
            printf("%s\n", ref_verdict_str(r.verdict));
    }
    ref_grammar_free(rg);
    gcg_gbnf_free(&g);
    gcg_diag_free(&d);
    free(src);
    return 0;
}
