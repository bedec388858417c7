/* primitive_scope.c - buffer-placement primitives: get_output_blocks,
 * set_scope and storage_align.
 *
 * get_output_blocks lists the blocks under a scope block that write a buffer
 * their own scope root does not allocate (for a flat function: the blocks
 * writing its parameters).  set_scope gives a block-allocated buffer a new
 * storage scope: the buffer object is rebuilt and every reference to it in
 * the function (the alloc_buffer, regions, loads and stores) is redirected.
 * storage_align records `buffer_dim_align` in the block's annotations; it is
 * consumed at lowering. */
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"

/* ------------------------------------------------------- get_output_blocks */

static bool allocates(const TirBlock *b, const TirBuffer *buf) {
  for (int i = 0; i < b->nallocs; i++)
    if (b->allocs[i] == buf) return true;
  return false;
}

/* Walks st collecting realizes (pre-order) whose block writes a buffer that
 * scope, the innermost enclosing block, does not allocate. */
static void collect_outputs(TirStmt *st, const TirBlock *scope, PtrVec *out) {
  if (st->kind == TIR_S_BLOCK_REALIZE) {
    const TirBlock *b = tir_realize_block(st);
    bool output = false;
    for (int w = 0; w < b->nwrites && !output; w++) output = !allocates(scope, b->writes[w].buffer);
    if (output) pv_push(out, st);
    scope = b;
  }
  TirStmt *kids[64];
  int n = sch_children(st, kids, 64);
  TirStmt **all = kids;
  if (st->kind == TIR_S_SEQ && st->seq.n > 64) all = st->seq.stmts, n = st->seq.n;
  for (int i = 0; i < n; i++) collect_outputs(all[i], scope, out);
}

int sch_get_output_blocks(Schedule *s, SchRV scope_block, SchRV **out) {
  SchPath p = {0};
  *out = NULL;
  TirStmt *r = sch_find_block(s, scope_block, "get_output_blocks", 0, &p);
  sch_path_free(&p);
  if (!r) return -1;
  const TirBlock *b = tir_realize_block(r);
  PtrVec res = {0};
  if (b->init) collect_outputs(b->init, b, &res);
  collect_outputs(b->body, b, &res);
  const char *func = s->rvs[scope_block].func;
  SchRV *rvs = xmalloc((size_t)(res.len ? res.len : 1) * sizeof *rvs);
  for (int i = 0; i < res.len; i++) rvs[i] = sch_block_rv(s, func, res.items[i]);
  SchVal arg = sch_val_rv(scope_block);
  sch_record(s, "get_output_blocks", &arg, 1, rvs, res.len);
  int n = res.len;
  pv_free(&res);
  *out = rvs;
  return n;
}

/* --------------------------------------------------------- shared lookups */

/* The realize (path filled) of the block allocating buf, searched from st. */
static bool find_allocator(TirStmt *st, const TirBuffer *buf, SchPath *path) {
  sch_path_push(path, st);
  if (st->kind == TIR_S_BLOCK && allocates(&st->block, buf)) return true;
  TirStmt *kids[64];
  int n = sch_children(st, kids, 64);
  TirStmt **all = kids;
  if (st->kind == TIR_S_SEQ && st->seq.n > 64) all = st->seq.stmts, n = st->seq.n;
  for (int i = 0; i < n; i++)
    if (find_allocator(all[i], buf, path)) return true;
  path->n--;
  return false;
}

/* The write buffer `index` of the block, after the checks shared by set_scope
 * and storage_align: index in range, buffer allocated by a block (not a
 * function parameter or a match_buffer view).  NULL after an error. */
static TirBuffer *allocated_write_buffer(Schedule *s, const char *prim, const TirBlock *b,
                                         int index, const char *func) {
  if (index < 0 || index >= b->nwrites) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
             "%s: buffer index %d is out of range [0, %d) of the writes of block '%s'", prim, index,
             b->nwrites, b->name);
    return NULL;
  }
  TirBuffer *buf = b->writes[index].buffer;
  TirFunc *f = sch_cur_func(s, func);
  if (!f) return NULL;
  if (sch_is_param_buffer(f, buf)) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1, "%s: buffer '%s' is a function parameter", prim,
             buf->name);
    return NULL;
  }
  SchPath ap = {0};
  bool found = find_allocator(f->body, buf, &ap);
  sch_path_free(&ap);
  if (!found) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
             "%s: buffer '%s' written by block '%s' is not allocated by a block", prim, buf->name,
             b->name);
    return NULL;
  }
  return buf;
}

/* ---------------------------------------------------------------- set_scope */

static const char *norm_scope(const char *scope) { return scope && *scope ? scope : "global"; }

/* A view of the buffer gets its new scope too, as TVM's set_scope gives it. */
static TirBuffer *scoped_view(IrHeap *h, const TirBuffer *view, const TirBuffer *nsrc) {
  TirBuffer *nv = tir_buffer_copy(h, view);
  nv->scope = nsrc->scope;
  return nv;
}

