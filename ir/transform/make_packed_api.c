/* make_packed_api.c - MakePackedAPI (annotation only).
 *
 * Marks each prim_func with TVM's packed calling convention ("calling_conv":
 * 1, kCPackedFunc) and records in "tvs.bind_vars" the symbolic vars the entry
 * must bind from its arguments (shape, stride and elem_offset vars of the
 * buffer_map buffers, first occurrence order).  The actual unpacking and the
 * argument checks (count, dtype, ndim, shape, device) are left to the
 * backend and the runtime, which read buffer_map and these attributes. */
#include "ir/transform/xform_internal.h"

static void add_var(IrHeap *h, PtrVec *seen, PtrVec *items, const TirExpr *e) {
  if (!e || e->kind != TIR_VAR) return;
  for (int i = 0; i < seen->len; i++)
    if (seen->items[i] == e->var) return;
  pv_push(seen, e->var);
  pv_push(items, irv_expr(h, tir_var_ref(h, e->var)));
}

/* requires: the lowered function (runs last); ensures: attrs hold
 * "calling_conv" = 1 and "tvs.bind_vars" = [vars]; preserves: the body. */
TirFunc *tir_make_packed_api(TirPassCtx *ctx, TirFunc *f) {
  if (irv_dict_get(f->attrs, "calling_conv")) return f;
  IrHeap *h = ctx->heap;
  PtrVec seen = {0}, items = {0};
  for (int i = 0; i < f->nparams; i++)
    if (!f->buffer_map || !f->buffer_map[i]) pv_push(&seen, f->params[i]); /* scalars come as args */
  for (int i = 0; i < f->nparams; i++) {
    const TirBuffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    if (!b) continue;
    for (int d = 0; d < b->ndim; d++) add_var(h, &seen, &items, b->shape[d]);
    for (int d = 0; d < b->nstrides; d++) add_var(h, &seen, &items, b->strides[d]);
    add_var(h, &seen, &items, b->elem_offset);
  }
  IrValue *attrs = irv_dict_set(h, f->attrs, "calling_conv", irv_int(h, 1));
  attrs = irv_dict_set(h, attrs, "tvs.bind_vars", irv_array(h, (IrValue **)items.items, items.len));
  pv_free(&seen);
  pv_free(&items);
  TirFunc *c = ir_memdup(h, f, sizeof *f);
  c->attrs = attrs;
  return c;
}
