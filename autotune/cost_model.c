/* cost_model.c - the learned cost model: gradient-boosted trees through
 * XGBoost's C API, retrained from scratch after every measured batch on all
 * samples so far (a few hundred rows train in milliseconds), with a pairwise
 * ranking objective: the search needs the order of candidates, not their
 * times.  Labels are throughputs normalized by the best so far, as
 * MetaSchedule's XGBModel does; failed candidates count as 0.  Samples of
 * other workloads (transfer learning) are groups of their own: pairs are
 * only ranked within a workload, so their GFLOP/s scales never meet. */
#include <stdlib.h>
#include <string.h>
#include <xgboost/c_api.h>

#include "autotune/tune.h"
#include "base/util.h"
#include "base/vec.h"

#define ROUNDS 40

struct TuneModel {
  float *x;            /* rows of TUNE_NFEATURES */
  float *y;            /* throughput per row */
  size_t n, cap, ycap;
  float *hx, *hy;      /* other workloads' rows (transfer learning), labels normalized */
  size_t hn, hcap, hycap;
  unsigned *groups;    /* their group sizes, one per workload */
  size_t ngroups, gcap;
  BoosterHandle booster;
  uint64_t seed;
};

TuneModel *tune_model_new(uint64_t seed) {
  TuneModel *m = xcalloc(1, sizeof *m);
  m->seed = seed;
  return m;
}

void tune_model_free(TuneModel *m) {
  if (!m) return;
  if (m->booster) XGBoosterFree(m->booster);
  free(m->x);
  free(m->y);
  free(m->hx);
  free(m->hy);
  free(m->groups);
  free(m);
}

void tune_model_add(TuneModel *m, const float *feat, double gflops) {
  VEC_RESERVE(m->x, m->cap, (m->n + 1) * TUNE_NFEATURES);
  VEC_RESERVE(m->y, m->ycap, m->n + 1);
  memcpy(m->x + m->n * TUNE_NFEATURES, feat, TUNE_NFEATURES * sizeof *feat);
  m->y[m->n++] = (float)gflops;
}

void tune_model_add_group(TuneModel *m, const float *feat, const double *perf, int n) {
  if (n <= 0) return;
  double best = 0;
  for (int i = 0; i < n; i++)
    if (perf[i] > best) best = perf[i];
  VEC_RESERVE(m->hx, m->hcap, (m->hn + (size_t)n) * TUNE_NFEATURES);
  VEC_RESERVE(m->hy, m->hycap, m->hn + (size_t)n);
  memcpy(m->hx + m->hn * TUNE_NFEATURES, feat, (size_t)n * TUNE_NFEATURES * sizeof *feat);
  for (int i = 0; i < n; i++) m->hy[m->hn + (size_t)i] = best > 0 ? (float)(perf[i] / best) : 0;
  m->hn += (size_t)n;
  VEC_PUSH(m->groups, m->ngroups, m->gcap, (unsigned)n);
}

bool tune_model_ready(const TuneModel *m) { return m->booster != NULL; }

static void set_params(BoosterHandle b, uint64_t seed) {
  char s[32];
  snprintf(s, sizeof s, "%llu", (unsigned long long)(seed % 1000000007ull));
  XGBoosterSetParam(b, "objective", "rank:pairwise");
  XGBoosterSetParam(b, "max_depth", "6");
  XGBoosterSetParam(b, "eta", "0.2");
  XGBoosterSetParam(b, "min_child_weight", "0");
  XGBoosterSetParam(b, "nthread", "1");
  XGBoosterSetParam(b, "verbosity", "0");
  XGBoosterSetParam(b, "seed", s);
}

/* Rows are the other workloads' groups first, then this workload's. */
int tune_model_train(TuneModel *m) {
  size_t own = m->n >= 2 ? m->n : 0, rows = m->hn + own;
  if (rows < 2) return 0;
  float best = 0;
  for (size_t i = 0; i < own; i++)
    if (m->y[i] > best) best = m->y[i];
  float *x = xmalloc(rows * TUNE_NFEATURES * sizeof *x), *labels = xmalloc(rows * sizeof *labels);
  unsigned *groups = xmalloc((m->ngroups + 1) * sizeof *groups);
  if (m->hn) memcpy(x, m->hx, m->hn * TUNE_NFEATURES * sizeof *x);
  if (own) memcpy(x + m->hn * TUNE_NFEATURES, m->x, own * TUNE_NFEATURES * sizeof *x);
  if (m->hn) memcpy(labels, m->hy, m->hn * sizeof *labels);
  for (size_t i = 0; i < own; i++) labels[m->hn + i] = best > 0 ? m->y[i] / best : 0;
  size_t ng = m->ngroups;
  if (ng) memcpy(groups, m->groups, ng * sizeof *groups);
  if (own) groups[ng++] = (unsigned)own;
  DMatrixHandle dm = NULL;
  BoosterHandle b = NULL;
  int rc = XGDMatrixCreateFromMat(x, rows, TUNE_NFEATURES, -1e30f, &dm) ||
           XGDMatrixSetFloatInfo(dm, "label", labels, rows) || XGDMatrixSetUIntInfo(dm, "group", groups, ng) ||
           XGBoosterCreate(&dm, 1, &b);
  if (!rc) {
    set_params(b, m->seed);
    for (int it = 0; it < ROUNDS && !rc; it++) rc = XGBoosterUpdateOneIter(b, it, dm);
  }
  free(x);
  free(labels);
  free(groups);
  if (dm) XGDMatrixFree(dm);
  if (rc) {
    if (b) XGBoosterFree(b);
    return -1;
  }
  if (m->booster) XGBoosterFree(m->booster);
  m->booster = b;
  return 0;
}

int tune_model_predict(TuneModel *m, const float *feat, int n, float *out) {
  if (!m->booster || n <= 0) {
    for (int i = 0; i < n; i++) out[i] = 0;
    return m->booster ? 0 : -1;
  }
  DMatrixHandle dm = NULL;
  bst_ulong len = 0;
  const float *res = NULL;
  if (XGDMatrixCreateFromMat(feat, (bst_ulong)n, TUNE_NFEATURES, -1e30f, &dm) ||
      XGBoosterPredict(m->booster, dm, 0, 0, 0, &len, &res) || len != (bst_ulong)n) {
    if (dm) XGDMatrixFree(dm);
    return -1;
  }
  memcpy(out, res, (size_t)n * sizeof *out);
  XGDMatrixFree(dm);
  return 0;
}
