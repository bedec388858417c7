/* tvs/build.h - compiling a module for the CPU and calling its functions on
 * DLPack tensors (zero-copy: the functions read and write the tensors'
 * memory), timing them, and writing a shared library.
 * Included by tvs/tvs.h; see there for the conventions. */
#ifndef TVS_BUILD_H
#define TVS_BUILD_H

#include <dlpack/dlpack.h>

#include "tvs/tvs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A compiled module (JIT code, or a shared library loaded from disk). */
typedef struct TvsExecutable TvsExecutable;
/* One callable function of it; keeps its executable alive. */
typedef struct TvsFunction TvsFunction;

/* Build options: zeroed fields mean the default. */
typedef struct TvsBuildOptions {
  int opt_level;       /* 0..3; 0 in a zeroed struct means 3 unless set_opt_level */
  int set_opt_level;   /* nonzero: opt_level is meant as written */
  const char *mcpu;    /* "skylake-avx512"; NULL = the host */
  const char *mattr;   /* "+avx2,-fma"; NULL = the host's features */
} TvsBuildOptions;

/* Lowers and compiles every function of m (prim_funcs, and graph functions
 * after the graph passes: legalize, fusion) for target ("llvm", "cpu", or
 * "llvm -mcpu=NAME"; NULL = "llvm").  opt may be NULL. */
TVS_API int tvs_build(const TvsIRModule *m, const char *target, const TvsBuildOptions *opt,
                      TvsExecutable **out);
/* Compiles m into a shared library at path (what tvsc writes: it needs only
 * libtvs_runtime.so), written under a temporary name and renamed. */
TVS_API int tvs_export_library(const TvsIRModule *m, const char *target, const char *path);
/* Loads a shared library that tvsc or tvs_export_library wrote. */
TVS_API int tvs_executable_load(const char *path, TvsExecutable **out);
TVS_API void tvs_executable_release(TvsExecutable *e);
/* The functions it exports: count, and the name of function i. */
TVS_API int tvs_executable_num_funcs(const TvsExecutable *e);
TVS_API const char *tvs_executable_func_name(const TvsExecutable *e, int i);
/* TVS_ERR_ARGUMENT when there is no such function. */
TVS_API int tvs_executable_get_function(TvsExecutable *e, const char *name, TvsFunction **out);
TVS_API void tvs_function_release(TvsFunction *f);

/* The parameters (graph functions: inputs, then the outputs the caller
 * passes); parameter i's name, type (a TvsArgType), dtype, rank and shape
 * (-1 for a symbolic dim, whose name is in *sym_dims[d]).  NULL out-params
 * are skipped. */
TVS_API int tvs_function_num_params(const TvsFunction *f);
TVS_API int tvs_function_num_outputs(const TvsFunction *f);
TVS_API int tvs_function_param(const TvsFunction *f, int i, const char **name, int *type, DLDataType *dtype,
                               int *ndim, const int64_t **shape, const char *const **sym_dims);
/* Floating-point operations of one call (-1 when unknown). */
TVS_API double tvs_function_flops(const TvsFunction *f);

/* One argument of a call. */
typedef enum TvsArgType { TVS_ARG_TENSOR = 0, TVS_ARG_INT = 1, TVS_ARG_FLOAT = 2 } TvsArgType;

typedef struct TvsArg {
  int32_t type;       /* TvsArgType */
  DLTensor *tensor;   /* TVS_ARG_TENSOR: borrowed for the call (host memory) */
  int64_t i;          /* TVS_ARG_INT */
  double f;           /* TVS_ARG_FLOAT */
} TvsArg;

/* Calls f once.  The compiled entry checks every argument (count, dtype,
 * rank, shape, strides, device) before touching memory: a mismatch is
 * TVS_ERR_RUN with its message ("mm_relu: argument A: expected float32 ..."). */
TVS_API int tvs_function_call(TvsFunction *f, const TvsArg *args, int nargs);
/* Times f on args as TVM's time_evaluator does: repeat groups of number
 * calls after one warm-up call (number <= 0: as many calls as take
 * min_repeat_ms, at least one); results[r] (repeat entries) receives each
 * group's mean seconds per call. */
TVS_API int tvs_function_time(TvsFunction *f, const TvsArg *args, int nargs, int number, int repeat,
                              double min_repeat_ms, double *results);

/* The runtime's worker threads (0: the default, one per core). */
TVS_API int tvs_set_num_threads(int n);

#ifdef __cplusplus
}
#endif

#endif
