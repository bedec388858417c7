/* api_internal.h - what the files of api/ share: the structs behind the
 * public handles of include/tvs/, the kept source texts, and the thread's
 * error message.  Not installed; nothing outside api/ includes it. */
#ifndef TVS_API_API_INTERNAL_H
#define TVS_API_API_INTERNAL_H

#include "base/diag.h"
#include "base/util.h"
#include "ir/module.h"
#include "lang/ast.h"
#include "runtime/tvs_runtime.h"
#include "sched/schedule.h"
#include "tvs/tvs.h"

/* Source texts and parsed statements that IR nodes' spans and script
 * variables point into, shared (reference-counted) by every module and
 * schedule derived from them, so that a diagnostic rendered late never reads
 * freed text. */
typedef struct ApiSrc {
  int refs;
  SourceFile **files;     /* owned */
  int nfiles, capfiles;
  AstFile **asts;         /* owned: schedule statements the script borrows from */
  int nasts, capasts;
  struct ApiSrc *parent;  /* one reference, or NULL */
} ApiSrc;

ApiSrc *api_src_new(ApiSrc *parent);
ApiSrc *api_src_retain(ApiSrc *s);  /* NULL-safe */
void api_src_release(ApiSrc *s);    /* NULL-safe */

struct TvsIRModule {
  IrModule *m;   /* owned */
  ApiSrc *src;   /* one reference (may be NULL) */
};

/* A module handle over m (taken) and src (retained). */
TvsIRModule *api_module_wrap(IrModule *m, ApiSrc *src);

struct TvsSchedule {
  IrModule *input;  /* the module scheduled (owned; the script borrows it) */
  SchScript *sc;    /* the evaluator, `sch` bound */
  ApiSrc *src;      /* statement texts and ASTs, parent = the module's */
  DiagCtx diag;     /* cleared per call */
  int nstmts;       /* statements run so far (names "<schedule N>") */
  uint32_t tag;     /* the high half of its handles' ids (never 0) */
};

/* Typed handles (api_schedule_handles.c): id = tag << 32 | the sched/ handle. */
int64_t api_rv_id(const TvsSchedule *s, SchRV rv);
/* The sched/ handle behind id, or -1 after setting the message
 * "<prim>: argument '<param>' is not a handle of this schedule". */
SchRV api_rv_of(const TvsSchedule *s, int64_t id, const char *prim, const char *param);
/* The schedule typed calls act on (the one bound to `sch`). */
Schedule *api_cur(const TvsSchedule *s);

struct TvsExecutable {
  TVSModule *mod;        /* one reference */
  const char **names;    /* its function names (one free()-able block) */
  int nnames;
};

struct TvsFunction {
  TVSModule *mod;           /* one reference: keeps the code alive */
  TVSFunction *fn;          /* one reference */
  const TVSFuncInfo *info;  /* metadata (NULL when the module has none) */
  TVSValue *vals;           /* packing scratch, cap entries */
  int *codes;
  int cap;
};

/* Sets the thread's message (printf-style) and returns status. */
int api_fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets the message to d's diagnostics rendered as text (clang style), or to
 * fallback when d holds none; returns status. */
int api_fail_diag(int status, const DiagCtx *d, const char *fallback);
/* Forgets the thread's message (each fallible entry point starts so). */
void api_clear_error(void);
/* *out = a malloc'd copy of sb's text (sb freed); TVS_OK. */
int api_take_text(StrBuf *sb, char **out);

#endif