int sch_set_scope(Schedule *s, SchRV block, int buffer_index, const char *storage_scope) {
  const char *prim = "set_scope";
  SchPath bp = {0};
  TirStmt *realize = sch_find_block(s, block, prim, 0, &bp);
  sch_path_free(&bp);
  if (!realize) return -1;
  const TirBlock *b = tir_realize_block(realize);
  const char *func = s->rvs[block].func;
  if (!sch_valid_storage_scope(storage_scope)) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 2, "%s: the storage scope \"%s\" is invalid", prim,
             storage_scope);
    return -1;
  }
  TirBuffer *buf = allocated_write_buffer(s, prim, b, buffer_index, func);
  if (!buf) return -1;
  TirFunc *f = sch_cur_func(s, func);
  if (!f) return -1;
  IrModule *nm = sch_begin(s);
  IrHeap *h = nm->heap;
  TirStmt *body = f->body;
  if (strcmp(norm_scope(buf->scope), norm_scope(storage_scope)) != 0) {
    TirBuffer *nb = tir_buffer_copy(h, buf);
    nb->scope = ir_strdup(h, norm_scope(storage_scope));
    body = sch_replace_buffer_views(h, f->body, buf, nb, scoped_view);
  }
  /* An unchanged scope is a no-op, still a version so undo pairs with the trace. */
  sch_commit(s, nm, func, body);
  SchVal args[3] = {sch_val_rv(block), sch_val_int(buffer_index), sch_val_str(storage_scope)};
  sch_record(s, prim, args, 3, NULL, 0);
  return 0;
}

/* ------------------------------------------------------------ storage_align */

static bool is_int_quad(const IrValue *v) {
  if (!v || v->kind != IRV_ARRAY || v->n != 4) return false;
  for (int i = 0; i < 4; i++)
    if (!v->items[i] || v->items[i]->kind != IRV_INT) return false;
  return true;
}

int sch_storage_align(Schedule *s, SchRV block, int buffer_index, int axis, int factor,
                      int offset) {
  const char *prim = "storage_align";
  SchPath bp = {0};
  TirStmt *realize = sch_find_block(s, block, prim, 0, &bp);
  if (!realize) return sch_path_free(&bp), -1;
  const TirBlock *b = tir_realize_block(realize);
  const char *func = s->rvs[block].func;
  TirBuffer *buf = allocated_write_buffer(s, prim, b, buffer_index, func);
  if (!buf) return sch_path_free(&bp), -1;
  if (factor <= 0) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 3, "%s: factor %d of buffer '%s' must be positive", prim,
             factor, buf->name);
    return sch_path_free(&bp), -1;
  }
  int ndim = buf->ndim;
  if (axis < -ndim || axis >= ndim) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 2, "%s: axis %d is out of range [%d, %d) of buffer '%s'",
             prim, axis, -ndim, ndim, buf->name);
    return sch_path_free(&bp), -1;
  }
  int ax = axis < 0 ? axis + ndim : axis;
  const IrValue *old = irv_dict_get(b->annotations, "buffer_dim_align");
  if (old) {
    bool ok = old->kind == IRV_ARRAY;
    for (int i = 0; ok && i < old->n; i++) ok = is_int_quad(old->items[i]);
    if (!ok) {
      sch_fail(s, SCH_ERR_LOOP_KIND, 0,
               "%s: the \"buffer_dim_align\" annotation of block '%s' is malformed (expected "
               "a list of [buffer_index, axis, factor, offset])",
               prim, b->name);
      return sch_path_free(&bp), -1;
    }
  }
  IrModule *nm = sch_begin(s);
  IrHeap *h = nm->heap;
  int nold = old ? old->n : 0;
  IrValue **items = ir_alloc(h, (size_t)(nold + 1) * sizeof *items);
  IrValue *q[4] = {irv_int(h, buffer_index), irv_int(h, ax), irv_int(h, factor), irv_int(h, offset)};
  IrValue **qa = ir_alloc(h, sizeof q);
  memcpy(qa, q, sizeof q);
  IrValue *entry = irv_array(h, qa, 4);
  int n = 0;
  bool replaced = false;
  for (int i = 0; i < nold; i++) {
    const IrValue *e = old->items[i];
    if (e->items[0]->i == buffer_index && e->items[1]->i == ax) {
      items[n++] = entry;
      replaced = true;
    } else {
      items[n++] = old->items[i];
    }
  }
  if (!replaced) items[n++] = entry;
  TirBlock nb = *b;
  nb.annotations = irv_dict_set(h, b->annotations, "buffer_dim_align", irv_array(h, items, n));
  TirStmt *nw = sch_realize_with(h, realize, &nb, NULL, NULL);
  TirStmt *root = sch_replace_at(h, &bp, bp.n - 1, nw);
  sch_path_free(&bp);
  sch_commit(s, nm, func, root);
  SchVal args[5] = {sch_val_rv(block), sch_val_int(buffer_index), sch_val_int(axis),
                    sch_val_int(factor), sch_val_int(offset)};
  sch_record(s, prim, args, 5, NULL, 0);
  return 0;
}
