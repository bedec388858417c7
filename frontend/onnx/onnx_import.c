/* onnx_import.c - the importer's driver: values, names, the .tvs text, and the
 * loop over the graph's nodes in topological order through the converter
 * table (onnx_ops.c). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "frontend/onnx/onnx_import.h"
#include "frontend/onnx/onnx_internal.h"

/* Small constants are written inline as R.const(...); larger ones become weights. */
enum { INLINE_CONST_MAX = 16 };

int onnx_is_model_path(const char *path) {
  size_t n = path ? strlen(path) : 0;
  return n > 5 && !strcmp(path + n - 5, ".onnx");
}

/* ------------------------------------------------------------ names */

static bool ident_used(const OxCtx *c, const char *s) {
  for (int i = 0; i < c->nidents; i++)
    if (!strcmp(c->idents[i], s)) return true;
  return false;
}

/* A fresh .tvs identifier made from an ONNX name ("/layer1/Conv_1" -> "layer1_Conv_1"). */
static char *unique_ident(OxCtx *c, const char *onnx_name) {
  static const char *const reserved[] = {"R", "T", "I", "cls", "main", "None", "True", "False", "and", "or",
                                         "not", "if", "else", "for", "in", "is", "def", "class", "return",
                                         "with", "lambda", "pass", "from", "import", "as", "while", "del"};
  StrBuf sb;
  sb_init(&sb);
  for (const char *p = onnx_name ? onnx_name : ""; *p; p++) {
    char ch = (char)((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ? *p : '_');
    if (ch == '_' && (sb.len == 0 || sb.data[sb.len - 1] == '_')) continue;
    sb_putc(&sb, ch);
  }
  while (sb.len && sb.data[sb.len - 1] == '_') sb.data[--sb.len] = 0;
  if (!sb.len || (sb.data[0] >= '0' && sb.data[0] <= '9')) {
    char *t = xasprintf("v_%s", sb.len ? sb.data : "");
    sb_free(&sb);
    sb_init(&sb);
    sb_puts(&sb, t);
    free(t);
  }
  for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
    if (!strcmp(sb.data, reserved[i])) sb_putc(&sb, '_');
  char *base = sb_take(&sb), *name = xstrdup(base);
  for (int k = 1; ident_used(c, name); k++) {
    free(name);
    name = xasprintf("%s_%d", base, k);
  }
  free(base);
  VEC_PUSH(c->idents, c->nidents, c->capidents, name);
  return name;
}

/* ------------------------------------------------------------ values */

OxVal *ox_lookup(OxCtx *c, const char *name) {
  for (int i = c->nvals - 1; i >= 0; i--)
    if (!strcmp(c->vals[i]->name, name)) return c->vals[i];
  return NULL;
}

static OxVal *new_val(OxCtx *c, const char *name) {
  OxVal *v = xcalloc(1, sizeof *v);
  v->name = xstrdup(name);
  VEC_PUSH(c->vals, c->nvals, c->capvals, v);
  return v;
}

static void free_val(OxVal *v) {
  free(v->name);
  free(v->ref);
  for (int i = 0; i < OX_MAX_NDIM; i++) free(v->sym[i]);
  if (v->cval) tvs_ndarray_free(v->cval);
  free(v);
}

OxVal *ox_new_output(OxCtx *c, int i) {
  return new_val(c, (size_t)i < c->node->n_output ? c->node->output[i] : "");
}

void ox_set_shape(OxVal *out, int ndim, const int64_t *dims, char *const *sym) {
  out->ndim = ndim;
  for (int k = 0; k < OX_MAX_NDIM; k++) {
    free(out->sym[k]);
    out->sym[k] = NULL;
    out->dims[k] = k < ndim ? dims[k] : 0;
    if (k < ndim && sym && sym[k]) out->sym[k] = xstrdup(sym[k]);
  }
}

void ox_shape_free(OxVal *v) {
  for (int k = 0; k < OX_MAX_NDIM; k++) free(v->sym[k]), v->sym[k] = NULL;
}

void ox_copy_shape(OxVal *out, const OxVal *v) { ox_set_shape(out, v->ndim, v->dims, v->sym); }

OxVal *ox_define_const(OxCtx *c, int i, TvsNDArray *a) {
  OxVal *v = ox_new_output(c, i);
  v->dt = a->t.dtype;
  ox_set_shape(v, a->t.ndim, a->t.shape, NULL);
  v->cval = a;
  return v;
}

OxVal *ox_known(OxCtx *c, const char *suffix, TvsNDArray *a) {
  OxVal *v = ox_new_output(c, -1);
  free(v->name);
  v->name = xasprintf("%s_%s", c->node->n_output ? c->node->output[0] : c->node->op_type, suffix);
  v->dt = a->t.dtype;
  ox_set_shape(v, a->t.ndim, a->t.shape, NULL);
  v->cval = a;
  return v;
}

void ox_alias(OxCtx *c, int i, const OxVal *src) {
  OxVal *v = ox_new_output(c, i);
  v->dt = src->dt;
  ox_copy_shape(v, src);
  v->is_tuple = src->is_tuple;
  v->bound = src->bound;
  if (src->cval) {
    v->cval = tvs_ndarray_empty(src->cval->t.ndim, src->cval->t.shape, src->cval->t.dtype);
    if (v->cval && tvs_ndarray_nbytes(&src->cval->t))
      memcpy(v->cval->t.data, src->cval->t.data, tvs_ndarray_nbytes(&src->cval->t));
  }
  if (src->ref) v->ref = xstrdup(src->ref);
}

const char *ox_dtype_name(DLDataType dt) {
  static char buf[8][24];
  static int k;
  k = (k + 1) % 8;
  return tvs_dtype_str(dt, buf[k]);
}

/* An inline constant's element. */
static void const_elem(StrBuf *sb, const DLTensor *t, int64_t i) {
  double x = tvs_ndarray_get_f64(t, i);
  if (t->dtype.code == kDLBool) sb_puts(sb, x != 0 ? "True" : "False");
  else if (t->dtype.code == kDLInt && t->dtype.bits == 64) sb_printf(sb, "%lld", (long long)((int64_t *)t->data)[i]);
  else if (t->dtype.code == kDLUInt && t->dtype.bits == 64) sb_printf(sb, "%llu", (unsigned long long)((uint64_t *)t->data)[i]);
  else if (t->dtype.code != kDLFloat) sb_printf(sb, "%.0f", x);
  else {
    char num[40];
    snprintf(num, sizeof num, t->dtype.bits == 64 ? "%.17g" : "%.9g", x);
    sb_puts(sb, num);
    if (!strpbrk(num, ".en")) sb_puts(sb, ".0");
  }
}

static void const_nested(StrBuf *sb, const DLTensor *t, int dim, int64_t *off) {
  if (dim == t->ndim) {
    const_elem(sb, t, (*off)++);
    return;
  }
  sb_putc(sb, '[');
  for (int64_t i = 0; i < t->shape[dim]; i++) {
    if (i) sb_puts(sb, ", ");
    const_nested(sb, t, dim + 1, off);
  }
  sb_putc(sb, ']');
}

/* Whether a known value can be written inline (small, finite, a dtype R.const takes). */
static bool inlinable(const TvsNDArray *a) {
  int64_t n = tvs_ndarray_numel(&a->t);
  if (n > INLINE_CONST_MAX || n == 0 || (a->t.dtype.code == kDLFloat && a->t.dtype.bits == 16) ||
      a->t.dtype.code == kDLBfloat)
    return false;
  for (int64_t i = 0; i < n; i++)
    if (!isfinite(tvs_ndarray_get_f64(&a->t, i))) return false;
  return true;
}

static void add_param(OxCtx *c, const char *ident, const OxVal *v, bool weight) {
  if (c->params.len) sb_puts(&c->params, ",\n             ");
  sb_printf(&c->params, "%s: R.Tensor((", ident);
  for (int k = 0; k < v->ndim; k++) {
    if (k) sb_puts(&c->params, ", ");
    if (v->sym[k]) sb_printf(&c->params, "\"%s\"", v->sym[k]);
    else sb_printf(&c->params, "%lld", (long long)v->dims[k]);
  }
  sb_printf(&c->params, "%s), \"%s\")", v->ndim == 1 ? "," : "", ox_dtype_name(v->dt));
  if (weight) {
    VEC_RESERVE(c->wnames, c->capw, (size_t)c->nw + 1);
    VEC_RESERVE(c->warrs, c->capwa, (size_t)c->nw + 1);
    c->wnames[c->nw] = xstrdup(ident);
    c->warrs[c->nw++] = v->cval;
  }
}

const char *ox_ref(OxCtx *c, OxVal *v) {
  if (v->ref) return v->ref;
  if (!v->cval) { /* a value neither bound nor known: an importer bug, reported, never written */
    diag_error(c->d, span_none, "%s: value '%s' has no definition the importer can write", c->m->path, v->name);
    return v->ref = xstrdup("None");
  }
  if (inlinable(v->cval)) {
    StrBuf sb;
    sb_init(&sb);
    int64_t off = 0;
    sb_puts(&sb, "R.const(");
    const_nested(&sb, &v->cval->t, 0, &off);
    sb_printf(&sb, ", \"%s\")", ox_dtype_name(v->dt));
    return v->ref = sb_take(&sb);
  }
  char *ident = unique_ident(c, v->name);
  add_param(c, ident, v, true);
  return v->ref = xstrdup(ident);
}

/* ------------------------------------------------------------ text */

void ox_ints_text(StrBuf *sb, const int64_t *v, int n) {
  sb_putc(sb, '[');
  for (int i = 0; i < n; i++) sb_printf(sb, "%s%lld", i ? ", " : "", (long long)v[i]);
  sb_putc(sb, ']');
}

int ox_shape_arg(OxCtx *c, StrBuf *sb, int ndim, const int64_t *dims, char *const *sym) {
  int nsym = 0;
  if (ndim == 0) {
    sb_puts(sb, "R.shape([])");
    return 0;
  }
  sb_putc(sb, '(');
  for (int k = 0; k < ndim; k++) {
    if (k) sb_puts(sb, ", ");
    if (dims[k] < 0) nsym++, sb_puts(sb, "-1");
    else sb_printf(sb, "%lld", (long long)dims[k]);
  }
  sb_puts(sb, ndim == 1 ? ",)" : ")");
  if (nsym > 1) return ox_fail(c, "a reshape with %d symbolic sizes is not supported", nsym);
  return 0;
}

/* s for a `#` comment: control and non-ASCII bytes (a newline would end the
 * comment) become '?'. */
static void comment_text(StrBuf *sb, const char *s) {
  for (; *s; s++) sb_putc(sb, (unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f ? '?' : *s);
}

static void emit_line(OxCtx *c, const char *name, const char *expr) {
  const char *nn = c->node->name && *c->node->name ? c->node->name : c->node->op_type;
  sb_printf(&c->body, "            %s = %s  # ", name, expr);
  comment_text(&c->body, nn);
  sb_putc(&c->body, '\n');
}

const char *ox_tmp(OxCtx *c, const char *fmt, ...) {
  char *nm = xasprintf("%s_t%d", c->bind, ++c->ntmp);
  char *name = unique_ident(c, nm);
  free(nm);
  StrBuf sb;
  sb_init(&sb);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  emit_line(c, name, sb.data);
  sb_free(&sb);
  return name;
}

static OxVal *emit_v(OxCtx *c, int i, DLDataType dt, int ndim, const int64_t *dims, char *const *sym,
                     const char *fmt, va_list ap) {
  OxVal *v = ox_new_output(c, i);
  v->dt = dt;
  ox_set_shape(v, ndim, dims, sym);
  char *name;
  if (c->node->n_output <= 1) name = unique_ident(c, c->bind);
  else {
    char *nm = xasprintf("%s_%d", c->bind, i);
    name = unique_ident(c, nm);
    free(nm);
  }
  StrBuf sb;
  sb_init(&sb);
  sb_vprintf(&sb, fmt, ap);
  emit_line(c, name, sb.data);
  sb_free(&sb);
  v->ref = xstrdup(name);
  v->bound = true;
  return v;
}

OxVal *ox_emit(OxCtx *c, int i, DLDataType dt, int ndim, const int64_t *dims, char *const *sym, const char *fmt,
               ...) {
  va_list ap;
  va_start(ap, fmt);
  OxVal *v = emit_v(c, i, dt, ndim, dims, sym, fmt, ap);
  va_end(ap);
  return v;
}

OxVal *ox_emit_like(OxCtx *c, int i, const OxVal *like, DLDataType dt, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  OxVal *v = emit_v(c, i, dt, like->ndim, like->dims, like->sym, fmt, ap);
  va_end(ap);
  return v;
}

/* ------------------------------------------------------------ attributes */

const Onnx__AttributeProto *ox_attr(OxCtx *c, const char *name) {
  for (size_t i = 0; i < c->node->n_attribute; i++)
    if (c->node->attribute[i]->name && !strcmp(c->node->attribute[i]->name, name)) return c->node->attribute[i];
  return NULL;
}

int64_t ox_attr_int(OxCtx *c, const char *name, int64_t def) {
  const Onnx__AttributeProto *a = ox_attr(c, name);
  return a && a->has_i ? a->i : def;
}

double ox_attr_float(OxCtx *c, const char *name, double def) {
  const Onnx__AttributeProto *a = ox_attr(c, name);
  return a && a->has_f ? a->f : def;
}

const char *ox_attr_str(OxCtx *c, const char *name, const char *def, char buf[64]) {
  const Onnx__AttributeProto *a = ox_attr(c, name);
  if (!a || !a->has_s) return def;
  size_t n = a->s.len < 63 ? a->s.len : 63;
  if (n) memcpy(buf, a->s.data, n);
  buf[n] = 0;
  return buf;
}

int ox_attr_ints(OxCtx *c, const char *name, int64_t *out, int cap) {
  const Onnx__AttributeProto *a = ox_attr(c, name);
  if (!a) return -1;
  int n = (int)(a->n_ints < (size_t)cap ? a->n_ints : (size_t)cap);
  for (int i = 0; i < n; i++) out[i] = a->ints[i];
  return n;
}

static void node_prefix(OxCtx *c, StrBuf *sb) {
  sb_printf(sb, "%s: node '%s' (%s, opset %lld): ", c->m->path, c->node->name ? c->node->name : "",
            c->node->op_type, (long long)c->opset);
}

int ox_fail(OxCtx *c, const char *fmt, ...) {
  StrBuf sb;
  sb_init(&sb);
  node_prefix(c, &sb);
  va_list ap;
  va_start(ap, fmt);
  sb_vprintf(&sb, fmt, ap);
  va_end(ap);
  diag_error(c->d, span_none, "%s", sb.data);
  sb_free(&sb);
  return -1;
}

int ox_unsupported_attr(OxCtx *c, const char *attr, const char *why) {
  return ox_fail(c, "attribute '%s' %s is not supported", attr, why);
}

/* ------------------------------------------------------------ the graph */

/* Graph inputs that are not initializers become main's first parameters. */
static int add_inputs(OxCtx *c) {
  const Onnx__GraphProto *g = c->m->proto->graph;
  for (size_t i = 0; i < g->n_input; i++) {
    const Onnx__ValueInfoProto *in = g->input[i];
    if (ox_lookup(c, in->name)) continue; /* an initializer listed as an input (IR < 4) */
    const Onnx__TypeProto *tp = in->type;
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type) {
      diag_error(c->d, span_none, "%s: graph input '%s' is not a tensor (only tensor inputs are supported)",
                 c->m->path, in->name);
      return -1;
    }
    const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
    OxVal *v = new_val(c, in->name);
    if (!onnx_dtype(tt->elem_type, &v->dt)) {
      diag_error(c->d, span_none, "%s: graph input '%s' has element type %s, which is not supported", c->m->path,
                 in->name, onnx_type_name(tt->elem_type));
      return -1;
    }
    if (v->dt.code == kDLBfloat) { /* .npy files cannot carry it */
      diag_error(c->d, span_none, "%s: graph input '%s': element type bfloat16 is not supported", c->m->path, in->name);
      return -1;
    }
    if (!tt->shape || tt->shape->n_dim > OX_MAX_NDIM) {
      diag_error(c->d, span_none, "%s: graph input '%s' has no static rank (at most %d dimensions)", c->m->path,
                 in->name, OX_MAX_NDIM);
      return -1;
    }
    v->ndim = (int)tt->shape->n_dim;
    for (int k = 0; k < v->ndim; k++) {
      const Onnx__TensorShapeProto__Dimension *dm = tt->shape->dim[k];
      if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && dm->dim_value >= 0) {
        v->dims[k] = dm->dim_value;
        continue;
      }
      char *nm = dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && dm->dim_param[0]
                     ? xstrdup(dm->dim_param)
                     : xasprintf("%s_dim%d", in->name, k);
      v->dims[k] = -1;
      v->sym[k] = unique_ident(c, nm);
      free(nm);
      v->sym[k] = xstrdup(v->sym[k]);
    }
    v->ref = unique_ident(c, in->name);
    v->ref = xstrdup(v->ref);
    add_param(c, v->ref, v, false);
  }
  return 0;
}

