/* transfer.c - AutoTVM's transfer learning: a new search's cost model is
 * first trained on an earlier tuning log's measurements of other workloads,
 * so that its first batch is already chosen by the model instead of at
 * random.  The features (features.c) describe loop nests, not one
 * workload's tile sizes, which is what lets them carry over.
 *
 * A log record carries its workload's prim_func text and the candidate's
 * trace; the text is parsed once per workload, each trace replayed onto it
 * and featurized.  Each workload is one ranking group of the model. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autotune/tune.h"
#include "base/source.h"
#include "base/util.h"
#include "base/vec.h"
#include "lang/elab.h"
#include "sched/schedule.h"

/* Samples of one workload: its records' features and throughputs. */
typedef struct Group {
  float *x;
  double *y;
  size_t n, cap, ycap;
} Group;

IrModule *tune_record_workload(const TuneRecord *r) {
  if (!r->prim_func) return NULL;
  SourceFile *src = src_from_string("transfer", r->prim_func, strlen(r->prim_func));
  DiagCtx d;
  diag_init(&d, NULL);
  IrModule *m = src ? tvs_load_module(src, &d) : NULL;
  diag_free(&d);
  if (src) src_free(src);
  return m;
}

int tune_record_features(const IrModule *m, const TuneRecord *r, float *out) {
  DiagCtx d;
  diag_init(&d, NULL);
  IrModule *cand = sch_trace_replay(m, r->trace, &d);
  int rc = cand ? tune_features(cand, r->func, out) : -1;
  if (cand) ir_module_free(cand);
  diag_free(&d);
  return rc;
}

/* Adds the records of db with workload key (from index first on) to g. */
static void featurize_workload(const TuneDb *db, int first, Group *g) {
  const TuneRecord *r0 = &db->r[first];
  IrModule *m = tune_record_workload(r0);
  for (int i = first; m && i < db->n; i++) {
    const TuneRecord *r = &db->r[i];
    if (strcmp(r->workload, r0->workload) || !strcmp(r->status, "baseline") || !*r->trace) continue;
    float f[TUNE_NFEATURES];
    if (tune_record_features(m, r, f) == 0) {
      VEC_RESERVE(g->x, g->cap, (g->n + 1) * TUNE_NFEATURES);
      VEC_RESERVE(g->y, g->ycap, g->n + 1);
      memcpy(g->x + g->n * TUNE_NFEATURES, f, sizeof f);
      g->y[g->n++] = tune_throughput(!strcmp(r->status, "ok"), r->gflops, r->median_ms);
    }
  }
  if (m) ir_module_free(m);
}

int tune_transfer_load(TuneModel *model, const char *path, const char *skip_workload, int *nrecords,
                       int *nskipped, DiagCtx *diag) {
  *nrecords = *nskipped = 0;
  TuneDb db;
  /* A missing log is an empty database to tune_db_load, but here a mistake. */
  FILE *f = fopen(path, "r");
  if (f) fclose(f);
  if (!f || tune_db_load(path, &db)) {
    diag_error(diag, span_none, "tune: cannot read the transfer log '%s': %s", path, strerror(errno));
    return -1;
  }
  *nskipped = db.skipped;
  /* Each workload once, in the order of its first record. */
  for (int i = 0; i < db.n; i++) {
    const TuneRecord *r = &db.r[i];
    if (!r->prim_func || (skip_workload && !strcmp(r->workload, skip_workload))) continue;
    bool earlier = false;
    for (int k = 0; k < i && !earlier; k++) earlier = db.r[k].prim_func && !strcmp(db.r[k].workload, r->workload);
    if (earlier) continue;
    Group g = {0};
    featurize_workload(&db, i, &g);
    /* A group ranks nothing unless two of its samples differ. */
    bool differs = false;
    for (size_t k = 1; k < g.n && !differs; k++) differs = g.y[k] != g.y[0];
    if (differs) {
      tune_model_add_group(model, g.x, g.y, (int)g.n);
      *nrecords += (int)g.n;
    }
    free(g.x);
    free(g.y);
  }
  tune_db_free(&db);
  return 0;
}
