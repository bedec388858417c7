/* relax_legalize_ops.c - LegalizeOps: high-level Relax operators become
 * generated prim_funcs called through R.call_tir (TVM's relax.transform.
 * LegalizeOps, in spirit).
 *
 *   lv1 = R.add(lv0, b)            lv1 = R.call_tir(cls.add, (lv0, b), out_sinfo=...)
 *                           ==>    @T.prim_func(private=True)
 *                                  def add(A, B, T_add): ... one block "T_add" ...
 *
 * Covered (the rows of ir/relax_ops.def with a LEGALIZE column): add, subtract, multiply,
 * divide, floor_divide, maximum, minimum with numpy broadcasting; nn.relu; the
 * families' builders in legalize_<family>.c (matmul, reductions, shapes: legalize_tensor.c).  As in TVM, a 0-d R.const operand
 * of an element-wise op becomes a literal inside the prim_func instead of an
 * argument.  Generated functions follow TVM's names (function `add`, output
 * buffer `T_add`, loops ax0.., block vars v_ax0..; matmul: i0, i1, k; relu:
 * `compute`), get `1`, `2` suffixes when the name is taken (matmul1, as TVM's
 * BlockBuilder names them), and a function
 * structurally equal to one already generated is reused (TVM's BlockBuilder
 * dedup).  Symbolic dims of the operands become the prim_func's own size vars.
 * Calls it cannot legalize (unknown shape or dtype, other operators) stay as
 * they are; whoever needs them gone reports them.
 *
 * requires: elaborated struct info on calls; preserves: everything else. */
#include "ir/transform/legalize_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/access_region.h"
#include "ir/structural_equal.h"
#include "ir/relax_op.h"
#include "base/util.h"

static bool name_taken(Lg *g, const char *name) {
  if (ir_module_lookup(g->in, name) || ir_module_lookup(g->out, name)) return true;
  for (int i = 0; i < g->gen_names.len; i++)
    if (!strcmp(g->gen_names.items[i], name)) return true;
  return false;
}

/* Registers f under base (or base_1, base_2...), reusing an equal function. */
static const char *add_func(Lg *g, const char *base, TirFunc *f) {
  for (int i = 0; i < g->gen_funcs.len; i++)
    if (seq_tir_func(g->gen_funcs.items[i], f, NULL, NULL)) return g->gen_names.items[i];
  char *name = ir_strdup(g->h, base);
  for (int k = 1; name_taken(g, name); k++) {
    char *t = xasprintf("%s%d", base, k); /* matmul1: TVM's BlockBuilder name supply */
    name = ir_strdup(g->h, t);
    free(t);
  }
  pv_push(&g->gen_names, name);
  pv_push(&g->gen_funcs, f);
  pv_push(&g->pending_names, name);
  pv_push(&g->pending_funcs, f);
  return name;
}

/* ------------------------------------------------------------ shapes */

TirExpr *lg_map_dim(Lg *g, VarMap *vm, TirExpr *e) {
  PtrVec fv = {0};
  tir_expr_free_vars(e, &fv);
  for (int i = 0; i < fv.len; i++) {
    TirVar *v = fv.items[i];
    if (ir_ptrmap_has(&vm->map, v)) continue;
    TirVar *nv = tir_var(g->h, v->name, v->dtype);
    nv->is_size_var = true;
    ir_ptrmap_put(&vm->map, v, tir_var_ref(g->h, nv));
  }
  pv_free(&fv);
  return tir_substitute_expr(g->h, e, &vm->map);
}

bool lg_static_shape(const TirBuffer *b) {
  for (int d = 0; d < b->ndim; d++)
    if (!tir_is_const_int(b->shape[d], NULL)) return false;
  return true;
}

/* A parameter buffer named name with sinfo si's shape (vars mapped). */
TirBuffer *lg_param_buffer(Lg *g, VarMap *vm, const char *name, const RxSInfo *si) {
  TirExpr **shape = xcalloc((size_t)(si->ndim ? si->ndim : 1), sizeof *shape);
  for (int d = 0; d < si->ndim; d++) shape[d] = lg_map_dim(g, vm, si->shape[d]);
  TirBuffer *b = tir_buffer(g->h, name, si->dtype, shape, si->ndim, "global");
  free(shape);
  return b;
}

bool lg_known_tensor(const RxSInfo *si) {
  return si && si->kind == RX_SI_TENSOR && si->shape && si->ndim >= 0 && !dt_is_void(si->dtype) &&
         si->dtype.lanes == 1;
}

