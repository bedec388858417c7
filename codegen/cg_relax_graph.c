/* cg_relax_graph.c - graph functions to LLVM: the direct entry of a legalized
 * Relax function, a call sequence over the prim_funcs' direct entries
 * (TVM's VM/AOT executor, compiled ahead of time into the same module).
 *
 *   int32_t main(void *x, void *w, void *output, int64_t n)
 *     ws  = workspace(planned peak)            static intermediates: one block
 *     lv  = workspace(n * 16 bytes)            symbolic ones: one each
 *     rc  = add_one(x, lv, n)                  callee's direct entry + its dims
 *     rc  = mul(lv, w, output, n)              a returned tensor is written in
 *     free(lv); free(ws); return rc              place (destination passing)
 *
 * Values are tracked at compile time: a tensor is a data pointer plus its
 * struct info (shape expressions over the graph's symbolic vars, bound from
 * the input shapes at entry); tuples are lists of values.  A call_tir whose
 * result is returned writes straight into the caller's output; any other
 * returned tensor (an input, a constant, a tensor returned twice) is copied.
 * Intermediates of static size live at the offsets of the memory plan
 * (ir/memory_plan.c: storage shared across disjoint lifetimes) in one
 * workspace allocated per call; those of symbolic size are allocated one by
 * one and freed right after the last call that uses them (on an error path,
 * at exit).  Static shape mismatches between a call_tir and its prim_func
 * are compile errors; dims only known at run time are checked before the
 * call.  The calling convention is documented in codegen.h
 * (cg_graph_signature). */
#include "codegen/cg_internal.h"
#include "ir/memory_plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/structural_equal.h"
#include "ir/visit.h"
#include "base/util.h"

/* ------------------------------------------------------------ signature */

static bool known_tensor(const RxSInfo *si) {
  return si && si->kind == RX_SI_TENSOR && si->shape && si->ndim >= 0 && !dt_is_void(si->dtype) &&
         si->dtype.lanes == 1;
}

/* The struct info of what f returns: the body's (inferred, most precise)
 * when it is known, else the declared one. */
static const RxSInfo *result_sinfo(const RxFunc *f) {
  const RxSInfo *b = f->body ? f->body->sinfo : NULL;
  if (known_tensor(b)) return b;
  if (b && b->kind == RX_SI_TUPLE) {
    bool ok = true;
    for (int i = 0; i < b->nfields; i++) ok &= known_tensor(b->fields[i]);
    if (ok) return b;
  }
  return f->ret_sinfo ? f->ret_sinfo : b;
}

/* The output tensors' struct info (a tensor, or a flat tuple of tensors). */
static int output_sinfos(const RxSInfo *rs, const RxSInfo **outs, int cap) {
  if (known_tensor(rs)) {
    outs[0] = rs;
    return 1;
  }
  if (!rs || rs->kind != RX_SI_TUPLE || rs->nfields == 0 || rs->nfields > cap) return -1;
  for (int i = 0; i < rs->nfields; i++) {
    if (!known_tensor(rs->fields[i])) return -1;
    outs[i] = rs->fields[i];
  }
  return rs->nfields;
}

/* Whether every var of e appears as a bare dim of some input. */
static bool dims_bound_by_inputs(const RxFunc *f, const TirExpr *e) {
  PtrVec fv = {0};
  tir_expr_free_vars(e, &fv);
  bool ok = true;
  for (int k = 0; k < fv.len && ok; k++) {
    bool found = false;
    for (int i = 0; i < f->nparams && !found; i++) {
      const RxSInfo *si = f->params[i]->sinfo;
      for (int d = 0; d < si->ndim && !found; d++)
        found = si->shape[d]->kind == TIR_VAR && si->shape[d]->var == fv.items[k];
    }
    ok = found;
  }
  pv_free(&fv);
  return ok;
}

#define MAX_OUTPUTS 64

