/* replay_model.c - the cost model judged offline, on measurements already
 * made: a search's trials are replayed from tuning logs instead of run.
 *
 * Every ok/failed record of a workload in the logs (its trace replayed onto
 * the record's prim_func text, then featurized, as transfer learning does)
 * is one point of a pool; a point measured several times gets its median.
 * A simulated search then draws from the pool as tvs tune draws from the
 * space: a first batch spread over 128 random draws (--spread 0: at
 * random), then rounds in which the model (trained on
 * the points drawn so far, their logged throughputs as labels) picks the
 * best-predicted unmeasured points, with an epsilon share at random.  It
 * counts the trials until a point reaches 90% of the pool's best, over many
 * seeds, against random draws without replacement, whose expectation is
 * (N + 1) / (K + 1) for K of N points at the mark.
 *
 * A model search's log leans toward what its model liked; random-search
 * logs (tvs tune --search random --db) make fair pools.  The figures
 * compare cost models, features and first batches with one another in
 * seconds; compare_search.py measures the search against chance, in half
 * an hour per seed.  --transfer trains each workload's model
 * first on the other workloads' pools (leave-one-out), as
 * compare_search.py --transfer-from does.
 *
 * usage: bench_tune_replay [--seeds N] [--trials N] [--batch N] [--eps E]
 *                          [--mark F] [--spread M] [--transfer] [--history LOG]... [--dump CSV]
 *                          LOG.jsonl...
 * --history LOG (repeatable): workloads that train every replayed
 * workload's prior and are not replayed themselves, as a history of other
 * kernels given to compare_search.py --history does. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autotune/tune.h"
#include "base/util.h"
#include "base/vec.h"

/* One workload's distinct measured points. */
typedef struct Pool {
  char *workload, *func;
  float *x;        /* features, TUNE_NFEATURES per point */
  double *y;       /* throughput per point (0: failed) */
  char **trace;    /* the key of a point while the pool is built */
  double **ys;     /* every throughput logged for a point, for its median */
  int *nys;
  size_t n, cap;
  bool history;    /* from --history: trains priors, is not itself replayed */
} Pool;

static uint64_t rng_next(uint64_t *s) {
  uint64_t x = *s;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return *s = x;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static Pool *find_pool(Pool **pools, size_t *np, size_t *cap, const TuneRecord *r) {
  for (size_t i = 0; i < *np; i++)
    if (!strcmp((*pools)[i].workload, r->workload)) return &(*pools)[i];
  Pool p = {0};
  p.workload = xstrdup(r->workload);
  p.func = xstrdup(r->func);
  VEC_PUSH(*pools, *np, *cap, p);
  return &(*pools)[*np - 1];
}

/* Adds the records of one log to the pools. */
static int load_log(const char *path, Pool **pools, size_t *np, size_t *cap) {
  TuneDb db;
  FILE *probe = fopen(path, "r"); /* tune_db_load takes a missing file for an empty log */
  if (probe) fclose(probe);
  if (!probe || tune_db_load(path, &db)) {
    fprintf(stderr, "replay: cannot read '%s'\n", path);
    return -1;
  }
  IrModule *m = NULL;
  const char *mtext = NULL;
  int added = 0; /* records of this log in the pools */
  for (int i = 0; i < db.n; i++) {
    const TuneRecord *r = &db.r[i];
    if (!r->prim_func || !strcmp(r->status, "baseline") || !*r->trace) continue;
    if (!mtext || strcmp(mtext, r->prim_func)) { /* records of one workload come together */
      if (m) ir_module_free(m);
      m = tune_record_workload(r);
      mtext = r->prim_func;
    }
    if (!m) continue;
    Pool *p = find_pool(pools, np, cap, r);
    double y = tune_throughput(!strcmp(r->status, "ok"), r->gflops, r->median_ms);
    size_t k = 0;
    while (k < p->n && strcmp(p->trace[k], r->trace)) k++;
    if (k == p->n) {
      float f[TUNE_NFEATURES];
      if (tune_record_features(m, r, f)) continue;
      if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        p->x = xrealloc(p->x, p->cap * TUNE_NFEATURES * sizeof *p->x);
        p->trace = xrealloc(p->trace, p->cap * sizeof *p->trace);
        p->ys = xrealloc(p->ys, p->cap * sizeof *p->ys);
        p->nys = xrealloc(p->nys, p->cap * sizeof *p->nys);
      }
      memcpy(p->x + p->n * TUNE_NFEATURES, f, sizeof f);
      p->trace[p->n] = xstrdup(r->trace);
      p->ys[p->n] = NULL;
      p->nys[p->n] = 0;
      p->n++;
    }
    p->ys[k] = xrealloc(p->ys[k], (size_t)(p->nys[k] + 1) * sizeof **p->ys);
    p->ys[k][p->nys[k]++] = y;
    added++;
  }
  if (m) ir_module_free(m);
  int skipped = db.skipped;
  tune_db_free(&db);
  if (!added) { /* nothing to replay: not a tuning log, or one without prim_func texts */
    fprintf(stderr, "replay: '%s' holds no record to replay (%d line%s did not parse)\n", path, skipped,
            skipped == 1 ? "" : "s");
    return -1;
  }
  return 0;
}

