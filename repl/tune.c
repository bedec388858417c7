/* tune.c - the REPL's `:tune [F] [--trials N] [--seed S] [--db FILE]`: runs
 * the auto-tuner (autotune/) on the current version of a prim_func and
 * applies the best schedule it found as the next step, so that :diff shows
 * what tuning did, :undo takes it back and :trace/:history record it (the
 * step's text is the best candidate's trace). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "autotune/tune.h"
#include "base/util.h"
#include "repl/repl_internal.h"

typedef struct TuneCmd {
  const char *func, *db;
  int trials;
  uint64_t seed;
} TuneCmd;

static int parse_count(Repl *r, const char *opt, const char *v, long lo, long *out) {
  char *end;
  long x = v ? strtol(v, &end, 10) : 0;
  if (!v || *end || x < lo || x > 100000) return repl_error(r, ":tune: %s expects an integer >= %ld", opt, lo), -1;
  *out = x;
  return 0;
}

static int parse_tune(Repl *r, int argc, char **argv, TuneCmd *tc) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    long x;
    if (!strcmp(a, "--trials")) {
      if (parse_count(r, a, v, 1, &x)) return -1;
      tc->trials = (int)x, i++;
    } else if (!strcmp(a, "--seed")) {
      if (parse_count(r, a, v, 0, &x)) return -1;
      tc->seed = (uint64_t)x, i++;
    } else if (!strcmp(a, "--db")) {
      if (!v) return repl_error(r, ":tune: --db expects a file"), -1;
      tc->db = v, i++;
    } else if (a[0] == '-') {
      return repl_error(r, ":tune: unknown option '%s' (--trials N, --seed S, --db FILE)", a), -1;
    } else if (tc->func) {
      return repl_error(r, ":tune: more than one function ('%s' and '%s')", tc->func, a), -1;
    } else {
      tc->func = a;
    }
  }
  tc->func = repl_default_func(r, tc->func);
  return tc->func ? 0 : -1;
}

int repl_cmd_tune(Repl *r, int argc, char **argv) {
  TuneCmd tc = {NULL, NULL, 32, 1};
  if (parse_tune(r, argc, argv, &tc)) return -1;
  IrModule *m = ir_module_copy(repl_cur_mod(r));
  char *func = xstrdup(tc.func);
  TuneMeasureOptions mo = {r->threads > 0 ? r->threads : 1, 200, 20, false, 1, NULL, CG_FP_CONTRACT_FAST, 0};
  diag_clear(&r->diag);
  TuneMeasurer *t = tune_measurer_new(m, func, &mo, &r->diag);
  TuneOptions o = tune_options_default();
  o.func = func, o.trials = tc.trials, o.seed = tc.seed, o.db = tc.db, o.measurer = t;
  o.threads = mo.threads, o.progress = stderr, o.tty = isatty(2);
  TuneRun run;
  memset(&run, 0, sizeof run);
  int rc = t ? tune_search(m, &o, &run, &r->diag) : -1;
  fflush(r->opt.out);
  diag_flush(&r->diag);
  diag_clear(&r->diag);
  if (!rc) {
    fprintf(r->opt.out, "tuned %s: best %.2f GFLOP/s (%.4f ms) after %d trials (%d failed); applying it\n", func,
            run.best_gflops, run.best_ms, run.ntrials, run.nfailed);
    rc = repl_exec(r, run.best_trace, 0);
  }
  tune_run_free(&run);
  tune_measurer_free(t);
  ir_module_free(m);
  free(func);
  return rc;
}