static int add_initializers(OxCtx *c) {
  const Onnx__GraphProto *g = c->m->proto->graph;
  for (size_t i = 0; i < g->n_initializer; i++) {
    TvsNDArray *a = onnx_tensor_value(c->m, g->initializer[i], c->d);
    if (!a) return -1;
    OxVal *v = new_val(c, g->initializer[i]->name);
    v->dt = a->t.dtype;
    ox_set_shape(v, a->t.ndim, a->t.shape, NULL);
    v->cval = a;
  }
  return 0;
}

static const OxOpRow *find_row(OxCtx *c, const Onnx__NodeProto *n) {
  const OxOpRow *any = NULL;
  for (int i = 0; i < ox_nops; i++) {
    if (strcmp(ox_ops[i].op_type, n->op_type)) continue;
    any = &ox_ops[i];
    if (c->opset >= ox_ops[i].min_opset && c->opset <= ox_ops[i].max_opset) return &ox_ops[i];
  }
  if (any) ox_fail(c, "op %s is not supported at opset %lld (supported: opsets %d to %d)", n->op_type,
                   (long long)c->opset, any->min_opset, any->max_opset);
  else ox_fail(c, "op type '%s' is not supported", n->op_type);
  return NULL;
}

static bool attr_listed(const char *list, const char *name) {
  size_t n = strlen(name);
  if (!n) return false; /* (strstr would find "" everywhere, and never advance) */
  for (const char *p = list; (p = strstr(p, name)); p += n)
    if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n])) return true;
  return false;
}

