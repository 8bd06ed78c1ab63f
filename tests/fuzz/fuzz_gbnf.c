/*
 * fuzz_gbnf.c — libFuzzer target for the GBNF parser: any input is parsed
 * as a grammar and freed. A grammar that parses must satisfy the AST's
 * invariants (kids before parents, references and bodies in range, no error
 * diagnostics), and its classes go through code point normalization and
 * UTF-8 splitting. A broken invariant aborts, which the fuzzer reports.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "gbnf.h"
#include "utf8_ranges.h"

static void require(int ok)
{
    if (!ok)
        abort();
}

static void check_class(const gbnf_node *x)
{
    gbnf_range *norm;
    utf8_seq *seqs;
    for (uint32_t k = 0; k < x->n_ranges; k++)
        require(x->ranges[k].lo <= x->ranges[k].hi && x->ranges[k].hi <= GBNF_MAX_CODEPOINT);
    uint32_t n = gcg_cp_set_normalize(x->ranges, x->n_ranges, x->negated, &norm);
    require(norm != NULL);
    uint32_t nq = gcg_utf8_split(norm, n, &seqs);
    require(seqs != NULL);
    for (uint32_t q = 0; q < nq; q++)
        require(seqs[q].len >= 1 && seqs[q].len <= 4);
    free(norm);
    free(seqs);
}

static void check_node(const gbnf_grammar *g, uint32_t i)
{
    const gbnf_node *x = &g->nodes[i];
    for (uint32_t k = 0; k < x->n_kids; k++)
        require(x->kids[k] < i);
    switch (x->kind) {
    case GBNF_SEQ: require(x->n_kids != 1); break;
    case GBNF_ALT: require(x->n_kids >= 2); break;
    case GBNF_LIT: require(x->n_bytes > 0 && x->bytes != NULL); break;
    case GBNF_CLASS: check_class(x); break;
    case GBNF_ANY: break;
    case GBNF_REF: require(x->rule < g->n_rules); break;
    case GBNF_REPEAT: require(x->n_kids == 1 && x->min <= x->max); break;
    case GBNF_TOKEN: /* <[ID]>, or <TEXT> kept with its brackets */
        require(x->n_kids == 0);
        require(x->by_id ? x->bytes == NULL
                         : x->n_bytes >= 2 && x->bytes[0] == '<' && x->bytes[x->n_bytes - 1] == '>');
        break;
    default: require(0);
    }
    require(x->line >= 1 && x->col >= 1);
}

static void check_grammar(const gbnf_grammar *g)
{
    require(g->root < g->n_rules);
    for (uint32_t r = 0; r < g->n_rules; r++)
        require(g->rules[r].body < g->n_nodes && g->rules[r].name != NULL);
    for (uint32_t i = 0; i < g->n_nodes; i++)
        check_node(g, i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gbnf_grammar g;
    gcg_diag d;
    gcg_diag_init(&d, "fuzz.gbnf");
    gcg_status st = gcg_gbnf_parse((const char *)data, size, NULL, &g, &d);
    if (st == GCG_OK) {
        require(d.n_errors == 0);
        check_grammar(&g);
    } else {
        require(d.n_errors > 0 && g.nodes == NULL && g.rules == NULL && g.n_nodes == 0);
    }
    gcg_gbnf_free(&g);
    gcg_diag_free(&d);
    return 0;
}
