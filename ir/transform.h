/* transform.h - the lowering passes from scheduled TensorIR to flat, loop-only IR.
 *
 * One pass per file under ir/transform/, each exporting one entry point with
 * its contract stated above it; ir/transform/pipeline.c holds the ordered
 * table (TVM v0.23's default_tir_pipeline for llvm, reference/lowering.md
 * section 2) that `tvs show --stage NAME` / `--dump-after` / `--list-stages`
 * read.  A pass maps one prim_func to a new one; a pass that changes nothing
 * returns the very same TirFunc pointer, so "(unchanged)" is a pointer test. */
#ifndef TVS_IR_TRANSFORM_H
#define TVS_IR_TRANSFORM_H

#include <stdbool.h>
#include <dlpack/dlpack.h>

#include "ir/module.h"
#include "base/diag.h"

/* Options of the lowering pipeline (TVM's PassContext config keys). */
typedef struct TirPassConfig {
  bool instrument_bound_checkers; /* "tir.instrument_bound_checkers": --bounds-check */
} TirPassConfig;

/* What every pass gets besides the function. */
typedef struct TirPassCtx {
  IrHeap *heap;   /* where new nodes go (the heap of the module being built) */
  DiagCtx *diag;  /* warnings/errors (e.g. vectorize fallbacks); may be NULL */
  const char *func_name; /* global name of the function being lowered (messages) */
  const char *target;    /* "cuda", "opencl" on the GPU pipeline; NULL on the CPU one */
  const TirPassConfig *cfg; /* the options; NULL = all off */
} TirPassCtx;

/* A per-function pass: returns f itself when nothing changed. */
typedef TirFunc *(*TirPassFn)(TirPassCtx *ctx, TirFunc *f);

typedef struct TirPass {
  const char *name;  /* stage name, e.g. "lower-init-block" (unique in a pipeline) */
  TirPassFn fn;      /* entry point */
  const char *what;  /* one-line description for --list-stages */
} TirPass;
/* fn NULL: a module pass (split-host-device adds functions), found by name in
 * pipeline.c's table of module passes. */
typedef IrModule *(*TirModulePassFn)(const IrModule *m, const char *target, DiagCtx *diag, bool *changed);

/* ---------------------------------------------------------- the passes */
TirFunc *tir_canonicalize_loop(TirPassCtx *ctx, TirFunc *f);
TirFunc *tir_lower_init_block(TirPassCtx *ctx, TirFunc *f);
TirFunc *tir_plan_buffer_allocation(TirPassCtx *ctx, TirFunc *f);
TirFunc *tir_convert_blocks_to_opaque(TirPassCtx *ctx, TirFunc *f);
TirFunc *tir_compact_buffer_allocation(TirPassCtx *ctx, TirFunc *f);
TirFunc *tir_lower_match_buffer(TirPassCtx *ctx, TirFunc *f);
TirFunc *tir_simplify(TirPassCtx *ctx, TirFunc *f);
TirFunc *tir_lower_opaque_block(TirPassCtx *ctx, TirFunc *f);
TirFunc *tir_flatten_buffer(TirPassCtx *ctx, TirFunc *f);
TirFunc *tir_vectorize_loop(TirPassCtx *ctx, TirFunc *f);
TirFunc *tir_storage_rewrite(TirPassCtx *ctx, TirFunc *f);
TirFunc *tir_unroll_loop(TirPassCtx *ctx, TirFunc *f);
TirFunc *tir_inject_virtual_thread(TirPassCtx *ctx, TirFunc *f);
TirFunc *tir_remove_no_op(TirPassCtx *ctx, TirFunc *f);
/* With cfg->instrument_bound_checkers: an assert before every buffer access
 * and integer division (instrument_bound_checkers.c); f itself otherwise. */
TirFunc *tir_instrument_bound_checkers(TirPassCtx *ctx, TirFunc *f);
TirFunc *tir_make_packed_api(TirPassCtx *ctx, TirFunc *f);

/* ------------------------------------------- GPU passes (ir/transform/gpu_*.c) */
/* The thread-binding rules on the scheduled IR (docs/gpu.md): one axis bound
 * twice on a path, a reduce iter bound to threadIdx outside a reduction the
 * GPU lowering handles, more threads than a block may hold.  Errors only. */
TirFunc *tir_verify_thread_binding(TirPassCtx *ctx, TirFunc *f);
/* One loop per thread axis and kernel, at the LCA of the axis' loops
 * (TVM's LiftThreadBinding): see the file. */
TirFunc *tir_lift_thread_binding(TirPassCtx *ctx, TirFunc *f);
/* Each kernel begins with one launch loop per thread axis; the other loops
 * bound to it are dropped (TVM's UnifyThreadBinding): see the file. */
TirFunc *tir_unify_thread_binding(TirPassCtx *ctx, TirFunc *f);
/* T.tvm_thread_allreduce becomes warp shuffles (CUDA, whole warps) or a
 * shared-memory tree with its barriers (TVM's LowerThreadAllreduce). */
