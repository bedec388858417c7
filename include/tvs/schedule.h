/* tvs/schedule.h - TensorIR schedules through TVM's tir.Schedule methods.
 *
 * A schedule is driven by schedule-script statements, the Python statements
 * of TVM's schedule API and of its printed traces, evaluated one at a time
 * with `sch` bound to the schedule and variables kept between calls:
 *
 *     tvs_sched_exec(s, "b = sch.get_block(\"C\")", NULL);
 *     tvs_sched_exec(s, "i, j, k = sch.get_loops(b)", NULL);
 *     tvs_sched_exec(s, "i0, i1 = sch.split(i, factors=[None, 32])", NULL);
 *
 * Every primitive of sched/ (docs/schedules.md) is available under TVM's name
 * with TVM's parameters, defaults and legality checks; an illegal step fails
 * with TVS_ERR_SCHEDULE, leaves the schedule unchanged and binds no variable.
 *
 * The primitives a C program reaches for first also have typed functions
 * (the second half of this header), TVM's C++ tir::Schedule methods over
 * handles, sharing the script's variables and trace:
 *
 *     TvsBlockRV b;  TvsLoopRV *loops;  int n;  TvsLoopRV j[2];
 *     tvs_sched_get_block(s, "C", NULL, &b);
 *     tvs_sched_get_loops(s, b, &loops, &n);
 *     tvs_sched_split(s, loops[1], (int64_t[]){-1, 32}, 2, 1, 0, j);
 *     tvs_handles_free(loops);
 *
 * Included by tvs/tvs.h; see there for the conventions. */
#ifndef TVS_SCHEDULE_H
#define TVS_SCHEDULE_H

#include "tvs/tvs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TvsSchedule TvsSchedule;

/* What a script variable holds. */
typedef enum TvsValueKind {
  TVS_VALUE_NONE = -1,     /* no such variable */
  TVS_VALUE_BLOCK = 0,     /* a BlockRV */
  TVS_VALUE_LOOP = 1,      /* a LoopRV */
  TVS_VALUE_SCHEDULE = 2,
  TVS_VALUE_LIST = 3,      /* a list (of handles, from get_loops, split...) */
  TVS_VALUE_OTHER = 4,     /* an ExprRV, number, string... */
} TvsValueKind;

/* A schedule over m (the module is shared, m may be released after). */
TVS_API int tvs_sched_create(const TvsIRModule *m, TvsSchedule **out);
TVS_API void tvs_sched_release(TvsSchedule *s);
/* Evaluates statements (one or more lines of script text).  What print() or
 * a bare expression shows goes to *output when output is not NULL (always
 * set on success, "" when nothing was shown).  TVS_ERR_SCHEDULE with the
 * diagnostic (pointing into the text, named `name` in tvs_sched_exec_named)
 * on failure. */
TVS_API int tvs_sched_exec(TvsSchedule *s, const char *text, char **output);
TVS_API int tvs_sched_exec_named(TvsSchedule *s, const char *text, const char *name, char **output);
/* The kind of variable name (TVS_VALUE_NONE when unbound). */
TVS_API int tvs_sched_var_kind(const TvsSchedule *s, const char *name);
/* The current module version (a new handle). */
TVS_API int tvs_sched_module(const TvsSchedule *s, TvsIRModule **out);
/* The trace as replayable text, `def apply_trace(sch):` form when
 * as_function, else one statement per line. */
TVS_API int tvs_sched_trace(const TvsSchedule *s, int as_function, char **out);
/* The number of primitives applied so far (the trace's length). */
TVS_API int tvs_sched_trace_len(const TvsSchedule *s);
/* Takes back the last primitive; TVS_ERR_ARGUMENT when there is none. */
TVS_API int tvs_sched_undo(TvsSchedule *s);
/* Selects the function later primitives work on (TVM's work_on). */
TVS_API int tvs_sched_work_on(TvsSchedule *s, const char *func);
/* The schedule methods: name of method i (NULL past the last) and its
 * signature as scripts call it ("sch.split(loop, factors, ...) -> list of handles"). */
TVS_API const char *tvs_sched_method_name(int i);
TVS_API int tvs_sched_method_signature(const char *name, char **out);

