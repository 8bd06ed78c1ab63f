/*
 * mask_sim.h — the symbolic simulation behind the mask automaton: walk the
 * vocabulary's byte trie from an LR state (or resume a read configuration)
 * while simulating the LR actions on symbolic stacks, and report the tokens
 * whose every byte shifts and the read configurations left for the real
 * stack (see automaton.h for how those become the automaton).
 *
 * A symbolic stack [o, k, K...] is k known LR states on top of the real
 * stack's entry at depth o below the reference set (the states the real
 * stack may hold there). Stacks, sets of stacks and reference sets are
 * interned, and so are forms, the pairs (stack set, reference); one byte
 * class on one form is simulated once and then looked up; a trie subtree
 * entered in the same form is walked once and replayed, one whose every
 * byte leaves the stacks as they were (a string body) is accepted whole, and
 * one entered in a form that only differs from others by its reference
 * below a common state (a string in many places) is walked once in the
 * general form and resumed per place (see mask_sim.c). Reductions that only
 * wait for the next byte are taken after each shift where that is exact,
 * so that walks differing only in them meet; so are those of a root walk's
 * state, and a root walk is replayed for every state whose reduced stack
 * has the same lowest form. Forks that meet within a step are simulated
 * once, and a step that would make a form of very many stacks (forks on an
 * ambiguous grammar) is not made: the subtree it leads to is walked on a
 * graph-structured stack instead (mask_gss.h). A resume may stand for
 * several states below at once (a shared reference, below).
 *
 * One run: gcg_mask_sim_begin, then gcg_mask_sim_root or any number of
 * gcg_mask_sim_resume / gcg_mask_sim_resume_shared /
 * gcg_mask_sim_add_config, then read `cfgs` and gcg_mask_sim_positions.
 * Failures are sticky in `st`.
 */
#ifndef GCG_MASK_SIM_H
#define GCG_MASK_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "compile_limits.h"
#include "diag.h"
#include "lr_build.h"
#include "mask_gss.h"
#include "token_trie.h"
#include "utf8_ranges.h"
#include "vecmap.h"

/* A trie node being walked: its form (stacks over a reference set), the
 * reference lying `offset` entries below the run's top; memo = 1 when the
 * walk below it is recorded (from the log marks and the touch count on)
 * under memo_key; `low` the lowest equivalent of its form; `dead` its dead
 * classes (form_dead); `kid` the next child at the root, an index into the
 * root's table. */
typedef struct frame {
    uint32_t node, child, form, offset, dead, kid;
    uint32_t acc_mark, cfg_mark, touch_mark, memo;
    uint64_t memo_key;
    uint32_t low;
} frame;

/* A step (one byte class on one form), STEP_WORDS words: the next form
 * (NONE: every stack died), the drop of the reference, the first read in
 * step_reads and the number of reads, and the lowest equivalent of the next
 * form once asked for (else NONE). */
enum { STEP_FORM, STEP_DROP, STEP_READS, STEP_N_READS, STEP_LOW, STEP_WORDS };
/* A memo entry: intervals (first, count), configs (first, count) in
 * memo_data, and whether its walk touched a shared reference (below). */
#define MEMO_WORDS 5

#define ERR_WORDS 5 /* words of a terminal bit set: byte classes + end */

/* A child of the trie's root: its node, height and byte class. */
typedef struct root_kid { uint32_t node, height, cls; } root_kid;