TirFunc *tir_lower_thread_allreduce(TirPassCtx *ctx, TirFunc *f);
/* Buffers of scope "warp": a local buffer per lane read through warp
 * shuffles (CUDA), shared memory per warp elsewhere (TVM's LowerWarpMemory). */
TirFunc *tir_lower_warp_memory(TirPassCtx *ctx, TirFunc *f);
/* A reduction over a threadIdx loop becomes each thread's partial, a
 * T.tvm_thread_allreduce over the threads and thread 0's write: see the file. */
TirFunc *tir_lower_cross_thread_reduction(TirPassCtx *ctx, TirFunc *f);
/* Shared/local allocation limits of the lowered kernel (VerifyGPUCode). */
TirFunc *tir_verify_gpu_code(TirPassCtx *ctx, TirFunc *f);
/* ThreadSync("shared"): T.tvm_storage_sync("shared") between a write of
 * shared memory and a later read of it by other threads. */
TirFunc *tir_thread_storage_sync(TirPassCtx *ctx, TirFunc *f);
/* Whether s is the barrier thread-storage-sync inserts. */
bool tir_is_storage_sync(const TirStmt *s);
/* SplitHostDevice + LowerDeviceKernelLaunch: every thread-bound loop nest
 * becomes a kernel prim_func NAME_kernel[N] and the host calls it through
 * T.call_extern("int32", kernel, args..., launch extents...). */
IrModule *tir_split_host_device(const IrModule *m, const char *target, DiagCtx *diag, bool *changed);

/* ---------------------------------------------------------- graph passes */

/* LegalizeOps (relax_legalize_ops.c): the high-level operators of every graph
 * function (R.add, R.matmul, R.nn.relu, ...) become generated prim_funcs
 * called through R.call_tir; calls it cannot legalize are kept.  Returns a
 * new module (free it); *changed (may be NULL) tells whether anything did. */
IrModule *rx_legalize_ops(const IrModule *m, DiagCtx *diag, bool *changed);

/* BindParams (relax_bind_params.c): the parameters of graph function func
 * (NULL: of every graph function) named names[i] become R.const values[i]
 * (weights from a .npz); the functions keep their other parameters.  Each
 * value must have the parameter's dtype and static shape, and each name must
 * match a parameter.  Returns a new module (free it), or NULL with the
 * reason in err ("parameter 'w0' has shape (784, 128) but the file has
 * (128, 784)"). */
IrModule *rx_bind_params(const IrModule *m, const char *func, int n, const char *const *names,
                         const DLTensor *const *values, char *err, size_t errlen);
/* The general graph passes (TVM's relax.transform.*, one file each under
 * ir/transform/relax_*.c, where their contracts are stated).  Same calling
 * convention as rx_legalize_ops. */
IrModule *rx_canonicalize_bindings(const IrModule *m, DiagCtx *diag, bool *changed);
IrModule *rx_eliminate_common_subexpr(const IrModule *m, DiagCtx *diag, bool *changed);
IrModule *rx_fold_constant(const IrModule *m, DiagCtx *diag, bool *changed);
IrModule *rx_dead_code_elimination(const IrModule *m, DiagCtx *diag, bool *changed);
/* ConvertLayout (relax_convert_layout.c): NCHW conv2d chains to NCHW16c on
 * AVX-512 hosts; off (the module unchanged) unless rx_set_convert_layout(true). */
IrModule *rx_convert_layout(const IrModule *m, DiagCtx *diag, bool *changed);
void rx_set_convert_layout(bool on);
/* Plans each graph function's intermediates (ir/memory_plan.h) and records
 * the peak and the unplanned total in its attr "tvs.memory_plan". */
IrModule *rx_static_plan_block_memory(const IrModule *m, DiagCtx *diag, bool *changed);
/* AnnotateTIROpPattern (relax_annotate_tir_op_pattern.c): every prim_func of a
 * module that has graph functions gets T.func_attr "op_pattern", TVM's
 * OpPatternKind computed from its blocks (rx_analyze_op_pattern); a nonzero
 * op_pattern already there is kept. */
IrModule *rx_annotate_tir_op_pattern(const IrModule *m, DiagCtx *diag, bool *changed);
/* The OpPatternKind of a prim_func, as TVM's AnalyzeOpPatternKind decides it. */
RxOpPattern rx_analyze_op_pattern(const TirFunc *f);

/* FuseOps (relax_fuse_ops.c): the call_tir bindings of each dataflow block are
 * grouped by TVM's post-dominator fusion rules over their op_pattern; each
 * group of two or more becomes a private graph function with attribute
 * {"Primitive": True} named "fused_" + the callees' names joined by "_",
 * called from where the group was. */
IrModule *rx_fuse_ops(const IrModule *m, DiagCtx *diag, bool *changed);

/* FuseTIR (relax_fuse_tir.c): every Primitive graph function becomes one
 * prim_func of the same name whose body is its callees' bodies in order
 * (intermediates become alloc_buffers of the root block); its calls become
 * R.call_tir of it, and the Primitive functions and the prim_funcs nothing
 * calls any more are removed. */
