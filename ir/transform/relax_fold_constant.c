/* relax_fold_constant.c - FoldConstant (TVM's relax.transform.FoldConstant):
 *
 *   lv0 = R.add(R.const(1.0), R.const(2.0))          (folded)
 *   lv1 = R.call_tir(cls.f, (lv0,), out_sinfo=S)  ==>  gv = R.add(x, R.const(..., "float32"))
 *   gv = R.add(x, lv1)
 *
 * A call whose operands are all constants is evaluated now by the reference
 * interpreter (ir/interp.h) and replaced by an R.const: R.call_tir of a
 * prim_func of the module (anywhere; the result tensors are allocated from
 * out_sinfo, a tuple out_sinfo gives a tuple of constants), and, inside a
 * dataflow block as in TVM, a high-level operator the interpreter implements
 * (the EVAL column of ir/relax_ops.def; others are left alone).  Uses of a
 * variable bound to a constant read the constant, and t[i] of a tuple of
 * constants reads the field, so chains fold in one walk; the walk repeats
 * until nothing changes, then unused bindings are removed (TVM's FoldConstant
 * ends with RemoveAllUnused too).
 *
 * Limits: nothing over FOLD_MAX_ELEMS result elements or about FOLD_MAX_WORK
 * operations is folded (the constant would bloat the module, the interpreter
 * take too long), and, as in TVM, a call without tensor operands (a creation:
 * a fill, an iota) producing more than FOLD_MAX_CREATE elements is cheaper to
 * run than to store.  A call the interpreter fails on (an out-of-bounds
 * access, an unsupported dtype) stays as it is, for the run to report.
 *
 * requires: struct info on calls; preserves: the values computed. */
#include "ir/transform/relax_pass_util.h"
#include "ir/transform/xform_internal.h"

#include <stdlib.h>
#include <string.h>

#include "ir/flops.h"
#include "ir/interp.h"
#include "ir/relax_op.h"
#include "runtime/ndarray.h"
#include "base/util.h"

#define FOLD_MAX_ELEMS (1 << 20)
#define FOLD_MAX_WORK (1 << 25)
#define FOLD_MAX_CREATE 1024

typedef struct Folder {
  IrHeap *h;
  const IrModule *m;  /* the module (prim_funcs for call_tir) */
  IrPtrMap consts;    /* var -> the R.const it is bound to */
  IrPtrMap tuples;    /* var -> a tuple of R.consts it is bound to */
  bool in_dataflow;   /* walking a dataflow block */
} Folder;

static bool all_const(RxExpr *const *xs, int n) {
  for (int i = 0; i < n; i++)
    if (xs[i]->kind != RX_CONST) return false;
  return true;
}

/* Elements of a tensor struct info of static shape, or -1. */
static int64_t static_numel(const RxSInfo *si) {
  if (!si || si->kind != RX_SI_TENSOR || !si->shape || si->ndim < 0 || dt_is_void(si->dtype) ||
      si->dtype.lanes != 1 || dt_is_bool(si->dtype) || si->dtype.bits % 8)
    return -1;
  int64_t n = 1, d;
  for (int i = 0; i < si->ndim; i++) {
    if (!tir_is_const_int(si->shape[i], &d) || d < 0 || (d && n > FOLD_MAX_ELEMS / d + 1)) return -1;
    n *= d;
  }
  return n;
}

/* Result elements of the call (all its tensors), or -1 when not static. */
static int64_t result_numel(const RxExpr *call) {
  const RxSInfo *si = call->sinfo;
  if (si && si->kind == RX_SI_TUPLE) {
    int64_t total = 0;
    for (int i = 0; i < si->nfields; i++) {
      int64_t n = static_numel(si->fields[i]);
      if (n < 0) return -1;
      total += n;
    }
    return si->nfields ? total : -1;
  }
  return static_numel(si);
}

/* The call_tir operands (a tuple, or one expression), NULL when not constants. */
static bool call_tir_operands(const RxExpr *call, RxExpr *const **ops, int *n) {
  const RxExpr *a = call->call.args[1];
  if (a->kind == RX_TUPLE) *ops = a->tuple.fields, *n = a->tuple.n;
  else *ops = &call->call.args[1], *n = 1;
  return all_const(*ops, *n);
}

