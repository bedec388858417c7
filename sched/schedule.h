/* schedule.h - TensorIR schedules: state, handles, primitives, traces, scripts.
 *
 * A Schedule holds the current IrModule version (every primitive derives a new
 * immutable version; older ones stay alive for undo), the function worked on,
 * the random-variable handles the user holds (BlockRV / LoopRV) and the trace
 * of applied instructions.  Primitives follow TVM v0.23's names, parameters,
 * defaults and legality checks (shared/reference/schedule_primitives.md); a
 * failing check reports one error to the DiagCtx and leaves the schedule
 * unchanged.
 *
 * Handles identify statements the way TVM's srefs are reused: a loop handle
 * denotes "the For whose loop var is V", a block handle "the block whose iter
 * vars are ..." (or, for blocks without iters, its name).  A primitive that
 * rebuilds a loop or block but keeps its var/iters keeps the handle valid;
 * one that removes it (split / fuse of a loop, compute_inline of a block)
 * makes the handle stale, and using it is an error. */
#ifndef TVS_SCHED_SCHEDULE_H
#define TVS_SCHED_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/module.h"
#include "lang/ast.h"
#include "base/diag.h"
#include "base/util.h"

typedef struct Schedule Schedule;

/* A handle: an index into the schedule's table of random variables; -1 = none. */
typedef int SchRV;

typedef enum SchRVKind { SCH_RV_BLOCK, SCH_RV_LOOP, SCH_RV_EXPR } SchRVKind;

/* What kind of rule a failed primitive broke, after TVM's typed
 * ScheduleError classes (NotAffineBindingError, LoopsNotAChainError, ...),
 * grouped by the fact they check.  Tests, the REPL and the language server
 * match on the kind; the message stays for people.  The JSON form of a
 * schedule diagnostic carries the kind's name as "code". */
typedef enum SchErrorKind {
  SCH_ERR_NONE,             /* no error since the last primitive began */
  SCH_ERR_INVALID_ARGUMENT, /* a value the primitive cannot take: factor, index, dtype, scope, index map */
  SCH_ERR_INVALID_HANDLE,   /* a stale handle, or one of the wrong kind (BlockRV for LoopRV) */
  SCH_ERR_NOT_FOUND,        /* no function, block, buffer or intrinsic of that name */
  SCH_ERR_LOOP_STRUCTURE,   /* loops not a chain, not the only child, repeated, dependent, not from 0 */
  SCH_ERR_LOOP_KIND,        /* an annotation, thread binding or non-serial loop forbids it */
  SCH_ERR_NOT_AFFINE,       /* block bindings are not (quasi-)affine in the loops */
  SCH_ERR_DATAFLOW,         /* producer/consumer facts: not compact dataflow, not a stage pipeline,
                               not in one scope, no legal location */
  SCH_ERR_REDUCTION,        /* not a reduction block, or a reduction pattern it cannot use */
  SCH_ERR_BODY_PATTERN,     /* the block body lacks the form required (inline, tensorize, epilogue) */
  SCH_ERR_BUFFER_ACCESS,    /* several writers, opaque or in-place access, regions that do not fit */
  SCH_ERR_UNSUPPORTED,      /* a case TVS refuses on purpose (docs/schedules.md lists them) */
  SCH_ERR_INTERNAL,         /* a primitive produced ill-formed IR: a TVS bug */
} SchErrorKind;

/* The kind's stable name ("LoopStructureError"), the diagnostic's code. */
const char *sch_error_kind_name(SchErrorKind kind);
/* The kind of the latest error reported (SCH_ERR_NONE once a primitive has
 * succeeded since). */
SchErrorKind sch_last_error_kind(const Schedule *s);

/* ------------------------------------------------------------ state */

/* A schedule over module m (shared, not copied: m must outlive the schedule's
 * versions only through its heap, which the schedule retains).  Errors go to
 * diag.  The function worked on is "main", else the only prim_func. */
Schedule *sch_new(const IrModule *m, DiagCtx *diag);
void sch_free(Schedule *s);
/* The current module version (owned by the schedule). */
const IrModule *sch_mod(const Schedule *s);
/* A copy of the current version the caller owns (ir_module_free it). */
IrModule *sch_take_mod(const Schedule *s);
/* Selects the function later primitives and get_block default to; 0 / -1. */
int sch_work_on(Schedule *s, const char *func_name);
/* Undoes the last primitive (its version and trace entry); false if none. */
bool sch_undo(Schedule *s);
/* Number of module versions made so far (1 = nothing applied). */
int sch_num_versions(const Schedule *s);
/* Where errors of the next primitive point: the call and its arguments'
 * spans (argument i of the primitive's parameter list; span_none = the call). */
