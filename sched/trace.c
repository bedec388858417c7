/* trace.c - the method table (one description per schedule method: its
 * parameters, defaults, result, and how to apply normalized arguments), and
 * traces: printing in TVM's `sch.trace` form and replaying printed text. */
#include <stdlib.h>
#include <string.h>

#include "parser/parser.h"
#include "sched/sched_internal.h"

/* ------------------------------------------------------------ appliers */

static int ret_list(SchRV *rvs, int n, SchVal *result) {
  if (n < 0) return -1;
  *result = sch_val_rv_list(rvs, n);
  free(rvs);
  return 0;
}

static int ret_one(SchRV rv, SchVal *result) {
  if (rv < 0) return -1;
  *result = sch_val_rv(rv);
  return 0;
}

static SchRV *rv_array(const SchVal *list) {
  SchRV *r = xmalloc((size_t)(list->n ? list->n : 1) * sizeof *r);
  for (int i = 0; i < list->n; i++) r[i] = (SchRV)list->items[i].i;
  return r;
}

static int ap_get_block(Schedule *s, SchVal *a, SchVal *r) {
  return ret_one(sch_get_block(s, a[0].s, a[1].kind == SV_STR ? a[1].s : NULL), r);
}
static int ap_get_loops(Schedule *s, SchVal *a, SchVal *r) {
  SchRV *o;
  int n = sch_get_loops(s, (SchRV)a[0].i, &o);
  return ret_list(o, n, r);
}
static int ap_get_child_blocks(Schedule *s, SchVal *a, SchVal *r) {
  SchRV *o;
  int n = sch_get_child_blocks(s, (SchRV)a[0].i, &o);
  return ret_list(o, n, r);
}
static int ap_get_producers(Schedule *s, SchVal *a, SchVal *r) {
  SchRV *o;
  int n = sch_get_producers(s, (SchRV)a[0].i, &o);
  return ret_list(o, n, r);
}
static int ap_get_consumers(Schedule *s, SchVal *a, SchVal *r) {
  SchRV *o;
  int n = sch_get_consumers(s, (SchRV)a[0].i, &o);
  return ret_list(o, n, r);
}
/* The integer of an argument that may be an ExprRV (a sampled value). */
static int64_t int_of(const Schedule *s, const SchVal *v) {
  return v->kind == SV_RV ? sch_expr_value(s, (SchRV)v->i) : v->i;
}

/* After a primitive recorded argument k from resolved values: the trace
 * keeps the caller's form instead (ExprRVs print as `v2`, as in TVM). */
static void keep_arg_form(Schedule *s, int k, const SchVal *arg) {
  SchInst *in = &s->trace[s->ntrace - 1];
  if (k >= in->nargs) return;
  sch_val_free(&in->args[k]);
  in->args[k] = sch_val_copy(arg);
}

static bool has_rv(const SchVal *v) {
  if (v->kind == SV_RV) return true;
  for (int i = 0; i < (v->kind == SV_LIST ? v->n : 0); i++)
    if (has_rv(&v->items[i])) return true;
  return false;
}

