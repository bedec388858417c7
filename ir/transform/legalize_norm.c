/* legalize_norm.c - LegalizeOps builders of softmax, log_softmax and the
 * normalization operators: multi-block prim_funcs with intermediate buffers
 * (T.alloc_buffer in the root block), as TOPI computes them.
 *
 *   softmax:     T_softmax_maxelem (max over the axis, loops i0.., k), T_softmax_exp,
 *                T_softmax_expsum (sum), T_softmax_norm (the output)
 *   log_softmax: T_softmax_maxelem, compute (sum of exp(x - max)), compute_1 =
 *                x - max - log(sum) into the output `compute`
 *   layer_norm:  A_red_temp (sum and sum of squares in one reduction, TOPI's
 *                single-pass form: var = E[x^2] - E[x]^2), T_layer_norm
 *   group_norm:  the same over each group's channels and axes, T_group_norm
 *                (TOPI reshapes the channel axis first; here the group and the
 *                channel within it are index arithmetic on one block)
 *   batch_norm:  inference (training=False): T_batch_norm from the moving
 *                stats, which are copied out unchanged (TOPI's `* 1`); training:
 *                the batch statistics (A_red_temp), the moving stats updated
 *                with momentum.
 * center=False / scale=False drop beta / gamma. */
#include "ir/transform/legalize_internal.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "ir/mutate.h"

#define MAXD 16

/* ------------------------------------------------------------ helpers */

static TirExpr *flit(IrHeap *h, DType t, double v) { return tir_float(h, t, v); }
static TirExpr *add(IrHeap *h, TirExpr *a, TirExpr *b) { return tir_binary(h, TIR_ADD, a, b); }
static TirExpr *sub(IrHeap *h, TirExpr *a, TirExpr *b) { return tir_binary(h, TIR_SUB, a, b); }
static TirExpr *mul(IrHeap *h, TirExpr *a, TirExpr *b) { return tir_binary(h, TIR_MUL, a, b); }
static TirExpr *dvd(IrHeap *h, TirExpr *a, TirExpr *b) { return tir_binary(h, TIR_DIV, a, b); }
static TirExpr *ref(IrHeap *h, TirVar *v) { return tir_var_ref(h, v); }

static TirExpr *call1(IrHeap *h, TirOpId op, TirExpr *x) {
  return tir_call(h, x->dtype, &tir_op_table[op], &x, 1);
}

/* The most negative finite value of float dtype t (TVM's T.min_value). */
static double min_value(DType t) { return t.bits == 64 ? -DBL_MAX : t.bits == 16 ? -65504.0 : -FLT_MAX; }

/* The prim_func of params bufs around body, root block allocating allocs. */
static TirFunc *wrap(Lg *g, TirBuffer **bufs, int nbufs, TirBuffer **allocs, int nalloc, TirStmt *body) {
  TirFunc *f = lg_wrap_func(g, bufs, nbufs, body);
  if (!nalloc) return f;
  /* the root block is fresh: give it the intermediates before anyone sees it */
  TirStmt *realize = f->body;
  TirBlock *root = ir_memdup(g->h, &realize->realize.block->block, sizeof *root);
  root->allocs = ir_memdup(g->h, allocs, (size_t)nalloc * sizeof *allocs);
  root->nallocs = nalloc;
  realize->realize.block = tir_block(g->h, root);
  return f;
}

/* A nest: spatial extents sp[0..nsp) (loops <prefix>0..), then reduce extents
 * red[0..nred) named by rnames (loops and iters v_<name>). */
static void red_nest(Lg *g, Nest *n, TirExpr **ext, int nsp, int nred, const char *prefix, const char **rnames) {
  lg_iter_nest(g, n, ext, nsp + nred, prefix);
  for (int r = 0; r < nred; r++) {
    int i = nsp + r;
    char *vn = xasprintf("v_%s", rnames[r]);
    n->types[i] = TIR_ITER_REDUCE;
    n->names[i] = ir_strdup(g->h, rnames[r]);
    n->iters[i] = tir_var(g->h, vn, ext[i]->dtype);
    free(vn);
  }
}

static TirBuffer *alloc_buf(Lg *g, const char *name, DType t, TirExpr **shape, int nd) {
  return tir_buffer(g->h, name, t, shape, nd, "global");
}

