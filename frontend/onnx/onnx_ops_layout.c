/* onnx_ops_layout.c - converters of ONNX's layout and data-movement ops built
 * from several graph operators: Pad (constant mode, as concatenation with known
 * blocks), DepthToSpace / SpaceToDepth (reshape, transpose, reshape), Trilu (a
 * known mask), Einsum (the matmul forms) and Resize (R.image.resize2d). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/onnx/onnx_ops.h"

static int static_shape(OxCtx *c, const OxVal *x) {
  for (int k = 0; k < x->ndim; k++)
    if (x->dims[k] < 0) return ox_fail(c, "%s of a symbolic shape is not supported", c->node->op_type);
  return 0;
}

/* A known array of x's dtype filled with v. */
static TvsNDArray *fill(const OxVal *x, int ndim, const int64_t *dims, double v) {
  TvsNDArray *a = tvs_ndarray_empty(ndim, dims, x->dt);
  size_t eb = tvs_dtype_bytes(x->dt);
  for (int64_t i = 0; a && i < tvs_ndarray_numel(&a->t); i++) {
    char *p = (char *)a->t.data + (size_t)i * eb;
    DLDataType dt = x->dt;
    if (dt.code == kDLFloat && dt.bits == 32) *(float *)p = (float)v;
    else if (dt.code == kDLFloat && dt.bits == 64) *(double *)p = v;
    else if (dt.bits == 64) *(int64_t *)p = (int64_t)v;
    else if (dt.bits == 32) *(int32_t *)p = (int32_t)v;
    else if (dt.bits == 16) *(int16_t *)p = (int16_t)v;
    else *(int8_t *)p = (int8_t)v;
  }
  return a;
}

int ox_cv_pad(OxCtx *c, OxVal **in, int nin) {
  char buf[64];
  if (nin < 1 || !in[0]) return ox_fail(c, "input 0 is missing");
  OxVal *x = in[0];
  const char *mode = ox_attr_str(c, "mode", "constant", buf);
  if (strcmp(mode, "constant")) {
    char why[80];
    snprintf(why, sizeof why, "= '%s' (constant only)", mode);
    return ox_unsupported_attr(c, "mode", why);
  }
  int64_t pads[2 * OX_MAX_NDIM], axes[OX_MAX_NDIM];
  int np = c->opset < 11 ? ox_attr_ints(c, "pads", pads, 2 * OX_MAX_NDIM)
                         : ox_const_ints(c, nin > 1 ? in[1] : NULL, "the pads input", pads, 2 * OX_MAX_NDIM);
  double value = c->opset < 11 ? ox_attr_float(c, "value", 0.0) : 0.0;
  if (np < 0) return -1;
  if (c->opset >= 11 && nin > 2 && in[2] && !ox_const_scalar(in[2], &value))
    return ox_fail(c, "the constant_value input must be known at import time");
  int na = x->ndim;
  for (int k = 0; k < na; k++) axes[k] = k;
  if (nin > 3 && in[3] && (na = ox_const_ints(c, in[3], "the axes input", axes, OX_MAX_NDIM)) < 0) return -1;
  if (np != 2 * na) return ox_fail(c, "pads has %d values for %d axes", np, na);
  if (static_shape(c, x)) return -1;
  int64_t dims[OX_MAX_NDIM];
  memcpy(dims, x->dims, sizeof dims);
  const char *cur = ox_ref(c, x);
  for (int i = 0; i < na; i++) {
    int a = ox_axis(c, axes[i], x->ndim);
    if (a < 0) return -1;
    int64_t before = pads[i], after = pads[i + na];
    if (before < 0 || after < 0) { /* negative pads crop */
      int64_t b = before < 0 ? -before : 0, e = dims[a] - (after < 0 ? -after : 0);
      cur = ox_tmp(c, "R.strided_slice(%s, axes=[%d], begin=[%lld], end=[%lld])", cur, a, (long long)b, (long long)e);
      dims[a] = e - b;
      before = before < 0 ? 0 : before, after = after < 0 ? 0 : after;
    }
    if (!before && !after) continue;
    const char *parts[3] = {NULL, cur, NULL};
    for (int side = 0; side < 2; side++) {
      int64_t n = side ? after : before, bd[OX_MAX_NDIM];
      if (!n) continue;
      memcpy(bd, dims, sizeof bd);
      bd[a] = n;
      if (ox_too_big(c, x->ndim, bd)) return -1;
      TvsNDArray *blk = fill(x, x->ndim, bd, value);
      if (!blk) return ox_fail(c, "invalid pad block");
      parts[side ? 2 : 0] = ox_ref(c, ox_known(c, side ? "pad_after" : "pad_before", blk));
    }
    cur = ox_tmp(c, "R.concat((%s%s%s%s%s), axis=%d)", parts[0] ? parts[0] : "", parts[0] ? ", " : "", cur,
                 parts[2] ? ", " : "", parts[2] ? parts[2] : "", a);
    dims[a] += before + after;
  }
  StrBuf sh;
  sb_init(&sh);
  ox_shape_arg(c, &sh, x->ndim, dims, NULL);
  ox_emit(c, 0, x->dt, x->ndim, dims, x->sym, "R.reshape(%s, %s)", cur, sh.data);
  sb_free(&sh);
  return 0;
}

