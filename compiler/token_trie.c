/* token_trie.c — building the preorder token trie (see token_trie.h). */
#include <stdlib.h>
#include <string.h>

#include "token_trie.h"
#include "utf8_ranges.h"

/* Insertion trie: children found through a hash table keyed by
 * (parent, label), listed unsorted; flatten() sorts each node's children. */
typedef struct ins_node {
    uint32_t child, sibling, first_tok;
    uint8_t byte;
} ins_node;

typedef struct ins_trie {
    ins_node *n;
    uint32_t count, cap;
    uint32_t *tok_next; /* per token: next token ending at the same node */
    uint64_t *keys;     /* (parent << 8 | label) + 1, 0 = empty           */
    uint32_t *vals;
    uint32_t hcap;
} ins_trie;

static uint32_t slot_of(const ins_trie *t, uint64_t key)
{
    uint32_t h = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (t->hcap - 1);
    while (t->keys[h] && t->keys[h] != key)
        h = (h + 1) & (t->hcap - 1);
    return h;
}

static bool rehash(ins_trie *t)
{
    uint32_t old = t->hcap, cap = old ? old * 2 : 1u << 16;
    uint64_t *k = calloc(cap, sizeof *k), *ok = t->keys;
    uint32_t *v = malloc((size_t)cap * sizeof *v), *ov = t->vals;
    if (!k || !v) {
        free(k), free(v);
        return false;
    }
    t->keys = k, t->vals = v, t->hcap = cap;
    for (uint32_t i = 0; i < old; i++)
        if (ok[i]) {
            uint32_t h = slot_of(t, ok[i]);
            k[h] = ok[i], v[h] = ov[i];
        }
    free(ok), free(ov);
    return true;
}

static uint32_t ins_child(ins_trie *t, uint32_t parent, uint8_t b)
{
    uint64_t key = (((uint64_t)parent << 8) | b) + 1;
    if (2 * (t->count + 1) > t->hcap && !rehash(t))
        return UINT32_MAX;
    uint32_t h = slot_of(t, key);
    if (t->keys[h])
        return t->vals[h];
    if (t->count == t->cap) {
        ins_node *q = realloc(t->n, (size_t)t->cap * 2 * sizeof *q);
        if (!q)
            return UINT32_MAX;
        t->n = q, t->cap *= 2;
    }
    uint32_t c = t->count++;
    t->n[c] = (ins_node){UINT32_MAX, t->n[parent].child, UINT32_MAX, b};
    t->n[parent].child = c;
    t->keys[h] = key, t->vals[h] = c;
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
        /* push children by descending label so the smallest is visited first */
        uint32_t kids = 0, base = sp;
        for (uint32_t c = it->n[in].child; c != UINT32_MAX; c = it->n[c].sibling) {
            uint32_t j = base + 2 * kids;
            while (j > base && it->n[stack[j - 2]].byte < it->n[c].byte) {
                stack[j] = stack[j - 2], stack[j + 1] = stack[j - 1];
                j -= 2;
            }
            stack[j] = c, stack[j + 1] = depth + 1;
            kids++;
        }
        sp += 2 * kids;
    }
    while (n_open)
        t->end[open[--n_open]] = next;
    t->tok_start[n] = nt;
    t->n_tokens = nt;
    free(stack), free(open);
    return GCG_OK;
}

/* height[n], one backward pass (children follow their parent in preorder). */
static gcg_status heights(token_trie *t)
{
    t->height = malloc(((size_t)t->n_nodes + 1) * sizeof *t->height);
    if (!t->height)
        return GCG_ERR_NOMEM;
    for (uint32_t n = t->n_nodes; n-- > 0;) {
        t->height[n] = t->depth[n];
        for (uint32_t ch = n + 1; ch < t->end[n]; ch = t->end[ch])
            t->height[n] = t->height[ch] > t->height[n] ? t->height[ch] : t->height[n];
    }
    t->max_depth = t->n_nodes ? t->height[0] : 0;
    return GCG_OK;
}

/* The set id of the 256-bit set x, interned in t->below_sets through the
 * open-addressed table keys (cap a power of two; ids + 1, 0 = empty). */