void sch_set_call_spans(Schedule *s, Span call, const Span *args, int nargs);
/* The kind of a handle, and its trace name ("b0", "l3"). */
SchRVKind sch_rv_kind(const Schedule *s, SchRV rv);
/* How many handles exist (valid ones are 0 .. n-1; undo keeps them). */
int sch_num_rvs(const Schedule *s);
const char *sch_rv_name(const Schedule *s, SchRV rv);

/* ----------------------------------------------------------- getters */

SchRV sch_get_block(Schedule *s, const char *name, const char *func_name);
/* The loops around block, outer to inner.  *out is malloc'd; returns the
 * count, or -1 on error. */
int sch_get_loops(Schedule *s, SchRV block, SchRV **out);
int sch_get_child_blocks(Schedule *s, SchRV block_or_loop, SchRV **out);
int sch_get_producers(Schedule *s, SchRV block, SchRV **out);
int sch_get_consumers(Schedule *s, SchRV block, SchRV **out);
/* The blocks under scope_block (nested ones included, pre-order) writing a
 * buffer their own scope root does not allocate, e.g. function outputs. */
int sch_get_output_blocks(Schedule *s, SchRV scope_block, SchRV **out);

/* ------------------------------------------------ loop transformations */

/* factors[i] == 0 (None) or -1 is inferred.  out receives n handles. */
int sch_split(Schedule *s, SchRV loop, const int64_t *factors, int n, bool preserve_unit_iters,
              bool disable_predication, SchRV *out);
/* The same with factors given as ExprRVs (sample_perfect_tile's results;
 * -1 = None), recorded as the script form `factors=[v0, v1]` is. */
int sch_split_exprs(Schedule *s, SchRV loop, const SchRV *factors, int n, bool preserve_unit_iters,
                    bool disable_predication, SchRV *out);
SchRV sch_fuse(Schedule *s, const SchRV *loops, int n, bool preserve_unit_iters);
int sch_reorder(Schedule *s, const SchRV *loops, int n);
SchRV sch_add_unit_loop(Schedule *s, SchRV block_or_loop);

/* --------------------------------------------------- loop kinds, annotations */

int sch_parallel(Schedule *s, SchRV loop);
int sch_vectorize(Schedule *s, SchRV loop);
int sch_unroll(Schedule *s, SchRV loop);
int sch_bind(Schedule *s, SchRV loop, const char *thread_axis);
/* val is copied into the new version. */
int sch_annotate(Schedule *s, SchRV block_or_loop, const char *key, const IrValue *val);
int sch_unannotate(Schedule *s, SchRV block_or_loop, const char *key);

/* ---------------------------------------------------- compute location */

int sch_compute_at(Schedule *s, SchRV block, SchRV loop, bool preserve_unit_loops, int index);
int sch_reverse_compute_at(Schedule *s, SchRV block, SchRV loop, bool preserve_unit_loops,
                           int index);
int sch_compute_inline(Schedule *s, SchRV block);
int sch_reverse_compute_inline(Schedule *s, SchRV block);

/* ------------------------------------------------------------ reductions */

SchRV sch_decompose_reduction(Schedule *s, SchRV block, SchRV loop);
/* Factorizes the reduction of the only block under loop: a new block
 * `<block>_rf` (returned) reduces into `<buf>_rf`, the output shape with an
 * axis of loop's extent inserted at factor_axis (in [-(ndim+1), ndim]); the
 * block then reduces `<buf>_rf` over that axis into the output. */
SchRV sch_rfactor(Schedule *s, SchRV loop, int factor_axis);

/* ------------------------------------------------------ caching and buffers */

/* A copy stage `<buf>_<scope>` reading block's read buffer read_buffer_index
 * into a new `<buf>_<scope>` buffer, which the buffer's readers then read;
 * returns the copy block. */
SchRV sch_cache_read(Schedule *s, SchRV block, int read_buffer_index, const char *storage_scope);
/* The block writes a new `<buf>_<scope>` buffer instead; a write-back block
 * `<buf>_<scope>` (returned) copies it to the buffer before its consumers. */