/* The first n iters of a nest as an index. */
static TirExpr **iters_index(IrHeap *h, const Nest *nest, int n, TirExpr **idx) {
  for (int d = 0; d < n; d++) idx[d] = ref(h, nest->iters[d]);
  return idx;
}

/* ------------------------------------------------------------ softmax */

/* The index of the input at a reduced point: iters of the reduced shape with k inserted at axis. */
static void insert_k(IrHeap *h, const Nest *n, int nd, int axis, TirExpr **idx) {
  for (int d = 0, s = 0; d < nd; d++) idx[d] = d == axis ? ref(h, n->iters[nd - 1]) : ref(h, n->iters[s++]);
}

/* The reduced-shape index of a full-shape point (axis dropped). */
static void drop_axis(IrHeap *h, const Nest *n, int nd, int axis, TirExpr **idx) {
  for (int d = 0, s = 0; d < nd; d++)
    if (d != axis) idx[s++] = ref(h, n->iters[d]);
}

/* A reduction over the axis of `src` into dst (reduced shape): max or sum of f(src). */
static TirStmt *axis_reduce(Lg *g, const char *block, TirBuffer *dst, TirBuffer *src, TirBuffer *sub_by, int axis,
                            bool is_max) {
  IrHeap *h = g->h;
  int nd = src->ndim;
  TirExpr *ext[MAXD], *ri[MAXD], *si[MAXD];
  for (int d = 0, s = 0; d < nd; d++)
    if (d != axis) ext[s++] = src->shape[d];
  ext[nd - 1] = src->shape[axis];
  const char *k = "k";
  Nest n;
  red_nest(g, &n, ext, nd - 1, 1, "i", &k);
  iters_index(h, &n, nd - 1, ri);
  insert_k(h, &n, nd, axis, si);
  DType t = dst->dtype;
  TirExpr *x = lg_load(h, src, si);
  if (sub_by) x = call1(h, TIR_OP_EXP, sub(h, x, lg_load(h, sub_by, ri)));
  TirExpr *acc = lg_load(h, dst, ri);
  TirStmt *init = tir_store(h, dst, flit(h, t, is_max ? min_value(t) : 0.0), ri, nd - 1);
  TirStmt *body = tir_store(h, dst, is_max ? tir_binary(h, TIR_MAX, acc, x) : add(h, acc, x), ri, nd - 1);
  TirStmt *s = lg_build_block(g, block, &n, init, body);
  lg_nest_free(&n);
  return s;
}

/* out[i] = value(i) over out's shape; value from the loads built by kind. */
static TirStmt *softmax_out(Lg *g, const char *block, TirBuffer *out, TirBuffer *a, TirBuffer *m, TirBuffer *s,
                            int axis, int kind) {
  IrHeap *h = g->h;
  int nd = out->ndim;
  TirExpr *fi[MAXD], *ri[MAXD];
  Nest n;
  lg_iter_nest(g, &n, out->shape, nd, "i");
  iters_index(h, &n, nd, fi);
  drop_axis(h, &n, nd, axis, ri);
  TirExpr *v;
  if (kind == 0) v = call1(h, TIR_OP_EXP, sub(h, lg_load(h, a, fi), lg_load(h, m, ri)));  /* T_softmax_exp */
  else if (kind == 1) v = dvd(h, lg_load(h, a, fi), lg_load(h, s, ri));                   /* T_softmax_norm */
  else v = sub(h, sub(h, lg_load(h, a, fi), lg_load(h, m, ri)), call1(h, TIR_OP_LOG, lg_load(h, s, ri)));
  TirStmt *st = lg_build_block(g, block, &n, NULL, tir_store(h, out, v, fi, nd));
  lg_nest_free(&n);
  return st;
}

