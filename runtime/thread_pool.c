/* thread_pool.c - the parallel runtime of compiled kernels: persistent
 * workers that spin briefly and then sleep on a futex, and a launch in which
 * the caller runs task 0 and helps claim the rest, so a stalled core never
 * holds up a launch whose tasks nobody has started yet. */
#define _GNU_SOURCE
#include "runtime/tvs_runtime.h"

#include <alloca.h>
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 256
#define DEFAULT_SPIN_NS 10000 /* spin this long before sleeping (TVS_SPIN_US overrides) */

/* One pool per process.  Job fields are atomics: a late worker may read them
 * while the next launch rewrites them, and then its claim (which carries the
 * launch's generation) fails, so mixed values are never used (see
 * claim_and_run). */
static struct {
  atomic_int busy;               /* 1 while one thread owns the pool (launch, resize) */
  int nworkers;                  /* running workers; written only by the busy owner */
  pthread_t threads[MAX_THREADS];
  _Atomic(TVSParallelTask) task; /* the current launch's task */
  _Atomic(void *) cdata;         /* ...its closure data */
  atomic_int num_tasks;          /* ...its task count */
  _Atomic uint64_t claim;        /* generation << 32 | next unclaimed task id */
  atomic_uint gen;               /* launch generation; workers sleep on it */
  atomic_uint done;              /* finished tasks of this launch; the caller sleeps on it */
  atomic_int sleepers;           /* workers blocked (or about to block) on gen */
  atomic_int caller_waiting;     /* the caller blocked (or about to block) on done */
  atomic_int failed;             /* a task of this launch failed; first one wins */
  atomic_int shutdown;           /* workers exit at the next generation */
  char err[1024];                /* the first failure's message (written by its winner) */
} P;

static atomic_int cfg_threads;   /* 0 until resolved */
static atomic_long cfg_spin_ns = -1;
static __thread int tls_in_parallel;
static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

/* ---- low-level waiting ---------------------------------------------------- */

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static void futex_wait(atomic_uint *addr, unsigned expect) {
  syscall(SYS_futex, (unsigned *)addr, FUTEX_WAIT_PRIVATE, expect, NULL, NULL, 0);
}