/* reshape -> permute_dims -> reshape, output i bound to the last. */
static void shuffle(OxCtx *c, OxVal *x, const int64_t *mid, int nmid, const int64_t *perm, const int64_t *out) {
  StrBuf a, p, o;
  sb_init(&a), sb_init(&p), sb_init(&o);
  ox_shape_arg(c, &a, nmid, mid, NULL);
  ox_ints_text(&p, perm, nmid);
  ox_shape_arg(c, &o, 4, out, NULL);
  const char *r = ox_tmp(c, "R.reshape(%s, %s)", ox_ref(c, x), a.data);
  const char *t = ox_tmp(c, "R.permute_dims(%s, axes=%s)", r, p.data);
  ox_emit(c, 0, x->dt, 4, out, NULL, "R.reshape(%s, %s)", t, o.data);
  sb_free(&a), sb_free(&p), sb_free(&o);
}

int ox_cv_depth_space(OxCtx *c, OxVal **in, int nin) {
  char buf[64];
  if (nin < 1 || !in[0]) return ox_fail(c, "input 0 is missing");
  OxVal *x = in[0];
  int64_t b = ox_attr_int(c, "blocksize", 0);
  if (x->ndim != 4 || static_shape(c, x)) return x->ndim != 4 ? ox_fail(c, "the input must be 4-D") : -1;
  if (b <= 0) return ox_unsupported_attr(c, "blocksize", "<= 0");
  int64_t n = x->dims[0], ch = x->dims[1], h = x->dims[2], w = x->dims[3];
  if (!strcmp(c->node->op_type, "SpaceToDepth")) {
    if (h % b || w % b) return ox_fail(c, "the spatial sizes are not multiples of blocksize %lld", (long long)b);
    int64_t mid[6] = {n, ch, h / b, b, w / b, b}, perm[6] = {0, 3, 5, 1, 2, 4}, out[4] = {n, ch * b * b, h / b, w / b};
    shuffle(c, x, mid, 6, perm, out);
    return 0;
  }
  if (ch % (b * b)) return ox_fail(c, "the channels are not a multiple of blocksize^2");
  bool crd = !strcmp(ox_attr_str(c, "mode", "DCR", buf), "CRD");
  int64_t out[4] = {n, ch / (b * b), h * b, w * b};
  int64_t dcr_mid[6] = {n, b, b, ch / (b * b), h, w}, dcr_perm[6] = {0, 3, 4, 1, 5, 2};
  int64_t crd_mid[6] = {n, ch / (b * b), b, b, h, w}, crd_perm[6] = {0, 1, 4, 2, 5, 3};
  shuffle(c, x, crd ? crd_mid : dcr_mid, 6, crd ? crd_perm : dcr_perm, out);
  return 0;
}

