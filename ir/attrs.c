/* attrs.c - attribute value constructors. */
#include "ir/attrs.h"

#include <string.h>

static IrValue *mk(IrHeap *h, IrValueKind k) {
  IrValue *v = ir_alloc(h, sizeof *v);
  v->kind = k;
  return v;
}

IrValue *irv_none(IrHeap *h) { return mk(h, IRV_NONE); }
IrValue *irv_bool(IrHeap *h, bool b) { IrValue *v = mk(h, IRV_BOOL); v->i = b; return v; }
IrValue *irv_int(IrHeap *h, int64_t i) { IrValue *v = mk(h, IRV_INT); v->i = i; return v; }
IrValue *irv_float(IrHeap *h, double f) { IrValue *v = mk(h, IRV_FLOAT); v->f = f; return v; }
IrValue *irv_str(IrHeap *h, const char *s) { IrValue *v = mk(h, IRV_STR); v->s = ir_strdup(h, s); return v; }
IrValue *irv_expr(IrHeap *h, struct TirExpr *e) { IrValue *v = mk(h, IRV_EXPR); v->expr = e; return v; }
IrValue *irv_buffer(IrHeap *h, struct TirBuffer *b) { IrValue *v = mk(h, IRV_BUFFER); v->buf = b; return v; }

IrValue *irv_array(IrHeap *h, IrValue **items, int n) {
  IrValue *v = mk(h, IRV_ARRAY);
  v->items = ir_memdup(h, items, (size_t)n * sizeof *items);
  v->n = n;
  return v;
}

IrValue *irv_dict(IrHeap *h, const char **keys, IrValue **vals, int n) {
  IrValue *v = mk(h, IRV_DICT);
  v->items = ir_memdup(h, vals, (size_t)n * sizeof *vals);
  v->keys = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *v->keys);
  for (int i = 0; i < n; i++) v->keys[i] = ir_strdup(h, keys[i]);
  v->n = n;
  return v;
}

const IrValue *irv_dict_get(const IrValue *d, const char *key) {
  if (!d || d->kind != IRV_DICT) return NULL;
  for (int i = 0; i < d->n; i++)
    if (!strcmp(d->keys[i], key)) return d->items[i];
  return NULL;
}

IrValue *irv_dict_set(IrHeap *h, const IrValue *d, const char *key, IrValue *val) {
  int n = d && d->kind == IRV_DICT ? d->n : 0;
  const char **keys = ir_alloc(h, (size_t)(n + 1) * sizeof *keys);
  IrValue **vals = ir_alloc(h, (size_t)(n + 1) * sizeof *vals);
  int m = 0, found = 0;
  for (int i = 0; i < n; i++) {
    if (!strcmp(d->keys[i], key)) {
      found = 1;
      if (!val) continue;
      keys[m] = d->keys[i];
      vals[m++] = val;
    } else {
      keys[m] = d->keys[i];
      vals[m++] = d->items[i];
    }
  }
  if (!found && val) {
    keys[m] = key;
    vals[m++] = val;
  }
  return irv_dict(h, keys, vals, m);
}
