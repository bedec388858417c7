/* search.c - the tuning loop: rounds of (choose a batch, measure it, record
 * it, retrain the cost model), as MetaSchedule's EvolutionarySearch runs.
 *
 * Choosing a batch: in random mode fresh random points of the design
 * space; before the model is trained, the evolutionary search's first batch
 * spread over the space (add_spread) and the analytic candidate
 * (analytic.c).
 * After: a population of the best measured candidates plus fresh ones is
 * evolved for a few generations by mutation (tune_mutate), parents drawn by
 * the model's predicted score;
 * the batch is the best-predicted unmeasured candidates, with an epsilon
 * share of fresh random ones (epsilon-greedy).  Every measurement goes to
 * the database as it completes; all randomness comes from o->seed. */
#include <math.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#include "autotune/tune.h"
#include "base/util.h"
#include "base/vec.h"
#include "driver/run.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "ir/transform.h"

/* A candidate with its features, predicted score and module hash. */
typedef struct Entry {
  TuneCandidate c;
  float feat[TUNE_NFEATURES];
  float score;
  uint64_t key;   /* structural hash of the scheduled module */
} Entry;

typedef struct Search {
  const IrModule *m;
  const TuneOptions *o;
  DiagCtx *diag;
  TuneModel *model;
  uint64_t rng;
  uint64_t *seen;            /* module hashes measured or queued */
  size_t nseen, capseen;
  TuneDecisions *mdec;       /* measured ok candidates, best first */
  double *mgf;
  size_t nm, capm, capg;
  TuneRun *out;
  double t0;
  char *workload, *target;
  char *func_text;           /* the workload's TVMScript text, for the records */
  bool db_failed;            /* an append to o->db failed: reported once, fails the run */
  bool resuming;             /* replaying --resume records: no progress lines */
  bool analytic;             /* analytic_dec waits for the first batch */
  TuneDecisions analytic_dec;
  char analytic_what[160];   /* what the analytic model chose, for the log */
  int nrefused;              /* sampled GPU candidates gpu_postproc.c dropped */
  char refused_why[160];     /* the first one's reason */
} Search;

static uint64_t rnd(Search *s) {
  uint64_t x = s->rng;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return s->rng = x;
}

static bool seen(const Search *s, uint64_t h) {
  for (size_t i = 0; i < s->nseen; i++)
    if (s->seen[i] == h) return true;
  return false;
}

static void mark_seen(Search *s, uint64_t h) { VEC_PUSH(s->seen, s->nseen, s->capseen, h); }

static void entry_free(Entry *e) { tune_candidate_free(&e->c); }

/* A candidate of the space (dec NULL: sampled), or false when the space
 * refuses it or, on a GPU target unless resuming, the postprocessor does. */
static bool make_entry(Search *s, const TuneDecisions *dec, Entry *e) {
  DiagCtx d;
  diag_init(&d, NULL);
  int64_t seed = (int64_t)(rnd(s) & 0x7fffffff);
  int rc = s->o->space_script ? tune_space_script(s->m, s->o->func, s->o->space_script, dec, seed, &e->c, &d)
                              : tune_space_generate(s->m, s->o->func, dec, seed, &e->c, &d);
  bool ok = rc == 0;
  diag_free(&d);
  char why[160];
  if (ok && !s->resuming && tir_is_gpu_target(s->o->target) &&
      tune_gpu_postproc(e->c.mod, s->o->func, why, sizeof why)) {
    if (!s->nrefused++) snprintf(s->refused_why, sizeof s->refused_why, "%s", why);
    ok = false;
  }
  ok = ok && tune_features(e->c.mod, s->o->func, e->feat) == 0;
  if (!ok) tune_candidate_free(&e->c);
  e->score = 0;
  e->key = ok ? shash_module(e->c.mod) : 0;
  return ok;
}

/* Whether e's module is measured, queued, or among v[0..n). */
static bool duplicate(const Search *s, const Entry *e, const Entry *v, size_t n) {
  bool dup = seen(s, e->key);
  for (size_t i = 0; i < n && !dup; i++) dup = v[i].key == e->key;
  return dup;
}

