/* measure.c - building, checking and timing candidates in worker processes.
 *
 * Each candidate runs in a forked child: it JIT-compiles the scheduled
 * module (driver/run.h's runner), runs it once on the random inputs made
 * once in the parent, compares every output with the reference: the
 * function under its CPU default schedule (computed once, in a child too,
 * into shared memory), then times it with
 * the driver's harness and sends a TuneResult back through a pipe.  A
 * crash (signal), a hang (killed after the timeout), a failed build or a
 * wrong result is recorded in the result and never stops tuning.  The
 * parent never runs LLVM or the thread pool, so forking stays safe.
 *
 * Test hooks (environment): TVS_TUNE_FAULT="crash=N,hang=N,wrong=N" makes
 * trial N crash, hang or compute a wrong result; TVS_TUNE_FAKE_TIME=1
 * replaces the timing by a time derived from the candidate's structural
 * hash (deterministic, for tests and the MPI comparison). */
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "autotune/tune.h"
#include "base/util.h"
#include "driver/gpu.h"
#include "driver/run.h"
#include "ir/flops.h"
#include "ir/structural_equal.h"
#include "ir/transform.h"
#include "sched/default_schedule.h"

struct TuneMeasurer {
  const char *func;
  TuneMeasureOptions o;
  int n;                   /* params */
  InterpArg *args;
  TvsNDArray **arrays;     /* per buffer param */
  bool *is_output;
  double *ref;             /* shared: every output's reference values, concatenated */
  size_t ref_len;          /* elements */
  double flops;
  double best_ms;          /* the best median so far (0: none): the cutoff's base */
};

const char *tune_status_name(TuneStatus s) {
  static const char *names[] = {"ok", "build_error", "run_error", "crash", "timeout", "wrong_result"};
  return (unsigned)s < sizeof names / sizeof *names ? names[s] : "?";
}

/* ------------------------------------------------------------ child work */

/* The worker's ends of its pipes (in the child only): it writes one byte
 * when its candidate is built, waits for the parent's go, then writes its
 * result.  Waiting lets several workers build while one runs. */
static int built_fd = -1, go_fd = -1;

/* The build limit of a candidate. */
static double build_limit(const TuneMeasurer *t) { return t->o.build_timeout_s > 0 ? t->o.build_timeout_s : 60; }

/* Tells the parent the build is done and waits for its turn to run: from
 * here the run limit counts. */
static void report_built(void) {
  if (built_fd < 0) return;
  ssize_t w = write(built_fd, "B", 1);
  (void)w; /* a parent gone: the result's write fails too */
  built_fd = -1;
  char go;
  if (go_fd >= 0 && read(go_fd, &go, 1) != 1) _exit(1);
  if (go_fd >= 0) close(go_fd);
  go_fd = -1;
}

/* A worker process: building, built (waiting for its go), running, done. */
typedef enum { W_NONE, W_BUILDING, W_BUILT, W_RUNNING, W_DONE } WorkerState;

typedef struct Worker {
  WorkerState st;
  pid_t pid;
  int rfd, gofd;       /* its result pipe (read end), its go pipe (write end) */
  double since_ms;     /* when its build or its run began */
  double limit_s;      /* the limit of the phase it is in */
} Worker;

/* A worker that could not start: done, with why in r. */
static bool start_failed(Worker *w, TuneResult *r, const char *why) {
  memset(r, 0, sizeof *r);
  r->status = TUNE_ERR_BUILD;
  snprintf(r->msg, sizeof r->msg, "%s", why);
  w->st = W_DONE;
  return false;
}

/* Starts fn(ctx, &r) in a child; false (r filled) when that failed. */
static bool worker_start(Worker *w, void (*fn)(void *, TuneResult *), void *ctx, double build_s, TuneResult *r) {
  memset(w, 0, sizeof *w);
  w->rfd = w->gofd = -1;
  int fds[2], go[2];
  if (pipe(fds)) return start_failed(w, r, "pipe failed");
  if (pipe(go)) {
    close(fds[0]);
    close(fds[1]);
    return start_failed(w, r, "pipe failed");
  }
  fflush(NULL);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    /* A worker dies with its tuner: killing `tvs tune` leaves no worker. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    close(fds[0]);
    close(go[1]);
    built_fd = fds[1];
    go_fd = go[0];
    TuneResult cr;
    memset(&cr, 0, sizeof cr);
    fn(ctx, &cr);
    report_built(); /* a failed build ends here too */
    ssize_t wr = write(fds[1], &cr, sizeof cr);
    _exit(wr == (ssize_t)sizeof cr ? 0 : 1);
  }
  close(fds[1]);
  close(go[0]);
  if (pid < 0) {
    close(fds[0]);
    close(go[1]);
    return start_failed(w, r, "fork failed");
  }
  *w = (Worker){W_BUILDING, pid, fds[0], go[1], drv_now_ms(), build_s};
  return true;
}

