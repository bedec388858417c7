/* tasks.c - whole-model tuning: the tasks of a graph function are the
 * prim_funcs of its module after the graph passes (legalize, fuse-ops,
 * fuse-tir), deduplicated by structural hash (workload key) and weighted by
 * the number of functions sharing the key.  Each task's default schedule
 * (what the untuned pipeline would run) is measured first and recorded as
 * its baseline, so that applying the database never slows a kernel down and
 * the scheduler knows every task's share of the end-to-end time before any
 * trial.  Trials then go out a batch at a time, as Ansor's task scheduler
 * does: each round to the task whose current time (its best, or its
 * baseline) times its count is largest, divided by one plus the rounds in
 * a row that did not improve it, so a task the space cannot speed up yields
 * to the next.  A task's rounds continue one search through the database
 * (--resume), so its model and history carry over between rounds. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "autotune/tune.h"
#include "base/util.h"
#include "base/vec.h"
#include "driver/run.h"
#include "ir/flops.h"
#include "ir/transform.h"
#include "sched/default_schedule.h"

typedef struct Task {
  const char *func;      /* the first prim_func of the workload */
  char *workload;
  int count;             /* prim_funcs with this workload */
  double flops;
  int trials;            /* given so far */
  double best_ms;        /* 0: none yet */
  double best_gflops;
  double base_ms;        /* the default schedule's time; 0: not measured */
  int stale;             /* rounds in a row without a better time */
  TuneMeasurer *t;
  char *gpu_space;       /* a GPU target's generated space (tune_gpu_space), owned */
  bool dead;             /* no candidate works, or no measurer: no more rounds */
} Task;

static int extract(const IrModule *fused, Task **out, DiagCtx *diag) {
  Task *v = NULL;
  size_t n = 0, cap = 0;
  for (int i = 0; i < fused->nfuncs; i++) {
    const IrGlobal *g = &fused->funcs[i];
    if (g->kind != IR_FUNC_TIR) continue;
    char *key = tune_workload_key(g->tir);
    size_t k = 0;
    while (k < n && strcmp(v[k].workload, key)) k++;
    if (k < n) {
      v[k].count++;
      free(key);
      continue;
    }
    Task t = {g->name, key, 1, tir_count_flops(g->tir, NULL, 0), 0, 0, 0, 0, 0, NULL, NULL, false};
    VEC_PUSH(v, n, cap, t);
  }
  if (!n) diag_error(diag, span_none, "tune: the graph has no kernels to tune");
  *out = v;
  return (int)n;
}

/* The time a task costs the model now: its best or its baseline. */
static double current_ms(const Task *t) {
  return t->best_ms > 0 && (t->base_ms <= 0 || t->best_ms < t->base_ms) ? t->best_ms : t->base_ms;
}

/* How much the task's next round is worth: its share of the end-to-end
 * time, discounted by the rounds that did not improve it.  A task without
 * a baseline and without a round yet comes first (its share is unknown). */
static double priority(const Task *t) {
  double ms = current_ms(t);
  if (ms <= 0) return t->trials == 0 ? 1e300 : 0;
  return ms * t->count / (1 + t->stale);
}

static int pick(const Task *t, int n) {
  int best = -1;
  for (int i = 0; i < n; i++)
    if (!t[i].dead && (best < 0 || priority(&t[i]) > priority(&t[best]))) best = i;
  return best;
}

static bool gpu_target(const TuneOptions *o) { return tir_is_gpu_target(o->target); }

/* Measures the task's default schedule and records it as the baseline (on a
 * GPU target the GPU default schedule of the module, which binds every
 * kernel, the task's among them). */
static void baseline_of(const IrModule *fused, Task *t, const TuneOptions *o, FILE *report) {
  IrModule *m = NULL;
  if (t->t && gpu_target(o)) {
    DiagCtx quiet;
    diag_init(&quiet, NULL);
    m = sch_gpu_default_schedule(fused, &quiet, NULL);
    diag_free(&quiet);
  } else if (t->t) {
    m = sch_default_schedule_one(fused, t->func);
  }
  if (!m) return;
  TuneResult r;
  tune_measure(t->t, m, -1, &r);
  ir_module_free(m);
  if (r.status != TUNE_OK) return; /* a default that fails: the tuned record decides */
  t->base_ms = r.median_ms;
  char *target = o->target ? xstrdup(o->target) : tune_target_string();
  TuneRecord rec = {t->workload, (char *)t->func, target, (char *)"", (char *)"baseline", (char *)"",
                    r.median_ms, r.gflops, o->threads, {0}, NULL};
  if (o->db) tune_db_append(o->db, &rec); /* a failed append shows in the first round's */
  free(target);
  if (report) fprintf(report, "[%s] default schedule: %.2f GFLOP/s (%.4f ms)\n", t->func, r.gflops, r.median_ms);
}