/* Fresh random candidates not seen, into v (up to want more).  Candidates
 * are told apart by their modules, not their decisions, as MetaSchedule's
 * search does: decisions that differ only where they change nothing (an
 * unroll depth past the product of the loops it may unroll) make one
 * module, and measuring it again would spend a trial on nothing. */
static void add_random(Search *s, Entry **v, size_t *n, size_t *cap, size_t want) {
  for (size_t tries = 0; want > 0 && tries < want * 6 + 8; tries++) {
    Entry e;
    if (!make_entry(s, NULL, &e)) continue;
    bool dup = duplicate(s, &e, *v, *n);
    if (dup) {
      entry_free(&e);
      continue;
    }
    VEC_PUSH(*v, *n, *cap, e);
    want--;
  }
}

static int by_score(const void *a, const void *b) {
  float x = ((const Entry *)a)->score, y = ((const Entry *)b)->score;
  return x < y ? 1 : x > y ? -1 : 0;
}

static void predict(Search *s, Entry *v, size_t n) {
  if (!n) return;
  float *x = xmalloc(n * TUNE_NFEATURES * sizeof *x), *y = xmalloc(n * sizeof *y);
  for (size_t i = 0; i < n; i++) memcpy(x + i * TUNE_NFEATURES, v[i].feat, sizeof v[i].feat);
  if (tune_model_predict(s->model, x, (int)n, y) == 0)
    for (size_t i = 0; i < n; i++) v[i].score = y[i];
  free(x);
  free(y);
}

/* One evolution step: children of parents drawn (tournament of two by
 * score) from pop[0..n), appended to pop. */
static void evolve(Search *s, Entry **pop, size_t *n, size_t *cap, size_t nchildren) {
  size_t n0 = *n;
  for (size_t k = 0, tries = 0; k < nchildren && n0 && tries < nchildren * 4; tries++) {
    const Entry *a = &(*pop)[rnd(s) % n0], *b = &(*pop)[rnd(s) % n0];
    TuneDecisions child;
    if (!tune_mutate(&(a->score >= b->score ? a : b)->c.dec, &s->rng, &child)) continue;
    uint64_t h = tune_decisions_hash(&child);
    bool dup = false; /* the same decisions: not built again */
    for (size_t i = 0; i < *n && !dup; i++) dup = tune_decisions_hash(&(*pop)[i].c.dec) == h;
    Entry e;
    if (dup || !make_entry(s, &child, &e)) continue;
    if (duplicate(s, &e, *pop, *n)) {
      entry_free(&e);
      continue;
    }
    VEC_PUSH(*pop, *n, *cap, e);
    k++;
  }
  predict(s, *pop + n0, *n - n0);
}

/* The analytic candidate, once, unless a resumed run measured it (said in
 * the log when it is added). */
static void add_analytic(Search *s, Entry **v, size_t *n, size_t *cap) {
  if (!s->analytic) return;
  s->analytic = false;
  Entry e;
  if (!make_entry(s, &s->analytic_dec, &e)) return;
  if (duplicate(s, &e, *v, *n)) {
    entry_free(&e);
    return;
  }
  mark_seen(s, e.key);
  VEC_PUSH(*v, *n, *cap, e);
  if (s->o->progress)
    fprintf(s->o->progress, "[%s] %s: the first batch holds the analytic candidate (%s)\n",
            s->o->label ? s->o->label : "tune", s->o->func, s->analytic_what);
}

/* The first batch of the evolutionary search: want candidates spread over
 * SPREAD_DRAWS random draws, each next the draw whose features lie farthest
 * from those already in v (tune_spread: farthest-point sampling, a
 * space-filling first design).  Eight draws at random often repeat one region, and the model
 * trained on them knows nothing of the rest; spread over the space they
 * teach it each knob's effect.  Replayed from the measured random pools of
 * the bench/tune kernels (bench/tune/replay_model.c, 200 seeds), the model
 * then reached 90% of the best in 17 trials on the mean + bias + ReLU
 * where it took 24 (means), 8 where it took 14 on the softmax, and 27
 * where it took 36 on the batch matmul, but 56 where it took 48 on the
 * conv2d (bench/README.md). */