static int ap_split(Schedule *s, SchVal *a, SchVal *r) {
  int n = a[1].n;
  int64_t *f = xmalloc((size_t)(n ? n : 1) * sizeof *f);
  SchRV *o = xmalloc((size_t)(n ? n : 1) * sizeof *o);
  for (int i = 0; i < n; i++) f[i] = a[1].items[i].kind == SV_NONE ? 0 : int_of(s, &a[1].items[i]);
  int ntrace = s->ntrace;
  int rc = sch_split(s, (SchRV)a[0].i, f, n, a[2].i != 0, a[3].i != 0, o);
  free(f);
  if (rc) return free(o), -1;
  if (has_rv(&a[1]) && s->ntrace > ntrace) keep_arg_form(s, 1, &a[1]);
  return ret_list(o, n, r);
}
int sch_split_exprs(Schedule *s, SchRV loop, const SchRV *factors, int n, bool preserve_unit_iters,
                    bool disable_predication, SchRV *out) {
  SchVal a[4] = {sch_val_rv(loop), sch_val_rv_list(factors, n), sch_val_bool(preserve_unit_iters),
                 sch_val_bool(disable_predication)};
  for (int i = 0; i < n; i++)
    if (factors[i] < 0) a[1].items[i] = sch_val_none();
  SchVal r = sch_val_none();
  int rc = ap_split(s, a, &r);
  for (int i = 0; i < r.n && rc == 0; i++) out[i] = (SchRV)r.items[i].i;
  for (int i = 0; i < 4; i++) sch_val_free(&a[i]);
  sch_val_free(&r);
  return rc;
}
static int ap_fuse(Schedule *s, SchVal *a, SchVal *r) {
  SchRV *l = rv_array(&a[0]);
  SchRV rv = sch_fuse(s, l, a[0].n, a[1].i != 0);
  free(l);
  return ret_one(rv, r);
}
static int ap_reorder(Schedule *s, SchVal *a, SchVal *r) {
  SchRV *l = rv_array(&a[0]);
  int rc = sch_reorder(s, l, a[0].n);
  free(l);
  return rc;
}
static int ap_add_unit_loop(Schedule *s, SchVal *a, SchVal *r) {
  return ret_one(sch_add_unit_loop(s, (SchRV)a[0].i), r);
}
static int ap_parallel(Schedule *s, SchVal *a, SchVal *r) { return sch_parallel(s, (SchRV)a[0].i); }
static int ap_vectorize(Schedule *s, SchVal *a, SchVal *r) { return sch_vectorize(s, (SchRV)a[0].i); }
static int ap_unroll(Schedule *s, SchVal *a, SchVal *r) { return sch_unroll(s, (SchRV)a[0].i); }
static int ap_bind(Schedule *s, SchVal *a, SchVal *r) { return sch_bind(s, (SchRV)a[0].i, a[1].s); }
static int ap_annotate(Schedule *s, SchVal *a, SchVal *r) {
  IrHeap *h = ir_heap_new();
  SchVal val = a[2].kind == SV_RV ? sch_val_int(sch_expr_value(s, (SchRV)a[2].i)) : sch_val_copy(&a[2]);
  IrValue *v = sch_val_to_irv(h, &val);
  int ntrace = s->ntrace;
  int rc = sch_annotate(s, (SchRV)a[0].i, a[1].s, v);
  if (rc == 0 && a[2].kind == SV_RV && s->ntrace > ntrace) keep_arg_form(s, 2, &a[2]);
  sch_val_free(&val);
  ir_heap_release(h);
  return rc;
}
static int ap_unannotate(Schedule *s, SchVal *a, SchVal *r) {
  return sch_unannotate(s, (SchRV)a[0].i, a[1].s);
}
static int ap_compute_at(Schedule *s, SchVal *a, SchVal *r) {
  return sch_compute_at(s, (SchRV)a[0].i, (SchRV)a[1].i, a[2].i != 0, (int)a[3].i);
}
static int ap_reverse_compute_at(Schedule *s, SchVal *a, SchVal *r) {
  return sch_reverse_compute_at(s, (SchRV)a[0].i, (SchRV)a[1].i, a[2].i != 0, (int)a[3].i);
}
static int ap_compute_inline(Schedule *s, SchVal *a, SchVal *r) {
  return sch_compute_inline(s, (SchRV)a[0].i);
}
static int ap_reverse_compute_inline(Schedule *s, SchVal *a, SchVal *r) {
  return sch_reverse_compute_inline(s, (SchRV)a[0].i);
}
static int ap_decompose_reduction(Schedule *s, SchVal *a, SchVal *r) {
  return ret_one(sch_decompose_reduction(s, (SchRV)a[0].i, (SchRV)a[1].i), r);
}
static int ap_rfactor(Schedule *s, SchVal *a, SchVal *r) {
  return ret_one(sch_rfactor(s, (SchRV)a[0].i, (int)a[1].i), r);
}
static int ap_cache_read(Schedule *s, SchVal *a, SchVal *r) {
  int n = a[3].kind == SV_LIST ? a[3].n : 0;
  SchRV *c = n ? rv_array(&a[3]) : NULL;
  SchRV rv = sch_cache_read_for_consumers(s, (SchRV)a[0].i, (int)a[1].i, a[2].s, c, n);
  free(c);
  return ret_one(rv, r);
}
static int ap_cache_write(Schedule *s, SchVal *a, SchVal *r) {
  int n = a[3].kind == SV_LIST ? a[3].n : 0;
  SchRV *c = n ? rv_array(&a[3]) : NULL;
  SchRV rv = sch_cache_write_for_consumers(s, (SchRV)a[0].i, (int)a[1].i, a[2].s, c, n);
  free(c);
  return ret_one(rv, r);
}
static int ap_get_output_blocks(Schedule *s, SchVal *a, SchVal *r) {
  SchRV *o;
  int n = sch_get_output_blocks(s, (SchRV)a[0].i, &o);
  return ret_list(o, n, r);
}
static int ap_set_scope(Schedule *s, SchVal *a, SchVal *r) {
  return sch_set_scope(s, (SchRV)a[0].i, (int)a[1].i, a[2].s);
}
static int ap_storage_align(Schedule *s, SchVal *a, SchVal *r) {
  return sch_storage_align(s, (SchRV)a[0].i, (int)a[1].i, (int)a[2].i, (int)a[3].i, (int)a[4].i);
}
static int ap_work_on(Schedule *s, SchVal *a, SchVal *r) { return sch_work_on(s, a[0].s); }

