/* temp_files.c - the registry of temporary files and the signal handler that
 * removes them (temp_files.h).  The handler may only make async-signal-safe
 * calls: it reads a fixed table of pointers that registration fills with
 * atomic compare-and-swap, and calls kill, waitpid, unlink and nanosleep. */
#include "runtime/temp_files.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TEMP_SLOTS 64
static char *temp_slots[TEMP_SLOTS]; /* registered paths; NULL = free slot */
static pid_t temp_child;             /* process group being waited for, or 0 */

void tvs_temp_register(const char *path) {
  char *copy = strdup(path);
  if (!copy) return;
  for (int i = 0; i < TEMP_SLOTS; i++) {
    char *expected = NULL;
    if (__atomic_compare_exchange_n(&temp_slots[i], &expected, copy, false, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST))
      return;
  }
  free(copy);
}

void tvs_temp_forget(const char *path) {
  for (int i = 0; i < TEMP_SLOTS; i++) {
    char *p = __atomic_load_n(&temp_slots[i], __ATOMIC_SEQ_CST);
    if (p && !strcmp(p, path) &&
        __atomic_compare_exchange_n(&temp_slots[i], &p, NULL, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
      free(p);
      return;
    }
  }
}

void tvs_temp_set_child(pid_t pgid) { __atomic_store_n(&temp_child, pgid, __ATOMIC_SEQ_CST); }

static void remove_all(void) {
  for (int i = 0; i < TEMP_SLOTS; i++) {
    char *p = __atomic_load_n(&temp_slots[i], __ATOMIC_SEQ_CST);
    if (p) unlink(p);
  }
}

static void on_signal(int sig) {
  pid_t child = __atomic_load_n(&temp_child, __ATOMIC_SEQ_CST);
  if (child > 0) {
    kill(-child, SIGTERM); /* the linker driver and the ld it started */
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {
    }
  }
  remove_all();
  /* A grandchild killed mid-syscall may still create its output: look again. */
  struct timespec pause = {0, 20 * 1000 * 1000};
  nanosleep(&pause, NULL);
  remove_all();
  signal(sig, SIG_DFL);
  raise(sig);
}

void tvs_temp_install_signal_handlers(void) {
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
    struct sigaction old, sa;
    if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t k = 0; k < sizeof sigs / sizeof *sigs; k++) sigaddset(&sa.sa_mask, sigs[k]);
    sigaction(sigs[i], &sa, NULL);
  }
}
