/* legalize_tensor.c - prim_funcs for the tensor family (TOPI's computations,
 * TVM's legalized names).
 *
 *   matmul     one block "matmul": loops i0.. over the output, reduction k;
 *              batch dims broadcast; operands cast to out_dtype
 *   linear     the same with the weight read transposed; T.init() holds the bias
 *   sum ...    block "A_red" (loops ax.. then k<axis>; T.init() the identity);
 *              mean adds "T_divide", variance/std TOPI's chain of blocks
 *   argmax     "A_red_temp" (index and value reduced together) then "A_red"
 *   reshape, squeeze, expand_dims, flatten: T_<op> reading the input at the
 *              output's row-major position; permute_dims "T_transpose",
 *              concat "T_concat" (if_then_else per piece), split one block
 *              per output (T_split_sections / T_split), strided_slice,
 *              take, broadcast_to, tile, repeat.
 * Index expressions are simplified with the loops' ranges. */
#include "ir/transform/legalize_internal.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "ir/arith.h"
#include "base/util.h"

#define MAXD 32

/* ------------------------------------------------------------ helpers */

static TirExpr *i64(Lg *g, int64_t v) { return tir_int(g->h, dt_int64, v); }
static TirExpr *ref(Lg *g, TirVar *v) { return tir_var_ref(g->h, v); }
static TirExpr *bin(Lg *g, TirExprKind k, TirExpr *a, TirExpr *b) { return tir_binary(g->h, k, a, b); }

static TirExpr *cast_to(Lg *g, DType t, TirExpr *e) { return dt_eq(e->dtype, t) ? e : tir_cast(g->h, t, e); }

static TirExpr *zero_of(Lg *g, DType t) { return dt_is_float(t) ? tir_float(g->h, t, 0.0) : tir_int(g->h, t, 0); }

/* The lowest / highest value of t (max's and min's identity). */
static TirExpr *extreme_of(Lg *g, DType t, bool lowest) {
  if (dt_is_float(t)) {
    double m = t.bits == 64 ? DBL_MAX : t.bits == 16 ? 65504.0 : FLT_MAX;
    return tir_float(g->h, t, lowest ? -m : m);
  }
  if (dt_is_bool(t)) return tir_bool(g->h, !lowest);
  if (dt_is_uint(t)) return tir_int(g->h, t, lowest ? 0 : (int64_t)(t.bits >= 64 ? INT64_MAX : (1LL << t.bits) - 1));
  int64_t hi = t.bits >= 64 ? INT64_MAX : (1LL << (t.bits - 1)) - 1;
  return tir_int(g->h, t, lowest ? -hi - 1 : hi);
}

/* Simplifies index expressions knowing each nest iter's range. */
static void simplify_all(Lg *g, Nest *n, TirExpr **e, int k) {
  ArithCtx *a = arith_new(g->h);
  for (int i = 0; i < n->n; i++) arith_bind_range(a, n->iters[i], i64(g, 0), n->extents[i]);
  for (int i = 0; i < k; i++) e[i] = arith_simplify(a, e[i]);
  arith_free(a);
}

static TirBuffer *out_buffer(Lg *g, VarMap *vm, const char *name, const RxSInfo *si) {
  return lg_param_buffer(g, vm, name, si);
}

/* The prim_func around body with buffers allocated in the root block. */
static TirFunc *wrap_allocs(Lg *g, TirBuffer **bufs, int nbufs, TirBuffer **allocs, int nallocs, TirStmt *body) {
  TirFunc *f = lg_wrap_func(g, bufs, nbufs, body);
  if (!nallocs) return f;
  TirBlock root;
  memset(&root, 0, sizeof root);
  root.name = "root";
  root.body = body;
  root.allocs = ir_memdup(g->h, allocs, (size_t)nallocs * sizeof *allocs);
  root.nallocs = nallocs;
  f->body = tir_block_realize(g->h, NULL, 0, NULL, tir_block(g->h, &root));
  return f;
}

/* A nest of spatial iters v_ax<i> over ext[0..ns) and reduce iters v_k<axis>. */
static void red_nest(Lg *g, Nest *n, TirExpr **ext, int ns, TirExpr **rext, const int *raxis, int nr) {
  n->n = ns + nr;
  n->extents = xcalloc((size_t)(n->n + 1), sizeof *n->extents);
  n->types = xcalloc((size_t)(n->n + 1), sizeof *n->types);
  n->names = xcalloc((size_t)(n->n + 1), sizeof *n->names);
  n->iters = xcalloc((size_t)(n->n + 1), sizeof *n->iters);
  for (int i = 0; i < n->n; i++) {
    bool r = i >= ns;
    char *ln = xasprintf(r ? "k%d" : "ax%d", r ? raxis[i - ns] : i), *vn = xasprintf("v_%s", ln);
    n->extents[i] = r ? rext[i - ns] : ext[i];
    n->types[i] = r ? TIR_ITER_REDUCE : TIR_ITER_SPATIAL;
    n->names[i] = ir_strdup(g->h, ln);
    n->iters[i] = tir_var(g->h, vn, n->extents[i]->dtype);
    free(ln);
    free(vn);
  }
}

static void nest_free(Nest *n) {
  free(n->extents);
  lg_nest_free(n);
}

static TirExpr **iter_refs(Lg *g, Nest *n, int from, int k) {
  TirExpr **r = xcalloc((size_t)(k + 1), sizeof *r);
  for (int i = 0; i < k; i++) r[i] = ref(g, n->iters[from + i]);
  return r;
}

