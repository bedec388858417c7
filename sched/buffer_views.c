/* buffer_views.c - replacing a buffer together with its match_buffer views.
 *
 * set_scope and set_axis_separator give a buffer a new property; TVM gives
 * each block-level view of it (`V = T.match_buffer(B[...], ...)`) the
 * matching property too (ReplaceBufferMutator's match-buffer rewrite). */
#include "sched/sched_internal.h"

typedef struct ViewSwap {
  IrPtrMap map; /* old buffer or view -> its replacement */
} ViewSwap;

static void collect_views(IrHeap *h, TirStmt *st, const TirBuffer *old, TirBuffer *nw, SchViewFn fn,
                          IrPtrMap *map) {
  if (st->kind == TIR_S_BLOCK)
    for (int i = 0; i < st->block.nmatches; i++) {
      const TirMatchBuffer *mb = &st->block.matches[i];
      if (mb->source.buffer == old && !ir_ptrmap_has(map, mb->buffer))
        ir_ptrmap_put(map, mb->buffer, fn(h, mb->buffer, nw));
    }
  TirStmt *kids[64];
  int n = sch_children(st, kids, 64);
  TirStmt **all = kids;
  if (st->kind == TIR_S_SEQ && st->seq.n > 64) all = st->seq.stmts, n = st->seq.n;
  for (int i = 0; i < n; i++) collect_views(h, all[i], old, nw, fn, map);
}

static TirBuffer *view_swap(TirMutator *m, TirBuffer *b) {
  ViewSwap *vs = m->ctx;
  return ir_ptrmap_get(&vs->map, b);
}

TirStmt *sch_replace_buffer_views(IrHeap *h, TirStmt *body, const TirBuffer *old, TirBuffer *nw,
                                  SchViewFn fn) {
  ViewSwap vs;
  ir_ptrmap_init(&vs.map);
  ir_ptrmap_put(&vs.map, old, nw);
  if (fn) collect_views(h, body, old, nw, fn, &vs.map);
  TirMutator m;
  tir_mutator_init(&m, h);
  m.ctx = &vs;
  m.buffer = view_swap;
  TirStmt *out = tir_mutate_stmt(&m, body);
  tir_mutator_free(&m);
  ir_ptrmap_free(&vs.map);
  return out;
}