/* Lets a built worker run, for at most run_s. */
static void worker_go(Worker *w, double run_s) {
  /* a worker gone meanwhile: its result pipe says so, no SIGPIPE here */
  struct sigaction ign = {0}, old;
  ign.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ign, &old);
  ssize_t n = write(w->gofd, "G", 1);
  (void)n;
  sigaction(SIGPIPE, &old, NULL);
  close(w->gofd);
  w->gofd = -1;
  w->st = W_RUNNING;
  w->since_ms = drv_now_ms();
  w->limit_s = run_s;
}

/* Ends a worker: got 1 when its result is in *r, 0 when its pipe closed
 * early (it died), -1 when it passed its limit (it is killed). */
static void worker_end(Worker *w, int got, TuneResult *r) {
  bool building = w->st == W_BUILDING;
  if (got < 0) kill(w->pid, SIGKILL);
  int st = 0;
  waitpid(w->pid, &st, 0);
  close(w->rfd);
  if (w->gofd >= 0) close(w->gofd);
  if (got < 0) {
    memset(r, 0, sizeof *r);
    r->status = TUNE_ERR_TIMEOUT;
    snprintf(r->msg, sizeof r->msg, building ? "build killed after %.1f s" : "killed after %.1f s", w->limit_s);
  } else if (got == 0) {
    memset(r, 0, sizeof *r);
    r->status = TUNE_ERR_CRASH;
    if (WIFSIGNALED(st)) snprintf(r->msg, sizeof r->msg, "worker died: %s", strsignal(WTERMSIG(st)));
    else snprintf(r->msg, sizeof r->msg, "worker exited with status %d", WEXITSTATUS(st));
  }
  w->st = W_DONE;
}

/* Reads what a worker whose pipe is readable sent: its built mark (it
 * waits), or its result (it is done). */
static void worker_read(Worker *w, TuneResult *r) {
  if (w->st == W_BUILDING) {
    char mark;
    if (read(w->rfd, &mark, 1) == 1) w->st = W_BUILT;
    else worker_end(w, 0, r);
  } else {
    worker_end(w, read(w->rfd, r, sizeof *r) == (ssize_t)sizeof *r ? 1 : 0, r);
  }
}

/* Waits until some worker of w[0..n) in a building or running phase sends
 * something or passes its limit, and handles that. */
static void workers_wait(Worker *w, int n, TuneResult *res) {
  struct pollfd p[64];
  int idx[64], np = 0;
  double now = drv_now_ms(), wait_ms = 60e3;
  for (int i = 0; i < n && np < 64; i++) {
    if (w[i].st != W_BUILDING && w[i].st != W_RUNNING) continue;
    double left = w[i].since_ms + w[i].limit_s * 1e3 - now;
    if (left <= 0) {
      worker_end(&w[i], -1, &res[i]);
      return;
    }
    if (left < wait_ms) wait_ms = left;
    p[np] = (struct pollfd){w[i].rfd, POLLIN, 0};
    idx[np++] = i;
  }
  if (!np) return;
  int pr = poll(p, (nfds_t)np, (int)wait_ms + 1);
  for (int k = 0; pr > 0 && k < np; k++)
    if (p[k].revents) worker_read(&w[idx[k]], &res[idx[k]]);
}

/* Runs fn(ctx, &r) in a child and waits for it: up to build_s for the
 * build, then up to run_s for the result (a builder and a runner timeout,
 * as MetaSchedule's). */
static void in_child(void (*fn)(void *, TuneResult *), void *ctx, double build_s, double run_s, TuneResult *r) {
  Worker w;
  if (!worker_start(&w, fn, ctx, build_s, r)) return;
  while (w.st == W_BUILDING) workers_wait(&w, 1, r);
  if (w.st == W_BUILT) worker_go(&w, run_s);
  while (w.st == W_RUNNING) workers_wait(&w, 1, r);
}

