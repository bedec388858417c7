/* run.h - running prim_funcs and graph functions from C, and timing them:
 * the one harness behind `tvs run` (and --time), the REPL's :run and :time and
 * the benchmarks.  Building arguments (size-var bindings, shape evaluation,
 * which buffers a function writes), calling a prim_func JIT-compiled or on the
 * interpreter, running a graph function's call_tir steps natively, and a
 * timing loop (warm-up, adaptive repetitions, median).
 *
 * Nothing here prints: errors come back as codes (DrvRunStatus) with the
 * message in the DiagCtx or in tvs_get_last_error(), so that each tool keeps
 * its own wording. */
#ifndef TVS_DRIVER_RUN_H
#define TVS_DRIVER_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "codegen/codegen.h"
#include "ir/flops.h"
#include "ir/interp.h"
#include "ir/module.h"
#include "runtime/ndarray.h"

/* ------------------------------------------------------------ arguments */

/* The DLPack dtype of a TIR dtype (bool is stored as 8 bits). */
DLDataType drv_dl_dtype(DType t);

/* Known values of size vars (from input shapes, scalar params, --dim). */
typedef struct DrvBindings {
  FlopBinding *v;  /* also what tir_count_flops takes */
  int n, cap;
} DrvBindings;

/* Binds var to value unless it is bound already (the first binding wins). */
void drv_bind(DrvBindings *b, const TirVar *var, int64_t value);
bool drv_lookup(const DrvBindings *b, const TirVar *var, int64_t *out);
void drv_bindings_free(DrvBindings *b);
/* Evaluates a shape expression over b (arith_eval_int); false when a var is
 * unbound or the expression is not integer arithmetic. */
bool drv_eval_shape(const TirExpr *e, const DrvBindings *b, int64_t *out);

/* Why a buffer could not be allocated. */
typedef enum DrvAllocStatus {
  DRV_ALLOC_OK = 0,
  DRV_ALLOC_NDIM,       /* more than TVS_MAX_NDIM dimensions */
  DRV_ALLOC_SYMBOLIC,   /* a dimension does not evaluate over the bindings */
  DRV_ALLOC_NEGATIVE,   /* a dimension is negative */
  DRV_ALLOC_TOO_LARGE,  /* the allocation failed */
} DrvAllocStatus;

/* Allocates a zeroed array for buf, its shape evaluated over b.  On failure
 * *bad_dim and *bad_value (either may be NULL) tell which dimension and, for
 * DRV_ALLOC_NEGATIVE, its value. */
DrvAllocStatus drv_alloc_buffer(const TirBuffer *buf, const DrvBindings *b, TvsNDArray **out, int *bad_dim,
                                int64_t *bad_value);

/* Whether any statement in s stores to (or declares a write of) the buffer
 * whose data var is data: such a buffer is an output. */
bool drv_stmt_writes(const TirStmt *s, const TirVar *data);

/* Packs interpreter-form arguments as packed-call values: tensors, then
 * scalars as float when f's param is float-typed, else int64 (f may be NULL:
 * call_tir passes its tir_vars as int64). */
void drv_pack_args(const TirFunc *f, const InterpArg *args, int n, TVSValue *vals, int *codes);

/* -------------------------------------------------------------- running */

typedef enum DrvRunStatus {
  DRV_RUN_OK = 0,
  DRV_RUN_DIAG = -1,     /* compile or interpreter error: reported in the DiagCtx */
  DRV_RUN_NO_FUNC = -2,  /* the compiled module lacks the function */
  DRV_RUN_CALL = -3,     /* a native call failed: tvs_get_last_error() */
} DrvRunStatus;

/* A prim_func ready to call: JIT-compiled (cpu) or on the interpreter. */
typedef struct DrvRunner {
  const IrModule *m;
  const char *func;
  const TirFunc *tf;
  TVSModule *mod;     /* cpu: the compiled module; NULL on the interpreter */
  TVSFunction *fn;    /* cpu: its packed entry */
  double compile_ms;  /* cpu: time spent compiling */
  TVSValue *vals;     /* packing scratch, one per param */
  int *codes;
} DrvRunner;

/* Prepares prim_func func of m.  cg NULL: the interpreter; else compiles with
 * cg the whole module, or only func when only_func (faster, and no other
 * function's warnings).  On failure the runner is still safe to free. */
DrvRunStatus drv_runner_init(DrvRunner *ru, const IrModule *m, const char *func, const CgOptions *cg,
                             bool only_func, DiagCtx *d);
/* One call on args (one per param; tensors are written in place). */
DrvRunStatus drv_runner_call(DrvRunner *ru, InterpArg *args, int nargs, DiagCtx *d);
void drv_runner_free(DrvRunner *ru);

/* An InterpTirRunner for interp_run_relax_with: a graph function's call_tir
 * steps run the prim_funcs of the compiled module ctx (a TVSModule *). */
int drv_call_native_tir(void *ctx, const char *name, InterpArg *args, int nargs, DiagCtx *d);

/* --------------------------------------------------------------- timing */

/* Milliseconds on the monotonic clock. */
double drv_now_ms(void);
/* The median of v[0..n) (sorts v; n > 0). */
double drv_median(double *v, int n);

typedef struct DrvTimeOptions {
  int repeat;        /* > 0: this many timed calls (or more for min_ms); else adaptive */
  double budget_ms;  /* adaptive: calls for about this long, at least 5, at most 1000 */
  int warmup;        /* calls first, not counted; their mean time sizes the count
                        (adaptive needs at least one) */
  double min_ms;     /* with repeat > 0: more calls when needed to span this long
                        (short calls: steadier medians); 0 = none */
} DrvTimeOptions;

typedef struct DrvTiming {
  int reps;          /* timed calls */
  double median_ms, min_ms, max_ms, mean_ms;  /* wall clock per call */
  double cpu_median_ms;  /* CPU time of the calling thread per call (discounts
                            time-slicing by other load when the work runs on it) */
} DrvTiming;

/* Calls call(ctx) repeatedly and times each call.  0, or the first non-zero
 * value call returned (the timing is then unset). */
int drv_time_calls(int (*call)(void *ctx), void *ctx, const DrvTimeOptions *o, DrvTiming *out);

#endif
