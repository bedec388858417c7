/* cost_model.c - the learned cost model: gradient-boosted trees through
 * XGBoost's C API, retrained from scratch after every measured batch on all
 * samples so far (a few hundred rows train in milliseconds), with a pairwise
 * ranking objective: the search needs the order of candidates, not their
 * times.  Labels are throughputs normalized by the best so far, as
 * MetaSchedule's XGBModel does; failed candidates count as 0.  Samples of
 * other workloads (transfer learning) train a prior, whose scores this
 * workload's model starts from.  The prior regresses each sample's
 * throughput over its own workload's best (so GFLOP/s scales never meet)
 * with squared error: pairwise ranking samples its pairs from a sequence
 * that runs across groups, so the same history in another workload order
 * gave another prior (replayed, 18 against 55 trials on one kernel). */
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
  float *hx, *hy;      /* other workloads' rows (transfer learning), labels over their workload's best */
  size_t hn, hcap, hycap;
  BoosterHandle booster;
  BoosterHandle prior; /* trained once on the other workloads' rows, or NULL */
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
  if (m->prior) XGBoosterFree(m->prior);
  free(m->x);
  free(m->y);
  free(m->hx);
  free(m->hy);
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
}

bool tune_model_ready(const TuneModel *m) { return m->booster || m->prior; }

static void set_params(BoosterHandle b, bool prior, uint64_t seed) {
  char s[32];
  snprintf(s, sizeof s, "%llu", (unsigned long long)(seed % 1000000007ull));
  XGBoosterSetParam(b, "objective", prior ? "reg:squarederror" : "rank:pairwise");
  XGBoosterSetParam(b, "max_depth", "6");
  XGBoosterSetParam(b, "eta", "0.2");
  /* A prior's leaf holds 5 samples at least (squared error weighs each 1):
   * leaves fitted to one history kernel's quirks sent other kernels' first
   * batches astray (replayed: the conv2d's 46 trials became 30, the
   * softmax's 22 became 2). */
  XGBoosterSetParam(b, "min_child_weight", prior ? "5" : "0");
  XGBoosterSetParam(b, "nthread", "1");
  XGBoosterSetParam(b, "verbosity", "0");
  XGBoosterSetParam(b, "seed", s);
}

/* Trains a booster on rows of x: a prior (regression) or one workload's
 * model (one ranking group), starting from margin when given (a prior's
 * scores: the trees then fit what the prior got wrong). */
static int fit(const float *x, const float *labels, size_t rows, bool prior, const float *margin, uint64_t seed,
               BoosterHandle *out) {
  unsigned group = (unsigned)rows;
  DMatrixHandle dm = NULL;
  BoosterHandle b = NULL;
  int rc = XGDMatrixCreateFromMat(x, rows, TUNE_NFEATURES, -1e30f, &dm) ||
           XGDMatrixSetFloatInfo(dm, "label", labels, rows) ||
           (!prior && XGDMatrixSetUIntInfo(dm, "group", &group, 1)) ||
           (margin && XGDMatrixSetFloatInfo(dm, "base_margin", margin, rows)) || XGBoosterCreate(&dm, 1, &b);
  if (!rc) {
    set_params(b, prior, seed);
    for (int it = 0; it < ROUNDS && !rc; it++) rc = XGBoosterUpdateOneIter(b, it, dm);
  }
  if (dm) XGDMatrixFree(dm);
  if (rc && b) XGBoosterFree(b);
  *out = rc ? NULL : b;
  return rc ? -1 : 0;
}

/* Scores of n rows by b, on top of margin when given. */
static int scores(BoosterHandle b, const float *x, size_t n, const float *margin, float *out) {
  DMatrixHandle dm = NULL;
  bst_ulong len = 0;
  const float *res = NULL;
  int rc = XGDMatrixCreateFromMat(x, (bst_ulong)n, TUNE_NFEATURES, -1e30f, &dm) ||
           (margin && XGDMatrixSetFloatInfo(dm, "base_margin", margin, (bst_ulong)n)) ||
           XGBoosterPredict(b, dm, 0, 0, 0, &len, &res) || len != (bst_ulong)n;
  if (!rc) memcpy(out, res, n * sizeof *out);
  if (dm) XGDMatrixFree(dm);
  return rc ? -1 : 0;
}

/* With other workloads' samples (transfer learning), a prior model is
 * trained on them once, and this workload's model starts from the prior's
 * scores (its base margin), as AutoTVM's XGBoost tuner builds on a model of
 * the history: with few measurements the prior ranks, and as they come in
 * the trees learn where this workload differs.  Before two measurements
 * the prior alone predicts. */
int tune_model_train(TuneModel *m) {
  if (m->hn >= 2 && !m->prior && fit(m->hx, m->hy, m->hn, true, NULL, m->seed, &m->prior))
    return -1;
  if (m->n < 2) return 0;
  float best = 0;
  for (size_t i = 0; i < m->n; i++)
    if (m->y[i] > best) best = m->y[i];
  float *labels = xmalloc(m->n * sizeof *labels), *margin = m->prior ? xmalloc(m->n * sizeof *margin) : NULL;
  for (size_t i = 0; i < m->n; i++) labels[i] = best > 0 ? m->y[i] / best : 0;
  BoosterHandle b = NULL;
  int rc = (margin && scores(m->prior, m->x, m->n, NULL, margin)) ||
           fit(m->x, labels, m->n, false, margin, m->seed, &b);
  free(labels);
  free(margin);
  if (rc) return -1;
  if (m->booster) XGBoosterFree(m->booster);
  m->booster = b;
  return 0;
}

int tune_model_predict(TuneModel *m, const float *feat, int n, float *out) {
  if ((!m->booster && !m->prior) || n <= 0) {
    for (int i = 0; i < n; i++) out[i] = 0;
    return m->booster || m->prior ? 0 : -1;
  }
  if (!m->booster) return scores(m->prior, feat, (size_t)n, NULL, out);
  float *margin = m->prior ? xmalloc((size_t)n * sizeof *margin) : NULL;
  int rc = (margin && scores(m->prior, feat, (size_t)n, NULL, margin)) ||
           scores(m->booster, feat, (size_t)n, margin, out);
  free(margin);
  return rc ? -1 : 0;
}