static void round_of(const IrModule *fused, Task *t, const TuneOptions *base, int batch, DiagCtx *diag) {
  TuneOptions o = *base;
  o.transfer = NULL; /* single-function tuning only: a round would reload the log */
  o.func = t->func;
  o.trials = t->trials + batch;
  o.resume = t->trials > 0;
  o.measurer = t->t;
  o.label = t->func;
  if (t->gpu_space) o.space_script = t->gpu_space;
  TuneRun run;
  if (tune_search(fused, &o, &run, diag) == 0) {
    double before = current_ms(t);
    t->best_ms = run.best_ms;
    t->best_gflops = run.best_gflops;
    t->stale = before > 0 && current_ms(t) >= before * 0.98 ? t->stale + 1 : 0;
  } else if (!t->best_ms) {
    t->dead = true;
  }
  t->trials = o.trials;
  tune_run_free(&run);
}

/* *out: fused with the best record of each task applied. */
static int tuned_any(IrModule **out, const IrModule *fused, const char *db, DiagCtx *diag) {
  *out = ir_module_copy(fused);
  int rc = tune_db_apply(out, db, diag);
  if (rc < 0) {
    ir_module_free(*out);
    *out = NULL;
  }
  return rc;
}

int tune_graph(const IrModule *fused, const TuneOptions *base, const TuneMeasureOptions *mo, FILE *report,
               IrModule **tuned, DiagCtx *diag) {
  Task *tasks = NULL;
  int n = extract(fused, &tasks, diag);
  char *tmp_db = NULL;
  TuneOptions o = *base;
  if (!o.db) { /* rounds continue through a database: a scratch one */
    tmp_db = xasprintf("/tmp/tvs_tune_graph_%ld.jsonl", (long)getpid());
    o.db = tmp_db;
  }
  for (int i = 0; i < n; i++) {
    DiagCtx d;
    diag_init(&d, NULL);
    tasks[i].t = tune_measurer_new(fused, tasks[i].func, mo, &d);
    tasks[i].dead = !tasks[i].t;
    if (!tasks[i].t && report)
      fprintf(report, "tune: task %s is skipped: %s\n", tasks[i].func, d.len ? d.items[0].msg : "?");
    diag_free(&d);
    char why[256];
    if (!tasks[i].dead && gpu_target(base) && !base->space_script &&
        !(tasks[i].gpu_space = tune_gpu_space(fused, tasks[i].func, why, sizeof why))) {
      tasks[i].dead = true; /* it keeps its default schedule */
      if (report) fprintf(report, "tune: task %s is skipped: no GPU design space (%s)\n", tasks[i].func, why);
    }
    baseline_of(fused, &tasks[i], &o, base->progress);
  }
  int used = 0, k;
  while (used < base->trials && (k = pick(tasks, n)) >= 0) {
    int batch = base->batch < base->trials - used ? base->batch : base->trials - used;
    round_of(fused, &tasks[k], &o, batch, diag);
    used += batch;
  }
  int ntuned = 0;
  for (int i = 0; i < n; i++) {
    if (report) {
      fprintf(report, "# task %s (x%d, %.3g FLOP): %d trials, best %.2f GFLOP/s (%.4f ms)", tasks[i].func,
              tasks[i].count, tasks[i].flops, tasks[i].trials, tasks[i].best_gflops, tasks[i].best_ms);
      if (tasks[i].base_ms > 0)
        fprintf(report, ", default schedule %.4f ms: %s", tasks[i].base_ms,
                tasks[i].best_ms > 0 && tasks[i].best_ms < tasks[i].base_ms ? "tuned" : "kept");
      fputc('\n', report);
    }
    ntuned += tasks[i].best_ms > 0;
    tune_measurer_free(tasks[i].t);
    free(tasks[i].gpu_space);
    free(tasks[i].workload);
  }
  free(tasks);
  if (tuned) *tuned = NULL;
  if (tuned && ntuned && tuned_any(tuned, fused, o.db, diag) < 0) ntuned = 0;
  if (tmp_db) remove(tmp_db);
  free(tmp_db);
  return n > 0 && ntuned > 0 ? 0 : -1;
}

IrModule *tune_graph_tasks_module(const IrModule *m, DiagCtx *diag) {
  bool graph = false;
  for (int i = 0; i < m->nfuncs; i++) graph |= m->funcs[i].kind == IR_FUNC_RELAX;
  /* up to fuse-tir: the tasks are the fused kernels as yet unscheduled (the
   * default-schedule stage after it would give them the default schedules) */
  return graph ? rx_run_graph_passes(m, rx_graph_pipeline_index("fuse-tir"), diag, NULL, NULL) : ir_module_copy(m);
}
