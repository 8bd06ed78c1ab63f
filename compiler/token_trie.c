/* token_trie.c — building the preorder token trie (see token_trie.h). */
#include <stdlib.h>
#include <string.h>

#include "token_trie.h"

/* Insertion trie with first-child / next-sibling links, sorted by byte. */
typedef struct ins_node {
    uint32_t child, sibling, first_tok;
    uint8_t byte;
} ins_node;

typedef struct ins_trie {
    ins_node *n;
    uint32_t count, cap;
    uint32_t *tok_next; /* per token: next token ending at the same node */
} ins_trie;

static uint32_t ins_child(ins_trie *t, uint32_t parent, uint8_t b)
{
    uint32_t *link = &t->n[parent].child;
    while (*link != UINT32_MAX && t->n[*link].byte < b)
        link = &t->n[*link].sibling;
    if (*link != UINT32_MAX && t->n[*link].byte == b)
        return *link;
    if (t->count == t->cap) {
        uint32_t cap = t->cap * 2;
        ins_node *q = realloc(t->n, (size_t)cap * sizeof *q);
        if (!q)
            return UINT32_MAX;
        t->n = q, t->cap = cap;
        link = &t->n[parent].child; /* re-find the link in the moved array */
        while (*link != UINT32_MAX && t->n[*link].byte < b)
            link = &t->n[*link].sibling;
    }
    uint32_t c = t->count++;
    t->n[c] = (ins_node){UINT32_MAX, *link, UINT32_MAX, b};
    *link = c;
    return c;
}

/* Preorder renumbering with an explicit stack. */
static gcg_status flatten(const ins_trie *it, const gcg_vocab *v, token_trie *t)
{
    uint32_t n = it->count;
    t->n_nodes = n;
    t->byte = malloc(n), t->depth = malloc((size_t)n * 4), t->end = malloc((size_t)n * 4);
    t->tok_start = malloc(((size_t)n + 1) * 4), t->tokens = malloc(((size_t)v->n_tokens + 1) * 4);
    uint32_t *stack = malloc(((size_t)n + 1) * 2 * 4);
    if (!t->byte || !t->depth || !t->end || !t->tok_start || !t->tokens || !stack) {
        free(stack);
        return GCG_ERR_NOMEM;
    }
    /* stack entries: (insertion node, preorder id of its parent or UINT32_MAX) */
    uint32_t sp = 0, next = 0, nt = 0;
    uint32_t *open = malloc(((size_t)n + 1) * 4), n_open = 0; /* preorder ids awaiting end */
    if (!open) {
        free(stack);
        return GCG_ERR_NOMEM;
    }
    stack[sp++] = 0, stack[sp++] = 0;
    while (sp) {
        uint32_t depth = stack[--sp], in = stack[--sp];
        while (n_open && t->depth[open[n_open - 1]] >= depth)
            t->end[open[--n_open]] = next;
        uint32_t id = next++;
        t->byte[id] = it->n[in].byte, t->depth[id] = depth, t->tok_start[id] = nt;
        for (uint32_t k = it->n[in].first_tok; k != UINT32_MAX; k = it->tok_next[k])
            t->tokens[nt++] = k;
        open[n_open++] = id;
        /* push children in reverse so the smallest byte is visited first */
        uint32_t kids = 0;
        for (uint32_t c = it->n[in].child; c != UINT32_MAX; c = it->n[c].sibling)
            stack[sp++] = c, stack[sp++] = depth + 1, kids++;
        for (uint32_t a = sp - 2 * kids, b = sp - 2; kids > 1 && a < b; a += 2, b -= 2) {
            uint32_t x0 = stack[a], x1 = stack[a + 1];
            stack[a] = stack[b], stack[a + 1] = stack[b + 1];
            stack[b] = x0, stack[b + 1] = x1;
        }
    }
    while (n_open)
        t->end[open[--n_open]] = next;
    t->tok_start[n] = nt;
    t->n_tokens = nt;
    free(stack), free(open);
    return GCG_OK;
}

gcg_status gcg_trie_build(const gcg_vocab *v, token_trie *t)
{
    memset(t, 0, sizeof *t);
    ins_trie it = {malloc(1024 * sizeof(ins_node)), 1, 1024, malloc(((size_t)v->n_tokens + 1) * 4)};
    if (!it.n || !it.tok_next) {
        free(it.n), free(it.tok_next);
        return GCG_ERR_NOMEM;
    }
    it.n[0] = (ins_node){UINT32_MAX, UINT32_MAX, UINT32_MAX, 0};
    gcg_status st = GCG_OK;
    /* Insert in reverse id order so each node's token list ends up ascending. */
    for (uint32_t k = v->n_tokens; k-- > 0 && st == GCG_OK;) {
        if ((v->flags[k] & GCG_TOKEN_SPECIAL) || v->offsets[k + 1] == v->offsets[k])
            continue; /* no text: never allowed, so not in the trie */
        uint32_t node = 0;
        for (uint32_t i = v->offsets[k]; i < v->offsets[k + 1] && node != UINT32_MAX; i++)
            node = ins_child(&it, node, v->bytes[i]);
        if (node == UINT32_MAX) {
            st = GCG_ERR_NOMEM;
            break;
        }
        it.tok_next[k] = it.n[node].first_tok;
        it.n[node].first_tok = k;
    }
    if (st == GCG_OK)
        st = flatten(&it, v, t);
    free(it.n), free(it.tok_next);
    if (st != GCG_OK)
        gcg_trie_free(t);
    return st;
}

void gcg_trie_free(token_trie *t)
{
    free(t->byte), free(t->depth), free(t->end), free(t->tok_start), free(t->tokens);
    memset(t, 0, sizeof *t);
}
