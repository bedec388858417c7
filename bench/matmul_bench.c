/* matmul_bench.c - 1024^3 fp32 sgemm: TVS's JIT-compiled kernel vs oneDNN and OpenBLAS.
 *
 * Compiles bench/kernels/matmul_1024.tvs once (cg_compile_module: O3, host CPU,
 * fast-math), times it through its packed entry, then dnnl_sgemm and cblas_sgemm,
 * on 1 and 2 threads; checks that the three results agree and prints a table
 * (median of --reps runs after warm-up) plus the JIT compile times. See README.md. */
#define _GNU_SOURCE /* cpu_set_t in OpenBLAS's cblas.h */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>

#include "codegen/codegen.h"
#include "lang/elab.h"
#include "runtime/ndarray.h"

#define M 1024
#define N 1024
#define K 1024
#define NLIBS 3
#define MAX_THREADS 8

enum { LIB_TVS, LIB_DNNL, LIB_OPENBLAS };
static const char *const lib_names[NLIBS] = {"TVS (JIT)", "oneDNN", "OpenBLAS"};

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds of the process: compile times free of the machine's other load. */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ------------------------------------------------------------- TVS kernels */

/* A compiled .tvs file: its module, first function and compile timings. */
typedef struct Kernel {
  SourceFile *src;
  IrModule *ir;
  TVSModule *mod;
  TVSFunction *fn;
  double parse_ms;   /* parse + elaborate (wall) */
  double compile_ms; /* cg_compile_module: lowering + LLVM O3 + JIT (wall) */
  double compile_cpu_ms; /* the same in process CPU time */
} Kernel;

static void kernel_free(Kernel *k) {
  tvs_func_release(k->fn);
  tvs_module_free(k->mod);
  ir_module_free(k->ir);
  src_free(k->src);
  memset(k, 0, sizeof *k);
}

/* Loads and JIT-compiles path; 0, or -1 with the diagnostics printed. */
static int kernel_load(Kernel *k, const char *path, const CgOptions *opt) {
  memset(k, 0, sizeof *k);
  const char *err = NULL;
  k->src = src_from_path(path, &err);
  if (!k->src) {
    fprintf(stderr, "bench_matmul: cannot open %s: %s\n", path, err);
    return -1;
  }
  DiagCtx d;
  diag_init(&d, stderr);
  double t0 = now();
  k->ir = tvs_load_module(k->src, &d);
  double t1 = now(), c1 = cpu_now();
  if (k->ir && k->ir->nfuncs >= 1) k->mod = cg_compile_module(k->ir, opt, &d);
  double t2 = now(), c2 = cpu_now();
  diag_flush(&d);
  diag_free(&d);
  if (!k->mod) {
    fprintf(stderr, "bench_matmul: %s failed to compile\n", path);
    return -1;
  }
  k->fn = tvs_module_get_function(k->mod, k->ir->funcs[0].name);
  if (!k->fn) {
    fprintf(stderr, "bench_matmul: %s\n", tvs_get_last_error());
    return -1;
  }
  k->parse_ms = (t1 - t0) * 1e3;
  k->compile_ms = (t2 - t1) * 1e3;
  k->compile_cpu_ms = (c2 - c1) * 1e3;
  return 0;
}

/* Calls fn(A, B, C) through the packed ABI. */
static int call3(TVSFunction *fn, TvsNDArray *A, TvsNDArray *B, TvsNDArray *C) {
  TVSValue v[3] = {{.v_handle = &A->t}, {.v_handle = &B->t}, {.v_handle = &C->t}};
  int codes[3] = {TVS_TENSOR, TVS_TENSOR, TVS_TENSOR};
  TVSValue ret;
  int rtc;
  if (tvs_func_call(fn, v, codes, 3, &ret, &rtc)) {
    fprintf(stderr, "bench_matmul: call failed: %s\n", tvs_get_last_error());
    return -1;
  }
  return 0;
}

static TvsNDArray *matrix(int64_t rows, int64_t cols) {
  int64_t shape[2] = {rows, cols};
  DLDataType f32 = {kDLFloat, 32, 1};
  TvsNDArray *a = tvs_ndarray_empty(2, shape, f32);
  if (!a) {
    fprintf(stderr, "bench_matmul: out of memory\n");
    exit(1);
  }
  return a;
}

