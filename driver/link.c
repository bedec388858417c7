/* link.c - turning tvsc's object file into a shared object with the system
 * compiler driver (`cc -shared`, found via PATH; --cc or $CC override it).
 *
 * The .so links against libtvs_runtime.so when tvsc can find it: next to the
 * tvsc executable (the build tree) or in its ../lib (an install prefix), or
 * in --runtime-dir.  It then records DT_NEEDED libtvs_runtime.so and an rpath,
 * and -z defs proves every symbol is resolved at build time.  Without a
 * runtime (--runtime-dir none) the runtime's symbols stay undefined and are
 * resolved at load time from the process (which must provide them).
 * -Bsymbolic makes the packed entry call its own direct entry even when the
 * loading program defines a symbol of the same name (`main`). */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver/drv_internal.h"
#include "base/util.h"
#include "runtime/temp_files.h"

extern char **environ;

#ifndef TVSC_REL_LIBDIR
#define TVSC_REL_LIBDIR "../lib"
#endif

static bool has_runtime(const char *dir) {
  char *p = xasprintf("%s/libtvs_runtime.so", dir);
  struct stat st;
  bool ok = stat(p, &st) == 0 && S_ISREG(st.st_mode);
  free(p);
  return ok;
}

/* The directory of libtvs_runtime.so to link against (malloc'd, absolute),
 * or NULL for none. */
static char *find_runtime_dir(const DrvOptions *o, DiagCtx *d, bool *failed) {
  *failed = false;
  if (o->runtime_dir) {
    if (!strcmp(o->runtime_dir, "none")) return NULL;
    char real[PATH_MAX];
    if (!realpath(o->runtime_dir, real) || !has_runtime(real)) {
      diag_error(d, span_none, "--runtime-dir '%s' holds no libtvs_runtime.so", o->runtime_dir);
      *failed = true;
      return NULL;
    }
    return xstrdup(real);
  }
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return NULL;
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (!slash) return NULL;
  *slash = '\0';
  if (has_runtime(exe)) return xstrdup(exe);
  char *lib = xasprintf("%s/%s", exe, TVSC_REL_LIBDIR);
  char real[PATH_MAX];
  char *found = realpath(lib, real) && has_runtime(real) ? xstrdup(real) : NULL;
  free(lib);
  return found;
}

/* Splits a command such as "ccache gcc" into words appended to argv. */
static int split_words(const char *cmd, char **argv, int cap) {
  int n = 0;
  const char *p = cmd;
  while (*p && n < cap) {
    while (*p == ' ' || *p == '\t') p++;
    if (!*p) break;
    const char *s = p;
    while (*p && *p != ' ' && *p != '\t') p++;
    argv[n++] = xstrndup(s, (size_t)(p - s));
  }
  return n;
}

/* Starts the linker in a process group of its own, registered with the
 * temporary-file handler (runtime/temp_files.h) so that SIGINT/SIGTERM stop it
 * and everything it started before its output is removed.  The signals are
 * blocked until the group is registered, and unblocked in the child. */
static int spawn_linker(pid_t *pid, char **argv) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigmask(&attr, &old);
  int rc = posix_spawnp(pid, argv[0], NULL, &attr, argv, environ);
  posix_spawnattr_destroy(&attr);
  if (rc == 0) tvs_temp_set_child(*pid);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
}

int drv_link_shared(const DrvOptions *o, const char *obj, const char *out, bool cross, DiagCtx *d) {
  const char *cc = o->cc;
  if (!cc || !cc[0]) cc = getenv("CC");
  if (cross && (!o->cc || !o->cc[0])) {
    diag_error(d, span_none,
               "cannot link a shared object for %s with the host's linker: emit an object "
               "(-o FILE.o) or name a cross compiler driver with --cc",
               o->cg.triple);
    return -1;
  }
  if (!cc || !cc[0]) cc = "cc";
  bool failed;
  char *rtdir = cross ? NULL : find_runtime_dir(o, d, &failed);
  if (!cross && failed) return -1;

  char *argv[48];
  int argc = split_words(cc, argv, 8);
  if (argc == 0) {
    diag_error(d, span_none, "empty linker command");
    return -1;
  }
  int nowned = argc;
  argv[argc++] = "-shared";
  argv[argc++] = "-o";
  argv[argc++] = (char *)out;
  argv[argc++] = (char *)obj;
  argv[argc++] = "-Wl,-Bsymbolic";
  argv[argc++] = "-Wl,--build-id=none";
  char *ldir = NULL, *rpath = NULL;
  if (rtdir) {
    ldir = xasprintf("-L%s", rtdir);
    rpath = xasprintf("-Wl,-rpath,%s", rtdir);
    argv[argc++] = ldir;
    argv[argc++] = "-ltvs_runtime";
    argv[argc++] = rpath;
    argv[argc++] = "-Wl,-z,defs";
  }
  argv[argc++] = "-lm";
  argv[argc++] = "-lpthread";
  argv[argc] = NULL;
  if (o->verbose) {
    fputs("tvsc: link:", o->log);
    for (int i = 0; i < argc; i++) fprintf(o->log, " %s", argv[i]);
    fputc('\n', o->log);
    if (!rtdir && !cross)
      fputs("tvsc: note: no libtvs_runtime.so found; runtime symbols resolve at load time\n", o->log);
  }
  fflush(NULL);
  int status = 0;
  pid_t pid;
  int rc = spawn_linker(&pid, argv);
  if (rc != 0) {
    diag_error(d, span_none, "cannot run the linker '%s': %s", argv[0], strerror(rc));
  } else {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    tvs_temp_set_child(0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      diag_error(d, span_none, "linking '%s' failed ('%s' exited with status %d)", o->output, argv[0],
                 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
      rc = -1;
    }
  }
  for (int i = 0; i < nowned; i++) free(argv[i]);
  free(ldir);
  free(rpath);
  free(rtdir);
  return rc == 0 ? 0 : -1;
}