SchRV sch_cache_write(Schedule *s, SchRV block, int write_buffer_index, const char *storage_scope);
/* The same with consumer_blocks (n > 0): cache_read redirects only those
 * blocks (placed before the first of them); cache_write makes them read the
 * cache directly (the write-back goes before the first other reader). */
SchRV sch_cache_read_for_consumers(Schedule *s, SchRV block, int read_buffer_index,
                                   const char *storage_scope, const SchRV *consumer_blocks, int n);
SchRV sch_cache_write_for_consumers(Schedule *s, SchRV block, int write_buffer_index,
                                    const char *storage_scope, const SchRV *consumer_blocks, int n);

/* Gives the block-allocated buffer written at write index buffer_index the
 * storage scope storage_scope (the alloc_buffer and every use are updated);
 * the same scope is a no-op.  Function parameters are refused. */
int sch_set_scope(Schedule *s, SchRV block, int buffer_index, const char *storage_scope);
/* Records `stride[axis] = k * factor + offset` for the block-allocated buffer
 * written at buffer_index in the block annotation "buffer_dim_align"
 * ([[buffer_index, axis, factor, offset], ...]; an entry for the same buffer
 * and axis is replaced).  axis may be negative (counted from the end). */
int sch_storage_align(Schedule *s, SchRV block, int buffer_index, int axis, int factor, int offset);

/* ------------------------------------------------ blockize and tensorize */
/* (primitive_blockize.c, primitive_tensorize.c) */

/* Turns the loop nest from loop down to its only block into a new block
 * `<block>_o` (returned) whose iters are the outer parts of the block's
 * bindings; the block keeps the inner parts (`<v>_i`). */
SchRV sch_blockize(Schedule *s, SchRV loop, bool preserve_unit_iters);
/* Wraps n consecutive sibling blocks into one block `outer_<b1>_<b2>_...`. */
SchRV sch_blockize_blocks(Schedule *s, const SchRV *blocks, int n, bool preserve_unit_iters);
/* Replaces the block (or the block blockize(loop) makes) by the
 * implementation of the registered tensor intrinsic intrin_name, after
 * matching it against the intrinsic's description (sched/tensor_intrin.h). */
int sch_tensorize(Schedule *s, SchRV block_or_loop, const char *intrin_name, bool preserve_unit_iters);

/* ------------------------------------------------------------ layouts */
/* (primitive_layout.c: transform_layout, transform_block_layout, set_axis_separator) */

/* Gives the buffer at (is_write ? writes : reads)[buffer_index] of block
 * the shape of its image under index_map (a lambda's text, e.g.
 * "lambda i, j: (i // 4, j, i % 4)") and rewrites all its accesses; a map
 * not onto the new shape needs pad_value (NULL = None; a number's or a
 * lambda's text). */
int sch_transform_layout(Schedule *s, SchRV block, bool is_write, int buffer_index,
                         const char *index_map, const char *pad_value, bool assume_injective_transform);
/* Remaps the block's iteration space through a bijective affine index map:
 * new iters v0.. and loops ax0.. over the image. */
int sch_transform_block_layout(Schedule *s, SchRV block, const char *index_map);
/* Records the axis separators (strictly increasing, in [1, ndim)) of a buffer. */
int sch_set_axis_separator(Schedule *s, SchRV block, bool is_write, int buffer_index,
                           const int64_t *axis_separators, int n);

/* ------------------------------------------------------------ reindex */
/* (primitive_reindex.c: reindex, reindex_cache_read/write, reorder_block_iter_var,
 * unsafe_set_dtype, annotate_buffer_access) */

/* Copies the buffer at (is_write ? writes : reads)[buffer_index] of a leaf
 * block (one access pattern) through `<buf>_reindex`, indexed by the block
 * iters the pattern uses; returns the copy block (placed before the block's
 * loop nest for a read, after it for a write). */
SchRV sch_reindex(Schedule *s, SchRV block, bool is_write, int buffer_index);
/* The same through index_map (a lambda of all block iters) into a buffer
 * `<buf>_<scope>` of storage_scope; the access must be a single point. */
SchRV sch_reindex_cache_read(Schedule *s, SchRV block, int read_buffer_index,
                             const char *storage_scope, const char *index_map);