TirFunc *rx_legalize_softmax(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  const RxExpr *x = call->call.args[0];
  int nd = x->sinfo->ndim;
  int64_t axis = rx_attr_int(call->call.attrs, "axis", -1);
  if (axis < 0) axis += nd;
  if (nd < 1 || nd > MAXD || axis < 0 || axis >= nd) return NULL;
  bool log_form = call->call.op->id == RX_OP_NN_LOG_SOFTMAX;
  VarMap vm;
  ir_ptrmap_init(&vm.map);
  TirBuffer *bufs[2];
  bufs[0] = lg_param_buffer(g, &vm, "A", x->sinfo);
  bufs[1] = lg_param_buffer(g, &vm, log_form ? "compute" : "T_softmax_norm", call->sinfo);
  args[0] = (RxExpr *)x;
  *nargs = 1;
  DType t = x->sinfo->dtype;
  TirExpr *rshape[MAXD];
  for (int d = 0, s = 0; d < nd; d++)
    if (d != axis) rshape[s++] = bufs[0]->shape[d];
  TirBuffer *m = alloc_buf(g, "T_softmax_maxelem", t, rshape, nd - 1);
  TirStmt *st[4];
  TirFunc *f;
  st[0] = axis_reduce(g, "T_softmax_maxelem", m, bufs[0], NULL, (int)axis, true);
  if (log_form) {
    TirBuffer *s = alloc_buf(g, "compute_1", t, rshape, nd - 1), *al[2] = {m, s};
    st[1] = axis_reduce(g, "compute", s, bufs[0], m, (int)axis, false);
    st[2] = softmax_out(g, "compute_1", bufs[1], bufs[0], m, s, (int)axis, 2);
    f = wrap(g, bufs, 2, al, 2, tir_seq(g->h, st, 3));
  } else {
    TirBuffer *e = alloc_buf(g, "T_softmax_exp", t, bufs[0]->shape, nd);
    TirBuffer *s = alloc_buf(g, "T_softmax_expsum", t, rshape, nd - 1), *al[3] = {m, e, s};
    st[1] = softmax_out(g, "T_softmax_exp", e, bufs[0], m, NULL, (int)axis, 0);
    st[2] = axis_reduce(g, "T_softmax_expsum", s, e, NULL, (int)axis, false);
    st[3] = softmax_out(g, "T_softmax_norm", bufs[1], e, NULL, s, (int)axis, 1);
    f = wrap(g, bufs, 2, al, 3, tir_seq(g->h, st, 4));
  }
  ir_ptrmap_free(&vm.map);
  return f;
}

/* ------------------------------------------------------------ statistics */

/* How a norm reads its data: the stats buffers' dims are data dims (or, for
 * group_norm, the channel's group); the reduction runs over `red` data dims
 * (and the channel within its group). */
typedef struct NormShape {
  int nd;              /* data rank */
  TirExpr **shape;     /* data shape (prim_func vars) */
  bool red[MAXD];      /* normalized over */
  int ch;              /* group_norm's channel axis, else -1 */
  TirExpr *per_group;  /* channels per group (ch >= 0) */
  TirExpr *groups;     /* num_groups as an int64 literal */
  int nst;             /* stats rank */
  TirExpr *st_shape[MAXD];
} NormShape;

static void norm_shape_init(IrHeap *h, NormShape *ns, int64_t groups) {
  ns->nst = 0;
  for (int d = 0; d < ns->nd; d++) {
    if (d == ns->ch) {
      ns->groups = tir_int(h, ns->shape[d]->dtype, groups);
      ns->per_group = tir_binary(h, TIR_FLOORDIV, ns->shape[d], ns->groups);
      ns->st_shape[ns->nst++] = ns->groups;
    } else if (!ns->red[d]) {
      ns->st_shape[ns->nst++] = ns->shape[d];
    }
  }
}

/* The number of elements in each group, as a float of dtype t. */
static TirExpr *group_size(IrHeap *h, const NormShape *ns, DType t) {
  TirExpr *n = ns->ch >= 0 ? ns->per_group : NULL;
  int64_t c = 1;
  bool all_const = !n;
  for (int d = 0; d < ns->nd; d++)
    if (ns->red[d]) {
      n = n ? mul(h, n, ns->shape[d]) : ns->shape[d];
      int64_t v;
      if (tir_is_const_int(ns->shape[d], &v)) c *= v;
      else all_const = false;
    }
  if (!n) return flit(h, t, 1.0);
  if (all_const) return flit(h, t, (double)c);
  return tir_cast(h, t, n);
}

