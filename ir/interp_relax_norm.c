/* interp_relax_norm.c - reference semantics of softmax, log_softmax and the
 * normalization operators (layer_norm, group_norm, batch_norm) for the graph
 * interpreter.
 *
 * Everything is computed in double over compact copies and rounded once to
 * the data's dtype.  softmax subtracts the row maximum first (as TOPI).  The
 * norms are written as one scheme: each element has a statistics key (the
 * group whose mean and variance normalize it: its position outside the
 * normalized axes) and a parameter index (where its gamma/beta are); the
 * variance is the biased one, as TOPI's. */
#include "ir/interp_internal.h"
#include "ir/relax_op.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define MAXD TVS_MAX_NDIM

static double to_f64(DType t, IScalar s) {
  if (dt_is_float(t)) return s.f;
  if (t.code == DT_UINT) return (double)s.u;
  return (double)s.i;
}

static bool next_index(int64_t *idx, const int64_t *shape, int nd) {
  for (int d = nd - 1; d >= 0; d--) {
    if (++idx[d] < shape[d]) return true;
    idx[d] = 0;
  }
  return false;
}

/* A compact double copy of t (caller frees). */
static double *load(const DLTensor *t) {
  int64_t n = tvs_ndarray_numel(t), idx[MAXD] = {0};
  double *d = xcalloc((size_t)(n ? n : 1), sizeof *d);
  DType dt = rx_interp_dtype(t->dtype);
  for (int64_t i = 0; i < n; i++, next_index(idx, t->shape, t->ndim)) d[i] = to_f64(dt, rx_interp_read(t, idx));
  return d;
}

/* A tensor shaped like t, dtype of t, holding v. */
static struct RxInterpVal *store(struct RxInterpCtx *c, const RxExpr *e, const DLTensor *t, const double *v) {
  TvsNDArray *r = tvs_ndarray_empty(t->ndim, t->shape, t->dtype);
  if (!r) {
    rx_interp_error(c, e->span, "R.%s: cannot allocate the result", e->call.op->script_name);
    return NULL;
  }
  DType dt = rx_interp_dtype(t->dtype);
  size_t esz = tvs_dtype_bytes(t->dtype);
  int64_t n = tvs_ndarray_numel(t);
  for (int64_t i = 0; i < n; i++)
    interp_write_elem(dt, (unsigned char *)r->t.data + (size_t)i * esz,
                      interp_cast_scalar(dt_float64, (IScalar){.f = v[i]}, dt));
  return rx_interp_tensor(r);
}

/* The call's operands as tensors (n of them); -1 after an error (released). */
static int tensor_operands(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **v, const DLTensor **t,
                           int n) {
  if (e->call.n != n) return rx_interp_error(c, e->span, "R.%s takes %d operands", e->call.op->script_name, n);
  if (rx_interp_operands(c, e, v)) return -1;
  for (int i = 0; i < n; i++)
    if (!(t[i] = rx_interp_as_tensor(v[i]))) {
      for (int k = 0; k < n; k++) rx_interp_release(v[k]);
      return rx_interp_error(c, e->span, "R.%s expects tensor operands", e->call.op->script_name);
    }
  return 0;
}

static void release_all(struct RxInterpVal **v, int n) {
  for (int i = 0; i < n; i++) rx_interp_release(v[i]);
}

static int norm_axis(int64_t a, int nd) { return (int)(a < 0 ? a + nd : a); }

/* ------------------------------------------------------------ softmax */

static void softmax_rows(double *x, int64_t outer, int64_t len, int64_t inner, bool log_form) {
  for (int64_t o = 0; o < outer; o++)
    for (int64_t in = 0; in < inner; in++) {
      double *p = x + o * len * inner + in, m = -INFINITY, s = 0;
      for (int64_t k = 0; k < len; k++) m = p[k * inner] > m ? p[k * inner] : m;
      for (int64_t k = 0; k < len; k++) s += exp(p[k * inner] - m);
      for (int64_t k = 0; k < len; k++)
        p[k * inner] = log_form ? p[k * inner] - m - log(s) : exp(p[k * inner] - m) / s;
    }
}

int rx_eval_softmax(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out) {
  struct RxInterpVal *v[1];
  const DLTensor *t[1];
  if (tensor_operands(c, e, v, t, 1)) return -1;
  const DLTensor *x = t[0];
  int axis = norm_axis(rx_attr_int(e->call.attrs, "axis", -1), x->ndim);
  if (axis < 0 || axis >= x->ndim) {
    release_all(v, 1);
    return rx_interp_error(c, e->span, "R.%s: axis out of range", e->call.op->script_name);
  }
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; d++) outer *= x->shape[d];
  for (int d = axis + 1; d < x->ndim; d++) inner *= x->shape[d];
  double *d = load(x);
  softmax_rows(d, outer, x->shape[axis], inner, e->call.op->id == RX_OP_NN_LOG_SOFTMAX);
  *out = store(c, e, x, d);
  free(d);
  release_all(v, 1);
  return *out ? 0 : -1;
}