static int convert_node(OxCtx *c, const Onnx__NodeProto *n) {
  c->node = n;
  if (n->domain && *n->domain && strcmp(n->domain, "ai.onnx"))
    return ox_fail(c, "op domain '%s' is not supported", n->domain);
  const OxOpRow *row = find_row(c, n);
  if (!row) return -1;
  for (size_t i = 0; i < n->n_attribute; i++)
    if (!attr_listed(row->attrs, n->attribute[i]->name))
      return ox_unsupported_attr(c, n->attribute[i]->name, "(of this op)");
  int nin = (int)n->n_input, rc;
  OxVal **in = xcalloc((size_t)nin + 1, sizeof *in);
  for (int i = 0; i < nin; i++)
    if (n->input[i][0]) in[i] = ox_lookup(c, n->input[i]);
  free(c->bind);
  c->bind = xstrdup(n->name && *n->name ? n->name : n->n_output ? n->output[0] : n->op_type);
  c->ntmp = 0;
  int before = c->nvals;
  rc = row->convert(c, in, nin);
  free(in);
  for (size_t i = 0; i < n->n_output && !rc; i++) {
    bool found = !n->output[i][0];
    for (int k = before; k < c->nvals && !found; k++) found = !strcmp(c->vals[k]->name, n->output[i]);
    if (!found) rc = ox_fail(c, "output %zu ('%s') is not supported", i, n->output[i]);
  }
  return rc;
}