static void finish_pool(Pool *p) {
  p->y = xmalloc((p->n ? p->n : 1) * sizeof *p->y);
  for (size_t i = 0; i < p->n; i++) {
    qsort(p->ys[i], (size_t)p->nys[i], sizeof **p->ys, cmp_double);
    p->y[i] = p->ys[i][p->nys[i] / 2];
    free(p->ys[i]);
    free(p->trace[i]);
  }
  free(p->ys);
  free(p->trace);
  free(p->nys);
  p->ys = NULL, p->trace = NULL, p->nys = NULL;
}

typedef struct Opts {
  int seeds, trials, batch;
  double eps, mark;
  bool transfer;
  const char *dump;  /* --dump FILE: the pools as CSV (workload, throughput, features) */
  int spread;        /* --spread M: the first batch spread over M random draws, as
                        tvs tune's is over 128 (search.c); 0: drawn at random */
} Opts;

/* Draws an unmeasured point at random; -1 when none is left. */
static int draw_random(const Pool *p, const bool *taken, uint64_t *rng) {
  size_t left = 0;
  for (size_t i = 0; i < p->n; i++) left += !taken[i];
  if (!left) return -1;
  size_t k = rng_next(rng) % left;
  for (size_t i = 0; i < p->n; i++)
    if (!taken[i] && k-- == 0) return (int)i;
  return -1;
}

/* want points (np already in picks) spread over m random draws by
 * tune_spread, as tvs tune spreads its first batch. */
static int spread(const Pool *p, bool *taken, uint64_t *rng, int m, int want, int *picks, int np) {
  int *d = xmalloc((size_t)m * sizeof *d), nd = 0;
  for (; nd < m; nd++) {
    int r = draw_random(p, taken, rng);
    if (r < 0) break;
    d[nd] = r;
    taken[r] = true;
  }
  for (int i = 0; i < nd; i++) taken[d[i]] = false;
  float *x = xmalloc((size_t)(nd ? nd : 1) * TUNE_NFEATURES * sizeof *x);
  float *fixed = xmalloc((size_t)(np ? np : 1) * TUNE_NFEATURES * sizeof *fixed);
  for (int i = 0; i < nd; i++)
    memcpy(x + (size_t)i * TUNE_NFEATURES, p->x + (size_t)d[i] * TUNE_NFEATURES, TUNE_NFEATURES * sizeof *x);
  for (int k = 0; k < np; k++)
    memcpy(fixed + (size_t)k * TUNE_NFEATURES, p->x + (size_t)picks[k] * TUNE_NFEATURES, TUNE_NFEATURES * sizeof *x);
  size_t *idx = xmalloc((size_t)(want > np ? want - np : 1) * sizeof *idx);
  size_t got = want > np ? tune_spread(x, (size_t)nd, fixed, (size_t)np, (size_t)(want - np), idx) : 0;
  for (size_t k = 0; k < got; k++) {
    picks[np++] = d[idx[k]];
    taken[d[idx[k]]] = true;
  }
  free(d);
  free(x);
  free(fixed);
  free(idx);
  return np;
}