/* Trilu: x where a known mask of the last two axes holds, else 0. */
int ox_cv_trilu(OxCtx *c, OxVal **in, int nin) {
  if (nin < 1 || !in[0]) return ox_fail(c, "input 0 is missing");
  OxVal *x = in[0];
  double kd = 0;
  if (nin > 1 && in[1] && !ox_const_scalar(in[1], &kd)) return ox_fail(c, "k must be known at import time");
  if (x->ndim < 2 || static_shape(c, x)) return x->ndim < 2 ? ox_fail(c, "the input must have rank >= 2") : -1;
  int64_t m = x->dims[x->ndim - 2], n = x->dims[x->ndim - 1], k = (int64_t)kd, md[2] = {m, n};
  bool upper = ox_attr_int(c, "upper", 1) != 0;
  if (ox_too_big(c, 2, md)) return -1;
  TvsNDArray *mask = tvs_ndarray_empty(2, md, (DLDataType){kDLBool, 8, 1});
  if (!mask) return ox_fail(c, "invalid shape");
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) ((uint8_t *)mask->t.data)[i * n + j] = upper ? j - i >= k : j - i <= k;
  const char *mr = ox_ref(c, ox_known(c, "mask", mask));
  ox_emit_like(c, 0, x, x->dt, "R.where(%s, %s, R.const(0, \"%s\"))", mr, ox_ref(c, x), ox_dtype_name(x->dt));
  return 0;
}

/* The letters of one einsum operand ("bij") into s; false if not plain letters. */
static bool einsum_term(const char *p, size_t n, char *s) {
  if (n == 0 || n > OX_MAX_NDIM) return false;
  for (size_t i = 0; i < n; i++)
    if (p[i] < 'a' || p[i] > 'z') return false;
  memcpy(s, p, n);
  s[n] = 0;
  return true;
}

/* The transposition of term t into the order of letters `to`, as text "[...]" or NULL when identity. */
static void perm_to(const char *t, const char *to, int64_t *perm) {
  for (size_t i = 0; to[i]; i++) perm[i] = strchr(t, to[i]) - t;
}

static const char *transposed(OxCtx *c, const char *ref, const char *t, const char *to) {
  int64_t perm[OX_MAX_NDIM];
  perm_to(t, to, perm);
  bool id = true;
  for (size_t i = 0; to[i]; i++) id &= perm[i] == (int64_t)i;
  if (id) return ref;
  StrBuf sb;
  sb_init(&sb);
  ox_ints_text(&sb, perm, (int)strlen(to));
  const char *r = ox_tmp(c, "R.permute_dims(%s, axes=%s)", ref, sb.data);
  sb_free(&sb);
  return r;
}

/* Einsum of two operands in matmul form: batch letters (both and out), one
 * letter of A only (rows), one of B only (columns), one summed (both, not out).
 * 1 when handled, 0 when the equation has another form. */