#define P(n, k, d) {n, k, d}
const SchMethod sch_methods_core[] = {
    {"get_block", {P("name", SP_STR, NULL), P("func_name", SP_OPT_STR, "None")}, 2, SO_ONE, true, ap_get_block},
    {"get_loops", {P("block", SP_BLOCK, NULL)}, 1, SO_LIST, true, ap_get_loops},
    {"get_child_blocks", {P("block_or_loop", SP_BLOCK_OR_LOOP, NULL)}, 1, SO_LIST, true, ap_get_child_blocks},
    {"get_producers", {P("block", SP_BLOCK, NULL)}, 1, SO_LIST, true, ap_get_producers},
    {"get_consumers", {P("block", SP_BLOCK, NULL)}, 1, SO_LIST, true, ap_get_consumers},
    {"get_output_blocks", {P("scope_block", SP_BLOCK, NULL)}, 1, SO_LIST, true, ap_get_output_blocks},
    {"split",
     {P("loop", SP_LOOP, NULL), P("factors", SP_FACTORS, NULL), P("preserve_unit_iters", SP_BOOL, "True"),
      P("disable_predication", SP_BOOL, "False")},
     4, SO_LIST, true, ap_split},
    {"fuse", {P("loops", SP_LOOPS, NULL), P("preserve_unit_iters", SP_BOOL, "True")}, 2, SO_ONE, true, ap_fuse},
    {"reorder", {P("ordered_loops", SP_LOOPS, NULL)}, 1, SO_NONE, true, ap_reorder},
    {"add_unit_loop", {P("block_or_loop", SP_BLOCK_OR_LOOP, NULL)}, 1, SO_ONE, true, ap_add_unit_loop},
    {"parallel", {P("loop", SP_LOOP, NULL)}, 1, SO_NONE, true, ap_parallel},
    {"vectorize", {P("loop", SP_LOOP, NULL)}, 1, SO_NONE, true, ap_vectorize},
    {"unroll", {P("loop", SP_LOOP, NULL)}, 1, SO_NONE, true, ap_unroll},
    {"bind", {P("loop", SP_LOOP, NULL), P("thread_axis", SP_STR, NULL)}, 2, SO_NONE, true, ap_bind},
    {"annotate",
     {P("block_or_loop", SP_BLOCK_OR_LOOP, NULL), P("ann_key", SP_STR, NULL), P("ann_val", SP_ANY, NULL)},
     3, SO_NONE, true, ap_annotate},
    {"unannotate", {P("block_or_loop", SP_BLOCK_OR_LOOP, NULL), P("ann_key", SP_STR, NULL)}, 2, SO_NONE, true,
     ap_unannotate},
    {"compute_at",
     {P("block", SP_BLOCK, NULL), P("loop", SP_LOOP, NULL), P("preserve_unit_loops", SP_BOOL, "False"),
      P("index", SP_INT, "-1")},
     4, SO_NONE, true, ap_compute_at},
    {"reverse_compute_at",
     {P("block", SP_BLOCK, NULL), P("loop", SP_LOOP, NULL), P("preserve_unit_loops", SP_BOOL, "False"),
      P("index", SP_INT, "-1")},
     4, SO_NONE, true, ap_reverse_compute_at},
    {"compute_inline", {P("block", SP_BLOCK, NULL)}, 1, SO_NONE, true, ap_compute_inline},
    {"reverse_compute_inline", {P("block", SP_BLOCK, NULL)}, 1, SO_NONE, true, ap_reverse_compute_inline},
    {"decompose_reduction", {P("block", SP_BLOCK, NULL), P("loop", SP_LOOP, NULL)}, 2, SO_ONE, true,
     ap_decompose_reduction},
    {"rfactor", {P("loop", SP_LOOP, NULL), P("factor_axis", SP_INT, "0")}, 2, SO_ONE, true, ap_rfactor},
    {"cache_read",
     {P("block", SP_BLOCK, NULL), P("read_buffer_index", SP_READ_BUFFER, NULL), P("storage_scope", SP_STR, NULL),
      P("consumer_blocks", SP_OPT_BLOCKS, "None")},
     4, SO_ONE, true, ap_cache_read},
    {"cache_write",
     {P("block", SP_BLOCK, NULL), P("write_buffer_index", SP_WRITE_BUFFER, NULL), P("storage_scope", SP_STR, NULL),
      P("consumer_blocks", SP_OPT_BLOCKS, "None")},
     4, SO_ONE, true, ap_cache_write},
    {"set_scope",
     {P("block", SP_BLOCK, NULL), P("buffer_index", SP_WRITE_BUFFER, NULL), P("storage_scope", SP_STR, NULL)},
     3, SO_NONE, true, ap_set_scope},
    {"storage_align",
     {P("block", SP_BLOCK, NULL), P("buffer_index", SP_WRITE_BUFFER, NULL), P("axis", SP_INT, NULL),
      P("factor", SP_INT, NULL), P("offset", SP_INT, NULL)},
     5, SO_NONE, true, ap_storage_align},
    {"work_on", {P("func_name", SP_STR, NULL)}, 1, SO_NONE, false, ap_work_on},
    {NULL, {{0}}, 0, SO_NONE, false, NULL},
};
#undef P

