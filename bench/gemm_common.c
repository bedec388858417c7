/* gemm_common.c - the shared part of the fp32 matmul benchmarks (gemm_common.h). */
#define _GNU_SOURCE /* cpu_set_t in OpenBLAS's cblas.h */
#include "bench/gemm_common.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>

const char *const gemm_lib_names[NLIBS] = {"TVS (JIT)", "oneDNN", "OpenBLAS"};

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double gemm_now(void) { return clock_s(CLOCK_MONOTONIC); }
double gemm_cpu_now(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }


TvsNDArray *gemm_matrix(int64_t rows, int64_t cols) {
  int64_t shape[2] = {rows, cols};
  DLDataType f32 = {kDLFloat, 32, 1};
  TvsNDArray *a = tvs_ndarray_empty(2, shape, f32);
  if (!a) {
    fprintf(stderr, "bench: out of memory\n");
    exit(1);
  }
  return a;
}

void gemm_fill(float *p, size_t n, uint64_t seed) {
  uint64_t s = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (size_t i = 0; i < n; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    p[i] = (float)((double)(s >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
  }
}

int gemm_call3(TVSFunction *fn, TvsNDArray *A, TvsNDArray *B, TvsNDArray *C) {
  TVSValue v[3] = {{.v_handle = &A->t}, {.v_handle = &B->t}, {.v_handle = &C->t}};
  int codes[3] = {TVS_TENSOR, TVS_TENSOR, TVS_TENSOR};
  TVSValue ret;
  int rtc;
  if (tvs_func_call(fn, v, codes, 3, &ret, &rtc)) {
    fprintf(stderr, "bench: call failed: %s\n", tvs_get_last_error());
    return -1;
  }
  return 0;
}

void gemm_set_threads(int lib, int n) {
  switch (lib) {
    case LIB_TVS: tvs_thread_pool_set_num_threads(n); break;
    case LIB_DNNL: omp_set_num_threads(n); break; /* the Debian oneDNN uses GNU OpenMP */
    case LIB_OPENBLAS: openblas_set_num_threads(n); break;
  }
}

int gemm_run_lib(GemmProblem *p, int lib) {
  float *a = p->A->t.data, *b = p->B->t.data, *out = p->C[lib]->t.data;
  switch (lib) {
    case LIB_TVS: return gemm_call3(p->tvs_fn, p->A, p->B, p->C[lib]);
    case LIB_DNNL:
      if (dnnl_sgemm('N', 'N', p->M, p->N, p->K, 1.0f, a, p->K, b, p->N, 0.0f, out, p->N) != dnnl_success) {
        fprintf(stderr, "bench: dnnl_sgemm failed\n");
        return -1;
      }
      return 0;
    case LIB_OPENBLAS:
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, p->M, p->N, p->K, 1.0f, a, p->K, b, p->N, 0.0f,
                  out, p->N);
      return 0;
  }
  return -1;
}

/* Busy (non-idle) seconds of all CPUs so far, from /proc/stat; -1 if unknown. */
static double machine_busy_s(void) {
  FILE *f = fopen("/proc/stat", "r");
  if (!f) return -1;
  unsigned long long v[8] = {0};
  int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
                 &v[5], &v[6], &v[7]);
  fclose(f);
  if (n < 8) return -1;
  /* user nice system [idle iowait] irq softirq steal */
  unsigned long long busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
  return (double)busy / (double)sysconf(_SC_CLK_TCK);
}

typedef struct GemmCall {
  GemmProblem *p;
  int lib;
} GemmCall;

static int call_lib(void *ctx) {
  GemmCall *c = ctx;
  return gemm_run_lib(c->p, c->lib);
}

int gemm_time_lib(GemmProblem *p, int lib, int threads, int reps, double min_s, int pause_ms,
                  GemmTiming *out) {
  gemm_set_threads(lib, threads);
  /* the harness of tvs run --time: 3 warm-up calls, then reps or more */
  GemmCall c = {p, lib};
  DrvTimeOptions o = {reps, 0, 3, min_s * 1e3};
  DrvTiming tm;
  double busy0 = machine_busy_s(), own0 = gemm_cpu_now(), wall0 = gemm_now();
  int rc = drv_time_calls(call_lib, &c, &o, &tm);
  if (!rc) {
    out->reps = tm.reps;
    out->med_s = tm.median_ms * 1e-3;
    out->best_s = tm.min_ms * 1e-3;
    out->cpu_med_s = tm.cpu_median_ms * 1e-3;
    double busy1 = machine_busy_s(), own1 = gemm_cpu_now(), wall1 = gemm_now();
    out->other_load = busy0 < 0 || busy1 < 0 ? -1 : ((busy1 - busy0) - (own1 - own0)) / (wall1 - wall0);
    if (out->other_load < 0 && busy0 >= 0) out->other_load = 0; /* jiffy rounding */
  }
  usleep((useconds_t)pause_ms * 1000);
  return rc;
}

double gemm_check_rows(const GemmProblem *p, const float *c, int nrows) {
  const float *a = p->A->t.data, *b = p->B->t.data;
  int M = p->M, N = p->N, K = p->K;
  double worst = 0;
  double *acc = malloc((size_t)N * sizeof *acc), *mag = malloc((size_t)N * sizeof *mag);
  if (nrows > M) nrows = M;
  for (int s = 0; s < nrows; s++) {
    int i = nrows == M ? s : (int)(((int64_t)s * 331 + 7) % M);
    if (s == nrows - 1) i = M - 1; /* the last row: tails of row tiles */
    for (int j = 0; j < N; j++) acc[j] = mag[j] = 0;
    for (int k = 0; k < K; k++) {
      double av = a[(size_t)i * K + k];
      const float *brow = b + (size_t)k * N;
      for (int j = 0; j < N; j++) {
        acc[j] += av * brow[j];
        mag[j] += fabs(av * brow[j]);
      }
    }
    for (int j = 0; j < N; j++) {
      double e = fabs((double)c[(size_t)i * N + j] - acc[j]) / (mag[j] > 0 ? mag[j] : 1);
      if (e > worst) worst = e;
    }
  }
  free(acc);
  free(mag);
  return worst;
}

double gemm_rel_diff(const float *x, const float *y, size_t n) {
  double d = 0, m = 0;
  for (size_t i = 0; i < n; i++) {
    double e = fabs((double)x[i] - (double)y[i]);
    if (e > d) d = e;
    if (fabs((double)y[i]) > m) m = fabs((double)y[i]);
  }
  return m > 0 ? d / m : d;
}

int gemm_parse_threads(const char *list, int *thr, int max) {
  int n = 0;
  for (const char *p = list; *p && n < max;) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || v < 1 || v > 256) return -1;
    thr[n++] = (int)v;
    p = *end == ',' ? end + 1 : end;
  }
  return n;
}
