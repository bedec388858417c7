/* relax_convert_layout.c - ConvertLayout / AlterOpLayout for x86 (TVM's
 * relax.transform.ConvertLayout with conv2d's NCHWc alteration):
 *
 *   y = R.nn.conv2d(x, w)              xb = R.layout_transform(x, NCHW -> NCHW16c)
 *   z = R.nn.relu(y)           ==>     wb = R.layout_transform(w, OIHW -> OIHW16i16o)
 *   R.output(z)                        yb = R.nn.conv2d(xb, wb, data_layout="NCHW16c", ...)
 *                                      zb = R.nn.relu(yb)
 *                                      z = R.layout_transform(zb, NCHW16c -> NCHW)
 *
 * In dataflow blocks, a float32 NCHW/OIHW conv2d (groups 1, input and output
 * channels multiples of 16) becomes a blocked one; activations stay blocked
 * through layout-agnostic operators (element-wise unary ones, broadcasting
 * binary ones with a blocked tensor, a scalar or a per-channel (1, C, 1, 1)
 * operand, max_pool2d / avg_pool2d, concat along the channels); every
 * rewritten binding keeps its NCHW variable, bound to the inverse
 * transform, for the consumers that need NCHW: those nobody reads are
 * removed at the end.  A transform of a transform that undoes it is the
 * original tensor (back-to-back inverse pairs cancel).  Constant weights
 * and biases are laid out here, at compile time (TVM folds them after).
 *
 * Off unless rx_set_convert_layout(true) (the tools' --convert-layout): on
 * ResNet-18 it is not faster than the NCHW conv2d schedule (docs/graph.md
 * has the numbers). */
#include "ir/transform/relax_pass_util.h"
#include "ir/transform/xform_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/host_cpu.h"
#include "ir/relax_op.h"
#include "base/util.h"

#define BLOCK 16

static bool enabled;

void rx_set_convert_layout(bool on) { enabled = on; }

static const char *const to_blocked = "lambda n, c, h, w: (n, c // 16, h, w, c % 16)";
static const char *const from_blocked = "lambda n, c, h, w, cb: (n, c * 16 + cb, h, w)";
static const char *const kernel_blocked = "lambda o, i, h, w: (o // 16, i // 16, h, w, i % 16, o % 16)";

typedef struct Ctx {
  IrHeap *h;
  IrPtrMap blocked; /* NCHW var -> its blocked var */
  IrPtrMap lt_src;  /* var bound to R.layout_transform(src) -> that call */
  IrPtrMap subst;   /* var -> the var it is (a cancelled pair) */
  RxuBindings *out;
  bool changed;
} Ctx;

static bool const_shape(const RxSInfo *s, int nd, int64_t *v) {
  if (!s || s->kind != RX_SI_TENSOR || s->ndim != nd || !s->shape || !dt_eq(s->dtype, dt_float32)) return false;
  for (int i = 0; i < nd; i++)
    if (!tir_is_const_int(s->shape[i], &v[i])) return false;
  return true;
}

/* The struct info of an NCHW tensor in NCHW16c. */
static RxSInfo *blocked_sinfo(IrHeap *h, const RxSInfo *s) {
  TirExpr *d[5];
  int64_t v[4];
  const_shape(s, 4, v);
  for (int i = 0; i < 4; i++) d[i] = tir_int(h, dt_int64, i == 1 ? v[1] / BLOCK : v[i]);
  d[4] = tir_int(h, dt_int64, BLOCK);
  return rx_sinfo_tensor(h, d, 5, s->dtype);
}

static RxExpr *emit(Ctx *c, const char *base, const char *suffix, RxSInfo *si, RxExpr *value, Span sp) {
  char name[128];
  snprintf(name, sizeof name, "%s%s", base, suffix);
  RxExpr *v = rx_var(c->h, name, si, true);
  value->sinfo = si;
  rxu_bindings_push(c->out, (RxBinding){v, value, NULL, sp});
  return v;
}