TirFunc *cg_graph_signature(IrHeap *h, const char *name, const RxFunc *f, int *num_outputs, DiagCtx *diag) {
  for (int i = 0; i < f->nparams; i++)
    if (!known_tensor(f->params[i]->sinfo)) {
      diag_error(diag, f->params[i]->span.file ? f->params[i]->span : f->span,
                 "cannot compile graph function '%s': parameter '%s' must be a tensor of known rank and "
                 "dtype (R.Tensor((...), \"dtype\"))", name, f->params[i]->var.name);
      return NULL;
    }
  const RxSInfo *outs[MAX_OUTPUTS];
  int nout = output_sinfos(result_sinfo(f), outs, MAX_OUTPUTS);
  if (nout < 0) {
    diag_error(diag, f->span,
               "cannot compile graph function '%s': it must return a tensor or a tuple of tensors of "
               "known shape and dtype", name);
    return NULL;
  }
  for (int k = 0; k < nout; k++)
    for (int d = 0; d < outs[k]->ndim; d++)
      if (!dims_bound_by_inputs(f, outs[k]->shape[d])) {
        diag_error(diag, f->span,
                   "cannot compile graph function '%s': the shape of its result depends on a value "
                   "no input shape gives", name);
        return NULL;
      }
  int n = f->nparams + nout;
  TirVar **params = xcalloc((size_t)(n ? n : 1), sizeof *params);
  TirBuffer **bufs = xcalloc((size_t)(n ? n : 1), sizeof *bufs);
  for (int i = 0; i < n; i++) {
    const RxSInfo *si = i < f->nparams ? f->params[i]->sinfo : outs[i - f->nparams];
    char pn[32];
    if (i >= f->nparams) snprintf(pn, sizeof pn, nout == 1 ? "output" : "output_%d", i - f->nparams);
    const char *pname = i < f->nparams ? f->params[i]->var.name : pn;
    bufs[i] = tir_buffer(h, pname, si->dtype, si->shape, si->ndim, "global");
    params[i] = tir_var(h, pname, dt_handle);
  }
  IrValue *attrs = irv_dict_set(h, NULL, "tir.noalias", irv_bool(h, true));
  TirFunc *sig = tir_func(h, params, bufs, n, tir_evaluate(h, tir_i32(h, 0)), attrs);
  sig->buffer_param_sugar = true;
  sig->span = f->span;
  free(params);
  free(bufs);
  *num_outputs = nout;
  return sig;
}

/* ------------------------------------------------------------ state */

/* A value at compile time. */
typedef struct GVal GVal;
struct GVal {
  bool is_tuple;
  LLVMValueRef data;  /* tensor: its data pointer (i8*) */
  const RxSInfo *si;  /* tensor: shape and dtype */
  int slot;           /* tensor: its workspace slot (Gx.slots), or -1 */
  GVal **fields;      /* tuple fields */
  int n;
};

/* A workspace intermediate: freed right after its last use (the call
 * instruction recorded here), or at exit when the result reads it. */
typedef struct Slot {
  LLVMValueRef ptr;      /* i8* alloca holding it (NULL once freed) */
  LLVMValueRef last_use; /* the last call reading or writing it */
  bool keep;             /* part of the result: freed at exit */
} Slot;

typedef struct Gx {
  CgModule *m;
  CgFn g;
  CgFuncSig *s;           /* the graph function */
  CgFuncSig *sigs;        /* the prim_funcs */
  int nsigs;
  LLVMValueRef fname;     /* its name (messages) */
  IrPtrMap env;           /* Relax var -> GVal */
  RxMemPlan plan;         /* lifetimes, outputs and workspace offsets */
  LLVMValueRef ws;        /* i8* alloca: the planned workspace (NULL when none) */
  LLVMValueRef outs[MAX_OUTPUTS]; /* the output params */
  int nout;
  LLVMValueRef rc;        /* i32 alloca: the return code */
  LLVMBasicBlockRef cleanup;
  Slot *slots;            /* workspace allocations */
  int nslots, capslots;
  PtrVec vals;            /* every GVal (freed at the end) */
  bool failed;
} Gx;

static GVal *gv_new(Gx *x) {
  GVal *v = xcalloc(1, sizeof *v);
  v->slot = -1;
  pv_push(&x->vals, v);
  return v;
}

static GVal *gv_tensor(Gx *x, LLVMValueRef data, const RxSInfo *si) {
  GVal *v = gv_new(x);
  v->data = data;
  v->si = si;
  v->slot = -1;
  return v;
}