#define SPREAD_DRAWS 128
static void add_spread(Search *s, Entry **v, size_t *n, size_t *cap, size_t want) {
  size_t n0 = *n; /* v[0..n0) chosen before (the analytic candidate); the draws follow */
  add_random(s, v, n, cap, SPREAD_DRAWS);
  size_t nd = *n - n0;
  Entry *d = *v + n0;
  float *rows = xmalloc((*n ? *n : 1) * TUNE_NFEATURES * sizeof *rows);
  for (size_t i = 0; i < *n; i++) memcpy(rows + i * TUNE_NFEATURES, (*v)[i].feat, sizeof (*v)[i].feat);
  size_t *picks = xmalloc((want ? want : 1) * sizeof *picks);
  size_t np = tune_spread(rows + n0 * TUNE_NFEATURES, nd, rows, n0, want, picks);
  Entry *drawn = xmalloc((nd ? nd : 1) * sizeof *drawn);
  memcpy(drawn, d, nd * sizeof *d);
  bool *picked = xcalloc(nd ? nd : 1, sizeof *picked);
  for (size_t k = 0; k < np; k++) d[k] = drawn[picks[k]], picked[picks[k]] = true;
  for (size_t i = 0; i < nd; i++)
    if (!picked[i]) entry_free(&drawn[i]);
  *n = n0 + np;
  free(picked);
  free(drawn);
  free(rows);
  free(picks);
}

/* The next batch (at most want), chosen as the file header says. */
static size_t choose_batch(Search *s, Entry **out, size_t want) {
  size_t n = 0, cap = 0;
  Entry *pop = NULL;
  if (s->o->kind == TUNE_SEARCH_RANDOM || !tune_model_ready(s->model)) {
    add_analytic(s, &pop, &n, &cap);
    /* spread only where a model will learn from it: random search stays
     * the plain baseline, and a run of one batch learns nothing */
    if (s->o->kind == TUNE_SEARCH_EVOLUTIONARY && s->o->trials - s->out->ntrials > (int)want)
      add_spread(s, &pop, &n, &cap, want - n);
    add_random(s, &pop, &n, &cap, want - n);
    *out = pop;
    return n;
  }
  size_t npop = (size_t)s->o->population;
  for (size_t i = 0; i < s->nm && n < npop / 2; i++) {
    Entry e;
    if (make_entry(s, &s->mdec[i], &e)) VEC_PUSH(pop, n, cap, e);
  }
  add_random(s, &pop, &n, &cap, npop - n);
  predict(s, pop, n);
  /* Half the model's picks come from the unevolved pool: generations of
   * mutation chase the model's errors on a few measurements (on the 1024^3
   * matmul the evolved picks alone trailed random search), and a pool of
   * mostly random points keeps the batch diverse. */
  Entry *batch = NULL;
  /* The random share rounds up: a batch of 8 with epsilon 0.05 (MetaSchedule
   * measures 64 per round) would otherwise explore nothing, and the search
   * stays on the first region the model likes (on the mean + bias + ReLU
   * of bench/tune it sat at 4.2 GFLOP/s for 100 trials while 6.3 existed). */
  size_t nrandom = s->o->epsilon > 0 ? (size_t)ceil((double)want * s->o->epsilon) : 0;
  size_t nb = 0, capb = 0, nexploit = want > nrandom ? want - nrandom : 0;
  add_analytic(s, &batch, &nb, &capb); /* a first batch after --resume or --transfer */
  if (s->o->generations > 0) {
    qsort(pop, n, sizeof *pop, by_score);
    size_t keep = 0;
    for (size_t i = 0; i < n; i++) {
      if (nb < nexploit / 2 && !seen(s, pop[i].key)) {
        VEC_PUSH(batch, nb, capb, pop[i]);
        mark_seen(s, pop[i].key);
      } else pop[keep++] = pop[i];
    }
    n = keep;
  }
  for (int gen = 0; gen < s->o->generations; gen++) {
    evolve(s, &pop, &n, &cap, npop);
    qsort(pop, n, sizeof *pop, by_score);
    while (n > npop) entry_free(&pop[--n]);
  }
  /* Measured parents stay out of the batch; the rest by score. */
  for (size_t i = 0; i < n; i++) {
    if (nb < nexploit && !seen(s, pop[i].key)) {
      VEC_PUSH(batch, nb, capb, pop[i]);
      mark_seen(s, pop[i].key);
    } else entry_free(&pop[i]);
  }
  free(pop);
  add_random(s, &batch, &nb, &capb, want - nb);
  *out = batch;
  return nb;
}

