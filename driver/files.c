/* files.c - output files for the driver: temporary names in the final
 * file's own directory (so rename() is atomic), plain writes, and an early
 * check that the directory can take the output. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/drv_internal.h"
#include "base/util.h"
#include "runtime/temp_files.h"

char *drv_temp_path(const char *final, const char *suffix) {
  static int counter;
  const char *slash = strrchr(final, '/');
  int dirlen = slash ? (int)(slash - final + 1) : 0;
  const char *base = slash ? slash + 1 : final;
  char *path = xasprintf("%.*s.%s.tvsc-%ld-%d%s", dirlen, final, base, (long)getpid(), counter++,
                         suffix ? suffix : "");
  tvs_temp_register(path); /* a signal removes it until drv_temp_release */
  return path;
}

void drv_temp_release(char *path) {
  tvs_temp_forget(path);
  free(path);
}

int drv_write_file(const char *path, const char *data, size_t n, DiagCtx *d) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    diag_error(d, span_none, "cannot write '%s': %s", path, strerror(errno));
    return -1;
  }
  size_t off = 0;
  while (off < n) {
    ssize_t w = write(fd, data + off, n - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      diag_error(d, span_none, "cannot write '%s': %s", path, strerror(errno));
      close(fd);
      unlink(path);
      return -1;
    }
    off += (size_t)w;
  }
  if (close(fd) != 0) {
    diag_error(d, span_none, "cannot write '%s': %s", path, strerror(errno));
    unlink(path);
    return -1;
  }
  return 0;
}

int drv_check_writable(const char *final, DiagCtx *d) {
  const char *slash = strrchr(final, '/');
  char *dir = slash ? xasprintf("%.*s", (int)(slash - final) + (slash == final), final) : xstrdup(".");
  int rc = 0;
  if (access(dir, W_OK | X_OK) != 0) {
    diag_error(d, span_none, "cannot write '%s': directory '%s': %s", final, dir, strerror(errno));
    rc = -1;
  }
  free(dir);
  return rc;
}
