/* tasks.c - whole-model tuning: the tasks of a graph function are the
 * prim_funcs of its module after the graph passes (legalize, fuse-ops,
 * fuse-tir), deduplicated by structural hash (workload key) and weighted by
 * FLOPs times the number of functions sharing the key.  Trials go out a
 * batch at a time, as Ansor's task scheduler does: one round per task
 * first, then each round to the task whose best time times its weight
 * (its share of the end-to-end time) is largest.  A task's rounds continue
 * one search through the database (--resume), so its model and history
 * carry over between rounds. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "autotune/tune.h"
#include "base/util.h"
#include "base/vec.h"
#include "driver/run.h"
#include "ir/flops.h"
#include "ir/transform.h"

typedef struct Task {
  const char *func;      /* the first prim_func of the workload */
  char *workload;
  int count;             /* prim_funcs with this workload */
  double flops;
  int trials;            /* given so far */
  double best_ms;        /* 0: none yet */
  double best_gflops;
  TuneMeasurer *t;
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
    Task t = {g->name, key, 1, tir_count_flops(g->tir, NULL, 0), 0, 0, 0, NULL, false};
    VEC_PUSH(v, n, cap, t);
  }
  if (!n) diag_error(diag, span_none, "tune: the graph has no kernels to tune");
  *out = v;
  return (int)n;
}

/* The task whose next round buys the most: any task without a round yet,
 * else the largest best_ms x count. */
static int pick(const Task *t, int n) {
  int best = -1;
  for (int i = 0; i < n; i++) {
    if (t[i].dead) continue;
    if (t[i].trials == 0) return i;
    if (best < 0 || t[i].best_ms * t[i].count > t[best].best_ms * t[best].count) best = i;
  }
  return best;
}

static void round_of(const IrModule *fused, Task *t, const TuneOptions *base, int batch, DiagCtx *diag) {
  TuneOptions o = *base;
  o.func = t->func;
  o.trials = t->trials + batch;
  o.resume = t->trials > 0;
  o.measurer = t->t;
  o.label = t->func;
  TuneRun run;
  if (tune_search(fused, &o, &run, diag) == 0) {
    t->best_ms = run.best_ms;
    t->best_gflops = run.best_gflops;
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
  }
  int used = 0, k;
  while (used < base->trials && (k = pick(tasks, n)) >= 0) {
    int batch = base->batch < base->trials - used ? base->batch : base->trials - used;
    round_of(fused, &tasks[k], &o, batch, diag);
    used += batch;
  }
  int ntuned = 0;
  for (int i = 0; i < n; i++) {
    if (report)
      fprintf(report, "# task %s (x%d, %.3g FLOP): %d trials, best %.2f GFLOP/s (%.4f ms)\n", tasks[i].func,
              tasks[i].count, tasks[i].flops, tasks[i].trials, tasks[i].best_gflops, tasks[i].best_ms);
    ntuned += tasks[i].best_ms > 0;
    tune_measurer_free(tasks[i].t);
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
