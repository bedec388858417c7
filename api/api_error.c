/* api_error.c - the thread's error message, status names, the version and
 * string ownership of the public API. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"

/* Diagnostics with their source lines and carets fit; longer text is cut. */
#define API_ERROR_CAP 16384

static __thread char tls_msg[API_ERROR_CAP];

const char *tvs_last_error(void) { return tls_msg; }

void api_clear_error(void) { tls_msg[0] = '\0'; }

int api_fail(int status, const char *fmt, ...) {
  char tmp[API_ERROR_CAP]; /* fmt's arguments may point into tls_msg */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  memcpy(tls_msg, tmp, sizeof tmp);
  return status;
}

int api_fail_diag(int status, const DiagCtx *d, const char *fallback) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (f) {
    for (int i = 0; i < d->len; i++) diag_render(&d->items[i], f, DIAG_FORMAT_TEXT, false);
    fclose(f);
  }
  while (len > 0 && buf[len - 1] == '\n') buf[--len] = '\0';
  if (len) snprintf(tls_msg, sizeof tls_msg, "%s", buf);
  else snprintf(tls_msg, sizeof tls_msg, "%s", fallback ? fallback : "unknown error");
  free(buf);
  return status;
}

int api_take_text(StrBuf *sb, char **out) {
  *out = xstrdup(sb->data ? sb->data : "");
  sb_free(sb);
  return TVS_OK;
}

const char *tvs_status_name(int status) {
  switch (status) {
    case TVS_OK: return "TVS_OK";
    case TVS_ERR_ARGUMENT: return "TVS_ERR_ARGUMENT";
    case TVS_ERR_PARSE: return "TVS_ERR_PARSE";
    case TVS_ERR_SCHEDULE: return "TVS_ERR_SCHEDULE";
    case TVS_ERR_BUILD: return "TVS_ERR_BUILD";
    case TVS_ERR_RUN: return "TVS_ERR_RUN";
    case TVS_ERR_IO: return "TVS_ERR_IO";
    default: return "TVS_ERR_UNKNOWN";
  }
}

#ifndef TVS_VERSION_STRING
#define TVS_VERSION_STRING "0.0.0"
#endif

const char *tvs_version(void) { return TVS_VERSION_STRING; }

void tvs_string_free(char *s) { free(s); }
