/* matmul_bench.c - 1024^3 fp32 sgemm: TVS's JIT-compiled kernel vs oneDNN and OpenBLAS.
 *
 * Compiles bench/kernels/matmul_1024.tvs once (cg_compile_module: O3, host CPU,
 * fast-math), times it through its packed entry, then dnnl_sgemm and cblas_sgemm,
 * on 1 and 2 threads; checks that the three results agree and prints a table
 * (median of --reps runs after warm-up) plus the JIT compile times. See README.md. */
#define _GNU_SOURCE /* cpu_set_t in OpenBLAS's cblas.h */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>

#include "bench/gemm_common.h"
#include "codegen/codegen.h"
#include "lang/elab.h"
#include "runtime/ndarray.h"

enum { M = 1024, N = 1024, K = 1024 };
#define MAX_THREADS 8

#define now gemm_now
#define cpu_now gemm_cpu_now
#define median drv_median
#define matrix gemm_matrix
#define fill gemm_fill
#define call3 gemm_call3

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

/* The libraries' versions and the machine. */
static void print_environment(int reps) {
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
}

/* Each library's result against a double-precision product and the others. */
static bool check_agreement(const GemmProblem *pc, int nlibs) {
  bool ok = true;
  printf("\nresults (32 rows vs a double-precision product; error / sum|a*b|, fp32 scale ~1e-7):\n");
  for (int l = 0; l < nlibs; l++) {
    double e = gemm_check_rows(pc, pc->C[l]->t.data, 32);
    printf("  %-10s max error %.2e%s\n", gemm_lib_names[l], e, e < 1e-5 ? "" : "  <-- WRONG");
    if (e >= 1e-5) ok = false;
  }
  size_t nel = (size_t)M * N;
  if (nlibs == NLIBS) {
    double d1 = gemm_rel_diff(pc->C[LIB_TVS]->t.data, pc->C[LIB_DNNL]->t.data, nel);
    double d2 = gemm_rel_diff(pc->C[LIB_TVS]->t.data, pc->C[LIB_OPENBLAS]->t.data, nel);
    double d3 = gemm_rel_diff(pc->C[LIB_DNNL]->t.data, pc->C[LIB_OPENBLAS]->t.data, nel);
    printf("  max |x - y| / max |y| over all of C: TVS-oneDNN %.2e, TVS-OpenBLAS %.2e, "
           "oneDNN-OpenBLAS %.2e\n",
           d1, d2, d3);
    if (d1 > 1e-5 || d2 > 1e-5) ok = false;
  }
  return ok;
}

/* The timings: one row per library and thread count. */
static void print_table(GemmTiming (*tm)[NLIBS], const int *thr, int nthr, int nlibs) {
  double flop = 2.0 * M * N * K;
  printf("\n%dx%dx%d fp32 matmul (C = A @ B, row-major)\n", M, N, K);
  printf("%-10s %7s %10s %9s %9s %12s %11s %14s\n", "library", "threads", "median ms", "best ms",
         "GFLOP/s", "vs best lib", "other load", "CPU-t GFLOP/s");
  for (int t = 0; t < nthr; t++) {
    double top = 0;
    for (int l = 0; l < nlibs; l++)
      if (flop / tm[t][l].med_s > top) top = flop / tm[t][l].med_s;
    for (int l = 0; l < nlibs; l++) {
      const GemmTiming *x = &tm[t][l];
      printf("%-10s %7d %10.2f %9.2f %9.1f %11.0f%% %11.2f", gemm_lib_names[l], thr[t], x->med_s * 1e3,
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
      nthr = gemm_parse_threads(argv[++i], thr, MAX_THREADS);
      if (nthr < 0) {
        usage();
        return 2;
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

  print_environment(reps);

  /* --- compile */
  CompileTimes relu = {0};
  if (bench_mm_relu(relu_path, &relu)) return 1;
  Kernel mm;
  CgOptions opt = cg_options_default(); /* O3, host CPU and features */
  opt.fast_math = fast_math;
  if (kernel_load(&mm, kpath, &opt)) return 1;
  if (small_path && check_small(small_path, 64, &opt)) return 1;
  printf("TVS kernel %s: -O%d, host CPU, %s\n", kpath, opt.opt_level,
         fast_math ? "fast-math on (mul+add contracted to FMA)" : "fast-math off (no FMA contraction)");
  printf("JIT compile = cg_compile_module (lowering + LLVM IR + O3 + machine code + ORC JIT):\n");
  printf("  matmul_1024.tvs : %6.1f ms wall, %6.1f ms CPU  (parse+elaborate %.1f ms)\n", mm.compile_ms,
         mm.compile_cpu_ms, mm.parse_ms);
  printf("  mm_relu.tvs     : %6.1f ms wall, %6.1f ms CPU  (median of 7; first in process %.1f ms wall;"
         " parse+elaborate %.1f ms)\n",
         relu.wall_ms, relu.cpu_ms, relu.cold_ms, relu.parse_ms);

  /* --- data */
  GemmProblem c = {.M = M, .N = N, .K = K, .tvs_fn = mm.fn};
  c.A = matrix(M, K);
  c.B = matrix(K, N);
  for (int l = 0; l < NLIBS; l++) c.C[l] = matrix(M, N);
  fill(c.A->t.data, (size_t)M * K, 1);
  fill(c.B->t.data, (size_t)K * N, 2);

  /* --- timings */
  GemmTiming tm[MAX_THREADS][NLIBS];
  for (int t = 0; t < nthr; t++)
    for (int l = 0; l < nlibs; l++)
      if (gemm_time_lib(&c, l, thr[t], reps, 0, 300, &tm[t][l])) return 1;

  bool ok = check_agreement(&c, nlibs);

  print_table(tm, thr, nthr, nlibs);
  if (!ok) printf("RESULTS DISAGREE\n");

  for (int l = 0; l < NLIBS; l++) tvs_ndarray_free(c.C[l]);
  tvs_ndarray_free(c.A);
  tvs_ndarray_free(c.B);
  kernel_free(&mm);
  return ok ? 0 : 1;
}