/* Uniform values in [-1, 1) from a 64-bit LCG (reproducible across runs). */
static void fill(float *p, size_t n, uint64_t seed) {
  uint64_t s = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (size_t i = 0; i < n; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    p[i] = (float)((double)(s >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
  }
}

/* --------------------------------------------------------------- libraries */

typedef struct Ctx {
  Kernel mm;            /* the TVS kernel */
  TvsNDArray *A, *B;    /* inputs, M x K and K x N */
  TvsNDArray *C[NLIBS]; /* one output per library */
} Ctx;

static void set_threads(int lib, int n) {
  switch (lib) {
    case LIB_TVS: tvs_thread_pool_set_num_threads(n); break;
    case LIB_DNNL: omp_set_num_threads(n); break; /* the Debian oneDNN uses GNU OpenMP */
    case LIB_OPENBLAS: openblas_set_num_threads(n); break;
  }
}

static int run_lib(Ctx *c, int lib) {
  float *a = c->A->t.data, *b = c->B->t.data, *out = c->C[lib]->t.data;
  switch (lib) {
    case LIB_TVS: return call3(c->mm.fn, c->A, c->B, c->C[lib]);
    case LIB_DNNL:
      if (dnnl_sgemm('N', 'N', M, N, K, 1.0f, a, K, b, N, 0.0f, out, N) != dnnl_success) {
        fprintf(stderr, "bench_matmul: dnnl_sgemm failed\n");
        return -1;
      }
      return 0;
    case LIB_OPENBLAS:
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, a, K, b, N, 0.0f, out, N);
      return 0;
  }
  return -1;
}

/* One library at one thread count: medians over the timed runs. */
typedef struct Timing {
  double med_s;      /* median wall seconds */
  double best_s;     /* fastest wall seconds */
  double cpu_med_s;  /* median CPU seconds of the calling thread: with 1 thread it
                        does all the work, so this discounts time-slicing by the
                        machine's other load */
  double other_load; /* CPUs kept busy by other processes while timing (0..ncpu) */
} Timing;

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

static double thread_cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* reps timed calls after 3 warm-up calls. */
static int time_lib(Ctx *c, int lib, int threads, int reps, Timing *out) {
  set_threads(lib, threads);
  for (int w = 0; w < 3; w++)
    if (run_lib(c, lib)) return -1;
  double *t = malloc((size_t)reps * sizeof *t), *cpu = malloc((size_t)reps * sizeof *cpu);
  int rc = 0;
  double busy0 = machine_busy_s(), own0 = cpu_now(), wall0 = now();
  for (int r = 0; r < reps && !rc; r++) {
    double s = now(), cs = thread_cpu_now();
    rc = run_lib(c, lib);
    cpu[r] = thread_cpu_now() - cs;
    t[r] = now() - s;
  }
  if (!rc) {
    out->med_s = median(t, reps);
    out->best_s = t[0]; /* sorted by median() */
    out->cpu_med_s = median(cpu, reps);
    double busy1 = machine_busy_s(), own1 = cpu_now(), wall1 = now();
    out->other_load = busy0 < 0 || busy1 < 0 ? -1 : ((busy1 - busy0) - (own1 - own0)) / (wall1 - wall0);
    if (out->other_load < 0 && busy0 >= 0) out->other_load = 0; /* jiffy rounding */
  }
  free(t);
  free(cpu);
  /* let this library's spinning workers go to sleep before the next one runs */
  usleep(300 * 1000);
  return rc;
}

/* max |x - y| / max |y| over whole matrices. */
static double rel_diff(const float *x, const float *y, size_t n) {
  double d = 0, m = 0;
  for (size_t i = 0; i < n; i++) {
    double e = fabs((double)x[i] - (double)y[i]);
    if (e > d) d = e;
    if (fabs((double)y[i]) > m) m = fabs((double)y[i]);
  }
  return m > 0 ? d / m : d;
}

/* Checks 32 rows of C against a double-precision product: the worst error
 * relative to sum_k |a_ik b_kj| (the scale of fp32 rounding in a dot product). */
static double check_rows(const float *a, const float *b, const float *cm) {
  double worst = 0;
  double *acc = malloc(N * sizeof *acc), *mag = malloc(N * sizeof *mag);
  for (int s = 0; s < 32; s++) {
    int i = (s * 331 + 7) % M;
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
      double e = fabs((double)cm[(size_t)i * N + j] - acc[j]) / (mag[j] > 0 ? mag[j] : 1);
      if (e > worst) worst = e;
    }
  }
  free(acc);
  free(mag);
  return worst;
}

