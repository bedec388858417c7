/* relax_fuse_tir.c - FuseTIR: each Primitive graph function made by FuseOps
 * becomes one prim_func (TVM's relax.transform.FuseTIR).
 *
 *   @R.function(private=True)                  @T.prim_func(private=True)
 *   def fused_matmul_add(x, w, b):             def fused_matmul_add(x, w, b, T_add_intermediate):
 *       R.func_attr({"Primitive": True})   ==>     matmul_intermediate = T.alloc_buffer(...)
 *       lv = R.call_tir(cls.matmul, (x, w))        ... matmul's blocks, on matmul_intermediate ...
 *       gv = R.call_tir(cls.add, (lv, b))          ... add's blocks ...
 *
 * The params are buffers for the function's tensor params (named as them, the
 * handle p_<name>), then one buffer per output (p_output0, ...), then the
 * symbolic sizes passed as tir_vars.  Each call_tir's prim_func contributes
 * the body of its root block (with its own vars and buffers renewed): its
 * input buffers become the buffers of its arguments, its outputs new buffers
 * "<name>_intermediate" with the call's out_sinfo shape, allocated in the root
 * block unless they are the function's result; the callee's symbolic sizes are
 * matched against the shapes they meet, so that every callee's `n` becomes the
 * fused function's one.  Block names that repeat get TVM's numeric suffix
 * (T_add, T_add1).  Calls `cls.fused_...(args)` become
 * `R.call_tir(cls.fused_..., (tensors), out_sinfo=..., tir_vars=R.shape([...]))`,
 * the Primitive functions are removed, and so are the private prim_funcs no
 * graph function calls any more (the DeadCodeElimination that ends TVM's
 * FuseTIR).
 *
 * requires: Primitive functions of call_tir bindings (fuse-ops), callees with
 * a root block.  preserves: the other functions. */
#include "ir/transform/xform_internal.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/relax_op.h"
#include "base/util.h"
#include "base/vec.h"

/* Buffers standing for one Relax value (several for a tuple). */
typedef struct BufList {
  TirBuffer **b;
  int n;
} BufList;

typedef struct FuseCtx {
  IrHeap *h;
  const IrModule *m;
  DiagCtx *diag;
  const char *fname;     /* the Primitive function being fused */
  IrPtrMap rx_vars;      /* graph size var -> the fused function's own var (TirExpr*) */
  IrPtrMap expr_bufs;    /* RxExpr* -> BufList* */
  PtrVec lists;          /* the BufLists, to free */
  PtrVec allocs;         /* TirBuffer*: intermediates */
  PtrVec bodies;         /* TirStmt*: the callees' root bodies */
  PtrVec block_names;    /* char*: block names used so far */
  PtrVec params, pbufs;  /* the fused function's params and their buffers (NULL: scalar) */
  PtrVec scalars;        /* TirVar*: symbolic size params, appended last */
  bool failed;
} FuseCtx;

static void pv_insert(PtrVec *v, int at, void *p) {
  pv_push(v, p);
  memmove(&v->items[at + 1], &v->items[at], (size_t)(v->len - 1 - at) * sizeof *v->items);
  v->items[at] = p;
}

static bool fail(FuseCtx *c, Span sp, const char *why) {
  if (!c->failed) diag_error(c->diag, sp, "FuseTIR cannot make Primitive function '%s' a prim_func: %s", c->fname, why);
  c->failed = true;
  return false;
}

static BufList *buflist(FuseCtx *c, TirBuffer **b, int n) {
  BufList *l = xcalloc(1, sizeof *l);
  l->b = xcalloc((size_t)(n ? n : 1), sizeof *l->b);
  if (n) memcpy(l->b, b, (size_t)n * sizeof *b);
  l->n = n;
  pv_push(&c->lists, l);
  return l;
}

