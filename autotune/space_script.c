/* space_script.c - a user's stochastic schedule script as the design space
 * (AutoTVM's templates, MetaSchedule's ScheduleFn): the script's sampling
 * calls (sample_perfect_tile, sample_categorical, sample_compute_location)
 * are the knobs.  A fresh candidate is the script run on a schedule seeded
 * by the search; a candidate with given decisions is the script's trace with
 * those decisions set and replayed (sched/'s sch_trace_set_decision +
 * sch_replay, which repair a decision that no longer fits). */
#include <stdlib.h>
#include <string.h>

#include "autotune/tune.h"
#include "base/source.h"
#include "base/util.h"
#include "parser/parser.h"
#include "sched/schedule.h"

/* Runs the script's statements on a schedule of m seeded by seed; the
 * evaluator (owning the schedule) is returned, NULL on error. */
static SchScript *run_script(const IrModule *m, const char *func, const AstFile *f, int64_t seed, DiagCtx *diag) {
  SchScript *sc = sch_script_new(m, diag);
  sch_seed(sch_script_schedule(sc), seed);
  /* a task of a graph's module: the script's get_block names that function's blocks */
  if (func && m->nfuncs > 1 && sch_work_on(sch_script_schedule(sc), func)) {
    sch_script_free(sc);
    return NULL;
  }
  const AstList *body = &f->module->body;
  for (int k = 0; k < body->len; k++) {
    if (!sch_is_script_stmt(body->items[k])) continue;
    if (sch_script_exec(sc, body->items[k], NULL)) {
      sch_script_free(sc);
      return NULL;
    }
  }
  return sc;
}

static void read_decisions(const Schedule *s, TuneDecisions *out) {
  memset(out, 0, sizeof *out);
  int n = sch_trace_decision_count(s);
  for (int i = 0; i < n && out->n < TUNE_MAX_DECISIONS; i++) {
    int k = out->n++;
    out->len[k] = sch_trace_get_decision(s, i, out->v[k], TUNE_MAX_TILE);
    const char *m = sch_trace_decision_method(s, i);
    out->tile[k] = m && !strcmp(m, "sample_perfect_tile");
    /* The decision API does not tell a categorical's candidate count, so
     * mutation leaves those (and compute locations) to fresh candidates. */
    out->ncand[k] = 0;
  }
}

static int fill_candidate(const Schedule *s, TuneCandidate *out) {
  read_decisions(s, &out->dec);
  StrBuf sb;
  sb_init(&sb);
  sch_trace_print(s, &sb, false);
  out->trace = sb_take(&sb);
  out->mod = sch_take_mod(s);
  return 0;
}

/* The script's errors, as location-free errors in the caller's context (the
 * script's source is freed before they are rendered). */
static void copy_errors(const DiagCtx *from, DiagCtx *to) {
  for (int i = 0; i < from->len; i++)
    if (from->items[i].sev == DIAG_ERROR)
      diag_error(to, span_none, "tune: design-space script, line %u: %s", from->items[i].span.line,
                 from->items[i].msg);
}

int tune_space_script(const IrModule *m, const char *func, const char *script, const TuneDecisions *dec,
                      int64_t seed, TuneCandidate *out, DiagCtx *caller) {
  memset(out, 0, sizeof *out);
  DiagCtx local, *diag = &local;
  diag_init(&local, NULL);
  SourceFile *src = src_from_string("<space>", script, strlen(script));
  AstFile *f = parse_file(src, diag);
  int rc = -1;
  SchScript *sc = diag->nerr ? NULL : run_script(m, func, f, seed, diag);
  if (sc && !dec) {
    rc = fill_candidate(sch_script_schedule(sc), out);
  } else if (sc) {
    Schedule *s = sch_script_schedule(sc);
    int n = sch_trace_decision_count(s);
    bool ok = true;
    for (int i = 0; i < n && i < dec->n && ok; i++) ok = !sch_trace_set_decision(s, i, dec->v[i], dec->len[i]);
    Schedule *r = ok ? sch_replay(s, seed, diag) : NULL;
    if (r) {
      rc = fill_candidate(r, out);
      sch_free(r);
    }
  }
  if (sc) sch_script_free(sc);
  if (rc) copy_errors(&local, caller);
  diag_free(&local);
  ast_file_free(f);
  src_free(src);
  return rc;
}
