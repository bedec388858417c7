/* relax_op_norm.c - attribute schemas and struct-info inference of the
 * normalization operators: nn.layer_norm, nn.group_norm, nn.batch_norm.
 *
 * As TVM v0.23: data is a float tensor of known rank; gamma/beta (and
 * batch_norm's moving stats) share its dtype; layer_norm's gamma/beta are
 * shaped like data's normalized axes; group_norm's are (C,) with C divisible
 * by num_groups; batch_norm returns (out, moving_mean, moving_var). */
#include "ir/relax_op.h"

#include <string.h>

static const RxAttrSpec layer_norm_specs[] = {
    {"axes", RX_ATTR_INTS, NULL, 3, 0},
    {"epsilon", RX_ATTR_FLOAT, "1e-05", 4, 0},
    {"center", RX_ATTR_BOOL, "True", 5, 0},
    {"scale", RX_ATTR_BOOL, "True", 6, 0},
};
static const RxAttrSpec group_norm_specs[] = {
    {"num_groups", RX_ATTR_INT, NULL, 3, 0},
    {"channel_axis", RX_ATTR_INT, NULL, 4, 0},
    {"axes", RX_ATTR_INTS, NULL, 5, 0},
    {"epsilon", RX_ATTR_FLOAT, "1e-05", 6, 0},
    {"center", RX_ATTR_BOOL, "True", 7, 0},
    {"scale", RX_ATTR_BOOL, "True", 8, 0},
};
static const RxAttrSpec batch_norm_specs[] = {
    {"axis", RX_ATTR_INT, "1", 5, 0},
    {"epsilon", RX_ATTR_FLOAT, "1e-05", 6, 0},
    {"center", RX_ATTR_BOOL, "True", 7, 0},
    {"scale", RX_ATTR_BOOL, "True", 8, 0},
    {"momentum", RX_ATTR_FLOAT, "0.1", 9, 0},
    {"training", RX_ATTR_BOOL, "True", 10, 0},
};
const RxAttrSchema rx_attrs_layer_norm[1] = {{false, true, layer_norm_specs, 4}};
const RxAttrSchema rx_attrs_group_norm[1] = {{false, true, group_norm_specs, 6}};
const RxAttrSchema rx_attrs_batch_norm[1] = {{false, true, batch_norm_specs, 6}};

#define MAXD 16

static const char *dims_text(const RxInferCall *q, const RxSInfo *s) {
  StrBuf sb;
  sb_init(&sb);
  rx_sinfo_str(&sb, s);
  const char *r = arena_strdup(q->scratch, sb.data);
  sb_free(&sb);
  return r;
}

/* The operands as tensors of data's dtype; data float of known rank.  NULL
 * entries: only known as R.Object.  False after an error. */
static bool norm_operands(const RxInferCall *q, const RxSInfo **s, const char *const *names) {
  for (int i = 0; i < q->n; i++) {
    s[i] = q->args[i];
    if (s[i] && s[i]->kind == RX_SI_OBJECT) {
      s[i] = NULL;
      continue;
    }
    if (!s[i] || s[i]->kind != RX_SI_TENSOR) {
      diag_error(q->diag, q->arg_spans[i], "R.%s expects %s to be a tensor, got %s", q->op->script_name,
                 names[i], s[i] ? dims_text(q, s[i]) : "nothing");
      return false;
    }
  }
  const RxSInfo *d = s[0];
  if (!d) return true;
  char b1[DT_STR_MAX], b2[DT_STR_MAX];
  if (!dt_is_void(d->dtype) && !dt_is_float(d->dtype)) {
    diag_error(q->diag, q->arg_spans[0], "R.%s requires float data, got dtype '%s'", q->op->script_name,
               dt_str(d->dtype, b1));
    return false;
  }
  for (int i = 1; i < q->n; i++)
    if (s[i] && !dt_is_void(s[i]->dtype) && !dt_is_void(d->dtype) && !dt_eq(s[i]->dtype, d->dtype)) {
      diag_error(q->diag, q->arg_spans[i], "R.%s: %s has dtype '%s' but data has '%s'", q->op->script_name,
                 names[i], dt_str(s[i]->dtype, b1), dt_str(d->dtype, b2));
      return false;
    }
  return true;
}

/* Normalizes axis (negative counts from the end); false after an error. */
static bool norm_axis(const RxInferCall *q, const char *what, int64_t *axis, int ndim) {
  if (*axis < -ndim || *axis >= ndim) {
    diag_error(q->diag, q->span, "R.%s: %s %lld is out of range for a %d-d tensor", q->op->script_name, what,
               (long long)*axis, ndim);
    return false;
  }
  if (*axis < 0) *axis += ndim;
  return true;
}

