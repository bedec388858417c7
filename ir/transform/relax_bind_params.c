/* relax_bind_params.c - BindParams (TVM's relax.transform.BindParams): graph
 * function parameters named like the given arrays become R.const values, so
 * the function takes only the remaining parameters.  This is how weights
 * from a .npz reach the graph: `tvs run --params` binds them before running,
 * and `tvsc --params` before compiling, so that the constants are embedded
 * in the shared object (codegen emits them as 64-byte aligned globals). */
#include "ir/transform/xform_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "ir/relax_op.h"
#include "runtime/ndarray.h"

static DType dtype_of_dl(DLDataType d) {
  DType t = {DT_VOID, d.bits, d.lanes};
  switch (d.code) {
    case kDLInt: t.code = DT_INT; break;
    case kDLUInt: t.code = DT_UINT; break;
    case kDLFloat: t.code = DT_FLOAT; break;
    case kDLBfloat: t.code = DT_BFLOAT; break;
    case kDLBool: t.code = DT_BOOL; t.bits = 1; break;
    default: break;
  }
  return t;
}

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (err && errlen) vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return -1;
}

static void shape_text(StrBuf *sb, const int64_t *shape, int ndim) {
  sb_putc(sb, '(');
  for (int i = 0; i < ndim; i++) sb_printf(sb, i ? ", %lld" : "%lld", (long long)shape[i]);
  sb_puts(sb, ndim == 1 ? ",)" : ")");
}

/* Whether array a fits parameter p (a tensor of static shape and the same
 * dtype); 0, or -1 with the reason in err. */
static int check_param(const RxExpr *p, const DLTensor *a, char *err, size_t errlen) {
  const RxSInfo *si = p->sinfo;
  const char *pn = p->var.name;
  if (!si || si->kind != RX_SI_TENSOR || !si->shape || si->ndim < 0 || dt_is_void(si->dtype))
    return fail(err, errlen, "parameter '%s' is not a tensor of known shape and dtype", pn);
  char d1[DT_STR_MAX], d2[DT_STR_MAX];
  DType at = dtype_of_dl(a->dtype);
  if (!dt_eq(at, si->dtype) && !(at.code == DT_BOOL && si->dtype.code == DT_BOOL))
    return fail(err, errlen, "parameter '%s' has dtype %s but the file has %s", pn, dt_str(si->dtype, d1),
                dt_is_void(at) ? "an unsupported dtype" : dt_str(at, d2));
  StrBuf want, got;
  sb_init(&want);
  sb_init(&got);
  rx_shape_str(&want, si->shape, si->ndim);
  shape_text(&got, a->shape, a->ndim);
  bool same = a->ndim == si->ndim, symbolic = false;
  for (int d = 0; d < si->ndim; d++) {
    int64_t v;
    if (!tir_is_const_int(si->shape[d], &v)) symbolic = true;
    else if (same && v != a->shape[d]) same = false;
  }
  int rc = 0;
  if (symbolic)
    rc = fail(err, errlen, "parameter '%s' has the symbolic shape %s: only weights of static shape can be bound",
              pn, want.data);
  else if (!same) rc = fail(err, errlen, "parameter '%s' has shape %s but the file has %s", pn, want.data, got.data);
  sb_free(&want);
  sb_free(&got);
  return rc;
}

static RxExpr *subst(IrHeap *h, RxExpr *e, const IrPtrMap *map);

static RxExpr **subst_list(IrHeap *h, RxExpr **xs, int n, const IrPtrMap *map, bool *changed) {
  RxExpr **out = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *out);
  for (int i = 0; i < n; i++) {
    out[i] = subst(h, xs[i], map);
    *changed |= out[i] != xs[i];
  }
  return out;
}

static RxExpr *subst_seq(IrHeap *h, RxExpr *e, const IrPtrMap *map) {
  bool changed = false;
  RxBlock *blocks = ir_alloc(h, (size_t)(e->seq.nblocks ? e->seq.nblocks : 1) * sizeof *blocks);
  for (int bi = 0; bi < e->seq.nblocks; bi++) {
    const RxBlock *ob = &e->seq.blocks[bi];
    blocks[bi] = *ob;
    blocks[bi].bindings = ir_memdup(h, ob->bindings, (size_t)(ob->n ? ob->n : 1) * sizeof *ob->bindings);
    for (int i = 0; i < ob->n; i++) {
      blocks[bi].bindings[i].value = subst(h, ob->bindings[i].value, map);
      changed |= blocks[bi].bindings[i].value != ob->bindings[i].value;
    }
  }
  RxExpr *body = subst(h, e->seq.body, map);
  if (!changed && body == e->seq.body) return e;
  RxExpr *r = ir_memdup(h, e, sizeof *e);
  r->seq.blocks = blocks;
  r->seq.body = body;
  return r;
}