/* The trial number a fault hook names for kind ("crash"), or -1. */
static int fault_trial(const char *kind) {
  const char *env = getenv("TVS_TUNE_FAULT");
  const char *p = env ? strstr(env, kind) : NULL;
  return p && p[strlen(kind)] == '=' ? atoi(p + strlen(kind) + 1) : -1;
}

typedef struct CallCtx {
  DrvRunner *ru;
  TuneMeasurer *t;
} CallCtx;

static int call_once(void *ctx) {
  CallCtx *c = ctx;
  DiagCtx d;
  diag_init(&d, NULL);
  int rc = drv_runner_call(c->ru, c->t->args, c->t->n, &d) == DRV_RUN_OK ? 0 : -1;
  diag_free(&d);
  return rc;
}

static void first_error(const DiagCtx *d, const char *fallback, char *msg, size_t cap) {
  for (int i = 0; i < d->len; i++)
    if (d->items[i].sev == DIAG_ERROR) {
      snprintf(msg, cap, "%s", d->items[i].msg);
      return;
    }
  snprintf(msg, cap, "%s", fallback);
}

/* Compares the outputs with the reference; the largest error relative to
 * the reference's largest magnitude. */
static double compare_outputs(const TuneMeasurer *t) {
  size_t off = 0;
  double maxref = 0, maxerr = 0;
  for (int i = 0; i < t->n; i++) {
    if (!t->is_output[i]) continue;
    const DLTensor *x = &t->arrays[i]->t;
    int64_t n = tvs_ndarray_numel(x);
    for (int64_t k = 0; k < n; k++, off++) {
      double a = tvs_ndarray_get_f64(x, k), b = t->ref[off];
      if (fabs(b) > maxref) maxref = fabs(b);
      double e = isnan(a) != isnan(b) ? INFINITY : isnan(a) ? 0 : fabs(a - b);
      if (e > maxerr) maxerr = e;
    }
  }
  return maxref > 0 ? maxerr / maxref : maxerr;
}

static void zero_outputs(TuneMeasurer *t) {
  for (int i = 0; i < t->n; i++)
    if (t->is_output[i]) memset(t->arrays[i]->t.data, 0, (size_t)tvs_ndarray_nbytes(&t->arrays[i]->t));
}

typedef struct CandCtx {
  TuneMeasurer *t;
  const IrModule *m;
  int trial;
  bool reference;   /* compute the reference outputs instead */
} CandCtx;

/* Whether TVS_TUNE_FAKE_TIME is set (not empty, not 0). */
static bool fake_times(void) {
  const char *fake = getenv("TVS_TUNE_FAKE_TIME");
  return fake && *fake && strcmp(fake, "0");
}

/* A time derived from the module (TVS_TUNE_FAKE_TIME): 1..11 ms. */
static double fake_time_ms(const IrModule *m) {
  uint64_t h = shash_module(m);
  return 1.0 + (double)(h % 10007) / 1000.0;
}

/* r records a failed call (the runtime's last error). */
static void run_failed(TuneResult *r) {
  r->status = TUNE_ERR_RUN;
  snprintf(r->msg, sizeof r->msg, "%s", tvs_get_last_error());
}

/* One call's wall time in ms (-1: the call failed). */
static double timed_call(CallCtx *cc) {
  double t0 = drv_now_ms();
  return call_once(cc) ? -1 : drv_now_ms() - t0;
}

/* The fastest of up to three warm runs, stopping at the first within limit
 * or once they took 1 ms together: a long kernel confirms in one run, a
 * short one warms up over several (a forked worker's copy of a 0.09 ms copy
 * kernel ran 0.37, 0.18, then 0.09 ms under AddressSanitizer on a Zen 4).
 * -1: a call failed. */
static double confirm_slow(CallCtx *cc, double limit) {
  double best = -1, spent = 0;
  for (int i = 0; i < 3 && (best < 0 || (best > limit && spent < 1.0)); i++) {
    double ms = timed_call(cc);
    if (ms < 0) return -1;
    spent += ms;
    if (best < 0 || ms < best) best = ms;
  }
  return best;
}

