/*
 * artifact_format.h — what each section of a .gcg file holds (the container
 * itself is described in container.h). All integers little-endian; arrays
 * are tightly packed uint32 unless stated otherwise. The loader (artifact.c)
 * checks every count and every index below before the runtime follows it.
 */
#ifndef GCG_ARTIFACT_FORMAT_H
#define GCG_ARTIFACT_FORMAT_H

#include <stdint.h>

enum gcg_section_id {
    /* UTF-8 text, one `key=value` per line: grammar (file name), grammar_xxh3,
     * root, vocab (file name or "bytes256" / "none"), vocab_xxh3, vocab_size,
     * compiler (version), options. Informational: nothing at runtime needs it. */
    GCG_SEC_META = 1,
    GCG_SEC_GRAMMAR = 2,     /* the GBNF source, verbatim                         */
    GCG_SEC_BYTECLASS = 3,   /* tables header + byte -> class map                 */
    GCG_SEC_PRODUCTIONS = 4, /* per production: lhs, rhs length                   */
    GCG_SEC_ACTION = 5,      /* LR action cells, states x terminals               */
    GCG_SEC_MULTI = 6,       /* GLR conflict action lists                         */
    GCG_SEC_GOTO = 7,        /* LR goto, states x nonterminals                    */
    GCG_SEC_SYMBOLS = 8,     /* nonterminal names (for reports and info)          */
    GCG_SEC_VOCAB = 9,       /* token bytes, flags, EOS ids                       */
    GCG_SEC_TOKENSETS = 10,  /* hash-consed token sets, dense or sparse           */
    GCG_SEC_AUTOMATON = 11,  /* mask automaton states and transitions             */
    GCG_SEC_ROOTS = 12,      /* per LR state: RootAcc set, RootD automaton state  */
    GCG_SEC_CERTIFICATE = 13,/* worst-case latency bound                          */
    GCG_SEC_TRIE = 14        /* token trie over byte classes (brute-force mask)   */
};

#endif /* GCG_ARTIFACT_FORMAT_H */
