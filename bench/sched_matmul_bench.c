/* sched_matmul_bench.c - fp32 matmuls scheduled by schedule scripts, against
 * oneDNN and OpenBLAS, on 1 and 2 threads in the same run.
 *
 * For each shape (1024^3, 512^3 and the DNN shapes 196x256x2304 and
 * 3136x64x576, M x N x K) it parses the unscheduled kernel
 * bench/kernels/mm_<shape>.tvs, applies bench/kernels/mm_<shape>.sched.tvs
 * (or --schedules DIR's) through the schedule library (sch_apply_schedules),
 * JIT-compiles the result (O3, host CPU, fast-math), checks it against a
 * double-precision product, and times it, dnnl_sgemm and cblas_sgemm (median
 * of at least --reps runs spanning at least --min-time seconds, after 3
 * warm-up runs).  It prints GFLOP/s and the ratio TVS / best library per
 * shape and thread count.  Last, it times one schedule primitive plus a
 * reprint of the module (split on examples/mm_relu.tvs; median).  See README.md. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <oneapi/dnnl/dnnl.h>
#include <cblas.h>

#include "bench/gemm_common.h"
#include "codegen/codegen.h"
#include "ir/printer.h"
#include "lang/elab.h"
#include "sched/schedule.h"

#define MAX_THREADS 8

typedef struct Shape {
  const char *name; /* kernel files bench/kernels/mm_<name>.tvs and .sched.tvs */
  int M, N, K;
} Shape;

static const Shape shapes[] = {
    {"1024", 1024, 1024, 1024},
    {"512", 512, 512, 512},
    {"196x256x2304", 196, 256, 2304},
    {"3136x64x576", 3136, 64, 576},
};
#define NSHAPES ((int)(sizeof shapes / sizeof shapes[0]))

/* A scheduled, compiled kernel. */
typedef struct Kernel {
  SourceFile *src; /* kept: the IR's spans point into it */
  IrModule *ir;
  TVSModule *mod;
  TVSFunction *fn;
  double sched_ms;   /* parse + elaborate + schedule script */
  double compile_ms; /* cg_compile_module (lowering + LLVM O3 + JIT) */
} Kernel;

static void kernel_free(Kernel *k) {
  tvs_func_release(k->fn);
  tvs_module_free(k->mod);
  ir_module_free(k->ir);
  src_free(k->src);
  memset(k, 0, sizeof *k);
}

/* Loads path and applies the schedule script sched_path (may be NULL) into
 * k->ir; 0 or -1 with the errors printed. */
static int kernel_parse(Kernel *k, const char *path, const char *sched_path) {
  const char *err = NULL;
  k->src = src_from_path(path, &err);
  if (!k->src) {
    fprintf(stderr, "bench_sched_matmul: cannot open %s: %s\n", path, err);
    return -1;
  }
  DiagCtx d;
  diag_init(&d, stderr);
  StrBuf out;
  sb_init(&out);
  double t0 = gemm_now();
  k->ir = tvs_load_module(k->src, &d);
  if (k->ir && sch_apply_schedules(&k->ir, NULL, sched_path, &d, &out)) {
    ir_module_free(k->ir);
    k->ir = NULL;
  }
  double t1 = gemm_now();
  diag_flush(&d);
  diag_free(&d);
  fputs(out.data ? out.data : "", stdout);
  sb_free(&out);
  k->sched_ms = (t1 - t0) * 1e3;
  if (!k->ir || k->ir->nfuncs < 1) {
    fprintf(stderr, "bench_sched_matmul: %s failed to load or to schedule\n", path);
    return -1;
  }
  return 0;
}