/* Times the candidate; first_ms is its first run (cold: first touches of
 * the outputs, the JIT's code).  A candidate over 4x slower than the best
 * so far is not timed further: warm runs that confirm it say enough, and
 * slow candidates would otherwise eat the tuning time.  The cold run
 * alone must not decide it: on a kernel of half a millisecond its cold
 * costs alone can pass 4x, and candidates as fast as the best were once
 * recorded 4x slower that way, which steered the search away from them. */
static void time_candidate(CandCtx *c, DrvRunner *ru, double first_ms, TuneResult *r) {
  TuneMeasurer *t = c->t;
  CallCtx cc = {ru, t};
  double warm_ms = 0;
  if (fake_times()) {
    r->median_ms = r->min_ms = fake_time_ms(c->m);
    r->reps = 1;
  } else if (t->best_ms > 0 && first_ms > 4 * t->best_ms &&
             (warm_ms = confirm_slow(&cc, 4 * t->best_ms)) > 4 * t->best_ms) {
    r->median_ms = r->min_ms = warm_ms < first_ms ? warm_ms : first_ms;
    r->reps = 1;
  } else if (warm_ms < 0) {
    run_failed(r);
    return;
  } else {
    DrvTimeOptions to = {3, 0, 1, t->o.budget_ms};
    DrvTiming tm;
    if (drv_time_calls(call_once, &cc, &to, &tm)) {
      run_failed(r);
      return;
    }
    /* On one thread all the work runs on the calling thread: its CPU time
     * discounts time-slicing by other processes on a loaded machine. */
    bool one = t->o.threads <= 1 && tm.cpu_median_ms > 0;
    r->median_ms = one ? tm.cpu_median_ms : tm.median_ms;
    r->min_ms = one ? (tm.min_ms < r->median_ms ? tm.min_ms : r->median_ms) : tm.min_ms;
    r->reps = tm.reps;
  }
  r->gflops = t->flops > 0 && r->median_ms > 0 ? t->flops / (r->median_ms * 1e6) : 0;
}

static bool gpu_target(const TuneMeasurer *t) { return tir_is_gpu_target(t->o.target); }

/* A candidate on the GPU target: lowered on the GPU pipeline (a schedule
 * that does not bind its loops, or breaks a device limit, is a build
 * error), run on the device, checked, and its kernels timed (median of 10). */
static void run_candidate_gpu(CandCtx *c, TuneResult *r) {
  TuneMeasurer *t = c->t;
  DiagCtx d;
  diag_init(&d, NULL);
  char err[512] = "";
  /* the candidate's function alone: a graph's other kernels, unscheduled
   * (whole-model tuning), would not lower for the GPU */
  IrModule *one = ir_module_derive(c->m);
  ir_module_add_tir(one, t->func, ir_module_lookup(c->m, t->func)->tir);
  IrModule *low = drv_gpu_lower(one, t->o.target, NULL, &d);
  ir_module_free(one);
  DrvGpu g;
  memset(&g, 0, sizeof g);
  CgOptions cg = cg_options_default();
  double ms = 0;
  int rc = low ? drv_gpu_open(&g, low, t->o.target, &cg, &d, err, sizeof err) : -2;
  report_built();
  if (rc) {
    r->status = TUNE_ERR_BUILD;
    if (err[0]) snprintf(r->msg, sizeof r->msg, "%.*s", (int)sizeof r->msg - 1, err);
    else first_error(&d, "does not lower for the GPU", r->msg, sizeof r->msg);
  } else {
    zero_outputs(t);
    if (drv_gpu_time(&g, t->func, t->args, t->n, 10, &ms, err, sizeof err)) {
      r->status = TUNE_ERR_RUN;
      snprintf(r->msg, sizeof r->msg, "%.*s", (int)sizeof r->msg - 1, err);
    } else {
      double e = compare_outputs(t);
      if (!(e <= 1e-3)) {
        r->status = TUNE_ERR_WRONG;
        snprintf(r->msg, sizeof r->msg, "max relative error %.3g against the reference", e);
      } else {
        r->median_ms = r->min_ms = ms;
        r->reps = 10;
        r->gflops = t->flops > 0 && ms > 0 ? t->flops / (ms * 1e6) : 0;
      }
    }
  }
  if (low && !rc) drv_gpu_close(&g);
  ir_module_free(low);
  diag_free(&d);
}

