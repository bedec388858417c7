/* relax_fuse_ops.c - FuseOps: the groups of relax_graph_partition.c become
 * Primitive graph functions (TVM's relax.transform.FuseOps, OperatorFusor).
 *
 *   lv0 = R.call_tir(cls.matmul, (x, w0), ...)      lv = cls.fused_matmul_add_relu(x, w0, b0)
 *   lv1 = R.call_tir(cls.add, (lv0, b0), ...)  ==>  ...
 *   lv2 = R.call_tir(cls.relu, (lv1,), ...)         @R.function(private=True)
 *                                                   def fused_matmul_add_relu(x, w0, b0):
 *                                                       R.func_attr({"Primitive": True}) ...
 *
 * For each dataflow block, every group of two or more bindings becomes a
 * function: its params are the values the group uses from outside (named as
 * those vars; a constant becomes param_N), in order of first use; its body is
 * the group's bindings in a dataflow block whose outputs, "gv", "gv1", ..., are
 * the group's vars used after it (a tuple when several).  It is named "fused_"
 * + the prim_funcs' names joined by "_" (fused_x, fused_x1, ... when taken), a
 * function structurally equal to one already made is reused, and it is placed
 * before the function that calls it.  Symbolic sizes the body needs that no
 * param's shape defines are passed in a trailing `tir_vars: R.Shape([...])`.
 * The call replaces the group's last binding ("lv", "lv1", ... or "gv" for a
 * block output, as TVM's BlockBuilder names them); with several outputs, tuple
 * items are taken from it.  Bindings are emitted in an order that puts every
 * group after the groups it uses.  Functions that are Primitive already are
 * left alone.
 *
 * requires: op_pattern on the prim_funcs (annotate-tir-op-pattern).
 * preserves: prim_funcs; graph functions outside dataflow blocks. */
#include "ir/transform/xform_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/structural_equal.h"
#include "ir/transform/relax_fusion.h"
#include "base/util.h"
#include "base/vec.h"

/* One group's function in the making (TVM's FunctionCreator). */
typedef struct FuncCreator {
  PtrVec bindings;    /* const RxBinding*, in order */
  PtrVec params;      /* RxExpr* new params */
  PtrVec args;        /* RxExpr* what the caller passes for each param */
  PtrVec defined;     /* RxExpr* vars bound by the group */
  PtrVec outputs;     /* RxExpr* the group's vars used after it */
  StrBuf name;        /* "fused_..." */
  int nconst;         /* constants lifted to params so far */
  RxFunc *func;       /* the made function; NULL when nothing is used after it */
} FuncCreator;

/* A name supply like TVM's: base, base1, base2, ... */
typedef struct NameSupply {
  char **names;
  int *counters;
  int n, cap, capc;
} NameSupply;

typedef struct Fuser {
  const IrModule *in;
  IrModule *out;
  IrHeap *h;
  NameSupply names;
  PtrVec made_names, made_funcs;  /* fused functions added so far */
  PtrVec pending_names, pending_funcs; /* for the function being rewritten */
  RxPartition *part;
  FuncCreator **fc;   /* group id -> creator (this block), NULL for singletons */
  PtrVec *deps;       /* group id -> ids + 1 of the groups it uses (this block) */
  PtrVec *members;    /* group id -> its bindings in this block */
  IrPtrMap remap;     /* old var -> new var in the function being rewritten */
  bool changed;
} Fuser;

static int ns_find(const NameSupply *s, const char *n) {
  for (int i = 0; i < s->n; i++)
    if (!strcmp(s->names[i], n)) return i;
  return -1;
}

static void ns_add(NameSupply *s, char *n) {
  VEC_RESERVE(s->names, s->cap, s->n + 1);
  VEC_RESERVE(s->counters, s->capc, s->n + 1);
  s->names[s->n] = n;
  s->counters[s->n++] = 0;
}