/* A graph shape expr in the fused function's own size vars. */
static TirExpr *own_dim(FuseCtx *c, TirExpr *e) {
  PtrVec fv = {0};
  tir_expr_free_vars(e, &fv);
  for (int i = 0; i < fv.len; i++) {
    TirVar *v = fv.items[i];
    if (ir_ptrmap_has(&c->rx_vars, v)) continue;
    TirVar *nv = tir_var(c->h, v->name, v->dtype);
    nv->is_size_var = true;
    ir_ptrmap_put(&c->rx_vars, v, tir_var_ref(c->h, nv));
  }
  pv_free(&fv);
  return tir_substitute_expr(c->h, e, &c->rx_vars);
}

static TirExpr **own_shape(FuseCtx *c, const RxSInfo *si) {
  TirExpr **shape = xcalloc((size_t)(si->ndim > 0 ? si->ndim : 1), sizeof *shape);
  for (int d = 0; d < si->ndim; d++) shape[d] = own_dim(c, si->shape[d]);
  return shape;
}

static bool known_tensor(const RxSInfo *si) {
  return si && si->kind == RX_SI_TENSOR && si->shape && si->ndim >= 0 && !dt_is_void(si->dtype);
}

/* ------------------------------------------------------------ symbolic matching */

/* Binds the callee's size vars in `param` to the fused function's `arg` (TVM's
 * SymbolicMatcher); a constant must meet the same constant. */
static bool match_dim(FuseCtx *c, IrPtrMap *sym, const TirExpr *param, TirExpr *arg) {
  if (param->kind == TIR_VAR) {
    if (!ir_ptrmap_has(sym, param->var)) ir_ptrmap_put(sym, param->var, arg);
    return true;
  }
  int64_t a, b;
  if (tir_is_const_int(param, &a) && !(tir_is_const_int(arg, &b) && a == b))
    return fail(c, span_none, "a callee's constant dimension does not match its argument");
  return true;
}

static bool match_shape(FuseCtx *c, IrPtrMap *sym, const TirBuffer *param, const TirBuffer *arg) {
  if (param->ndim != arg->ndim) return fail(c, span_none, "a callee's buffer rank does not match its argument");
  for (int d = 0; d < param->ndim; d++)
    if (!match_dim(c, sym, param->shape[d], arg->shape[d])) return false;
  return true;
}

/* ------------------------------------------------------------ one callee */

/* What the mutator of one callee body needs. */
typedef struct CalleeMap {
  FuseCtx *c;
  IrPtrMap sym;   /* callee size var -> fused expr */
  IrPtrMap bufs;  /* callee param buffer -> fused buffer */
} CalleeMap;

static TirExpr *cm_var(TirMutator *m, TirExpr *e) {
  CalleeMap *cm = m->ctx;
  TirExpr *v = ir_ptrmap_get(&cm->sym, e->var);
  return v ? v : tir_mutate_expr_children(m, e);
}

static TirVar *cm_def_var(TirMutator *m, TirVar *var) { /* every definition renewed */
  return ir_memdup(m->heap, var, sizeof *var);
}

static TirBuffer *cm_buffer(TirMutator *m, TirBuffer *b) {
  return ir_ptrmap_get(&((CalleeMap *)m->ctx)->bufs, b);
}

/* TVM's block-name deduplication: trailing digits are a counter to bump. */
static const char *unique_block_name(FuseCtx *c, const char *name) {
  bool taken = false;
  for (int i = 0; i < c->block_names.len && !taken; i++) taken = !strcmp(c->block_names.items[i], name);
  if (!taken) {
    pv_push(&c->block_names, xstrdup(name));
    return name;
  }
  size_t len = strlen(name), base = len;
  while (base > 0 && isdigit((unsigned char)name[base - 1])) base--;
  long long k = base < len ? strtoll(name + base, NULL, 10) + 1 : 1;
  for (;; k++) {
    char *cand = xasprintf("%.*s%lld", (int)base, name, k);
    bool t = false;
    for (int i = 0; i < c->block_names.len && !t; i++) t = !strcmp(c->block_names.items[i], cand);
    if (!t) {
      pv_push(&c->block_names, cand);
      return ir_strdup(c->h, cand);
    }
    free(cand);
  }
}