static const SchMethod *const method_tables[] = {
    sch_methods_core, sch_methods_blockize, sch_methods_layout, sch_methods_reindex,
    sch_methods_cache_ext, sch_methods_misc, sch_methods_sampling,
};

const SchMethod *sch_method_at(int i) {
  for (size_t t = 0; t < sizeof method_tables / sizeof method_tables[0]; t++)
    for (const SchMethod *m = method_tables[t]; m->name; m++)
      if (i-- == 0) return m;
  return NULL;
}

const SchMethod *sch_method_lookup(const char *name) {
  if (!strcmp(name, "get_sblock")) name = "get_block";
  for (size_t t = 0; t < sizeof method_tables / sizeof method_tables[0]; t++)
    for (const SchMethod *m = method_tables[t]; m->name; m++)
      if (!strcmp(m->name, name)) return m;
  return NULL;
}

/* --------------------------------------------------------------- print */

static void print_str(StrBuf *out, const char *s) {
  sb_putc(out, '"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') sb_putc(out, '\\');
    if (*s == '\n') sb_puts(out, "\\n");
    else sb_putc(out, *s);
  }
  sb_putc(out, '"');
}

static void print_val(const Schedule *s, StrBuf *out, const SchVal *v) {
  switch (v->kind) {
    case SV_NONE: sb_puts(out, "None"); break;
    case SV_BOOL: sb_puts(out, v->i ? "True" : "False"); break;
    case SV_INT: sb_printf(out, "%lld", (long long)v->i); break;
    case SV_FLOAT: { /* the shortest form that reads back the same, like Python's repr */
      char buf[64];
      for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v->f);
        if (strtod(buf, NULL) == v->f) break;
      }
      if (!strpbrk(buf, ".eEn")) strcat(buf, ".0");
      sb_puts(out, buf);
      break;
    }
    case SV_STR: print_str(out, v->s); break;
    case SV_CODE: sb_puts(out, v->s); break;
    case SV_RV: sb_puts(out, s->rvs[v->i].name); break;
    case SV_LIST:
      sb_putc(out, '[');
      for (int i = 0; i < v->n; i++) {
        if (i) sb_puts(out, ", ");
        print_val(s, out, &v->items[i]);
      }
      sb_putc(out, ']');
      break;
  }
}

