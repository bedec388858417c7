/* api_schedule_handles.c - tvs/schedule.h: the typed handles (BlockRV,
 * LoopRV, ExprRV) over sched/'s handle numbers, and the one name space they
 * share with schedule-script variables (bind / lookup). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"

Schedule *api_cur(const TvsSchedule *s) { return sch_script_schedule(s->sc); }

int64_t api_rv_id(const TvsSchedule *s, SchRV rv) { return (int64_t)((uint64_t)s->tag << 32 | (uint32_t)rv); }

/* The handle number behind id, or -1 (no message). */
static SchRV rv_decode(const TvsSchedule *s, int64_t id) {
  if (!s || (uint32_t)((uint64_t)id >> 32) != s->tag) return -1;
  int64_t rv = id & 0xffffffff;
  return rv < sch_num_rvs(api_cur(s)) ? (SchRV)rv : -1;
}

SchRV api_rv_of(const TvsSchedule *s, int64_t id, const char *prim, const char *param) {
  SchRV rv = rv_decode(s, id);
  if (rv < 0)
    api_fail(TVS_ERR_ARGUMENT, "%s: argument '%s' is not a handle of this schedule (zeroed, or another schedule's)",
             prim, param);
  return rv;
}

void tvs_handles_free(void *handles) { free(handles); }

int tvs_sched_rv_kind(const TvsSchedule *s, TvsRV rv) {
  SchRV r = rv_decode(s, rv.id);
  if (r < 0) return TVS_VALUE_NONE;
  SchRVKind k = sch_rv_kind(api_cur(s), r);
  return k == SCH_RV_BLOCK ? TVS_VALUE_BLOCK : k == SCH_RV_LOOP ? TVS_VALUE_LOOP : TVS_VALUE_OTHER;
}

const char *tvs_sched_rv_name(const TvsSchedule *s, TvsRV rv) {
  SchRV r = rv_decode(s, rv.id);
  return r < 0 ? NULL : sch_rv_name(api_cur(s), r);
}

int tvs_sched_expr_value(const TvsSchedule *s, TvsExprRV v, int64_t *out) {
  api_clear_error();
  if (!s || !out) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_expr_value: NULL argument");
  SchRV r = api_rv_of(s, v.id, "expr_value", "v");
  if (r < 0) return TVS_ERR_ARGUMENT;
  if (sch_rv_kind(api_cur(s), r) != SCH_RV_EXPR)
    return api_fail(TVS_ERR_ARGUMENT, "expr_value: '%s' is not an ExprRV", sch_rv_name(api_cur(s), r));
  *out = sch_expr_value(api_cur(s), r);
  return TVS_OK;
}

int tvs_sched_seed(TvsSchedule *s, int64_t seed) {
  api_clear_error();
  if (!s) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_seed: NULL schedule");
  sch_seed(api_cur(s), seed);
  return TVS_OK;
}

/* ------------------------------------------------------------ names */

static bool is_identifier(const char *n) {
  if (!(isalpha((unsigned char)*n) || *n == '_')) return false;
  for (const char *p = n; *p; p++)
    if (!(isalnum((unsigned char)*p) || *p == '_')) return false;
  return true;
}

static int check_name(const char *fn, const char *name) {
  if (!is_identifier(name))
    return api_fail(TVS_ERR_ARGUMENT, "%s: '%s' is not a variable name (a Python identifier)", fn, name);
  if (!strcmp(name, "sch")) return api_fail(TVS_ERR_ARGUMENT, "%s: 'sch' names the schedule itself", fn);
  return TVS_OK;
}

int tvs_sched_bind_name(TvsSchedule *s, const char *name, TvsRV rv) {
  api_clear_error();
  if (!s || !name) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_bind_name: NULL argument");
  if (check_name("tvs_sched_bind_name", name)) return TVS_ERR_ARGUMENT;
  SchRV r = api_rv_of(s, rv.id, "tvs_sched_bind_name", "rv");
  if (r < 0) return TVS_ERR_ARGUMENT;
  sch_script_bind(s->sc, name, &r, 1, false);
  return TVS_OK;
}

int tvs_sched_bind_list(TvsSchedule *s, const char *name, const TvsRV *rvs, int n) {
  api_clear_error();
  if (!s || !name || n < 0 || (n && !rvs)) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_bind_list: NULL argument");
  if (check_name("tvs_sched_bind_list", name)) return TVS_ERR_ARGUMENT;
  SchRV *r = xmalloc((size_t)(n ? n : 1) * sizeof *r);
  for (int i = 0; i < n; i++)
    if ((r[i] = api_rv_of(s, rvs[i].id, "tvs_sched_bind_list", "rvs")) < 0) return free(r), TVS_ERR_ARGUMENT;
  sch_script_bind(s->sc, name, r, n, true);
  free(r);
  return TVS_OK;
}

/* The one handle of kind `kind` variable name holds. */
static int lookup_one(const TvsSchedule *s, const char *name, SchRVKind kind, int64_t *id) {
  api_clear_error();
  if (!s || !name || !id) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_lookup: NULL argument");
  const char *want = kind == SCH_RV_BLOCK ? "a BlockRV" : kind == SCH_RV_LOOP ? "a LoopRV" : "an ExprRV";
  SchRV rv;
  int n = sch_script_lookup(s->sc, name, &rv, 1);
  if (n != 1 || tvs_sched_var_kind(s, name) == TVS_VALUE_LIST || rv >= sch_num_rvs(api_cur(s)) ||
      sch_rv_kind(api_cur(s), rv) != kind)
    return api_fail(TVS_ERR_ARGUMENT, "the schedule has no variable '%s' holding %s", name, want);
  *id = api_rv_id(s, rv);
  return TVS_OK;
}

int tvs_sched_lookup_block(const TvsSchedule *s, const char *name, TvsBlockRV *out) {
  int64_t id = 0;
  int rc = lookup_one(s, name, SCH_RV_BLOCK, &id);
  if (rc == TVS_OK) out->id = id;
  return rc;
}

int tvs_sched_lookup_loop(const TvsSchedule *s, const char *name, TvsLoopRV *out) {
  int64_t id = 0;
  int rc = lookup_one(s, name, SCH_RV_LOOP, &id);
  if (rc == TVS_OK) out->id = id;
  return rc;
}

int tvs_sched_lookup_expr(const TvsSchedule *s, const char *name, TvsExprRV *out) {
  int64_t id = 0;
  int rc = lookup_one(s, name, SCH_RV_EXPR, &id);
  if (rc == TVS_OK) out->id = id;
  return rc;
}

int tvs_sched_lookup_list(const TvsSchedule *s, const char *name, TvsRV **out, int *n) {
  api_clear_error();
  if (!s || !name || !out || !n) return api_fail(TVS_ERR_ARGUMENT, "tvs_sched_lookup_list: NULL argument");
  int cnt = sch_script_lookup(s->sc, name, NULL, 0);
  if (cnt < 0) return api_fail(TVS_ERR_ARGUMENT, "the schedule has no variable '%s' holding handles", name);
  SchRV *r = xmalloc((size_t)(cnt ? cnt : 1) * sizeof *r);
  sch_script_lookup(s->sc, name, r, cnt);
  TvsRV *res = xmalloc((size_t)(cnt ? cnt : 1) * sizeof *res);
  for (int i = 0; i < cnt; i++) res[i].id = api_rv_id(s, r[i]);
  free(r);
  *out = res;
  *n = cnt;
  return TVS_OK;
}