static uint32_t below_intern(token_trie *t, uint32_t *keys, uint32_t cap, const uint64_t *x)
{
    uint64_t h = (x[0] ^ x[1] * 0x9E3779B97F4A7C15ull ^ x[2] * 0xC2B2AE3D27D4EB4Full ^ x[3] * 0x165667B19E3779F9ull);
    uint32_t i = (uint32_t)((h * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
    for (; keys[i]; i = (i + 1) & (cap - 1))
        if (memcmp(t->below_sets + 4 * (size_t)(keys[i] - 1), x, 4 * sizeof *x) == 0)
            return keys[i] - 1;
    memcpy(t->below_sets + 4 * (size_t)t->n_below_sets, x, 4 * sizeof *x);
    keys[i] = ++t->n_below_sets;
    return keys[i] - 1;
}

/* below[n]: the bytes below n, one backward pass. The walk skips a
 * subtree whose bytes all keep its stacks where they are (mask_sim.c). At
 * most n_nodes sets are distinct, so the table never fills. */
static gcg_status below_bytes(token_trie *t)
{
    uint32_t cap = 1;
    while (cap < 2 * (t->n_nodes + 1))
        cap *= 2;
    uint32_t *keys = calloc(cap, sizeof *keys);
    t->below = malloc(((size_t)t->n_nodes + 1) * sizeof *t->below);
    t->below_sets = malloc(((size_t)t->n_nodes + 1) * 4 * sizeof *t->below_sets);
    if (!keys || !t->below || !t->below_sets) {
        free(keys);
        return GCG_ERR_NOMEM;
    }
    for (uint32_t n = t->n_nodes; n-- > 0;) {
        uint64_t x[4] = {0};
        for (uint32_t ch = n + 1; ch < t->end[n]; ch = t->end[ch]) {
            x[t->byte[ch] >> 6] |= 1ull << (t->byte[ch] & 63);
            for (int w = 0; w < 4; w++)
                x[w] |= t->below_sets[4 * (size_t)t->below[ch] + w];
        }
        t->below[n] = below_intern(t, keys, cap, x);
    }
    free(keys);
    uint64_t *fit = realloc(t->below_sets, ((size_t)t->n_below_sets + 1) * 4 * sizeof *fit);
    if (fit)
        t->below_sets = fit;
    return GCG_OK;
}

/* utf8[n] (token_trie.h): the decoder's state at each node (parents come
 * first in preorder), then whether all below stays well-formed (children
 * come after). */
static gcg_status utf8_marks(token_trie *t)
{
    uint8_t *st = malloc((size_t)t->n_nodes + 1);
    t->utf8 = calloc((size_t)t->n_nodes + 1, 1);
    if (!st || !t->utf8) {
        free(st);
        return GCG_ERR_NOMEM;
    }
    st[0] = GCG_U8_START;
    for (uint32_t n = 0; n < t->n_nodes; n++)
        for (uint32_t ch = n + 1; ch < t->end[n]; ch = t->end[ch])
            st[ch] = gcg_utf8_next(st[n], t->byte[ch]);
    for (uint32_t n = t->n_nodes; n-- > 0;) {
        bool ok = st[n] != GCG_U8_BAD;
        for (uint32_t ch = n + 1; ch < t->end[n] && ok; ch = t->end[ch])
            ok = t->utf8[ch] & TRIE_UTF8_BELOW_OK;
        t->utf8[n] = (uint8_t)((st[n] == GCG_U8_START ? TRIE_UTF8_BOUNDARY : 0) | (ok ? TRIE_UTF8_BELOW_OK : 0) |
                               st[n] << 4);
    }
    free(st);
    return GCG_OK;
}

/* The positions of the tokens longer than r bytes, for every r: a token of
 * l bytes is listed under r = 0 .. l - 1 (as many entries as the tokens have
 * bytes). */
static gcg_status long_positions(token_trie *t)
{
    uint32_t depth = t->max_depth;
    uint64_t *by_len = calloc((size_t)depth + 2, sizeof *by_len), *at = malloc(((size_t)depth + 2) * sizeof *at);
    t->long_first = malloc(((size_t)depth + 2) * sizeof *t->long_first);
    gcg_status st = by_len && at && t->long_first ? GCG_OK : GCG_ERR_NOMEM;
    uint64_t total = 0, longer = 0;
    for (uint32_t n = 0; n < t->n_nodes && st == GCG_OK; n++)
        by_len[t->depth[n]] += t->tok_start[n + 1] - t->tok_start[n];
    for (uint32_t l = 0; l <= depth && st == GCG_OK; l++)
        longer += by_len[l];
    for (uint32_t r = 0; r <= depth && st == GCG_OK; r++) {
        longer -= by_len[r]; /* now: tokens longer than r */
        t->long_first[r] = (uint32_t)total, at[r] = total;
        total += longer;
    }
    if (st == GCG_OK && total >= UINT32_MAX)
        st = GCG_ERR_LIMIT;
    if (st == GCG_OK) {
        t->long_first[depth + 1] = (uint32_t)total;
        t->long_pos = malloc((size_t)(total + 1) * sizeof *t->long_pos);
        st = t->long_pos ? GCG_OK : GCG_ERR_NOMEM;
    }
    for (uint32_t n = 0; n < t->n_nodes && st == GCG_OK; n++)
        for (uint32_t k = t->tok_start[n]; k < t->tok_start[n + 1]; k++)
            for (uint32_t r = 0; r < t->depth[n]; r++)
                t->long_pos[at[r]++] = k;
    free(by_len), free(at);
    return st;
}

gcg_status gcg_trie_build(const gcg_vocab *v, const uint8_t *label, token_trie *t)
{
    memset(t, 0, sizeof *t);
    ins_trie it = {malloc(1024 * sizeof(ins_node)), 1, 1024, malloc(((size_t)v->n_tokens + 1) * 4), NULL,
                   NULL, 0};
    if (!it.n || !it.tok_next || !rehash(&it)) {
        free(it.n), free(it.tok_next), free(it.keys), free(it.vals);
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
            node = ins_child(&it, node, label ? label[v->bytes[i]] : v->bytes[i]);
        if (node == UINT32_MAX) {
            st = GCG_ERR_NOMEM;
            break;
        }
        it.tok_next[k] = it.n[node].first_tok;
        it.n[node].first_tok = k;
    }
    if (st == GCG_OK)
        st = flatten(&it, v, t);
    t->n_vocab = v->n_tokens;
    if (st == GCG_OK && !(t->token_bits = calloc(((size_t)v->n_tokens + 31) / 32 + 1, sizeof *t->token_bits)))
        st = GCG_ERR_NOMEM;
    for (uint32_t k = 0; st == GCG_OK && k < t->n_tokens; k++)
        t->token_bits[t->tokens[k] >> 5] |= 1u << (t->tokens[k] & 31);
    free(it.n), free(it.tok_next), free(it.keys), free(it.vals);
    if (st == GCG_OK)
        st = heights(t);
    if (st == GCG_OK)
        st = long_positions(t);
    if (st == GCG_OK)
        st = below_bytes(t);
    if (st == GCG_OK && label) /* class labels are not bytes: no character marks */
        st = (t->utf8 = calloc((size_t)t->n_nodes + 1, 1)) ? GCG_OK : GCG_ERR_NOMEM;
    else if (st == GCG_OK)
        st = utf8_marks(t);
    if (st != GCG_OK)
        gcg_trie_free(t);
    return st;
}

size_t gcg_trie_memory(const token_trie *t)
{
    if (!t->byte)
        return 0;
    size_t n = (size_t)t->n_nodes + 1;
    return (n - 1) * (1 + 2 * sizeof *t->depth) + n * sizeof *t->tok_start +
           ((size_t)t->n_vocab + 1) * sizeof *t->tokens +
           (((size_t)t->n_vocab + 31) / 32 + 1) * sizeof *t->token_bits + n * sizeof *t->height +
           ((size_t)t->max_depth + 2) * sizeof *t->long_first +
           ((size_t)t->long_first[t->max_depth + 1] + 1) * sizeof *t->long_pos + n * sizeof *t->below +
           ((size_t)t->n_below_sets + 1) * 4 * sizeof *t->below_sets + n * sizeof *t->utf8;
}

void gcg_trie_free(token_trie *t)
{
    free(t->byte), free(t->depth), free(t->end), free(t->tok_start), free(t->tokens), free(t->token_bits);
    free(t->height), free(t->long_first), free(t->long_pos), free(t->below), free(t->below_sets), free(t->utf8);
    memset(t, 0, sizeof *t);
}