/* ------------------------------------------------------------ the norm scheme */

typedef struct NormPlan {
  int64_t n, nkeys;  /* elements, statistics groups */
  int64_t *key;      /* per element: its statistics group */
  int64_t *param;    /* per element: its gamma/beta index */
  double *mean, *var;
} NormPlan;

static void plan_free(NormPlan *p) {
  free(p->key);
  free(p->param);
  free(p->mean);
  free(p->var);
}

/* Mean and biased variance of each group (two passes, in double). */
static void plan_stats(NormPlan *p, const double *x) {
  double *cnt = xcalloc((size_t)(p->nkeys ? p->nkeys : 1), sizeof *cnt);
  p->mean = xcalloc((size_t)(p->nkeys ? p->nkeys : 1), sizeof *p->mean);
  p->var = xcalloc((size_t)(p->nkeys ? p->nkeys : 1), sizeof *p->var);
  for (int64_t i = 0; i < p->n; i++) p->mean[p->key[i]] += x[i], cnt[p->key[i]] += 1;
  for (int64_t k = 0; k < p->nkeys; k++) p->mean[k] /= cnt[k] ? cnt[k] : 1;
  for (int64_t i = 0; i < p->n; i++) {
    double d = x[i] - p->mean[p->key[i]];
    p->var[p->key[i]] += d * d;
  }
  for (int64_t k = 0; k < p->nkeys; k++) p->var[k] /= cnt[k] ? cnt[k] : 1;
  free(cnt);
}

/* x normalized in place by the plan's statistics, then gamma/beta (NULL = skipped). */
static void plan_apply(const NormPlan *p, double *x, const double *gamma, const double *beta, double eps) {
  for (int64_t i = 0; i < p->n; i++) {
    int64_t k = p->key[i], j = p->param[i];
    double y = (x[i] - p->mean[k]) / sqrt(p->var[k] + eps);
    if (gamma) y *= gamma[j];
    if (beta) y += beta[j];
    x[i] = y;
  }
}

/* Keys and parameter indices: a dim in `red` is normalized over (it indexes the
 * parameters in `order`), the others make the key; group_norm's channel dim
 * (ch >= 0, in neither) contributes its group to the key and its index to the
 * parameters. */
static void plan_index(NormPlan *p, const DLTensor *x, const bool *red, const int *order, int nred, int ch,
                       int64_t groups) {
  p->n = tvs_ndarray_numel(x);
  p->key = xcalloc((size_t)(p->n ? p->n : 1), sizeof *p->key);
  p->param = xcalloc((size_t)(p->n ? p->n : 1), sizeof *p->param);
  p->nkeys = 1;
  for (int d = 0; d < x->ndim; d++)
    if (!red[d]) p->nkeys *= d == ch ? groups : x->shape[d];
  int64_t idx[MAXD] = {0};
  for (int64_t i = 0; i < p->n; i++, next_index(idx, x->shape, x->ndim)) {
    int64_t k = 0, j = 0;
    for (int d = 0; d < x->ndim; d++)
      if (d == ch) k = k * groups + idx[d] / (x->shape[d] / groups);
      else if (!red[d]) k = k * x->shape[d] + idx[d];
    for (int r = 0; r < nred; r++) j = j * x->shape[order[r]] + idx[order[r]];
    if (ch >= 0) j = idx[ch];
    p->key[i] = k;
    p->param[i] = j;
  }
}

/* data, gamma, beta -> the normalized tensor by plan p. */
static int run_norm(struct RxInterpCtx *c, const RxExpr *e, const DLTensor **t, NormPlan *p,
                    struct RxInterpVal **out) {
  double *x = load(t[0]), *g = load(t[1]), *b = load(t[2]);
  plan_stats(p, x);
  const IrValue *at = e->call.attrs;
  plan_apply(p, x, rx_attr_bool(at, "scale", true) ? g : NULL, rx_attr_bool(at, "center", true) ? b : NULL,
             rx_attr_float(at, "epsilon", 1e-5));
  *out = store(c, e, t[0], x);
  free(x);
  free(g);
  free(b);
  return *out ? 0 : -1;
}