/* kernel_parse, then JIT-compiles the kernel; 0 or -1. */
static int kernel_load(Kernel *k, const char *path, const char *sched_path, const CgOptions *opt) {
  memset(k, 0, sizeof *k);
  if (kernel_parse(k, path, sched_path)) return -1;
  DiagCtx d;
  diag_init(&d, stderr);
  double t1 = gemm_now();
  k->mod = cg_compile_module(k->ir, opt, &d);
  double t2 = gemm_now();
  diag_flush(&d);
  diag_free(&d);
  if (!k->mod) {
    fprintf(stderr, "bench_sched_matmul: %s with %s failed to compile\n", path, sched_path);
    return -1;
  }
  k->fn = tvs_module_get_function(k->mod, k->ir->funcs[0].name);
  if (!k->fn) {
    fprintf(stderr, "bench_sched_matmul: %s\n", tvs_get_last_error());
    return -1;
  }
  k->compile_ms = (t2 - t1) * 1e3;
  return 0;
}

/* ------------------------------------------------- primitive + reprint */

/* Median ms of one split (factors [None, 4]) of loop number `loop` around
 * block_name in m, plus printing the whole module, over reps (each step is
 * undone); *print_ms gets the printing part alone. */
static int bench_primitive(const IrModule *m, const char *block_name, int loop, int reps, double *med_ms,
                           double *print_ms) {
  DiagCtx d;
  diag_init(&d, stderr);
  Schedule *s = sch_new(m, &d);
  SchRV b = sch_get_block(s, block_name, NULL), *loops = NULL;
  int rc = b < 0 || sch_get_loops(s, b, &loops) <= loop ? -1 : 0;
  double *t = calloc((size_t)reps, sizeof *t), *tp = calloc((size_t)reps, sizeof *tp);
  PrintOptions popt = print_options_default();
  size_t len0 = 0;
  for (int r = 0; r < reps && !rc; r++) {
    StrBuf sb;
    sb_init(&sb);
    int64_t factors[2] = {0, 4};
    SchRV parts[2];
    double t0 = gemm_now();
    rc = sch_split(s, loops[loop], factors, 2, true, false, parts);
    double t1 = gemm_now();
    print_module(&sb, sch_mod(s), &popt);
    double t2 = gemm_now();
    t[r] = (t2 - t0) * 1e3;
    tp[r] = (t2 - t1) * 1e3;
    if (r == 0) len0 = sb.len;
    if (!rc && (sb.len < 100 || sb.len != len0)) rc = -1; /* every step prints the same module */
    sb_free(&sb);
    if (!rc && !sch_undo(s)) rc = -1;
  }
  if (!rc) {
    *med_ms = drv_median(t, reps);
    *print_ms = drv_median(tp, reps);
  } else {
    fprintf(stderr, "bench_sched_matmul: split + print of block %s failed\n", block_name);
  }
  free(t);
  free(tp);
  free(loops);
  sch_free(s);
  diag_flush(&d);
  diag_free(&d);
  return rc;
}

/* -------------------------------------------------------------------- main */

static void usage(void) {
  fprintf(stderr,
          "usage: bench_sched_matmul [--reps N] [--min-time S] [--threads LIST] [--shape NAME]\n"
          "                          [--schedules DIR] [--tvs-only] [--prim-reps N] [--no-fast-math]\n"
          "  --reps N        timed runs per library, shape and thread count (default 15;\n"
          "                  more when needed to span --min-time)\n"
          "  --min-time S    seconds the timed runs of one row span at least (default 0.3)\n"
          "  --threads LIST  comma-separated thread counts (default 1,2)\n"
          "  --shape NAME    only this shape (1024, 512, 196x256x2304, 3136x64x576)\n"
          "  --schedules DIR the scripts DIR/mm_<shape>.sched.tvs (tuned ones, say) in place\n"
          "                  of the hand-written bench/kernels/mm_<shape>.sched.tvs\n"
          "  --tvs-only      time only the TVS kernels\n"
          "  --prim-reps N   runs of the primitive + reprint measurement (default 201)\n"
          "  --no-fast-math  compile the TVS kernels without fast-math\n"
          "Run as: env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE bench_sched_matmul\n");
}

typedef struct Row {
  double gflops[MAX_THREADS][NLIBS];
  double load[MAX_THREADS][NLIBS];
  double ratio[MAX_THREADS]; /* TVS / best library */
  double err;                /* TVS vs the double-precision product */
  double sched_ms, compile_ms;
} Row;