/* A fresh name from base (TVM's NameSupply, no underscore); taken() may veto. */
static const char *ns_fresh(Fuser *z, const char *base, bool (*taken)(Fuser *, const char *)) {
  NameSupply *s = &z->names;
  int k = ns_find(s, base);
  char *n = xstrdup(base);
  if (k < 0 && !(taken && taken(z, n))) {
    ns_add(s, n);
    return ir_strdup(z->h, n);
  }
  if (k < 0) {
    ns_add(s, xstrdup(base));
    k = s->n - 1;
  }
  while (ns_find(s, n) >= 0 || (taken && taken(z, n))) {
    free(n);
    n = xasprintf("%s%d", base, ++s->counters[k]);
  }
  ns_add(s, n);
  return ir_strdup(z->h, n);
}

static void ns_free(NameSupply *s) {
  for (int i = 0; i < s->n; i++) free(s->names[i]);
  free(s->names);
  free(s->counters);
}

static bool func_name_taken(Fuser *z, const char *n) {
  return ir_module_lookup(z->in, n) || ir_module_lookup(z->out, n);
}

/* ------------------------------------------------------------ remapping */

static RxExpr *remap(Fuser *z, RxExpr *e, const IrPtrMap *m);

static RxExpr **remap_list(Fuser *z, RxExpr **xs, int n, const IrPtrMap *m, bool *changed) {
  RxExpr **ys = xcalloc((size_t)(n ? n : 1), sizeof *ys);
  for (int i = 0; i < n; i++) {
    ys[i] = remap(z, xs[i], m);
    *changed |= ys[i] != xs[i];
  }
  return ys;
}

static RxExpr *remap_seq(Fuser *z, RxExpr *e, const IrPtrMap *m) {
  RxBlock *bs = xcalloc((size_t)(e->seq.nblocks ? e->seq.nblocks : 1), sizeof *bs);
  bool ch = false;
  for (int b = 0; b < e->seq.nblocks; b++) {
    bs[b] = e->seq.blocks[b];
    bs[b].bindings = xcalloc((size_t)(bs[b].n ? bs[b].n : 1), sizeof *bs[b].bindings);
    for (int i = 0; i < bs[b].n; i++) {
      bs[b].bindings[i] = e->seq.blocks[b].bindings[i];
      bs[b].bindings[i].value = remap(z, bs[b].bindings[i].value, m);
      ch |= bs[b].bindings[i].value != e->seq.blocks[b].bindings[i].value;
    }
  }
  RxExpr *body = remap(z, e->seq.body, m), *r = e;
  if (ch || body != e->seq.body) {
    r = rx_seq(z->h, bs, e->seq.nblocks, body);
    r->span = e->span;
  }
  for (int b = 0; b < e->seq.nblocks; b++) free(bs[b].bindings);
  free(bs);
  return r;
}

/* e with the vars (and constants) of m replaced. */
static RxExpr *remap(Fuser *z, RxExpr *e, const IrPtrMap *m) {
  if (!e) return e;
  if (ir_ptrmap_has(m, e)) return ir_ptrmap_get(m, e);
  bool ch = false;
  RxExpr *r = e, **xs;
  switch (e->kind) {
    case RX_CALL:
      xs = remap_list(z, e->call.args, e->call.n, m, &ch);
      if (ch) {
        r = ir_memdup(z->h, e, sizeof *e);
        r->call.args = ir_memdup(z->h, xs, (size_t)e->call.n * sizeof *xs);
      }
      free(xs);
      return r;
    case RX_TUPLE:
      xs = remap_list(z, e->tuple.fields, e->tuple.n, m, &ch);
      if (ch) {
        r = rx_tuple(z->h, xs, e->tuple.n);
        r->span = e->span;
      }
      free(xs);
      return r;
    case RX_TUPLE_GET_ITEM: {
      RxExpr *t = remap(z, e->get.tuple, m);
      if (t == e->get.tuple) return e;
      r = rx_tuple_get(z->h, t, e->get.index);
      r->span = e->span;
      return r;
    }
    case RX_IF: {
      RxExpr *c = remap(z, e->ifs.cond, m), *t = remap(z, e->ifs.then_e, m), *f = remap(z, e->ifs.else_e, m);
      if (c == e->ifs.cond && t == e->ifs.then_e && f == e->ifs.else_e) return e;
      r = ir_memdup(z->h, e, sizeof *e);
      r->ifs.cond = c, r->ifs.then_e = t, r->ifs.else_e = f;
      return r;
    }
    case RX_SEQ: return remap_seq(z, e, m);
    default: return e;
  }
}