/* Whether folding call is worth it and affordable (see the header). */
static bool should_fold(Folder *F, const RxExpr *call) {
  int64_t out = result_numel(call);
  if (out < 0 || out > FOLD_MAX_ELEMS) return false;
  if (call->call.op->id == RX_OP_CALL_TIR) {
    RxExpr *const *ops;
    int n;
    call_tir_operands(call, &ops, &n);
    if (n == 0 && out > FOLD_MAX_CREATE) return false;
    const IrGlobal *g = ir_module_lookup(F->m, call->call.args[0]->gvar.name);
    double work = tir_count_flops(g->tir, NULL, 0);
    return work >= 0 && work <= FOLD_MAX_WORK;
  }
  double work = (double)out;
  for (int i = 0; i < call->call.n; i++) work += (double)call->call.args[i]->cnst.nbytes;
  if (call->call.op->id == RX_OP_MATMUL && call->call.args[0]->cnst.ndim == 2)
    work *= (double)call->call.args[0]->cnst.shape[1];
  return work <= FOLD_MAX_WORK;
}

/* Whether call is a candidate: constant operands of an operator we can run. */
static bool foldable(Folder *F, const RxExpr *call) {
  const RxOpInfo *op = call->call.op;
  if (!op) return false;
  if (op->id == RX_OP_CALL_TIR) {
    if (call->call.n != 2 || call->call.args[0]->kind != RX_GLOBAL_VAR) return false;
    const IrGlobal *g = ir_module_lookup(F->m, call->call.args[0]->gvar.name);
    RxExpr *const *ops;
    int n;
    return g && g->kind == IR_FUNC_TIR && call_tir_operands(call, &ops, &n);
  }
  return op->eval && F->in_dataflow && all_const(call->call.args, call->call.n);
}

/* An R.const holding tensor t of dtype dt (NULL when the sizes disagree). */
static RxExpr *const_of(IrHeap *h, const DLTensor *t, DType dt, Span span) {
  if (tvs_dtype_bytes(t->dtype) != dt_bytes(dt) || t->strides) return NULL;
  RxExpr *c = rx_const(h, dt, t->shape, t->ndim, (const unsigned char *)t->data + t->byte_offset);
  c->span = span;
  return c;
}

/* Runs call in a one-binding graph function next to m's prim_funcs; the
 * constant (or tuple of constants) it gives, or NULL. */
static RxExpr *evaluate(Folder *F, RxExpr *call) {
  IrModule *tmp = ir_module_copy(F->m);
  RxExpr *r = rx_var(F->h, "r", call->sinfo, false);
  RxBinding b = {r, call, NULL, call->span};
  RxBlock blk = {false, &b, 1};
  RxFunc *f = ir_alloc(F->h, sizeof *f);
  f->body = rx_seq(F->h, &blk, 1, r);
  f->is_pure = true;
  f->span = call->span;
  ir_module_add_relax(tmp, "tvs.fold", f);
  DiagCtx quiet;
  diag_init(&quiet, NULL);
  DLTensor **res = NULL;
  int nres = 0;
  RxExpr *out = NULL;
  if (interp_run_relax(tmp, "tvs.fold", NULL, 0, &res, &nres, &quiet) == 0) {
    const RxSInfo *si = call->sinfo;
    bool tuple = si->kind == RX_SI_TUPLE;
    int want = tuple ? si->nfields : 1;
    RxExpr **cs = xcalloc((size_t)want, sizeof *cs);
    bool ok = nres == want;
    for (int i = 0; ok && i < want; i++) {
      cs[i] = const_of(F->h, res[i], tuple ? si->fields[i]->dtype : si->dtype, call->span);
      ok = cs[i] != NULL;
    }
    if (ok) out = tuple ? rx_tuple(F->h, cs, want) : cs[0];
    if (ok && tuple) out->span = call->span;
    free(cs);
  }
  for (int i = 0; i < nres; i++) interp_free_result(res[i]);
  free(res);
  diag_free(&quiet);
  ir_module_free(tmp);
  return out;
}

