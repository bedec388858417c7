/* npu_find_conv2d.c - recognising the int8 conv2d the NPU backend runs:
 * TOPI's conv2d_nchw as legalization generates it (stdlib/nn/conv2d.tvs),
 * an optional padding block (pad_temp = T.if_then_else(in bounds,
 * A[n, c, y - top, x - left], 0)), the reduction
 * out[n, f, y, x] += int32(pad_temp[n, c, y*s + ky, x*s + kx]) * int32(W[f, c, ky, kx])
 * and an optional fused epilogue (relu, requantization) on the ALU. */
#include <string.h>

#include "codegen/npu.h"
#include "ir/visit.h"

typedef struct ConvFinder {
  int nstores;
  const TirStmt *stores[NPU_MAX_STORES];
  int vthreads;             /* extent of a loop bound to "vthread" */
} ConvFinder;

static bool pre_stmt(TirVisitor *v, const TirStmt *s) {
  ConvFinder *cf = v->ctx;
  if (s->kind == TIR_S_STORE) {
    if (cf->nstores < NPU_MAX_STORES) cf->stores[cf->nstores] = s;
    cf->nstores++;
  }
  if (s->kind == TIR_S_FOR && s->loop.kind == TIR_FOR_THREAD_BINDING && s->loop.thread_tag &&
      !strncmp(s->loop.thread_tag, "vthread", 7) && s->loop.extent->kind == TIR_INT)
    cf->vthreads = (int)s->loop.extent->ival;
  return true;
}

static int param_of(const TirFunc *f, const TirBuffer *b) {
  for (int i = 0; i < f->nparams; i++)
    if (f->buffer_map[i] == b) return i;
  return -1;
}

static bool is_var(const TirExpr *e, const TirVar **v) {
  if (e->kind != TIR_VAR) return false;
  *v = e->var;
  return true;
}

static bool dims4(const TirBuffer *b, int64_t d[4]) {
  if (b->ndim != 4) return false;
  for (int i = 0; i < 4; i++) {
    if (b->shape[i]->kind != TIR_INT || b->shape[i]->ival <= 0) return false;
    d[i] = b->shape[i]->ival;
  }
  return true;
}

/* e = y*s + k, or y + k (s = 1): the output var, the stride, the kernel var. */
static bool strided(const TirExpr *e, const TirVar **y, int64_t *s, const TirVar **k) {
  if (e->kind != TIR_ADD) return false;
  const TirExpr *a = e->bin.a, *b = e->bin.b;
  if (b->kind == TIR_MUL) a = e->bin.b, b = e->bin.a;
  if (!is_var(b, k)) return false;
  if (is_var(a, y)) {
    *s = 1;
    return true;
  }
  return a->kind == TIR_MUL && is_var(a->bin.a, y) && a->bin.b->kind == TIR_INT && (*s = a->bin.b->ival) > 0;
}

/* e = var - off (or var, off = 0). */
static bool offset_of(const TirExpr *e, const TirVar *var, int64_t *off) {
  if (e->kind == TIR_VAR && e->var == var) return *off = 0, true;
  return e->kind == TIR_SUB && e->bin.a->kind == TIR_VAR && e->bin.a->var == var && e->bin.b->kind == TIR_INT &&
         (*off = e->bin.b->ival) >= 0;
}

/* The padding store: P[n, c, y, x] = if_then_else(.., A[n, c, y - top, x - left], 0),
 * or P[n, c, y, x] = A[n, c, y, x] where the padding is 0. */
static bool match_pad(const TirFunc *f, const TirStmt *s, const TirBuffer *p, NpuConv2d *cv) {
  const TirExpr *v = s->store.value, *a = v;
  if (s->store.buf != p || s->store.n != 4) return false;
  if (v->kind == TIR_CALL && v->call.op->id == TIR_OP_IF_THEN_ELSE) {
    const TirExpr *z = v->call.args[2];
    if (z->kind != TIR_INT || z->ival != 0) return false;
    a = v->call.args[1];
  } /* else padding by 0 specialized into a copy */
  if (a->kind != TIR_LOAD || a->load.n != 4) return false;
  cv->a_param = param_of(f, a->load.buf);
  const TirVar *iv[4];
  for (int i = 0; i < 4; i++)
    if (!is_var(s->store.idx[i], &iv[i])) return false;
  int64_t o0, o1;
  if (!offset_of(a->load.idx[0], iv[0], &o0) || !offset_of(a->load.idx[1], iv[1], &o1) || o0 || o1) return false;
  return offset_of(a->load.idx[2], iv[2], &cv->pad_top) && offset_of(a->load.idx[3], iv[3], &cv->pad_left);
}

