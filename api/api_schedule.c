/* api_schedule.c - tvs/schedule.h: schedules driven by schedule-script
 * statements (sched/'s evaluator keeps the variables between calls), the
 * current module, the trace, undo. */
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "base/vec.h"
#include "parser/parser.h"

int tvs_sched_create(const TvsIRModule *m, TvsSchedule **out) {
  api_clear_error();
  if (!m || !out) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_create: NULL argument");
  bool has_prim = false;
  for (int i = 0; i < m->m->nfuncs; i++) has_prim |= m->m->funcs[i].kind == IR_FUNC_TIR;
  if (!has_prim) return api_fail(TVS_ERR_ARGUMENT, "a schedule needs a module with a prim_func; this one has none");
  TvsSchedule *s = xcalloc(1, sizeof *s);
  diag_init(&s->diag, NULL);
  s->diag.color = false;
  s->input = ir_module_copy(m->m);
  s->src = api_src_new(m->src);
  s->sc = sch_script_new(s->input, &s->diag);
  static uint32_t next_tag; /* the compiler side runs on one thread at a time */
  s->tag = ++next_tag ? next_tag : ++next_tag;
  *out = s;
  return TVS_OK;
}

void tvs_sched_release(TvsSchedule *s) {
  if (!s) return;
  sch_script_free(s->sc);
  ir_module_free(s->input);
  api_src_release(s->src);
  diag_free(&s->diag);
  free(s);
}

int tvs_sched_exec(TvsSchedule *s, const char *text, char **output) {
  return tvs_sched_exec_named(s, text, NULL, output);
}

int tvs_sched_exec_named(TvsSchedule *s, const char *text, const char *name, char **output) {
  api_clear_error();
  if (!s || !text) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_exec: NULL argument");
  char auto_name[32];
  if (!name) snprintf(auto_name, sizeof auto_name, "<schedule %d>", ++s->nstmts), name = auto_name;
  size_t n = strlen(text);
  char *buf = xmalloc(n + 2); /* a final newline ends the last statement */
  memcpy(buf, text, n);
  buf[n] = '\n';
  buf[n + 1] = '\0';
  SourceFile *src = src_from_string(name, buf, n + 1);
  free(buf);
  VEC_PUSH(s->src->files, s->src->nfiles, s->src->capfiles, src);
  diag_clear(&s->diag);
  AstFile *ast = parse_file(src, &s->diag);
  VEC_PUSH(s->src->asts, s->src->nasts, s->src->capasts, ast);
  if (s->diag.nerr) return api_fail_diag(TVS_ERR_SCHEDULE, &s->diag, "the statement does not parse");
  StrBuf out;
  sb_init(&out);
  const AstList *body = &ast->module->body;
  int rc = 0;
  for (int k = 0; k < body->len && rc == 0; k++) rc = sch_script_exec(s->sc, body->items[k], &out);
  if (rc || s->diag.nerr) {
    sb_free(&out);
    return api_fail_diag(TVS_ERR_SCHEDULE, &s->diag, "the schedule statement failed");
  }
  if (output) api_take_text(&out, output);
  else sb_free(&out);
  return TVS_OK;
}

int tvs_sched_var_kind(const TvsSchedule *s, const char *name) {
  if (!s || !name) return TVS_VALUE_NONE;
  for (int i = sch_script_nvars(s->sc) - 1; i >= 0; i--) {
    SchScriptVarKind k;
    const char *v = sch_script_var(s->sc, i, &k);
    if (!v || strcmp(v, name)) continue;
    switch (k) {
      case SCH_VAR_BLOCK: return TVS_VALUE_BLOCK;
      case SCH_VAR_LOOP: return TVS_VALUE_LOOP;
      case SCH_VAR_SCHEDULE: return TVS_VALUE_SCHEDULE;
      case SCH_VAR_LIST: return TVS_VALUE_LIST;
      default: return TVS_VALUE_OTHER;
    }
  }
  return TVS_VALUE_NONE;
}

int tvs_sched_module(const TvsSchedule *s, TvsIRModule **out) {
  api_clear_error();
  if (!s || !out) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_module: NULL argument");
  *out = api_module_wrap(sch_take_mod(sch_script_schedule(s->sc)), s->src);
  return TVS_OK;
}

int tvs_sched_trace(const TvsSchedule *s, int as_function, char **out) {
  api_clear_error();
  if (!s || !out) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_trace: NULL argument");
  StrBuf sb;
  sb_init(&sb);
  sch_trace_print(sch_script_schedule(s->sc), &sb, as_function != 0);
  return api_take_text(&sb, out);
}

int tvs_sched_trace_len(const TvsSchedule *s) { return s ? sch_trace_len(sch_script_schedule(s->sc)) : 0; }

int tvs_sched_undo(TvsSchedule *s) {
  api_clear_error();
  if (!s) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_undo: NULL schedule");
  if (!sch_undo(sch_script_schedule(s->sc))) return api_fail(TVS_ERR_ARGUMENT, "nothing to undo");
  return TVS_OK;
}

int tvs_sched_work_on(TvsSchedule *s, const char *func) {
  api_clear_error();
  if (!s || !func) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_work_on: NULL argument");
  diag_clear(&s->diag);
  if (sch_work_on(sch_script_schedule(s->sc), func))
    return api_fail_diag(TVS_ERR_SCHEDULE, &s->diag, "no such prim_func");
  return TVS_OK;
}

const char *tvs_sched_method_name(int i) { return sch_script_method(i, NULL, NULL); }

int tvs_sched_method_signature(const char *name, char **out) {
  api_clear_error();
  if (!name || !out) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_method_signature: NULL argument");
  StrBuf sb;
  sb_init(&sb);
  if (!sch_method_signature(name, &sb)) {
    sb_free(&sb);
    return api_fail(TVS_ERR_ARGUMENT, "a schedule has no method '%s'", name);
  }
  return api_take_text(&sb, out);
}