/* A_red_temp: v0 = sum x, v1 = sum x*x over each group. */
static TirStmt *red_temp(Lg *g, const NormShape *ns, TirBuffer *a, TirBuffer *v0, TirBuffer *v1) {
  IrHeap *h = g->h;
  TirExpr *ext[2 * MAXD];
  const char *rn[MAXD];
  int nred = 0;
  for (int s = 0; s < ns->nst; s++) ext[s] = ns->st_shape[s];
  for (int d = 0; d < ns->nd; d++) {
    if (d != ns->ch && !ns->red[d]) continue;
    char *nm = xasprintf("k%d", d);
    rn[nred] = ir_strdup(h, nm);
    free(nm);
    ext[ns->nst + nred++] = d == ns->ch ? ns->per_group : ns->shape[d];
  }
  Nest n;
  red_nest(g, &n, ext, ns->nst, nred, "ax", rn);
  TirExpr *si[MAXD], *xi[MAXD];
  iters_index(h, &n, ns->nst, si);
  for (int d = 0, s = 0, r = 0; d < ns->nd; d++) {
    if (d == ns->ch) {
      xi[d] = add(h, mul(h, ref(h, n.iters[s++]), ns->per_group), ref(h, n.iters[ns->nst + r++]));
    } else if (ns->red[d]) {
      xi[d] = ref(h, n.iters[ns->nst + r++]);
    } else {
      xi[d] = ref(h, n.iters[s++]);
    }
  }
  DType t = a->dtype;
  TirExpr *x = lg_load(h, a, xi);
  TirStmt *init[2] = {tir_store(h, v0, flit(h, t, 0), si, ns->nst), tir_store(h, v1, flit(h, t, 0), si, ns->nst)};
  TirStmt *body[2] = {tir_store(h, v0, add(h, lg_load(h, v0, si), x), si, ns->nst),
                      tir_store(h, v1, add(h, lg_load(h, v1, si), mul(h, x, x)), si, ns->nst)};
  char *bn = xasprintf("%s_red_temp", a->name);
  TirStmt *st = lg_build_block(g, ir_strdup(h, bn), &n, tir_seq(h, init, 2), tir_seq(h, body, 2));
  free(bn);
  lg_nest_free(&n);
  return st;
}

/* The stats index of a full-shape point (iters of a full nest). */
static void stats_index(IrHeap *h, const NormShape *ns, const Nest *n, TirExpr **si) {
  for (int d = 0, s = 0; d < ns->nd; d++) {
    if (d == ns->ch) si[s++] = tir_binary(h, TIR_FLOORDIV, ref(h, n->iters[d]), ns->per_group);
    else if (!ns->red[d]) si[s++] = ref(h, n->iters[d]);
  }
}

/* (x - mean) * rsqrt(var + eps) [* gamma] [+ beta]: the output block. */
typedef struct NormOut {
  TirExpr *mean, *var;     /* at the point */
  TirExpr *gamma, *beta;   /* at the point, NULL = not applied */
  double eps;
  bool rsqrt_form;         /* TOPI layer/group norm: * rsqrt(var + eps); batch_norm: / sqrt(var + eps) */
} NormOut;

static TirExpr *norm_value(IrHeap *h, TirExpr *x, const NormOut *o) {
  DType t = x->dtype;
  TirExpr *ve = add(h, o->var, flit(h, t, o->eps));
  TirExpr *y = o->rsqrt_form ? mul(h, sub(h, x, o->mean), call1(h, TIR_OP_RSQRT, ve))
                             : dvd(h, sub(h, x, o->mean), call1(h, TIR_OP_SQRT, ve));
  if (o->gamma) y = mul(h, y, o->gamma);
  if (o->beta) y = add(h, y, o->beta);
  return y;
}

/* mean and var of a point from the sum / sum-of-squares buffers. */
static void moments(IrHeap *h, TirBuffer *v0, TirBuffer *v1, TirExpr **si, TirExpr *cnt, NormOut *o) {
  o->mean = dvd(h, lg_load(h, v0, si), cnt);
  TirExpr *m2 = dvd(h, lg_load(h, v0, si), cnt);
  o->var = sub(h, dvd(h, lg_load(h, v1, si), cnt), mul(h, m2, m2));
}

/* ------------------------------------------------------------ layer / group norm */

/* gamma/beta index of a point: layer_norm: the axes' iters in order; group_norm: the channel. */
static void param_index(IrHeap *h, const Nest *n, const int64_t *axes, int na, int ch, TirExpr **pi) {
  if (ch >= 0) {
    pi[0] = ref(h, n->iters[ch]);
    return;
  }
  for (int i = 0; i < na; i++) pi[i] = ref(h, n->iters[axes[i]]);
}