static int einsum_matmul(OxCtx *c, OxVal **in, const char *a, const char *b, const char *o) {
  char batch[16] = {0}, m = 0, n = 0, k = 0;
  int nb = 0;
  for (const char *p = a; *p; p++) {
    bool inb = strchr(b, *p), ino = strchr(o, *p);
    if (inb && ino) batch[nb++] = *p;
    else if (inb && !k) k = *p;
    else if (ino && !inb && !m) m = *p;
    else return 0;
  }
  for (const char *p = b; *p; p++)
    if (!strchr(a, *p) && strchr(o, *p) && !n) n = *p;
    else if (!strchr(a, *p)) return 0;
  if (!m || !n || !k || strlen(o) != (size_t)nb + 2 || (int)strlen(a) != nb + 2 || (int)strlen(b) != nb + 2) return 0;
  char ta[24], tb[24], tm[24];
  snprintf(ta, sizeof ta, "%s%c%c", batch, m, k);
  snprintf(tb, sizeof tb, "%s%c%c", batch, k, n);
  snprintf(tm, sizeof tm, "%s%c%c", batch, m, n);
  const char *ar = transposed(c, ox_ref(c, in[0]), a, ta), *br = transposed(c, ox_ref(c, in[1]), b, tb);
  int64_t dims[OX_MAX_NDIM], perm[OX_MAX_NDIM];
  char *sym[OX_MAX_NDIM] = {0};
  for (int i = 0; o[i]; i++) {
    const char *pa = strchr(a, o[i]);
    const OxVal *src = pa ? in[0] : in[1];
    int idx = (int)((pa ? pa : strchr(b, o[i])) - (pa ? a : b));
    dims[i] = src->dims[idx], sym[i] = src->sym[idx];
  }
  perm_to(tm, o, perm);
  bool id = true;
  for (int i = 0; o[i]; i++) id &= perm[i] == i;
  if (id) {
    ox_emit(c, 0, in[0]->dt, (int)strlen(o), dims, sym, "R.matmul(%s, %s)", ar, br);
    return 1;
  }
  const char *mm = ox_tmp(c, "R.matmul(%s, %s)", ar, br);
  StrBuf sb;
  sb_init(&sb);
  ox_ints_text(&sb, perm, (int)strlen(o));
  ox_emit(c, 0, in[0]->dt, (int)strlen(o), dims, sym, "R.permute_dims(%s, axes=%s)", mm, sb.data);
  sb_free(&sb);
  return 1;
}

/* Operand t (letters term) laid out over all letters `all`: transposed into
 * all's order, size-1 axes for the letters it lacks; sizes into dims. */
static const char *einsum_align(OxCtx *c, OxVal *v, const char *t, const char *all, int64_t *dims) {
  char sub[16];
  int ns = 0;
  for (const char *p = all; *p; p++)
    if (strchr(t, *p)) sub[ns++] = *p;
  sub[ns] = 0;
  const char *r = transposed(c, ox_ref(c, v), t, sub);
  int64_t shape[OX_MAX_NDIM];
  int na = (int)strlen(all);
  for (int i = 0; i < na; i++) {
    const char *q = strchr(t, all[i]);
    shape[i] = q ? v->dims[q - t] : 1;
    if (q) dims[i] = v->dims[q - t];
  }
  if (ns == na) return r;
  StrBuf sh;
  sb_init(&sh);
  ox_shape_arg(c, &sh, na, shape, NULL);
  r = ox_tmp(c, "R.reshape(%s, %s)", r, sh.data);
  sb_free(&sh);
  return r;
}

/* Any other einsum without repeated letters in an operand: align the operands
 * over all letters, multiply (broadcasting), sum the letters not in the
 * output, transpose into the output's order. */
static int einsum_general(OxCtx *c, OxVal **in, int nin, char terms[2][16], const char *o) {
  char all[16] = {0};
  int na = 0;
  for (int t = 0; t < nin; t++)
    for (const char *p = terms[t]; *p; p++) {
      if (strchr(p + 1, *p)) return ox_unsupported_attr(c, "equation", "with a letter repeated in one operand");
      if (!strchr(all, *p)) all[na++] = *p;
    }
  for (int t = 0; t < nin; t++)
    for (int k = 0; k < in[t]->ndim; k++)
      if (in[t]->dims[k] < 0) return ox_fail(c, "Einsum of a symbolic shape is not supported");
  int64_t dims[OX_MAX_NDIM], red[OX_MAX_NDIM], perm[OX_MAX_NDIM], od[OX_MAX_NDIM];
  if (na > OX_MAX_NDIM) return ox_unsupported_attr(c, "equation", "with more than 8 letters");
  const char *x = einsum_align(c, in[0], terms[0], all, dims);
  if (nin == 2) x = ox_tmp(c, "R.multiply(%s, %s)", x, einsum_align(c, in[1], terms[1], all, dims));
  char kept[16];
  int nr = 0, nk = 0;
  for (int i = 0; i < na; i++) {
    if (!strchr(o, all[i])) red[nr++] = i;
    else kept[nk++] = all[i];
  }
  kept[nk] = 0;
  if (nr) {
    StrBuf sb;
    sb_init(&sb);
    ox_ints_text(&sb, red, nr);
    x = ox_tmp(c, "R.sum(%s, axis=%s, keepdims=False)", x, sb.data);
    sb_free(&sb);
  }
  int no = (int)strlen(o);
  for (int i = 0; i < no; i++) {
    const char *q = strchr(all, o[i]);
    if (!q) return ox_unsupported_attr(c, "equation", "with an output letter no operand has");
    od[i] = dims[q - all];
  }
  perm_to(kept, o, perm);
  StrBuf sb;
  sb_init(&sb);
  ox_ints_text(&sb, perm, no);
  ox_emit(c, 0, in[0]->dt, no, od, NULL, "R.permute_dims(%s, axes=%s)", x, sb.data);
  sb_free(&sb);
  return 0;
}