/* ------------------------------------------------------------ typed calls
 *
 * Handles.  A BlockRV, LoopRV or ExprRV (a sampled integer) is a small value
 * naming one of the schedule's random variables: copy it freely, nothing to
 * release.  It belongs to the TvsSchedule that made it and is valid while
 * that schedule lives: a zeroed handle, or one from another schedule, is
 * refused with TVS_ERR_ARGUMENT.  Like TVM's, a handle goes stale when its
 * loop or block goes away (split or fuse of a loop, compute_inline of a
 * block); using a stale handle is TVS_ERR_SCHEDULE ("stale handle").  Undo
 * keeps handles (their ids are never reused).
 *
 * One name space.  tvs_sched_bind_name makes a handle a script variable
 * (`b = ...` as a statement would), tvs_sched_lookup* read a script
 * variable's handle back, so typed calls and tvs_sched_exec statements mix
 * freely.  Typed calls act on the schedule bound to `sch`.
 *
 * Traces.  Each typed call records the same instruction the statement of the
 * same name records (`tvs_sched_split(s, l, {-1, 32}, ...)` is
 * `sch.split(l, factors=[None, 32])`), so tvs_sched_trace prints the same
 * text either way.  Errors are as for statements: TVS_ERR_SCHEDULE with the
 * primitive's message ("error: split: ..."), schedule unchanged, outputs
 * unset.
 *
 * Flags (preserve_unit_iters, ...) are ints, 0 false; TVM's defaults are
 * given with each function.  Arrays of handles returned through `**out` are
 * malloc'd: release them with tvs_handles_free. */

typedef struct TvsBlockRV { int64_t id; } TvsBlockRV;
typedef struct TvsLoopRV { int64_t id; } TvsLoopRV;
typedef struct TvsExprRV { int64_t id; } TvsExprRV;
/* Any handle, for parameters that take a block or a loop. */
typedef struct TvsRV { int64_t id; } TvsRV;

static inline TvsRV tvs_rv_block(TvsBlockRV b) { TvsRV r = {b.id}; return r; }
static inline TvsRV tvs_rv_loop(TvsLoopRV l) { TvsRV r = {l.id}; return r; }
static inline TvsRV tvs_rv_expr(TvsExprRV v) { TvsRV r = {v.id}; return r; }

/* Releases an array of handles the API returned (NULL-safe). */
TVS_API void tvs_handles_free(void *handles);
/* What rv is: TVS_VALUE_BLOCK, TVS_VALUE_LOOP, TVS_VALUE_OTHER (an ExprRV),
 * or TVS_VALUE_NONE (not a handle of s). */
TVS_API int tvs_sched_rv_kind(const TvsSchedule *s, TvsRV rv);
/* The handle's name in the trace ("b0", "l3", "v5"), borrowed from s; NULL
 * when rv is not a handle of s. */
TVS_API const char *tvs_sched_rv_name(const TvsSchedule *s, TvsRV rv);
/* The integer an ExprRV holds (a sampled factor). */
TVS_API int tvs_sched_expr_value(const TvsSchedule *s, TvsExprRV v, int64_t *out);
/* Seeds the sampling primitives' random engine (TVM's seed=). */
TVS_API int tvs_sched_seed(TvsSchedule *s, int64_t seed);

/* Binds script variable name (a Python identifier other than `sch`) to rv,
 * or to the list rvs[0..n) (`loops = sch.get_loops(b)`). */
TVS_API int tvs_sched_bind_name(TvsSchedule *s, const char *name, TvsRV rv);
TVS_API int tvs_sched_bind_list(TvsSchedule *s, const char *name, const TvsRV *rvs, int n);
/* The handle script variable name holds (TVS_ERR_ARGUMENT when it is
 * unbound or holds something else: another kind of handle, a list). */
TVS_API int tvs_sched_lookup_block(const TvsSchedule *s, const char *name, TvsBlockRV *out);
TVS_API int tvs_sched_lookup_loop(const TvsSchedule *s, const char *name, TvsLoopRV *out);
TVS_API int tvs_sched_lookup_expr(const TvsSchedule *s, const char *name, TvsExprRV *out);
/* The handles of a variable holding a handle (one) or a list of handles. */
TVS_API int tvs_sched_lookup_list(const TvsSchedule *s, const char *name, TvsRV **out, int *n);

/* Getters.  func_name NULL: the function worked on (None). */
TVS_API int tvs_sched_get_block(TvsSchedule *s, const char *name, const char *func_name, TvsBlockRV *out);
TVS_API int tvs_sched_get_loops(TvsSchedule *s, TvsBlockRV block, TvsLoopRV **out, int *n);
TVS_API int tvs_sched_get_child_blocks(TvsSchedule *s, TvsRV block_or_loop, TvsBlockRV **out, int *n);
TVS_API int tvs_sched_get_producers(TvsSchedule *s, TvsBlockRV block, TvsBlockRV **out, int *n);
TVS_API int tvs_sched_get_consumers(TvsSchedule *s, TvsBlockRV block, TvsBlockRV **out, int *n);

/* Loops.  split: n factors, -1 or 0 meaning None (inferred); out receives n
 * loops (defaults: preserve_unit_iters 1, disable_predication 0).
 * split_exprs: factors are ExprRVs (sample_perfect_tile's), id 0 = None. */
TVS_API int tvs_sched_split(TvsSchedule *s, TvsLoopRV loop, const int64_t *factors, int n,
                            int preserve_unit_iters, int disable_predication, TvsLoopRV *out);
