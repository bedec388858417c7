/* lower_match_buffer.c - LowerMatchBuffer: block-level match_buffer views go away.
 *
 * `M = T.match_buffer(S[m0:m0+e0, ..., mk:mk+ek], shape)` makes M a view of
 * S's trailing dimensions (the interpreter's semantics): M[i0, ..., ij] is
 * S[m0, ..., m(lead-1), m(lead) + i0, ...].  Accesses and regions of M are
 * rewritten onto S; M's symbolic shape/stride/offset vars are substituted by
 * the values the match binds.  Opaque uses of M.data are reported. */
#include "ir/transform/xform_internal.h"

#include <stdlib.h>
#include <string.h>

/* How one matched buffer maps onto its (resolved) source. */
typedef struct MatchInfo {
  TirBuffer *src;     /* the underlying buffer */
  TirExpr **mins;     /* src->ndim region starts (in src indices) */
  int lead;           /* src->ndim - view ndim */
} MatchInfo;

typedef struct LmCtx {
  TirPassCtx *pc;
  IrPtrMap info;      /* matched TirBuffer* -> MatchInfo* */
  IrPtrMap data;      /* matched data TirVar* -> TirBuffer* */
  IrPtrMap vars;      /* shape/stride/offset var -> value */
  PtrVec infos;       /* MatchInfo* to free */
} LmCtx;

/* Indices of view m mapped onto its source (n == view ndim). */
static TirExpr **map_idx(IrHeap *h, const MatchInfo *mi, TirExpr **idx, int n) {
  int sn = mi->src->ndim;
  TirExpr **out = ir_alloc(h, (size_t)(sn ? sn : 1) * sizeof *out);
  for (int d = 0; d < sn; d++) {
    out[d] = mi->mins[d];
    int vd = d - mi->lead;
    if (vd >= 0 && vd < n) out[d] = xf_add(h, mi->mins[d], xf_cast_to(h, mi->mins[d]->dtype, idx[vd]));
  }
  return out;
}

/* Row-major (or explicit) stride of dimension d of b. */
static TirExpr *stride_of(IrHeap *h, const TirBuffer *b, int d) {
  if (b->strides && b->nstrides == b->ndim) return b->strides[d];
  TirExpr *s = xf_int(h, b->ndim ? b->shape[d]->dtype : dt_int32, 1);
  for (int k = b->ndim - 1; k > d; k--) s = xf_mul(h, s, xf_cast_to(h, s->dtype, b->shape[k]));
  return s;
}

static void register_match(LmCtx *c, TirMutator *m, const TirMatchBuffer *mb, Span sp) {
  IrHeap *h = m->heap;
  const TirBufferRegion *r = &mb->source;
  TirBuffer *M = mb->buffer;
  MatchInfo *mi = xcalloc(1, sizeof *mi);
  pv_push(&c->infos, mi);
  TirExpr **mins = ir_alloc(h, (size_t)(r->n ? r->n : 1) * sizeof *mins);
  for (int d = 0; d < r->n; d++) mins[d] = tir_mutate_expr(m, r->ranges[d].min);
  MatchInfo *outer = ir_ptrmap_get(&c->info, r->buffer);
  if (outer) { /* a view of a view: compose */
    mi->src = outer->src;
    mi->mins = map_idx(h, outer, mins, r->n);
  } else {
    mi->src = r->buffer;
    mi->mins = mins;
  }
  mi->lead = r->buffer->ndim - M->ndim;
  if (mi->lead < 0 || r->n != r->buffer->ndim) {
    if (c->pc->diag)
      diag_error(c->pc->diag, sp, "lower-match-buffer: '%s' has more dimensions than its source '%s'",
                 M->name, r->buffer->name);
    mi->lead = 0;
  }
  if (outer) mi->lead = mi->src->ndim - M->ndim;
  ir_ptrmap_put(&c->info, M, mi);
  ir_ptrmap_put(&c->data, M->data, M);
  /* the vars the match binds */
  for (int i = 0; i < M->ndim; i++) {
    int sd = r->buffer->ndim - M->ndim + i;
    if (M->shape[i]->kind == TIR_VAR && sd >= 0 && sd < r->n)
      ir_ptrmap_put(&c->vars, M->shape[i]->var, tir_mutate_expr(m, r->ranges[sd].extent));
    if (M->strides && M->nstrides == M->ndim && M->strides[i]->kind == TIR_VAR && sd >= 0)
      ir_ptrmap_put(&c->vars, M->strides[i]->var, stride_of(h, r->buffer, sd));
  }
  if (M->elem_offset && M->elem_offset->kind == TIR_VAR) {
    const TirBuffer *S = r->buffer;
    TirExpr *off = S->elem_offset ? S->elem_offset : xf_int(h, dt_int32, 0);
    for (int d = 0; d < r->n; d++)
      off = xf_add(h, off, xf_mul(h, xf_cast_to(h, off->dtype, mins[d]), xf_cast_to(h, off->dtype, stride_of(h, S, d))));
    ir_ptrmap_put(&c->vars, M->elem_offset->var, off);
  }
}

