/* thread_pool_bench.c - figures for the runtime thread pool: the median cost
 * of a launch of empty tasks (1 and 2 threads; back to back, and after the
 * workers fell asleep) and the speed-up of a parallel sum from 1 to 2 threads.
 * Prints figures; asserts nothing about time. */
#define _POSIX_C_SOURCE 200809L
#include "runtime/tvs_runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int empty_task(int id, int n, void *cdata) { return 0; }

/* Median and 90th percentile of reps launches; idle_us > 0 sleeps before each. */
static void bench_launch(int threads, int reps, long idle_us) {
  tvs_thread_pool_set_num_threads(threads);
  for (int i = 0; i < 1000; i++) tvs_parallel_launch(empty_task, NULL, 0);
  double *t = malloc((size_t)reps * sizeof *t);
  for (int i = 0; i < reps; i++) {
    if (idle_us > 0) {
      struct timespec d = {0, idle_us * 1000};
      nanosleep(&d, NULL);
    }
    double t0 = now_us();
    tvs_parallel_launch(empty_task, NULL, 0);
    t[i] = now_us() - t0;
  }
  qsort(t, (size_t)reps, sizeof *t, cmp_double);
  printf("  %d thread%s, %-12s median %7.3f us   p90 %7.3f us   (%d launches)\n", threads,
         threads == 1 ? " " : "s", idle_us > 0 ? "after idle" : "back to back", t[reps / 2],
         t[reps * 9 / 10], reps);
  free(t);
}

/* Task 0 waits until task 1 has started elsewhere: the round trip of a
 * launch in which a worker really takes part. */
static int rendezvous_task(int id, int n, void *cdata) {
  volatile int *started = cdata;
  if (id == 1) __atomic_store_n(started, 1, __ATOMIC_RELEASE);
  else
    while (!__atomic_load_n(started, __ATOMIC_ACQUIRE)) {
    }
  return 0;
}

static void bench_rendezvous(int reps) {
  tvs_thread_pool_set_num_threads(2);
  double *t = malloc((size_t)reps * sizeof *t);
  for (int i = 0; i < reps; i++) {
    volatile int started = 0;
    double t0 = now_us();
    tvs_parallel_launch(rendezvous_task, (void *)&started, 2);
    t[i] = now_us() - t0;
  }
  qsort(t, (size_t)reps, sizeof *t, cmp_double);
  printf("  2 threads, worker joins  median %7.3f us   p90 %7.3f us   (%d launches)\n", t[reps / 2],
         t[reps * 9 / 10], reps);
  free(t);
}

typedef struct {
  const float *x;
  long n;
  double partial[64];
} Sum;

static int sum_task(int id, int n, void *cdata) {
  Sum *s = cdata;
  long lo = s->n * id / n, hi = s->n * (id + 1) / n;
  double acc = 0;
  for (long i = lo; i < hi; i++) acc += (double)s->x[i] * s->x[i];
  s->partial[id] = acc;
  return 0;
}

/* Best-of-runs time of one parallel sum of squares over n floats. */
static double bench_sum(int threads, const float *x, long n, double *result) {
  tvs_thread_pool_set_num_threads(threads);
  double best = 1e30;
  for (int run = 0; run < 7; run++) {
    Sum s = {.x = x, .n = n};
    double t0 = now_us();
    tvs_parallel_launch(sum_task, &s, threads);
    double acc = 0;
    for (int i = 0; i < threads; i++) acc += s.partial[i];
    double t = now_us() - t0;
    if (t < best) best = t;
    *result = acc;
  }
  return best;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 100000;
  if (reps < 10) reps = 10;
  printf("thread pool launch overhead (empty tasks, one per thread):\n");
  bench_launch(1, reps, 0);
  bench_launch(2, reps, 0);
  bench_rendezvous(reps / 10 > 100 ? reps / 10 : 100);
  bench_launch(2, reps / 100 > 100 ? reps / 100 : 100, 1000);

  long n = 1L << 24;
  float *x = malloc((size_t)n * sizeof *x);
  for (long i = 0; i < n; i++) x[i] = (float)(i % 101) * 0.01f;
  double r1, r2;
  double t1 = bench_sum(1, x, n, &r1), t2 = bench_sum(2, x, n, &r2);
  printf("parallel sum of squares, %ld floats (best of 7):\n", n);
  printf("  1 thread   %9.1f us\n  2 threads  %9.1f us   speed-up %.2fx   (results %s)\n", t1, t2,
         t1 / t2, r1 == r2 || (r1 - r2) / r1 < 1e-9 ? "agree" : "DIFFER");
  free(x);
  return 0;
}