static RxExpr *layout_call(Ctx *c, RxExpr *x, const char *map) {
  IrValue *a = irv_dict_set(c->h, NULL, "index_map", irv_str(c->h, map));
  a = irv_dict_set(c->h, a, "pad_value", irv_none(c->h));
  a = irv_dict_set(c->h, a, "axis_separators", irv_none(c->h));
  a = irv_dict_set(c->h, a, "input_axis_separators", irv_none(c->h));
  return rx_call(c->h, rx_op_info(RX_OP_LAYOUT_TRANSFORM), &x, 1, a, NULL, 0, NULL);
}

static const char *var_name(const RxExpr *v) { return v->kind == RX_CONST ? "w" : v->var.name; }

/* A constant laid out by index map text now (weights and biases: no fold-size limit). */
static RxExpr *transform_const(Ctx *c, const RxExpr *k, const char *map) {
  RxIndexMap m;
  StrBuf err;
  sb_init(&err);
  bool ok = rx_index_map_parse(map, &m, &err);
  sb_free(&err);
  if (!ok || m.nin != k->cnst.ndim || m.nout > RX_LAYOUT_MAX) return NULL;
  int64_t shape[RX_LAYOUT_MAX], n = 1;
  for (int i = 0; i < m.nout; i++) {
    const RxIndexMapEntry *e = &m.out[i];
    int64_t d = k->cnst.shape[e->v];
    shape[i] = e->kind == RX_IM_VAR ? d : e->kind == RX_IM_DIV ? d / e->k : e->kind == RX_IM_MOD ? e->k : d * e->k;
    n *= shape[i];
  }
  size_t esz = dt_bytes(k->cnst.dtype);
  unsigned char *out = xmalloc((size_t)n * esz + 1);
  int64_t oi[RX_LAYOUT_MAX] = {0}, in[RX_LAYOUT_MAX];
  for (int64_t f = 0; f < n; f++) {
    rx_index_map_inverse(&m, oi, in);
    int64_t src = 0;
    for (int d = 0; d < k->cnst.ndim; d++) src = src * k->cnst.shape[d] + in[d];
    memcpy(out + (size_t)f * esz, (const unsigned char *)k->cnst.data + (size_t)src * esz, esz);
    for (int d = m.nout - 1; d >= 0 && ++oi[d] == shape[d]; d--) oi[d] = 0;
  }
  RxExpr *r = rx_const(c->h, k->cnst.dtype, shape, m.nout, out);
  free(out);
  return r;
}

/* x in NCHW16c: its blocked var, or a new transform of it. */
static RxExpr *to_block(Ctx *c, RxExpr *x, Span sp) {
  RxExpr *b = ir_ptrmap_get(&c->blocked, x);
  if (b) return b;
  if (x->kind == RX_CONST && (b = transform_const(c, x, to_blocked))) return b;
  b = emit(c, var_name(x), "_nchw16c", blocked_sinfo(c->h, x->sinfo), layout_call(c, x, to_blocked), sp);
  if (x->kind != RX_CONST) ir_ptrmap_put(&c->blocked, x, b);
  return b;
}

/* The blocked value vb stands for bd's NCHW var, which is bound back to it. */
static void bind_back(Ctx *c, const RxBinding *bd, RxExpr *vb) {
  ir_ptrmap_put(&c->blocked, bd->var, vb);
  RxExpr *back = layout_call(c, vb, from_blocked);
  back->sinfo = bd->var->sinfo;
  rxu_bindings_push(c->out, (RxBinding){bd->var, back, NULL, bd->span});
  c->changed = true;
}

static bool conv_candidate(const RxExpr *e) {
  const IrValue *a = e->call.attrs;
  int64_t xs[4], ws[4];
  return e->call.n == 2 && !strcmp(rx_attr_str(a, "data_layout", "NCHW"), "NCHW") &&
         !strcmp(rx_attr_str(a, "kernel_layout", "OIHW"), "OIHW") &&
         !strcmp(rx_attr_str(a, "out_layout", "NCHW"), "NCHW") && rx_attr_int(a, "groups", 1) == 1 &&
         dt_is_void(rx_attr_dtype(a, "out_dtype")) && const_shape(e->call.args[0]->sinfo, 4, xs) &&
         const_shape(e->call.args[1]->sinfo, 4, ws) && xs[1] % BLOCK == 0 && ws[0] % BLOCK == 0 &&
         const_shape(e->sinfo, 4, xs);
}