static void print_inst(const Schedule *s, StrBuf *out, const SchInst *in) {
  const SchMethod *m = in->method;
  if (in->nouts > 0) {
    for (int i = 0; i < in->nouts; i++) sb_printf(out, "%s%s", i ? ", " : "", s->rvs[in->outs[i]].name);
    sb_puts(out, m->out == SO_LIST && in->nouts == 1 ? ", = " : " = ");
  } else if (m->out == SO_LIST) {
    sb_puts(out, "_ = ");
  }
  sb_printf(out, "sch.%s(", m->name);
  for (int i = 0; i < in->nargs && i < m->nparams; i++) {
    if (i) sb_puts(out, ", ");
    if (m->params[i].kind == SP_BUFFER && in->args[i].kind == SV_LIST) { /* ("write", 0) */
      sb_printf(out, "%s=(", m->params[i].name);
      for (int k = 0; k < in->args[i].n; k++) {
        if (k) sb_puts(out, ", ");
        print_val(s, out, &in->args[i].items[k]);
      }
      sb_puts(out, ")");
      continue;
    }
    if (m->params[i].kind == SP_LOOPS || m->params[i].kind == SP_BLOCKS) {
      for (int k = 0; k < in->args[i].n; k++) {
        if (k) sb_puts(out, ", ");
        print_val(s, out, &in->args[i].items[k]);
      }
      continue;
    }
    sb_printf(out, "%s=", m->params[i].name);
    print_val(s, out, &in->args[i]);
  }
  sb_puts(out, ")\n");
}

void sch_trace_print(const Schedule *s, StrBuf *out, bool as_function) {
  const char *ind = "";
  if (as_function) {
    sb_puts(out, "# from tvm import tir\ndef apply_trace(sch: tir.Schedule) -> None:\n");
    ind = "  ";
    if (s->ntrace == 0) sb_puts(out, "  pass\n");
  }
  for (int i = 0; i < s->ntrace; i++) {
    sb_puts(out, ind);
    print_inst(s, out, &s->trace[i]);
  }
}

IrModule *sch_trace_replay(const IrModule *m, const char *trace_text, DiagCtx *diag) {
  SourceFile *src = src_from_string("<trace>", trace_text, strlen(trace_text));
  IrModule *cur = ir_module_copy(m);
  int rc = sch_eval_text(src, &cur, diag, NULL);
  if (rc) diag_flush(diag); /* the records point into src */
  src_free(src);
  if (rc) {
    ir_module_free(cur);
    return NULL;
  }
  return cur;
}

/* ------------------------------------------------------------- decisions */

static bool is_sampling(const SchInst *in) { return in->method->out != SO_NONE && !strncmp(in->method->name, "sample_", 7); }