typedef struct mask_sim {
    const lr_tables *lr;
    const token_trie *trie;          /* the byte trie                           */
    const uint8_t *class_of;         /* byte -> byte class (256)                */
    gcg_diag *diag;
    gcg_limits limits;
    uint32_t *pred_first, *pred;     /* CSR: states with a transition into t,
                                        ascending, each once                    */
    map64 long_gotos;                /* (state << 32 | nt) -> goto, for the
                                        states with over GCG_GOTO_SCAN gotos   */
    uint32_t *pending;               /* per state: its only reduction, or
                                        UINT32_MAX (see pre_reduce)            */
    uint64_t *err;                   /* per state: the terminals it rejects,
                                        err_words words                        */
    uint32_t err_words;
    map64 consensus;                 /* (ref, depth, lhs) -> goto / DEAD / READ */
    vec lset_start, lset_len, lset_data; /* interned reference sets of LR states */
    map64 lset_ids, lset_down;       /* ... and (ref, depth) -> the set below   */
    map64 shared_ids;                /* shared references (below), interned apart */
    vec lset_shared;                 /* per reference set: 1 when shared (grown
                                        as shared ones are made)               */
    uint32_t touched;                /* touches of shared references, all runs  */
    vec reads;                       /* (lhs, depth) reads of the step computed */
    vec acc_log;                     /* accepted trie-node intervals of the run */
    uint32_t acc_floor;              /* intervals below this index are closed   */
    vec memo, memo_data;             /* shared subtree walks                    */
    map64 memo_ids;                  /* (trie node, form) -> memo entry         */
    map64 memo_seen;                 /* keys of large entries walked once       */
    vec form_set, form_ref;          /* forms: (stack set, reference) pairs     */
    vec form_low, form_drop;         /* ... their lowest equivalent form and the
                                        levels it drops (NONE: not yet asked)  */
    vec form_loop;                   /* ... their entry in loops, or NONE       */
    vec form_gen;                    /* ... their general form (see mask_sim.c),
                                        NONE: not yet asked, DEAD: none        */
    vec form_dead;                   /* ... their dead classes' offset in dead,
                                        NONE: not yet asked (see form_dead)    */
    vec form_char;                   /* ... inside a character of a loop that
                                        keeps them all: the loop, then a bit
                                        per decoder state (mask_sim.c,
                                        CHAR_STATES), else NONE               */
    vec dead;                        /* err_words bit words (as uint32 pairs)
                                        per form asked                         */
    vec form_behav;                  /* ... their first behaviour record, NONE */
    vec behav;                       /* behaviour records: [next, class, n,
                                        the n states whose actions it read]    */
    vec consulted;                   /* states whose actions the step in hand
                                        read                                   */
    map64 form_ids;
    map64 resume_forms;              /* (q, to) -> the form of [to] over {q}    */
    uint32_t resume_q, resume_to;    /* the last resume's (q, to), NONE first,  */
    frame resume_parent;             /* ... the frame it entered nodes from    */
    bool resume_ok;                  /* ... and whether it has one             */
    map64 nested_forms;              /* (ref, to) -> the form of [to] over ref  */
    uint32_t *stamp, gen;
    vec layer, next_layer;
    vec arena;                       /* scratch stacks of one step: [o, k, K...] */
    vec stack_start, stack_data;     /* interned stacks                         */
    vec sset_start, sset_len, sset_data; /* interned sets of stack ids          */
    vec steps;                       /* cached steps, STEP_WORDS each           */
    vec step_reads;                  /* (lhs, depth) pairs of the steps' reads  */
    vec ids;                         /* scratch stack ids                       */
    map64 stack_ids, sset_ids;
    uint32_t *direct;                /* [form * n_terms + class]: its step's index
                                        in steps, or NONE before its first use */
    uint32_t cap_direct, n_direct;   /* ... allocated, and filled with NONE     */
    vec work;                        /* pending stacks: [o, k, K..., k + 2]     */
    map64 seen;                      /* stacks the step in hand simulated, once
                                        it forked: hash -> offset in seen_data  */
    vec seen_data;                   /* ... the stacks themselves               */
    vec seen_slots;                  /* ... their slots in `seen`, emptied one
                                        by one unless `seen` grew meanwhile    */
    uint32_t seen_cap;               /* ... seen.cap at the step's first stack  */
    bool forked;                     /* ... whether it has forked yet           */
    uint32_t shifts;                 /* stacks the step in hand shifted         */
    bool big_ok;                     /* ... and whether it may be BIG_STEP      */
    sym_gss gss;                     /* walks from large forms (mask_gss.h)     */
    uint32_t gss_form;               /* the form seeded at the graph's base     */
    gss_level gss_top;               /* ... its level                           */
    root_kid *root_kids;             /* the root's children, in order           */
    uint32_t n_root_kids;
    frame *frames;                   /* the walk in progress                    */
    frame **nested;                  /* frames of the walks nested in it        */
    uint32_t cap_frames, depth_nested;
    uint32_t ref, offset;            /* reference set of the step in hand, and
                                        its depth below the run's top          */
    vec cfgs;                        /* configurations: (trie node, lhs, skip)  */
    vec pos;                         /* the run's token positions (intervals)   */
    vec merged;                      /* scratch: sorting lists, merging logs    */
    uint64_t *loops;                 /* 5 words each: the bytes whose step keeps
                                        a lowest form as it is, then flags     */
    uint32_t n_loops, cap_loops;
    uint64_t class_bytes[256][4];    /* per byte class: its bytes (256 bits)     */
    uint8_t class_order[256];        /* the classes by their lowest byte        */
    uint32_t n_classes;
    uint16_t utf8_steps[GCG_U8_BAD][128]; /* per UTF-8 decoder state: (byte class
                                        << 4 | next state) pairs (keeps_chars) */
    uint32_t n_utf8_steps[GCG_U8_BAD];
    bool share;                      /* take loop subtrees whole, pre-reduce,
                                        replay root walks, share steps between
                                        classes and walk general forms (else
                                        the plain walk)                        */
    uint64_t visits;                 /* trie nodes entered, all runs            */
    uint64_t replayed;               /* the last root run: memo entry << 32 |
                                        offset when it was a whole replay, else
                                        UINT64_MAX (gcg_mask_sim_root)         */
    uint32_t shallow;                /* skip subtrees no deeper than this (0: none) */
    gcg_status st;                   /* first failure                           */
} mask_sim;


