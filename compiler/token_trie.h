/*
 * token_trie.h — the vocabulary as a trie over token bytes.
 *
 * Nodes are numbered in depth-first preorder with children in ascending byte
 * order, so the subtree of node n is the node range [n, end[n]) and the tokens
 * ending in that subtree are one contiguous range of `tokens`. Both the mask
 * automaton ("the tokens below a trie edge") and the brute-force mask rely on
 * that. Special tokens and empty tokens (no text) are not in the trie: the
 * grammar never allows them.
 */
#ifndef GCG_TOKEN_TRIE_H
#define GCG_TOKEN_TRIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gcg.h"
#include "vocab.h"

typedef struct token_trie {
    uint32_t n_nodes;      /* node 0 is the root (the empty prefix)            */
    uint8_t *byte;         /* n_nodes: the label on the edge into the node: the
                              byte, or its byte class in a class trie          */
    uint32_t *depth;       /* n_nodes                                          */
    uint32_t *end;         /* n_nodes: subtree is [n, end[n])                  */
    uint32_t *tok_start;   /* n_nodes + 1: tokens ending at n are
                              tokens[tok_start[n] .. tok_start[n+1])           */
    uint32_t *tokens;      /* token ids in preorder of their end node          */
    uint32_t n_tokens;
    uint32_t n_vocab;      /* the vocabulary's tokens, in and out of the trie */
    uint32_t *token_bits;  /* the same ids as a bitmap over the vocabulary:
                              (n_vocab + 31) / 32 words                        */
    /* Indexes for the mask simulation's shared walks (horizon.h), made with
     * the trie so that a prepared vocabulary makes them once: */
    uint32_t *height;      /* n_nodes: the depth of the deepest node below n   */
    uint32_t max_depth;    /* the longest token, in bytes                      */
    uint32_t *long_first;  /* max_depth + 2: positions (indexes into tokens)   */
    uint32_t *long_pos;    /*   of tokens longer than r bytes are long_pos[
                              long_first[r] .. long_first[r + 1]), ascending   */
    uint32_t *below;       /* n_nodes: the labels (bytes) on the edges below n,
                              not the edge into n, as below_sets[4 * below[n]
                              .. + 4): 256 bits                                */
    uint64_t *below_sets;  /* n_below_sets x 4 words, each set once          */
    uint32_t n_below_sets;
    uint8_t *utf8;         /* n_nodes: TRIE_UTF8_* bits (byte tries only)      */
} token_trie;

/* utf8[n]: the path to n is well-formed UTF-8 ending at a character
 * boundary; every path below n goes on as well-formed UTF-8 (a token may
 * stop inside a character); in the high four bits, the state of a UTF-8
 * decoder after the path (GCG_U8_*, utf8_ranges.h). A walk from a loop that keeps every
 * character takes such a subtree whole (mask_sim.c). */
#define TRIE_UTF8_BOUNDARY 1u
#define TRIE_UTF8_BELOW_OK 2u
#define TRIE_UTF8_STATE(u) ((u) >> 4) /* the decoder's state at the node */

/* Whether every byte on the edges below node n is in the 256-bit set
 * `bytes` (bit b of word b / 64). */
static inline bool gcg_trie_below_within(const token_trie *t, uint32_t n, const uint64_t *bytes)
{
    const uint64_t *s = t->below_sets + 4 * (size_t)t->below[n];
    return !(s[0] & ~bytes[0]) && !(s[1] & ~bytes[1]) && !(s[2] & ~bytes[2]) && !(s[3] & ~bytes[3]);
}

/* Whether every ASCII byte below node n is in `bytes` (as
 * gcg_trie_below_within, bytes 0-127 only). */
static inline bool gcg_trie_below_ascii_within(const token_trie *t, uint32_t n, const uint64_t *bytes)
{
    const uint64_t *s = t->below_sets + 4 * (size_t)t->below[n];
    return !(s[0] & ~bytes[0]) && !(s[1] & ~bytes[1]);
}

/* With `label` NULL the edges are bytes; otherwise byte b is labelled
 * label[b], so tokens whose bytes fall in the same classes share a path (the
 * mask automaton walks the class trie: the grammar cannot tell such tokens
 * apart, and the trie is about half the size). */
gcg_status gcg_trie_build(const gcg_vocab *v, const uint8_t *label, token_trie *t);
void gcg_trie_free(token_trie *t);
/* Bytes the trie holds (its arrays, not the struct). */
size_t gcg_trie_memory(const token_trie *t);

#endif /* GCG_TOKEN_TRIE_H */
