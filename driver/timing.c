/* timing.c - the timing loop of `tvs run --time`, the REPL's :time and the
 * benchmarks: an optional warm-up that sizes the repetition count, then the
 * timed calls, summarized by their median (steadier than the mean). */
#include <stdlib.h>
#include <time.h>

#include "base/util.h"
#include "driver/run.h"

double drv_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

double drv_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double thread_cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The number of timed calls, from the mean time of a warm-up call. */
static int compute_reps(const DrvTimeOptions *o, double once) {
  if (o->repeat > 0) {
    int reps = o->repeat;
    if (o->min_ms > 0 && once > 0 && reps < o->min_ms / once) reps = (int)(o->min_ms / once) + 1;
    return reps;
  }
  if (o->warmup <= 0) return 1;
  int reps = once > 0 ? (int)(o->budget_ms / once) : 1000;
  return reps < 5 ? 5 : reps > 1000 ? 1000 : reps;
}

int drv_time_calls(int (*call)(void *ctx), void *ctx, const DrvTimeOptions *o, DrvTiming *out) {
  int rc = 0;
  double once = 0;
  if (o->warmup > 0) {
    double t0 = drv_now_ms();
    for (int w = 0; w < o->warmup; w++)
      if ((rc = call(ctx)) != 0) return rc;
    once = (drv_now_ms() - t0) / o->warmup;
  }
  int reps = compute_reps(o, once);
  double *t = xcalloc((size_t)reps, sizeof *t), *cpu = xcalloc((size_t)reps, sizeof *cpu), sum = 0;
  for (int k = 0; k < reps; k++) {
    double s0 = drv_now_ms(), c0 = thread_cpu_ms();
    if ((rc = call(ctx)) != 0) break;
    cpu[k] = thread_cpu_ms() - c0;
    t[k] = drv_now_ms() - s0;
    sum += t[k];
  }
  if (rc == 0) {
    out->reps = reps;
    out->median_ms = drv_median(t, reps);
    out->min_ms = t[0];
    out->max_ms = t[reps - 1];
    out->mean_ms = sum / reps;
    out->cpu_median_ms = drv_median(cpu, reps);
  }
  free(t);
  free(cpu);
  return rc;
}