/* One spatial block over buffer ob writing value(iters). */
static TirStmt *ewise_block(Lg *g, const char *name, TirBuffer *ob, TirExpr *(*value)(Lg *, void *, TirExpr **),
                            void *ctx) {
  Nest nest;
  lg_iter_nest(g, &nest, ob->shape, ob->ndim, "ax");
  TirExpr **oi = iter_refs(g, &nest, 0, ob->ndim);
  TirExpr *v = value(g, ctx, oi);
  TirStmt *s = lg_build_block(g, name, &nest, NULL, tir_store(g->h, ob, v, oi, ob->ndim));
  free(oi);
  lg_nest_free(&nest);
  return s;
}

/* ------------------------------------------------------------ matmul, linear */

typedef struct MatmulSpec {
  TirBuffer *a, *b, *bias, *out;
  bool tb; /* b read transposed (linear's weight) */
} MatmulSpec;

/* Operand buffer x's index for output iters oi (nb batch dims) and reduction k. */
static TirExpr **mm_index(Lg *g, const TirBuffer *x, TirExpr **oi, int nb, int nd, TirExpr *k, bool is_b, bool tb) {
  TirExpr **idx = xcalloc((size_t)(x->ndim + 1), sizeof *idx);
  int xb = x->ndim - 2;
  for (int d = 0; d < xb; d++) idx[d] = tir_is_one(x->shape[d]) ? i64(g, 0) : oi[nb - xb + d];
  if (x->ndim == 1) idx[0] = k;
  else if (!is_b) idx[xb] = oi[nb], idx[xb + 1] = k;
  else if (tb) idx[xb] = oi[nd - 1], idx[xb + 1] = k;
  else idx[xb] = k, idx[xb + 1] = oi[nd - 1];
  return idx;
}

static TirFunc *build_matmul(Lg *g, const char *name, MatmulSpec *s) {
  IrHeap *h = g->h;
  TirBuffer *ob = s->out;
  int nd = ob->ndim, nb = nd - (s->a->ndim >= 2) - (s->b->ndim >= 2);
  TirExpr **ext = xcalloc((size_t)(nd + 2), sizeof *ext);
  for (int d = 0; d < nd; d++) ext[d] = ob->shape[d];
  ext[nd] = s->a->shape[s->a->ndim - 1];
  Nest nest;
  lg_iter_nest(g, &nest, ext, nd + 1, "i");
  nest.types[nd] = TIR_ITER_REDUCE;
  nest.names[nd] = "k";
  nest.iters[nd] = tir_var(h, "v_k", ext[nd]->dtype);
  TirExpr **oi = iter_refs(g, &nest, 0, nd), *k = ref(g, nest.iters[nd]);
  TirExpr **ia = mm_index(g, s->a, oi, nb, nd, k, false, false), **ib = mm_index(g, s->b, oi, nb, nd, k, true, s->tb);
  TirExpr *xa = cast_to(g, ob->dtype, lg_load(h, s->a, ia)), *xb = cast_to(g, ob->dtype, lg_load(h, s->b, ib));
  TirExpr *init_v = zero_of(g, ob->dtype);
  if (s->bias) {
    TirExpr **bi = lg_bcast_index(h, s->bias, ob->shape, nest.iters, nd);
    init_v = cast_to(g, ob->dtype, lg_load(h, s->bias, bi));
    free(bi);
  }
  TirStmt *init = tir_store(h, ob, init_v, oi, nd);
  TirStmt *st = tir_store(h, ob, bin(g, TIR_ADD, lg_load(h, ob, oi), bin(g, TIR_MUL, xa, xb)), oi, nd);
  TirBuffer *bufs[4] = {s->a, s->b};
  int n = 2;
  if (s->bias) bufs[n++] = s->bias;
  bufs[n++] = ob;
  TirFunc *f = lg_wrap_func(g, bufs, n, lg_build_block(g, name, &nest, init, st));
  free(oi);
  free(ia);
  free(ib);
  free(ext);
  lg_nest_free(&nest);
  return f;
}

/* The operands' buffers; b's contracted dim takes a's symbolic size so that a
 * mismatch is caught where the call binds the prim_func's dims. */
static TirFunc *legalize_mm(Lg *g, const RxExpr *call, RxExpr **args, int *nargs, bool tb, const char *oname) {
  const RxExpr *a = call->call.args[0], *b = call->call.args[1];
  const RxExpr *bias = tb && call->call.n > 2 ? call->call.args[2] : NULL;
  if (a->sinfo->ndim < 1 || b->sinfo->ndim < 1) return NULL;
  VarMap vm;
  ir_ptrmap_init(&vm.map);
  MatmulSpec s = {0};
  s.tb = tb;
  s.a = lg_param_buffer(g, &vm, "A", a->sinfo);
  const RxSInfo *bs = b->sinfo;
  TirExpr *kb = bs->shape[bs->ndim == 1 ? 0 : tb ? bs->ndim - 1 : bs->ndim - 2];
  if (kb->kind == TIR_VAR && !ir_ptrmap_has(&vm.map, kb->var))
    ir_ptrmap_put(&vm.map, kb->var, s.a->shape[s.a->ndim - 1]);
  s.b = lg_param_buffer(g, &vm, "B", bs);
  args[0] = (RxExpr *)a;
  args[1] = (RxExpr *)b;
  *nargs = 2;
  if (bias) {
    s.bias = lg_param_buffer(g, &vm, "C", bias->sinfo);
    args[(*nargs)++] = (RxExpr *)bias;
  }
  s.out = out_buffer(g, &vm, oname, call->sinfo);
  TirFunc *f = build_matmul(g, oname, &s);
  ir_ptrmap_free(&vm.map);
  return f;
}

