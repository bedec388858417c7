/* cmd_tune.c - `tvs tune FILE.tvs`: search schedules of a prim_func with the
 * auto-tuner (autotune/), record every measurement in a JSON-lines
 * database, print the best schedule as a script, optionally plot the
 * tuning curve; `tvs tune --top K --db log.jsonl` prints the best records.
 * Under `mpirun -n N`, rank 0 searches and the other ranks measure. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "autotune/tune.h"
#include "base/util.h"
#include "ir/printer.h"
#include "runtime/write_file.h"
#include "sched/schedule.h"
#include "tools/tvs/tvs.h"

typedef struct TuneArgs {
  const char *file, *func, *db, *plot, *schedule, *output, *space, *target, *transfer;
  int trials, batch, threads, top, population, generations;
  uint64_t seed;
  bool random, compare_random, resume, fast_math, no_analytic;
  CgFpContract fp_contract;
  double timeout_s, budget_ms, epsilon;
} TuneArgs;

enum { TN_FUNC, TN_TRIALS, TN_BATCH, TN_DB, TN_SEED, TN_THREADS, TN_SEARCH, TN_COMPARE, TN_PLOT, TN_TOP,
       TN_RESUME, TN_TIMEOUT, TN_BUDGET, TN_FAST_MATH, TN_FP_CONTRACT, TN_SCHEDULE, TN_SPACE, TN_OUTPUT, TN_TARGET, TN_POPULATION, TN_GENERATIONS, TN_EPSILON, TN_TRANSFER, TN_NO_ANALYTIC,
       TN_HELP };

static const ToolOption tune_options[] = {
    {TN_FUNC, "--func", NULL, "F", 0, "the prim_func to tune (default: the only one, or main)"},
    {TN_TRIALS, "--trials", NULL, "N", 0, "candidates to measure (default 64)"},
    {TN_BATCH, "--batch", NULL, "N", 0, "candidates measured per round (default 8)"},
    {TN_DB, "--db", NULL, "FILE", 0, "append every measurement to this JSON-lines database"},
    {TN_SEED, "--seed", NULL, "N", 0, "seed of the search (default 1): same seed, same candidates"},
    {TN_THREADS, "--threads", NULL, "T", 0, "threads of the timed runs (default 1)"},
    {TN_SEARCH, "--search", NULL, "evolutionary|random", 0, "cost-model-guided evolution (default) or random"},
    {TN_COMPARE, "--compare-random", NULL, NULL, 0, "also run random search with the same budget (curves)"},
    {TN_PLOT, "--plot", NULL, "FILE.svg", 0, "draw best GFLOP/s against trials and time"},
    {TN_TOP, "--top", NULL, "K", 0, "print the K best schedules of --db as scripts (no tuning)"},
    {TN_RESUME, "--resume", NULL, NULL, 0, "continue from the records of --db (they count as trials)"},
    {TN_TRANSFER, "--transfer", NULL, "LOG", 0, "train the cost model on LOG's records of other workloads\n"
     "before the first batch (AutoTVM's transfer learning)"},
    {TN_NO_ANALYTIC, "--no-analytic", NULL, NULL, 0, "leave the analytic candidate (BLIS's cache and register model)\n"
     "out of the first batch: the search alone, as random search is"},
    {TN_TIMEOUT, "--timeout", NULL, "SECONDS", 0, "kill a candidate running longer (default 20)"},
    {TN_BUDGET, "--budget-ms", NULL, "MS", 0, "timing budget per candidate (default 300)"},
    {TN_FAST_MATH, "--fast-math", NULL, NULL, 0, "compile candidates with fast-math (reassociation, exp inline)"},
    {TN_FP_CONTRACT, "--fp-contract", NULL, "fast|on|off", 0,
     "multiply-add contraction into FMA: fast (the default, as TVM),\n"
     "on (the same: within an expression), off (products rounded: as the interpreter)"},
    {TN_SCHEDULE, "--schedule", NULL, "FILE", 0, "apply a schedule script before tuning"},
    {TN_SPACE, "--space", NULL, "FILE", 0, "a schedule script whose sample_* calls are the design space\n"
     "(default: the space generated from the function)"},
    {TN_OUTPUT, "--output", "-o", "FILE", 0, "write the best schedule script to FILE"},
    {TN_TARGET, "--target", NULL, "cpu|cuda|opencl", 0, "measure candidates natively (cpu, the default) or on a GPU\n"
     "(kernels timed; without --space, a matmul-like function gets the generated\n"
     "GPU space: thread-bound tiles, shared-memory staging, register tiles)"},
    {TN_POPULATION, "--population", NULL, "N", 0, "candidates the evolutionary search keeps per generation (default 512)"},
    {TN_GENERATIONS, "--generations", NULL, "N", 0, "evolution steps before each batch (default 4)"},
    {TN_EPSILON, "--epsilon", NULL, "E", 0, "share of each batch drawn at random, 0..1 (default 0.05)"},
    {TN_HELP, "--help", "-h", NULL, 0, "this help"},
    {0, NULL, NULL, NULL, 0, NULL},
};

static int parse_int(const char *opt, const char *v, int lo, int *out) {
  char *end;
  long x = v ? strtol(v, &end, 10) : 0;
  if (!v || *end || x < lo || x > 1000000) return tool_usage_error("tune", "%s needs an integer >= %d", opt, lo);
  *out = (int)x;
  return 0;
}

/* A share from 0 to 1 (--epsilon). */
static int parse_share(const char *opt, const char *v, double *out) {
  char *end;
  double x = v ? strtod(v, &end) : -1;
  if (!v || *end || !(x >= 0 && x <= 1)) return tool_usage_error("tune", "%s needs a number from 0 to 1", opt);
  *out = x;
  return 0;
}