/* ------------------------------------------------------------ collecting */

static bool pv_has(const PtrVec *v, const void *p) {
  for (int i = 0; i < v->len; i++)
    if (v->items[i] == p) return true;
  return false;
}

static int pv_index(const PtrVec *v, const void *p) {
  for (int i = 0; i < v->len; i++)
    if (v->items[i] == p) return i;
  return -1;
}

/* A value the group uses: a param unless the group binds it (TVM's CheckDefAndUpdateParam). */
static void use_value(Fuser *z, FuncCreator *fc, RxExpr *e) {
  if (pv_has(&fc->args, e)) return;
  bool is_var = e->kind == RX_VAR || e->kind == RX_DATAFLOW_VAR;
  if (is_var && pv_has(&fc->defined, e)) return;
  /* an item of a tuple made outside the group (t[0] written inline) is one
   * tensor param; an item of a tuple the group makes stays as it is */
  bool outside_item = e->kind == RX_TUPLE_GET_ITEM && !pv_has(&fc->defined, e->get.tuple);
  if (!is_var && e->kind != RX_CONST && !outside_item) return; /* shapes and prim values stay inline */
  char buf[64];
  const char *name = is_var ? e->var.name : buf;
  if (outside_item && (e->get.tuple->kind == RX_VAR || e->get.tuple->kind == RX_DATAFLOW_VAR))
    snprintf(buf, sizeof buf, "%s_%d", e->get.tuple->var.name, e->get.index);
  else if (!is_var)
    snprintf(buf, sizeof buf, "param_%d", fc->nconst++);
  pv_push(&fc->params, rx_var(z->h, name, e->sinfo, false));
  pv_push(&fc->args, e);
}

static void use_leaves(Fuser *z, FuncCreator *fc, RxExpr *e) {
  if (e->kind == RX_TUPLE) {
    for (int i = 0; i < e->tuple.n; i++) use_leaves(z, fc, e->tuple.fields[i]);
    return;
  }
  use_value(z, fc, e);
}

static int add_output(FuncCreator *fc, RxExpr *var) {
  int k = pv_index(&fc->outputs, var);
  if (k >= 0) return k;
  pv_push(&fc->outputs, var);
  return fc->outputs.len - 1;
}

/* TVM's AppendBinding: the group's params, name and outputs grow. */
static void append_binding(Fuser *z, FuncCreator *fc, const RxBinding *b) {
  RxExpr *v = b->value;
  if (!b->cast_to && v->kind == RX_CALL && v->call.op && v->call.n >= 2 && v->call.args[0]->kind == RX_GLOBAL_VAR) {
    sb_printf(&fc->name, "_%s", v->call.args[0]->gvar.name);
    use_leaves(z, fc, v->call.args[1]);
  } else if (!b->cast_to && v->kind == RX_TUPLE_GET_ITEM) {
    use_value(z, fc, v->get.tuple);
  }
  pv_push(&fc->defined, b->var);
  if (b->var->kind != RX_DATAFLOW_VAR) add_output(fc, b->var);
  pv_push(&fc->bindings, (void *)b);
}

static void collect_bindings(Fuser *z, const RxBlock *blk) {
  for (int i = 0; i < blk->n; i++) {
    const RxBinding *b = &blk->bindings[i];
    int g = rx_partition_group(z->part, b->var);
    if (g < 0 || rx_partition_group_size(z->part, g) <= 1) continue;
    if (!z->fc[g]) {
      z->fc[g] = xcalloc(1, sizeof **z->fc);
      sb_init(&z->fc[g]->name);
      sb_puts(&z->fc[g]->name, "fused");
    }
    append_binding(z, z->fc[g], b);
  }
}