/* Times one shape with every library at every thread count and prints its
 * rows; *good tells whether the results agree.  0, or -1 on a failure. */
static int bench_shape(const Shape *sh, const char *sched_dir, const CgOptions *copt, int reps, double min_s,
                       const int *thr, int nthr, int nlibs, Row *row, bool *good_out) {
  CgOptions opt = *copt;
  char path[1024], spath[1024];
  snprintf(path, sizeof path, "%s/bench/kernels/mm_%s.tvs", TVS_SOURCE_DIR, sh->name);
  snprintf(spath, sizeof spath, "%s/mm_%s.sched.tvs", sched_dir, sh->name);
  Kernel k;
  if (kernel_load(&k, path, spath, &opt)) return -1;
  row->sched_ms = k.sched_ms;
  row->compile_ms = k.compile_ms;
  GemmProblem p = {.M = sh->M, .N = sh->N, .K = sh->K, .tvs_fn = k.fn};
  p.A = gemm_matrix(sh->M, sh->K);
  p.B = gemm_matrix(sh->K, sh->N);
  for (int l = 0; l < NLIBS; l++) p.C[l] = gemm_matrix(sh->M, sh->N);
  gemm_fill(p.A->t.data, (size_t)sh->M * sh->K, 1);
  gemm_fill(p.B->t.data, (size_t)sh->K * sh->N, 2);
  double flop = 2.0 * sh->M * sh->N * sh->K;
  for (int t = 0; t < nthr; t++) {
    double top = 0;
    for (int l = 0; l < nlibs; l++) {
      GemmTiming tm;
      if (gemm_time_lib(&p, l, thr[t], reps, min_s, 300, &tm)) return -1;
      row->gflops[t][l] = flop / tm.med_s * 1e-9;
      row->load[t][l] = tm.other_load;
      if (l != LIB_TVS && row->gflops[t][l] > top) top = row->gflops[t][l];
    }
    row->ratio[t] = top > 0 ? row->gflops[t][LIB_TVS] / top : 0;
  }
  row->err = gemm_check_rows(&p, p.C[LIB_TVS]->t.data, 32);
  bool good = row->err < 1e-5;
  for (int l = 1; l < nlibs; l++) good &= gemm_check_rows(&p, p.C[l]->t.data, 8) < 1e-5;
  *good_out = good;
  printf("\nmm_%s (M=%d N=%d K=%d): schedule %.1f ms, compile %.1f ms, TVS max error %.1e %s\n",
         sh->name, sh->M, sh->N, sh->K, k.sched_ms, k.compile_ms, row->err, good ? "ok" : "WRONG");
  printf("  %-10s %7s %9s %11s\n", "library", "threads", "GFLOP/s", "other load");
  for (int t = 0; t < nthr; t++)
    for (int l = 0; l < nlibs; l++)
      printf("  %-10s %7d %9.1f %11.2f\n", gemm_lib_names[l], thr[t], row->gflops[t][l], row->load[t][l]);
  for (int l = 0; l < NLIBS; l++) tvs_ndarray_free(p.C[l]);
  tvs_ndarray_free(p.A);
  tvs_ndarray_free(p.B);
  kernel_free(&k);
  return 0;
}

/* The summary table: GFLOP/s per shape and thread count, and the ratio. */
static void print_summary(const Row *rows, const int *thr, int nthr, int nlibs, const char *only) {
  printf("\nsummary: GFLOP/s (median wall time); ratio = TVS / best of oneDNN and OpenBLAS;\n"
         "* = some row of that shape and thread count had other load above 0.1 (disturbed)\n");
  printf("%-13s", "shape");
  for (int t = 0; t < nthr; t++)
    printf(" |%2dT %6s %6s %8s %6s", thr[t], "TVS", "oneDNN", "OpenBLAS", "ratio");
  printf("\n");
  for (int si = 0; si < NSHAPES; si++) {
    if (only && strcmp(only, shapes[si].name)) continue;
    printf("%-13s", shapes[si].name);
    for (int t = 0; t < nthr; t++) {
      bool disturbed = false;
      for (int l = 0; l < nlibs; l++) disturbed |= rows[si].load[t][l] > 0.1;
      printf(" |    %6.1f %6.1f %8.1f %5.0f%%%s", rows[si].gflops[t][LIB_TVS], rows[si].gflops[t][LIB_DNNL],
             rows[si].gflops[t][LIB_OPENBLAS], 100 * rows[si].ratio[t], disturbed ? "*" : " ");
    }
    printf("\n");
  }
}