static int parse_double(const char *opt, const char *v, double *out) {
  char *end;
  double x = v ? strtod(v, &end) : 0;
  if (!v || *end || !(x > 0)) return tool_usage_error("tune", "%s needs a positive number", opt);
  *out = x;
  return 0;
}

static int set_value(TuneArgs *ta, int id, const char *v, const char *spelled) {
  int seed = 0;
  switch (id) {
    case TN_TRIALS: return parse_int(spelled, v, 1, &ta->trials);
    case TN_BATCH: return parse_int(spelled, v, 1, &ta->batch);
    case TN_POPULATION: return parse_int(spelled, v, 2, &ta->population);
    case TN_GENERATIONS: return parse_int(spelled, v, 0, &ta->generations);
    case TN_EPSILON: return parse_share(spelled, v, &ta->epsilon);
    case TN_THREADS: return parse_int(spelled, v, 1, &ta->threads);
    case TN_TOP: return parse_int(spelled, v, 1, &ta->top);
    case TN_SEED:
      if (parse_int(spelled, v, 0, &seed)) return 2;
      ta->seed = (uint64_t)seed;
      return 0;
    case TN_TIMEOUT: return parse_double(spelled, v, &ta->timeout_s);
    case TN_BUDGET: return parse_double(spelled, v, &ta->budget_ms);
    case TN_SEARCH:
      if (!v || (strcmp(v, "evolutionary") && strcmp(v, "random")))
        return tool_usage_error("tune", "--search takes evolutionary or random");
      ta->random = !strcmp(v, "random");
      return 0;
  }
  if (!v) return tool_usage_error("tune", "%s needs a value", spelled);
  if (id == TN_FUNC) ta->func = v;
  else if (id == TN_DB) ta->db = v;
  else if (id == TN_TRANSFER) ta->transfer = v;
  else if (id == TN_PLOT) ta->plot = v;
  else if (id == TN_SCHEDULE) ta->schedule = v;
  else if (id == TN_OUTPUT) ta->output = v;
  else if (id == TN_SPACE) ta->space = v;
  else if (id == TN_TARGET) {
    if (strcmp(v, "cpu") && strcmp(v, "cuda") && strcmp(v, "opencl"))
      return tool_usage_error("tune", "--target takes cpu, cuda or opencl, not '%s'", v);
    ta->target = strcmp(v, "cpu") ? v : NULL;
  }
  return 0;
}

