/*
 * automaton.h — the mask automaton: which tokens each stack allows, decided
 * ahead of time so the runtime reads the stack once instead of trying tokens.
 *
 * For every LR state s as the stack top, the token trie is walked while the
 * LR actions are simulated on a symbolic stack whose known part starts as
 * [s]. Tokens whose bytes all shift are RootAcc[s]. When a reduction must pop
 * below the known part, either every state that can lie there leads to the
 * same goto (path consensus: only an offset is remembered) or the outcome
 * depends on the real stack: a read configuration (trie node, pending lhs,
 * entries to skip) is recorded. Sets of configurations are the states D of a
 * deterministic automaton over the alphabet of LR states: reading state q
 * below resumes each configuration, giving Acc(D, q), the tokens now decided,
 * and the next D. Only the q that can really lie below get transitions.
 * Token sets and automaton states are hash-consed.
 */
#ifndef GCG_AUTOMATON_H
#define GCG_AUTOMATON_H

#include <stdbool.h>
#include <stdint.h>

#include "cfg.h"
#include "diag.h"
#include "compile_limits.h"
#include "lr_build.h"
#include "token_trie.h"
#include "vocab.h"

typedef struct ma_trans {
    uint32_t q;      /* LR state read           */
    uint32_t acc;    /* token set id            */
    uint32_t next;   /* automaton state or UINT32_MAX (done) */
} ma_trans;

typedef struct mask_automaton {
    uint32_t n_tokens, words;     /* vocabulary size; words per dense set      */
    uint32_t n_sets;
    uint32_t **sets;              /* each set as it is emitted: a bitmap over
                                     token ids (words words) when dense, else
                                     its ids ascending (gcg_automaton_set_is_sparse) */
    uint32_t *set_count;          /* tokens in each set                        */
    uint32_t n_states;            /* automaton states D                        */
    uint32_t n_states_built;      /* states before minimization                */
    uint32_t *trans_start;        /* n_states + 1 into trans                   */
    ma_trans *trans;
    uint32_t n_trans;
    uint32_t *root_acc;           /* per LR state: token set id                */
    uint32_t *root_d;             /* per LR state: automaton state or UINT32_MAX */
    uint32_t *state_lhs;          /* per automaton state: a pending lhs (reports) */
    /* certificate */
    bool bounded;
    uint32_t max_reads, max_set_ops;  /* per frontier node (gcg_certify)          */
    uint32_t whole_reads, whole_edges, whole_set_ops; /* one whole fill_mask     */
    uint32_t unbounded_reason;    /* GCG_CERT_* of artifact_format.h           */
    uint64_t max_bytes;
    char unbounded_rule[64];
    uint32_t commit_bounded;      /* GCG_CERT_* of one commit step (commit_bound.h) */
    uint32_t max_step_work;
    char commit_rule[64];
    uint64_t sim_steps;           /* trie-edge visits during construction      */
    uint32_t walks_shared;        /* root walks and resumes a twin's gave      */
    uint32_t roots_replayed;      /* root runs another's replay gave (run_root) */
    uint32_t resumes_shared;      /* resumes a group's shared run gave, beyond
                                     one per group (automaton.c)              */
    uint32_t shared_dropped;      /* shared runs dropped: they touched         */
} mask_automaton;

/* `trie` is the vocabulary's byte trie; `class_of` maps its bytes to the
 * byte classes the LR tables are indexed by. `limits` may be NULL for the
 * defaults (max_automaton_states, max_stacks). With share_walks, a state's
 * walk is taken from a twin whose walk is proven equal (horizon.h), and a
 * trie subtree whose bytes all leave the stacks as they are is taken whole,
 * and subtrees are shared across the places a rule is used (mask_sim.h),
 * and groups of at least `group_min` states below (0: the default) are
 * resumed together (automaton.c); the automaton is the same either way,
 * only built faster. */
gcg_status gcg_automaton_build(const cfg *g, const lr_tables *lr, const gcg_vocab *v,
                               const token_trie *trie, const uint8_t *class_of, const gcg_limits *limits,
                               bool share_walks, uint32_t group_min, const char *const *rule_names,
                               mask_automaton *out, gcg_diag *diag);
void gcg_automaton_free(mask_automaton *a);

/* Whether a set is stored as a sorted id list rather than a bitmap: when it
 * is small enough that scattering its ids costs less than copying words. */
bool gcg_automaton_set_is_sparse(const mask_automaton *a, uint32_t set);

/* Bytes a set occupies at runtime (dense bitmap or sorted id list). */
uint64_t gcg_automaton_set_bytes(const mask_automaton *a, uint32_t set);

#endif /* GCG_AUTOMATON_H */