static TirStmt *cm_block(TirMutator *m, TirStmt *s) {
  TirStmt *r = tir_mutate_stmt_children(m, s); /* inner blocks are named first */
  const char *name = unique_block_name(((CalleeMap *)m->ctx)->c, s->block.name);
  if (name == s->block.name) return r;
  if (r == s) r = ir_memdup(m->heap, s, sizeof *s);
  r->block.name = name;
  return r;
}

/* The buffers of call_tir's argument tuple, flattened. */
static bool arg_buffers(FuseCtx *c, const RxExpr *args, PtrVec *out) {
  if (args->kind == RX_TUPLE) {
    for (int i = 0; i < args->tuple.n; i++)
      if (!arg_buffers(c, args->tuple.fields[i], out)) return false;
    return true;
  }
  BufList *l = ir_ptrmap_get(&c->expr_bufs, args);
  if (!l) return fail(c, args->span, "an argument is not a tensor of the function");
  for (int i = 0; i < l->n; i++) pv_push(out, l->b[i]);
  return true;
}

/* "<name>_intermediate", made unique among the allocations as TVM does. */
static char *intermediate_name(FuseCtx *c, const char *base) {
  char *name = xasprintf("%s_intermediate", base);
  for (int id = 1;; id++) {
    bool t = false;
    for (int i = 0; i < c->allocs.len && !t; i++) t = !strcmp(((TirBuffer *)c->allocs.items[i])->name, name);
    if (!t) return name;
    char *n2 = xasprintf("%s_%d", name, id);
    free(name);
    name = n2;
  }
}

/* The call's outputs: new buffers with the out_sinfo shapes. */
static bool bind_outputs(FuseCtx *c, CalleeMap *cm, const RxExpr *call, const TirFunc *g, int nin,
                         PtrVec *outs) {
  int nout = call->call.nsinfo_args;
  if (nin + nout > g->nparams) return fail(c, call->span, "a callee has fewer params than the call passes");
  for (int k = 0; k < nout; k++) {
    const TirBuffer *pb = g->buffer_map[nin + k];
    const RxSInfo *si = call->call.sinfo_args[k];
    if (!pb || !known_tensor(si)) return fail(c, call->span, "an output is not a tensor of known shape");
    TirExpr **shape = own_shape(c, si);
    char *name = intermediate_name(c, pb->name);
    TirBuffer *nb = tir_buffer(c->h, name, pb->dtype, shape, si->ndim, pb->scope);
    free(name);
    free(shape);
    if (!match_shape(c, &cm->sym, pb, nb)) return false;
    ir_ptrmap_put(&cm->bufs, pb, nb);
    pv_push(&c->allocs, nb);
    pv_push(outs, nb);
  }
  return true;
}

/* Binds the callee's params: inputs to the argument buffers, outputs to new
 * intermediates, trailing scalars to tir_vars. */
static bool bind_callee(FuseCtx *c, CalleeMap *cm, const RxExpr *call, const TirFunc *g, PtrVec *outs) {
  PtrVec ins = {0};
  bool ok = arg_buffers(c, call->call.args[1], &ins);
  int nin = ins.len;
  for (int i = 0; ok && i < nin; i++) {
    const TirBuffer *pb = i < g->nparams ? g->buffer_map[i] : NULL;
    if (!pb) ok = fail(c, call->span, "a callee's param is not a buffer");
    else ok = match_shape(c, &cm->sym, pb, ins.items[i]);
    if (ok) ir_ptrmap_put(&cm->bufs, pb, ins.items[i]);
  }
  pv_free(&ins);
  if (!ok || !bind_outputs(c, cm, call, g, nin, outs)) return false;
  if (call->call.n >= 3 && call->call.args[2]->kind == RX_SHAPE_EXPR) {
    const RxExpr *tv = call->call.args[2];
    int first = g->nparams - tv->shape.n;
    for (int i = 0; i < tv->shape.n && first >= 0; i++)
      if (!ir_ptrmap_has(&cm->sym, g->params[first + i]))
        ir_ptrmap_put(&cm->sym, g->params[first + i], own_dim(c, tv->shape.values[i]));
  }
  return true;
}

