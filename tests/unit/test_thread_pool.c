/* test_thread_pool.c - tvs_parallel_launch: every task id runs exactly once
 * per launch (10,000 launches), nested and concurrent launches run without
 * deadlock, task errors propagate, and the thread count follows
 * TVS_NUM_THREADS and tvs_thread_pool_set_num_threads.  No timing asserts. */
#include "runtime/tvs_runtime.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"

#define MAX_TASKS 64

typedef struct {
  atomic_int hits[MAX_TASKS];    /* runs of each task id */
  atomic_int bad_n;              /* tasks that saw the wrong num_tasks */
  int expect_n;                  /* the launch's num_tasks */
} Counts;

static int count_task(int id, int n, void *cdata) {
  Counts *c = cdata;
  if (n != c->expect_n) atomic_fetch_add(&c->bad_n, 1);
  if (id >= 0 && id < MAX_TASKS) atomic_fetch_add(&c->hits[id], 1);
  return 0;
}

/* Launches n tasks (0: the pool's count) and checks each id ran once. */
static int launch_once_each(int n) {
  Counts c;
  memset(&c, 0, sizeof c);
  c.expect_n = n > 0 ? n : tvs_thread_pool_num_threads();
  if (tvs_parallel_launch(count_task, &c, n) != 0) return 0;
  if (atomic_load(&c.bad_n)) return 0;
  for (int i = 0; i < MAX_TASKS; i++)
    if (atomic_load(&c.hits[i]) != (i < c.expect_n ? 1 : 0)) return 0;
  return 1;
}

/* Task 0 waits until task 1 has started: completes only if a worker really
 * runs task 1 while the caller is busy with task 0 (no timing involved). */
static int rendezvous_task(int id, int n, void *cdata) {
  atomic_int *started = cdata;
  if (id == 1) atomic_store(started, 1);
  else
    while (!atomic_load(started)) sched_yield();
  return 0;
}

static void test_env_and_basic(void) {
  /* Before first use: the environment decides. */
  setenv("TVS_NUM_THREADS", "2", 1);
  CHECK_EQ_INT(tvs_thread_pool_num_threads(), 2);
  CHECK_EQ_INT(tvs_in_parallel_region(), 0);
  CHECK(launch_once_each(0));
  CHECK(launch_once_each(2));
  CHECK(launch_once_each(1));
  CHECK(launch_once_each(5)); /* more tasks than threads */
  CHECK(launch_once_each(MAX_TASKS));
  for (int rep = 0; rep < 20; rep++) {
    atomic_int started = 0;
    CHECK_EQ_INT(tvs_parallel_launch(rendezvous_task, &started, 2), 0);
  }
}

static void test_many_launches(void) {
  int ok = 0;
  for (int i = 0; i < 10000; i++) ok += launch_once_each(1 + i % 4);
  CHECK_EQ_INT(ok, 10000);
}

/* A reduction: each task sums a slice; compare with the serial sum. */
typedef struct {
  const double *x;
  long n;
  double partial[MAX_TASKS];
} Reduce;

static int reduce_task(int id, int n, void *cdata) {
  Reduce *r = cdata;
  long lo = r->n * id / n, hi = r->n * (id + 1) / n;
  double s = 0;
  for (long i = lo; i < hi; i++) s += r->x[i];
  r->partial[id] = s;
  return 0;
}

static void test_reduction(void) {
  long n = 100000;
  double *x = malloc((size_t)n * sizeof *x);
  for (long i = 0; i < n; i++) x[i] = (double)(i % 7);
  double expect = 0;
  for (long i = 0; i < n; i++) expect += x[i];
  for (int tasks = 1; tasks <= 8; tasks++) {
    Reduce r = {.x = x, .n = n};
    CHECK_EQ_INT(tvs_parallel_launch(reduce_task, &r, tasks), 0);
    double s = 0;
    for (int i = 0; i < tasks; i++) s += r.partial[i];
    CHECK(s == expect); /* small integers: exact in any order */
  }
  free(x);
}

/* Nesting: each outer task launches an inner launch, which runs serially. */
typedef struct {
  atomic_int inner_hits[MAX_TASKS][MAX_TASKS];
  atomic_int not_in_region;
  atomic_int inner_failed;
  atomic_int set_threads_refused;
} Nest;

typedef struct {
  Nest *nest;
  int outer;
} InnerArg;

static int inner_task(int id, int n, void *cdata) {
  InnerArg *a = cdata;
  if (!tvs_in_parallel_region()) atomic_fetch_add(&a->nest->not_in_region, 1);
  atomic_fetch_add(&a->nest->inner_hits[a->outer][id], 1);
  return 0;
}

static int outer_task(int id, int n, void *cdata) {
  Nest *nest = cdata;
  if (!tvs_in_parallel_region()) atomic_fetch_add(&nest->not_in_region, 1);
  if (tvs_thread_pool_set_num_threads(3) != 0 &&
      !strcmp(tvs_get_last_error(),
              "tvs_thread_pool_set_num_threads: called from inside a parallel task"))
    atomic_fetch_add(&nest->set_threads_refused, 1);
  InnerArg a = {nest, id};
  if (tvs_parallel_launch(inner_task, &a, 4) != 0) atomic_fetch_add(&nest->inner_failed, 1);
  return 0;
}