/* e with the vars of map replaced by their values (unchanged nodes shared). */
static RxExpr *subst(IrHeap *h, RxExpr *e, const IrPtrMap *map) {
  if (!e) return e;
  bool changed = false;
  RxExpr *r;
  switch (e->kind) {
    case RX_VAR: case RX_DATAFLOW_VAR: {
      RxExpr *v = ir_ptrmap_get(map, e);
      return v ? v : e;
    }
    case RX_CALL: {
      RxExpr **args = subst_list(h, e->call.args, e->call.n, map, &changed);
      if (!changed) return e;
      r = ir_memdup(h, e, sizeof *e);
      r->call.args = args;
      return r;
    }
    case RX_TUPLE: {
      RxExpr **fs = subst_list(h, e->tuple.fields, e->tuple.n, map, &changed);
      if (!changed) return e;
      r = ir_memdup(h, e, sizeof *e);
      r->tuple.fields = fs;
      return r;
    }
    case RX_TUPLE_GET_ITEM: {
      RxExpr *t = subst(h, e->get.tuple, map);
      if (t == e->get.tuple) return e;
      r = ir_memdup(h, e, sizeof *e);
      r->get.tuple = t;
      return r;
    }
    case RX_IF: {
      RxExpr *c = subst(h, e->ifs.cond, map), *t = subst(h, e->ifs.then_e, map), *f = subst(h, e->ifs.else_e, map);
      if (c == e->ifs.cond && t == e->ifs.then_e && f == e->ifs.else_e) return e;
      r = ir_memdup(h, e, sizeof *e);
      r->ifs.cond = c, r->ifs.then_e = t, r->ifs.else_e = f;
      return r;
    }
    case RX_SEQ: return subst_seq(h, e, map);
    default: return e;
  }
}

/* f with its params named in names[] bound; used[i] counts the uses of
 * names[i].  f itself when none matches; NULL with err on a mismatch. */
static RxFunc *bind_func(IrHeap *h, RxFunc *f, int n, const char *const *names, const DLTensor *const *values,
                         int *used, char *err, size_t errlen) {
  IrPtrMap map;
  ir_ptrmap_init(&map);
  RxExpr **keep = ir_alloc(h, (size_t)(f->nparams ? f->nparams : 1) * sizeof *keep);
  int nkeep = 0;
  bool bad = false;
  for (int i = 0; i < f->nparams && !bad; i++) {
    RxExpr *p = f->params[i];
    int k = -1;
    for (int j = 0; j < n && k < 0; j++)
      if (!strcmp(names[j], p->var.name)) k = j;
    if (k < 0) {
      keep[nkeep++] = p;
      continue;
    }
    used[k]++;
    if (check_param(p, values[k], err, errlen)) bad = true;
    else ir_ptrmap_put(&map, p, rx_const(h, p->sinfo->dtype, values[k]->shape, values[k]->ndim, values[k]->data));
  }
  RxFunc *nf = NULL;
  if (!bad && nkeep == f->nparams) nf = f;
  else if (!bad) {
    nf = ir_memdup(h, f, sizeof *f);
    nf->params = keep;
    nf->nparams = nkeep;
    nf->body = subst(h, f->body, &map);
  }
  ir_ptrmap_free(&map);
  return nf;
}

IrModule *rx_bind_params(const IrModule *m, const char *func, int n, const char *const *names,
                         const DLTensor *const *values, char *err, size_t errlen) {
  if (func && (!ir_module_lookup(m, func) || ir_module_lookup(m, func)->kind != IR_FUNC_RELAX)) {
    fail(err, errlen, "the module has no graph function '%s'", func);
    return NULL;
  }
  IrModule *out = ir_module_derive(m);
  out->name = m->name;
  out->implicit = m->implicit;
  out->attrs = m->attrs;
  int *used = xcalloc((size_t)(n ? n : 1), sizeof *used);
  bool ok = true;
  for (int i = 0; i < m->nfuncs && ok; i++) {
    const IrGlobal *g = &m->funcs[i];
    if (g->kind == IR_FUNC_TIR) {
      ir_module_add_tir(out, g->name, g->tir);
      continue;
    }
    RxFunc *f = g->rx;
    if (!func || !strcmp(func, g->name)) f = bind_func(out->heap, f, n, names, values, used, err, errlen);
    if (f) ir_module_add_relax(out, g->name, f);
    ok = f != NULL;
  }
  for (int j = 0; j < n && ok; j++)
    if (!used[j]) {
      if (func) fail(err, errlen, "'%s' is not a parameter of '%s'", names[j], func);
      else fail(err, errlen, "'%s' is not a parameter of any graph function", names[j]);
      ok = false;
    }
  free(used);
  if (!ok) {
    ir_module_free(out);
    return NULL;
  }
  return out;
}