int rx_eval_layer_norm(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out) {
  struct RxInterpVal *v[3];
  const DLTensor *t[3];
  if (tensor_operands(c, e, v, t, 3)) return -1;
  int64_t axes[MAXD];
  int na = rx_attr_ints(e->call.attrs, "axes", axes, MAXD);
  bool red[MAXD] = {false};
  int order[MAXD];
  for (int i = 0; i < na && i < MAXD; i++) {
    order[i] = norm_axis(axes[i], t[0]->ndim);
    if (order[i] >= 0 && order[i] < t[0]->ndim) red[order[i]] = true;
  }
  NormPlan p = {0};
  plan_index(&p, t[0], red, order, na < 0 ? 0 : na, -1, 1);
  int rc = run_norm(c, e, t, &p, out);
  plan_free(&p);
  release_all(v, 3);
  return rc;
}

int rx_eval_group_norm(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out) {
  struct RxInterpVal *v[3];
  const DLTensor *t[3];
  if (tensor_operands(c, e, v, t, 3)) return -1;
  const IrValue *at = e->call.attrs;
  int ch = norm_axis(rx_attr_int(at, "channel_axis", 1), t[0]->ndim);
  int64_t groups = rx_attr_int(at, "num_groups", 1), axes[MAXD];
  int na = rx_attr_ints(at, "axes", axes, MAXD);
  bool red[MAXD] = {false};
  for (int i = 0; i < na && i < MAXD; i++) red[norm_axis(axes[i], t[0]->ndim)] = true;
  if (ch < 0 || ch >= t[0]->ndim || groups <= 0 || t[0]->shape[ch] % groups) {
    release_all(v, 3);
    return rx_interp_error(c, e->span, "R.nn.group_norm: bad channel_axis or num_groups");
  }
  NormPlan p = {0};
  plan_index(&p, t[0], red, NULL, 0, ch, groups);
  int rc = run_norm(c, e, t, &p, out);
  plan_free(&p);
  release_all(v, 3);
  return rc;
}

/* ------------------------------------------------------------ batch_norm */

/* (out, new moving_mean, new moving_var) of data t[0] by the call's attributes. */
static int batch_norm(struct RxInterpCtx *c, const RxExpr *e, const DLTensor **t, struct RxInterpVal **out) {
  const IrValue *at = e->call.attrs;
  int axis = norm_axis(rx_attr_int(at, "axis", 1), t[0]->ndim);
  if (axis < 0 || axis >= t[0]->ndim) return rx_interp_error(c, e->span, "R.nn.batch_norm: axis out of range");
  bool training = rx_attr_bool(at, "training", true);
  double mom = rx_attr_float(at, "momentum", 0.1);
  bool red[MAXD];
  for (int d = 0; d < MAXD; d++) red[d] = d != axis;
  NormPlan p = {0};
  plan_index(&p, t[0], red, NULL, 0, -1, 1);
  for (int64_t i = 0; i < p.n; i++) p.param[i] = p.key[i];
  double *x = load(t[0]), *g = load(t[1]), *b = load(t[2]), *mm = load(t[3]), *mv = load(t[4]);
  int64_t C = t[0]->shape[axis];
  if (training) {
    plan_stats(&p, x);
    for (int64_t k = 0; k < C; k++) {
      mm[k] = (1 - mom) * mm[k] + mom * p.mean[k];
      mv[k] = (1 - mom) * mv[k] + mom * p.var[k];
    }
  } else {
    p.mean = xcalloc((size_t)(C ? C : 1), sizeof *p.mean);
    p.var = xcalloc((size_t)(C ? C : 1), sizeof *p.var);
    memcpy(p.mean, mm, (size_t)C * sizeof *mm);
    memcpy(p.var, mv, (size_t)C * sizeof *mv);
  }
  plan_apply(&p, x, rx_attr_bool(at, "scale", true) ? g : NULL, rx_attr_bool(at, "center", true) ? b : NULL,
             rx_attr_float(at, "epsilon", 1e-5));
  struct RxInterpVal *f[3] = {store(c, e, t[0], x), store(c, e, t[3], mm), store(c, e, t[4], mv)};
  int rc = f[0] && f[1] && f[2] ? 0 : -1;
  if (rc == 0) *out = rx_interp_tuple(f, 3);
  else release_all(f, 3);
  free(x), free(g), free(b), free(mm), free(mv);
  plan_free(&p);
  return rc;
}

int rx_eval_batch_norm(struct RxInterpCtx *c, const RxExpr *e, struct RxInterpVal **out) {
  struct RxInterpVal *v[5];
  const DLTensor *t[5];
  if (tensor_operands(c, e, v, t, 5)) return -1;
  int rc = batch_norm(c, e, t, out);
  release_all(v, 5);
  return rc;
}