/* A 0-d constant (scalar literal in the prim_func, as TVM's legalization). */
bool lg_scalar_const(const RxExpr *e) {
  return e->kind == RX_CONST && e->cnst.ndim == 0 && e->cnst.data &&
         e->cnst.nbytes == (int64_t)dt_bytes(e->cnst.dtype);
}

TirExpr *lg_const_literal(IrHeap *h, const RxExpr *e, DType to) {
  DType t = e->cnst.dtype;
  const void *p = e->cnst.data;
  TirExpr *lit;
  if (dt_is_float(t) && t.bits == 64) lit = tir_float(h, t, *(const double *)p);
  else if (dt_is_float(t) && t.bits == 32) lit = tir_float(h, t, *(const float *)p);
  else if (dt_is_bool(t)) lit = tir_bool(h, *(const uint8_t *)p != 0);
  else if (dt_is_integer(t)) {
    int64_t v = 0;
    switch (t.bits) {
      case 8: v = dt_is_int(t) ? *(const int8_t *)p : *(const uint8_t *)p; break;
      case 16: v = dt_is_int(t) ? *(const int16_t *)p : *(const uint16_t *)p; break;
      case 32: v = dt_is_int(t) ? (int64_t)*(const int32_t *)p : (int64_t)*(const uint32_t *)p; break;
      default: v = *(const int64_t *)p; break;
    }
    lit = tir_int(h, t, v);
  } else {
    return NULL; /* float16/bfloat16 scalars: kept as tensor arguments */
  }
  return dt_eq(t, to) ? lit : tir_cast(h, to, lit);
}

/* ------------------------------------------------------------ builders */

TirStmt *lg_build_block(Lg *g, const char *block_name, Nest *nest, TirStmt *init,
                            TirStmt *body_of_iters) {
  IrHeap *h = g->h;
  TirIterVar *iv = xcalloc((size_t)(nest->n ? nest->n : 1), sizeof *iv);
  TirVar **loops = xcalloc((size_t)(nest->n ? nest->n : 1), sizeof *loops);
  TirExpr **vals = xcalloc((size_t)(nest->n ? nest->n : 1), sizeof *vals);
  for (int i = 0; i < nest->n; i++) {
    loops[i] = tir_var(h, nest->names[i], nest->extents[i]->dtype);
    iv[i].var = nest->iters[i];
    iv[i].dom.min = tir_int(h, nest->extents[i]->dtype, 0);
    iv[i].dom.extent = nest->extents[i];
    iv[i].type = nest->types[i];
    vals[i] = tir_var_ref(h, loops[i]);
  }
  TirBlock blk;
  memset(&blk, 0, sizeof blk);
  blk.name = block_name;
  blk.iters = iv;
  blk.niters = nest->n;
  blk.init = init;
  blk.body = body_of_iters;
  tir_infer_access_regions(h, &blk, &blk.reads, &blk.nreads, &blk.writes, &blk.nwrites);
  TirStmt *s = tir_block_realize(h, vals, nest->n, tir_bool(h, true), tir_block(h, &blk));
  for (int i = nest->n - 1; i >= 0; i--)
    s = tir_for(h, loops[i], tir_int(h, nest->extents[i]->dtype, 0), nest->extents[i], TIR_FOR_SERIAL,
                NULL, NULL, s);
  free(iv);
  free(loops);
  free(vals);
  return s;
}

TirFunc *lg_wrap_func(Lg *g, TirBuffer **bufs, int nbufs, TirStmt *nest) {
  IrHeap *h = g->h;
  TirBlock root;
  memset(&root, 0, sizeof root);
  root.name = "root";
  root.body = nest;
  TirStmt *body = tir_block_realize(h, NULL, 0, NULL, tir_block(h, &root));
  TirVar **params = xcalloc((size_t)nbufs, sizeof *params);
  bool sugar = true;
  for (int i = 0; i < nbufs; i++) sugar &= lg_static_shape(bufs[i]);
  for (int i = 0; i < nbufs; i++) {
    char *pn = xasprintf(sugar ? "%s" : "var_%s", bufs[i]->name);
    params[i] = tir_var(h, pn, dt_handle);
    free(pn);
  }
  IrValue *attrs = irv_dict_set(h, NULL, "tir.noalias", irv_bool(h, true));
  TirFunc *f = tir_func(h, params, bufs, nbufs, body, attrs);
  f->buffer_param_sugar = sugar;
  free(params);
  return f;
}

TirExpr *lg_load(IrHeap *h, TirBuffer *b, TirExpr **idx) {
  return tir_load(h, b, idx, b->ndim);
}

