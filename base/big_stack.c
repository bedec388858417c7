/* big_stack.c - see big_stack.h. */
#include "base/big_stack.h"

#include <pthread.h>
#include <signal.h>

typedef struct {
  int (*fn)(int, char **);
  int argc;
  char **argv;
  int rc;
} MainCall;

static void *call_main(void *p) {
  MainCall *m = p;
  m->rc = m->fn(m->argc, m->argv);
  return NULL;
}

int tvs_run_on_big_stack(int (*fn)(int argc, char **argv), int argc, char **argv) {
  MainCall m = {fn, argc, argv, 0};
  /* a system with a small address-space limit may refuse 1 GiB: try less */
  for (size_t size = TVS_BIG_STACK_BYTES; size >= ((size_t)64 << 20); size /= 4) {
    pthread_attr_t attr;
    if (pthread_attr_init(&attr)) break;
    pthread_t th;
    int bad = pthread_attr_setstacksize(&attr, size) || pthread_create(&th, &attr, call_main, &m);
    pthread_attr_destroy(&attr);
    if (!bad) {
      /* signals go to the thread that runs the tool (the REPL's Ctrl-C must
       * interrupt its read, not this join) */
      sigset_t all;
      sigfillset(&all);
      pthread_sigmask(SIG_BLOCK, &all, NULL);
      pthread_join(th, NULL);
      return m.rc;
    }
  }
  return fn(argc, argv);
}
