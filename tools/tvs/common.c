/* common.c - option handling and module loading shared by tvs subcommands. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/load.h"
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

enum { COMMON_DIAG_FORMAT, COMMON_COLOR };

const ToolOption tool_common_options[] = {
    {COMMON_DIAG_FORMAT, "--diagnostics-format", NULL, "text|json", 0, "how errors are printed (default text)"},
    {COMMON_COLOR, "--color", NULL, "auto|always|never", OPT_EQ_ONLY,
     "colour diagnostics (NO_COLOR also disables)"},
    {0, NULL, NULL, NULL, 0, NULL},
};

int tool_common_option(ToolCommon *c, int argc, char **argv, int *i) {
  const char *val, *spelled;
  bool missing;
  const ToolOption *o = opt_match(tool_common_options, argc, argv, i, &val, &spelled, &missing);
  if (!o) return 0;
  if (o->id == COMMON_DIAG_FORMAT) {
    if (missing) return tool_usage_error("", "--diagnostics-format needs a value (text or json)"), -1;
    if (!strcmp(val, "json")) c->diag_format = DIAG_FORMAT_JSON;
    else if (!strcmp(val, "text")) c->diag_format = DIAG_FORMAT_TEXT;
    else return tool_usage_error("", "unknown diagnostics format '%s' (expected text or json)", val), -1;
    return 1;
  }
  if (!val) val = "always";
  if (!strcmp(val, "always")) c->color = 1;
  else if (!strcmp(val, "never")) c->color = 0;
  else if (!strcmp(val, "auto")) c->color = -1;
  else return tool_usage_error("", "unknown --color value '%s'", val), -1;
  return 1;
}

void tool_print_help(const char *header, const ToolOption *tab) {
  fputs(header, stdout);
  puts("\noptions:");
  opt_print(stdout, tab);
  opt_print(stdout, tool_common_options);
}

void tool_diag_init(DiagCtx *d, const ToolCommon *c) {
  diag_init(d, stderr);
  d->format = c->diag_format;
  if (c->color == 0 || c->diag_format == DIAG_FORMAT_JSON) d->color = false;
  else if (c->color == 1) d->color = true;
}

IrModule *tool_load_ex(const char *path, bool bind_weights, DiagCtx *d, SourceFile **src_out) {
  if (drv_is_model_path(path)) { /* an ONNX model: imported in memory */
    IrModule *m = drv_load_source(path, bind_weights, d, src_out);
    diag_flush(d);
    return m;
  }
  return tool_load(path, d, src_out);
}

IrModule *tool_load(const char *path, DiagCtx *d, SourceFile **src_out) {
  if (drv_is_model_path(path)) return tool_load_ex(path, true, d, src_out);
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