static void mark_use(Fuser *z, int cur, const RxExpr *e) {
  if (!e) return;
  switch (e->kind) {
    case RX_VAR: case RX_DATAFLOW_VAR: {
      int pg = rx_partition_group(z->part, e);
      if (pg < 0 || pg == cur) return;
      if (cur >= 0 && !pv_has(&z->deps[cur], (void *)(intptr_t)(pg + 1)))
        pv_push(&z->deps[cur], (void *)(intptr_t)(pg + 1));
      if (z->fc[pg]) add_output(z->fc[pg], (RxExpr *)e);
      return;
    }
    case RX_CALL:
      for (int i = 0; i < e->call.n; i++) mark_use(z, cur, e->call.args[i]);
      return;
    case RX_TUPLE:
      for (int i = 0; i < e->tuple.n; i++) mark_use(z, cur, e->tuple.fields[i]);
      return;
    case RX_TUPLE_GET_ITEM: mark_use(z, cur, e->get.tuple); return;
    case RX_IF:
      mark_use(z, cur, e->ifs.cond);
      mark_use(z, cur, e->ifs.then_e);
      mark_use(z, cur, e->ifs.else_e);
      return;
    case RX_SEQ:
      for (int b = 0; b < e->seq.nblocks; b++)
        for (int i = 0; i < e->seq.blocks[b].n; i++) mark_use(z, cur, e->seq.blocks[b].bindings[i].value);
      mark_use(z, cur, e->seq.body);
      return;
    default: return;
  }
}

/* TVM's CollectFuncBoundary: a group's var used by another group is its output. */
static void collect_boundary(Fuser *z, const RxBlock *blk) {
  for (int i = 0; i < blk->n; i++) {
    const RxBinding *b = &blk->bindings[i];
    mark_use(z, rx_partition_group(z->part, b->var), b->value);
  }
}

/* ------------------------------------------------------------ the function */

/* Symbolic vars in s's shapes into used; bare dims also into defined. */
static void sinfo_vars(const RxSInfo *s, PtrVec *used, PtrVec *defined) {
  if (!s) return;
  if (s->kind == RX_SI_TUPLE) {
    for (int i = 0; i < s->nfields; i++) sinfo_vars(s->fields[i], used, defined);
    return;
  }
  if ((s->kind != RX_SI_TENSOR && s->kind != RX_SI_SHAPE) || !s->shape) return;
  for (int d = 0; d < s->ndim; d++) {
    if (defined && s->shape[d]->kind == TIR_VAR && !pv_has(defined, s->shape[d]->var))
      pv_push(defined, s->shape[d]->var);
    PtrVec fv = {0};
    tir_expr_free_vars(s->shape[d], &fv);
    for (int k = 0; k < fv.len; k++)
      if (!pv_has(used, fv.items[k])) pv_push(used, fv.items[k]);
    pv_free(&fv);
  }
}

static void expr_vars(const RxExpr *e, PtrVec *used) {
  if (!e) return;
  sinfo_vars(e->sinfo, used, NULL);
  if (e->kind == RX_CALL) {
    for (int i = 0; i < e->call.nsinfo_args; i++) sinfo_vars(e->call.sinfo_args[i], used, NULL);
    for (int i = 0; i < e->call.n; i++) expr_vars(e->call.args[i], used);
  } else if (e->kind == RX_TUPLE) {
    for (int i = 0; i < e->tuple.n; i++) expr_vars(e->tuple.fields[i], used);
  }
}

/* Symbolic vars the bindings use that no param's shape defines: a trailing
 * `tir_vars: R.Shape([...])` param, the caller passing R.shape([...]). */
static void add_tir_vars_param(Fuser *z, FuncCreator *fc, RxBinding *bs, int n, PtrVec *defined) {
  PtrVec used = {0}, pused = {0}, free_vars = {0};
  for (int i = 0; i < fc->params.len; i++) sinfo_vars(((RxExpr *)fc->params.items[i])->sinfo, &pused, defined);
  for (int i = 0; i < n; i++) expr_vars(bs[i].value, &used);
  for (int i = 0; i < used.len; i++)
    if (!pv_has(defined, used.items[i])) pv_push(&free_vars, used.items[i]);
  if (free_vars.len) {
    TirExpr **vals = xcalloc((size_t)free_vars.len, sizeof *vals);
    for (int i = 0; i < free_vars.len; i++) {
      vals[i] = tir_var_ref(z->h, free_vars.items[i]);
      pv_push(defined, free_vars.items[i]);
    }
    pv_push(&fc->params, rx_var(z->h, "tir_vars", rx_sinfo_shape(z->h, vals, free_vars.len), false));
    pv_push(&fc->args, rx_shape_expr(z->h, vals, free_vars.len));
    free(vals);
  }
  pv_free(&used);
  pv_free(&pused);
  pv_free(&free_vars);
}

