/* spread.c - farthest-point sampling over feature rows, the search's
 * space-filling first batch (search.c): of many random draws, the few that
 * lie farthest apart, so that a model trained on them has seen each knob
 * move.  Features are scaled by their range, since their units (log2
 * counts, loop depths) differ. */
#include <math.h>
#include <stdlib.h>

#include "autotune/tune.h"
#include "base/util.h"

static double dist2(const float *a, const float *b, const float *range) {
  double d = 0;
  for (int j = 0; j < TUNE_NFEATURES; j++)
    if (range[j] > 0) {
      double t = (a[j] - b[j]) / range[j];
      d += t * t;
    }
  return d;
}

size_t tune_spread(const float *x, size_t n, const float *fixed, size_t nfixed, size_t want, size_t *picks) {
  float lo[TUNE_NFEATURES], hi[TUNE_NFEATURES], range[TUNE_NFEATURES];
  for (int j = 0; j < TUNE_NFEATURES; j++) lo[j] = INFINITY, hi[j] = -INFINITY;
  for (size_t i = 0; i < n + nfixed; i++) {
    const float *f = i < n ? x + i * TUNE_NFEATURES : fixed + (i - n) * TUNE_NFEATURES;
    for (int j = 0; j < TUNE_NFEATURES; j++) lo[j] = fminf(lo[j], f[j]), hi[j] = fmaxf(hi[j], f[j]);
  }
  for (int j = 0; j < TUNE_NFEATURES; j++) range[j] = hi[j] > lo[j] ? hi[j] - lo[j] : 0;
  /* mind[i]: row i's distance to the nearest chosen row; -1 once picked */
  double *mind = xmalloc((n ? n : 1) * sizeof *mind);
  for (size_t i = 0; i < n; i++) {
    mind[i] = INFINITY;
    for (size_t k = 0; k < nfixed; k++)
      mind[i] = fmin(mind[i], dist2(x + i * TUNE_NFEATURES, fixed + k * TUNE_NFEATURES, range));
  }
  size_t np = 0;
  while (np < want) {
    size_t far = n; /* ties keep the first: with nothing chosen, x's first row */
    for (size_t i = 0; i < n; i++)
      if (mind[i] >= 0 && (far == n || mind[i] > mind[far])) far = i;
    if (far == n) break;
    picks[np++] = far;
    mind[far] = -1;
    for (size_t i = 0; i < n; i++)
      if (mind[i] >= 0) mind[i] = fmin(mind[i], dist2(x + i * TUNE_NFEATURES, x + far * TUNE_NFEATURES, range));
  }
  free(mind);
  return np;
}