TirFunc *rx_legalize_matmul(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  return legalize_mm(g, call, args, nargs, false, "matmul");
}

TirFunc *rx_legalize_linear(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  return legalize_mm(g, call, args, nargs, true, "T_linear");
}

/* ------------------------------------------------------------ reductions */

typedef struct Red {
  TirBuffer *in;
  bool red[MAXD];   /* reduced input dims */
  bool keep;        /* keepdims */
} Red;

/* Reads red->in reduced into ob (a block named name); combine(acc, x) with init value. */
static TirStmt *red_block(Lg *g, const char *name, Red *r, TirBuffer *src, TirBuffer *ob, TirExprKind op,
                          TirExpr *init_v) {
  IrHeap *h = g->h;
  TirExpr *rext[MAXD];
  int raxis[MAXD] = {0}, nr = 0;
  for (int d = 0; d < src->ndim; d++)
    if (r->red[d]) rext[nr] = src->shape[d], raxis[nr++] = d;
  Nest nest;
  red_nest(g, &nest, ob->shape, ob->ndim, rext, raxis, nr);
  TirExpr **oi = iter_refs(g, &nest, 0, ob->ndim), *ii[MAXD];
  for (int d = 0, o = 0, k = 0; d < src->ndim; d++) {
    if (r->red[d]) {
      ii[d] = ref(g, nest.iters[ob->ndim + k++]);
      if (r->keep) o++;
    } else {
      ii[d] = oi[o++];
    }
  }
  TirStmt *init = tir_store(h, ob, init_v, oi, ob->ndim);
  TirExpr *x = lg_load(h, src, ii);
  TirStmt *st = tir_store(h, ob, bin(g, op, lg_load(h, ob, oi), x), oi, ob->ndim);
  TirStmt *s = lg_build_block(g, name, &nest, init, st);
  free(oi);
  nest_free(&nest);
  return s;
}

typedef struct Div {
  TirBuffer *src;
  TirExpr *by;
} Div;

static TirExpr *div_value(Lg *g, void *ctx, TirExpr **oi) {
  Div *d = ctx;
  return bin(g, TIR_DIV, lg_load(g->h, d->src, oi), d->by);
}

typedef struct Sub {
  TirBuffer *a, *b;
  TirBuffer *out;
  TirExprKind op;
} Sub;

/* a[oi] op b[broadcast oi] (variance's x - mean, (x - mean)^2). */
static TirExpr *sub_value(Lg *g, void *ctx, TirExpr **oi) {
  Sub *s = ctx;
  TirExpr *va = lg_load(g->h, s->a, oi);
  if (!s->b) return bin(g, s->op, va, lg_load(g->h, s->a, oi));
  TirExpr **bi = xcalloc((size_t)(s->b->ndim + 1), sizeof *bi);
  for (int d = 0; d < s->b->ndim; d++) bi[d] = tir_is_one(s->b->shape[d]) ? i64(g, 0) : oi[d];
  TirExpr *r = bin(g, s->op, va, lg_load(g->h, s->b, bi));
  free(bi);
  return r;
}

static TirExpr *sqrt_value(Lg *g, void *ctx, TirExpr **oi) {
  TirExpr *x = lg_load(g->h, ctx, oi);
  return tir_call(g->h, x->dtype, tir_op_lookup("sqrt"), &x, 1);
}

/* The reduced element count as a value of dtype t. */
static TirExpr *count_of(Lg *g, Red *r, DType t) {
  TirExpr *n = i64(g, 1);
  for (int d = 0; d < r->in->ndim; d++)
    if (r->red[d]) n = bin(g, TIR_MUL, n, r->in->shape[d]);
  ArithCtx *a = arith_new(g->h);
  n = arith_simplify(a, n);
  arith_free(a);
  int64_t c;
  if (tir_is_const_int(n, &c)) return dt_is_float(t) ? tir_float(g->h, t, (double)c) : tir_int(g->h, t, c);
  return tir_cast(g->h, t, n);
}

static TirBuffer *tmp_buffer(Lg *g, const char *name, DType t, TirExpr **shape, int nd) {
  return tir_buffer(g->h, name, t, shape, nd, "global");
}