static TirFunc *legalize_norm(Lg *g, const RxExpr *call, NormShape *ns, const int64_t *axes, int na,
                              RxExpr **args, int *nargs, const char *oname) {
  IrHeap *h = g->h;
  VarMap vm;
  ir_ptrmap_init(&vm.map);
  TirBuffer *bufs[4];
  static const char *const names[] = {"A", "B", "C"};
  for (int i = 0; i < 3; i++) {
    bufs[i] = lg_param_buffer(g, &vm, names[i], call->call.args[i]->sinfo);
    args[i] = call->call.args[i];
  }
  *nargs = 3;
  bufs[3] = lg_param_buffer(g, &vm, oname, call->sinfo);
  ns->shape = bufs[0]->shape;
  norm_shape_init(h, ns, rx_attr_int(call->call.attrs, "num_groups", 1));
  DType t = bufs[0]->dtype;
  TirBuffer *v0 = alloc_buf(g, "A_red_temp_v0", t, ns->st_shape, ns->nst);
  TirBuffer *v1 = alloc_buf(g, "A_red_temp_v1", t, ns->st_shape, ns->nst), *al[2] = {v0, v1};
  TirStmt *st[2];
  st[0] = red_temp(g, ns, bufs[0], v0, v1);
  Nest n;
  lg_iter_nest(g, &n, ns->shape, ns->nd, "ax");
  TirExpr *fi[MAXD], *si[MAXD], *pi[MAXD];
  iters_index(h, &n, ns->nd, fi);
  stats_index(h, ns, &n, si);
  param_index(h, &n, axes, na, ns->ch, pi);
  const IrValue *at = call->call.attrs;
  NormOut o = {NULL, NULL, NULL, NULL, rx_attr_float(at, "epsilon", 1e-5), true};
  moments(h, v0, v1, si, group_size(h, ns, t), &o);
  if (rx_attr_bool(at, "scale", true)) o.gamma = lg_load(h, bufs[1], pi);
  if (rx_attr_bool(at, "center", true)) o.beta = lg_load(h, bufs[2], pi);
  TirStmt *body = tir_store(h, bufs[3], norm_value(h, lg_load(h, bufs[0], fi), &o), fi, ns->nd);
  st[1] = lg_build_block(g, oname, &n, NULL, body);
  lg_nest_free(&n);
  TirFunc *f = wrap(g, bufs, 4, al, 2, tir_seq(h, st, 2));
  ir_ptrmap_free(&vm.map);
  return f;
}

TirFunc *rx_legalize_layer_norm(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  NormShape ns;
  memset(&ns, 0, sizeof ns);
  ns.nd = call->call.args[0]->sinfo->ndim;
  ns.ch = -1;
  int64_t axes[MAXD];
  int na = rx_attr_ints(call->call.attrs, "axes", axes, MAXD);
  if (ns.nd > MAXD || na <= 0 || na > ns.nd) return NULL;
  for (int i = 0; i < na; i++) {
    if (axes[i] < 0) axes[i] += ns.nd;
    ns.red[axes[i]] = true;
  }
  return legalize_norm(g, call, &ns, axes, na, args, nargs, "T_layer_norm");
}

TirFunc *rx_legalize_group_norm(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  NormShape ns;
  memset(&ns, 0, sizeof ns);
  ns.nd = call->call.args[0]->sinfo->ndim;
  int64_t axes[MAXD], ch = rx_attr_int(call->call.attrs, "channel_axis", 1);
  int na = rx_attr_ints(call->call.attrs, "axes", axes, MAXD);
  if (ns.nd > MAXD || na < 0 || na > ns.nd) return NULL;
  ns.ch = (int)(ch < 0 ? ch + ns.nd : ch);
  for (int i = 0; i < na; i++) ns.red[axes[i] < 0 ? axes[i] + ns.nd : axes[i]] = true;
  return legalize_norm(g, call, &ns, axes, na, args, nargs, "T_group_norm");
}

/* ------------------------------------------------------------ batch_norm */