/* Graph outputs must be variables bound in the dataflow block: inputs,
 * weights and known values get a binding of their own. */
static int finish(OxCtx *c, StrBuf *out) {
  const Onnx__GraphProto *g = c->m->proto->graph;
  StrBuf rets;
  sb_init(&rets);
  for (size_t i = 0; i < g->n_output; i++) {
    OxVal *v = ox_lookup(c, g->output[i]->name);
    if (v->dt.code == kDLBfloat) {
      diag_error(c->d, span_none, "%s: graph output '%s': element type bfloat16 is not supported", c->m->path, v->name);
      break;
    }
    const char *ref = ox_ref(c, v);
    if (!v->bound || v->cval) { /* an input, a weight or a known value: R.output needs a binding */
      StrBuf sh;
      sb_init(&sh);
      ox_shape_arg(c, &sh, v->ndim, v->dims, v->sym);
      char *nm = unique_ident(c, g->output[i]->name);
      sb_printf(&c->body, "            %s = R.reshape(%s, %s)  # graph output '", nm, ref, sh.data);
      comment_text(&c->body, g->output[i]->name);
      sb_puts(&c->body, "'\n");
      ref = nm;
      sb_free(&sh);
    }
    sb_printf(&rets, "%s%s", i ? ", " : "", ref);
  }
  const char *prod = c->m->proto->producer_name && *c->m->proto->producer_name ? c->m->proto->producer_name : "?";
  sb_puts(out, "# Imported from ");
  comment_text(out, c->m->path);
  sb_puts(out, " by tvs import (ONNX opset ");
  sb_printf(out, "%lld, producer ", (long long)c->opset);
  comment_text(out, prod);
  sb_puts(out, ").\n");
  sb_puts(out, "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n\n@I.ir_module\nclass Module:\n");
  sb_printf(out, "    @R.function\n    def main(%s):\n        with R.dataflow():\n", c->params.data ? c->params.data : "");
  sb_puts(out, c->body.data ? c->body.data : "");
  sb_printf(out, "            R.output(%s)\n", rets.data);
  sb_printf(out, g->n_output > 1 ? "        return (%s)\n" : "        return %s\n", rets.data);
  sb_free(&rets);
  return c->d->nerr ? -1 : 0;
}