static bool is_const_tuple(const RxExpr *e) {
  return e->kind == RX_TUPLE && all_const(e->tuple.fields, e->tuple.n);
}

/* A binding's value with known constants read and a foldable call folded. */
static RxExpr *fold_value(Folder *F, RxExpr *e) {
  e = rxu_subst(F->h, e, &F->consts);
  if (e->kind == RX_TUPLE_GET_ITEM) {
    const RxExpr *t = e->get.tuple;
    if (ir_ptrmap_has(&F->tuples, t)) t = ir_ptrmap_get(&F->tuples, t);
    if (is_const_tuple(t) && e->get.index >= 0 && e->get.index < t->tuple.n) return t->tuple.fields[e->get.index];
    return e;
  }
  if (e->kind != RX_CALL || !foldable(F, e) || !should_fold(F, e)) return e;
  RxExpr *c = evaluate(F, e);
  return c ? c : e;
}

static RxExpr *fold_expr(Folder *F, RxExpr *e);

static RxExpr *fold_seq(Folder *F, RxExpr *e) {
  bool changed = false;
  RxuBlocks bs = {0};
  RxuBindings cur = {0};
  for (int bi = 0; bi < e->seq.nblocks; bi++) {
    const RxBlock *b = &e->seq.blocks[bi];
    bool saved = F->in_dataflow;
    F->in_dataflow = b->is_dataflow;
    for (int i = 0; i < b->n; i++) {
      RxBinding nb = b->bindings[i];
      nb.value = fold_expr(F, nb.value);
      changed |= nb.value != b->bindings[i].value;
      if (!nb.cast_to && nb.value->kind == RX_CONST) ir_ptrmap_put(&F->consts, nb.var, nb.value);
      if (!nb.cast_to && is_const_tuple(nb.value)) ir_ptrmap_put(&F->tuples, nb.var, nb.value);
      rxu_bindings_push(&cur, nb);
    }
    F->in_dataflow = saved;
    rxu_blocks_close(&bs, &cur, b->is_dataflow);
  }
  rxu_bindings_free(&cur);
  RxExpr *body = fold_expr(F, e->seq.body);
  if (!changed && body == e->seq.body) {
    rxu_blocks_free(&bs);
    return e;
  }
  return rxu_seq_from(F->h, e, &bs, body);
}

static RxExpr *fold_expr(Folder *F, RxExpr *e) {
  if (!e) return e;
  if (e->kind == RX_SEQ) return fold_seq(F, e);
  if (e->kind != RX_IF) return fold_value(F, e);
  RxExpr *c = rxu_subst(F->h, e->ifs.cond, &F->consts);
  RxExpr *t = fold_expr(F, e->ifs.then_e), *f = fold_expr(F, e->ifs.else_e);
  if (c == e->ifs.cond && t == e->ifs.then_e && f == e->ifs.else_e) return e;
  RxExpr *r = ir_memdup(F->h, e, sizeof *e);
  r->ifs.cond = c, r->ifs.then_e = t, r->ifs.else_e = f;
  return r;
}

static RxFunc *fold_func(void *ctx, IrHeap *h, const IrModule *m, RxFunc *f) {
  (void)ctx;
  Folder F;
  memset(&F, 0, sizeof F);
  F.h = h;
  F.m = m;
  RxExpr *body = f->body;
  for (int round = 0; round < 16; round++) { /* to a fixpoint */
    RxExpr *next = fold_expr(&F, body);
    if (next == body) break;
    body = next;
  }
  if (body != f->body) body = rxu_remove_unused(h, body);
  ir_ptrmap_free(&F.consts);
  ir_ptrmap_free(&F.tuples);
  return rxu_with_body(h, f, body);
}

IrModule *rx_fold_constant(const IrModule *m, DiagCtx *diag, bool *changed) {
  (void)diag;
  return rxu_map_funcs(m, fold_func, NULL, changed);
}