/* ------------------------------------------------------------- recording */

static void insert_measured(Search *s, const TuneDecisions *d, double gf) {
  size_t c1 = s->capm, c2 = s->capg;
  VEC_RESERVE(s->mdec, c1, s->nm + 1);
  VEC_RESERVE(s->mgf, c2, s->nm + 1);
  s->capm = c1, s->capg = c2;
  size_t j = s->nm++;
  while (j > 0 && s->mgf[j - 1] < gf) s->mdec[j] = s->mdec[j - 1], s->mgf[j] = s->mgf[j - 1], j--;
  s->mdec[j] = *d;
  s->mgf[j] = gf;
}

static void progress(Search *s, int trial, const TuneResult *r) {
  FILE *f = s->o->progress;
  if (!f) return;
  TuneRun *o = s->out;
  double el = drv_now_ms() / 1000.0 - s->t0;
  double left = trial > 0 ? el / trial * (s->o->trials - trial) : 0;
  const char *lab = s->o->label ? s->o->label : "tune";
  if (s->o->tty)
    fprintf(f, "\r[%s] %s: %d/%d trials, best %.2f GFLOP/s, %d failed, %.0f s elapsed, ~%.0f s left\033[K", lab,
            s->o->func, trial, s->o->trials, o->best_gflops, o->nfailed, el, left);
  else if (r->status == TUNE_OK && r->gflops <= 0) /* no arithmetic (a copy): times only */
    fprintf(f, "[%s] %s: trial %d/%d: %.3f ms, best %.3f ms, %.1f s\n", lab, s->o->func, trial, s->o->trials,
            r->median_ms, o->best_ms, el);
  else if (r->status == TUNE_OK)
    fprintf(f, "[%s] %s: trial %d/%d: %.2f GFLOP/s (%.3f ms), best %.2f GFLOP/s, %.1f s\n", lab, s->o->func,
            trial, s->o->trials, r->gflops, r->median_ms, o->best_gflops, el);
  else
    fprintf(f, "[%s] %s: trial %d/%d: %s: %s, best %.2f GFLOP/s, %.1f s\n", lab, s->o->func, trial, s->o->trials,
            tune_status_name(r->status), r->msg, o->best_gflops, el);
  fflush(f);
}

double tune_throughput(bool ok, double gflops, double median_ms) {
  if (!ok) return 0;
  return gflops > 0 ? gflops : median_ms > 0 ? 1.0 / median_ms : 0;
}

static double perf(const TuneResult *r) { return tune_throughput(r->status == TUNE_OK, r->gflops, r->median_ms); }

static void record(Search *s, Entry *e, const TuneResult *r) {
  TuneRun *o = s->out;
  int t = o->ntrials++;
  bool ok = r->status == TUNE_OK;
  double p = perf(r);
  if (!ok) o->nfailed++;
  if (ok && p > o->best_gflops) {
    o->best_gflops = p;
    o->best_ms = r->median_ms;
    o->best_dec = e->c.dec;
    if (s->o->measurer) tune_measurer_set_best(s->o->measurer, r->median_ms);
  }
  o->best_curve[t] = o->best_gflops;
  o->time_curve[t] = drv_now_ms() / 1000.0 - s->t0;
  mark_seen(s, e->key);
  tune_model_add(s->model, e->feat, p);
  if (ok) insert_measured(s, &e->c.dec, p);
  if (s->o->db) {
    TuneRecord rec = {s->workload, (char *)s->o->func, s->target, e->c.trace, (char *)tune_status_name(r->status),
                      (char *)(ok ? "" : r->msg), r->median_ms, r->gflops, s->o->threads, e->c.dec,
                      s->func_text};
    if (tune_db_append(s->o->db, &rec) && !s->db_failed) {
      s->db_failed = true; /* the log the user asked for is incomplete: an error, once */
      diag_error(s->diag, span_none, "tune: cannot append to '%s': %s", s->o->db, strerror(errno));
    }
  }
  if (!s->resuming) progress(s, o->ntrials, r);
}

