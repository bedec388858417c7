/* diag.c - recording and rendering diagnostics (clang-style text, JSON lines). */
#include "base/diag.h"
#include "base/json_text.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void diag_init(DiagCtx *ctx, FILE *out) {
  memset(ctx, 0, sizeof *ctx);
  ctx->out = out;
  ctx->format = DIAG_FORMAT_TEXT;
  const char *nc = getenv("NO_COLOR");
  ctx->color = out && (!nc || !*nc) && isatty(fileno(out));
}

void diag_clear(DiagCtx *ctx) {
  for (int i = 0; i < ctx->len; i++) {
    free(ctx->items[i].msg);
    free(ctx->items[i].fixit);
  }
  ctx->len = 0;
  ctx->nerr = ctx->nwarn = 0;
  ctx->flushed = 0;
}

void diag_free(DiagCtx *ctx) {
  diag_clear(ctx);
  free(ctx->items);
  ctx->items = NULL;
  ctx->cap = 0;
}

void diag_report(DiagCtx *ctx, DiagSeverity sev, Span span, const char *fmt, va_list ap) {
  if (sev == DIAG_ERROR) {
    if (ctx->max_errors && ctx->nerr >= ctx->max_errors) {
      ctx->nerr++;
      ctx->last_dropped = true;
      return;
    }
    ctx->nerr++;
  } else if (sev == DIAG_WARNING) {
    ctx->nwarn++;
  }
  VEC_RESERVE(ctx->items, ctx->cap, (size_t)ctx->len + 1);
  StrBuf sb;
  sb_init(&sb);
  sb_vprintf(&sb, fmt, ap);
  Diag *d = &ctx->items[ctx->len++];
  d->sev = sev;
  d->span = span;
  d->msg = sb.data;
  d->fixit = NULL;
  d->code = NULL;
  ctx->last_dropped = false;
}

#define DIAG_VARIANT(fn, sev)                                   \
  void fn(DiagCtx *ctx, Span span, const char *fmt, ...) {      \
    va_list ap;                                                 \
    va_start(ap, fmt);                                          \
    diag_report(ctx, sev, span, fmt, ap);                       \
    va_end(ap);                                                 \
  }
DIAG_VARIANT(diag_error, DIAG_ERROR)
DIAG_VARIANT(diag_warning, DIAG_WARNING)
DIAG_VARIANT(diag_note, DIAG_NOTE)

void diag_set_code(DiagCtx *ctx, const char *code) {
  if (ctx->len == 0 || ctx->last_dropped) return;
  ctx->items[ctx->len - 1].code = code;
}

void diag_fixit(DiagCtx *ctx, const char *replacement) {
  if (ctx->len == 0 || ctx->last_dropped) return;
  Diag *d = &ctx->items[ctx->len - 1];
  free(d->fixit);
  d->fixit = xstrdup(replacement);
}

static const char *sev_name(DiagSeverity s) {
  return s == DIAG_ERROR ? "error" : s == DIAG_WARNING ? "warning" : "note";
}

static const char *sev_color(DiagSeverity s) {
  return s == DIAG_ERROR ? "\033[1;31m" : s == DIAG_WARNING ? "\033[1;35m" : "\033[1;36m";
}

static void json_string(FILE *out, const char *s) {
  StrBuf sb;
  sb_init(&sb);
  json_put_string(&sb, s);
  fputs(sb.data, out);
  sb_free(&sb);
}

static void render_json(const Diag *d, FILE *out) {
  fputs("{\"severity\":", out);
  json_string(out, sev_name(d->sev));
  if (d->span.file) {
    fputs(",\"file\":", out);
    json_string(out, d->span.file->name);
    fprintf(out, ",\"line\":%u,\"column\":%u,\"offset\":%u,\"length\":%u", d->span.line, d->span.col,
            d->span.off, d->span.len);
  }
  fputs(",\"message\":", out);
  json_string(out, d->msg);
  if (d->fixit) {
    fputs(",\"fixit\":", out);
    json_string(out, d->fixit);
  }
  if (d->code) {
    fputs(",\"code\":", out);
    json_string(out, d->code);
  }
  fputs("}\n", out);
}

static void render_text(const Diag *d, FILE *out, bool color) {
  const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
  if (d->span.file)
    fprintf(out, "%s%s:%u:%u: ", bold, d->span.file->name, d->span.line, d->span.col);
  else
    fprintf(out, "%stvs: ", bold);
  fprintf(out, "%s%s:%s%s %s%s\n", color ? sev_color(d->sev) : "", sev_name(d->sev), reset, bold,
          d->msg, reset);
  if (!d->span.file) return;
  size_t n;
  const char *line = src_line_text(d->span.file, d->span.line, &n);
  /* Tabs are shown as single spaces so that the caret lines up. */
  for (size_t i = 0; i < n; i++) fputc(line[i] == '\t' ? ' ' : line[i], out);
  fputc('\n', out);
  size_t col = d->span.col ? d->span.col - 1 : 0;
  for (size_t i = 0; i < col; i++) fputc(' ', out);
  size_t width = d->span.len ? d->span.len : 1;
  if (col + width > n) width = n > col ? n - col : 1; /* clip multi-line spans to the first line */
  fputs(color ? "\033[1;32m" : "", out);
  fputc('^', out);
  for (size_t i = 1; i < width; i++) fputc('~', out);
  fputs(reset, out);
  fputc('\n', out);
  if (d->fixit) {
    for (size_t i = 0; i < col; i++) fputc(' ', out);
    fprintf(out, "%s%s%s\n", color ? "\033[32m" : "", d->fixit, reset);
  }
}

void diag_render(const Diag *d, FILE *out, DiagFormat fmt, bool color) {
  if (fmt == DIAG_FORMAT_JSON) render_json(d, out);
  else render_text(d, out, color);
}

void diag_flush(DiagCtx *ctx) {
  if (!ctx->out) {
    ctx->flushed = ctx->len;
    return;
  }
  for (; ctx->flushed < ctx->len; ctx->flushed++)
    diag_render(&ctx->items[ctx->flushed], ctx->out, ctx->format, ctx->color);
  fflush(ctx->out);
}