void lg_iter_nest(Lg *g, Nest *n, TirExpr **ext, int nd, const char *prefix) {
  n->n = nd;
  n->extents = ext;
  n->types = xcalloc((size_t)(nd ? nd : 1), sizeof *n->types);
  n->names = xcalloc((size_t)(nd ? nd : 1), sizeof *n->names);
  n->iters = xcalloc((size_t)(nd ? nd : 1), sizeof *n->iters);
  for (int i = 0; i < nd; i++) {
    char *ln = xasprintf("%s%d", prefix, i), *vn = xasprintf("v_%s%d", prefix, i);
    n->names[i] = ir_strdup(g->h, ln);
    n->iters[i] = tir_var(g->h, vn, ext[i]->dtype);
    free(ln);
    free(vn);
  }
}

void lg_nest_free(Nest *n) {
  free(n->types);
  free(n->names);
  free(n->iters);
}

/* The index of operand buffer b inside an output nest of rank nd (numpy
 * broadcasting: leading dims dropped, a dim equal to the output's read at the
 * output's index, other extent-1 dims read at 0).  A dim that
 * is neither 1 nor the output's own extent may still be 1 at run time (a
 * symbolic n): it reads at `0 if n == 1 else v`. */
TirExpr **lg_bcast_index(IrHeap *h, const TirBuffer *b, TirExpr **oshape, TirVar **iters, int nd) {
  TirExpr **idx = xcalloc((size_t)(b->ndim ? b->ndim : 1), sizeof *idx);
  for (int d = 0; d < b->ndim; d++) {
    int od = d + (nd - b->ndim);
    TirExpr *dim = b->shape[d], *zero = tir_int(h, dim->dtype, 0);
    TirExpr *v = tir_var_ref(h, iters[od]);
    if (seq_tir_expr(dim, oshape[od])) idx[d] = v; /* as TVM's topi: a dim equal to the output's */
    else if (tir_is_one(dim)) idx[d] = zero;
    else if (tir_is_const_int(dim, NULL)) idx[d] = v;
    else idx[d] = tir_select(h, tir_binary(h, TIR_EQ, dim, tir_int(h, dim->dtype, 1)), zero, v);
  }
  return idx;
}

/* Element-wise binary op; returns the call_tir arguments in *args. */
TirFunc *rx_legalize_binary(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  IrHeap *h = g->h;
  const RxSInfo *out = call->sinfo;
  char *tmp = xasprintf("T_%s", call->call.op->script_name);
  const char *oname = ir_strdup(h, tmp); /* the output buffer and block: T_add */
  free(tmp);
  VarMap vm;
  ir_ptrmap_init(&vm.map);
  const RxExpr *a = call->call.args[0], *b = call->call.args[1];
  TirBuffer *bufs[3];
  int nb = 0;
  TirExpr *lit[2] = {NULL, NULL};
  const char *names[2] = {"A", "B"};
  const RxExpr *ops[2] = {a, b};
  for (int i = 0; i < 2; i++) {
    if (lg_scalar_const(ops[i]) && !(i == 1 && lit[0])) lit[i] = lg_const_literal(h, ops[i], out->dtype);
    if (lit[i]) continue;
    bufs[nb] = lg_param_buffer(g, &vm, names[nb], ops[i]->sinfo);
    args[nb++] = (RxExpr *)ops[i];
  }
  *nargs = nb;
  TirExpr **ext = xcalloc((size_t)(out->ndim ? out->ndim : 1), sizeof *ext);
  for (int d = 0; d < out->ndim; d++) ext[d] = lg_map_dim(g, &vm, out->shape[d]);
  TirBuffer *ob = tir_buffer(h, oname, out->dtype, ext, out->ndim, "global");
  bufs[nb] = ob;
  Nest nest;
  lg_iter_nest(g, &nest, ob->shape, ob->ndim, "ax");
  TirExpr *val[2];
  for (int i = 0, k = 0; i < 2; i++) {
    if (lit[i]) {
      val[i] = lit[i];
      continue;
    }
    TirExpr **idx = lg_bcast_index(h, bufs[k], ob->shape, nest.iters, ob->ndim);
    val[i] = lg_load(h, bufs[k], idx);
    free(idx);
    if (!dt_eq(val[i]->dtype, out->dtype)) val[i] = tir_cast(h, out->dtype, val[i]);
    k++;
  }
  TirExpr **oidx = xcalloc((size_t)(ob->ndim ? ob->ndim : 1), sizeof *oidx);
  for (int d = 0; d < ob->ndim; d++) oidx[d] = tir_var_ref(h, nest.iters[d]);
  TirStmt *st = tir_store(h, ob, tir_binary(h, (TirExprKind)call->call.op->tir_binop, val[0], val[1]), oidx, ob->ndim);
  TirFunc *f = lg_wrap_func(g, bufs, nb + 1, lg_build_block(g, oname, &nest, NULL, st));
  free(oidx);
  free(ext);
  lg_nest_free(&nest);
  ir_ptrmap_free(&vm.map);
  return f;
}