static RxFunc *make_func(Fuser *z, FuncCreator *fc, RxBinding *bs, int n, RxExpr *body) {
  PtrVec defined = {0};
  add_tir_vars_param(z, fc, bs, n, &defined);
  RxBlock blk = {true, bs, n};
  RxFunc *f = ir_alloc(z->h, sizeof *f);
  memset(f, 0, sizeof *f);
  f->params = ir_memdup(z->h, fc->params.items, (size_t)fc->params.len * sizeof(RxExpr *));
  f->nparams = fc->params.len;
  f->body = rx_seq(z->h, &blk, 1, body);
  f->ret_sinfo = body->sinfo;
  f->attrs = irv_dict_set(z->h, NULL, "Primitive", irv_bool(z->h, true));
  f->is_pure = true;
  f->sym_vars = ir_memdup(z->h, defined.items, (size_t)defined.len * sizeof(TirVar *));
  f->nsym_vars = defined.len;
  f->span = span_none;
  pv_free(&defined);
  return f;
}

/* TVM's CreateFunction: the group's bindings over its params. */
static void create_function(Fuser *z, FuncCreator *fc) {
  if (!fc->outputs.len) return; /* dead: nothing uses the group */
  IrPtrMap m;
  ir_ptrmap_init(&m);
  for (int i = 0; i < fc->args.len; i++) ir_ptrmap_put(&m, fc->args.items[i], fc->params.items[i]);
  int n = fc->bindings.len, nout = 0;
  RxBinding *bs = xcalloc((size_t)n, sizeof *bs);
  RxExpr **outs = xcalloc((size_t)fc->outputs.len, sizeof *outs);
  for (int i = 0; i < n; i++) {
    const RxBinding *b = fc->bindings.items[i];
    int oi = pv_index(&fc->outputs, b->var);
    char gv[24] = "gv";
    if (oi >= 0 && nout) snprintf(gv, sizeof gv, "gv%d", nout);
    RxExpr *nv = rx_var(z->h, oi >= 0 ? gv : b->var->var.name, b->var->sinfo, oi < 0);
    if (oi >= 0) outs[oi] = nv, nout++;
    bs[i] = *b;
    bs[i].value = remap(z, b->value, &m);
    bs[i].var = nv;
    ir_ptrmap_put(&m, b->var, nv);
  }
  RxExpr *body = fc->outputs.len == 1 ? outs[0] : rx_tuple(z->h, outs, fc->outputs.len);
  fc->func = make_func(z, fc, bs, n, body);
  free(bs);
  free(outs);
  ir_ptrmap_free(&m);
}

/* TVM's BlockBuilder::AddFunction: an equal function already made is reused. */
static const char *add_function(Fuser *z, FuncCreator *fc) {
  for (int i = 0; i < z->made_funcs.len; i++)
    if (seq_relax_func(z->made_funcs.items[i], fc->func, NULL, NULL)) return z->made_names.items[i];
  const char *name = ns_fresh(z, fc->name.data, func_name_taken);
  pv_push(&z->made_names, (void *)name);
  pv_push(&z->made_funcs, fc->func);
  pv_push(&z->pending_names, (void *)name);
  pv_push(&z->pending_funcs, fc->func);
  return name;
}

/* ------------------------------------------------------------ the block */

typedef struct NewBlock {
  RxBinding *b;
  int n, cap;
} NewBlock;

static void emit(NewBlock *nb, RxExpr *var, RxExpr *value, const RxBinding *like) {
  RxBinding b = {var, value, NULL, like ? like->span : span_none};
  if (like) b.cast_to = like->cast_to;
  VEC_PUSH(nb->b, nb->n, nb->cap, b);
}

