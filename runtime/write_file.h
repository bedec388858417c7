/* write_file.h - writing output files so that a failure is reported and never
 * leaves a half-written file: every write and the final close are checked,
 * regular files are written to a temporary name beside them and renamed into
 * place, and new files follow the umask like any shell redirection. */
#ifndef TVS_RUNTIME_WRITE_FILE_H
#define TVS_RUNTIME_WRITE_FILE_H

#include <stddef.h>

/* Writes the concatenated parts to path: through a temporary file renamed
 * over path when path is (or will be) a regular file; straight into it when it
 * already exists as something else (/dev/null, /dev/full, a pipe), which a
 * rename would replace.  Returns 0, or -1 with a message in err[0..errlen)
 * ("cannot write 'PATH': REASON"). */
int tvs_write_file_atomic(const char *path, const void *const *parts, const size_t *sizes,
                          int nparts, char *err, size_t errlen);
/* tvs_write_file_atomic of one NUL-terminated text. */
int tvs_write_text_file(const char *path, const char *text, char *err, size_t errlen);
/* Writes n bytes to fd, retrying short writes; 0, or -1 with errno set. */
int tvs_write_all(int fd, const void *data, size_t n);
/* Flushes stdout and checks that everything written to it arrived; 0, or -1
 * with errno set (a full disk or a closed pipe behind stdout). */
int tvs_flush_stdout(void);

#endif