/* Operand i must be 1-d of size dim (the channel count). */
static bool check_channel_vec(const RxInferCall *q, const RxSInfo *s, int i, const char *name, TirExpr *dim) {
  if (!s || s->ndim < 0) return true;
  if (s->ndim != 1 || (s->shape && !rx_dim_may_eq(s->shape[0], dim))) {
    StrBuf sb;
    sb_init(&sb);
    rx_shape_str(&sb, &dim, 1);
    diag_error(q->diag, q->arg_spans[i], "R.%s: %s must have shape %s (the channel axis), got %s",
               q->op->script_name, name, sb.data, dims_text(q, s));
    sb_free(&sb);
    return false;
  }
  return true;
}

static RxSInfo *same(const RxInferCall *q, const RxSInfo *d) {
  return d ? rx_sinfo_tensor(q->h, d->shape, d->ndim, d->dtype) : rx_sinfo_tensor(q->h, NULL, -1, dt_void);
}

RxSInfo *rx_infer_layer_norm(const RxInferCall *q) {
  static const char *const names[] = {"data", "gamma", "beta"};
  const RxSInfo *s[3];
  if (!norm_operands(q, s, names)) return NULL;
  const RxSInfo *d = s[0];
  if (!d || d->ndim < 0) return same(q, d);
  int64_t axes[MAXD];
  int na = rx_attr_ints(q->attrs, "axes", axes, MAXD);
  if (na <= 0 || na > d->ndim) {
    diag_error(q->diag, q->span, "R.nn.layer_norm: needs 1 to %d axes, got %d", d->ndim, na < 0 ? 0 : na);
    return NULL;
  }
  for (int i = 0; i < na; i++)
    if (!norm_axis(q, "axis", &axes[i], d->ndim)) return NULL;
  for (int i = 1; i < 3; i++) {
    const RxSInfo *g = s[i];
    if (!g || g->ndim < 0) continue;
    bool ok = g->ndim == na;
    for (int k = 0; ok && k < na && g->shape && d->shape; k++) ok = rx_dim_may_eq(g->shape[k], d->shape[axes[k]]);
    if (!ok) {
      TirExpr *want[MAXD];
      for (int k = 0; k < na; k++) want[k] = d->shape ? d->shape[axes[k]] : NULL;
      StrBuf sb;
      sb_init(&sb);
      if (d->shape) rx_shape_str(&sb, want, na);
      else sb_printf(&sb, "%d dims", na);
      diag_error(q->diag, q->arg_spans[i], "R.nn.layer_norm: %s must have shape %s (the normalized axes of data %s), "
                 "got %s", names[i], sb.data, dims_text(q, d), dims_text(q, g));
      sb_free(&sb);
      return NULL;
    }
  }
  return same(q, d);
}

RxSInfo *rx_infer_group_norm(const RxInferCall *q) {
  static const char *const names[] = {"data", "gamma", "beta"};
  const RxSInfo *s[3];
  if (!norm_operands(q, s, names)) return NULL;
  const RxSInfo *d = s[0];
  if (!d || d->ndim < 0) return same(q, d);
  int64_t ch = rx_attr_int(q->attrs, "channel_axis", 1), groups = rx_attr_int(q->attrs, "num_groups", 1);
  if (!norm_axis(q, "channel_axis", &ch, d->ndim)) return NULL;
  int64_t axes[MAXD];
  int na = rx_attr_ints(q->attrs, "axes", axes, MAXD);
  for (int i = 0; i < na && i < MAXD; i++) {
    if (!norm_axis(q, "axis", &axes[i], d->ndim)) return NULL;
    if (axes[i] == ch) {
      diag_error(q->diag, q->span, "R.nn.group_norm: channel_axis %lld must not be one of the axes",
                 (long long)ch);
      return NULL;
    }
  }
  int64_t c;
  if (groups <= 0) {
    diag_error(q->diag, q->span, "R.nn.group_norm: num_groups must be positive, got %lld", (long long)groups);
    return NULL;
  }
  if (d->shape && tir_is_const_int(d->shape[ch], &c) && c % groups != 0) {
    diag_error(q->diag, q->span, "R.nn.group_norm: num_groups %lld does not divide the %lld channels of data %s",
               (long long)groups, (long long)c, dims_text(q, d));
    return NULL;
  }
  for (int i = 1; i < 3 && d->shape; i++)
    if (!check_channel_vec(q, s[i], i, names[i], d->shape[ch])) return NULL;
  return same(q, d);
}

RxSInfo *rx_infer_batch_norm(const RxInferCall *q) {
  static const char *const names[] = {"data", "gamma", "beta", "moving_mean", "moving_var"};
  const RxSInfo *s[5];
  if (!norm_operands(q, s, names)) return NULL;
  const RxSInfo *d = s[0];
  RxSInfo *f[3] = {same(q, d), NULL, NULL};
  if (d && d->ndim >= 0) {
    int64_t axis = rx_attr_int(q->attrs, "axis", 1);
    if (!norm_axis(q, "axis", &axis, d->ndim)) return NULL;
    for (int i = 1; i < 5 && d->shape; i++)
      if (!check_channel_vec(q, s[i], i, names[i], d->shape[axis])) return NULL;
  }
  f[1] = same(q, s[3]);
  f[2] = same(q, s[4]);
  return rx_sinfo_tuple(q->h, f, 3);
}
