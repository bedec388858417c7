/* primitive_block_iters.c - primitives that rewrite one block's signature:
 * reorder_block_iter_var, unsafe_set_dtype, annotate_buffer_access (their
 * method-table entries are in primitive_reindex.c).
 *
 * reorder_block_iter_var permutes a block's iters and their bindings.
 * unsafe_set_dtype changes the element type of a block-allocated buffer,
 * casting what is stored into it and what is loaded from it (match_buffer
 * views of it change type too).  annotate_buffer_access replaces one read or
 * write region by ranges computed from the block iters and records the
 * region's index in the block annotation "explicit_read_region" /
 * "explicit_write_region" (a list of ints), which TVM's buffer compaction
 * takes as the accessed region of that buffer inside the block. */
#include <stdlib.h>
#include <string.h>

#include "parser/parser.h"
#include "sched/index_map.h"
#include "sched/sched_internal.h"

/* --------------------------------------------------- reorder_block_iter_var */

int sch_reorder_block_iter_var(Schedule *s, SchRV block, const int64_t *new_order, int n) {
  const char *prim = "reorder_block_iter_var";
  SchPath bp = {0};
  TirStmt *realize = sch_find_block(s, block, prim, 0, &bp);
  if (!realize) return sch_path_free(&bp), -1;
  const TirBlock *b = tir_realize_block(realize);
  const char *func = s->rvs[block].func;
  bool ok = n == b->niters;
  for (int i = 0; ok && i < n; i++) {
    ok = new_order[i] >= 0 && new_order[i] < b->niters;
    for (int j = 0; ok && j < i; j++) ok = new_order[j] != new_order[i];
  }
  if (!ok) {
    StrBuf sb;
    sb_init(&sb);
    for (int i = 0; i < n; i++) sb_printf(&sb, "%s%lld", i ? ", " : "", (long long)new_order[i]);
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
             "%s: new_order [%s] is not a permutation of [0, %d) (block '%s' has %d block "
             "iters)", prim, sb.data ? sb.data : "", b->niters, b->name, b->niters);
    sb_free(&sb);
    return sch_path_free(&bp), -1;
  }
  IrModule *nm = sch_begin(s);
  IrHeap *h = nm->heap;
  TirBlock nb = *b;
  nb.iters = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *nb.iters);
  TirExpr **vals = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *vals);
  for (int i = 0; i < n; i++) {
    nb.iters[i] = b->iters[new_order[i]];
    vals[i] = realize->realize.values[new_order[i]];
  }
  TirStmt *nr = sch_realize_with(h, realize, &nb, vals, NULL);
  TirStmt *root = sch_replace_at(h, &bp, bp.n - 1, nr);
  sch_path_free(&bp);
  sch_commit(s, nm, func, root);
  sch_rekey_block_handles(s, b, tir_realize_block(nr));
  SchVal args[2] = {sch_val_rv(block), sch_val_none()};
  args[1].kind = SV_LIST;
  args[1].items = xmalloc((size_t)(n ? n : 1) * sizeof *args[1].items);
  for (int i = 0; i < n; i++) args[1].items[i] = sch_val_int(new_order[i]);
  args[1].n = n;
  sch_record(s, prim, args, 2, NULL, 0);
  return 0;
}

/* --------------------------------------------------------- unsafe_set_dtype */

/* The buffers retyped: the target and its match_buffer views. */
typedef struct Retype {
  const TirBuffer **old;
  TirBuffer **nw;
  int n, cap;
  DType src, dst;  /* the old and the new element type */
  const TirBuffer *find; /* allocation search target */
  bool found;
} Retype;

static TirBuffer *retyped(const Retype *r, const TirBuffer *b) {
  for (int i = 0; i < r->n; i++)
    if (r->old[i] == b) return r->nw[i];
  return NULL;
}

static void retype_add(Retype *r, IrHeap *h, const TirBuffer *b) {
  if (retyped(r, b)) return;
  /* old and nw share cap: grow the first, follow with the second. */
  int cap = r->cap;
  VEC_RESERVE(r->old, cap, r->n + 1);
  if (cap != r->cap) {
    r->cap = cap;
    r->nw = xrealloc(r->nw, (size_t)cap * sizeof *r->nw);
  }
  TirBuffer *nb = tir_buffer_copy(h, b);
  nb->dtype = r->dst;
  nb->data = ir_memdup(h, b->data, sizeof *b->data);
  nb->data->ptr_elem = r->dst;
  r->old[r->n] = b;
  r->nw[r->n++] = nb;
}