/* ---------------------------------------------------------- mm_relu timing */

/* JIT compile times of examples/mm_relu.tvs. */
typedef struct CompileTimes {
  double cold_ms;     /* the first compile in the process (LLVM initialisation) */
  double wall_ms;     /* median wall time of 7 more */
  double cpu_ms;      /* median process CPU time of those 7 */
  double parse_ms;    /* parse + elaborate */
} CompileTimes;

/* Times mm_relu's compile and checks its result against a C reference. */
static int bench_mm_relu(const char *path, CompileTimes *ct) {
  CgOptions opt = cg_options_default();
  double wall[7], cpu[7];
  Kernel k;
  for (int r = 0; r < 8; r++) {
    if (kernel_load(&k, path, &opt)) return -1;
    if (r == 0) {
      ct->cold_ms = k.compile_ms;
      ct->parse_ms = k.parse_ms;
    } else {
      wall[r - 1] = k.compile_ms;
      cpu[r - 1] = k.compile_cpu_ms;
    }
    if (r < 7) kernel_free(&k);
  }
  ct->wall_ms = median(wall, 7);
  ct->cpu_ms = median(cpu, 7);
  TvsNDArray *A = matrix(128, 128), *B = matrix(128, 128), *C = matrix(128, 128);
  float *a = A->t.data, *b = B->t.data, *cm = C->t.data;
  fill(a, 128 * 128, 11);
  fill(b, 128 * 128, 12);
  int bad = call3(k.fn, A, B, C);
  for (int i = 0; i < 128 && !bad; i++)
    for (int j = 0; j < 128; j++) {
      double y = 0;
      for (int q = 0; q < 128; q++) y += (double)a[i * 128 + q] * b[q * 128 + j];
      if (y < 0) y = 0;
      if (fabs(cm[i * 128 + j] - y) > 1e-4 * (1 + fabs(y))) bad = 1;
    }
  if (bad) fprintf(stderr, "bench_matmul: mm_relu gives wrong results\n");
  tvs_ndarray_free(A);
  tvs_ndarray_free(B);
  tvs_ndarray_free(C);
  kernel_free(&k);
  return bad ? -1 : 0;
}

/* JIT-compiles the small variant of the kernel (same loop structure, n x n x n)
 * with the benchmark's options and checks it against a double-precision product. */
static int check_small(const char *path, int n, const CgOptions *opt) {
  Kernel k;
  if (kernel_load(&k, path, opt)) return -1;
  TvsNDArray *A = matrix(n, n), *B = matrix(n, n), *C = matrix(n, n);
  float *a = A->t.data, *b = B->t.data, *cm = C->t.data;
  fill(a, (size_t)n * n, 21);
  fill(b, (size_t)n * n, 22);
  double worst = 0;
  int rc = call3(k.fn, A, B, C);
  for (int i = 0; i < n && !rc; i++)
    for (int j = 0; j < n; j++) {
      double y = 0, mag = 0;
      for (int q = 0; q < n; q++) {
        y += (double)a[i * n + q] * b[q * n + j];
        mag += fabs((double)a[i * n + q] * b[q * n + j]);
      }
      double e = fabs(cm[i * n + j] - y) / (mag > 0 ? mag : 1);
      if (e > worst) worst = e;
    }
  printf("small variant %s (%dx%dx%d, JIT): max error %.2e %s\n", path, n, n, n, worst,
         !rc && worst < 1e-5 ? "ok" : "WRONG");
  if (worst >= 1e-5) rc = -1;
  tvs_ndarray_free(A);
  tvs_ndarray_free(B);
  tvs_ndarray_free(C);
  kernel_free(&k);
  return rc;
}

/* -------------------------------------------------------------------- main */