static void *gx_error(Gx *x, Span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void *gx_error(Gx *x, Span sp, const char *fmt, ...) {
  if (x->failed) return NULL;
  x->failed = true;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  diag_error(x->m->diag, sp.file ? sp : x->s->f->span, "cannot compile graph function '%s': %s", x->s->name, msg);
  return NULL;
}

static LLVMValueRef call_fn(Gx *x, const char *name, LLVMTypeRef ret, LLVMTypeRef *ps, int np, LLVMValueRef *args,
                            int nargs, bool vararg) {
  LLVMValueRef fn = cg_runtime_fn(x->m, name, LLVMFunctionType(ret, ps, (unsigned)np, vararg));
  return LLVMBuildCall2(x->g.b, LLVMGlobalGetValueType(fn), fn, args, (unsigned)nargs, "");
}

/* When cond holds at run time: return -1 (the message is set by then). */
static void fail_if(Gx *x, LLVMValueRef cond, const char *what) {
  LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(x->m->ctx, x->g.fn, what);
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(x->m->ctx, x->g.fn, "ok");
  LLVMBuildCondBr(x->g.b, cond, bad, ok);
  LLVMPositionBuilderAtEnd(x->g.b, bad);
  LLVMBuildStore(x->g.b, LLVMConstInt(x->m->i32, (unsigned long long)-1, 1), x->rc);
  LLVMBuildBr(x->g.b, x->cleanup);
  LLVMPositionBuilderAtEnd(x->g.b, ok);
}

/* A shape expression's value as i64. */
static LLVMValueRef dim_value(Gx *x, const TirExpr *e) {
  return cg_convert(&x->g, cg_expr(&x->g, e), e->dtype, dt_int64);
}

static LLVMValueRef tensor_bytes(Gx *x, const RxSInfo *si) {
  LLVMValueRef n = LLVMConstInt(x->m->i64, dt_bytes(si->dtype), 0);
  for (int d = 0; d < si->ndim; d++) n = LLVMBuildMul(x->g.b, n, dim_value(x, si->shape[d]), "");
  return n;
}

/* A fresh intermediate from the runtime workspace, in slot x->nslots - 1. */
static LLVMValueRef alloc_tensor(Gx *x, const RxSInfo *si) {
  CgModule *m = x->m;
  LLVMBuilderRef eb = LLVMCreateBuilderInContext(m->ctx);
  LLVMPositionBuilderAtEnd(eb, x->g.entry);
  LLVMValueRef slot = LLVMBuildAlloca(eb, m->i8p, "ws");
  LLVMBuildStore(eb, LLVMConstNull(m->i8p), slot);
  LLVMDisposeBuilder(eb);
  VEC_PUSH(x->slots, x->nslots, x->capslots, ((Slot){slot, NULL, false}));
  LLVMTypeRef ps[2] = {m->i64, m->i64};
  LLVMValueRef a[2] = {tensor_bytes(x, si), LLVMConstInt(m->i64, 64, 0)};
  LLVMValueRef p = call_fn(x, "tvs_backend_alloc_workspace", m->i8p, ps, 2, a, 2, false);
  LLVMBuildStore(x->g.b, p, slot);
  fail_if(x, LLVMBuildIsNull(x->g.b, p, ""), "nomem");
  return p;
}

/* ------------------------------------------------------------ planning */

static bool is_call_tir(const RxExpr *e) {
  return e && e->kind == RX_CALL && e->call.op && e->call.op->id == RX_OP_CALL_TIR;
}

/* The output a call_tir output is computed in, or -1. */
static int dest_of(Gx *x, const RxExpr *call, int idx) {
  const RxPlanTensor *t = rx_memory_plan_find(&x->plan, call, idx);
  return t ? t->out : -1;
}

/* The planned intermediate's place in the workspace, or NULL when it is
 * not planned (symbolic size). */
static LLVMValueRef planned_tensor(Gx *x, const RxExpr *call, int idx) {
  const RxPlanTensor *t = rx_memory_plan_find(&x->plan, call, idx);
  if (!t || t->offset < 0 || !x->ws) return NULL;
  LLVMValueRef base = LLVMBuildLoad2(x->g.b, x->m->i8p, x->ws, "");
  LLVMValueRef off = LLVMConstInt(x->m->i64, (unsigned long long)t->offset, 0);
  return LLVMBuildInBoundsGEP2(x->g.b, x->m->i8, base, &off, 1, t->name);
}

/* ------------------------------------------------------------ evaluation */

static GVal *ev(Gx *x, const RxExpr *e);

static CgFuncSig *find_sig(Gx *x, const char *name) {
  for (int i = 0; i < x->nsigs; i++)
    if (!strcmp(x->sigs[i].name, name)) return &x->sigs[i];
  return NULL;
}

/* One argument position of a call_tir: a tensor or a scalar. */
typedef struct Arg {
  GVal *t;            /* tensor, or NULL */
  LLVMValueRef s;     /* scalar value (int64 / double per ABI) */
  const TirExpr *se;  /* the scalar's expression */
} Arg;

/* Checks at run time that graph dim `got` equals the callee's `want`. */
static void check_dim(Gx *x, const char *callee, int arg, const char *param, int d, LLVMValueRef got,
                      LLVMValueRef want) {
  CgModule *m = x->m;
  LLVMValueRef bad = LLVMBuildICmp(x->g.b, LLVMIntNE, got, want, "");
  LLVMBasicBlockRef fb = LLVMAppendBasicBlockInContext(m->ctx, x->g.fn, "shapeerr");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(m->ctx, x->g.fn, "shapeok");
  LLVMBuildCondBr(x->g.b, bad, fb, ok);
  LLVMPositionBuilderAtEnd(x->g.b, fb);
  LLVMValueRef fa[8] = {cg_const_string(m, "%s: call_tir to '%s': argument %d ('%s') shape[%d] is %lld, expected %lld"),
                        x->fname, cg_const_string(m, callee), LLVMConstInt(m->i32, (unsigned long long)arg, 0),
                        cg_const_string(m, param), LLVMConstInt(m->i32, (unsigned long long)d, 0), got, want};
  call_fn(x, "tvs_set_last_error", m->voidt, &m->i8p, 1, fa, 8, true);
  LLVMBuildStore(x->g.b, LLVMConstInt(m->i32, (unsigned long long)-1, 1), x->rc);
  LLVMBuildBr(x->g.b, x->cleanup);
  LLVMPositionBuilderAtEnd(x->g.b, ok);
}

/* What the steps of ev_call_tir share. */
typedef struct CallTir {
  const RxExpr *e;
  const char *callee;
  CgFuncSig *cs;            /* the callee's signature */
  const TirFunc *cf;        /* the callee */
  GVal **ins;               /* inputs (a tuple's fields or the one value) */
  int nins;
  const RxExpr *tv;         /* tir_vars (R.shape) or NULL */
  const RxSInfo *const *osi; /* out_sinfo, one per output */
  int nouts;
  bool tuple_out;
  int total;                /* inputs + outputs + tir_vars */
  GVal **ov;                /* the output tensors */
  Arg *args;                /* per callee param */
  LLVMValueRef *bv;         /* per bind of the callee: its i64 value */
} CallTir;

/* Static checks before any code: kinds, dtypes, ranks, constant dims. */
static bool check_call_tir_args(Gx *x, const CallTir *c) {
  const RxExpr *e = c->e;
  const char *callee = c->callee;
  int nins = c->nins, nouts = c->nouts;
  for (int i = 0; i < c->total; i++) {
    const TirBuffer *b = c->cf->buffer_map ? c->cf->buffer_map[i] : NULL;
    const RxSInfo *si = i < nins ? (c->ins[i]->is_tuple ? NULL : c->ins[i]->si) : i < nins + nouts ? c->osi[i - nins] : NULL;
    const char *pn = b ? b->name : c->cf->params[i]->name;
    if (!b != !si || (i < nins && c->ins[i]->is_tuple))
      return gx_error(x, e->span, "call_tir to '%s': argument %d ('%s') is %s, but the prim_func takes %s", callee,
                      i, pn, si ? "a tensor" : i < nins ? "a tuple" : "a tir_var", b ? "a buffer" : "a scalar"), false;
    if (!b) continue;
    char d1[DT_STR_MAX], d2[DT_STR_MAX];
    if (!dt_eq(b->dtype, si->dtype))
      return gx_error(x, e->span, "call_tir to '%s': argument %d ('%s') has dtype %s, the prim_func expects %s",
                      callee, i, pn, dt_str(si->dtype, d1), dt_str(b->dtype, d2)), false;
    if (b->ndim != si->ndim)
      return gx_error(x, e->span, "call_tir to '%s': argument %d ('%s') has %d dimensions, the prim_func expects %d",
                      callee, i, pn, si->ndim, b->ndim), false;
    for (int d = 0; d < b->ndim; d++) {
      int64_t want, got;
      if (tir_is_const_int(b->shape[d], &want) && tir_is_const_int(si->shape[d], &got) && want != got)
        return gx_error(x, e->span, "call_tir to '%s': argument %d ('%s') shape[%d] is %lld, the prim_func expects "
                                    "%lld", callee, i, pn, d, (long long)got, (long long)want), false;
    }
  }
  return true;
}

/* The outputs (the caller's tensor when returned, else a workspace
 * intermediate) and every argument position's value. */
static void build_call_tir_args(Gx *x, CallTir *c) {
  int nins = c->nins, nouts = c->nouts;
  c->ov = xcalloc((size_t)nouts, sizeof *c->ov);
  for (int i = 0; i < nouts; i++) {
    int k = dest_of(x, c->e, i);
    LLVMValueRef ws = k >= 0 ? NULL : planned_tensor(x, c->e, i);
    c->ov[i] = gv_tensor(x, k >= 0 ? x->outs[k] : ws ? ws : alloc_tensor(x, c->osi[i]), c->osi[i]);
    if (k < 0 && !ws) c->ov[i]->slot = x->nslots - 1;
  }
  c->args = xcalloc((size_t)(c->total ? c->total : 1), sizeof *c->args);
  for (int i = 0; i < c->total; i++) {
    Arg *a = &c->args[i];
    if (i < nins) a->t = c->ins[i];
    else if (i < nins + nouts) a->t = c->ov[i - nins];
    else {
      a->se = c->tv->shape.values[i - nins - nouts];
      a->s = cg_expr(&x->g, a->se);
    }
  }
}

/* The callee's symbolic vars, from the graph's shapes, and its scalar
 * params, bound for the dim checks and converted to the ABI. */
static void build_call_tir_binds(Gx *x, CallTir *c) {
  CgFuncSig *cs = c->cs;
  c->bv = xcalloc((size_t)(cs->nbinds ? cs->nbinds : 1), sizeof *c->bv);
  for (int j = 0; j < cs->nbinds; j++) {
    const CgBindVar *b = &cs->binds[j];
    const RxSInfo *si = c->args[b->param].t->si;
    LLVMValueRef *bv = &c->bv[j];
    if (b->kind == CG_BIND_SHAPE) *bv = dim_value(x, si->shape[b->dim]);
    else if (b->kind == CG_BIND_STRIDE) {
      *bv = LLVMConstInt(x->m->i64, 1, 0);
      for (int d = b->dim + 1; d < si->ndim; d++) *bv = LLVMBuildMul(x->g.b, *bv, dim_value(x, si->shape[d]), "");
    } else {
      *bv = LLVMConstInt(x->m->i64, 0, 0);
    }
    cg_bind(&x->g, b->var, cg_convert(&x->g, *bv, dt_int64, dt_element(b->var->dtype)));
  }
  const TirFunc *cf = c->cf;
  for (int i = 0; i < c->total; i++) {
    Arg *a = &c->args[i];
    if (a->t) continue;
    cg_bind(&x->g, cf->params[i], cg_convert(&x->g, a->s, a->se->dtype, dt_element(cf->params[i]->dtype)));
    DType abi = dt_is_float(cf->params[i]->dtype) ? dt_float64 : dt_int64;
    a->s = cg_convert(&x->g, a->s, a->se->dtype, abi);
  }
}

/* Dims not bound by the callee's first use of a var: check at run time. */
static void check_call_tir_dims(Gx *x, const CallTir *c) {
  const CgFuncSig *cs = c->cs;
  for (int i = 0; i < c->total && !x->failed; i++) {
    const TirBuffer *b = c->args[i].t ? c->cf->buffer_map[i] : NULL;
    for (int d = 0; b && d < b->ndim; d++) {
      const TirExpr *ce = b->shape[d], *ge = c->args[i].t->si->shape[d];
      if (tir_is_const_int(ce, NULL) && tir_is_const_int(ge, NULL)) continue; /* checked above */
      bool skip = false;
      for (int j = 0; j < cs->nbinds && !skip && ce->kind == TIR_VAR; j++) {
        const CgBindVar *bd = &cs->binds[j];
        if (bd->var != ce->var || bd->kind != CG_BIND_SHAPE) continue;
        skip = (bd->param == i && bd->dim == d) ||
               seq_tir_expr(ge, c->args[bd->param].t->si->shape[bd->dim]);
      }
      if (skip) continue;
      check_dim(x, c->callee, i, b->name, d, dim_value(x, ge), dim_value(x, ce));
    }
  }
}

/* The call itself; returns the result value (the output or a tuple of them). */
static GVal *build_call_tir_call(Gx *x, CallTir *c) {
  CgFuncSig *cs = c->cs;
  int np = (int)LLVMCountParamTypes(cs->type), k = 0;
  LLVMValueRef *ca = xcalloc((size_t)(np ? np : 1), sizeof *ca);
  for (int i = 0; i < c->total; i++)
    if (c->args[i].t) ca[k++] = c->args[i].t->data;
  for (int j = 0; j < cs->nbinds; j++) ca[k++] = c->bv[j];
  for (int i = 0; i < c->total; i++)
    if (!c->args[i].t) ca[k++] = c->args[i].s;
  GVal *res = NULL;
  if (k != np) {
    gx_error(x, c->e->span, "call_tir to '%s': internal error: %d arguments for a %d-parameter entry", c->callee, k,
             np);
  } else {
    LLVMValueRef rc = LLVMBuildCall2(x->g.b, cs->type, cs->direct, ca, (unsigned)k, "");
    for (int i = 0; i < c->nins + c->nouts; i++)
      if (c->args[i].t->slot >= 0) x->slots[c->args[i].t->slot].last_use = rc;
    fail_if(x, LLVMBuildICmp(x->g.b, LLVMIntNE, rc, LLVMConstInt(x->m->i32, 0, 0), ""), "callerr");
    if (!c->tuple_out) {
      res = c->ov[0];
    } else {
      res = gv_new(x);
      res->is_tuple = true;
      res->n = c->nouts;
      res->fields = c->ov;
      c->ov = NULL;
    }
  }
  free(ca);
  return res;
}

static GVal *ev_call_tir(Gx *x, const RxExpr *e) {
  if (e->call.n < 2 || e->call.args[0]->kind != RX_GLOBAL_VAR)
    return gx_error(x, e->span, "R.call_tir needs a prim_func of the module and its arguments");
  CallTir c;
  memset(&c, 0, sizeof c);
  c.e = e;
  c.callee = e->call.args[0]->gvar.name;
  c.cs = find_sig(x, c.callee);
  if (!c.cs)
    return gx_error(x, e->call.args[0]->span, "call_tir to '%s': no prim_func of that name is compiled in this "
                                              "module", c.callee);
  c.cf = c.cs->f;
  GVal *in = ev(x, e->call.args[1]);
  if (!in) return NULL;
  c.ins = in->is_tuple ? in->fields : &in;
  c.nins = in->is_tuple ? in->n : 1;
  c.tv = e->call.n >= 3 ? e->call.args[2] : NULL;
  if (c.tv && c.tv->kind != RX_SHAPE_EXPR)
    return gx_error(x, c.tv->span, "tir_vars of call_tir must be R.shape([...])");
  int ntv = c.tv ? c.tv->shape.n : 0;
  c.osi = rx_call_outputs(e, &c.nouts, &c.tuple_out);
  if (c.nouts < 1) return gx_error(x, e->span, "call_tir to '%s' needs out_sinfo", c.callee);
  c.total = c.nins + c.nouts + ntv;
  if (c.cf->nparams != c.total)
    return gx_error(x, e->span, "call_tir to '%s' passes %d inputs, %d outputs and %d tir_vars, but the prim_func "
                                "has %d parameters", c.callee, c.nins, c.nouts, ntv, c.cf->nparams);
  for (int i = 0; i < c.nouts; i++)
    if (!known_tensor(c.osi[i]))
      return gx_error(x, e->span, "call_tir to '%s': out_sinfo %d needs a known shape and dtype", c.callee, i);
  if (!check_call_tir_args(x, &c)) return NULL;
  build_call_tir_args(x, &c);
  build_call_tir_binds(x, &c);
  check_call_tir_dims(x, &c);
  GVal *res = build_call_tir_call(x, &c);
  free(c.ov);
  free(c.args);
  free(c.bv);
  return res;
}

/* A constant as private, read-only, 64-byte aligned module data. */
static GVal *ev_const(Gx *x, const RxExpr *e) {
  CgModule *m = x->m;
  int64_t nb = e->cnst.nbytes;
  LLVMValueRef init = LLVMConstStringInContext(m->ctx, e->cnst.data ? (const char *)e->cnst.data : "",
                                               (unsigned)(e->cnst.data ? nb : 0), 1);
  char name[64];
  snprintf(name, sizeof name, ".const.%d", m->nstrings++);
  LLVMValueRef g = LLVMAddGlobal(m->mod, LLVMTypeOf(init), name);
  LLVMSetInitializer(g, init);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  LLVMSetAlignment(g, 64);
  return gv_tensor(x, LLVMConstBitCast(g, m->i8p), e->sinfo);
}

static GVal *ev(Gx *x, const RxExpr *e) {
  if (x->failed || !e) return NULL;
  switch (e->kind) {
    case RX_VAR: case RX_DATAFLOW_VAR: {
      GVal *v = ir_ptrmap_get(&x->env, e);
      return v ? v : gx_error(x, e->span, "variable '%s' is used before it is bound", e->var.name);
    }
    case RX_CONST:
      if (!known_tensor(e->sinfo)) return gx_error(x, e->span, "a constant of unknown shape");
      return ev_const(x, e);
    case RX_TUPLE: {
      GVal *t = gv_new(x);
      t->is_tuple = true;
      t->n = e->tuple.n;
      t->fields = xcalloc((size_t)(t->n ? t->n : 1), sizeof *t->fields);
      for (int i = 0; i < t->n; i++)
        if (!(t->fields[i] = ev(x, e->tuple.fields[i]))) return NULL;
      return t;
    }
    case RX_TUPLE_GET_ITEM: {
      GVal *t = ev(x, e->get.tuple);
      if (!t) return NULL;
      if (!t->is_tuple || e->get.index < 0 || e->get.index >= t->n)
        return gx_error(x, e->span, "tuple index %d out of range", e->get.index);
      return t->fields[e->get.index];
    }
    case RX_CALL:
      if (is_call_tir(e)) return ev_call_tir(x, e);
      if (!e->call.op && e->call.callee)
        return gx_error(x, e->span, "the call of graph function '%s' cannot be compiled: only calls of prim_funcs "
                                    "(R.call_tir) can", e->call.callee->gvar.name);
      return gx_error(x, e->span, "R.%s cannot be compiled: LegalizeOps did not turn it into a prim_func "
                                  "(the operator has no legalization yet, or the shape of its result is "
                                  "not known at compile time)",
                      e->call.op ? e->call.op->script_name : "?");
    case RX_SEQ:
      for (int bi = 0; bi < e->seq.nblocks; bi++)
        for (int i = 0; i < e->seq.blocks[bi].n; i++) {
          const RxBinding *bd = &e->seq.blocks[bi].bindings[i];
          if (bd->cast_to) return gx_error(x, bd->span, "R.match_cast is not supported by compiled graph functions");
          GVal *v = ev(x, bd->value);
          if (!v) return NULL;
          ir_ptrmap_put(&x->env, bd->var, v);
        }
      return ev(x, e->seq.body);
    case RX_IF: return gx_error(x, e->span, "if/else is not supported by compiled graph functions");
    default: return gx_error(x, e->span, "this expression is not supported by compiled graph functions");
  }
}

/* The one workspace of the planned intermediates, allocated at entry. */
static void alloc_planned_workspace(Gx *x) {
  CgModule *m = x->m;
  if (x->plan.peak <= 0) return;
  LLVMBuilderRef eb = LLVMCreateBuilderInContext(m->ctx);
  LLVMPositionBuilderAtEnd(eb, x->g.entry);
  x->ws = LLVMBuildAlloca(eb, m->i8p, "workspace");
  LLVMBuildStore(eb, LLVMConstNull(m->i8p), x->ws);
  LLVMDisposeBuilder(eb);
  LLVMTypeRef ps[2] = {m->i64, m->i64};
  LLVMValueRef a[2] = {LLVMConstInt(m->i64, (unsigned long long)x->plan.peak, 0),
                       LLVMConstInt(m->i64, RX_PLAN_ALIGN, 0)};
  LLVMValueRef p = call_fn(x, "tvs_backend_alloc_workspace", m->i8p, ps, 2, a, 2, false);
  LLVMBuildStore(x->g.b, p, x->ws);
  fail_if(x, LLVMBuildIsNull(x->g.b, p, ""), "nomem");
}

/* Frees the workspace pointer held in slot alloca p (NULL-safe) and clears it. */
static void free_slot(Gx *x, LLVMValueRef p) {
  CgModule *m = x->m;
  LLVMValueRef v = LLVMBuildLoad2(x->g.b, m->i8p, p, "");
  call_fn(x, "tvs_backend_free_workspace", m->i32, &m->i8p, 1, &v, 1, false);
  LLVMBuildStore(x->g.b, LLVMConstNull(m->i8p), p);
}

static int flatten(GVal *v, GVal **out, int cap) {
  if (!v->is_tuple) {
    if (cap > 0) out[0] = v;
    return 1;
  }
  int n = 0;
  for (int i = 0; i < v->n; i++) n += flatten(v->fields[i], out + (n < cap ? n : cap), cap - n > 0 ? cap - n : 0);
  return n;
}

/* The graph's result into the output params: checked against the return
 * type, copied unless computed in place; its slots are kept. */
static void build_graph_result(Gx *x, GVal *res) {
  const RxFunc *f = x->s->rx;
  const TirFunc *sig = x->s->f;
  GVal *ls[MAX_OUTPUTS];
  int n = flatten(res, ls, MAX_OUTPUTS);
  for (int k = 0; k < n && k < MAX_OUTPUTS; k++)
    if (ls[k]->slot >= 0) x->slots[ls[k]->slot].keep = true;
  if (n != x->nout) {
    gx_error(x, f->span, "its result has %d tensors, its return type %d", n, x->nout);
    return;
  }
  for (int k = 0; k < n && !x->failed; k++) {
    const TirBuffer *ob = sig->buffer_map[f->nparams + k];
    bool same = dt_eq(ob->dtype, ls[k]->si->dtype) && ob->ndim == ls[k]->si->ndim;
    for (int d = 0; same && d < ob->ndim; d++) {
      int64_t a, b;
      same = !(tir_is_const_int(ob->shape[d], &a) && tir_is_const_int(ls[k]->si->shape[d], &b) && a != b);
    }
    if (!same) {
      gx_error(x, f->span, "result %d does not have the shape and dtype of its return type", k);
      break;
    }
    if (ls[k]->data == x->outs[k]) continue; /* computed in place */
    LLVMBuildMemCpy(x->g.b, x->outs[k], 1, ls[k]->data, 1, tensor_bytes(x, ls[k]->si));
  }
}

void cg_build_graph(CgModule *m, CgFuncSig *s, CgFuncSig *sigs, int nsigs) {
  const RxFunc *f = s->rx;
  const TirFunc *sig = s->f;
  IrHeap *h = ir_heap_new();
  Gx x;
  memset(&x, 0, sizeof x);
  x.m = m;
  x.s = s;
  x.sigs = sigs;
  x.nsigs = nsigs;
  x.nout = s->num_outputs;
  ir_ptrmap_init(&x.env);
  cg_fn_init(&x.g, m, s->direct, s->name, h);
  x.fname = cg_const_string(m, s->name);
  LLVMBuilderRef eb = LLVMCreateBuilderInContext(m->ctx);
  LLVMPositionBuilderAtEnd(eb, x.g.entry);
  x.rc = LLVMBuildAlloca(eb, m->i32, "rc");
  LLVMBuildStore(eb, LLVMConstInt(m->i32, 0, 0), x.rc);
  LLVMDisposeBuilder(eb);
  x.cleanup = LLVMAppendBasicBlockInContext(m->ctx, s->direct, "cleanup");
  /* params: inputs, outputs, then the symbolic dims */
  for (int i = 0; i < sig->nparams; i++) {
    LLVMValueRef p = LLVMGetParam(s->direct, (unsigned)i);
    const char *pn = sig->buffer_map[i]->name;
    LLVMSetValueName2(p, pn, strlen(pn));
    if (i < f->nparams) ir_ptrmap_put(&x.env, f->params[i], gv_tensor(&x, p, f->params[i]->sinfo));
    else x.outs[i - f->nparams] = p;
  }
  for (int j = 0; j < s->nbinds; j++) {
    LLVMValueRef p = LLVMGetParam(s->direct, (unsigned)(sig->nparams + j));
    const TirVar *v = s->binds[j].var;
    LLVMSetValueName2(p, v->name, strlen(v->name));
    cg_bind(&x.g, v, cg_convert(&x.g, p, dt_int64, dt_element(v->dtype)));
  }
  if (rx_memory_plan(f, &x.plan) == 0 && x.plan.nout != x.nout) rx_memory_plan_free(&x.plan); /* copy all */
  alloc_planned_workspace(&x);
  GVal *res = ev(&x, f->body);
  if (res) build_graph_result(&x, res);
  LLVMBuildBr(x.g.b, x.cleanup);
  /* memory planning, simply: an intermediate goes right after its last use */
  for (int i = 0; i < x.nslots && !x.failed; i++) {
    if (x.slots[i].keep || !x.slots[i].last_use) continue;
    LLVMPositionBuilderBefore(x.g.b, LLVMGetNextInstruction(x.slots[i].last_use));
    free_slot(&x, x.slots[i].ptr);
  }
  LLVMPositionBuilderAtEnd(x.g.b, x.cleanup);
  for (int i = 0; i < x.nslots; i++) free_slot(&x, x.slots[i].ptr);
  if (x.ws) free_slot(&x, x.ws);
  LLVMBuildRet(x.g.b, LLVMBuildLoad2(x.g.b, m->i32, x.rc, ""));
  cg_fn_done(&x.g);
  if (x.g.failed && !x.failed) x.failed = true;
  for (int i = 0; i < x.vals.len; i++) {
    GVal *v = x.vals.items[i];
    free(v->fields);
    free(v);
  }
  pv_free(&x.vals);
  free(x.slots);
  ir_ptrmap_free(&x.env);
  rx_memory_plan_free(&x.plan);
  ir_heap_release(h);
}