/* Finds the allocation of r->find and the match_buffer views of it. */
static bool scan_pre(TirVisitor *v, const TirStmt *st) {
  Retype *r = v->ctx;
  if (st->kind != TIR_S_BLOCK) return true;
  for (int i = 0; i < st->block.nallocs; i++)
    if (st->block.allocs[i] == r->find) r->found = true;
  return true;
}

static bool views_pre(TirVisitor *v, const TirStmt *st) {
  void **ctx = v->ctx;
  Retype *r = ctx[0];
  IrHeap *h = ctx[1];
  if (st->kind != TIR_S_BLOCK) return true;
  for (int i = 0; i < st->block.nmatches; i++)
    if (retyped(r, st->block.matches[i].source.buffer)) retype_add(r, h, st->block.matches[i].buffer);
  return true;
}

static void collect_views(Retype *r, IrHeap *h, const TirStmt *st) {
  void *ctx[2] = {r, h};
  TirVisitor v = {0};
  v.ctx = ctx;
  v.pre_stmt = views_pre;
  tir_visit_stmt(&v, st);
}

static TirBuffer *retype_buffer(TirMutator *m, TirBuffer *b) { return retyped(m->ctx, b); }

static TirExpr *retype_load(TirMutator *m, TirExpr *e) {
  Retype *r = m->ctx;
  bool hit = retyped(r, e->load.buf) != NULL;
  TirExpr *x = tir_mutate_expr_children(m, e);
  if (!hit) return x;
  if (x == e) x = tir_load(m->heap, retyped(r, e->load.buf), e->load.idx, e->load.n);
  x->dtype = dt_with_lanes(r->dst, e->dtype.lanes);
  return tir_cast(m->heap, e->dtype, x);
}

static TirStmt *retype_store(TirMutator *m, TirStmt *st) {
  Retype *r = m->ctx;
  bool hit = retyped(r, st->store.buf) != NULL;
  TirStmt *x = tir_mutate_stmt_children(m, st);
  if (!hit) return x;
  TirExpr *v = x->store.value;
  TirStmt *y = tir_store(m->heap, retyped(r, st->store.buf),
                         tir_cast(m->heap, dt_with_lanes(r->dst, v->dtype.lanes), v), x->store.idx,
                         x->store.n);
  y->span = st->span;
  return y;
}

int sch_unsafe_set_dtype(Schedule *s, SchRV block, int buffer_index, const char *dtype) {
  const char *prim = "unsafe_set_dtype";
  SchPath bp = {0};
  TirStmt *realize = sch_find_block(s, block, prim, 0, &bp);
  sch_path_free(&bp);
  if (!realize) return -1;
  const TirBlock *b = tir_realize_block(realize);
  const char *func = s->rvs[block].func;
  if (buffer_index < 0 || buffer_index >= b->nwrites) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
             "%s: buffer index %d is out of range [0, %d) of the writes of block '%s'", prim,
             buffer_index, b->nwrites, b->name);
    return -1;
  }
  TirBuffer *buf = b->writes[buffer_index].buffer;
  DType dt;
  if (!dtype || !dt_parse(dtype, &dt) || dt_is_void(dt) || dt_is_handle(dt) || dt.lanes != 1) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 2, "%s: \"%s\" is not a valid data type", prim, dtype ? dtype : "");
    return -1;
  }
  TirFunc *f = sch_cur_func(s, func);
  if (!f) return -1;
  TirStmt *body = f->body;
  IrModule *nm = NULL;
  if (!dt_eq(dt, buf->dtype)) {
    if (sch_is_param_buffer(f, buf)) {
      sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
               "%s: buffer '%s' is a function parameter; only a buffer allocated by a block "
               "can change its dtype", prim, buf->name);
      return -1;
    }
    Retype r = {0};
    r.find = buf;
    TirVisitor v = {0};
    v.ctx = &r;
    v.pre_stmt = scan_pre;
    tir_visit_stmt(&v, f->body);
    if (!r.found) {
      sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
               "%s: buffer '%s' written by block '%s' is not allocated by a block", prim,
               buf->name, b->name);
      return -1;
    }
    nm = sch_begin(s);
    IrHeap *h = nm->heap;
    r.src = buf->dtype;
    r.dst = dt;
    retype_add(&r, h, buf);
    collect_views(&r, h, f->body);
    TirMutator m;
    tir_mutator_init(&m, h);
    m.ctx = &r;
    m.buffer = retype_buffer;
    m.expr[TIR_LOAD] = retype_load;
    m.stmt[TIR_S_STORE] = retype_store;
    body = tir_mutate_stmt(&m, f->body);
    tir_mutator_free(&m);
    free(r.old);
    free(r.nw);
  } else {
    nm = sch_begin(s);
  }
  /* The same dtype is a no-op, still a version so undo pairs with the trace. */
  sch_commit(s, nm, func, body);
  SchVal args[3] = {sch_val_rv(block), sch_val_int(buffer_index), sch_val_str(dtype)};
  sch_record(s, prim, args, 3, NULL, 0);
  return 0;
}

