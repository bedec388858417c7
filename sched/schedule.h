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
#include "lang/diag.h"
#include "lang/util.h"

typedef struct Schedule Schedule;

/* A handle: an index into the schedule's table of random variables; -1 = none. */
typedef int SchRV;

typedef enum SchRVKind { SCH_RV_BLOCK, SCH_RV_LOOP, SCH_RV_EXPR } SchRVKind;

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

/* ------------------------------------------------------------ layouts */
/* (primitive_layout.c: transform_layout, transform_block_layout, set_axis_separator) */

/* ------------------------------------------------------------ reindex */
/* (primitive_reindex.c: reindex, reindex_cache_read/write, reorder_block_iter_var,
 * unsafe_set_dtype, annotate_buffer_access) */

/* ------------------------------------------------ more caching primitives */
/* (primitive_cache_ext.c: cache_inplace, cache_index, read_at, write_at, rolling_buffer) */

/* ------------------------------------------------ other loop/block primitives */
/* (primitive_misc.c: merge, loop_partition, pad_einsum, decompose_padding,
 * fuse_reduction_epilogue) */

/* ------------------------------------------------------------ sampling */
/* (primitive_sampling.c: sample_perfect_tile, sample_categorical, sample_compute_location) */

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
/* Schedule method i (NULL past the end) and its keyword parameter names
 * (params may be NULL; at most 8). */
const char *sch_script_method(int i, const char **params, int *nparams);

#endif
