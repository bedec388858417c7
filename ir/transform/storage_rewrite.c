/* storage_rewrite.c - StorageRewrite (conservative): reuse dead allocations.
 *
 * Two Allocates that are direct members of one SeqStmt have disjoint
 * lifetimes.  When they have the same dtype, scope and one constant extent,
 * the later one reuses the earlier one's storage: both bodies (and the
 * statements between) move under a single Allocate, the later buffer's data
 * var renamed to the earlier one's.  Anything else is left alone (no
 * hoisting out of loops, no size-class packing). */
#include "ir/transform/xform_internal.h"

#include <string.h>

static bool same_storage(const TirStmt *a, const TirStmt *b) {
  int64_t ea, eb;
  if (a->kind != TIR_S_ALLOCATE || b->kind != TIR_S_ALLOCATE) return false;
  if (a->alloc.n != 1 || b->alloc.n != 1) return false;
  if (!tir_is_const_int(a->alloc.extents[0], &ea) || !tir_is_const_int(b->alloc.extents[0], &eb)) return false;
  const char *sa = a->alloc.scope ? a->alloc.scope : "global", *sb = b->alloc.scope ? b->alloc.scope : "global";
  return ea == eb && dt_eq(a->alloc.dtype, b->alloc.dtype) && !strcmp(sa, sb);
}

static TirStmt *rewrite_seq(TirMutator *m, TirStmt *s) {
  TirStmt *r = tir_mutate_stmt_children(m, s);
  if (!r || r->kind != TIR_S_SEQ) return r;
  IrHeap *h = m->heap;
  int n = r->seq.n;
  TirStmt **st = ir_memdup(h, r->seq.stmts, (size_t)n * sizeof *st);
  bool changed = false;
  for (int i = 0; i < n; i++) {
    for (int j = i + 1; j < n; j++) {
      if (!same_storage(st[i], st[j])) continue;
      /* merge st[j] into st[i]: Allocate(a, seq(body_i, st[i+1..j-1], body_j[b := a])) */
      TirStmt **parts = ir_alloc(h, (size_t)(j - i + 1) * sizeof *parts);
      int k = 0;
      parts[k++] = st[i]->alloc.body;
      for (int q = i + 1; q < j; q++) parts[k++] = st[q];
      parts[k++] = tir_substitute_stmt1(h, st[j]->alloc.body, st[j]->alloc.var,
                                        tir_var_ref(h, st[i]->alloc.var));
      TirStmt *merged = tir_stmt_with_span(h, st[i], st[i]->span);
      merged->alloc.body = tir_seq(h, parts, k);
      st[i] = merged;
      memmove(&st[i + 1], &st[j + 1], (size_t)(n - j - 1) * sizeof *st);
      n -= j - i;
      changed = true;
      j = i; /* look for more partners after the merged statement */
    }
  }
  return changed ? tir_seq(h, st, n) : r;
}

/* requires: lower-opaque-block and flatten-buffer ran (Allocate with one
 * extent); ensures: sibling allocations of equal size/dtype/scope share one
 * Allocate; preserves: every access (only data vars are renamed). */
TirFunc *tir_storage_rewrite(TirPassCtx *ctx, TirFunc *f) {
  TirMutator m;
  tir_mutator_init(&m, ctx->heap);
  m.stmt[TIR_S_SEQ] = rewrite_seq;
  TirStmt *body = tir_mutate_stmt(&m, f->body);
  tir_mutator_free(&m);
  return xf_with_body(ctx->heap, f, body);
}