static void futex_wake(atomic_uint *addr, int n) {
  syscall(SYS_futex, (unsigned *)addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

static long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static long spin_ns(void) {
  long v = atomic_load_explicit(&cfg_spin_ns, memory_order_relaxed);
  if (v >= 0) return v;
  v = DEFAULT_SPIN_NS;
  const char *s = getenv("TVS_SPIN_US");
  if (s && *s) {
    char *end;
    long us = strtol(s, &end, 10);
    if (*end == '\0' && us >= 0 && us < 1000000) v = us * 1000;
  }
  atomic_store_explicit(&cfg_spin_ns, v, memory_order_relaxed);
  return v;
}

/* Spins until *addr != old or the spin budget runs out; returns the value seen. */
static unsigned spin_while_equal(atomic_uint *addr, unsigned old) {
  long budget = spin_ns(), start = 0;
  for (unsigned i = 0;; i++) {
    unsigned v = atomic_load_explicit(addr, memory_order_acquire);
    if (v != old) return v;
    if ((i & 63) == 0) {
      long t = now_ns();
      if (i == 0) start = t;
      else if (t - start >= budget) return v;
    }
    cpu_relax();
  }
}

/* Spins until *addr == target or the spin budget runs out; returns the value seen. */
static unsigned spin_until_equal(atomic_uint *addr, unsigned target) {
  long budget = spin_ns(), start = 0;
  for (unsigned i = 0;; i++) {
    unsigned v = atomic_load_explicit(addr, memory_order_acquire);
    if (v == target) return v;
    if ((i & 63) == 0) {
      long t = now_ns();
      if (i == 0) start = t;
      else if (t - start >= budget) return v;
    }
    cpu_relax();
  }
}

/* ---- configuration -------------------------------------------------------- */

static int default_threads(void) {
  const char *s = getenv("TVS_NUM_THREADS");
  if (s && *s) {
    char *end;
    long v = strtol(s, &end, 10);
    if (*end == '\0' && v > 0) return v > MAX_THREADS ? MAX_THREADS : (int)v;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int c = CPU_COUNT(&set);
    if (c > 0 && (n <= 0 || c < n)) n = c;
  }
  if (n < 1) n = 1;
  return n > MAX_THREADS ? MAX_THREADS : (int)n;
}

int tvs_thread_pool_num_threads(void) {
  int v = atomic_load_explicit(&cfg_threads, memory_order_relaxed);
  if (v > 0) return v;
  int expect = 0;
  v = default_threads();
  if (!atomic_compare_exchange_strong(&cfg_threads, &expect, v)) v = expect;
  return v;
}

int tvs_in_parallel_region(void) { return tls_in_parallel; }

/* ---- running tasks -------------------------------------------------------- */

/* Runs task id i; on failure the first failing task publishes its message. */
static void run_one(TVSParallelTask task, int i, int n, void *cdata) {
  tvs_clear_last_error();
  int rc = task(i, n, cdata);
  if (rc != 0) {
    int expect = 0;
    if (atomic_compare_exchange_strong(&P.failed, &expect, 1)) {
      const char *msg = tvs_get_last_error();
      if (msg[0]) snprintf(P.err, sizeof P.err, "%s", msg);
      else
        snprintf(P.err, sizeof P.err, "tvs_parallel_launch: task %d of %d failed with code %d", i,
                 n, rc);
    }
  }
  unsigned d = atomic_fetch_add(&P.done, 1) + 1;
  if (d == (unsigned)n && atomic_load(&P.caller_waiting)) futex_wake(&P.done, 1);
}

/* Claims and runs tasks of generation g until none is left.  All accesses
 * are seq_cst: a launch first closes the claim word, then rewrites the job,
 * so if any job field read here came from a later launch, the closing store
 * precedes that read and the CAS below fails.  A successful CAS therefore
 * means launch g was still open and task, cdata and n were all its own. */
static void claim_and_run(unsigned g) {
  for (;;) {
    uint64_t c = atomic_load(&P.claim);
    if ((unsigned)(c >> 32) != g) return;
    uint32_t i = (uint32_t)c;
    int n = atomic_load(&P.num_tasks);
    if (i >= (uint32_t)n) return;
    TVSParallelTask task = atomic_load(&P.task);
    void *cdata = atomic_load(&P.cdata);
    if (atomic_compare_exchange_weak(&P.claim, &c, c + 1)) run_one(task, (int)i, n, cdata);
  }
}

static void *worker_main(void *arg) {
  /* Tasks start at a fixed offset within a 4 KiB page, as the caller's do
   * (the packed entry aligns its stack): the top of a thread's stack depends
   * on the process's TLS size, and where a kernel's stack buffers fall
   * against its page-aligned operands changes its speed (4 KiB aliasing). */
  volatile char *pad = alloca(((uintptr_t)__builtin_frame_address(0) & 4095) + 16);
  pad[0] = 0;
  tls_in_parallel = 1; /* launches from tasks run serially */
  unsigned seen = (unsigned)(uintptr_t)arg;
  for (;;) {
    unsigned g = spin_while_equal(&P.gen, seen);
    if (g == seen) {
      atomic_fetch_add(&P.sleepers, 1);
      while ((g = atomic_load(&P.gen)) == seen) futex_wait(&P.gen, seen);
      atomic_fetch_sub(&P.sleepers, 1);
    }
    seen = g;
    if (atomic_load(&P.shutdown)) return NULL;
    claim_and_run(g);
  }
}

/* ---- pool lifetime (callers own P.busy) ----------------------------------- */

static void stop_workers(void) {
  if (P.nworkers == 0) return;
  atomic_store(&P.shutdown, 1);
  atomic_fetch_add(&P.gen, 1);
  futex_wake(&P.gen, INT_MAX);
  for (int i = 0; i < P.nworkers; i++) pthread_join(P.threads[i], NULL);
  P.nworkers = 0;
  atomic_store(&P.shutdown, 0);
}

static void at_exit_handler(void) { tvs_thread_pool_shutdown(); }

/* A forked child has no workers: forget them. */
static void at_fork_child(void) {
  P.nworkers = 0;
  atomic_store(&P.busy, 0);
  atomic_store(&P.sleepers, 0);
  atomic_store(&P.caller_waiting, 0);
  atomic_store(&P.shutdown, 0);
  tls_in_parallel = 0;
}

static void install_hooks(void) {
  atexit(at_exit_handler);
  pthread_atfork(NULL, NULL, at_fork_child);
}

static void start_workers(int want) {
  pthread_once(&hooks_once, install_hooks);
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old); /* workers never take signals */
  uintptr_t g = atomic_load(&P.gen);
  while (P.nworkers < want) {
    if (pthread_create(&P.threads[P.nworkers], NULL, worker_main, (void *)g) != 0) break;
    P.nworkers++;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static int try_own(void) {
  int expect = 0;
  return atomic_compare_exchange_strong_explicit(&P.busy, &expect, 1, memory_order_acquire,
                                                 memory_order_relaxed);
}

static void disown(void) { atomic_store_explicit(&P.busy, 0, memory_order_release); }

void tvs_thread_pool_shutdown(void) {
  if (tls_in_parallel || !try_own()) return; /* a task or another launch: leave it */
  stop_workers();
  disown();
}

int tvs_thread_pool_set_num_threads(int n) {
  if (tls_in_parallel) {
    tvs_set_last_error("tvs_thread_pool_set_num_threads: called from inside a parallel task");
    return -1;
  }
  if (!try_own()) {
    tvs_set_last_error("tvs_thread_pool_set_num_threads: a parallel launch is running");
    return -1;
  }
  stop_workers();
  atomic_store(&cfg_threads, n > 0 ? (n > MAX_THREADS ? MAX_THREADS : n) : default_threads());
  disown();
  return 0;
}

/* ---- launch ---------------------------------------------------------------- */

static int run_serial(TVSParallelTask task, void *cdata, int n) {
  int saved = tls_in_parallel, failed = 0;
  char msg[1024];
  tls_in_parallel = 1;
  for (int i = 0; i < n; i++) {
    tvs_clear_last_error();
    int rc = task(i, n, cdata);
    if (rc != 0 && !failed) {
      failed = 1;
      if (tvs_get_last_error()[0]) snprintf(msg, sizeof msg, "%s", tvs_get_last_error());
      else
        snprintf(msg, sizeof msg, "tvs_parallel_launch: task %d of %d failed with code %d", i, n,
                 rc);
    }
  }
  tls_in_parallel = saved;
  if (failed) tvs_set_last_error_str(msg);
  return failed ? -1 : 0;
}

int tvs_parallel_launch(TVSParallelTask task, void *cdata, int num_tasks) {
  if (!task) {
    tvs_set_last_error("tvs_parallel_launch: null task");
    return -1;
  }
  int n = num_tasks > 0 ? num_tasks : tvs_thread_pool_num_threads();
  if (n == 1 || tls_in_parallel) return run_serial(task, cdata, n);
  if (!try_own()) return run_serial(task, cdata, n);
  int want = tvs_thread_pool_num_threads() - 1;
  if (P.nworkers != want) {
    stop_workers();
    start_workers(want);
  }
  if (P.nworkers == 0) {
    disown();
    return run_serial(task, cdata, n);
  }

  /* Publish the job: close the claim word (a worker still looking at the
   * previous launch must not claim from it with this job's fields), write
   * the fields, open the claim word, then announce the generation. */
  unsigned g = atomic_load(&P.gen) + 1;
  atomic_store(&P.claim, (uint64_t)g << 32 | UINT32_MAX);
  atomic_store(&P.task, task);
  atomic_store(&P.cdata, cdata);
  atomic_store(&P.num_tasks, n);
  atomic_store(&P.done, 0);
  atomic_store(&P.failed, 0);
  atomic_store(&P.claim, (uint64_t)g << 32 | 1u);
  atomic_store(&P.gen, g);
  /* Wake only as many sleepers as there are other tasks; correctness never
   * depends on who wakes, since the caller claims whatever is left. */
  if (atomic_load(&P.sleepers) > 0) futex_wake(&P.gen, n - 1 < P.nworkers ? n - 1 : INT_MAX);

  tls_in_parallel = 1;
  run_one(task, 0, n, cdata);
  claim_and_run(g);
  unsigned d = spin_until_equal(&P.done, (unsigned)n);
  if (d != (unsigned)n) {
    atomic_store(&P.caller_waiting, 1);
    while ((d = atomic_load(&P.done)) != (unsigned)n) futex_wait(&P.done, d);
    atomic_store(&P.caller_waiting, 0);
  }
  tls_in_parallel = 0;

  int rc = 0;
  if (atomic_load(&P.failed)) {
    tvs_set_last_error_str(P.err);
    rc = -1;
  }
  disown();
  return rc;
}
