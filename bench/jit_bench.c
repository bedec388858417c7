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
#include "driver/run.h"
#include "ir/transform.h"
#include "lang/elab.h"
#include "base/util.h"

#ifndef TVS_SOURCE_DIR
#define TVS_SOURCE_DIR "."
#endif

static double clock_ms(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* One time stamp: wall clock and this process's CPU time (the CPU column
 * stays meaningful on a machine shared with other jobs). */
typedef struct Stamp {
  double wall, cpu;
} Stamp;

static Stamp stamp(void) {
  Stamp s = {clock_ms(CLOCK_MONOTONIC), clock_ms(CLOCK_PROCESS_CPUTIME_ID)};
  return s;
}

/* The median of v (left unsorted: the min and max columns read it). */
static double median(const double *v, int n) {
  double *s = xcalloc((size_t)n, sizeof *s);
  memcpy(s, v, (size_t)n * sizeof *s);
  double m = drv_median(s, n);
  free(s);
  return m;
}

enum { PH_PARSE, PH_LOWER, PH_IRGEN, PH_OPT, PH_JIT, PH_COMPILE, PH_TOTAL, NPHASES };
static const char *const phase_names[NPHASES] = {
    "parse+elaborate", "tir_lower", "LLVM IR generation", "LLVM optimization",
    "JIT materialization", "compile (lower..JIT)", "total",
};

/* One full compile of src; fills wall[NPHASES] and cpu[NPHASES] (ms).  0, or
 * -1 after printing errors. */
static int compile_once(const SourceFile *src, const CgOptions *opt, double *wall, double *cpu) {
  DiagCtx d;
  diag_init(&d, stderr);
  int rc = -1;
  IrModule *m = NULL, *low = NULL;
  CgResult *r = NULL;
  TVSModule *mod = NULL;
  Stamp t[NPHASES];
  t[0] = stamp();
  m = tvs_load_module(src, &d);
  t[1] = stamp();
  if (!m) goto out;
  low = tir_lower(m, -1, &d, NULL, NULL);
  t[2] = stamp();
  if (!low) goto out;
  r = cg_build(low, opt, &d);
  t[3] = stamp();
  if (!r) goto out;
  if (cg_optimize(r, &d)) goto out;
  t[4] = stamp();
  mod = cg_jit(r, &d);
  t[5] = stamp();
  if (!mod) goto out;
  for (int p = PH_PARSE; p <= PH_JIT; p++) {
    wall[p] = t[p + 1].wall - t[p].wall;
    cpu[p] = t[p + 1].cpu - t[p].cpu;
  }
  wall[PH_COMPILE] = t[5].wall - t[1].wall;
  cpu[PH_COMPILE] = t[5].cpu - t[1].cpu;
  wall[PH_TOTAL] = t[5].wall - t[0].wall;
  cpu[PH_TOTAL] = t[5].cpu - t[0].cpu;
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
  int npos = 0; /* positional arguments seen: FILE, then RUNS */
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--fast-math")) opt.fast_math = true;
    else if (!strncmp(argv[i], "--O", 3) && argv[i][3] >= '0' && argv[i][3] <= '3' && !argv[i][4])
      opt.opt_level = argv[i][3] - '0';
    else if (npos++ == 0) path = argv[i];
    else runs = atoi(argv[i]);
  }
  if (runs < 9) runs = 9;
  const char *err = NULL;
  SourceFile *src = src_from_path(path, &err);
  if (!src) {
    fprintf(stderr, "bench_jit: cannot read '%s': %s\n", path, err ? err : "?");
    return 1;
  }
  double cold[NPHASES], cold_cpu[NPHASES];
  double *t[NPHASES], *c[NPHASES];
  for (int p = 0; p < NPHASES; p++) {
    t[p] = xcalloc((size_t)runs, sizeof(double));
    c[p] = xcalloc((size_t)runs, sizeof(double));
  }
  if (compile_once(src, &opt, cold, cold_cpu)) {
    fprintf(stderr, "bench_jit: '%s' did not compile\n", path);
    return 1;
  }
  for (int r = 0; r < runs; r++) {
    double row[NPHASES], row_cpu[NPHASES];
    if (compile_once(src, &opt, row, row_cpu)) return 1;
    for (int p = 0; p < NPHASES; p++) {
      t[p][r] = row[p];
      c[p][r] = row_cpu[p];
    }
  }
  printf("JIT compile time: %s, O%d%s, %d runs after one cold run\n", path, opt.opt_level,
         opt.fast_math ? ", fast-math" : "", runs);
  printf("  %-22s %9s %9s %9s %9s %9s\n", "phase (ms)", "cold", "median", "min", "max",
         "cpu med");
  for (int p = 0; p < NPHASES; p++) {
    double lo = t[p][0], hi = t[p][0];
    for (int r = 1; r < runs; r++) {
      if (t[p][r] < lo) lo = t[p][r];
      if (t[p][r] > hi) hi = t[p][r];
    }
    printf("  %-22s %9.2f %9.2f %9.2f %9.2f %9.2f\n", phase_names[p], cold[p], median(t[p], runs),
           lo, hi, median(c[p], runs));
  }
  printf("  (target: compile < 50 ms; cold = the first compile in the process, as in tvs run)\n");
  for (int p = 0; p < NPHASES; p++) {
    free(t[p]);
    free(c[p]);
  }
  src_free(src);
  return 0;
}
