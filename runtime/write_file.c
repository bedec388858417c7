/* write_file.c - checked, atomic output files (see write_file.h). */
#include "runtime/write_file.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/npy.h" /* tvs_set_err */
#include "runtime/temp_files.h"

int tvs_write_all(int fd, const void *data, size_t n) {
  const char *p = data;
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = EIO;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static int write_parts(int fd, const void *const *parts, const size_t *sizes, int nparts) {
  for (int i = 0; i < nparts; i++)
    if (sizes[i] && tvs_write_all(fd, parts[i], sizes[i]) != 0) return -1;
  return 0;
}

/* The permissions a new file gets from open(..., 0666): what the umask allows. */
static mode_t umask_mode(void) {
  mode_t m = umask(022);
  umask(m);
  return 0666 & ~m;
}

/* path exists and is not a regular file: write into it in place. */
static int write_in_place(const char *path, const void *const *parts, const size_t *sizes, int nparts,
                          char *err, size_t errlen) {
  int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
  int rc = fd < 0 ? -1 : write_parts(fd, parts, sizes, nparts);
  int e = errno;
  if (fd >= 0 && close(fd) != 0 && rc == 0) rc = -1, e = errno;
  if (rc) tvs_set_err(err, errlen, "cannot write '%s': %s", path, strerror(e));
  return rc;
}

int tvs_write_file_atomic(const char *path, const void *const *parts, const size_t *sizes,
                          int nparts, char *err, size_t errlen) {
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) {
      tvs_set_err(err, errlen, "cannot write '%s': it is a directory", path);
      return -1;
    }
    return write_in_place(path, parts, sizes, nparts, err, errlen);
  }
  size_t plen = strlen(path);
  char *tmp = malloc(plen + 16);
  if (!tmp) {
    tvs_set_err(err, errlen, "cannot write '%s': out of memory", path);
    return -1;
  }
  snprintf(tmp, plen + 16, "%s.tmp.XXXXXX", path);
  /* signals wait while the file is created and registered: one arriving in
   * between would leave the temporary behind (removed if one comes later) */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  int fd = mkstemp(tmp);
  if (fd >= 0) tvs_temp_register(tmp);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (fd < 0) {
    tvs_set_err(err, errlen, "cannot write '%s': %s", path, strerror(errno));
    free(tmp);
    return -1;
  }
  /* mkstemp makes 0600; an existing file keeps its mode, a new one follows the umask */
  (void)fchmod(fd, stat(path, &st) == 0 ? (st.st_mode & 07777) : umask_mode());
  int rc = write_parts(fd, parts, sizes, nparts);
  int e = errno;
  if (close(fd) != 0 && rc == 0) rc = -1, e = errno;
  if (rc == 0 && rename(tmp, path) != 0) rc = -1, e = errno;
  if (rc) {
    tvs_set_err(err, errlen, "cannot write '%s': %s", path, strerror(e));
    unlink(tmp);
  }
  tvs_temp_forget(tmp);
  free(tmp);
  return rc;
}

int tvs_write_text_file(const char *path, const char *text, char *err, size_t errlen) {
  const void *parts[1] = {text};
  size_t sizes[1] = {strlen(text)};
  return tvs_write_file_atomic(path, parts, sizes, 1, err, errlen);
}

int tvs_flush_stdout(void) {
  if (fflush(stdout) != 0) return -1;
  if (ferror(stdout)) {
    errno = EIO;
    return -1;
  }
  return 0;
}