static RxExpr *fresh_var(Fuser *z, RxSInfo *si, bool dataflow) {
  return rx_var(z->h, ns_fresh(z, dataflow ? "lv" : "gv", NULL), si, dataflow);
}

/* The group's call at its last binding; its outputs are remapped to it. */
static void emit_group_call(Fuser *z, NewBlock *nb, FuncCreator *fc, const RxBinding *last) {
  const char *name = add_function(z, fc);
  RxExpr **args = xcalloc((size_t)(fc->args.len ? fc->args.len : 1), sizeof *args);
  for (int i = 0; i < fc->args.len; i++) args[i] = remap(z, fc->args.items[i], &z->remap);
  RxExpr *call = rx_call_func(z->h, rx_global_var(z->h, name), args, fc->args.len, fc->func->ret_sinfo);
  call->span = last->span;
  free(args);
  if (fc->outputs.len == 1) {
    RxExpr *out = fc->outputs.items[0];
    RxExpr *nv = fresh_var(z, call->sinfo, out->kind == RX_DATAFLOW_VAR);
    emit(nb, nv, call, NULL);
    ir_ptrmap_put(&z->remap, out, nv);
    return;
  }
  RxExpr *tv = fresh_var(z, call->sinfo, true);
  emit(nb, tv, call, NULL);
  for (int i = 0; i < fc->outputs.len; i++) {
    RxExpr *out = fc->outputs.items[i];
    RxExpr *nv = fresh_var(z, out->sinfo, out->kind == RX_DATAFLOW_VAR);
    emit(nb, nv, rx_tuple_get(z->h, tv, i), NULL);
    ir_ptrmap_put(&z->remap, out, nv);
  }
}

static void topo_visit(Fuser *z, int g, char *seen, PtrVec *sorted) {
  if (seen[g]) return;
  seen[g] = 1;
  for (int i = 0; i < z->deps[g].len; i++) topo_visit(z, (int)(intptr_t)z->deps[g].items[i] - 1, seen, sorted);
  for (int i = 0; i < z->members[g].len; i++) pv_push(sorted, z->members[g].items[i]);
}

/* TVM's TopoSortByGroupDep: binding order, each group after those it uses. */
static void sort_bindings(Fuser *z, const RxBlock *blk, PtrVec *sorted) {
  int nn = rx_partition_num_nodes(z->part);
  char *seen = xcalloc((size_t)(nn ? nn : 1), 1);
  PtrVec order = {0};
  for (int i = 0; i < blk->n; i++) {
    int g = rx_partition_group(z->part, blk->bindings[i].var);
    pv_push(&order, (void *)(intptr_t)g);
    if (g >= 0) pv_push(&z->members[g], &blk->bindings[i]);
  }
  for (int i = 0; i < blk->n; i++) {
    int g = (int)(intptr_t)order.items[i];
    if (g < 0) pv_push(sorted, &blk->bindings[i]);
    else topo_visit(z, g, seen, sorted);
  }
  pv_free(&order);
  free(seen);
}

static void block_reset(Fuser *z) {
  int nn = rx_partition_num_nodes(z->part);
  for (int g = 0; g < nn; g++) {
    z->deps[g].len = 0;
    z->members[g].len = 0;
    FuncCreator *fc = z->fc[g];
    if (!fc) continue;
    pv_free(&fc->bindings), pv_free(&fc->params), pv_free(&fc->args);
    pv_free(&fc->defined), pv_free(&fc->outputs);
    sb_free(&fc->name);
    free(fc);
    z->fc[g] = NULL;
  }
}