/* The trial (1-based) at which one simulated search first reaches target;
 * trials + 1 when it does not. */
static int simulate(const Pool *pools, size_t np, size_t w, const Opts *o, uint64_t seed, double target) {
  const Pool *p = &pools[w];
  TuneModel *model = tune_model_new(seed);
  bool prior = false;
  for (size_t k = 0; k < np; k++)
    if (k != w && (pools[k].history || o->transfer)) {
      tune_model_add_group(model, pools[k].x, pools[k].y, (int)pools[k].n);
      prior = true;
    }
  if (prior) tune_model_train(model);
  bool *taken = xcalloc(p->n, sizeof *taken);
  float *score = xmalloc(p->n * sizeof *score);
  int *order = xmalloc(p->n * sizeof *order);
  uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 1;
  int trial = 0, hit = o->trials + 1;
  while (trial < o->trials && hit > o->trials) {
    int want = o->batch, nrandom = tune_model_ready(model) ? (int)ceil(o->batch * o->eps) : o->batch;
    int picks[256], npick = 0;
    if (nrandom < want) {
      tune_model_predict(model, p->x, (int)p->n, score);
      int no = 0;
      for (size_t i = 0; i < p->n; i++)
        if (!taken[i]) order[no++] = (int)i;
      /* the want - nrandom best-scored, ties broken at random as a pool's order would */
      int ktop = want - nrandom;
      for (int k = 0; k < ktop && k < no; k++) {
        int best = k;
        for (int j = k + 1; j < no; j++)
          if (score[order[j]] > score[order[best]] ||
              (score[order[j]] == score[order[best]] && (rng_next(&rng) & 1)))
            best = j;
        int t = order[k];
        order[k] = order[best], order[best] = t;
      }
      for (int k = 0; k < ktop && k < no; k++) picks[npick++] = order[k], taken[order[k]] = true;
    }
    if (o->spread > want && !tune_model_ready(model))
      npick = spread(p, taken, &rng, o->spread, want, picks, npick);
    while (npick < want) {
      int r = draw_random(p, taken, &rng);
      if (r < 0) break;
      taken[r] = true;
      picks[npick++] = r;
    }
    if (!npick) break;
    for (int k = 0; k < npick && trial < o->trials; k++) {
      trial++;
      if (p->y[picks[k]] >= target && hit > o->trials) hit = trial;
      tune_model_add(model, p->x + (size_t)picks[k] * TUNE_NFEATURES, p->y[picks[k]]);
    }
    tune_model_train(model);
  }
  tune_model_free(model);
  free(taken);
  free(score);
  free(order);
  return hit;
}

static int dump_csv(const char *path, const Pool *pools, size_t np) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "replay: cannot write '%s'\n", path);
    return -1;
  }
  fprintf(f, "func,throughput");
  for (int j = 0; j < TUNE_NFEATURES; j++) {
    const char *name = tune_feature_name(j);
    if (name) fprintf(f, ",%s", name);
    else fprintf(f, ",slot%d", j); /* a slot no feature uses yet */
  }
  fputc('\n', f);
  for (size_t w = 0; w < np; w++)
    for (size_t i = 0; i < pools[w].n; i++) {
      fprintf(f, "%s,%g", pools[w].func, pools[w].y[i]);
      for (int j = 0; j < TUNE_NFEATURES; j++) fprintf(f, ",%g", pools[w].x[i * TUNE_NFEATURES + j]);
      fputc('\n', f);
    }
  return fclose(f) ? -1 : 0;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* Frees the pools, finished (finish_pool) or not. */
static void free_pools(Pool *pools, size_t np) {
  for (size_t w = 0; w < np; w++) {
    Pool *p = &pools[w];
    for (size_t i = 0; p->trace && i < p->n; i++) free(p->trace[i]), free(p->ys[i]);
    free(p->trace);
    free(p->ys);
    free(p->nys);
    free(p->workload);
    free(p->func);
    free(p->x);
    free(p->y);
  }
  free(pools);
}

