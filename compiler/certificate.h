/*
 * certificate.h — the worst-case work of one fill_mask, proved from the mask
 * automaton: the longest chain of stack reads below a frontier node, the set
 * operations and the token-set bytes along it; or, when the automaton has a
 * cycle (right recursion read through), "unbounded" with the rule behind it.
 */
#ifndef GCG_CERTIFICATE_H
#define GCG_CERTIFICATE_H

#include <stdint.h>

#include "automaton.h"
#include "cfg.h"
#include "commit_bound.h"
#include "lr_build.h"

/* Writes into out the GBNF rule of nonterminal nt (from `rule_names`, may be
 * NULL), or the nonterminal's own name where it has no rule. */
void gcg_cert_rule_name(char out[64], const cfg *g, uint32_t nt, const char *const *rule_names);

/* Sets a's commit bound from cb, naming the rule of an unbounded one. */
void gcg_certify_commit(mask_automaton *a, const cfg *g, const char *const *rule_names, const commit_bound *cb);

/* Fills a->bounded, max_reads, max_set_ops, max_bytes and unbounded_rule.
 * `rule_names` (GBNF rule names, may be NULL) name the rule of a cycle. */
gcg_status gcg_certify(mask_automaton *a, const cfg *g, uint32_t n_lr_states, const char *const *rule_names);

/* The bound of one whole fill_mask from the per-node bound: at most P
 * stacks below the frontier, each read like a single stack, so reads and
 * edges are P x (max_reads + 1). P is 1 without LR conflicts; with them it
 * is the most stacks any fork keeps alive at once, found by exploring the
 * configurations of coexisting stacks a conflict can reach (the runtime's
 * sharing of equal nodes included); where a fork's stacks keep growing with
 * the input, reads and edges are unbounded for ambiguity, naming a rule of
 * the conflict. With `unions` (token references whose commits may unite two
 * paths, token_refs.h) the frontier is no fork's, so reads and edges are
 * unbounded for ambiguity, rule "token reference". Set operations are
 * bounded in every case (whole_set_ops). */
gcg_status gcg_certify_whole(mask_automaton *a, const lr_tables *lr, const cfg *g, const char *const *rule_names,
                             bool unions);

#endif /* GCG_CERTIFICATE_H */