static void run_candidate(void *ctx, TuneResult *r) {
  CandCtx *c = ctx;
  TuneMeasurer *t = c->t;
  if (!c->reference && gpu_target(t)) {
    run_candidate_gpu(c, r);
    return;
  }
  if (c->trial >= 0 && c->trial == fault_trial("crash")) {
    signal(SIGSEGV, SIG_DFL); /* a plain crash, not a sanitizer report */
    raise(SIGSEGV);
  }
  if (c->trial >= 0 && c->trial == fault_trial("hang")) {
    report_built(); /* a hang while running: the run limit kills it */
    for (;;) pause();
  }
  tvs_thread_pool_set_num_threads(t->o.threads > 0 ? t->o.threads : 1);
  CgOptions cg = cg_options_default();
  cg.fast_math = t->o.fast_math;
  cg.fp_contract = t->o.fp_contract;
  DiagCtx d;
  diag_init(&d, NULL);
  DrvRunner ru;
  double first_ms = 0;
  zero_outputs(t);
  bool built = drv_runner_init(&ru, c->m, t->func, &cg, true, &d) == DRV_RUN_OK;
  report_built();
  if (built) first_ms = timed_call(&(CallCtx){&ru, t}); /* the run alone, not the check below */
  if (!built) {
    r->status = TUNE_ERR_BUILD;
    first_error(&d, "does not compile", r->msg, sizeof r->msg);
  } else if (first_ms < 0) {
    run_failed(r);
  } else if (c->reference) {
    size_t off = 0;
    for (int i = 0; i < t->n; i++)
      if (t->is_output[i])
        for (int64_t k = 0; k < tvs_ndarray_numel(&t->arrays[i]->t); k++) t->ref[off++] = tvs_ndarray_get_f64(&t->arrays[i]->t, k);
  } else {
    if (c->trial >= 0 && c->trial == fault_trial("wrong")) zero_outputs(t);
    double err = compare_outputs(t);
    if (!(err <= 1e-3)) {
      r->status = TUNE_ERR_WRONG;
      snprintf(r->msg, sizeof r->msg, "max relative error %.3g against the reference", err);
    } else time_candidate(c, &ru, first_ms, r);
  }
  drv_runner_free(&ru);
  diag_free(&d);
}

/* ------------------------------------------------------------ the measurer */

static int alloc_params(TuneMeasurer *t, const TirFunc *f, DiagCtx *diag) {
  DrvBindings b = {NULL, 0, 0};
  uint64_t rng = t->o.input_seed ? t->o.input_seed : 1;
  for (int i = 0; i < t->n; i++) {
    const TirBuffer *buf = f->buffer_map[i];
    if (!buf) {
      diag_error(diag, span_none, "tune: '%s' has a scalar parameter '%s' (only buffer parameters are tuned)", t->func,
                 f->params[i]->name);
      return -1;
    }
    if (drv_alloc_buffer(buf, &b, &t->arrays[i], NULL, NULL) != DRV_ALLOC_OK) {
      diag_error(diag, span_none, "tune: cannot allocate '%s' of '%s' (tuning needs static shapes)", buf->name, t->func);
      return -1;
    }
    t->args[i].tensor = &t->arrays[i]->t;
    t->is_output[i] = drv_stmt_writes(f->body, buf->data);
    if (!t->is_output[i]) tvs_ndarray_fill_random(&t->arrays[i]->t, &rng);
    else t->ref_len += (size_t)tvs_ndarray_numel(&t->arrays[i]->t);
  }
  drv_bindings_free(&b);
  return 0;
}