int main(int argc, char **argv) {
  Opts o = {100, 128, 8, 0.05, 0.9, false, NULL, 128};
  int *logs = xmalloc((size_t)argc * sizeof *logs), nlogs = 0; /* argv indices of the logs */
  int *hist = xmalloc((size_t)argc * sizeof *hist), nhist = 0; /* and of the --history logs */
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--seeds") && i + 1 < argc) o.seeds = atoi(argv[++i]);
    else if (!strcmp(a, "--trials") && i + 1 < argc) o.trials = atoi(argv[++i]);
    else if (!strcmp(a, "--batch") && i + 1 < argc) o.batch = atoi(argv[++i]);
    else if (!strcmp(a, "--eps") && i + 1 < argc) o.eps = atof(argv[++i]);
    else if (!strcmp(a, "--mark") && i + 1 < argc) o.mark = atof(argv[++i]);
    else if (!strcmp(a, "--transfer")) o.transfer = true;
    else if (!strcmp(a, "--history") && i + 1 < argc) hist[nhist++] = ++i;
    else if (!strcmp(a, "--dump") && i + 1 < argc) o.dump = argv[++i];
    else if (!strcmp(a, "--spread") && i + 1 < argc) o.spread = atoi(argv[++i]);
    else if (a[0] == '-') {
      fprintf(stderr,
              "usage: %s [--seeds N] [--trials N] [--batch N] [--eps E] [--mark F] [--spread M] [--transfer]"
              " [--history LOG]... [--dump CSV] LOG...\n",
              argv[0]);
      free(logs);
      free(hist);
      return 2;
    } else
      logs[nlogs++] = i;
  }
  if (o.seeds < 1 || o.trials < 1 || o.batch < 1 || o.batch > 256 || o.eps < 0 || o.eps > 1 || o.spread < 0) {
    fprintf(stderr, "replay: bad option value\n");
    free(logs);
    free(hist);
    return 2;
  }
  Pool *pools = NULL;
  size_t np = 0, cap = 0;
  int rc = 0;
  for (int i = 0; i < nhist && !rc; i++) rc = load_log(argv[hist[i]], &pools, &np, &cap);
  size_t nhistory = np;
  for (int i = 0; i < nlogs && !rc; i++) rc = load_log(argv[logs[i]], &pools, &np, &cap);
  free(logs);
  free(hist);
  for (size_t w = 0; w < nhistory; w++) pools[w].history = true;
  if (!rc && np == nhistory) { /* the replayed logs' workloads were all in the history */
    fprintf(stderr, "replay: no workload to replay apart from the history's\n");
    rc = 1;
  }
  if (rc) {
    free_pools(pools, np);
    return 1;
  }
  for (size_t w = 0; w < np; w++) finish_pool(&pools[w]);
  if (o.dump && dump_csv(o.dump, pools, np)) {
    free_pools(pools, np);
    return 1;
  }
  printf("%-16s %6s %5s %9s %8s %8s  %s\n", "func", "points", "at mark", "random", "median", "mean",
         "seeds within half of random");
  for (size_t w = 0; w < np; w++) {
    const Pool *p = &pools[w];
    if (p->history) continue;
    double best = 0;
    for (size_t i = 0; i < p->n; i++)
      if (p->y[i] > best) best = p->y[i];
    double target = o.mark * best;
    int k = 0;
    for (size_t i = 0; i < p->n; i++) k += p->y[i] >= target;
    double rexp = (double)(p->n + 1) / (k + 1);
    int *hits = xmalloc((size_t)o.seeds * sizeof *hits), won = 0;
    double sum = 0;
    for (int s = 0; s < o.seeds; s++) {
      hits[s] = simulate(pools, np, w, &o, (uint64_t)s + 1, target);
      sum += hits[s];
      won += hits[s] <= rexp / 2;
    }
    qsort(hits, (size_t)o.seeds, sizeof *hits, cmp_int);
    printf("%-16s %6zu %7d %9.1f %8d %8.1f  %d of %d\n", p->func, p->n, k, rexp, hits[o.seeds / 2],
           sum / o.seeds, won, o.seeds);
    free(hits);
  }
  free_pools(pools, np);
  return 0;
}