static void usage(void) {
  fprintf(stderr,
          "usage: bench_matmul [--reps N] [--threads LIST] [--kernel FILE.tvs] [--no-fast-math]\n"
          "                    [--tvs-only]\n"
          "  --reps N        timed runs per library and thread count (default 15, >= 1)\n"
          "  --threads LIST  comma-separated thread counts (default 1,2)\n"
          "  --kernel FILE   the TVS kernel (default bench/kernels/matmul_1024.tvs)\n"
          "  --no-fast-math  compile the TVS kernel without fast-math (no FMA contraction)\n"
          "  --tvs-only      time only the TVS kernel (for iterating on it)\n"
          "Run as: env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE bench_matmul\n");
}

int main(int argc, char **argv) {
  const char *kpath = TVS_SOURCE_DIR "/bench/kernels/matmul_1024.tvs";
  const char *relu_path = TVS_SOURCE_DIR "/examples/mm_relu.tvs";
  const char *small_path = TVS_SOURCE_DIR "/bench/kernels/matmul_64.tvs"; /* NULL: --kernel given */
  int reps = 15, nthr = 2, thr[MAX_THREADS] = {1, 2};
  bool fast_math = true;
  int nlibs = NLIBS; /* --tvs-only: 1 */
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--kernel") && i + 1 < argc) {
      kpath = argv[++i];
      small_path = NULL;
    } else if (!strcmp(argv[i], "--tvs-only")) {
      nlibs = 1;
    } else if (!strcmp(argv[i], "--no-fast-math")) {
      fast_math = false;
    } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
      nthr = 0;
      for (char *p = argv[++i]; *p && nthr < MAX_THREADS;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > 256) {
          usage();
          return 2;
        }
        thr[nthr++] = (int)v;
        p = *end == ',' ? end + 1 : end;
      }
    } else {
      usage();
      return 2;
    }
  }
  if (reps < 1 || nthr < 1) {
    usage();
    return 2;
  }

  /* --- environment */
  const char *ct = getenv("OPENBLAS_CORETYPE"), *l2 = getenv("OPENBLAS_L2_SIZE");
  if (ct || l2)
    printf("warning: OPENBLAS_CORETYPE=%s OPENBLAS_L2_SIZE=%s are set: OpenBLAS runs old kernels "
           "(run under `env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE`)\n",
           ct ? ct : "(unset)", l2 ? l2 : "(unset)");
  const dnnl_version_t *dv = dnnl_version();
  int isa = (int)dnnl_get_effective_cpu_isa();
  printf("oneDNN %d.%d.%d (GNU OpenMP runtime), effective ISA %s\n", dv->major, dv->minor, dv->patch,
         isa == dnnl_cpu_isa_avx512_core_amx    ? "avx512_core_amx"
         : isa == dnnl_cpu_isa_avx512_core_bf16 ? "avx512_core_bf16"
         : isa == dnnl_cpu_isa_avx512_core_vnni ? "avx512_core_vnni"
         : isa == dnnl_cpu_isa_avx512_core      ? "avx512_core"
         : isa == dnnl_cpu_isa_avx2             ? "avx2"
                                                : "other");
  printf("OpenBLAS: core %s, config %s\n", openblas_get_corename(), openblas_get_config());
  printf("CPUs available: %ld; timing: median of %d runs after 3 warm-up runs\n",
         sysconf(_SC_NPROCESSORS_ONLN), reps);

  /* --- compile */
  CompileTimes relu;
  if (bench_mm_relu(relu_path, &relu)) return 1;
  Ctx c;
  memset(&c, 0, sizeof c);
  CgOptions opt = cg_options_default(); /* O3, host CPU and features */
  opt.fast_math = fast_math;
  if (kernel_load(&c.mm, kpath, &opt)) return 1;
  if (small_path && check_small(small_path, 64, &opt)) return 1;
  printf("TVS kernel %s: -O%d, host CPU, %s\n", kpath, opt.opt_level,
         fast_math ? "fast-math on (mul+add contracted to FMA)" : "fast-math off (no FMA contraction)");
  printf("JIT compile = cg_compile_module (lowering + LLVM IR + O3 + machine code + ORC JIT):\n");
  printf("  matmul_1024.tvs : %6.1f ms wall, %6.1f ms CPU  (parse+elaborate %.1f ms)\n", c.mm.compile_ms,
         c.mm.compile_cpu_ms, c.mm.parse_ms);
  printf("  mm_relu.tvs     : %6.1f ms wall, %6.1f ms CPU  (median of 7; first in process %.1f ms wall;"
         " parse+elaborate %.1f ms)\n",
         relu.wall_ms, relu.cpu_ms, relu.cold_ms, relu.parse_ms);

  /* --- data */
  c.A = matrix(M, K);
  c.B = matrix(K, N);
  for (int l = 0; l < NLIBS; l++) c.C[l] = matrix(M, N);
  fill(c.A->t.data, (size_t)M * K, 1);
  fill(c.B->t.data, (size_t)K * N, 2);

  /* --- timings */
  Timing tm[MAX_THREADS][NLIBS];
  for (int t = 0; t < nthr; t++)
    for (int l = 0; l < nlibs; l++)
      if (time_lib(&c, l, thr[t], reps, &tm[t][l])) return 1;

  /* --- agreement */
  bool ok = true;
  printf("\nresults (32 rows vs a double-precision product; error / sum|a*b|, fp32 scale ~1e-7):\n");
  for (int l = 0; l < nlibs; l++) {
    double e = check_rows(c.A->t.data, c.B->t.data, c.C[l]->t.data);
    printf("  %-10s max error %.2e%s\n", lib_names[l], e, e < 1e-5 ? "" : "  <-- WRONG");
    if (e >= 1e-5) ok = false;
  }
  size_t nel = (size_t)M * N;
  if (nlibs == NLIBS) {
    double d1 = rel_diff(c.C[LIB_TVS]->t.data, c.C[LIB_DNNL]->t.data, nel);
    double d2 = rel_diff(c.C[LIB_TVS]->t.data, c.C[LIB_OPENBLAS]->t.data, nel);
    double d3 = rel_diff(c.C[LIB_DNNL]->t.data, c.C[LIB_OPENBLAS]->t.data, nel);
    printf("  max |x - y| / max |y| over all of C: TVS-oneDNN %.2e, TVS-OpenBLAS %.2e, "
           "oneDNN-OpenBLAS %.2e\n",
           d1, d2, d3);
    if (d1 > 1e-5 || d2 > 1e-5) ok = false;
  }

  /* --- table */
  double flop = 2.0 * M * N * K;
  printf("\n%dx%dx%d fp32 matmul (C = A @ B, row-major)\n", M, N, K);
  printf("%-10s %7s %10s %9s %9s %12s %11s %14s\n", "library", "threads", "median ms", "best ms",
         "GFLOP/s", "vs best lib", "other load", "CPU-t GFLOP/s");
  for (int t = 0; t < nthr; t++) {
    double top = 0;
    for (int l = 0; l < nlibs; l++)
      if (flop / tm[t][l].med_s > top) top = flop / tm[t][l].med_s;
    for (int l = 0; l < nlibs; l++) {
      const Timing *x = &tm[t][l];
      printf("%-10s %7d %10.2f %9.2f %9.1f %11.0f%% %11.2f", lib_names[l], thr[t], x->med_s * 1e3,
             x->best_s * 1e3, flop / x->med_s * 1e-9, 100.0 * (flop / x->med_s) / top, x->other_load);
      if (thr[t] == 1) printf(" %14.1f", flop / x->cpu_med_s * 1e-9);
      printf("\n");
    }
  }
  printf("(GFLOP/s = 2*M*N*K / median wall time.  other load: CPUs busy with other processes\n"
         " while timing, from /proc/stat; figures with other load above ~0.1 are disturbed.\n"
         " CPU-t GFLOP/s, 1 thread only: over the median CPU time of the calling thread,\n"
         " which ignores time-slicing by other processes.)\n");
  for (int t = 1; t < nthr; t++)
    printf("TVS speed-up %d -> %d threads: %.2fx (median wall times)\n", thr[0], thr[t],
           tm[0][LIB_TVS].med_s / tm[t][LIB_TVS].med_s);
  if (!ok) printf("RESULTS DISAGREE\n");

  for (int l = 0; l < NLIBS; l++) tvs_ndarray_free(c.C[l]);
  tvs_ndarray_free(c.A);
  tvs_ndarray_free(c.B);
  kernel_free(&c.mm);
  return ok ? 0 : 1;
}