TirFunc *rx_legalize_relu(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  IrHeap *h = g->h;
  const RxSInfo *out = call->sinfo;
  VarMap vm;
  ir_ptrmap_init(&vm.map);
  const RxExpr *a = call->call.args[0];
  TirBuffer *bufs[2];
  bufs[0] = lg_param_buffer(g, &vm, "A", a->sinfo);
  args[0] = (RxExpr *)a;
  *nargs = 1;
  TirBuffer *ob = tir_buffer(h, "compute", out->dtype, bufs[0]->shape, bufs[0]->ndim, "global");
  bufs[1] = ob;
  Nest nest;
  lg_iter_nest(g, &nest, ob->shape, ob->ndim, "i");
  TirExpr **idx = xcalloc((size_t)(ob->ndim ? ob->ndim : 1), sizeof *idx);
  for (int d = 0; d < ob->ndim; d++) idx[d] = tir_var_ref(h, nest.iters[d]);
  TirExpr *zero = dt_is_float(out->dtype) ? tir_float(h, out->dtype, 0.0) : tir_int(h, out->dtype, 0);
  TirStmt *st = tir_store(h, ob, tir_binary(h, TIR_MAX, lg_load(h, bufs[0], idx), zero), idx, ob->ndim);
  TirFunc *f = lg_wrap_func(g, bufs, 2, lg_build_block(g, "compute", &nest, NULL, st));
  free(idx);
  lg_nest_free(&nest);
  ir_ptrmap_free(&vm.map);
  return f;
}

/* ------------------------------------------------------------ the graph */

static RxExpr *lg_expr(Lg *g, RxExpr *e);

/* A known tensor, or a tuple of them (split's result, concat's operand). */
static bool known_value(const RxSInfo *si) {
  if (si && si->kind == RX_SI_TUPLE) {
    for (int i = 0; i < si->nfields; i++)
      if (!lg_known_tensor(si->fields[i])) return false;
    return true;
  }
  return lg_known_tensor(si);
}

/* A high-level call as call_tir, or e itself when it cannot be legalized. */
static RxExpr *lg_call(Lg *g, RxExpr *e) {
  RxExpr **args = xcalloc((size_t)(e->call.n ? e->call.n : 1), sizeof *args);
  bool changed = false;
  for (int i = 0; i < e->call.n; i++) {
    args[i] = lg_expr(g, e->call.args[i]);
    changed |= args[i] != e->call.args[i];
  }
  if (changed)
    e = rx_call(g->h, e->call.op, args, e->call.n, e->call.attrs, e->call.sinfo_args, e->call.nsinfo_args, e->sinfo);
  free(args);
  const RxOpInfo *op = e->call.op;
  if (!op || !op->legalize || !known_value(e->sinfo)) return e;
  for (int i = 0; i < e->call.n; i++)
    if (e->call.args[i] && e->call.args[i]->kind != RX_SHAPE_EXPR && e->call.args[i]->kind != RX_PRIM_VALUE &&
        !known_value(e->call.args[i]->sinfo))
      return e;
  RxExpr *cargs[LG_MAX_ARGS];
  int nargs = 0;
  g->name_hint = NULL;
  TirFunc *f = op->legalize(g, e, cargs, &nargs);
  if (!f) return e;
  /* the prim_func is named after the op ("relax.nn.relu" -> relu) unless the builder says */
  const char *name = add_func(g, g->name_hint ? g->name_hint : strrchr(op->name, '.') + 1, f);
  RxExpr *ca[2] = {rx_global_var(g->h, name), rx_tuple(g->h, cargs, nargs)};
  RxSInfo *osi = e->sinfo, **outs = &osi;
  int nouts = 1;
  if (osi->kind == RX_SI_TUPLE && osi->nfields > 1) /* several outputs: out_sinfo=[...] as TVM writes it */
    outs = osi->fields, nouts = osi->nfields;
  RxExpr *ct = rx_call(g->h, rx_op_info(RX_OP_CALL_TIR), ca, 2, NULL, outs, nouts, e->sinfo);
  ct->span = e->span;
  return ct;
}