/* One call_tir binding: the callee's root body joins the fused body. */
static bool fuse_call(FuseCtx *c, const RxExpr *var, const RxExpr *call) {
  const IrGlobal *gl = ir_module_lookup(c->m, call->call.args[0]->gvar.name);
  if (!gl || gl->kind != IR_FUNC_TIR) return fail(c, call->span, "a callee is not a prim_func");
  const TirFunc *g = gl->tir;
  if (!g->body || g->body->kind != TIR_S_BLOCK_REALIZE)
    return fail(c, call->span, "a callee has no root block (only schedulable functions fuse)");
  CalleeMap cm = {.c = c};
  ir_ptrmap_init(&cm.sym);
  ir_ptrmap_init(&cm.bufs);
  PtrVec outs = {0};
  int at = c->allocs.len; /* the callee's own allocations go before its outputs, as in TVM */
  bool ok = bind_callee(c, &cm, call, g, &outs);
  if (ok) {
    TirMutator m;
    tir_mutator_init(&m, c->h);
    m.expr[TIR_VAR] = cm_var;
    m.stmt[TIR_S_BLOCK] = cm_block;
    m.def_var = cm_def_var;
    m.buffer = cm_buffer;
    m.ctx = &cm;
    const TirBlock *root = tir_realize_block(g->body);
    for (int i = 0; i < root->nallocs; i++) pv_insert(&c->allocs, at + i, tir_mutate_buffer(&m, root->allocs[i]));
    pv_push(&c->bodies, tir_mutate_stmt(&m, root->body));
    tir_mutator_free(&m);
    ir_ptrmap_put(&c->expr_bufs, var, buflist(c, (TirBuffer **)outs.items, outs.len));
  }
  pv_free(&outs);
  ir_ptrmap_free(&cm.sym);
  ir_ptrmap_free(&cm.bufs);
  return ok;
}

/* ------------------------------------------------------------ one function */

/* The buffers of tuple item `index` of a value standing for bufs. */
static BufList *tuple_item_buffers(FuseCtx *c, const RxExpr *get, const BufList *bufs) {
  const RxSInfo *ts = get->get.tuple->sinfo;
  if (!ts || ts->kind != RX_SI_TUPLE || get->get.index >= ts->nfields || bufs->n != ts->nfields) {
    fail(c, get->span, "a tuple item of an unsupported tuple");
    return NULL;
  }
  return buflist(c, &bufs->b[get->get.index], 1);
}

static bool fuse_binding(FuseCtx *c, const RxBinding *b) {
  const RxExpr *v = b->value;
  if (b->cast_to) return fail(c, b->span, "match_cast in a Primitive function");
  if (v->kind == RX_CALL && v->call.op && v->call.op->id == RX_OP_CALL_TIR && v->call.n >= 2 &&
      v->call.args[0]->kind == RX_GLOBAL_VAR)
    return fuse_call(c, b->var, v);
  BufList *l = NULL;
  if (v->kind == RX_TUPLE_GET_ITEM) {
    BufList *t = ir_ptrmap_get(&c->expr_bufs, v->get.tuple);
    l = t ? tuple_item_buffers(c, v, t) : NULL;
  } else if (v->kind == RX_VAR || v->kind == RX_DATAFLOW_VAR) {
    l = ir_ptrmap_get(&c->expr_bufs, v);
  } else if (v->kind == RX_TUPLE) {
    PtrVec all = {0};
    if (arg_buffers(c, v, &all)) l = buflist(c, (TirBuffer **)all.items, all.len);
    pv_free(&all);
  }
  if (!l) return fail(c, b->span, "only call_tir, tuples and tuple items can be fused");
  ir_ptrmap_put(&c->expr_bufs, b->var, l);
  return true;
}

