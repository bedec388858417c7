/* relax_attrs.c - operator attributes: checking and normalizing a written
 * value against its schema entry, parsing schema defaults, typed reads.
 *
 * Every call of a registry operator stores all of its schema's attributes, in
 * schema order, defaults filled in, so that the printer writes them as TVM
 * does (R.nn.conv2d(x, w, strides=[1, 1], padding=[0, 0, 0, 0], ...)) and the
 * passes read one normalized form.  The elaborator (and the ONNX importer)
 * produce the raw IrValue; this file decides what it means. */
#include "ir/relax.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ defaults */

/* Parses a schema default: None, True/False, an int, a float, [ints...];
 * anything else is a string (layouts, dtypes, method names). */
static IrValue *parse_default(IrHeap *h, const char *t) {
  if (!strcmp(t, "None")) return irv_none(h);
  if (!strcmp(t, "True") || !strcmp(t, "False")) return irv_bool(h, t[0] == 'T');
  if (t[0] == '[') {
    IrValue *items[16];
    int n = 0;
    const char *p = t + 1;
    while (*p && *p != ']' && n < 16) {
      char *end;
      items[n++] = strpbrk(t, ".e") ? irv_float(h, strtod(p, &end)) : irv_int(h, strtoll(p, &end, 10));
      p = end;
      while (*p == ',' || *p == ' ') p++;
    }
    return irv_array(h, items, n);
  }
  char *end;
  long long i = strtoll(t, &end, 10);
  if (*t && !*end) return irv_int(h, i);
  double f = strtod(t, &end);
  if (*t && !*end && (isdigit((unsigned char)t[0]) || t[0] == '-' || t[0] == '.')) return irv_float(h, f);
  return irv_str(h, t);
}

/* ------------------------------------------------------------ normalize */

static bool is_int(const IrValue *v) { return v && v->kind == IRV_INT; }

static bool all_ints(const IrValue *v) {
  if (!v || v->kind != IRV_ARRAY) return false;
  for (int i = 0; i < v->n; i++)
    if (!is_int(v->items[i])) return false;
  return true;
}

/* An int list attribute expanded to spec->len (TVM's conv/pool rules). */
static IrValue *norm_ints(IrHeap *h, const RxAttrSpec *sp, const IrValue *v, StrBuf *err) {
  if (!is_int(v) && !all_ints(v)) {
    sb_printf(err, "attribute '%s' must be an integer or a list of integers", sp->name);
    return NULL;
  }
  int n = is_int(v) ? 1 : v->n, len = sp->len ? sp->len : n;
  if (len > 16) len = 16;
  IrValue *items[16];
  if (sp->len && n != 1 && n != len && !(len == 4 && n == 2)) {
    sb_printf(err, "attribute '%s' takes 1%s or %d integers, not %d", sp->name, len == 4 ? ", 2" : "", len, n);
    return NULL;
  }
  for (int i = 0; i < len; i++) {
    const IrValue *x = is_int(v) ? v : v->items[n == 1 ? 0 : i % n];
    items[i] = irv_int(h, x->i);
  }
  return irv_array(h, items, len);
}

static bool is_num(const IrValue *v) { return v && (v->kind == IRV_INT || v->kind == IRV_FLOAT); }

/* A number list attribute (resize2d's roi) expanded to sp->len like norm_ints. */
static IrValue *norm_floats(IrHeap *h, const RxAttrSpec *sp, const IrValue *v, StrBuf *err) {
  bool list = v->kind == IRV_ARRAY;
  for (int i = 0; list && i < v->n; i++) list = is_num(v->items[i]);
  if (!is_num(v) && !list) {
    sb_printf(err, "attribute '%s' must be a number or a list of numbers", sp->name);
    return NULL;
  }
  int n = list ? v->n : 1, len = sp->len ? sp->len : n;
  if (len > 16 || (sp->len && n != 1 && n != len)) {
    sb_printf(err, "attribute '%s' takes 1 or %d numbers, not %d", sp->name, len, n);
    return NULL;
  }
  IrValue *items[16];
  for (int i = 0; i < len; i++) {
    const IrValue *x = list ? v->items[n == 1 ? 0 : i] : v;
    items[i] = irv_float(h, x->kind == IRV_FLOAT ? x->f : (double)x->i);
  }
  return irv_array(h, items, len);
}