/* variance (and std): TOPI's mean, subtract, square, sum, divide (then sqrt). */
static TirStmt *variance_blocks(Lg *g, Red *r, TirBuffer *ob, bool std, TirBuffer **allocs, int *nallocs) {
  IrHeap *h = g->h;
  TirBuffer *x = r->in;
  DType t = x->dtype;
  TirExpr *ks[MAXD];
  for (int d = 0; d < x->ndim; d++) ks[d] = r->red[d] ? i64(g, 1) : x->shape[d];
  Red keep = *r;
  keep.keep = true;
  TirBuffer *sum = tmp_buffer(g, "A_red", t, ks, x->ndim), *mean = tmp_buffer(g, "T_divide_1", t, ks, x->ndim);
  TirBuffer *diff = tmp_buffer(g, "T_subtract", t, x->shape, x->ndim);
  TirBuffer *sq = tmp_buffer(g, "T_multiply", t, x->shape, x->ndim);
  TirBuffer *sqr = tmp_buffer(g, "T_multiply_red", t, ob->shape, ob->ndim);
  TirBuffer *var = std ? tmp_buffer(g, "T_divide", t, ob->shape, ob->ndim) : ob;
  TirStmt *s[7];
  Div d1 = {sum, count_of(g, r, t)}, d2 = {sqr, count_of(g, r, t)};
  Sub sb = {x, mean, diff, TIR_SUB}, sm = {diff, NULL, sq, TIR_MUL};
  s[0] = red_block(g, "A_red", &keep, x, sum, TIR_ADD, zero_of(g, t));
  s[1] = ewise_block(g, "T_divide", mean, div_value, &d1);
  s[2] = ewise_block(g, "T_subtract", diff, sub_value, &sb);
  s[3] = ewise_block(g, "T_multiply", sq, sub_value, &sm);
  s[4] = red_block(g, "T_multiply_red", r, sq, sqr, TIR_ADD, zero_of(g, t));
  s[5] = ewise_block(g, "T_divide_1", var, div_value, &d2);
  int n = 6;
  if (std) s[n++] = ewise_block(g, "compute", ob, sqrt_value, var);
  TirBuffer *al[6] = {sum, mean, diff, sq, sqr, var};
  *nallocs = std ? 6 : 5;
  memcpy(allocs, al, sizeof al);
  return tir_seq(h, s, n);
}

static void red_axes(const RxExpr *call, int nd, bool *red) {
  int64_t ax[MAXD];
  int n = rx_attr_ints(call->call.attrs, "axis", ax, MAXD);
  for (int d = 0; d < nd; d++) red[d] = n < 0;
  for (int i = 0; i < n; i++) red[ax[i] < 0 ? ax[i] + nd : ax[i]] = true;
}

TirFunc *rx_legalize_reduce(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  const RxExpr *a = call->call.args[0];
  RxOpId id = call->call.op->id;
  if (a->sinfo->ndim > MAXD) return NULL;
  VarMap vm;
  ir_ptrmap_init(&vm.map);
  Red r;
  r.in = lg_param_buffer(g, &vm, "A", a->sinfo);
  r.keep = rx_attr_bool(call->call.attrs, "keepdims", false);
  red_axes(call, a->sinfo->ndim, r.red);
  args[0] = (RxExpr *)a;
  *nargs = 1;
  DType t = r.in->dtype;
  bool var = id == RX_OP_VARIANCE || id == RX_OP_STD;
  TirBuffer *ob = out_buffer(g, &vm, id == RX_OP_STD ? "compute" : var || id == RX_OP_MEAN ? "T_divide" : "A_red",
                             call->sinfo);
  TirBuffer *allocs[6];
  int nallocs = 0;
  TirStmt *body;
  if (var) {
    body = variance_blocks(g, &r, ob, id == RX_OP_STD, allocs, &nallocs);
  } else if (id == RX_OP_MEAN) {
    TirBuffer *sum = tmp_buffer(g, "A_red", t, ob->shape, ob->ndim);
    Div d = {sum, count_of(g, &r, t)};
    TirStmt *s[2] = {red_block(g, "A_red", &r, r.in, sum, TIR_ADD, zero_of(g, t)),
                     ewise_block(g, "T_divide", ob, div_value, &d)};
    body = tir_seq(g->h, s, 2);
    allocs[nallocs++] = sum;
  } else {
    TirExprKind op = (TirExprKind)call->call.op->tir_binop;
    TirExpr *init = op == TIR_ADD ? zero_of(g, t) : op == TIR_MUL ? cast_to(g, t, tir_int(g->h, dt_int32, 1))
                                                                   : extreme_of(g, t, op == TIR_MAX);
    if (op == TIR_MUL && dt_is_float(t)) init = tir_float(g->h, t, 1.0);
    body = red_block(g, "A_red", &r, r.in, ob, op, init);
  }
  TirBuffer *bufs[2] = {r.in, ob};
  TirFunc *f = wrap_allocs(g, bufs, 2, allocs, nallocs, body);
  ir_ptrmap_free(&vm.map);
  return f;
}

/* argmax/argmin: (index, value) reduced together, TOPI's comm_reducer with
 * ties to the smaller index; then the index copied out. */