int ox_cv_einsum(OxCtx *c, OxVal **in, int nin) {
  char eq[256], terms[2][16], o[16];
  const Onnx__AttributeProto *at = ox_attr(c, "equation");
  if (!at || !at->has_s || at->s.len >= sizeof eq) return ox_fail(c, "the equation attribute is missing");
  size_t len = 0;
  for (size_t i = 0; i < at->s.len; i++)
    if (at->s.data[i] != ' ') eq[len++] = (char)at->s.data[i];
  eq[len] = 0;
  const char *comma = strchr(eq, ','), *arrow = strstr(eq, "->");
  const char *end0 = comma ? comma : arrow ? arrow : eq + len;
  int nt = comma ? 2 : 1;
  bool ok = nin == nt && in[0] && (nt == 1 || in[1]) && einsum_term(eq, (size_t)(end0 - eq), terms[0]);
  if (ok && nt == 2)
    ok = einsum_term(comma + 1, (size_t)((arrow ? arrow : eq + len) - comma - 1), terms[1]);
  if (ok && arrow) {
    ok = arrow[2] ? einsum_term(arrow + 2, strlen(arrow + 2), o) : (o[0] = 0, true);
  } else if (ok) { /* implicit output: the letters seen once, alphabetically */
    int no = 0;
    for (char ch = 'a'; ch <= 'z'; ch++) {
      int cnt = 0;
      for (int t = 0; t < nt; t++)
        for (const char *p = terms[t]; *p; p++) cnt += *p == ch;
      if (cnt == 1) o[no++] = ch;
    }
    o[no] = 0;
  }
  if (!ok) return ox_unsupported_attr(c, "equation", "other than one or two operands of plain letters (no '...')");
  for (int t = 0; t < nt; t++)
    if ((int)strlen(terms[t]) != in[t]->ndim) return ox_fail(c, "operand %d has rank %d, the equation %zu", t,
                                                            in[t]->ndim, strlen(terms[t]));
  if (nt == 2) {
    int r = einsum_matmul(c, in, terms[0], terms[1], o);
    if (r) return r < 0 ? -1 : 0;
  }
  return einsum_general(c, in, nt, terms, o);
}

/* ONNX Resize's nearest_mode -> resize2d's rounding_method. */
static const char *rounding(const char *nearest_mode) {
  if (!strcmp(nearest_mode, "round_prefer_floor")) return "round_prefer_floor";
  if (!strcmp(nearest_mode, "round_prefer_ceil")) return "round_prefer_ceil";
  if (!strcmp(nearest_mode, "floor")) return "floor";
  if (!strcmp(nearest_mode, "ceil")) return "ceil";
  return NULL;
}