SchRV sch_reindex_cache_write(Schedule *s, SchRV block, int write_buffer_index,
                              const char *storage_scope, const char *index_map);
/* Permutes the block's iters (and their bindings): new iter i is old
 * new_order[i]; new_order must be a permutation of [0, niters). */
int sch_reorder_block_iter_var(Schedule *s, SchRV block, const int64_t *new_order, int n);
/* Gives the block-allocated buffer written at buffer_index the element type
 * dtype; stores into it cast to dtype, loads of it cast back.  The same
 * dtype is a no-op. */
int sch_unsafe_set_dtype(Schedule *s, SchRV block, int buffer_index, const char *dtype);
/* Overrides the block's read (buf_type "read") or write region buffer_index
 * with gen_new_ranges, a lambda of the block iters giving per dimension a
 * (begin, end) pair or one index; records the index in the block annotation
 * "explicit_read_region" / "explicit_write_region". */
int sch_annotate_buffer_access(Schedule *s, SchRV block, int buffer_index, const char *buf_type,
                               const char *gen_new_ranges);

/* ------------------------------------------------ more caching primitives */
/* (primitive_cache_ext.c: cache_inplace, cache_index, read_at, write_at, rolling_buffer) */

/* For a block reading and writing its read buffer read_buffer_index: a
 * copy-in stage into a new `<buf>_<scope>` right before the block and a
 * copy-back stage right after it (both blocks named `<buf>_<scope>`); the
 * block uses the copy.  out receives [copy-in, copy-back]. */
int sch_cache_inplace(Schedule *s, SchRV block, int read_buffer_index, const char *storage_scope,
                      SchRV out[2]);
/* A block `<buf>_<scope>` (annotated auto_copy) inside loop, before the first
 * of loop's body statements reading the buffer, copies the region they read
 * (relaxed over the loops inside loop) into `<buf>_<scope>`, which those
 * statements then read.  Returns the copy block. */
SchRV sch_read_at(Schedule *s, SchRV loop, SchRV block, int read_buffer_index, const char *storage_scope);
/* The same for writes: the body statements up to the last writer write the
 * cache and the copy-back block follows them. */
SchRV sch_write_at(Schedule *s, SchRV loop, SchRV block, int write_buffer_index, const char *storage_scope);
/* Folds the block-allocated buffer written at write_buffer_index into a
 * circular buffer along the outermost dimension whose tiles (under the
 * loop shared with its consumers) overlap: that dimension shrinks to the tile
 * extent, accesses take it modulo the extent, the writer skips the elements
 * the previous tile computed, and that block iter becomes opaque. */
int sch_rolling_buffer(Schedule *s, SchRV block, int write_buffer_index);
/* Precomputes the integer index expressions of the block's stores (over its
 * iters; those seen at least cse_thresh times, parts of rarer ones) into
 * buffers `index_var_<k>` filled by blocks `index_<k>` placed before it; the
 * block loads them instead.  *out (malloc'd) receives the index blocks;
 * returns their count or -1. */
int sch_cache_index(Schedule *s, SchRV block, const char *storage_scope, int cse_thresh, SchRV **out);

/* ------------------------------------------------ other loop/block primitives */
/* (primitive_misc.c: merge, loop_partition, pad_einsum, decompose_padding,
 * fuse_reduction_epilogue) */

/* Merges the loop nests from each loop up to their lowest common ancestor
 * (same depth, same extents, chains of only children, starting at 0) into
 * one nest of fresh `<var>_m` loops placed where the last nest was, whose
 * body runs the bodies in the given order; returns the innermost new loop. */
SchRV sch_merge(Schedule *s, const SchRV *loops, int n);
/* Cuts loop's range into consecutive pieces of the given sizes (0 or -1:
 * the one inferred size; without one, the rest is a last piece), each a
 * loop `<var><i>` in an opaque block `<blk>_<var><i>_partition` under a block
 * `<blk>_<var>_common`.  out (room for n + 1) receives the new loops;
 * returns their count, or -1. */
int sch_loop_partition(Schedule *s, SchRV loop, const int64_t *factors, int n,
                       bool preserve_unit_iters, SchRV *out);
/* Splits a padding block `X[...] = T.if_then_else(in_bounds, v, pad)` under
 * loop into a `<block>_pad_const` block (returned) filling X with pad in a
 * copy of the loops up to loop, placed just before it, and the block itself
 * narrowed to the in-bound region (primitive_padding.c). */