/* The trace index of decision i (-1 when out of range). */
static int decision_inst(const Schedule *s, int i) {
  for (int k = 0; k < s->ntrace; k++)
    if (is_sampling(&s->trace[k]) && i-- == 0) return k;
  return -1;
}

int sch_trace_decision_count(const Schedule *s) {
  int n = 0;
  for (int k = 0; k < s->ntrace; k++) n += is_sampling(&s->trace[k]);
  return n;
}

const char *sch_trace_decision_method(const Schedule *s, int i) {
  int k = decision_inst(s, i);
  return k < 0 ? NULL : s->trace[k].method->name;
}

/* The decision is the last argument of every sampling instruction. */
static SchVal *decision_arg(const Schedule *s, int i) {
  int k = decision_inst(s, i);
  if (k < 0) return NULL;
  SchInst *in = &s->trace[k];
  return &in->args[in->nargs - 1];
}

int sch_trace_get_decision(const Schedule *s, int i, int64_t *vals, int cap) {
  const SchVal *d = decision_arg(s, i);
  if (!d) return -1;
  if (d->kind == SV_LIST) {
    for (int k = 0; k < d->n && k < cap; k++) vals[k] = d->items[k].i;
    return d->n;
  }
  if (cap > 0) vals[0] = d->i;
  return 1;
}

int sch_trace_set_decision(Schedule *s, int i, const int64_t *vals, int n) {
  SchVal *d = decision_arg(s, i);
  if (!d || n < 1) return -1;
  if (d->kind == SV_LIST) {
    if (n != d->n) return -1;
    for (int k = 0; k < n; k++) d->items[k].i = vals[k];
  } else {
    if (n != 1) return -1;
    d->kind = SV_INT;
    d->i = vals[0];
  }
  return 0;
}

/* The handles of an argument mapped from s's table to the replay's. */
static SchVal map_rvs(const SchVal *v, const SchRV *map, int nmap) {
  SchVal c = sch_val_copy(v);
  if (c.kind == SV_RV) c.i = c.i >= 0 && c.i < nmap ? map[c.i] : -1;
  for (int i = 0; i < (c.kind == SV_LIST ? c.n : 0); i++) {
    SchVal m = map_rvs(&v->items[i], map, nmap);
    sch_val_free(&c.items[i]);
    c.items[i] = m;
  }
  return c;
}

Schedule *sch_replay(const Schedule *s, int64_t seed, DiagCtx *diag) {
  Schedule *r = sch_new(s->versions[0], diag);
  sch_seed(r, seed);
  r->debug_mask = s->debug_mask;
  if (s->func) {
    free(r->func);
    r->func = xstrdup(s->func);
  }
  SchRV *map = xmalloc((size_t)(s->nrvs ? s->nrvs : 1) * sizeof *map);
  for (int i = 0; i < s->nrvs; i++) map[i] = -1;
  int nerr = diag->nerr;
  for (int k = 0; k < s->ntrace; k++) {
    const SchInst *in = &s->trace[k];
    const SchMethod *m = in->method;
    SchVal args[SCH_MAX_PARAMS];
    for (int i = 0; i < m->nparams; i++)
      args[i] = i < in->nargs ? map_rvs(&in->args[i], map, s->nrvs) : sch_val_none();
    SchVal res = sch_val_none();
    int rc = m->apply(r, args, &res);
    for (int i = 0; i < m->nparams; i++) sch_val_free(&args[i]);
    if (rc || diag->nerr > nerr) {
      sch_val_free(&res);
      free(map);
      sch_free(r);
      return NULL;
    }
    /* The instruction's outputs: one handle or a list of them. */
    if (res.kind == SV_RV && in->nouts >= 1) {
      map[in->outs[0]] = (SchRV)res.i;
    } else if (res.kind == SV_LIST) {
      for (int i = 0; i < res.n && i < in->nouts; i++) map[in->outs[i]] = (SchRV)res.items[i].i;
    }
    sch_val_free(&res);
  }
  free(map);
  return r;
}