static int parse_tune_arg(TuneArgs *ta, int argc, char **argv, int *i) {
  const char *a = argv[*i], *val, *spelled;
  bool missing;
  const ToolOption *o = opt_match(tune_options, argc, argv, i, &val, &spelled, &missing);
  if (o) {
    switch (o->id) {
      case TN_HELP:
        tool_print_help("usage: tvs tune FILE.tvs [--func F] [--trials N] [--db log.jsonl] [--seed N]\n"
                        "                [--threads T] [--plot curve.svg] [--compare-random] [-o best.sch.tvs]\n"
                        "       tvs tune --top K --db log.jsonl\n"
                        "Searches schedules of a prim_func (docs/tuning.md): a generated design space,\n"
                        "candidates measured in worker processes and checked against the untuned\n"
                        "function, an XGBoost cost model guiding an evolutionary search. Prints the\n"
                        "best schedule as a script. Under mpirun -n N, ranks 1.. measure.\n",
                        tune_options);
        return 1;
      case TN_COMPARE: ta->compare_random = true; return 0;
      case TN_RESUME: ta->resume = true; return 0;
      case TN_NO_ANALYTIC: ta->no_analytic = true; return 0;
      case TN_FAST_MATH: ta->fast_math = true; return 0;
      case TN_FP_CONTRACT:
        if (missing || cg_parse_fp_contract(val, &ta->fp_contract))
          return tool_usage_error("tune", "--fp-contract expects fast, on or off, got '%s'", missing ? "" : val);
        return 0;
      default: return set_value(ta, o->id, missing ? NULL : val, spelled);
    }
  }
  if (a[0] == '-' && a[1]) return tool_usage_error("tune", "unknown option '%s'", a);
  if (ta->file) return tool_usage_error("tune", "more than one input file ('%s' and '%s')", ta->file, a);
  ta->file = a;
  return 0;
}

/* --top K: the best records of the database, each as a schedule script. */
static int print_top(const TuneArgs *ta) {
  TuneDb db;
  if (tune_db_load(ta->db, &db)) {
    fprintf(stderr, "tvs tune: error: cannot read '%s'\n", ta->db);
    return 1;
  }
  int *idx = xcalloc((size_t)ta->top, sizeof *idx);
  int n = tune_db_top(&db, ta->top, idx);
  for (int i = 0; i < n; i++) {
    const TuneRecord *r = &db.r[idx[i]];
    printf("# %d: %s (workload %s): %.2f GFLOP/s, %.4f ms, %d thread%s, %s\n", i + 1, r->func, r->workload,
           r->gflops, r->median_ms, r->threads, r->threads == 1 ? "" : "s", r->target ? r->target : "");
    fputs(r->trace, stdout);
    if (i + 1 < n) putchar('\n');
  }
  if (db.skipped) fprintf(stderr, "tvs tune: note: %d unreadable line(s) in '%s' skipped\n", db.skipped, ta->db);
  if (!n) fprintf(stderr, "tvs tune: no successful record in '%s'\n", ta->db);
  free(idx);
  tune_db_free(&db);
  return n ? 0 : 1;
}

/* The prim_func to tune: --func, the only prim_func, or main. */
static const char *pick_func(const IrModule *m, const char *want) {
  const char *only = NULL;
  int ntir = 0;
  for (int i = 0; i < m->nfuncs; i++)
    if (m->funcs[i].kind == IR_FUNC_TIR) ntir++, only = m->funcs[i].name;
  const IrGlobal *g = ir_module_lookup(m, want ? want : ntir == 1 ? only : "main");
  if (g && g->kind == IR_FUNC_TIR) return g->name;
  if (want) fprintf(stderr, "tvs tune: error: no prim_func '%s'\n", want);
  else fprintf(stderr, "tvs tune: error: the module has %d prim_funcs; choose one with --func\n", ntir);
  return NULL;
}

static int write_script(const char *path, const char *text) {
  char err[512];
  if (tvs_write_text_file(path, text, err, sizeof err) == 0) return 0;
  fprintf(stderr, "tvs tune: error: %s\n", err);
  return -1;
}

