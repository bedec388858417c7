/* common.c - option handling and module loading shared by tvs subcommands. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lang/elab.h"
#include "base/util.h"
#include "tools/tvs/tvs.h"

int tool_usage_error(const char *cmd, const char *fmt, ...) {
  fprintf(stderr, "tvs %s: error: ", cmd);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return 2;
}

int tool_common_option(ToolCommon *c, int argc, char **argv, int *i) {
  const char *a = argv[*i];
  const char *val = NULL;
  if (!strncmp(a, "--diagnostics-format", 20)) {
    if (a[20] == '=') val = a + 21;
    else if (a[20] == '\0' && *i + 1 < argc) val = argv[++*i];
    else if (a[20] != '\0') return 0;
    if (!val) return tool_usage_error("", "--diagnostics-format needs a value (text or json)"), -1;
    if (!strcmp(val, "json")) c->diag_format = DIAG_FORMAT_JSON;
    else if (!strcmp(val, "text")) c->diag_format = DIAG_FORMAT_TEXT;
    else return tool_usage_error("", "unknown diagnostics format '%s' (expected text or json)", val), -1;
    return 1;
  }
  if (!strncmp(a, "--color", 7) && (a[7] == '=' || a[7] == '\0')) {
    val = a[7] == '=' ? a + 8 : "always";
    if (!strcmp(val, "always")) c->color = 1;
    else if (!strcmp(val, "never")) c->color = 0;
    else if (!strcmp(val, "auto")) c->color = -1;
    else return tool_usage_error("", "unknown --color value '%s'", val), -1;
    return 1;
  }
  return 0;
}

void tool_diag_init(DiagCtx *d, const ToolCommon *c) {
  diag_init(d, stderr);
  d->format = c->diag_format;
  if (c->color == 0 || c->diag_format == DIAG_FORMAT_JSON) d->color = false;
  else if (c->color == 1) d->color = true;
}

IrModule *tool_load(const char *path, DiagCtx *d, SourceFile **src_out) {
  const char *err = NULL;
  SourceFile *src = src_from_path(path, &err);
  *src_out = src;
  if (!src) {
    if (d->format == DIAG_FORMAT_JSON) {
      Diag rec = {.sev = DIAG_ERROR, .span = span_none};
      rec.msg = xasprintf("cannot open '%s': %s", path, err);
      diag_render(&rec, stderr, DIAG_FORMAT_JSON, false);
      free(rec.msg);
    } else {
      fprintf(stderr, "tvs: error: cannot open '%s': %s\n", path, err);
    }
    return NULL;
  }
  IrModule *m = tvs_load_module(src, d);
  diag_flush(d);
  if (d->nerr) {
    ir_module_free(m);
    return NULL;
  }
  return m;
}
