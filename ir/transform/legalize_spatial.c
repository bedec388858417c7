/* legalize_spatial.c - legalization of the spatial operators through the
 * operator library's templates (stdlib/nn/conv2d.tvs, pool2d.tvs,
 * conv2d_transpose.tvs, stdlib/image/resize2d.tvs): pick the template for
 * the call's layouts, bind its attribute vars, specialize (TVM's LegalizeOps
 * calling TOPI's conv / pool2d / adaptive_pool / group_conv2d_transpose_nchw /
 * resize2d).
 *
 * Like TVM, a call stays as it is when no template covers it: out_layout
 * other than the data layout, layouts without a template, conv2d_transpose
 * with dilation; here also resize2d on integers and calls mixing float and
 * integer dtypes.  The float32 templates are retyped to the operands' dtype
 * and the output to out_dtype (tir_retype, tir_retype_output). */
#include "ir/transform/legalize_template.h"

#include <stdio.h>
#include <string.h>

#include "ir/specialize.h"

static const char *attr_s(const RxExpr *call, const char *key, const char *def) {
  return rx_attr_str(call->call.attrs, key, def);
}

static void attr_ints(const RxExpr *call, const char *key, int64_t *v, int n, int64_t def) {
  for (int i = 0; i < n; i++) v[i] = def;
  rx_attr_ints(call->call.attrs, key, v, n);
}

/* strides, dilation and the four paddings as the templates name them. */
static int window_binds(const RxExpr *call, LgBind *b, const char *stride_key, int64_t extra_h, int64_t extra_w) {
  int64_t s[2], d[2], p[4];
  attr_ints(call, stride_key, s, 2, 1);
  attr_ints(call, "dilation", d, 2, 1);
  attr_ints(call, "padding", p, 4, 0);
  LgBind v[] = {{"stride_h", s[0]}, {"stride_w", s[1]},   {"dilation_h", d[0]}, {"dilation_w", d[1]},
                {"pad_top", p[0]},  {"pad_left", p[1]},   {"pad_bottom", p[2]}, {"pad_right", p[3]},
                {"extra_h", extra_h}, {"extra_w", extra_w}};
  memcpy(b, v, sizeof v);
  return (int)(sizeof v / sizeof v[0]);
}

static bool no_padding(const RxExpr *call) {
  int64_t p[4];
  attr_ints(call, "padding", p, 4, 0);
  return !p[0] && !p[1] && !p[2] && !p[3];
}

/* NCHW[x]c data, OIHW[x]i[y]o kernel, NCHW[y]c out: TOPI's conv2d_NCHWc. */
static bool nchwc_layouts(const RxExpr *call) {
  RxLayoutMap d, k, o;
  if (!rx_layout_map(attr_s(call, "data_layout", "NCHW"), "NCHW", &d) ||
      !rx_layout_map(attr_s(call, "kernel_layout", "OIHW"), "OIHW", &k) ||
      !rx_layout_map(attr_s(call, "out_layout", "NCHW"), "NCHW", &o))
    return false;
  if (!d.blocked && !k.blocked && !o.blocked) return false;
  static const int plain[4] = {0, 1, 2, 3};
  for (int i = 0; i < 4; i++) /* primal axes in canonical order, the sub-axes last */
    if (d.pos[i] != plain[i] || k.pos[i] != plain[i] || o.pos[i] != plain[i]) return false;
  return d.sub[1] == 4 && d.sub[0] < 0 && d.sub[2] < 0 && d.sub[3] < 0 && k.sub[1] == 4 && k.sub[0] == 5 &&
         k.sub[2] < 0 && k.sub[3] < 0 && o.sub[1] == 4 && o.sub[0] < 0 && o.sub[2] < 0 && o.sub[3] < 0 &&
         d.fac[1] == k.fac[1] && o.fac[1] == k.fac[0];
}

TirFunc *rx_legalize_conv2d(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  const char *dl = attr_s(call, "data_layout", "NCHW"), *kl = attr_s(call, "kernel_layout", "OIHW");
  if (nchwc_layouts(call)) {
    if (rx_attr_int(call->call.attrs, "groups", 1) != 1) return NULL;
    LgBind b[16];
    int n = window_binds(call, b, "strides", 0, 0);
    TirFunc *f = lg_from_template(g, "conv2d_NCHWc", call, 2, b, n, args, nargs);
    if (f && no_padding(call)) f = tir_inline_copy_block(g->h, f, "data_pad");
    return f;
  }
  if (strcmp(attr_s(call, "out_layout", dl), dl)) return NULL;
  int64_t groups = rx_attr_int(call->call.attrs, "groups", 1);
  const char *t = NULL;
  if (!strcmp(dl, "NCHW") && !strcmp(kl, "OIHW")) t = groups == 1 ? "conv2d_nchw" : "group_conv2d_nchw";
  else if (!strcmp(dl, "NHWC") && !strcmp(kl, "HWIO")) t = groups == 1 ? "conv2d_nhwc" : "group_conv2d_nhwc";
  else if (!strcmp(dl, "NHWC") && !strcmp(kl, "OIHW") && groups == 1) t = "conv2d_nhwc_oihw";
  if (!t) return NULL;
  LgBind b[16];
  int n = window_binds(call, b, "strides", 0, 0);
  b[n++] = (LgBind){"groups", groups};
  return lg_from_template(g, t, call, 2, b, n, args, nargs);
}