/* --------------------------------------------------- annotate_buffer_access */

/* Appends the source text of node e, with any parentheses its span cut off
 * restored so that it reads as one expression. */
static void append_expr_text(StrBuf *sb, const SourceFile *src, const Ast *e) {
  const char *t = src->text + e->span.off;
  int opens = 0, closes = 0;
  for (uint32_t i = 0; i < e->span.len; i++) {
    if (t[i] == '(' || t[i] == '[') opens++;
    if ((t[i] == ')' || t[i] == ']') && opens > 0) opens--;
    else if (t[i] == ')' || t[i] == ']') closes++;
  }
  sb_puts(sb, "(");
  for (int i = 0; i < closes; i++) sb_puts(sb, "(");
  sb_printf(sb, "%.*s", (int)e->span.len, t);
  for (int i = 0; i < opens; i++) sb_puts(sb, ")");
  sb_puts(sb, ")");
}

/* Rewrites `lambda vi, vj: ((b0, e0), x1)` as the flat index map
 * `lambda vi, vj: (b0, e0, x1, x1 + 1)`; NULL (and *why) when the text is
 * not such a lambda.  The result is malloc'd. */
static char *flatten_ranges(const char *text, const char **why) {
  SchLambdaText lt;
  sch_lambda_text_parse(&lt, "<gen_new_ranges>", text);
  const SourceFile *src = lt.src;
  const Ast *lam = lt.lambda;
  char *out = NULL;
  *why = "it is not a lambda";
  if (lam) {
    StrBuf sb;
    sb_init(&sb);
    sb_puts(&sb, "lambda ");
    for (int i = 0; i < lam->list.len; i++) {
      const Ast *p = lam->list.items[i];
      sb_printf(&sb, "%s%s", i ? ", " : "", p->name ? p->name : "*");
    }
    sb_puts(&sb, ": (");
    const Ast *body = lam->a;
    const Ast *one[1] = {body};
    Ast *const *items = (Ast *const *)one;
    int n = 1;
    if (body->kind == AST_TUPLE || body->kind == AST_LIST) items = body->list.items, n = body->list.len;
    bool ok = n > 0;
    for (int i = 0; ok && i < n; i++) {
      const Ast *it = items[i];
      if (i) sb_puts(&sb, ", ");
      if (it->kind == AST_TUPLE || it->kind == AST_LIST) {
        if (it->list.len != 2) {
          ok = false;
          *why = "a range must be a (begin, end) pair";
          break;
        }
        append_expr_text(&sb, src, it->list.items[0]);
        sb_puts(&sb, ", ");
        append_expr_text(&sb, src, it->list.items[1]);
      } else {
        append_expr_text(&sb, src, it);
        sb_puts(&sb, ", ");
        append_expr_text(&sb, src, it);
        sb_puts(&sb, " + 1");
      }
    }
    sb_puts(&sb, ",)");
    if (ok) out = sb_take(&sb);
    sb_free(&sb);
    if (!ok && n == 0) *why = "it gives no ranges";
  }
  sch_lambda_text_free(&lt);
  return out;
}

/* Block b with region buffer_index of its reads or writes replaced by the
 * ranges map gives over its iters, and the index added to its
 * explicit_read_region / explicit_write_region annotation. */