TirFunc *rx_legalize_argreduce(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  IrHeap *h = g->h;
  const RxExpr *a = call->call.args[0];
  if (a->sinfo->ndim > MAXD) return NULL;
  VarMap vm;
  ir_ptrmap_init(&vm.map);
  Red r;
  r.in = lg_param_buffer(g, &vm, "A", a->sinfo);
  r.keep = rx_attr_bool(call->call.attrs, "keepdims", false);
  int64_t axv;
  bool none = rx_attr_ints(call->call.attrs, "axis", &axv, 1) < 0;
  int nd = r.in->ndim, ax = none ? -1 : (int)(axv < 0 ? axv + nd : axv);
  for (int d = 0; d < nd; d++) r.red[d] = none || d == ax;
  args[0] = (RxExpr *)a;
  *nargs = 1;
  TirBuffer *ob = out_buffer(g, &vm, "A_red", call->sinfo);
  TirBuffer *v0 = tmp_buffer(g, "A_red_temp_v0", dt_int64, ob->shape, ob->ndim);
  TirBuffer *v1 = tmp_buffer(g, "A_red_temp_v1", r.in->dtype, ob->shape, ob->ndim);
  TirExpr *rext[MAXD];
  int raxis[MAXD] = {0}, nr = 0;
  for (int d = 0; d < nd; d++)
    if (r.red[d]) rext[nr] = r.in->shape[d], raxis[nr++] = d;
  Nest nest;
  red_nest(g, &nest, ob->shape, ob->ndim, rext, raxis, nr);
  TirExpr **oi = iter_refs(g, &nest, 0, ob->ndim), *ii[MAXD], *k = i64(g, 0);
  for (int d = 0, o = 0, j = 0; d < nd; d++) {
    if (r.red[d]) {
      ii[d] = ref(g, nest.iters[ob->ndim + j++]);
      k = bin(g, TIR_ADD, bin(g, TIR_MUL, k, r.in->shape[d]), ii[d]);
      if (r.keep) o++;
    } else {
      ii[d] = oi[o++];
    }
  }
  simplify_all(g, &nest, &k, 1);
  TirExpr *x = lg_load(h, r.in, ii), *bv = lg_load(h, v1, oi), *bi = lg_load(h, v0, oi);
  TirExprKind better = call->call.op->id == RX_OP_ARGMAX ? TIR_GT : TIR_LT;
  TirExpr *keep_old = bin(g, TIR_OR, bin(g, better, bv, x), bin(g, TIR_AND, bin(g, TIR_EQ, bv, x), bin(g, TIR_LT, bi, k)));
  TirVar *n0 = tir_var(h, "v_A_red_temp_v0", dt_int64), *n1 = tir_var(h, "v_A_red_temp_v1", r.in->dtype);
  TirStmt *st[2] = {tir_store(h, v0, ref(g, n0), oi, ob->ndim), tir_store(h, v1, ref(g, n1), oi, ob->ndim)};
  TirStmt *body = tir_let_stmt(h, n0, tir_select(h, keep_old, bi, k),
                               tir_let_stmt(h, n1, tir_select(h, bin(g, better, bv, x), bv, x), tir_seq(h, st, 2)));
  TirStmt *in_st[2] = {tir_store(h, v0, i64(g, -1), oi, ob->ndim),
                       tir_store(h, v1, extreme_of(g, r.in->dtype, better == TIR_GT), oi, ob->ndim)};
  TirStmt *s[2];
  s[0] = lg_build_block(g, "A_red_temp", &nest, tir_seq(h, in_st, 2), body);
  Nest n2;
  lg_iter_nest(g, &n2, ob->shape, ob->ndim, "ax");
  TirExpr **o2 = iter_refs(g, &n2, 0, ob->ndim);
  s[1] = lg_build_block(g, "A_red", &n2, NULL, tir_store(h, ob, lg_load(h, v0, o2), o2, ob->ndim));
  TirBuffer *bufs[2] = {r.in, ob}, *allocs[2] = {v0, v1};
  TirFunc *f = wrap_allocs(g, bufs, 2, allocs, 2, tir_seq(h, s, 2));
  free(oi);
  free(o2);
  nest_free(&nest);
  lg_nest_free(&n2);
  ir_ptrmap_free(&vm.map);
  return f;
}

/* ------------------------------------------------------------ injective ops */

/* An injective op's index map: the input's index for output iters oi (nd of
 * them), given the input buffer(s). */
typedef struct Inj {
  const RxExpr *call;
  TirBuffer *in[LG_MAX_ARGS];
  int nin;
  TirBuffer *out;
  Nest *nest;
} Inj;

typedef TirExpr *(*InjFn)(Lg *g, Inj *s, TirExpr **oi);

/* T_<name>[oi] = fn(oi) over the call's single tensor operand (or several). */
static TirFunc *injective(Lg *g, const RxExpr *call, RxExpr **args, int *nargs, const char *oname, InjFn fn,
                          int nops) {
  VarMap vm;
  ir_ptrmap_init(&vm.map);
  Inj s;
  memset(&s, 0, sizeof s);
  s.call = call;
  static const char *names[] = {"A", "B", "C", "D"};
  for (int i = 0; i < nops; i++) {
    const RxExpr *a = call->call.args[i];
    s.in[s.nin] = lg_param_buffer(g, &vm, names[i], a->sinfo);
    args[s.nin++] = (RxExpr *)a;
  }
  *nargs = s.nin;
  s.out = out_buffer(g, &vm, oname, call->sinfo);
  Nest nest;
  lg_iter_nest(g, &nest, s.out->shape, s.out->ndim, "ax");
  s.nest = &nest;
  TirExpr **oi = iter_refs(g, &nest, 0, s.out->ndim);
  TirExpr *v = fn(g, &s, oi);
  TirFunc *f = NULL;
  if (v) {
    TirStmt *st = lg_build_block(g, oname, &nest, NULL, tir_store(g->h, s.out, v, oi, s.out->ndim));
    s.in[s.nin] = s.out;
    f = lg_wrap_func(g, s.in, s.nin + 1, st);
  }
  free(oi);
  lg_nest_free(&nest);
  ir_ptrmap_free(&vm.map);
  return f;
}

/* x read at the row-major position flat (simplified with the nest's ranges). */
static TirExpr *load_flat(Lg *g, Inj *s, TirBuffer *x, TirExpr *flat) {
  TirExpr *idx[MAXD], *stride = i64(g, 1);
  for (int d = x->ndim - 1; d >= 0; d--) {
    TirExpr *q = bin(g, TIR_FLOORDIV, flat, stride);
    idx[d] = d > 0 ? bin(g, TIR_FLOORMOD, q, x->shape[d]) : q;
    stride = bin(g, TIR_MUL, stride, x->shape[d]);
  }
  simplify_all(g, s->nest, idx, x->ndim);
  return lg_load(g->h, x, idx);
}