/* dst[c] = src[c] (inference) or (1 - m) * src[c] + m * batch_stat (training). */
static TirStmt *moving_block(Lg *g, const char *block, TirBuffer *dst, TirBuffer *src, TirExpr *stat_of_c,
                             TirVar *c_iter_in_stat, double mom) {
  IrHeap *h = g->h;
  Nest n;
  lg_iter_nest(g, &n, dst->shape, 1, "ax");
  TirExpr *ci = ref(h, n.iters[0]);
  DType t = dst->dtype;
  TirExpr *v = mul(h, lg_load(h, src, &ci), flit(h, t, 1.0));
  if (stat_of_c) {
    IrPtrMap m;
    ir_ptrmap_init(&m);
    ir_ptrmap_put(&m, c_iter_in_stat, ci);
    TirExpr *stat = tir_substitute_expr(h, stat_of_c, &m);
    ir_ptrmap_free(&m);
    v = add(h, mul(h, flit(h, t, 1.0 - mom), lg_load(h, src, &ci)), mul(h, flit(h, t, mom), stat));
  }
  TirStmt *s = lg_build_block(g, block, &n, NULL, tir_store(h, dst, v, &ci, 1));
  lg_nest_free(&n);
  return s;
}

TirFunc *rx_legalize_batch_norm(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  IrHeap *h = g->h;
  const IrValue *at = call->call.attrs;
  const RxSInfo *ds = call->call.args[0]->sinfo;
  int nd = ds->ndim;
  int64_t axis = rx_attr_int(at, "axis", 1);
  if (axis < 0) axis += nd;
  if (nd > MAXD || axis < 0 || axis >= nd || call->sinfo->kind != RX_SI_TUPLE) return NULL;
  bool training = rx_attr_bool(at, "training", true);
  VarMap vm;
  ir_ptrmap_init(&vm.map);
  TirBuffer *bufs[8];
  static const char *const names[] = {"A", "B", "C", "D", "E"};
  static const char *const onames[] = {"T_batch_norm", "T_multiply", "T_multiply_1"};
  for (int i = 0; i < 5; i++) {
    bufs[i] = lg_param_buffer(g, &vm, names[i], call->call.args[i]->sinfo);
    args[i] = call->call.args[i];
  }
  for (int i = 0; i < 3; i++) bufs[5 + i] = lg_param_buffer(g, &vm, onames[i], call->sinfo->fields[i]);
  *nargs = 5;
  DType t = bufs[0]->dtype;
  NormShape ns;
  memset(&ns, 0, sizeof ns);
  ns.nd = nd;
  ns.ch = -1;
  ns.shape = bufs[0]->shape;
  for (int d = 0; d < nd; d++) ns.red[d] = d != axis;
  norm_shape_init(h, &ns, 1);
  TirBuffer *v0 = alloc_buf(g, "A_red_temp_v0", t, ns.st_shape, 1);
  TirBuffer *v1 = alloc_buf(g, "A_red_temp_v1", t, ns.st_shape, 1), *al[2] = {v0, v1};
  TirStmt *st[4];
  int k = 0;
  if (training) st[k++] = red_temp(g, &ns, bufs[0], v0, v1);
  Nest n;
  lg_iter_nest(g, &n, ns.shape, nd, "ax");
  TirExpr *fi[MAXD], *ci;
  iters_index(h, &n, nd, fi);
  ci = fi[axis];
  NormOut o = {lg_load(h, bufs[3], &ci), lg_load(h, bufs[4], &ci), NULL, NULL, rx_attr_float(at, "epsilon", 1e-5),
               false};
  TirExpr *cnt = group_size(h, &ns, t);
  if (training) moments(h, v0, v1, &ci, cnt, &o);
  TirExpr *mean_c = o.mean, *var_c = o.var;
  if (rx_attr_bool(at, "scale", true)) o.gamma = lg_load(h, bufs[1], &ci);
  if (rx_attr_bool(at, "center", true)) o.beta = lg_load(h, bufs[2], &ci);
  st[k++] = lg_build_block(g, onames[0], &n, NULL, tir_store(h, bufs[5], norm_value(h, lg_load(h, bufs[0], fi), &o), fi, nd));
  double mom = rx_attr_float(at, "momentum", 0.1);
  TirVar *cv = n.iters[axis];
  st[k++] = moving_block(g, onames[1], bufs[6], bufs[3], training ? mean_c : NULL, cv, mom);
  st[k++] = moving_block(g, onames[2], bufs[7], bufs[4], training ? var_c : NULL, cv, mom);
  lg_nest_free(&n);
  TirFunc *f = wrap(g, bufs, 8, al, training ? 2 : 0, tir_seq(h, st, k));
  ir_ptrmap_free(&vm.map);
  return f;
}