IrValue *rx_attr_normalize(IrHeap *h, const RxAttrSpec *sp, const IrValue *v, StrBuf *err) {
  if (!v) {
    if (!sp->default_text) {
      sb_printf(err, "attribute '%s' is required", sp->name);
      return NULL;
    }
    v = parse_default(h, sp->default_text);
    if (sp->kind == RX_ATTR_DTYPE || sp->kind == RX_ATTR_STR) return irv_str(h, sp->default_text);
  }
  switch (sp->kind) {
  case RX_ATTR_DTYPE:
  case RX_ATTR_STR:
    if (v->kind == IRV_STR) return (IrValue *)v;
    sb_printf(err, "attribute '%s' must be a string", sp->name);
    return NULL;
  case RX_ATTR_INT:
    if (is_int(v)) return (IrValue *)v;
    sb_printf(err, "attribute '%s' must be an integer", sp->name);
    return NULL;
  case RX_ATTR_FLOAT:
    if (v->kind == IRV_FLOAT) return (IrValue *)v;
    if (is_int(v)) return irv_float(h, (double)v->i);
    sb_printf(err, "attribute '%s' must be a number", sp->name);
    return NULL;
  case RX_ATTR_BOOL:
    if (v->kind == IRV_BOOL) return (IrValue *)v;
    if (v->kind == IRV_EXPR && v->expr && v->expr->kind == TIR_INT && dt_eq(v->expr->dtype, dt_bool))
      return irv_bool(h, v->expr->ival != 0);
    sb_printf(err, "attribute '%s' must be True or False", sp->name);
    return NULL;
  case RX_ATTR_INTS: return norm_ints(h, sp, v, err);
  case RX_ATTR_FLOATS: return norm_floats(h, sp, v, err);
  case RX_ATTR_AXES:
    if (v->kind == IRV_NONE) return (IrValue *)v;
    if (is_int(v)) {
      IrValue *one = irv_int(h, v->i);
      return irv_array(h, &one, 1);
    }
    if (all_ints(v)) return (IrValue *)v;
    sb_printf(err, "attribute '%s' must be None, an integer or a list of integers", sp->name);
    return NULL;
  case RX_ATTR_OPT_INT:
    if (v->kind == IRV_NONE || is_int(v)) return (IrValue *)v;
    sb_printf(err, "attribute '%s' must be None or an integer", sp->name);
    return NULL;
  case RX_ATTR_INDEX_MAP:
    if (v->kind == IRV_STR) return (IrValue *)v;
    sb_printf(err, "attribute '%s' must be a lambda", sp->name);
    return NULL;
  case RX_ATTR_OPT_NUM:
    if (v->kind == IRV_NONE || is_num(v)) return (IrValue *)v;
    sb_printf(err, "attribute '%s' must be None or a number", sp->name);
    return NULL;
  case RX_ATTR_INT_OR_INTS:
    if (is_int(v) || all_ints(v)) return (IrValue *)v;
    sb_printf(err, "attribute '%s' must be an integer or a list of integers", sp->name);
    return NULL;
  }
  sb_printf(err, "attribute '%s': unknown kind", sp->name);
  return NULL;
}

/* ------------------------------------------------------------ reads */

int64_t rx_attr_int(const IrValue *attrs, const char *name, int64_t def) {
  const IrValue *v = irv_dict_get(attrs, name);
  return v && (v->kind == IRV_INT || v->kind == IRV_BOOL) ? v->i : v && v->kind == IRV_FLOAT ? (int64_t)v->f : def;
}

double rx_attr_float(const IrValue *attrs, const char *name, double def) {
  const IrValue *v = irv_dict_get(attrs, name);
  return v && v->kind == IRV_FLOAT ? v->f : v && v->kind == IRV_INT ? (double)v->i : def;
}

bool rx_attr_bool(const IrValue *attrs, const char *name, bool def) {
  const IrValue *v = irv_dict_get(attrs, name);
  return v && (v->kind == IRV_BOOL || v->kind == IRV_INT) ? v->i != 0 : def;
}

const char *rx_attr_str(const IrValue *attrs, const char *name, const char *def) {
  const IrValue *v = irv_dict_get(attrs, name);
  return v && v->kind == IRV_STR ? v->s : def;
}

int rx_attr_ints(const IrValue *attrs, const char *name, int64_t *out, int cap) {
  const IrValue *v = irv_dict_get(attrs, name);
  if (!v || v->kind == IRV_NONE) return -1;
  if (v->kind == IRV_INT) {
    if (cap > 0) out[0] = v->i;
    return 1;
  }
  if (v->kind != IRV_ARRAY) return -1;
  for (int i = 0; i < v->n && i < cap; i++) out[i] = v->items[i]->kind == IRV_INT ? v->items[i]->i : 0;
  return v->n;
}

DType rx_attr_dtype(const IrValue *attrs, const char *name) {
  const char *s = rx_attr_str(attrs, name, NULL);
  DType t;
  if (!s || !strcmp(s, "void") || !dt_parse(s, &t)) return dt_void;
  return t;
}