SchRV sch_decompose_padding(Schedule *s, SchRV block, SchRV loop);
/* Pads each iter of an Einsum-like block (operands indexed at plain iters
 * or constants) up to a multiple of padding[i] (n = its iter count): operands
 * indexed by padded iters become `<buf>_pad` buffers, zero-filled by copy
 * blocks before the block's statement and copied back after it. */
int sch_pad_einsum(Schedule *s, SchRV block, const int64_t *padding, int n);
/* Folds the elementwise epilogue block (reading the reduction's result once,
 * additively or under min/max) into the reduction block, which then writes
 * the epilogue's output: init = epilogue of 0, update = epilogue of the
 * update with the bias addend dropped (primitive_epilogue.c). */
int sch_fuse_reduction_epilogue(Schedule *s, SchRV reduction_block, SchRV epilogue_block);

/* ------------------------------------------------------------ sampling */
/* (primitive_sampling.c: sample_perfect_tile, sample_categorical, sample_compute_location)
 *
 * Randomness comes from the schedule's own RNG, TVM's linear congruential
 * engine (minstd: x' = 48271 x mod 2^31-1), seeded by sch_seed; the same seed
 * gives the same draws.  Every sample is recorded in the trace with its
 * decision, and replaying the trace reuses the decision. */

/* Seeds the RNG (seed -1: from the clock and the process id, as TVM's
 * random_device); sch_new seeds with -1. */
void sch_seed(Schedule *s, int64_t seed);
/* A new seed drawn from the RNG, for a child schedule (TVM's ForkSeed). */
int64_t sch_fork_seed(Schedule *s);
/* debug_mask != 0: after every primitive the function is re-verified
 * (sch_verify_func) and a violation is reported as an internal error. */
void sch_set_debug_mask(Schedule *s, int debug_mask);
/* The integer an ExprRV holds (0 for other handles). */
int64_t sch_expr_value(const Schedule *s, SchRV rv);

/* n factors of loop's extent (uniform over the ordered factorizations whose
 * innermost factor is <= max_innermost_factor; -1: no bound), or the given
 * decision (n values, NULL: sample), repaired as TVM does when it no longer
 * divides the extent.  A non-constant extent gives [-1, 1, ..., 1].  out
 * receives n ExprRVs.  0 / -1. */
int sch_sample_perfect_tile(Schedule *s, SchRV loop, int n, int max_innermost_factor,
                            const int64_t *decision, SchRV *out);
/* One of candidates[0..n) with probabilities probs (weights, normalized),
 * or candidates[*decision]; an ExprRV, -1 on error. */
SchRV sch_sample_categorical(Schedule *s, const int64_t *candidates, const double *probs, int n,
                             const int64_t *decision);
/* A compute-at location of block (a LoopRV): uniformly one of the loops of
 * its first consumer where compute_at is legal (decision = that loop's index
 * in get_loops of the consumer), or the marks root (-1) and, when the block
 * can be inlined, inline (-2).  compute_at on the root mark does nothing, on
 * the inline mark it inlines the block.  A decision no longer a candidate
 * becomes the nearest candidate before it.  -1 on error. */
SchRV sch_sample_compute_location(Schedule *s, SchRV block, const int64_t *decision);

/* The decisions of the trace (one per sampling instruction, in order): how
 * many, the method of decision i, its values (returns the count, at most cap
 * written into vals; a perfect tile has n values, the others one), and
 * replacing decision i (the schedule's IR is then out of date: replay it).
 * -1 / NULL on a bad index. */
int sch_trace_decision_count(const Schedule *s);
const char *sch_trace_decision_method(const Schedule *s, int i);
int sch_trace_get_decision(const Schedule *s, int i, int64_t *vals, int cap);
int sch_trace_set_decision(Schedule *s, int i, const int64_t *vals, int n);
/* A fresh schedule of s's input module with s's trace replayed onto it
 * (decisions reused, repaired where they no longer fit), its RNG seeded with
 * seed; NULL with the errors in diag when an instruction fails. */
Schedule *sch_replay(const Schedule *s, int64_t seed, DiagCtx *diag);

/* ----------------------------------------------------------------- trace */