static void convert_conv(Ctx *c, const RxBinding *bd) {
  const RxExpr *e = bd->value;
  RxExpr *xb = to_block(c, e->call.args[0], bd->span);
  RxExpr *w = e->call.args[1], *wb = ir_ptrmap_get(&c->blocked, w);
  if (!wb && w->kind == RX_CONST) wb = transform_const(c, w, kernel_blocked);
  if (!wb) {
    int64_t ws[4];
    const_shape(w->sinfo, 4, ws);
    TirExpr *d[6];
    int64_t v[6] = {ws[0] / BLOCK, ws[1] / BLOCK, ws[2], ws[3], BLOCK, BLOCK};
    for (int i = 0; i < 6; i++) d[i] = tir_int(c->h, dt_int64, v[i]);
    wb = emit(c, var_name(w), "_oihw16i16o", rx_sinfo_tensor(c->h, d, 6, w->sinfo->dtype),
              layout_call(c, w, kernel_blocked), bd->span);
    if (w->kind != RX_CONST) ir_ptrmap_put(&c->blocked, w, wb);
  }
  IrValue *a = e->call.attrs;
  a = irv_dict_set(c->h, a, "data_layout", irv_str(c->h, "NCHW16c"));
  a = irv_dict_set(c->h, a, "kernel_layout", irv_str(c->h, "OIHW16i16o"));
  a = irv_dict_set(c->h, a, "out_layout", irv_str(c->h, "NCHW16c"));
  RxExpr *args[2] = {xb, wb};
  RxExpr *call = rx_call(c->h, e->call.op, args, 2, a, NULL, 0, NULL);
  bind_back(c, bd, emit(c, bd->var->var.name, "_nchw16c", blocked_sinfo(c->h, bd->var->sinfo), call, bd->span));
}

/* How an operand of a blocked binary op is had: 1 its blocked var, 2 a
 * scalar as it is, 3 a per-channel (1, C, 1, 1) tensor transformed; 0 none. */
static int operand_kind(Ctx *c, RxExpr *x, int64_t channels) {
  if (ir_ptrmap_get(&c->blocked, x)) return 1;
  const RxSInfo *s = x->sinfo;
  int64_t v[4];
  if (s && s->kind == RX_SI_TENSOR && s->ndim == 0) return 2;
  if (const_shape(s, 4, v) && v[0] == 1 && v[1] == channels && v[2] == 1 && v[3] == 1) return 3;
  return 0;
}

static bool same_shape(const RxSInfo *a, const RxSInfo *b) {
  int64_t x[4], y[4];
  return const_shape(a, 4, x) && const_shape(b, 4, y) && !memcmp(x, y, sizeof x);
}

/* Element-wise and broadcasting operators on blocked operands, else false. */
static bool convert_agnostic(Ctx *c, const RxBinding *bd) {
  const RxExpr *e = bd->value;
  const RxOpInfo *op = e->call.op;
  int64_t ys[4];
  if (!const_shape(bd->var->sinfo, 4, ys) || ys[1] % BLOCK) return false;
  RxExpr *args[2];
  if (op->pattern == RX_PAT_ELEMWISE && e->call.n == 1) {
    if (!(args[0] = ir_ptrmap_get(&c->blocked, e->call.args[0]))) return false;
  } else if (op->pattern == RX_PAT_BROADCAST && e->call.n == 2 && op->tir_binop >= 0) {
    int k[2];
    for (int i = 0; i < 2; i++) {
      k[i] = operand_kind(c, e->call.args[i], ys[1]);
      if (!k[i] || (k[i] == 1 && !same_shape(e->call.args[i]->sinfo, bd->var->sinfo))) return false;
    }
    if (k[0] != 1 && k[1] != 1) return false;
    for (int i = 0; i < 2; i++) args[i] = k[i] == 2 ? e->call.args[i] : to_block(c, e->call.args[i], bd->span);
  } else {
    return false;
  }
  RxExpr *call = rx_call(c->h, op, args, e->call.n, e->call.attrs, NULL, 0, NULL);
  bind_back(c, bd, emit(c, bd->var->var.name, "_nchw16c", blocked_sinfo(c->h, bd->var->sinfo), call, bd->span));
  return true;
}

