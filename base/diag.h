/* diag.h - the one diagnostics engine used by every stage.
 *
 * Diagnostics are values: each report is appended to a DiagCtx and counted;
 * nothing exits.  A phase checks ctx->nerr to decide whether to go on.  The
 * context renders records as clang does (file:line:col: error: msg, source line,
 * caret/tilde underline) or as JSON lines for editors and the language server. */
#ifndef TVS_BASE_DIAG_H
#define TVS_BASE_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/source.h"

typedef enum DiagSeverity { DIAG_NOTE, DIAG_WARNING, DIAG_ERROR } DiagSeverity;

typedef enum DiagFormat { DIAG_FORMAT_TEXT, DIAG_FORMAT_JSON } DiagFormat;

typedef struct Diag {
  DiagSeverity sev;  /* note / warning / error */
  Span span;         /* where; span.file == NULL for location-less messages */
  char *msg;         /* the message, without "error: " */
  char *fixit;       /* optional replacement text suggested for span, or NULL */
  const char *code;  /* optional static machine-readable kind ("LoopStructureError"), or NULL */
} Diag;

typedef struct DiagCtx {
  Diag *items;       /* every record, in report order */
  int len, cap;      /* records used / allocated */
  int nerr;          /* number of errors reported */
  int nwarn;         /* number of warnings reported */
  FILE *out;         /* where diag_flush renders (stderr by default); NULL = keep only */
  DiagFormat format; /* text or JSON lines */
  bool color;        /* ANSI colours in text form */
  int flushed;       /* records already rendered by diag_flush */
  int max_errors;    /* stop recording errors after this many (0 = unlimited) */
  bool last_dropped; /* the last report was over max_errors: fix-its and codes skip it */
} DiagCtx;

/* Initializes ctx to render to `out` in text form; colour is chosen
 * automatically (a terminal and no NO_COLOR in the environment). */
void diag_init(DiagCtx *ctx, FILE *out);
void diag_free(DiagCtx *ctx);
/* Forgets all records (the REPL reuses one context per line). */
void diag_clear(DiagCtx *ctx);

void diag_error(DiagCtx *ctx, Span span, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_warning(DiagCtx *ctx, Span span, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_note(DiagCtx *ctx, Span span, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_report(DiagCtx *ctx, DiagSeverity sev, Span span, const char *fmt, va_list ap);
/* Attaches a fix-it (replacement text for the last record's span). */
void diag_fixit(DiagCtx *ctx, const char *replacement);
/* Attaches a kind code (a static string) to the last record; JSON shows it. */
void diag_set_code(DiagCtx *ctx, const char *code);

/* Renders records not yet rendered to ctx->out. */
void diag_flush(DiagCtx *ctx);
/* Renders one record in the given form to a FILE. */
void diag_render(const Diag *d, FILE *out, DiagFormat fmt, bool color);

#endif
