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

/* Fills a->bounded, max_reads, max_set_ops, max_bytes and unbounded_rule.
 * `rule_names` (GBNF rule names, may be NULL) name the rule of a cycle. */
gcg_status gcg_certify(mask_automaton *a, const cfg *g, uint32_t n_lr_states, const char *const *rule_names);

#endif /* GCG_CERTIFICATE_H */