static RxExpr *lg_seq(Lg *g, RxExpr *e) {
  RxBlock *blocks = xcalloc((size_t)(e->seq.nblocks ? e->seq.nblocks : 1), sizeof *blocks);
  bool changed = false;
  for (int bi = 0; bi < e->seq.nblocks; bi++) {
    const RxBlock *ob = &e->seq.blocks[bi];
    blocks[bi].is_dataflow = ob->is_dataflow;
    blocks[bi].n = ob->n;
    blocks[bi].bindings = xcalloc((size_t)(ob->n ? ob->n : 1), sizeof *blocks[bi].bindings);
    for (int i = 0; i < ob->n; i++) {
      blocks[bi].bindings[i] = ob->bindings[i];
      blocks[bi].bindings[i].value = lg_expr(g, ob->bindings[i].value);
      changed |= blocks[bi].bindings[i].value != ob->bindings[i].value;
    }
  }
  RxExpr *body = lg_expr(g, e->seq.body);
  RxExpr *r = e;
  if (changed || body != e->seq.body) {
    r = rx_seq(g->h, blocks, e->seq.nblocks, body);
    r->sinfo = e->sinfo;
    r->span = e->span;
  }
  for (int bi = 0; bi < e->seq.nblocks; bi++) free(blocks[bi].bindings);
  free(blocks);
  return r;
}

static RxExpr *lg_expr(Lg *g, RxExpr *e) {
  if (!e) return e;
  switch (e->kind) {
    case RX_CALL: return lg_call(g, e);
    case RX_SEQ: return lg_seq(g, e);
    case RX_TUPLE: {
      RxExpr **fs = xcalloc((size_t)(e->tuple.n ? e->tuple.n : 1), sizeof *fs);
      bool changed = false;
      for (int i = 0; i < e->tuple.n; i++) {
        fs[i] = lg_expr(g, e->tuple.fields[i]);
        changed |= fs[i] != e->tuple.fields[i];
      }
      RxExpr *r = changed ? rx_tuple(g->h, fs, e->tuple.n) : e;
      if (changed) r->span = e->span;
      free(fs);
      return r;
    }
    case RX_TUPLE_GET_ITEM: {
      RxExpr *t = lg_expr(g, e->get.tuple);
      if (t == e->get.tuple) return e;
      RxExpr *r = rx_tuple_get(g->h, t, e->get.index);
      r->span = e->span;
      return r;
    }
    case RX_IF: {
      RxExpr *c = lg_expr(g, e->ifs.cond), *t = lg_expr(g, e->ifs.then_e), *f = lg_expr(g, e->ifs.else_e);
      if (c == e->ifs.cond && t == e->ifs.then_e && f == e->ifs.else_e) return e;
      RxExpr *r = ir_memdup(g->h, e, sizeof *e);
      r->ifs.cond = c, r->ifs.then_e = t, r->ifs.else_e = f;
      return r;
    }
    default: return e;
  }
}

static void flush_pending(Lg *g) {
  for (int i = 0; i < g->pending_names.len; i++)
    ir_module_add_tir(g->out, g->pending_names.items[i], g->pending_funcs.items[i]);
  g->pending_names.len = 0;
  g->pending_funcs.len = 0;
}

IrModule *rx_legalize_ops(const IrModule *m, DiagCtx *diag, bool *changed) {
  (void)diag;
  Lg g;
  memset(&g, 0, sizeof g);
  g.in = m;
  g.out = ir_module_derive(m);
  g.out->name = m->name;
  g.out->implicit = m->implicit;
  g.out->attrs = m->attrs;
  g.h = g.out->heap;
  bool ch = false;
  for (int i = 0; i < m->nfuncs; i++) {
    const IrGlobal *gl = &m->funcs[i];
    if (gl->kind == IR_FUNC_TIR) {
      ir_module_add_tir(g.out, gl->name, gl->tir);
      continue;
    }
    RxFunc *f = gl->rx;
    RxExpr *body = lg_expr(&g, f->body);
    if (body != f->body) {
      RxFunc *nf = ir_memdup(g.h, f, sizeof *f);
      nf->body = body;
      f = nf;
      ch = true;
    }
    flush_pending(&g); /* generated prim_funcs sit right before their user */
    ir_module_add_relax(g.out, gl->name, f);
  }
  pv_free(&g.gen_names);
  pv_free(&g.gen_funcs);
  pv_free(&g.pending_names);
  pv_free(&g.pending_funcs);
  if (changed) *changed = ch;
  return g.out;
}