TuneMeasurer *tune_measurer_new(const IrModule *m, const char *func, const TuneMeasureOptions *o, DiagCtx *diag) {
  const IrGlobal *g = ir_module_lookup(m, func);
  if (!g || g->kind != IR_FUNC_TIR) {
    diag_error(diag, span_none, "tune: no prim_func '%s'", func);
    return NULL;
  }
  const TirFunc *f = g->tir;
  TuneMeasurer *t = xcalloc(1, sizeof *t);
  t->func = func;
  t->o = *o;
  t->n = f->nparams;
  int n1 = t->n ? t->n : 1;
  t->args = xcalloc((size_t)n1, sizeof *t->args);
  t->arrays = xcalloc((size_t)n1, sizeof *t->arrays);
  t->is_output = xcalloc((size_t)n1, sizeof *t->is_output);
  t->flops = tir_count_flops(f, NULL, 0);
  if (alloc_params(t, f, diag)) goto fail;
  void *p = mmap(NULL, (t->ref_len ? t->ref_len : 1) * sizeof(double), PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    diag_error(diag, span_none, "tune: out of memory for the reference outputs");
    goto fail;
  }
  t->ref = p;
  /* the reference: the function under its CPU default schedule (tested
   * against the interpreter like every default), since its plain loops can
   * take minutes (a 4096^3 matmul's reference held GPU tuning up past 90 s) */
  IrModule *dflt = sch_default_schedule_one(m, func);
  CandCtx c = {t, dflt ? dflt : m, -1, true};
  TuneResult r;
  in_child(run_candidate, &c, build_limit(t), o->timeout_s * 20 + 60, &r);
  ir_module_free(dflt);
  if (r.status != TUNE_OK) {
    diag_error(diag, span_none, "tune: the untuned '%s' does not run (%s: %s)", func, tune_status_name(r.status), r.msg);
    goto fail;
  }
  return t;
fail:
  tune_measurer_free(t);
  return NULL;
}

void tune_measurer_free(TuneMeasurer *t) {
  if (!t) return;
  for (int i = 0; i < t->n; i++) tvs_ndarray_free(t->arrays[i]);
  if (t->ref) munmap(t->ref, (t->ref_len ? t->ref_len : 1) * sizeof(double));
  free(t->arrays);
  free(t->args);
  free(t->is_output);
  free(t);
}

double tune_measurer_flops(const TuneMeasurer *t) { return t->flops; }

void tune_measurer_set_best(TuneMeasurer *t, double best_ms) { t->best_ms = best_ms; }

/* The run limit of the next candidate: once a best is known, far slower
 * candidates are cut short (not under injected times, where the best says
 * nothing about build times). */
static double run_limit(const TuneMeasurer *t) {
  double limit = t->o.timeout_s, cut = 2 + 0.03 * t->best_ms; /* 2 s + 30x the best: its runs, not its build */
  if (t->best_ms > 0 && cut < limit && !fake_times()) limit = cut;
  return limit;
}

void tune_measure(TuneMeasurer *t, const IrModule *cand, int trial, TuneResult *r) {
  CandCtx c = {t, cand, trial, false};
  in_child(run_candidate, &c, build_limit(t), run_limit(t), r);
}

/* Builders at once: one per core (MetaSchedule's LocalBuilder), of which
 * those the timed run does not need may build while it runs. */
static int cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 16 ? 16 : (int)n;
}

void tune_measure_batch(TuneMeasurer *t, const TuneCandidate *cands, const int *trials, int n, TuneResult *res) {
  if (n <= 0) return;
  /* On a device every worker opens a context: one at a time there. */
  int ncores = gpu_target(t) ? 1 : cores(), threads = t->o.threads > 0 ? t->o.threads : 1;
  int beside_run = ncores > threads ? ncores - threads : 0;
  Worker *w = xcalloc((size_t)n, sizeof *w);
  CandCtx *c = xcalloc((size_t)n, sizeof *c);
  int next = 0, run = 0; /* the next to start, the next to run (in order) */
  while (run < n) {
    int building = 0;
    for (int i = run; i < next; i++) building += w[i].st == W_BUILDING;
    bool running = w[run].st == W_RUNNING;
    /* The next in order runs once built, alone but for the builders a
     * run leaves room for; one that ended while building is done. */
    if (w[run].st == W_DONE && run < next) {
      if (res[run].status == TUNE_OK && res[run].median_ms > 0 && (t->best_ms <= 0 || res[run].median_ms < t->best_ms))
        t->best_ms = res[run].median_ms; /* the best so far cuts slow candidates within a batch too */
      run++;
      continue;
    }
    if (w[run].st == W_BUILT && building <= beside_run) {
      worker_go(&w[run], run_limit(t));
      continue;
    }
    /* more builders while there is room, a few candidates ahead at most */
    int room = (running || w[run].st == W_BUILT ? beside_run : ncores) - building;
    if (room > 0 && next < n && next - run <= ncores) {
      c[next] = (CandCtx){t, cands[next].mod, trials[next], false};
      worker_start(&w[next], run_candidate, &c[next], build_limit(t), &res[next]);
      next++;
      continue;
    }
    workers_wait(w + run, next - run, res + run);
  }
  free(w);
  free(c);
}