static TuneOptions search_options(const TuneArgs *ta, const char *func) {
  TuneOptions o = tune_options_default();
  o.func = func;
  o.trials = ta->trials;
  o.batch = ta->batch;
  o.population = ta->population;
  o.generations = ta->generations;
  o.epsilon = ta->epsilon;
  o.seed = ta->seed;
  o.kind = ta->random ? TUNE_SEARCH_RANDOM : TUNE_SEARCH_EVOLUTIONARY;
  o.db = ta->db;
  o.resume = ta->resume;
  o.transfer = ta->transfer;
  o.analytic = !ta->no_analytic;
  o.progress = stderr;
  o.tty = isatty(2);
  o.threads = ta->threads;
  o.target = ta->target;
  return o;
}

/* Rank 0 (or the only process): the search, its report and its outputs. */
static int search_and_report(const IrModule *m, const char *func, TuneMeasurer *t, const TuneArgs *ta, int size,
                             const char *space, DiagCtx *d) {
  TuneOptions o = search_options(ta, func);
  o.space_script = space;
  o.measurer = t;
  if (size > 1) o.measure = tune_mpi_measure_batch;
  TuneRun run, rnd;
  memset(&rnd, 0, sizeof rnd);
  int rc = tune_search(m, &o, &run, d);
  if (!rc && ta->compare_random) {
    TuneOptions r = o;
    r.kind = TUNE_SEARCH_RANDOM;
    r.db = NULL;
    r.resume = false;
    r.label = "random";
    rc = tune_search(m, &r, &rnd, d);
  }
  diag_flush(d);
  if (!rc) {
    if (tune_measurer_flops(t) > 0)
      printf("# %s: best %.2f GFLOP/s (%.4f ms) after %d trials (%d failed), %d thread%s\n", func, run.best_gflops,
             run.best_ms, run.ntrials, run.nfailed, ta->threads, ta->threads == 1 ? "" : "s");
    else
      printf("# %s: best %.4f ms after %d trials (%d failed), %d thread%s\n", func, run.best_ms, run.ntrials,
             run.nfailed, ta->threads, ta->threads == 1 ? "" : "s");
    if (ta->compare_random) printf("# random search: best %.2f GFLOP/s after %d trials\n", rnd.best_gflops, rnd.ntrials);
    fputs(run.best_trace, stdout);
    if (ta->output && write_script(ta->output, run.best_trace)) rc = -1;
    char *title = xasprintf("tvs tune %s: %s", ta->file, func);
    if (!rc && ta->plot && tune_plot_svg(ta->plot, title, &run, ta->random ? "random" : "cost model",
                                         ta->compare_random ? &rnd : NULL, "random")) {
      fprintf(stderr, "tvs tune: error: cannot write '%s'\n", ta->plot);
      rc = -1;
    }
    free(title);
  }
  tune_run_free(&run);
  tune_run_free(&rnd);
  return rc ? 1 : 0;
}

/* Whether to tune the whole model: --func names a graph function, or none
 * is named and the module has one. */
static bool graph_mode(const IrModule *m, const char *want) {
  if (want) {
    const IrGlobal *g = ir_module_lookup(m, want);
    return g && g->kind == IR_FUNC_RELAX;
  }
  for (int i = 0; i < m->nfuncs; i++)
    if (m->funcs[i].kind == IR_FUNC_RELAX) return true;
  return false;
}

/* Whole-model tuning: the fused kernels as tasks; -o writes the fused
 * module with the best schedules applied. */
static int tune_model(const IrModule *m, const TuneArgs *ta, DiagCtx *d) {
  IrModule *fused = tune_graph_tasks_module(m, d);
  diag_flush(d);
  if (!fused) return 1;
  TuneOptions o = search_options(ta, NULL);
  TuneMeasureOptions mo = {ta->threads, ta->budget_ms, ta->timeout_s, ta->fast_math, 1, ta->target, ta->fp_contract, 0};
  IrModule *tuned = NULL;
  int rc = tune_graph(fused, &o, &mo, stdout, ta->output ? &tuned : NULL, d);
  diag_flush(d);
  if (!rc && tuned) {
    StrBuf sb;
    sb_init(&sb);
    PrintOptions po = print_options_default();
    print_module(&sb, tuned, &po);
    rc = write_script(ta->output, sb.data);
    sb_free(&sb);
  }
  if (tuned) ir_module_free(tuned);
  ir_module_free(fused);
  return rc ? 1 : 0;
}

