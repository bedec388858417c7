/* buffer_views.c - swap a buffer through a function body, its match_buffer
 * views following it.
 *
 * Primitives that rebuild a buffer with a new property (set_scope,
 * set_axis_separator) rebuild the views that alias it too, as TVM's
 * ReplaceBufferMutator does: a view of a swapped buffer is replaced by
 * derive(view, new source), and views of that view in turn. */
#include "sched/sched_internal.h"

typedef struct ViewScan {
  IrPtrMap *map;
  IrHeap *h;
  SchViewDerive derive;
  void *ctx;
} ViewScan;

/* Blocks are visited outer first, so a view's source is swapped before it. */
static bool scan_views(TirVisitor *v, const TirStmt *st) {
  ViewScan *vs = v->ctx;
  if (st->kind != TIR_S_BLOCK_REALIZE) return true;
  const TirBlock *b = tir_realize_block(st);
  for (int i = 0; i < b->nmatches; i++) {
    TirBuffer *src = ir_ptrmap_get(vs->map, b->matches[i].source.buffer);
    if (src && !ir_ptrmap_has(vs->map, b->matches[i].buffer))
      ir_ptrmap_put(vs->map, b->matches[i].buffer, vs->derive(vs->h, b->matches[i].buffer, src, vs->ctx));
  }
  return true;
}

static TirBuffer *swap_mapped(TirMutator *m, TirBuffer *b) { return ir_ptrmap_get(m->ctx, b); }

TirStmt *sch_swap_buffer_and_views(IrHeap *h, TirStmt *body, const TirBuffer *old, TirBuffer *nw,
                                   SchViewDerive derive, void *ctx) {
  IrPtrMap map;
  ir_ptrmap_init(&map);
  ir_ptrmap_put(&map, old, nw);
  ViewScan vs = {&map, h, derive, ctx};
  TirVisitor v = {.pre_stmt = scan_views, .ctx = &vs};
  tir_visit_stmt(&v, body);
  TirMutator m;
  tir_mutator_init(&m, h);
  m.ctx = &map;
  m.buffer = swap_mapped;
  TirStmt *out = tir_mutate_stmt(&m, body);
  tir_mutator_free(&m);
  ir_ptrmap_free(&map);
  return out;
}