static void ctx_free(OxCtx *c, bool keep_weights) {
  for (int i = 0; i < c->nvals; i++) {
    for (int k = 0; keep_weights && k < c->nw; k++)
      if (c->vals[i]->cval == c->warrs[k]) c->vals[i]->cval = NULL;
    free_val(c->vals[i]);
  }
  free(c->vals);
  for (int i = 0; i < c->nidents; i++) free(c->idents[i]);
  free(c->idents);
  if (!keep_weights)
    for (int i = 0; i < c->nw; i++) free(c->wnames[i]);
  if (!keep_weights) free(c->wnames), free(c->warrs);
  sb_free(&c->params);
  sb_free(&c->body);
  free(c->bind);
}

static int import_model(const OnnxModel *m, OnnxImport *out, DiagCtx *d) {
  OxCtx c;
  memset(&c, 0, sizeof c);
  c.m = m, c.d = d, c.opset = m->opset;
  sb_init(&c.params);
  sb_init(&c.body);
  if (m->opset < 1 || m->opset > 22) /* each op's row narrows this to the versions it implements */
    diag_error(d, span_none, "%s: ONNX opset %lld is not supported (opsets 1 to 22)", m->path, (long long)m->opset);
  int rc = d->nerr ? -1 : add_initializers(&c);
  if (!rc) rc = add_inputs(&c);
  for (int k = 0; k < m->norder && !rc; k++) rc = convert_node(&c, m->proto->graph->node[m->order[k]]);
  StrBuf text;
  sb_init(&text);
  if (!rc) rc = finish(&c, &text);
  if (!rc) {
    out->text = sb_take(&text);
    out->nweights = c.nw, out->weight_names = c.wnames, out->weights = c.warrs;
    out->opset = m->opset, out->nnodes = m->norder;
  }
  sb_free(&text);
  ctx_free(&c, rc == 0);
  return rc;
}

int onnx_import_bytes(const uint8_t *data, size_t len, const char *path, OnnxImport *out, DiagCtx *d) {
  memset(out, 0, sizeof *out);
  OnnxModel *m = onnx_model_parse(data, len, path, d);
  if (!m) return -1;
  int rc = import_model(m, out, d);
  onnx_model_free(m);
  return rc;
}

int onnx_import_file(const char *path, OnnxImport *out, DiagCtx *d) {
  memset(out, 0, sizeof *out);
  OnnxModel *m = onnx_model_read(path, d);
  if (!m) return -1;
  int rc = import_model(m, out, d);
  onnx_model_free(m);
  return rc;
}

void onnx_import_free(OnnxImport *r) {
  free(r->text);
  for (int i = 0; i < r->nweights; i++) {
    free(r->weight_names[i]);
    tvs_ndarray_free(r->weights[i]);
  }
  free(r->weight_names);
  free(r->weights);
  memset(r, 0, sizeof *r);
}