static TirExpr *lm_load(TirMutator *m, TirExpr *e) {
  LmCtx *c = m->ctx;
  TirExpr *r = tir_mutate_expr_children(m, e);
  MatchInfo *mi = ir_ptrmap_get(&c->info, r->load.buf);
  if (!mi) return r;
  TirExpr *out = tir_load(m->heap, mi->src, map_idx(m->heap, mi, r->load.idx, r->load.n), mi->src->ndim);
  out->span = e->span;
  return out;
}

static TirStmt *lm_store(TirMutator *m, TirStmt *s) {
  LmCtx *c = m->ctx;
  TirStmt *r = tir_mutate_stmt_children(m, s);
  MatchInfo *mi = ir_ptrmap_get(&c->info, r->store.buf);
  if (!mi) return r;
  TirStmt *out = tir_store(m->heap, mi->src, r->store.value, map_idx(m->heap, mi, r->store.idx, r->store.n),
                           mi->src->ndim);
  out->span = s->span;
  return out;
}

static TirExpr *lm_var(TirMutator *m, TirExpr *e) {
  LmCtx *c = m->ctx;
  if (ir_ptrmap_has(&c->data, e->var) && c->pc->diag) {
    const TirBuffer *b = ir_ptrmap_get(&c->data, e->var);
    diag_error(c->pc->diag, e->span.file ? e->span : b->span,
               "lower-match-buffer: the data pointer of match_buffer '%s' is used directly; "
               "it cannot be lowered", b->name);
  }
  return tir_mutate_expr_children(m, e);
}

/* Regions of matched buffers become the corresponding source region. */
static TirBufferRegion *lm_regions(LmCtx *c, IrHeap *h, TirBufferRegion *rs, int n) {
  TirBufferRegion *out = rs;
  for (int i = 0; i < n; i++) {
    MatchInfo *mi = ir_ptrmap_get(&c->info, rs[i].buffer);
    if (!mi) continue;
    if (out == rs) out = ir_memdup(h, rs, (size_t)n * sizeof *rs);
    TirExpr **mins = ir_alloc(h, (size_t)(rs[i].n ? rs[i].n : 1) * sizeof *mins);
    for (int d = 0; d < rs[i].n; d++) mins[d] = rs[i].ranges[d].min;
    TirExpr **sm = map_idx(h, mi, mins, rs[i].n);
    TirRange *rg = ir_alloc(h, (size_t)(mi->src->ndim ? mi->src->ndim : 1) * sizeof *rg);
    for (int d = 0; d < mi->src->ndim; d++) {
      int vd = d - mi->lead;
      rg[d].min = sm[d];
      rg[d].extent = vd >= 0 && vd < rs[i].n ? rs[i].ranges[vd].extent : xf_int(h, sm[d]->dtype, 1);
    }
    out[i].buffer = mi->src;
    out[i].ranges = rg;
    out[i].n = mi->src->ndim;
  }
  return out;
}

static TirStmt *lm_block(TirMutator *m, TirStmt *s) {
  LmCtx *c = m->ctx;
  for (int i = 0; i < s->block.nmatches; i++) register_match(c, m, &s->block.matches[i], s->span);
  TirStmt *r = s;
  if (s->block.nmatches) {
    TirBlock nb = s->block;
    nb.matches = NULL;
    nb.nmatches = 0;
    r = tir_block(m->heap, &nb);
    r->span = s->span;
  }
  r = tir_mutate_stmt_children(m, r);
  TirBufferRegion *rd = lm_regions(c, m->heap, r->block.reads, r->block.nreads);
  TirBufferRegion *wr = lm_regions(c, m->heap, r->block.writes, r->block.nwrites);
  if (rd == r->block.reads && wr == r->block.writes) return r;
  TirBlock nb = r->block;
  nb.reads = rd;
  nb.writes = wr;
  TirStmt *out = tir_block(m->heap, &nb);
  out->span = r->span;
  return out;
}

/* requires: convert-blocks-to-opaque ran; ensures: no block has
 * match_buffers, every access goes to a buffer defined by an alloc_buffer,
 * a param or a DeclBuffer; errors: opaque uses of a matched buffer's data. */
TirFunc *tir_lower_match_buffer(TirPassCtx *ctx, TirFunc *f) {
  LmCtx c;
  memset(&c, 0, sizeof c);
  c.pc = ctx;
  TirMutator m;
  tir_mutator_init(&m, ctx->heap);
  m.stmt[TIR_S_BLOCK] = lm_block;
  m.stmt[TIR_S_STORE] = lm_store;
  m.expr[TIR_LOAD] = lm_load;
  m.expr[TIR_VAR] = lm_var;
  m.ctx = &c;
  TirStmt *body = tir_mutate_stmt(&m, f->body);
  tir_mutator_free(&m);
  if (c.vars.len) body = tir_substitute_stmt(ctx->heap, body, &c.vars);
  for (int i = 0; i < c.infos.len; i++) free(c.infos.items[i]);
  pv_free(&c.infos);
  ir_ptrmap_free(&c.info);
  ir_ptrmap_free(&c.data);
  ir_ptrmap_free(&c.vars);
  return xf_with_body(ctx->heap, f, body);
}