TirFunc *rx_legalize_conv2d_transpose(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  const char *dl = attr_s(call, "data_layout", "NCHW");
  if (strcmp(attr_s(call, "out_layout", dl), dl) || strcmp(dl, "NCHW") ||
      strcmp(attr_s(call, "kernel_layout", "IOHW"), "IOHW"))
    return NULL;
  int64_t d[2], op[2], groups = rx_attr_int(call->call.attrs, "groups", 1);
  attr_ints(call, "dilation", d, 2, 1);
  attr_ints(call, "output_padding", op, 2, 0);
  if (d[0] != 1 || d[1] != 1) return NULL; /* as TVM: TOPI's conv2d_transpose has no dilation */
  LgBind b[16];
  int n = window_binds(call, b, "strides", 0, 0);
  b[n++] = (LgBind){"out_pad_h", op[0]};
  b[n++] = (LgBind){"out_pad_w", op[1]};
  b[n++] = (LgBind){"groups", groups};
  return lg_from_template(g, groups == 1 ? "conv2d_transpose_nchw" : "group_conv2d_transpose_nchw", call, 2, b, n,
                          args, nargs);
}

/* max_pool2d / avg_pool2d: TOPI's pool2d; ceil_mode pads the bottom/right by
 * stride - 1 more; without any padding there is no pad_temp stage. */
TirFunc *rx_legalize_pool2d(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  const char *l = attr_s(call, "layout", "NCHW");
  RxLayoutMap m;
  bool blocked = rx_layout_map(l, "NCHW", &m) && m.blocked && m.sub[1] == 4 && m.pos[1] == 1 && m.pos[2] == 2;
  if (strcmp(attr_s(call, "out_layout", l), l) || (strcmp(l, "NCHW") && strcmp(l, "NHWC") && !blocked)) return NULL;
  bool is_max = call->call.op->id == RX_OP_NN_MAX_POOL2D, ceil_mode = rx_attr_bool(call->call.attrs, "ceil_mode", false);
  int64_t k[2], s[2];
  attr_ints(call, "pool_size", k, 2, 1);
  attr_ints(call, "strides", s, 2, 1);
  LgBind b[16];
  int n = window_binds(call, b, "strides", ceil_mode ? s[0] - 1 : 0, ceil_mode ? s[1] - 1 : 0);
  b[n++] = (LgBind){"KH", k[0]};
  b[n++] = (LgBind){"KW", k[1]};
  b[n++] = (LgBind){"include_pad", rx_attr_bool(call->call.attrs, "count_include_pad", false)};
  char t[32];
  snprintf(t, sizeof t, "%s_pool2d_%s", is_max ? "max" : "avg", blocked ? "nchwc" : !strcmp(l, "NCHW") ? "nchw" : "nhwc");
  TirFunc *f = lg_from_template(g, t, call, 1, b, n, args, nargs);
  bool extra = ceil_mode && (s[0] > 1 || s[1] > 1);
  if (f && no_padding(call) && !extra) f = tir_inline_copy_block(g->h, f, "pad_temp");
  return f;
}

/* adaptive_avg_pool2d: TOPI's adaptive_pool; a window that divides the input
 * evenly has a fixed size (KH = H // OH), else each output reads its own
 * [floor(o * H / OH), ceil((o + 1) * H / OH)) range. */
TirFunc *rx_legalize_adaptive_pool2d(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  const char *l = attr_s(call, "layout", "NCHW");
  if (strcmp(attr_s(call, "out_layout", l), l) || (strcmp(l, "NCHW") && strcmp(l, "NHWC"))) return NULL;
  int pos[4];
  rx_layout_axes(l, "NCHW", pos);
  const RxSInfo *x = call->call.args[0]->sinfo, *o = call->sinfo;
  int64_t H, W, OH, OW;
  bool even = tir_is_const_int(x->shape[pos[2]], &H) && tir_is_const_int(x->shape[pos[3]], &W) &&
              tir_is_const_int(o->shape[pos[2]], &OH) && tir_is_const_int(o->shape[pos[3]], &OW) && H % OH == 0 &&
              W % OW == 0;
  char t[48];
  snprintf(t, sizeof t, "adaptive_avg_pool2d_%s%s", !strcmp(l, "NCHW") ? "nchw" : "nhwc", even ? "" : "_any");
  LgBind b[2] = {{"KH", even ? H / OH : 0}, {"KW", even ? W / OW : 0}};
  return lg_from_template(g, t, call, 1, b, even ? 2 : 0, args, nargs);
}

/* image.resize2d: one template per layout; the method, coordinate mode and
 * rounding are attribute vars the specialization folds away. */
TirFunc *rx_legalize_resize2d(Lg *g, const RxExpr *call, RxExpr **args, int *nargs) {
  static const char *const modes[] = {"half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel",
                                      "tf_half_pixel_for_nn", NULL};
  static const char *const roundings[] = {"round", "floor", "ceil", "round_prefer_floor", "round_prefer_ceil", NULL};
  const char *l = attr_s(call, "layout", "NCHW"), *m = attr_s(call, "method", "linear");
  if ((strcmp(l, "NCHW") && strcmp(l, "NHWC")) || !strcmp(m, "cubic") || !dt_is_float(call->sinfo->dtype)) return NULL;
  const char *cm = attr_s(call, "coordinate_transformation_mode", "half_pixel"), *rm = attr_s(call, "rounding_method", "round");
  int mode = 0, rounding = 0;
  for (int i = 0; modes[i]; i++)
    if (!strcmp(cm, modes[i])) mode = i;
  for (int i = 0; roundings[i]; i++)
    if (!strcmp(rm, roundings[i])) rounding = i;
  if (!*rm && mode == 4) rounding = 4;
  LgBind b[3] = {{"nearest", !strcmp(m, "nearest_neighbor")}, {"mode", mode}, {"rounding", rounding}};
  TirFunc *f = lg_from_template(g, !strcmp(l, "NCHW") ? "resize2d_nchw" : "resize2d_nhwc", call, 1, b, 3, args, nargs);
  return f;
}