/* The reduction's roles: out[n, f, y, x] += int32(P[n, c, y*s+ky, x*s+kx]) * int32(W[f, c, ky, kx]). */
static bool match_update(const TirStmt *s, const TirExpr **pin, const TirExpr **pw, int64_t *stride) {
  const TirExpr *v = s->store.value;
  if (s->store.n != 4 || v->kind != TIR_ADD || !dt_eq(s->store.buf->dtype, dt_int32)) return false;
  const TirExpr *acc = v->bin.a, *mul = v->bin.b;
  if (acc->kind != TIR_LOAD) acc = v->bin.b, mul = v->bin.a;
  if (acc->kind != TIR_LOAD || acc->load.buf != s->store.buf || mul->kind != TIR_MUL) return false;
  const TirExpr *x = mul->bin.a, *w = mul->bin.b;
  if (x->kind != TIR_CAST || w->kind != TIR_CAST) return false;
  x = x->un.a, w = w->un.a;
  if (x->kind != TIR_LOAD || w->kind != TIR_LOAD || x->load.n != 4 || w->load.n != 4) return false;
  if (!dt_eq(x->dtype, dt_int8) || !dt_eq(w->dtype, dt_int8)) return false;
  const TirVar *o[4], *c, *wf, *wc, *ky, *kx, *y1, *x1, *k1, *k2;
  for (int i = 0; i < 4; i++)
    if (!is_var(s->store.idx[i], &o[i])) return false;
  int64_t sy, sx;
  if (!is_var(x->load.idx[0], &c) || c != o[0] || !is_var(x->load.idx[1], &c)) return false;
  if (!strided(x->load.idx[2], &y1, &sy, &k1) || !strided(x->load.idx[3], &x1, &sx, &k2)) return false;
  if (y1 != o[2] || x1 != o[3] || sy != sx) return false;
  if (!is_var(w->load.idx[0], &wf) || !is_var(w->load.idx[1], &wc) || !is_var(w->load.idx[2], &ky) ||
      !is_var(w->load.idx[3], &kx))
    return false;
  if (wf != o[1] || wc != c || ky != k1 || kx != k2) return false;
  *pin = x, *pw = w, *stride = sy;
  return true;
}

/* Sizes from the params, padding from the output size. */
static bool fill_sizes(const TirFunc *f, NpuConv2d *cv) {
  int64_t a[4], w[4], o[4];
  if (cv->a_param < 0 || cv->w_param < 0 || cv->out_param < 0) return false;
  const TirBuffer *ab = f->buffer_map[cv->a_param], *wb = f->buffer_map[cv->w_param], *ob = f->buffer_map[cv->out_param];
  if (!dims4(ab, a) || !dims4(wb, w) || !dims4(ob, o) || !dt_eq(ab->dtype, dt_int8) || !dt_eq(wb->dtype, dt_int8) ||
      !dt_eq(ob->dtype, cv->out_int8 ? dt_int8 : dt_int32))
    return false;
  cv->n = a[0], cv->c = a[1], cv->h = a[2], cv->w = a[3];
  cv->o = w[0], cv->kh = w[2], cv->kw = w[3];
  cv->oh = o[2], cv->ow = o[3];
  /* What the last output row/column reads past the image (rows it never
   * reads need no padding). */
  cv->pad_bottom = (cv->oh - 1) * cv->stride + cv->kh - cv->h - cv->pad_top;
  cv->pad_right = (cv->ow - 1) * cv->stride + cv->kw - cv->w - cv->pad_left;
  if (cv->pad_bottom < 0) cv->pad_bottom = 0;
  if (cv->pad_right < 0) cv->pad_right = 0;
  return w[1] == a[1] && o[0] == a[0] && o[1] == w[0] && cv->pad_top < cv->kh && cv->pad_left < cv->kw &&
         cv->pad_bottom < cv->kh && cv->pad_right < cv->kw && cv->pad_top < cv->h && cv->pad_bottom < cv->h;
}

bool cg_npu_find_conv2d(const TirFunc *f, NpuConv2d *cv) {
  ConvFinder cf = {.vthreads = 1};
  TirVisitor v = {.pre_stmt = pre_stmt, .ctx = &cf};
  tir_visit_func(&v, f);
  memset(cv, 0, sizeof *cv);
  if (tir_find_stepped_loop(f->body)) return false; /* not the pattern; the matmul finder says why */
  cv->vthreads = cf.vthreads < 1 || cf.vthreads > 4 ? 1 : cf.vthreads;
  const TirStmt *upd = NULL;
  const TirExpr *x = NULL, *w = NULL;
  if (cf.nstores > NPU_MAX_STORES) return false;
  for (int i = 0; i < cf.nstores; i++)
    if (match_update(cf.stores[i], &x, &w, &cv->stride)) upd = cf.stores[i];
  if (!upd) return false;
  cv->out_param = param_of(f, upd->store.buf);
  cv->w_param = param_of(f, w->load.buf);
  cv->a_param = param_of(f, x->load.buf);
  /* The other stores: the init, the padding (of the buffer the update
   * reads) and a fused epilogue chain from the update's buffer to a param. */
  const TirStmt *rest[NPU_MAX_STORES];
  int nrest = 0;
  for (int i = 0; i < cf.nstores; i++) {
    const TirStmt *st = cf.stores[i];
    if (st->store.buf == upd->store.buf) continue;
    if (st->store.buf != x->load.buf) rest[nrest++] = st;
    else if (cv->a_param >= 0 || !match_pad(f, st, x->load.buf, cv)) return false;
  }
  if (nrest > 0) {
    if (cv->out_param >= 0) return false;
    const TirBuffer *out = cg_npu_match_epilogue(rest, nrest, upd->store.buf, cv->alu, &cv->nalu, &cv->out_int8);
    cv->out_param = out ? param_of(f, out) : -1;
  }
  if (cv->out_param < 0 || cv->a_param < 0) return false;
  if (!cv->out_int8 && !dt_eq(f->buffer_map[cv->out_param]->dtype, dt_int32)) return false;
  return fill_sizes(f, cv);
}