/* Appends the trace as replayable schedule-script text: one statement per
 * instruction (`b0 = sch.get_block(name="Y", func_name="main")`), or inside
 * `def apply_trace(sch) -> None:` when as_function. */
void sch_trace_print(const Schedule *s, StrBuf *out, bool as_function);
int sch_trace_len(const Schedule *s);
/* Replays trace text (either form) onto a fresh schedule of m; returns the
 * resulting module (caller frees) or NULL with errors in diag. */
IrModule *sch_trace_replay(const IrModule *m, const char *trace_text, DiagCtx *diag);

/* ---------------------------------------------------------------- scripts */

/* Evaluates the schedule-script statements of a parsed file (the top-level
 * statements that are not the module: `sch = tvm.tir.Schedule(Mod)`, calls on
 * sch, `def apply_trace(sch):`...) starting from module *m.  On success *m is
 * replaced by the scheduled module (the old one freed) and 0 returned; output
 * of print()/show() goes to out.  A file without schedule statements leaves
 * *m unchanged. */
int sch_eval_file(const AstFile *file, IrModule **m, DiagCtx *diag, StrBuf *out);
/* Parses text (e.g. a --schedule file) and evaluates it the same way; in it
 * `sch` is pre-bound to Schedule(*m) unless the script constructs one. */
int sch_eval_text(const SourceFile *src, IrModule **m, DiagCtx *diag, StrBuf *out);
/* For the command-line tools: applies the schedule statements found in the
 * module's own file src (may be NULL), then those of the file sched_path
 * (may be NULL).  0 on success (*m replaced), -1 with errors reported. */
int sch_apply_schedules(IrModule **m, const SourceFile *src, const char *sched_path, DiagCtx *diag,
                        StrBuf *out);
/* Whether a parsed file holds schedule statements at top level. */
bool sch_file_has_script(const AstFile *file);
/* Whether a top-level statement is a schedule statement (not the module,
 * an import or a decorated function). */
bool sch_is_script_stmt(const Ast *st);

/* ------------------------------------------- incremental scripts (the REPL) */

/* A script evaluator that keeps its variables between statements, with
 * `sch` pre-bound to Schedule(m).  m, and every statement's AST, must outlive
 * it (variable names are borrowed from the AST). */
typedef struct SchScript SchScript;

typedef enum SchScriptVarKind {
  SCH_VAR_BLOCK, SCH_VAR_LOOP, SCH_VAR_SCHEDULE, SCH_VAR_LIST, SCH_VAR_OTHER
} SchScriptVarKind;

SchScript *sch_script_new(const IrModule *m, DiagCtx *diag);
void sch_script_free(SchScript *sc);
/* Whether show()/print() of IR uses ANSI colours. */
void sch_script_set_color(SchScript *sc, bool color);
/* Evaluates one top-level statement (or registers a `def f(sch):`); output of
 * print()/show() goes to out (may be NULL).  0, or -1 with errors in diag;
 * a failing statement binds no variable. */
int sch_script_exec(SchScript *sc, const Ast *stmt, StrBuf *out);
/* The schedule bound to `sch` (else the latest one created); never NULL. */
Schedule *sch_script_schedule(const SchScript *sc);
/* The variables in scope (completion, :loops): name and kind of var i. */
int sch_script_nvars(const SchScript *sc);
const char *sch_script_var(const SchScript *sc, int i, SchScriptVarKind *kind);
/* Binds script variable name (copied) to handle rvs[0] (as_list false) or to
 * the list rvs[0..n) (as_list true), as an assignment would: the C API's
 * typed calls share the script's name space this way. */
void sch_script_bind(SchScript *sc, const char *name, const SchRV *rvs, int n, bool as_list);
/* The handles variable name holds: 1 for a handle, n for a list of handles
 * (at most cap written to rvs); -1 when unbound or not handles. */
int sch_script_lookup(const SchScript *sc, const char *name, SchRV *rvs, int cap);
/* Schedule method i (NULL past the end) and its keyword parameter names
 * (params may be NULL; at most 8). */
const char *sch_script_method(int i, const char **params, int *nparams);
/* Appends the signature of schedule method `name` as scripts call it,
 * "sch.split(loop, factors, preserve_unit_iters=True, disable_predication=False)
 * -> list of handles", to out; false (nothing appended) when there is none. */
bool sch_method_signature(const char *name, StrBuf *out);

#endif