IrModule *rx_fuse_tir(const IrModule *m, DiagCtx *diag, bool *changed);
/* The operator library (stdlib/, elaborated by lang/stdlib.c): LegalizeOps
 * finds its template prim_funcs through this provider (a function returning
 * the template called name and the heap it lives in, or NULL).  ir/ cannot
 * include lang/, so lang's tvs_stdlib_install sets it when a module is
 * elaborated; without it, template-based operators stay unlegalized. */
typedef const TirFunc *(*RxStdlibProvider)(const char *name, IrHeap **heap);
void rx_set_stdlib_provider(RxStdlibProvider fn);
const TirFunc *rx_stdlib_template(const char *name, IrHeap **heap);

/* The "default-schedule" stage (after FuseTIR) schedules the prim_funcs the
 * graph functions call.  Schedules live in sched/, which ir/ cannot include:
 * sched_default_schedule_install (sched/default_schedule.h) sets the
 * scheduler; without one the stage changes nothing.  NULL unsets it. */
typedef IrModule *(*RxScheduler)(const IrModule *m, DiagCtx *diag, bool *changed);
void rx_set_default_scheduler(RxScheduler fn);

/* A graph pass: maps a module to a new one (free it); *changed (may be NULL)
 * tells whether anything changed.  Errors go to diag. */
typedef IrModule *(*RxPassFn)(const IrModule *m, DiagCtx *diag, bool *changed);

typedef struct RxPass {
  const char *name;  /* stage name, e.g. "legalize" (unique among all stages) */
  RxPassFn fn;       /* entry point */
  const char *what;  /* one-line description for --list-stages */
} RxPass;

/* The graph pipeline in order (relax_pipeline.c); *n receives its length. */
const RxPass *rx_graph_pipeline(int *n);
/* Index of the graph pass called name, or -1. */
int rx_graph_pipeline_index(const char *name);
/* Called after each graph pass by rx_run_graph_passes (may be NULL). */
typedef void (*RxAfterPassFn)(void *user, const RxPass *p, const IrModule *m, bool changed);
/* Runs the graph pipeline on m up to and including pass index `last` (-1 =
 * all).  Returns a new module (free it), or NULL after an error in diag. */
IrModule *rx_run_graph_passes(const IrModule *m, int last, DiagCtx *diag, RxAfterPassFn after, void *user);

/* ---------------------------------------------------------- the pipeline */

/* The CPU pipeline in order; *n receives its length. */
const TirPass *tir_cpu_pipeline(int *n);
/* Index of the pass called name in the CPU pipeline, or -1. */
int tir_pipeline_index(const char *name);

/* Applies one pass to every prim_func of m (graph functions are kept) and
 * returns the new module version (derived from m; free with ir_module_free).
 * *changed (may be NULL) tells whether any function pointer differs. */
IrModule *tir_run_pass(const IrModule *m, const TirPass *p, DiagCtx *diag, bool *changed);

/* Called after each pass by tir_lower (may be NULL). */
typedef void (*TirAfterPassFn)(void *user, const TirPass *p, const IrModule *m, bool changed);

/* Runs the CPU pipeline on m up to and including pass index `last` (-1 = all),
 * calling after() after each pass.  Returns a new module (free it), or NULL
 * when a pass reported an error to diag. */
IrModule *tir_lower(const IrModule *m, int last, DiagCtx *diag, TirAfterPassFn after, void *user);
/* tir_lower with options (cfg NULL = tir_lower). */
IrModule *tir_lower_with(const IrModule *m, int last, const TirPassConfig *cfg, DiagCtx *diag,
                         TirAfterPassFn after, void *user);

/* Runs passes[0..n) on m in order, like tir_lower.  With verify, every
 * prim_func is checked after each pass (ir/verify.h) and the first
 * ill-formed one is reported to diag (or stderr when diag is NULL) as
 * "internal error: lowering pass 'P' produced ill-formed IR in 'F': why",
 * and NULL is returned. */
IrModule *tir_run_passes(const IrModule *m, const TirPass *passes, int n, bool verify, DiagCtx *diag,
                         TirAfterPassFn after, void *user);

/* The GPU pipeline (cuda, opencl): the CPU passes with the GPU passes in
 * their TVM slots; *n receives its length. */
const TirPass *tir_gpu_pipeline(int *n);
/* Index of the pass called name in the GPU pipeline, or -1. */
int tir_gpu_pipeline_index(const char *name);
/* Whether target names a GPU target ("cuda", "opencl"). */
bool tir_is_gpu_target(const char *target);
/* Threads per block a GPU target allows (verify-thread-binding; the tuner's
 * GPU postprocessor drops candidates over it before lowering). */
#define TIR_GPU_MAX_THREADS 1024
/* tir_lower on the GPU pipeline for target (up to pass index last, -1 = all). */
IrModule *tir_lower_gpu(const IrModule *m, const char *target, int last, DiagCtx *diag, TirAfterPassFn after,
                        void *user);

/* Whether tir_lower verifies after every pass: builds defining
 * TVS_VERIFY_PASSES (Debug, TVS_SANITIZE) always do, others when the
 * environment sets TVS_VERIFY_PASSES=1. */
bool tir_verify_passes_enabled(void);

#endif
