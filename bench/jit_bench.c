/* jit_bench.c - JIT compile time of one kernel, phase by phase.
 *
 * Loads a .tvs file (default: examples/mm_relu.tvs) and compiles it RUNS times
 * the way `tvs run` does (cg_compile_module), timing each phase on its own:
 * parse + elaborate, tir_lower (the full CPU pipeline), LLVM IR generation
 * (cg_build), LLVM optimization (cg_optimize), JIT materialization (cg_jit:
 * the LLJIT session, machine code, the first symbol lookup).  Prints the
 * first (cold) run and the medians of the others.  The target: the compile
 * (lower + IR + opt + JIT, what `tvs run --time` calls "compiled in") < 50 ms.
 * usage: bench_jit [FILE] [RUNS=15] [--fast-math] [--O0..3] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codegen/codegen.h"
#include "ir/transform.h"
#include "lang/elab.h"
#include "lang/util.h"

#ifndef TVS_SOURCE_DIR
#define TVS_SOURCE_DIR "."
#endif

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(const double *v, int n) {
  double *s = xcalloc((size_t)n, sizeof *s);
  memcpy(s, v, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, cmp_double);
  double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  free(s);
  return m;
}

enum { PH_PARSE, PH_LOWER, PH_IRGEN, PH_OPT, PH_JIT, PH_COMPILE, PH_TOTAL, NPHASES };
static const char *const phase_names[NPHASES] = {
    "parse+elaborate", "tir_lower", "LLVM IR generation", "LLVM optimization",
    "JIT materialization", "compile (lower..JIT)", "total",
};

/* One full compile of src; fills t[NPHASES].  0, or -1 after printing errors. */
static int compile_once(const SourceFile *src, const CgOptions *opt, double *t) {
  DiagCtx d;
  diag_init(&d, stderr);
  int rc = -1;
  IrModule *m = NULL, *low = NULL;
  CgResult *r = NULL;
  TVSModule *mod = NULL;
  double t0 = now_ms();
  m = tvs_load_module(src, &d);
  double t1 = now_ms();
  if (!m) goto out;
  low = tir_lower(m, -1, &d, NULL, NULL);
  double t2 = now_ms();
  if (!low) goto out;
  r = cg_build(low, opt, &d);
  double t3 = now_ms();
  if (!r) goto out;
  if (cg_optimize(r, &d)) goto out;
  double t4 = now_ms();
  mod = cg_jit(r, &d);
  double t5 = now_ms();
  if (!mod) goto out;
  t[PH_PARSE] = t1 - t0;
  t[PH_LOWER] = t2 - t1;
  t[PH_IRGEN] = t3 - t2;
  t[PH_OPT] = t4 - t3;
  t[PH_JIT] = t5 - t4;
  t[PH_COMPILE] = t5 - t1;
  t[PH_TOTAL] = t5 - t0;
  rc = 0;
out:
  diag_flush(&d);
  tvs_module_free(mod);
  cg_free(r);
  ir_module_free(low);
  ir_module_free(m);
  diag_free(&d);
  return rc;
}

int main(int argc, char **argv) {
  const char *path = TVS_SOURCE_DIR "/examples/mm_relu.tvs";
  int runs = 15;
  CgOptions opt = cg_options_default();
  int npos = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--fast-math")) opt.fast_math = true;
    else if (!strncmp(argv[i], "--O", 3) && argv[i][3] >= '0' && argv[i][3] <= '3' && !argv[i][4])
      opt.opt_level = argv[i][3] - '0';
    else if (npos == 0 && (npos = 1)) path = argv[i];
    else runs = atoi(argv[i]);
  }
  if (runs < 9) runs = 9;
  const char *err = NULL;
  SourceFile *src = src_from_path(path, &err);
  if (!src) {
    fprintf(stderr, "bench_jit: cannot read '%s': %s\n", path, err ? err : "?");
    return 1;
  }
  double cold[NPHASES];
  double *t[NPHASES];
  for (int p = 0; p < NPHASES; p++) t[p] = xcalloc((size_t)runs, sizeof(double));
  if (compile_once(src, &opt, cold)) {
    fprintf(stderr, "bench_jit: '%s' did not compile\n", path);
    return 1;
  }
  for (int r = 0; r < runs; r++) {
    double row[NPHASES];
    if (compile_once(src, &opt, row)) return 1;
    for (int p = 0; p < NPHASES; p++) t[p][r] = row[p];
  }
  printf("JIT compile time: %s, O%d%s, %d runs after one cold run\n", path, opt.opt_level,
         opt.fast_math ? ", fast-math" : "", runs);
  printf("  %-22s %10s %10s %10s %10s\n", "phase", "cold ms", "median ms", "min ms", "max ms");
  for (int p = 0; p < NPHASES; p++) {
    double lo = t[p][0], hi = t[p][0];
    for (int r = 1; r < runs; r++) {
      if (t[p][r] < lo) lo = t[p][r];
      if (t[p][r] > hi) hi = t[p][r];
    }
    printf("  %-22s %10.2f %10.2f %10.2f %10.2f\n", phase_names[p], cold[p], median(t[p], runs),
           lo, hi);
  }
  printf("  (target: compile < 50 ms)\n");
  for (int p = 0; p < NPHASES; p++) free(t[p]);
  src_free(src);
  return 0;
}
