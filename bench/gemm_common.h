/* gemm_common.h - what the fp32 matmul benchmarks share: clocks, medians,
 * matrices, calling a TVS kernel mm(A, B, C), running dnnl_sgemm and
 * cblas_sgemm on a chosen number of threads, timing one of the three, and
 * checking a result against a double-precision product. */
#ifndef TVS_BENCH_GEMM_COMMON_H
#define TVS_BENCH_GEMM_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "driver/run.h" /* drv_median, drv_time_calls: the timing harness */
#include "runtime/ndarray.h"
#include "runtime/tvs_runtime.h"

enum { LIB_TVS, LIB_DNNL, LIB_OPENBLAS, NLIBS };
extern const char *const gemm_lib_names[NLIBS];

double gemm_now(void);        /* monotonic wall seconds */
double gemm_cpu_now(void);    /* CPU seconds of the process */

/* A rows x cols float32 matrix (exits on out of memory). */
TvsNDArray *gemm_matrix(int64_t rows, int64_t cols);
/* Uniform values in [-1, 1) from a 64-bit LCG (reproducible across runs). */
void gemm_fill(float *p, size_t n, uint64_t seed);

/* Calls fn(A, B, C) through the packed ABI; 0, or -1 with the error printed. */
int gemm_call3(TVSFunction *fn, TvsNDArray *A, TvsNDArray *B, TvsNDArray *C);

/* C = A @ B, row-major M x K times K x N, with one library. */
typedef struct GemmProblem {
  int M, N, K;
  TvsNDArray *A, *B;    /* inputs */
  TvsNDArray *C[NLIBS]; /* one output per library */
  TVSFunction *tvs_fn;  /* the TVS kernel mm(A, B, C) */
} GemmProblem;

void gemm_set_threads(int lib, int n);
/* Parses a --threads list "1,2,4" into thr (at most max entries, each 1..256);
 * returns the count, or -1 if the list is malformed. */
int gemm_parse_threads(const char *list, int *thr, int max);
int gemm_run_lib(GemmProblem *p, int lib);

/* One library at one thread count: medians over the timed runs. */
typedef struct GemmTiming {
  double med_s;      /* median wall seconds */
  double best_s;     /* fastest wall seconds */
  double cpu_med_s;  /* median CPU seconds of the calling thread: with 1 thread it
                        does all the work, so this discounts time-slicing by the
                        machine's other load */
  double other_load; /* CPUs kept busy by other processes while timing (0..ncpu) */
  int reps;          /* timed calls made */
} GemmTiming;

/* At least reps timed calls after 3 warm-up calls, more when needed to span
 * min_s seconds (short calls: steadier medians, and the other-load reading
 * covers many clock ticks); then a pause of pause_ms so that the library's
 * spinning workers sleep before the next library runs. */
int gemm_time_lib(GemmProblem *p, int lib, int threads, int reps, double min_s, int pause_ms,
                  GemmTiming *out);

/* The worst error of up to nrows rows of C (spread over M) against a
 * double-precision product, relative to sum_k |a_ik b_kj| (the scale of fp32
 * rounding in a dot product). */
double gemm_check_rows(const GemmProblem *p, const float *c, int nrows);
/* max |x - y| / max |y| over n elements. */
double gemm_rel_diff(const float *x, const float *y, size_t n);

#endif