/* The params of the function's graph params: tensors as buffers, shapes as scalars. */
static bool graph_params(FuseCtx *c, const RxFunc *f) {
  for (int i = 0; i < f->nparams; i++) {
    const RxExpr *p = f->params[i];
    const RxSInfo *si = p->sinfo;
    if (si && si->kind == RX_SI_SHAPE && si->shape) {
      for (int d = 0; d < si->ndim; d++) {
        TirExpr *e = own_dim(c, si->shape[d]);
        if (e->kind != TIR_VAR) return fail(c, p->span, "a shape param that is not a list of size vars");
        pv_push(&c->scalars, e->var);
      }
      continue;
    }
    if (!known_tensor(si)) return fail(c, p->span, "a param is not a tensor of known shape");
    TirExpr **shape = own_shape(c, si);
    TirBuffer *b = tir_buffer(c->h, p->var.name, si->dtype, shape, si->ndim, "global");
    free(shape);
    char *pn = xasprintf("p_%s", p->var.name);
    pv_push(&c->params, tir_var(c->h, pn, dt_handle));
    free(pn);
    pv_push(&c->pbufs, b);
    ir_ptrmap_put(&c->expr_bufs, p, buflist(c, &b, 1));
  }
  return true;
}

static bool pv_has(const PtrVec *v, const void *p) {
  for (int i = 0; i < v->len; i++)
    if (v->items[i] == p) return true;
  return false;
}

/* The prim_func: params, outputs, scalars; intermediates in the root block. */
static TirFunc *build_func(FuseCtx *c, const BufList *out) {
  for (int i = 0; i < out->n; i++) {
    char *pn = xasprintf("p_output%d", i);
    pv_push(&c->params, tir_var(c->h, pn, dt_handle));
    free(pn);
    pv_push(&c->pbufs, out->b[i]);
  }
  for (int i = 0; i < c->scalars.len; i++) {
    pv_push(&c->params, c->scalars.items[i]);
    pv_push(&c->pbufs, NULL);
  }
  PtrVec allocs = {0};
  for (int i = 0; i < c->allocs.len; i++)
    if (!pv_has(&c->pbufs, c->allocs.items[i])) pv_push(&allocs, c->allocs.items[i]);
  TirBlock root;
  memset(&root, 0, sizeof root);
  root.name = "root";
  root.allocs = (TirBuffer **)allocs.items;
  root.nallocs = allocs.len;
  root.body = tir_seq(c->h, (TirStmt **)c->bodies.items, c->bodies.len);
  TirStmt *body = tir_block_realize(c->h, NULL, 0, NULL, tir_block(c->h, &root));
  IrValue *attrs = irv_dict_set(c->h, NULL, "tir.noalias", irv_bool(c->h, true));
  TirFunc *f = tir_func(c->h, (TirVar **)c->params.items, (TirBuffer **)c->pbufs.items, c->params.len, body, attrs);
  f->buffer_param_sugar = true;
  pv_free(&allocs);
  return f;
}

static void ctx_free(FuseCtx *c) {
  for (int i = 0; i < c->lists.len; i++) {
    BufList *l = c->lists.items[i];
    free(l->b);
    free(l);
  }
  for (int i = 0; i < c->block_names.len; i++) free(c->block_names.items[i]);
  pv_free(&c->lists), pv_free(&c->allocs), pv_free(&c->bodies), pv_free(&c->block_names);
  pv_free(&c->params), pv_free(&c->pbufs), pv_free(&c->scalars);
  ir_ptrmap_free(&c->rx_vars);
  ir_ptrmap_free(&c->expr_bufs);
}

/* One Primitive graph function as a prim_func, or NULL after a diagnostic. */
static TirFunc *fuse_function(IrHeap *h, const IrModule *m, const char *name, const RxFunc *f, DiagCtx *diag) {
  FuseCtx c;
  memset(&c, 0, sizeof c);
  c.h = h, c.m = m, c.diag = diag, c.fname = name;
  ir_ptrmap_init(&c.rx_vars);
  ir_ptrmap_init(&c.expr_bufs);
  TirFunc *r = NULL;
  const RxExpr *body = f->body;
  bool ok = body && body->kind == RX_SEQ ? graph_params(&c, f) : fail(&c, f->span, "no bindings");
  for (int bi = 0; ok && bi < body->seq.nblocks; bi++)
    for (int i = 0; ok && i < body->seq.blocks[bi].n; i++) ok = fuse_binding(&c, &body->seq.blocks[bi].bindings[i]);
  if (ok) {
    PtrVec outs = {0};
    ok = arg_buffers(&c, body->seq.body, &outs);
    BufList out = {(TirBuffer **)outs.items, outs.len};
    if (ok) r = build_func(&c, &out);
    pv_free(&outs);
  }
  ctx_free(&c);
  return r;
}