int main(int argc, char **argv) {
  double min_s = 0.3;
  int reps = 15, prim_reps = 201, nthr = 2, thr[MAX_THREADS] = {1, 2}, nlibs = NLIBS;
  const char *only = NULL, *sched_dir = TVS_SOURCE_DIR "/bench/kernels";
  bool fast_math = true;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--min-time") && i + 1 < argc) {
      min_s = atof(argv[++i]);
    } else if (!strcmp(argv[i], "--prim-reps") && i + 1 < argc) {
      prim_reps = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--shape") && i + 1 < argc) {
      only = argv[++i];
    } else if (!strcmp(argv[i], "--schedules") && i + 1 < argc) {
      sched_dir = argv[++i];
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
  bool known = !only;
  for (int si = 0; si < NSHAPES; si++) known |= only && !strcmp(only, shapes[si].name);
  if (reps < 1 || prim_reps < 1 || nthr < 1 || !(min_s >= 0) || !known) {
    usage();
    return 2;
  }
  const char *ct = getenv("OPENBLAS_CORETYPE"), *l2 = getenv("OPENBLAS_L2_SIZE");
  if (ct || l2)
    printf("warning: OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE are set: OpenBLAS runs old kernels "
           "(run under `env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE`)\n");
  const dnnl_version_t *dv = dnnl_version();
  printf("oneDNN %d.%d.%d; OpenBLAS core %s; CPUs %ld; median of >= %d runs spanning >= %.2f s, after 3 "
         "warm-up runs\n",
         dv->major, dv->minor, dv->patch, openblas_get_corename(), sysconf(_SC_NPROCESSORS_ONLN), reps, min_s);

  CgOptions opt = cg_options_default();
  opt.fast_math = fast_math;
  Row rows[NSHAPES];
  memset(rows, 0, sizeof rows);
  bool ok = true;
  for (int si = 0; si < NSHAPES; si++) {
    if (only && strcmp(only, shapes[si].name)) continue;
    bool good = true;
    if (bench_shape(&shapes[si], sched_dir, &opt, reps, min_s, thr, nthr, nlibs, &rows[si], &good)) return 1;
    if (!good) ok = false;
  }
  if (nlibs == NLIBS) print_summary(rows, thr, nthr, nlibs, only);

  /* one primitive + reprint: on mm_relu (the k loop of block Y), and on the
   * scheduled 1024 kernel (its k loop, inside the panel and row-tile loops) */
  printf("\none primitive + reprint of the module (split by 4, then print_module; median of %d):\n",
         prim_reps);
  for (int w = 0; w < 2; w++) {
    const char *path = w ? TVS_SOURCE_DIR "/bench/kernels/mm_1024.tvs" : TVS_SOURCE_DIR "/examples/mm_relu.tvs";
    Kernel k;
    memset(&k, 0, sizeof k);
    if (kernel_parse(&k, path, w ? TVS_SOURCE_DIR "/bench/kernels/mm_1024.sched.tvs" : NULL)) return 1;
    double prim_ms = 0, print_ms = 0;
    int rc = bench_primitive(k.ir, w ? "C_update" : "Y", 2, prim_reps, &prim_ms, &print_ms);
    kernel_free(&k);
    if (rc) return 1;
    printf("  %-40s %7.3f ms  (printing alone %.3f ms)\n",
           w ? "mm_1024.tvs after mm_1024.sched.tvs" : "examples/mm_relu.tvs", prim_ms, print_ms);
  }
  if (!ok) printf("RESULTS WRONG\n");
  return ok ? 0 : 1;
}