static TirBlock build_access_block(IrHeap *h, const TirBlock *b, const SchIndexMap *map, bool is_write,
                                   int buffer_index) {
  int nregs = is_write ? b->nwrites : b->nreads;
  const TirBufferRegion *reg = is_write ? &b->writes[buffer_index] : &b->reads[buffer_index];
  TirExpr **iv = ir_alloc(h, (size_t)(b->niters ? b->niters : 1) * sizeof *iv);
  for (int i = 0; i < b->niters; i++) iv[i] = tir_var_ref(h, b->iters[i].var);
  TirExpr **ix = ir_alloc(h, (size_t)map->ndst * sizeof *ix);
  sch_index_map_apply(h, map, iv, ix);
  ArithCtx *a = arith_new(h);
  TirBufferRegion nr = {reg->buffer, ir_alloc(h, (size_t)(reg->n ? reg->n : 1) * sizeof(TirRange)),
                        reg->n};
  for (int d = 0; d < reg->n; d++) {
    TirExpr *lo = arith_simplify(a, ix[2 * d]);
    nr.ranges[d].min = lo;
    nr.ranges[d].extent = arith_simplify(a, tir_binary(h, TIR_SUB, ix[2 * d + 1], ix[2 * d]));
  }
  arith_free(a);
  TirBlock nb = *b;
  TirBufferRegion *regs = ir_alloc(h, (size_t)nregs * sizeof *regs);
  memcpy(regs, is_write ? b->writes : b->reads, (size_t)nregs * sizeof *regs);
  regs[buffer_index] = nr;
  if (is_write) nb.writes = regs;
  else nb.reads = regs;
  const char *key = is_write ? "explicit_write_region" : "explicit_read_region";
  const IrValue *old = irv_dict_get(b->annotations, key);
  bool present = false;
  int nold = old && old->kind == IRV_ARRAY ? old->n : 0;
  for (int i = 0; i < nold; i++)
    present |= old->items[i] && old->items[i]->kind == IRV_INT && old->items[i]->i == buffer_index;
  if (!present) {
    IrValue **items = ir_alloc(h, (size_t)(nold + 1) * sizeof *items);
    for (int i = 0; i < nold; i++) items[i] = old->items[i];
    items[nold] = irv_int(h, buffer_index);
    nb.annotations = irv_dict_set(h, b->annotations, key, irv_array(h, items, nold + 1));
  }
  return nb;
}

int sch_annotate_buffer_access(Schedule *s, SchRV block, int buffer_index, const char *buf_type,
                               const char *gen_new_ranges) {
  const char *prim = "annotate_buffer_access";
  SchPath bp = {0};
  IrModule *nm = NULL;
  char *flat = NULL;
  int rc = -1;
  TirStmt *realize = sch_find_block(s, block, prim, 0, &bp);
  if (!realize) goto done;
  const TirBlock *b = tir_realize_block(realize);
  const char *func = s->rvs[block].func;
  if (!buf_type || (strcmp(buf_type, "read") && strcmp(buf_type, "write"))) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 2, "%s: buf_type must be \"read\" or \"write\", got \"%s\"", prim,
             buf_type ? buf_type : "");
    goto done;
  }
  bool is_write = !strcmp(buf_type, "write");
  int nregs = is_write ? b->nwrites : b->nreads;
  if (buffer_index < 0 || buffer_index >= nregs) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
             "%s: buffer index %d is out of range [0, %d) of the %s of block '%s'", prim,
             buffer_index, nregs, is_write ? "writes" : "reads", b->name);
    goto done;
  }
  const TirBufferRegion *reg = is_write ? &b->writes[buffer_index] : &b->reads[buffer_index];
  const char *why = NULL;
  flat = flatten_ranges(gen_new_ranges, &why);
  if (!flat) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 3,
             "%s: invalid gen_new_ranges '%s': %s", prim, gen_new_ranges, why);
    goto done;
  }
  nm = sch_begin(s);
  IrHeap *h = nm->heap;
  DType it = b->niters ? b->iters[0].var->dtype : dt_int32;
  SchIndexMap map;
  if (sch_index_map_parse(s, h, flat, it, prim, 3, &map)) goto done;
  if (map.nsrc != b->niters) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 3,
             "%s: gen_new_ranges takes %d arguments but block '%s' has %d block iters", prim,
             map.nsrc, b->name, b->niters);
    goto done;
  }
  if (map.ndst != 2 * reg->n) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 3,
             "%s: gen_new_ranges gives %d ranges but buffer '%s' has %d dimensions", prim,
             map.ndst / 2, reg->buffer->name, reg->n);
    goto done;
  }
  TirBlock nb = build_access_block(h, b, &map, is_write, buffer_index);
  TirStmt *nw = sch_realize_with(h, realize, &nb, NULL, NULL);
  TirStmt *root = sch_replace_at(h, &bp, bp.n - 1, nw);
  sch_commit(s, nm, func, root);
  nm = NULL;
  SchVal args[4] = {sch_val_rv(block), sch_val_int(buffer_index), sch_val_str(buf_type),
                    sch_val_code(gen_new_ranges)};
  sch_record(s, prim, args, 4, NULL, 0);
  rc = 0;
done:
  if (nm) ir_module_free(nm);
  free(flat);
  sch_path_free(&bp);
  return rc;
}