/* ------------------------------------------------------------ the module */

typedef struct Rewriter {
  IrHeap *h;
  const IrModule *m;
  PtrVec fused;   /* names of the Primitive functions fused */
} Rewriter;

static bool is_fused(const Rewriter *rw, const char *name) {
  for (int i = 0; i < rw->fused.len; i++)
    if (!strcmp(rw->fused.items[i], name)) return true;
  return false;
}

/* cls.fused_f(x, w, tir_vars) -> R.call_tir(cls.fused_f, (x, w), out_sinfo=..., tir_vars=R.shape([n])) */
static RxExpr *call_tir_of(Rewriter *rw, RxExpr *call) {
  int n = call->call.n;
  RxExpr **tensors = xcalloc((size_t)(n ? n : 1), sizeof *tensors);
  PtrVec vals = {0};
  int nt = 0;
  for (int i = 0; i < n; i++) {
    RxExpr *a = call->call.args[i];
    if (a->sinfo && a->sinfo->kind == RX_SI_SHAPE && a->kind == RX_SHAPE_EXPR) {
      for (int k = 0; k < a->shape.n; k++) pv_push(&vals, a->shape.values[k]);
    } else {
      tensors[nt++] = a;
    }
  }
  RxExpr *args[3] = {rx_global_var(rw->h, call->call.callee->gvar.name), rx_tuple(rw->h, tensors, nt), NULL};
  if (vals.len) args[2] = rx_shape_expr(rw->h, (TirExpr **)vals.items, vals.len);
  RxSInfo *si = call->sinfo;
  bool tup = si->kind == RX_SI_TUPLE;
  RxExpr *r = rx_call(rw->h, rx_op_info(RX_OP_CALL_TIR), args, vals.len ? 3 : 2, NULL, tup ? si->fields : &si,
                      tup ? si->nfields : 1, si);
  r->span = call->span;
  free(tensors);
  pv_free(&vals);
  return r;
}

static RxExpr *rewrite(Rewriter *rw, RxExpr *e);

static RxExpr *rewrite_seq(Rewriter *rw, RxExpr *e) {
  RxBlock *bs = xcalloc((size_t)(e->seq.nblocks ? e->seq.nblocks : 1), sizeof *bs);
  bool ch = false;
  for (int b = 0; b < e->seq.nblocks; b++) {
    bs[b] = e->seq.blocks[b];
    bs[b].bindings = xcalloc((size_t)(bs[b].n ? bs[b].n : 1), sizeof *bs[b].bindings);
    for (int i = 0; i < bs[b].n; i++) {
      bs[b].bindings[i] = e->seq.blocks[b].bindings[i];
      bs[b].bindings[i].value = rewrite(rw, bs[b].bindings[i].value);
      ch |= bs[b].bindings[i].value != e->seq.blocks[b].bindings[i].value;
    }
  }
  RxExpr *r = e;
  if (ch) {
    r = rx_seq(rw->h, bs, e->seq.nblocks, e->seq.body);
    r->span = e->span;
  }
  for (int b = 0; b < e->seq.nblocks; b++) free(bs[b].bindings);
  free(bs);
  return r;
}