static TirExpr *out_flat(Lg *g, Inj *s, TirExpr **oi) {
  TirExpr *f = i64(g, 0);
  for (int d = 0; d < s->out->ndim; d++) f = bin(g, TIR_ADD, bin(g, TIR_MUL, f, s->out->shape[d]), oi[d]);
  return f;
}

static TirExpr *f_reshape(Lg *g, Inj *s, TirExpr **oi) { return load_flat(g, s, s->in[0], out_flat(g, s, oi)); }

/* squeeze: the input read at 0 on its squeezed dims, the output iters elsewhere. */
static TirExpr *f_squeeze(Lg *g, Inj *s, TirExpr **oi) {
  TirBuffer *x = s->in[0];
  int64_t ax[MAXD];
  int n = rx_attr_ints(s->call->call.attrs, "axis", ax, MAXD);
  bool sq[MAXD];
  for (int d = 0; d < x->ndim; d++) sq[d] = n < 0 && tir_is_one(x->shape[d]);
  for (int i = 0; i < n; i++) sq[ax[i] < 0 ? ax[i] + x->ndim : ax[i]] = true;
  TirExpr *idx[MAXD];
  for (int d = 0, o = 0; d < x->ndim; d++) idx[d] = sq[d] ? i64(g, 0) : oi[o++];
  return lg_load(g->h, x, idx);
}

/* expand_dims: the output iters of the dims that are not inserted. */
static TirExpr *f_expand(Lg *g, Inj *s, TirExpr **oi) {
  int64_t ax[MAXD];
  int nd = s->out->ndim, n = rx_attr_ints(s->call->call.attrs, "axis", ax, MAXD);
  bool ins[MAXD] = {false};
  for (int i = 0; i < n; i++) ins[ax[i] < 0 ? ax[i] + nd : ax[i]] = true;
  TirExpr *idx[MAXD];
  for (int d = 0, j = 0; d < nd; d++)
    if (!ins[d]) idx[j++] = oi[d];
  return lg_load(g->h, s->in[0], idx);
}

TirFunc *rx_legalize_reshape(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  RxOpId id = call->call.op->id;
  if (call->call.args[0]->sinfo->ndim > MAXD || call->sinfo->ndim > MAXD) return NULL;
  if (id == RX_OP_SQUEEZE) return injective(g, call, args, nargs, "T_squeeze", f_squeeze, 1);
  if (id == RX_OP_EXPAND_DIMS) return injective(g, call, args, nargs, "T_expand_dims", f_expand, 1);
  return injective(g, call, args, nargs, "T_reshape", f_reshape, 1);
}

static TirExpr *f_transpose(Lg *g, Inj *s, TirExpr **oi) {
  int64_t ax[MAXD];
  int nd = s->out->ndim, n = rx_attr_ints(s->call->call.attrs, "axes", ax, MAXD);
  TirExpr *idx[MAXD];
  for (int i = 0; i < nd; i++) idx[n < 0 ? nd - 1 - i : ax[i] < 0 ? ax[i] + nd : ax[i]] = oi[i];
  return lg_load(g->h, s->in[0], idx);
}

TirFunc *rx_legalize_permute_dims(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  return injective(g, call, args, nargs, "T_transpose", f_transpose, 1);
}

/* layout_transform: the input read at the index map's inverse (v = outer * k
 * + inner for a split axis, outer // k and outer % k for a fused one). */
static TirExpr *f_layout(Lg *g, Inj *s, TirExpr **oi) {
  RxIndexMap m;
  StrBuf err;
  sb_init(&err);
  bool ok = rx_index_map_parse(rx_attr_str(s->call->call.attrs, "index_map", ""), &m, &err);
  sb_free(&err);
  if (!ok || m.nin != s->in[0]->ndim) return NULL;
  TirExpr *idx[RX_LAYOUT_MAX];
  for (int v = 0; v < m.nin; v++) idx[v] = i64(g, 0);
  for (int i = 0; i < m.nout; i++) {
    const RxIndexMapEntry *e = &m.out[i];
    TirExpr *k = i64(g, e->k);
    if (e->kind == RX_IM_DIV) idx[e->v] = bin(g, TIR_ADD, idx[e->v], bin(g, TIR_MUL, oi[i], k));
    else if (e->kind != RX_IM_FUSE) idx[e->v] = bin(g, TIR_ADD, idx[e->v], oi[i]);
    else {
      idx[e->v] = bin(g, TIR_ADD, idx[e->v], bin(g, TIR_FLOORDIV, oi[i], k));
      idx[e->u] = bin(g, TIR_ADD, idx[e->u], bin(g, TIR_FLOORMOD, oi[i], k));
    }
  }
  simplify_all(g, s->nest, idx, m.nin);
  return lg_load(g->h, s->in[0], idx);
}

TirFunc *rx_legalize_layout_transform(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  if (!rx_attr_str(call->call.attrs, "index_map", NULL) || call->call.args[0]->sinfo->ndim > RX_LAYOUT_MAX) return NULL;
  g->name_hint = "te_layout_transform";
  return injective(g, call, args, nargs, "te_layout_transform", f_layout, 1);
}