/* A goto row longer than this is also hashed (long_gotos): a member
 * position's state has gotos on every property and key-trie nonterminal
 * that may follow (1,600 in a large schema), and consensus and resumes ask
 * such states for one goto after another. */
#define GCG_GOTO_SCAN 16

/* lr_goto(s->lr, state, nt), by hash where the row is long. */
static inline uint32_t gcg_mask_sim_goto(const mask_sim *s, uint32_t state, uint32_t nt)
{
    const lr_tables *t = s->lr;
    if (t->go_start[state + 1] - t->go_start[state] <= GCG_GOTO_SCAN)
        return lr_goto(t, state, nt);
    return gcg_map64_get(&s->long_gotos, (uint64_t)state << 32 | nt); /* UINT32_MAX: GCG_NO_GOTO */
}

/* Sets up the simulation over `lr` and the byte `trie` (class_of maps its
 * bytes to the tables' byte classes); the pointers must outlive it. */
gcg_status gcg_mask_sim_init(mask_sim *s, const lr_tables *lr, const token_trie *trie, const uint8_t *class_of,
                             const gcg_limits *limits, gcg_diag *diag);
void gcg_mask_sim_free(mask_sim *s);

/* Starts a run: no tokens accepted, no configurations. */
void gcg_mask_sim_begin(mask_sim *s);
/* Walks the whole trie from the empty stack top `state`. When the walk is
 * a replay of one memo entry (`replayed`), every root run with the same
 * entry and offset records the same tokens and configurations. */
void gcg_mask_sim_root(mask_sim *s, uint32_t state);
/* From now on, walks skip the trie's subtrees holding no token longer than
 * `shallow` bytes (0: none): what a run records is then exact for longer
 * tokens and for configurations below depth `shallow`, a subset of the truth
 * above (the caller supplies the short tokens' results, from a twin). */
void gcg_mask_sim_set_shallow(mask_sim *s, uint32_t shallow);
/* Resumes a configuration at trie node `node` whose reduction, read below,
 * exposed LR state q and led to state `to`: the node's byte is simulated
 * again from [q, to] and the walk continues below it. */
void gcg_mask_sim_resume(mask_sim *s, uint32_t node, uint32_t q, uint32_t to);
/* A shared reference: the distinct LR states states[0..n), n >= 2, each
 * standing for itself. A walk over it answers every question about the
 * states below as each member would alone; where the members' answers
 * differ it counts a touch (`touched`) instead, and its results hold for
 * none of them. A run whose touch count did not move holds for every
 * member: it is the run each would have made. NONE on failure. */
uint32_t gcg_mask_sim_shared_ref(mask_sim *s, const uint32_t *states, uint32_t n);
/* As gcg_mask_sim_resume, with the exposed state one of shared reference
 * `ref`'s members, each of which leads to `to`. */
void gcg_mask_sim_resume_shared(mask_sim *s, uint32_t node, uint32_t ref, uint32_t to);
/* Adds the configuration (node, lhs, skip) to the run. */
bool gcg_mask_sim_add_config(mask_sim *s, uint32_t node, uint32_t lhs, uint32_t skip);
/* The run's accepted tokens as sorted, disjoint [start, end) intervals of
 * positions in trie->tokens (one form per token set): *n words in pairs. */
const uint32_t *gcg_mask_sim_positions(mask_sim *s, uint32_t *n);
/* The run's accepted trie-node intervals as the walks logged them (*n
 * words in pairs, in no canonical order): runs that log the same words
 * accept the same tokens. Valid until gcg_mask_sim_positions. */
const uint32_t *gcg_mask_sim_log(const mask_sim *s, uint32_t *n);

#endif /* GCG_MASK_SIM_H */