/* --resume: the database's ok records of this workload count as measured. */
static void resume(Search *s) {
  TuneDb db;
  if (tune_db_load(s->o->db, &db)) return;
  s->resuming = true;
  for (int i = 0; i < db.n && s->out->ntrials < s->o->trials; i++) {
    const TuneRecord *r = &db.r[i];
    /* a baseline (the default schedule) is no point of the space */
    if (strcmp(r->workload, s->workload) || strcmp(r->func, s->o->func) || !strcmp(r->status, "baseline")) continue;
    Entry e;
    if (!make_entry(s, &r->dec, &e)) continue;
    TuneResult res = {strcmp(r->status, "ok") ? TUNE_ERR_RUN : TUNE_OK, r->median_ms, r->median_ms, 1, r->gflops, ""};
    const char *db_path = s->o->db;
    ((TuneOptions *)s->o)->db = NULL;  /* already recorded */
    record(s, &e, &res);
    ((TuneOptions *)s->o)->db = db_path;
    entry_free(&e);
  }
  s->resuming = false;
  tune_db_free(&db);
}

/* --------------------------------------------------------------- the loop */

static void measure_batch(Search *s, Entry *b, size_t n, TuneResult *res) {
  TuneCandidate *cands = xcalloc(n ? n : 1, sizeof *cands);
  int *trials = xcalloc(n ? n : 1, sizeof *trials);
  for (size_t i = 0; i < n; i++) cands[i] = b[i].c, trials[i] = s->out->ntrials + (int)i;
  if (s->o->measure) s->o->measure(s->o->measure_ctx, cands, trials, (int)n, res);
  else tune_measure_batch(s->o->measurer, cands, trials, (int)n, res);
  free(cands);
  free(trials);
}

TuneOptions tune_options_default(void) {
  TuneOptions o;
  memset(&o, 0, sizeof o);
  o.trials = 64;
  o.batch = 8;
  o.seed = 1;
  o.epsilon = 0.05;      /* MetaSchedule's EvolutionarySearch defaults: eps_greedy, */
  o.population = 512;    /* population_size */
  o.generations = 4;     /* genetic_num_iters */
  o.threads = 1;
  o.analytic = true;
  return o;
}

static int finish(Search *s) {
  TuneRun *o = s->out;
  if (s->nrefused && s->o->progress)
    fprintf(s->o->progress, "[%s] %s: %d sampled candidate%s dropped before measuring (the first: %s)\n",
            s->o->label ? s->o->label : "tune", s->o->func, s->nrefused, s->nrefused == 1 ? "" : "s",
            s->refused_why);
  if (o->best_gflops <= 0) {
    if (!o->ntrials && s->nrefused)
      diag_error(s->diag, span_none, "tune: every sampled candidate of '%s' was dropped before measuring: %s",
                 s->o->func, s->refused_why);
    else
      diag_error(s->diag, span_none, "tune: no candidate of '%s' ran correctly in %d trials", s->o->func,
                 o->ntrials);
    return -1;
  }
  TuneCandidate c;
  int rc = s->o->space_script ? tune_space_script(s->m, s->o->func, s->o->space_script, &o->best_dec, 0, &c, s->diag)
                              : tune_space_generate(s->m, s->o->func, &o->best_dec, 0, &c, s->diag);
  if (rc) return -1;
  o->best_trace = c.trace;
  o->best_mod = c.mod;
  return 0;
}