static TirExpr *f_broadcast(Lg *g, Inj *s, TirExpr **oi) {
  (void)oi;
  TirExpr **idx = lg_bcast_index(g->h, s->in[0], s->out->shape, s->nest->iters, s->out->ndim);
  TirExpr *r = lg_load(g->h, s->in[0], idx);
  free(idx);
  return r;
}

TirFunc *rx_legalize_broadcast_to(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  return injective(g, call, args, nargs, "T_broadcast_to", f_broadcast, 1);
}

static TirExpr *f_tile(Lg *g, Inj *s, TirExpr **oi) {
  TirBuffer *x = s->in[0];
  TirExpr *idx[MAXD];
  int off = s->out->ndim - x->ndim;
  for (int d = 0; d < x->ndim; d++) idx[d] = bin(g, TIR_FLOORMOD, oi[off + d], x->shape[d]);
  simplify_all(g, s->nest, idx, x->ndim);
  return lg_load(g->h, x, idx);
}

TirFunc *rx_legalize_tile(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  return injective(g, call, args, nargs, "T_tile", f_tile, 1);
}

static TirExpr *f_repeat(Lg *g, Inj *s, TirExpr **oi) {
  TirBuffer *x = s->in[0];
  TirExpr *rep = i64(g, rx_attr_int(s->call->call.attrs, "repeats", 1));
  int64_t axv;
  if (rx_attr_ints(s->call->call.attrs, "axis", &axv, 1) < 0) return load_flat(g, s, x, bin(g, TIR_FLOORDIV, oi[0], rep));
  int ax = (int)(axv < 0 ? axv + x->ndim : axv);
  TirExpr *idx[MAXD];
  for (int d = 0; d < x->ndim; d++) idx[d] = d == ax ? bin(g, TIR_FLOORDIV, oi[d], rep) : oi[d];
  simplify_all(g, s->nest, idx, x->ndim);
  return lg_load(g->h, x, idx);
}

TirFunc *rx_legalize_repeat(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  return injective(g, call, args, nargs, "T_repeat", f_repeat, 1);
}

static TirExpr *f_slice(Lg *g, Inj *s, TirExpr **oi) {
  TirBuffer *x = s->in[0];
  const IrValue *at = s->call->call.attrs;
  int64_t ax[MAXD], b[MAXD], e[MAXD], st[MAXD];
  int na = rx_attr_ints(at, "axes", ax, MAXD);
  rx_attr_ints(at, "begin", b, MAXD);
  rx_attr_ints(at, "end", e, MAXD);
  bool strided = rx_attr_ints(at, "strides", st, MAXD) >= 0;
  TirExpr *idx[MAXD];
  for (int d = 0; d < x->ndim; d++) idx[d] = oi[d];
  for (int i = 0; i < na; i++) {
    int d = (int)(ax[i] < 0 ? ax[i] + x->ndim : ax[i]);
    int64_t sd = strided ? st[i] : 1;
    TirExpr *start;
    if (!rx_slice_expr(g->h, x->shape[d], b[i], e[i], sd, &start)) return NULL;
    idx[d] = bin(g, TIR_ADD, start, bin(g, TIR_MUL, oi[d], i64(g, sd)));
  }
  simplify_all(g, s->nest, idx, x->ndim);
  return lg_load(g->h, x, idx);
}

TirFunc *rx_legalize_strided_slice(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  return injective(g, call, args, nargs, "T_strided_slice_with_axes", f_slice, 1);
}

static TirExpr *f_take(Lg *g, Inj *s, TirExpr **oi) {
  TirBuffer *x = s->in[0], *ix = s->in[1];
  int64_t axv;
  int ax = rx_attr_ints(s->call->call.attrs, "axis", &axv, 1) < 0 ? 0 : (int)(axv < 0 ? axv + x->ndim : axv);
  const char *mode = rx_attr_str(s->call->call.attrs, "mode", "fast");
  if (!strcmp(mode, "nan")) return NULL;
  TirExpr *i = cast_to(g, dt_int64, lg_load(g->h, ix, oi + ax)), *n = x->shape[ax];
  if (!strcmp(mode, "clip")) i = bin(g, TIR_MIN, bin(g, TIR_MAX, i, i64(g, 0)), bin(g, TIR_SUB, n, i64(g, 1)));
  else if (!strcmp(mode, "wrap")) i = bin(g, TIR_FLOORMOD, i, n);
  TirExpr *idx[MAXD];
  for (int d = 0; d < ax; d++) idx[d] = oi[d];
  idx[ax] = i;
  for (int d = ax + 1; d < x->ndim; d++) idx[d] = oi[d - 1 + ix->ndim];
  simplify_all(g, s->nest, idx + ax, 1);
  return lg_load(g->h, x, idx);
}

TirFunc *rx_legalize_take(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  return injective(g, call, args, nargs, "T_take", f_take, 2);
}

/* ------------------------------------------------------------ concat, split */

/* The fields of a tuple operand: an RX_TUPLE's, or t[i] of a tuple-valued var. */
static int tuple_fields(Lg *g, const RxExpr *t, const RxExpr **out, int cap) {
  if (t->kind == RX_TUPLE) {
    if (t->tuple.n > cap) return -1;
    for (int i = 0; i < t->tuple.n; i++) out[i] = t->tuple.fields[i];
    return t->tuple.n;
  }
  const RxSInfo *si = t->sinfo;
  if (!si || si->kind != RX_SI_TUPLE || si->nfields > cap) return -1;
  for (int i = 0; i < si->nfields; i++) out[i] = rx_tuple_get(g->h, (RxExpr *)t, i);
  return si->nfields;
}