/* max_pool2d / avg_pool2d of a blocked tensor: the same window in NCHW16c. */
static bool convert_pool(Ctx *c, const RxBinding *bd) {
  const RxExpr *e = bd->value;
  const IrValue *a = e->call.attrs;
  int64_t ys[4];
  RxExpr *xb = ir_ptrmap_get(&c->blocked, e->call.args[0]);
  if (!xb || !const_shape(bd->var->sinfo, 4, ys) || strcmp(rx_attr_str(a, "layout", "NCHW"), "NCHW") ||
      strcmp(rx_attr_str(a, "out_layout", "NCHW"), "NCHW"))
    return false;
  IrValue *na = irv_dict_set(c->h, a, "layout", irv_str(c->h, "NCHW16c"));
  na = irv_dict_set(c->h, na, "out_layout", irv_str(c->h, "NCHW16c"));
  RxExpr *call = rx_call(c->h, e->call.op, &xb, 1, na, NULL, 0, NULL);
  bind_back(c, bd, emit(c, bd->var->var.name, "_nchw16c", blocked_sinfo(c->h, bd->var->sinfo), call, bd->span));
  return true;
}

/* concat((a, b, ...), axis=1) of blocked tensors (each C a multiple of 16):
 * a concat of the blocked ones along their block axis. */
static bool convert_concat(Ctx *c, const RxBinding *bd) {
  const RxExpr *e = bd->value, *t = e->call.args[0];
  int64_t ys[4];
  if (t->kind != RX_TUPLE || t->tuple.n < 1 || t->tuple.n > 64 || !const_shape(bd->var->sinfo, 4, ys) ||
      rx_attr_int(e->call.attrs, "axis", 0) != 1)
    return false;
  RxExpr *f[64];
  RxSInfo *fs[64];
  for (int i = 0; i < t->tuple.n; i++)
    if (!(f[i] = ir_ptrmap_get(&c->blocked, t->tuple.fields[i]))) return false;
    else fs[i] = f[i]->sinfo;
  RxExpr *tb = rx_tuple(c->h, f, t->tuple.n);
  tb->sinfo = rx_sinfo_tuple(c->h, fs, t->tuple.n);
  RxExpr *call = rx_call(c->h, e->call.op, &tb, 1, e->call.attrs, NULL, 0, NULL);
  bind_back(c, bd, emit(c, bd->var->var.name, "_nchw16c", blocked_sinfo(c->h, bd->var->sinfo), call, bd->span));
  return true;
}

/* ------------------------------------------------------------ inverse pairs */

/* The forward image of index in under m. */
static void forward(const RxIndexMap *m, const int64_t *in, int64_t *out) {
  for (int i = 0; i < m->nout; i++) {
    const RxIndexMapEntry *e = &m->out[i];
    int64_t v = in[e->v];
    out[i] = e->kind == RX_IM_VAR ? v : e->kind == RX_IM_DIV ? v / e->k : e->kind == RX_IM_MOD ? v % e->k
                                                                  : v * e->k + in[e->u];
  }
}

/* Whether map2 after map1 is the identity on a tensor of shape dims: these
 * maps are exact on blocks, so every index is checked up to 4096 of them,
 * else a stride through them. */
static bool undoes(const char *t1, const char *t2, const RxSInfo *s) {
  RxIndexMap m1, m2;
  StrBuf err;
  sb_init(&err);
  bool ok = rx_index_map_parse(t1, &m1, &err) && rx_index_map_parse(t2, &m2, &err);
  sb_free(&err);
  int64_t dims[RX_LAYOUT_MAX], n = 1;
  if (!ok || m1.nout != m2.nin || m2.nout != m1.nin || !s || !s->shape || s->ndim != m1.nin) return false;
  for (int i = 0; i < s->ndim; i++) {
    if (!tir_is_const_int(s->shape[i], &dims[i])) return false;
    n *= dims[i];
  }
  int64_t step = n > 4096 ? n / 4096 + 1 : 1;
  for (int64_t f = 0; f < n; f += step) {
    int64_t idx[RX_LAYOUT_MAX], mid[RX_LAYOUT_MAX], back[RX_LAYOUT_MAX], r = f;
    for (int i = s->ndim - 1; i >= 0; i--) idx[i] = r % dims[i], r /= dims[i];
    forward(&m1, idx, mid);
    forward(&m2, mid, back);
    if (memcmp(idx, back, (size_t)s->ndim * sizeof *idx)) return false;
  }
  return true;
}