int tune_search(const IrModule *m, const TuneOptions *o, TuneRun *out, DiagCtx *diag) {
  memset(out, 0, sizeof *out);
  const IrGlobal *g = ir_module_lookup(m, o->func);
  if (!g || g->kind != IR_FUNC_TIR) {
    diag_error(diag, span_none, "tune: no prim_func '%s'", o->func);
    return -1;
  }
  Search s;
  memset(&s, 0, sizeof s);
  s.m = m, s.o = o, s.diag = diag, s.model = tune_model_new(o->seed);
  s.rng = o->seed * 0x9e3779b97f4a7c15ull + 7;
  s.out = out;
  s.t0 = drv_now_ms() / 1000.0;
  s.workload = tune_workload_key(g->tir);
  s.target = o->target ? xstrdup(o->target) : tune_target_string();
  if (o->db) { /* the records carry it */
    StrBuf text;
    sb_init(&text);
    PrintOptions popt = print_options_default();
    print_tir_func(&text, g->tir, o->func, &popt);
    s.func_text = sb_take(&text);
  }
  /* A fresh search starts without a best (a second run on one measurer,
   * --compare-random, must not inherit the first one's cut-off). */
  if (o->measurer) tune_measurer_set_best(o->measurer, 0);
  out->best_curve = xcalloc((size_t)o->trials + 1, sizeof(double));
  out->time_curve = xcalloc((size_t)o->trials + 1, sizeof(double));
  /* A space that yields no candidate is reported with its errors. */
  TuneCandidate probe;
  int prc = o->space_script ? tune_space_script(m, o->func, o->space_script, NULL, 1, &probe, diag)
                            : tune_space_generate(m, o->func, NULL, 1, &probe, diag);
  tune_candidate_free(&probe);
  if (!prc && o->transfer && o->kind != TUNE_SEARCH_RANDOM) {
    int nhist = 0, nbad = 0;
    if (tune_transfer_load(s.model, o->transfer, s.workload, &nhist, &nbad, diag)) prc = -1;
    else if (o->progress) {
      fprintf(o->progress, "[%s] %s: the cost model starts from %d records of other workloads in '%s'",
              o->label ? o->label : "tune", o->func, nhist, o->transfer);
      if (nbad) fprintf(o->progress, " (%d unreadable line%s skipped)", nbad, nbad == 1 ? "" : "s");
      fputc('\n', o->progress);
    }
  }
  if (prc) {
    tune_model_free(s.model);
    free(s.workload);
    free(s.target);
    free(s.func_text);
    return -1;
  }
  if (o->resume && o->db) resume(&s);
  if (o->analytic && o->kind == TUNE_SEARCH_EVOLUTIONARY && !o->space_script && !o->target) {
    TuneHostModel hm = tune_host_model(o->threads);
    s.analytic = tune_analytic_candidate(m, o->func, &hm, &s.analytic_dec, s.analytic_what,
                                         sizeof s.analytic_what) == 0;
  }
  tune_model_train(s.model); /* on resumed records and the transferred ones, if any */
  int stalls = 0;
  while (out->ntrials < o->trials && stalls < 3) {
    size_t want = (size_t)(o->trials - out->ntrials < o->batch ? o->trials - out->ntrials : o->batch);
    Entry *b = NULL;
    size_t n = choose_batch(&s, &b, want);
    stalls = n ? 0 : stalls + 1;
    TuneResult *res = xcalloc(n ? n : 1, sizeof *res);
    measure_batch(&s, b, n, res);
    for (size_t i = 0; i < n; i++) record(&s, &b[i], &res[i]);
    for (size_t i = 0; i < n; i++) entry_free(&b[i]);
    free(b);
    free(res);
    if (o->kind == TUNE_SEARCH_EVOLUTIONARY) tune_model_train(s.model);
  }
  if (o->progress && o->tty) fputc('\n', o->progress);
  int rc = finish(&s);
  if (s.db_failed) rc = -1;
  tune_model_free(s.model);
  free(s.seen);
  free(s.mdec);
  free(s.mgf);
  free(s.workload);
  free(s.target);
  free(s.func_text);
  return rc;
}

void tune_run_free(TuneRun *r) {
  free(r->best_curve);
  free(r->time_curve);
  free(r->best_trace);
  if (r->best_mod) ir_module_free(r->best_mod);
  memset(r, 0, sizeof *r);
}