/* One dataflow block with its groups replaced by calls. */
static RxBlock fuse_block(Fuser *z, const RxBlock *blk) {
  collect_bindings(z, blk);
  collect_boundary(z, blk);
  int nn = rx_partition_num_nodes(z->part);
  for (int g = 0; g < nn; g++)
    if (z->fc[g]) create_function(z, z->fc[g]);
  PtrVec sorted = {0};
  sort_bindings(z, blk, &sorted);
  NewBlock nb = {0};
  for (int i = 0; i < sorted.len; i++) {
    const RxBinding *b = sorted.items[i];
    int g = rx_partition_group(z->part, b->var);
    FuncCreator *fc = g >= 0 ? z->fc[g] : NULL;
    if (!fc) {
      emit(&nb, b->var, remap(z, b->value, &z->remap), b);
      continue;
    }
    z->changed = true;
    if (fc->func && fc->bindings.items[fc->bindings.len - 1] == b) emit_group_call(z, &nb, fc, b);
  }
  pv_free(&sorted);
  block_reset(z);
  RxBlock r = {true, nb.b, nb.n};
  return r;
}

static RxFunc *fuse_func(Fuser *z, const RxFunc *f) {
  const RxExpr *body = f->body;
  if (!body || body->kind != RX_SEQ) return (RxFunc *)f;
  z->part = rx_partition_func(z->in, f);
  int nn = rx_partition_num_nodes(z->part);
  z->fc = xcalloc((size_t)(nn ? nn : 1), sizeof *z->fc);
  z->deps = xcalloc((size_t)(nn ? nn : 1), sizeof *z->deps);
  z->members = xcalloc((size_t)(nn ? nn : 1), sizeof *z->members);
  ir_ptrmap_init(&z->remap);
  bool was = z->changed;
  z->changed = false;
  int nb = body->seq.nblocks;
  RxBlock *blocks = xcalloc((size_t)(nb ? nb : 1), sizeof *blocks);
  for (int i = 0; i < nb; i++) {
    const RxBlock *ob = &body->seq.blocks[i];
    if (ob->is_dataflow) {
      blocks[i] = fuse_block(z, ob);
      continue;
    }
    /* outside dataflow: only uses of remapped vars change */
    blocks[i] = *ob;
    blocks[i].bindings = xcalloc((size_t)(ob->n ? ob->n : 1), sizeof *blocks[i].bindings);
    for (int k = 0; k < ob->n; k++) {
      blocks[i].bindings[k] = ob->bindings[k];
      blocks[i].bindings[k].value = remap(z, ob->bindings[k].value, &z->remap);
    }
  }
  RxFunc *r = (RxFunc *)f;
  if (z->changed) {
    r = ir_memdup(z->h, f, sizeof *f);
    r->body = rx_seq(z->h, blocks, nb, remap(z, body->seq.body, &z->remap));
    r->body->span = body->span;
  }
  z->changed |= was;
  for (int i = 0; i < nb; i++) free(blocks[i].bindings);
  free(blocks);
  for (int g = 0; g < nn; g++) pv_free(&z->deps[g]), pv_free(&z->members[g]);
  free(z->deps);
  free(z->members);
  free(z->fc);
  ir_ptrmap_free(&z->remap);
  rx_partition_free(z->part);
  return r;
}

IrModule *rx_fuse_ops(const IrModule *m, DiagCtx *diag, bool *changed) {
  (void)diag;
  Fuser z;
  memset(&z, 0, sizeof z);
  z.in = m;
  z.out = ir_module_derive(m);
  z.h = z.out->heap;
  for (int i = 0; i < m->nfuncs; i++) {
    const IrGlobal *g = &m->funcs[i];
    if (g->kind == IR_FUNC_TIR) {
      ir_module_add_tir(z.out, g->name, g->tir);
      continue;
    }
    const IrValue *prim = irv_dict_get(g->rx->attrs, "Primitive");
    RxFunc *f = prim && prim->i ? g->rx : fuse_func(&z, g->rx);
    for (int k = 0; k < z.pending_names.len; k++) /* the fused functions right before their user */
      ir_module_add_relax(z.out, z.pending_names.items[k], z.pending_funcs.items[k]);
    z.pending_names.len = z.pending_funcs.len = 0;
    ir_module_add_relax(z.out, g->name, f);
  }
  if (changed) *changed = z.changed;
  ns_free(&z.names);
  pv_free(&z.made_names), pv_free(&z.made_funcs);
  pv_free(&z.pending_names), pv_free(&z.pending_funcs);
  return z.out;
}
