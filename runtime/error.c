/* error.c - the thread-local last-error message of the runtime ABI.
 *
 * A fixed buffer per thread: setting an error never allocates, so it works
 * out of memory and in threads that exit without cleanup. */
#include "runtime/tvs_runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define TVS_ERROR_CAP 1024

static __thread char tls_error[TVS_ERROR_CAP];

void tvs_set_last_error(const char *fmt, ...) {
  /* Format into scratch first: the arguments may point into tls_error. */
  char tmp[TVS_ERROR_CAP];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  memcpy(tls_error, tmp, sizeof tmp);
}

void tvs_set_last_error_str(const char *msg) {
  if (!msg) msg = "";
  if (msg == tls_error) return;
  size_t n = strlen(msg);
  if (n >= TVS_ERROR_CAP) n = TVS_ERROR_CAP - 1;
  memmove(tls_error, msg, n);
  tls_error[n] = '\0';
}

const char *tvs_get_last_error(void) { return tls_error; }

void tvs_clear_last_error(void) { tls_error[0] = '\0'; }