TVS_API int tvs_sched_split_exprs(TvsSchedule *s, TvsLoopRV loop, const TvsExprRV *factors, int n,
                                  int preserve_unit_iters, int disable_predication, TvsLoopRV *out);
/* (default preserve_unit_iters 1) */
TVS_API int tvs_sched_fuse(TvsSchedule *s, const TvsLoopRV *loops, int n, int preserve_unit_iters,
                           TvsLoopRV *out);
TVS_API int tvs_sched_reorder(TvsSchedule *s, const TvsLoopRV *loops, int n);
TVS_API int tvs_sched_parallel(TvsSchedule *s, TvsLoopRV loop);
TVS_API int tvs_sched_vectorize(TvsSchedule *s, TvsLoopRV loop);
TVS_API int tvs_sched_unroll(TvsSchedule *s, TvsLoopRV loop);
/* thread_axis: "blockIdx.x", "threadIdx.y", "vthread.x", ... */
TVS_API int tvs_sched_bind(TvsSchedule *s, TvsLoopRV loop, const char *thread_axis);

/* Annotations of a block or loop. */
TVS_API int tvs_sched_annotate_int(TvsSchedule *s, TvsRV block_or_loop, const char *key, int64_t value);
TVS_API int tvs_sched_annotate_float(TvsSchedule *s, TvsRV block_or_loop, const char *key, double value);
TVS_API int tvs_sched_annotate_string(TvsSchedule *s, TvsRV block_or_loop, const char *key,
                                      const char *value);
TVS_API int tvs_sched_unannotate(TvsSchedule *s, TvsRV block_or_loop, const char *key);

/* Compute location (defaults: preserve_unit_loops 0, index -1). */
TVS_API int tvs_sched_compute_at(TvsSchedule *s, TvsBlockRV block, TvsLoopRV loop, int preserve_unit_loops,
                                 int index);
TVS_API int tvs_sched_reverse_compute_at(TvsSchedule *s, TvsBlockRV block, TvsLoopRV loop,
                                         int preserve_unit_loops, int index);
TVS_API int tvs_sched_compute_inline(TvsSchedule *s, TvsBlockRV block);
TVS_API int tvs_sched_reverse_compute_inline(TvsSchedule *s, TvsBlockRV block);

/* Caches and buffers: buffer indices count into the block's reads (cache_read)
 * or writes; consumer_blocks may be NULL (n 0: TVM's None). */
TVS_API int tvs_sched_cache_read(TvsSchedule *s, TvsBlockRV block, int read_buffer_index,
                                 const char *storage_scope, const TvsBlockRV *consumer_blocks, int n,
                                 TvsBlockRV *out);
TVS_API int tvs_sched_cache_write(TvsSchedule *s, TvsBlockRV block, int write_buffer_index,
                                  const char *storage_scope, const TvsBlockRV *consumer_blocks, int n,
                                  TvsBlockRV *out);
TVS_API int tvs_sched_set_scope(TvsSchedule *s, TvsBlockRV block, int buffer_index, const char *storage_scope);
TVS_API int tvs_sched_storage_align(TvsSchedule *s, TvsBlockRV block, int buffer_index, int axis, int factor,
                                    int offset);

/* Reductions (rfactor default factor_axis 0). */
TVS_API int tvs_sched_rfactor(TvsSchedule *s, TvsLoopRV loop, int factor_axis, TvsBlockRV *out);
TVS_API int tvs_sched_decompose_reduction(TvsSchedule *s, TvsBlockRV block, TvsLoopRV loop, TvsBlockRV *out);

/* Blockize the nest under loop, or n sibling blocks; tensorize a block or
 * loop with a registered intrinsic (default preserve_unit_iters 1). */
TVS_API int tvs_sched_blockize(TvsSchedule *s, TvsLoopRV loop, int preserve_unit_iters, TvsBlockRV *out);
TVS_API int tvs_sched_blockize_blocks(TvsSchedule *s, const TvsBlockRV *blocks, int n, int preserve_unit_iters,
                                      TvsBlockRV *out);
TVS_API int tvs_sched_tensorize(TvsSchedule *s, TvsRV block_or_loop, const char *intrin_name,
                                int preserve_unit_iters);

/* n factors of loop's extent (innermost at most max_innermost_factor; TVM's
 * default 16), or the given decision (NULL: sample).  rvs (may be NULL)
 * receives the n ExprRVs for split_exprs, factors (may be NULL) their values. */
TVS_API int tvs_sched_sample_perfect_tile(TvsSchedule *s, TvsLoopRV loop, int n, int max_innermost_factor,
                                          const int64_t *decision, TvsExprRV *rvs, int64_t *factors);

#ifdef __cplusplus
}
#endif

#endif