int ox_cv_resize(OxCtx *c, OxVal **in, int nin) {
  char b1[64], b2[64], b3[64];
  if (nin < 1 || !in[0]) return ox_fail(c, "input 0 is missing");
  OxVal *x = in[0];
  if (x->ndim != 4 || static_shape(c, x)) return x->ndim != 4 ? ox_fail(c, "only 4-D (NCHW) inputs are supported") : -1;
  if (ox_attr_int(c, "antialias", 0)) return ox_unsupported_attr(c, "antialias", "= 1");
  if (ox_attr(c, "axes")) return ox_unsupported_attr(c, "axes", "(all four axes only)");
  char kp[64];
  if (strcmp(ox_attr_str(c, "keep_aspect_ratio_policy", "stretch", kp), "stretch"))
    return ox_unsupported_attr(c, "keep_aspect_ratio_policy", "other than stretch");
  const char *mode = ox_attr_str(c, "mode", "nearest", b1);
  const char *ctm = ox_attr_str(c, "coordinate_transformation_mode", c->opset < 11 ? "asymmetric" : "half_pixel", b2);
  const char *nm = rounding(ox_attr_str(c, "nearest_mode", "round_prefer_floor", b3));
  /* cubic: R.image.resize2d has no legalization or interpreter semantics for it yet */
  const char *method = !strcmp(mode, "nearest") ? "nearest_neighbor" : !strcmp(mode, "linear") ? "linear" : NULL;
  if (!method) return ox_unsupported_attr(c, "mode", mode);
  static const char *const modes[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                      "tf_half_pixel_for_nn"};
  bool known = false;
  for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) known |= !strcmp(ctm, modes[i]);
  if (!known) return ox_unsupported_attr(c, "coordinate_transformation_mode", "of this value");
  if (!nm) return ox_unsupported_attr(c, "nearest_mode", b3);
  /* inputs: opset 10 (X, scales); 11+ (X, roi, scales, sizes) */
  OxVal *roi = c->opset >= 11 && nin > 1 ? in[1] : NULL, *scales = c->opset >= 11 ? (nin > 2 ? in[2] : NULL) : (nin > 1 ? in[1] : NULL);
  OxVal *sizes = c->opset >= 11 && nin > 3 ? in[3] : NULL;
  int64_t out[4];
  double sc[4] = {1, 1, 1, 1}, rv[8] = {0, 0, 0, 0, 1, 1, 1, 1};
  if (sizes && sizes->cval && tvs_ndarray_numel(&sizes->cval->t) == 4) {
    for (int k = 0; k < 4; k++) out[k] = (int64_t)tvs_ndarray_get_f64(&sizes->cval->t, k);
  } else if (scales && scales->cval && tvs_ndarray_numel(&scales->cval->t) == 4) {
    for (int k = 0; k < 4; k++) {
      sc[k] = tvs_ndarray_get_f64(&scales->cval->t, k), out[k] = (int64_t)floor((double)x->dims[k] * sc[k]);
      /* resize2d maps coordinates with out/in; ONNX with the given scale */
      if (fabs((double)out[k] - (double)x->dims[k] * sc[k]) > 1e-6)
        return ox_fail(c, "scale %g of axis %d (size %lld -> %g) is not supported: only scales giving whole sizes", sc[k],
                       k, (long long)x->dims[k], (double)x->dims[k] * sc[k]);
    }
  } else {
    return ox_fail(c, "scales or sizes must be known at import time (4 values)");
  }
  if (out[0] != x->dims[0] || out[1] != x->dims[1]) return ox_fail(c, "resizing the N or C axis is not supported");
  if (roi && roi->cval && tvs_ndarray_numel(&roi->cval->t) == 8)
    for (int k = 0; k < 8; k++) rv[k] = tvs_ndarray_get_f64(&roi->cval->t, k);
  ox_emit(c, 0, x->dt, 4, out, x->sym,
          "R.image.resize2d(%s, (%lld, %lld), roi=[%.9g, %.9g, %.9g, %.9g], method=\"%s\", "
          "coordinate_transformation_mode=\"%s\", rounding_method=\"%s\", cubic_alpha=%.9g, cubic_exclude=%lld, "
          "extrapolation_value=%.9g)",
          ox_ref(c, x), (long long)out[2], (long long)out[3], rv[2], rv[3], rv[6], rv[7], method, ctm,
          !strcmp(method, "nearest_neighbor") ? nm : "", ox_attr_float(c, "cubic_coeff_a", -0.75),
          (long long)ox_attr_int(c, "exclude_outside", 0), ox_attr_float(c, "extrapolation_value", 0.0));
  return 0;
}
