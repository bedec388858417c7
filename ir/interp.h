/* interp.h - the reference interpreter: executes loop IR and call_tir graphs.
 *
 * The oracle for every schedule primitive and lowering pass: it runs
 * prim_funcs directly (every loop kind serially), with exact dtype semantics
 * (integer wraparound, float16/bfloat16 rounding after each operation, C
 * truncation for casts, floordiv/floormod), and checks every buffer access:
 * an out-of-bounds index is an error naming the buffer and the index. */
#ifndef TVS_IR_INTERP_H
#define TVS_IR_INTERP_H

#include <dlpack/dlpack.h>

#include "ir/module.h"
#include "base/diag.h"

/* One argument of a call: a tensor (for buffer/handle params and Relax tensor
 * params) or a scalar (for scalar params and symbolic dims). */
typedef struct InterpArg {
  DLTensor *tensor;   /* non-NULL for tensor arguments */
  int64_t i;          /* integer / bool scalar */
  double f;           /* float scalar */
} InterpArg;

/* Runs prim_func `name` of m on args (one per param, in order).  Tensors are
 * read and written in place.  Symbolic shape vars are bound from the tensors'
 * shapes; inconsistent bindings, wrong dtypes/ranks and out-of-bounds accesses
 * are reported as errors (with the func's span) and return -1. */
int interp_run_tir(const IrModule *m, const char *name, InterpArg *args, int nargs, DiagCtx *diag);

/* interp_run_tir with GPU threads emulated (ir/interp_race.c): thread-bound
 * loops enumerate threads, and a read of a shared buffer element that
 * another thread wrote with no barrier between is an error naming the
 * buffer, both threads and both statements. */
int interp_run_tir_races(const IrModule *m, const char *name, InterpArg *args, int nargs, DiagCtx *diag);

/* Runs graph function `name`: args are its params; *results receives the
 * return value's tensors (malloc'd array of runtime-allocated DLTensors owned
 * by the caller: free each with interp_free_result) and *nresults their count
 * (a tuple return flattens to several).  Returns 0 or -1. */
int interp_run_relax(const IrModule *m, const char *name, InterpArg *args, int nargs,
                     DLTensor ***results, int *nresults, DiagCtx *diag);
void interp_free_result(DLTensor *t);
/* The DLPack dtype of a TIR dtype. */
DLDataType interp_dl_dtype(DType t);

/* Runs prim_func `name` for a call_tir step; 0 or -1 (with the error reported
 * to diag).  Lets a graph function run on the interpreter while the tensor
 * programs it calls run natively (the JIT-compiled module). */
typedef int (*InterpTirRunner)(void *ctx, const char *name, InterpArg *args, int nargs,
                               DiagCtx *diag);
/* interp_run_relax with call_tir steps executed by runner(ctx, ...); a NULL
 * runner means the interpreter. */
int interp_run_relax_with(const IrModule *m, const char *name, InterpArg *args, int nargs,
                          DLTensor ***results, int *nresults, DiagCtx *diag,
                          InterpTirRunner runner, void *ctx);

#endif