/* v = layout_transform(u) where u = layout_transform(z) and the two undo each
 * other: v is z. */
static bool cancel_pair(Ctx *c, const RxBinding *bd) {
  const RxExpr *e = bd->value;
  RxExpr *inner = ir_ptrmap_get(&c->lt_src, e->call.args[0]);
  if (!inner) {
    ir_ptrmap_put(&c->lt_src, bd->var, (void *)e);
    return false;
  }
  RxExpr *z = inner->call.args[0];
  if (!undoes(rx_attr_str(inner->call.attrs, "index_map", ""), rx_attr_str(e->call.attrs, "index_map", ""), z->sinfo) ||
      z->kind == RX_CONST || bd->var->kind != RX_DATAFLOW_VAR) {
    ir_ptrmap_put(&c->lt_src, bd->var, (void *)e);
    return false;
  }
  ir_ptrmap_put(&c->subst, bd->var, z);
  c->changed = true;
  return true;
}

/* ------------------------------------------------------------ the walk */

static void convert_binding(Ctx *c, RxBinding bd) {
  bd.value = rxu_subst(c->h, bd.value, &c->subst);
  const RxExpr *e = bd.value;
  if (e->kind == RX_CALL && e->call.op && !bd.cast_to) {
    RxOpId id = e->call.op->id;
    if (id == RX_OP_LAYOUT_TRANSFORM && cancel_pair(c, &bd)) return;
    if (id == RX_OP_NN_CONV2D && conv_candidate(e)) {
      convert_conv(c, &bd);
      return;
    }
    if ((id == RX_OP_NN_MAX_POOL2D || id == RX_OP_NN_AVG_POOL2D) && convert_pool(c, &bd)) return;
    if (id == RX_OP_CONCAT && convert_concat(c, &bd)) return;
    if (id != RX_OP_LAYOUT_TRANSFORM && convert_agnostic(c, &bd)) return;
  }
  rxu_bindings_push(c->out, bd);
}

static RxFunc *convert_func(void *ctx, IrHeap *h, const IrModule *m, RxFunc *f) {
  (void)ctx, (void)m;
  RxExpr *body = f->body;
  if (!body || body->kind != RX_SEQ) return f;
  Ctx c = {.h = h};
  ir_ptrmap_init(&c.blocked);
  ir_ptrmap_init(&c.lt_src);
  ir_ptrmap_init(&c.subst);
  RxuBlocks blocks = {0};
  RxuBindings cur = {0};
  c.out = &cur;
  for (int b = 0; b < body->seq.nblocks; b++) {
    const RxBlock *blk = &body->seq.blocks[b];
    for (int i = 0; i < blk->n; i++) {
      if (blk->is_dataflow) convert_binding(&c, blk->bindings[i]);
      else {
        RxBinding bd = blk->bindings[i];
        bd.value = rxu_subst(h, bd.value, &c.subst);
        rxu_bindings_push(&cur, bd);
      }
    }
    rxu_blocks_close(&blocks, &cur, blk->is_dataflow);
  }
  rxu_bindings_free(&cur);
  RxFunc *nf = f;
  if (c.changed) {
    RxExpr *seq = rxu_seq_from(h, body, &blocks, rxu_subst(h, body->seq.body, &c.subst));
    nf = rxu_with_body(h, f, rxu_remove_unused(h, seq));
  } else {
    rxu_blocks_free(&blocks);
  }
  ir_ptrmap_free(&c.blocked);
  ir_ptrmap_free(&c.lt_src);
  ir_ptrmap_free(&c.subst);
  return nf;
}

IrModule *rx_convert_layout(const IrModule *m, DiagCtx *diag, bool *changed) {
  if (changed) *changed = false;
  if (!enabled || !host_cpu_has_avx512()) return ir_module_copy(m);
  bool ch = false;
  IrModule *out = rxu_map_funcs(m, convert_func, NULL, &ch);
  if (!ch) return out;
  if (changed) *changed = true;
  /* the weights' transforms: constants folded now */
  IrModule *folded = rx_fold_constant(out, diag, NULL);
  ir_module_free(out);
  return folded;
}