static int tune_file(const TuneArgs *ta, const ToolCommon *common, int rank, int size) {
  DiagCtx d;
  tool_diag_init(&d, common);
  SourceFile *src = NULL;
  IrModule *m = tool_load(ta->file, &d, &src);
  int rc = 1;
  if (m) {
    StrBuf sout;
    sb_init(&sout);
    if (sch_apply_schedules(&m, src, ta->schedule, &d, &sout)) ir_module_free(m), m = NULL;
    diag_flush(&d);
    sb_free(&sout);
  }
  if (m && graph_mode(m, ta->func)) {
    rc = size > 1 ? 1 : tune_model(m, ta, &d);
    if (size > 1 && rank == 0) fprintf(stderr, "tvs tune: error: whole-model tuning runs in one process (no mpirun)\n");
    ir_module_free(m);
    src_free(src);
    diag_free(&d);
    return rc;
  }
  const char *func = m ? pick_func(m, ta->func) : NULL;
  const char *why = NULL;
  SourceFile *space = func && ta->space ? src_from_path(ta->space, &why) : NULL;
  if (ta->space && func && !space) {
    fprintf(stderr, "tvs tune: error: cannot read '%s': %s\n", ta->space, why);
    func = NULL;
  }
  char *generated = NULL, reason[256];
  if (func && ta->target && !ta->space && !(generated = tune_gpu_space(m, func, reason, sizeof reason))) {
    fprintf(stderr, "tvs tune: error: --target %s: no GPU design space is generated (%s); give --space FILE, "
            "a design space whose schedules bind the loops to GPU threads\n", ta->target, reason);
    func = NULL;
  }
  TuneMeasureOptions mo = {ta->threads, ta->budget_ms, ta->timeout_s, ta->fast_math, 1, ta->target, ta->fp_contract, 0};
  TuneMeasurer *t = func ? tune_measurer_new(m, func, &mo, &d) : NULL;
  diag_flush(&d);
  if (t && rank > 0) {
    tune_mpi_worker(m, t);
    rc = 0;
  } else if (t) {
    rc = search_and_report(m, func, t, ta, size, space ? space->text : generated, &d);
  }
  if (rank == 0 && size > 1) tune_mpi_stop_workers();
  tune_measurer_free(t);
  if (m) ir_module_free(m);
  if (space) src_free(space);
  free(generated);
  src_free(src);
  diag_free(&d);
  return rc;
}

int cmd_tune(int argc, char **argv) {
  ToolCommon common = {DIAG_FORMAT_TEXT, -1};
  TuneArgs ta = {0};
  ta.trials = 64, ta.batch = 8, ta.threads = 1, ta.seed = 1, ta.timeout_s = 20, ta.budget_ms = 300;
  TuneOptions defaults = tune_options_default();
  ta.population = defaults.population, ta.generations = defaults.generations, ta.epsilon = defaults.epsilon;
  int rc = 0;
  for (int i = 1; i < argc && !rc; i++) {
    int r = tool_common_option(&common, argc, argv, &i);
    if (r < 0) rc = 2;
    else if (r == 0) rc = parse_tune_arg(&ta, argc, argv, &i);
  }
  if (rc) return rc == 1 ? 0 : rc;
  if (ta.top) {
    if (!ta.db) return tool_usage_error("tune", "--top needs --db FILE");
    return print_top(&ta);
  }
  if (!ta.file) return tool_usage_error("tune", "no input file");
  if (ta.resume && !ta.db) return tool_usage_error("tune", "--resume needs --db FILE");
  int rank = 0, size = 1;
  if (tune_mpi_active()) tune_mpi_init(&argc, &argv, &rank, &size);
  rc = tune_file(&ta, &common, rank, size);
  if (size > 1 || tune_mpi_active()) tune_mpi_finalize();
  return rc;
}