static void test_nested(void) {
  Nest *nest = calloc(1, sizeof *nest);
  for (int rep = 0; rep < 100; rep++)
    CHECK_EQ_INT(tvs_parallel_launch(outer_task, nest, 3), 0);
  int ok = 1;
  for (int o = 0; o < 3; o++)
    for (int i = 0; i < 4; i++) ok &= atomic_load(&nest->inner_hits[o][i]) == 100;
  CHECK(ok);
  CHECK_EQ_INT(atomic_load(&nest->not_in_region), 0);
  CHECK_EQ_INT(atomic_load(&nest->inner_failed), 0);
  CHECK_EQ_INT(atomic_load(&nest->set_threads_refused), 300);
  CHECK_EQ_INT(tvs_in_parallel_region(), 0);
  free(nest);
}

/* Errors: one task fails with a message; the others still run once. */
typedef struct {
  atomic_int hits[MAX_TASKS];
  int fail_id;                   /* the task that fails */
  int with_message;              /* whether it sets a message */
} FailArg;

static int failing_task(int id, int n, void *cdata) {
  FailArg *f = cdata;
  atomic_fetch_add(&f->hits[id], 1);
  if (id != f->fail_id) return 0;
  if (f->with_message) tvs_set_last_error("kernel: task %d of %d overflowed", id, n);
  return 7;
}

static void check_failure(int fail_id, int with_message, int n, const char *expect) {
  FailArg f;
  memset(&f, 0, sizeof f);
  f.fail_id = fail_id;
  f.with_message = with_message;
  tvs_clear_last_error();
  CHECK(tvs_parallel_launch(failing_task, &f, n) != 0);
  CHECK_EQ_STR(tvs_get_last_error(), expect);
  int ok = 1;
  for (int i = 0; i < n; i++) ok &= atomic_load(&f.hits[i]) == 1;
  CHECK(ok);
}

static void test_errors(void) {
  check_failure(1, 1, 2, "kernel: task 1 of 2 overflowed");
  check_failure(0, 1, 2, "kernel: task 0 of 2 overflowed");
  check_failure(3, 1, 4, "kernel: task 3 of 4 overflowed");
  check_failure(2, 0, 4, "tvs_parallel_launch: task 2 of 4 failed with code 7");
  check_failure(0, 1, 1, "kernel: task 0 of 1 overflowed"); /* serial path */
  /* The pool is fine afterwards. */
  CHECK(launch_once_each(2));
  CHECK_EQ_INT(tvs_parallel_launch(NULL, NULL, 2), -1);
  CHECK_EQ_STR(tvs_get_last_error(), "tvs_parallel_launch: null task");
}

/* Several user threads launching at once: one owns the pool, the others run
 * serially; all results are right. */
static void *launcher_thread(void *arg) {
  int ok = 0;
  for (int i = 0; i < 500; i++) ok += launch_once_each(2 + i % 3);
  return (void *)(intptr_t)ok;
}

static void test_concurrent_launchers(void) {
  pthread_t th[3];
  for (int i = 0; i < 3; i++) pthread_create(&th[i], NULL, launcher_thread, NULL);
  int ok = 0;
  for (int i = 0; i < 3; i++) {
    void *r;
    pthread_join(th[i], &r);
    ok += (int)(intptr_t)r;
  }
  CHECK_EQ_INT(ok, 1500);
}

static void test_thread_counts(void) {
  /* TVS_NUM_THREADS=1: everything runs in the caller. */
  setenv("TVS_NUM_THREADS", "1", 1);
  CHECK_EQ_INT(tvs_thread_pool_set_num_threads(0), 0); /* back to the (new) default */
  CHECK_EQ_INT(tvs_thread_pool_num_threads(), 1);
  CHECK(launch_once_each(0));
  CHECK(launch_once_each(3));
  int ok = 0;
  for (int i = 0; i < 1000; i++) ok += launch_once_each(1 + i % 3);
  CHECK_EQ_INT(ok, 1000);

  /* Explicit counts, including more threads than cores. */
  CHECK_EQ_INT(tvs_thread_pool_set_num_threads(4), 0);
  CHECK_EQ_INT(tvs_thread_pool_num_threads(), 4);
  ok = 0;
  for (int i = 0; i < 2000; i++) ok += launch_once_each(i % 6);
  CHECK_EQ_INT(ok, 2000);
  CHECK_EQ_INT(tvs_thread_pool_set_num_threads(1000), 0);
  CHECK_EQ_INT(tvs_thread_pool_num_threads(), 256);
  CHECK_EQ_INT(tvs_thread_pool_set_num_threads(2), 0);
  CHECK(launch_once_each(0));

  /* Garbage in the environment falls back to the CPU count. */
  setenv("TVS_NUM_THREADS", "lots", 1);
  CHECK_EQ_INT(tvs_thread_pool_set_num_threads(0), 0);
  CHECK(tvs_thread_pool_num_threads() >= 1);
  unsetenv("TVS_NUM_THREADS");

  /* Shutdown, then a lazy restart. */
  CHECK_EQ_INT(tvs_thread_pool_set_num_threads(2), 0);
  CHECK(launch_once_each(2));
  tvs_thread_pool_shutdown();
  CHECK(launch_once_each(2));
}

int main(void) {
  test_env_and_basic();
  test_many_launches();
  test_reduction();
  test_nested();
  test_errors();
  test_concurrent_launchers();
  test_thread_counts();
  /* The pool is left running: the atexit handler must join it (LSan clean). */
  CHECK(launch_once_each(2));
  TEST_MAIN_END();
}