/* Binding values are where the calls are (FuseOps puts them there). */
static RxExpr *rewrite(Rewriter *rw, RxExpr *e) {
  if (!e) return e;
  if (e->kind == RX_CALL && !e->call.op && e->call.callee && is_fused(rw, e->call.callee->gvar.name))
    return call_tir_of(rw, e);
  if (e->kind == RX_SEQ) return rewrite_seq(rw, e);
  if (e->kind == RX_IF) {
    RxExpr *t = rewrite(rw, e->ifs.then_e), *f = rewrite(rw, e->ifs.else_e);
    if (t == e->ifs.then_e && f == e->ifs.else_e) return e;
    RxExpr *r = ir_memdup(rw->h, e, sizeof *e);
    r->ifs.then_e = t, r->ifs.else_e = f;
    return r;
  }
  return e;
}


/* TVM's DeadCodeElimination after FuseTIR: a private prim_func no graph
 * function refers to is dropped; public ones and graph functions stay. */
static IrModule *drop_unused(const IrModule *m) {
  bool *keep = xcalloc((size_t)(m->nfuncs ? m->nfuncs : 1), sizeof *keep);
  for (int i = 0; i < m->nfuncs; i++) {
    const IrGlobal *g = &m->funcs[i];
    if (g->kind == IR_FUNC_RELAX) {
      keep[i] = true;
      ir_module_mark_refs(m, g->rx->body, keep);
    } else if (irv_dict_get(g->tir->attrs, "global_symbol")) {
      keep[i] = true;
    }
  }
  for (bool more = true; more;) { /* and the subroutines kept prim_funcs call */
    more = false;
    for (int i = 0; i < m->nfuncs; i++) {
      if (!keep[i] || m->funcs[i].kind != IR_FUNC_TIR) continue;
      int before = 0, after = 0;
      for (int k = 0; k < m->nfuncs; k++) before += keep[k];
      ir_module_mark_tir_calls(m, m->funcs[i].tir, keep);
      for (int k = 0; k < m->nfuncs; k++) after += keep[k];
      more |= after > before;
    }
  }
  IrModule *out = ir_module_derive(m);
  for (int i = 0; i < m->nfuncs; i++) {
    const IrGlobal *g = &m->funcs[i];
    if (!keep[i]) continue;
    if (g->kind == IR_FUNC_TIR) ir_module_add_tir(out, g->name, g->tir);
    else ir_module_add_relax(out, g->name, g->rx);
  }
  free(keep);
  return out;
}

static bool is_primitive(const IrGlobal *g) {
  const IrValue *p = g->kind == IR_FUNC_RELAX ? irv_dict_get(g->rx->attrs, "Primitive") : NULL;
  return p && (p->kind == IRV_BOOL || p->kind == IRV_INT) && p->i;
}

IrModule *rx_fuse_tir(const IrModule *m, DiagCtx *diag, bool *changed) {
  int nprim = 0;
  for (int i = 0; i < m->nfuncs; i++) nprim += is_primitive(&m->funcs[i]);
  if (changed) *changed = nprim > 0;
  if (!nprim) return ir_module_copy(m);
  IrModule *mid = ir_module_derive(m);
  Rewriter rw = {.h = mid->heap, .m = m};
  for (int i = 0; i < m->nfuncs; i++)
    if (is_primitive(&m->funcs[i])) pv_push(&rw.fused, (void *)m->funcs[i].name);
  bool ok = true;
  for (int i = 0; i < m->nfuncs; i++) {
    const IrGlobal *g = &m->funcs[i];
    if (g->kind == IR_FUNC_TIR) {
      ir_module_add_tir(mid, g->name, g->tir);
    } else if (is_primitive(g)) { /* the fused prim_func takes the function's place */
      TirFunc *f = fuse_function(mid->heap, m, g->name, g->rx, diag);
      if (f) ir_module_add_tir(mid, g->name, f);
      ok &= f != NULL;
    } else {
      RxExpr *body = rewrite(&rw, g->rx->body);
      RxFunc *nf = g->rx;
      if (body != nf->body) {
        nf = ir_memdup(mid->heap, g->rx, sizeof *nf);
        nf->body = body;
      }
      ir_module_add_relax(mid, g->name, nf);
    }
  }
  pv_free(&rw.fused);
  IrModule *out = ok ? drop_unused(mid) : NULL;
  ir_module_free(mid);
  return out;
}