TirFunc *rx_legalize_concat(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  IrHeap *h = g->h;
  const RxExpr *fs[LG_MAX_ARGS - 1];
  int n = tuple_fields(g, call->call.args[0], fs, LG_MAX_ARGS - 1);
  if (n <= 0) return NULL;
  VarMap vm;
  ir_ptrmap_init(&vm.map);
  TirBuffer *bufs[LG_MAX_ARGS];
  for (int i = 0; i < n; i++) {
    char *nm = i < 26 ? xasprintf("%c", 'A' + i) : xasprintf("A%d", i);
    bufs[i] = lg_param_buffer(g, &vm, ir_strdup(h, nm), fs[i]->sinfo);
    free(nm);
    args[i] = (RxExpr *)fs[i];
  }
  *nargs = n;
  TirBuffer *ob = out_buffer(g, &vm, "T_concat", call->sinfo);
  int nd = ob->ndim;
  int64_t axv;
  int ax = rx_attr_ints(call->call.attrs, "axis", &axv, 1) < 0 ? 0 : (int)(axv < 0 ? axv + nd : axv);
  Nest nest;
  lg_iter_nest(g, &nest, ob->shape, nd, "ax");
  TirExpr **oi = iter_refs(g, &nest, 0, nd), **idx = xcalloc((size_t)(nd + 1), sizeof *idx);
  TirExpr *offs[LG_MAX_ARGS];
  offs[0] = i64(g, 0);
  for (int i = 1; i < n; i++) offs[i] = bin(g, TIR_ADD, offs[i - 1], bufs[i - 1]->shape[ax]);
  simplify_all(g, &nest, offs, n);
  TirExpr *v = NULL;
  const TirOpInfo *ite = tir_op_lookup("if_then_else");
  for (int i = n - 1; i >= 0; i--) {
    for (int d = 0; d < nd; d++) idx[d] = d == ax ? bin(g, TIR_SUB, oi[d], offs[i]) : oi[d];
    simplify_all(g, &nest, idx + ax, 1);
    TirExpr *x = lg_load(h, bufs[i], idx);
    if (!v) {
      v = x;
      continue;
    }
    TirExpr *a3[3] = {bin(g, TIR_LT, oi[ax], offs[i + 1]), x, v};
    v = tir_call(h, ob->dtype, ite, a3, 3);
  }
  bufs[n] = ob;
  TirFunc *f = lg_wrap_func(g, bufs, n + 1, lg_build_block(g, "T_concat", &nest, NULL, tir_store(h, ob, v, oi, nd)));
  free(oi);
  free(idx);
  lg_nest_free(&nest);
  ir_ptrmap_free(&vm.map);
  return f;
}

TirFunc *rx_legalize_split(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  IrHeap *h = g->h;
  const RxExpr *a = call->call.args[0];
  const RxSInfo *si = call->sinfo;
  int k = si->nfields;
  if (k + 1 > LG_MAX_ARGS) return NULL;
  VarMap vm;
  ir_ptrmap_init(&vm.map);
  TirBuffer *bufs[LG_MAX_ARGS];
  bufs[0] = lg_param_buffer(g, &vm, "A", a->sinfo);
  args[0] = (RxExpr *)a;
  *nargs = 1;
  int nd = bufs[0]->ndim;
  int64_t axv = rx_attr_int(call->call.attrs, "axis", 0);
  int ax = (int)(axv < 0 ? axv + nd : axv);
  const IrValue *ios = irv_dict_get(call->call.attrs, "indices_or_sections");
  bool sections = ios && ios->kind == IRV_INT;
  const char *base = sections ? "T_split_sections" : "T_split";
  TirStmt **st = xcalloc((size_t)k, sizeof *st);
  TirExpr *start = i64(g, 0);
  int64_t dim, beg[LG_MAX_ARGS], len[LG_MAX_ARGS];
  bool cdim = tir_is_const_int(bufs[0]->shape[ax], &dim) && rx_split_pieces(call->call.attrs, dim, beg, len, LG_MAX_ARGS) == k;
  for (int i = 0; i < k; i++) {
    if (cdim) start = i64(g, beg[i]);
    char *nm = i ? xasprintf("%s_%d", base, i) : xasprintf("%s", base);
    TirBuffer *ob = out_buffer(g, &vm, ir_strdup(h, nm), si->fields[i]);
    free(nm);
    bufs[1 + i] = ob;
    Nest nest;
    lg_iter_nest(g, &nest, ob->shape, nd, "ax");
    TirExpr **oi = iter_refs(g, &nest, 0, nd), **idx = xcalloc((size_t)(nd + 1), sizeof *idx);
    for (int d = 0; d < nd; d++) idx[d] = d == ax ? bin(g, TIR_ADD, oi[d], start) : oi[d];
    simplify_all(g, &nest, idx, nd);
    st[i] = lg_build_block(g, ob->name, &nest, NULL, tir_store(h, ob, lg_load(h, bufs[0], idx), oi, nd));
    start = bin(g, TIR_ADD, start, ob->shape[ax]);
    free(oi);
    free(idx);
    lg_nest_free(&nest);
  }
  TirFunc *f = lg_wrap_func(g, bufs, k + 1, k == 1 ? st[0] : tir_seq(h, st, k));
  free(st);
  ir_ptrmap_free(&vm.map);
  return f;
}
