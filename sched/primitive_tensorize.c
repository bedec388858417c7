/* primitive_tensorize.c - tensorize (its method-table entry is in
 * primitive_blockize.c's sch_methods_blockize).
 *
 * tensorize(block_or_loop, name) blockizes a loop first (the new `<b>_o`
 * block), then matches the block against the description of the registered
 * tensor intrinsic `name` (sched/tensor_intrin.h):
 *   - the block's body against the description's root block body,
 *     structurally up to renaming of loop and block vars: loop extents and
 *     kinds, block iters (types, domains, bindings), predicates, init, and
 *     every expression; each description buffer maps to one buffer here;
 *   - buffer accesses up to an offset: the block accesses the mapped buffer
 *     at base + the description's indices, where base comes from the
 *     block's region of that buffer (its start, less the description
 *     region's start); leading extra dimensions must have extent 1 and are
 *     accessed at their base.  The regions' extents must be equal.
 * Then the block's body becomes (a fresh copy of) the implementation's root
 * block body, each implementation buffer bound to the matched region of the
 * block's buffer with T.match_buffer.  The block keeps its iters, regions,
 * init and handle; the implementation's root block annotations are added. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ir/structural_equal.h"
#include "sched/sched_internal.h"
#include "sched/tensor_intrin.h"

/* One access to compare once the bases are known. */
typedef struct Access {
  const TirBuffer *desc_buf;
  TirExpr **cur_idx;   /* cur_buf->ndim indices in the block */
  TirExpr **desc_idx;  /* desc_buf->ndim indices, desc vars replaced by the block's */
  const char *where;   /* for messages */
} Access;

typedef struct Matcher {
  IrHeap *h;
  ArithCtx *ctx;       /* ranges of the block's loops and iters */
  IrPtrMap vars;       /* desc TirVar* -> TirExpr* (a reference to the block's var) */
  IrPtrMap bufs;       /* desc TirBuffer* -> block TirBuffer* */
  IrPtrMap rbufs;      /* block TirBuffer* -> desc TirBuffer* */
  Access *acc;
  int nacc, capacc;
  StrBuf why;          /* the first difference */
  bool failed;
} Matcher;

static void mismatch(Matcher *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void mismatch(Matcher *m, const char *fmt, ...) {
  if (m->failed) return;
  m->failed = true;
  va_list ap;
  va_start(ap, fmt);
  char buf[512];
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  sb_puts(&m->why, buf);
}

static char *expr_text(const TirExpr *e) {
  StrBuf sb;
  sb_init(&sb);
  print_tir_expr(&sb, e);
  return sb_take(&sb);
}

static void mismatch_expr(Matcher *m, const char *what, const TirExpr *cur, const TirExpr *desc) {
  char *a = expr_text(cur), *b = expr_text(desc);
  mismatch(m, "%s: `%s` vs `%s` in the description", what, a, b);
  free(a);
  free(b);
}

static bool map_buffer(Matcher *m, const TirBuffer *desc, const TirBuffer *cur) {
  const TirBuffer *have = ir_ptrmap_get(&m->bufs, desc);
  if (have && have != cur) {
    mismatch(m, "buffer '%s' of the description is matched by both '%s' and '%s'", desc->name, have->name,
             cur->name);
    return false;
  }
  const TirBuffer *rhave = ir_ptrmap_get(&m->rbufs, cur);
  if (rhave && rhave != desc) {
    mismatch(m, "buffer '%s' matches both '%s' and '%s' of the description", cur->name, rhave->name,
             desc->name);
    return false;
  }
  if (!dt_eq(desc->dtype, cur->dtype)) {
    char x[32], y[32];
    mismatch(m, "buffer '%s' has dtype %s but '%s' of the description has %s", cur->name,
             dt_str(cur->dtype, x), desc->name, dt_str(desc->dtype, y));
    return false;
  }
  if (cur->ndim < desc->ndim) {
    mismatch(m, "buffer '%s' has %d dimensions, fewer than the %d of '%s' in the description", cur->name,
             cur->ndim, desc->ndim, desc->name);
    return false;
  }
  ir_ptrmap_put(&m->bufs, desc, (void *)cur);
  ir_ptrmap_put(&m->rbufs, cur, (void *)desc);
  return true;
}

static TirExpr *desc_subst(Matcher *m, const TirExpr *e) { return tir_substitute_expr(m->h, e, &m->vars); }

static void record_access(Matcher *m, const TirBuffer *desc, const TirBuffer *cur, TirExpr **cur_idx,
                          int ncur, TirExpr **desc_idx, int ndesc, const char *where) {
  if (!map_buffer(m, desc, cur)) return;
  if (ncur != cur->ndim || ndesc != desc->ndim) {
    mismatch(m, "%s: wrong number of indices", where);
    return;
  }
  TirExpr **di = ir_alloc(m->h, (size_t)(ndesc ? ndesc : 1) * sizeof *di);
  for (int i = 0; i < ndesc; i++) di[i] = desc_subst(m, desc_idx[i]);
  Access a = {desc, cur_idx, di, where};
  VEC_PUSH(m->acc, m->nacc, m->capacc, a);
}

static void match_expr(Matcher *m, const TirExpr *c, const TirExpr *d);

static void match_exprs(Matcher *m, TirExpr *const *c, TirExpr *const *d, int n) {
  for (int i = 0; i < n && !m->failed; i++) match_expr(m, c[i], d[i]);
}

/* Expressions: the same tree, desc vars mapped to the block's vars. */
static void match_expr(Matcher *m, const TirExpr *c, const TirExpr *d) {
  if (m->failed) return;
  if (!c || !d) {
    if (c != d) mismatch(m, "an expression is missing on one side");
    return;
  }
  if (d->kind == TIR_VAR && ir_ptrmap_has(&m->vars, d->var)) {
    const TirExpr *want = ir_ptrmap_get(&m->vars, d->var);
    if (!seq_tir_expr(c, want)) mismatch_expr(m, "a variable differs", c, d);
    return;
  }
  if (c->kind != d->kind || !dt_eq(c->dtype, d->dtype)) {
    mismatch_expr(m, "an expression differs", c, d);
    return;
  }
  switch (c->kind) {
    case TIR_INT:
      if (c->ival != d->ival) mismatch_expr(m, "a constant differs", c, d);
      return;
    case TIR_FLOAT:
      if (c->fval != d->fval) mismatch_expr(m, "a constant differs", c, d);
      return;
    case TIR_STR:
      if (strcmp(c->str, d->str)) mismatch_expr(m, "a string differs", c, d);
      return;
    case TIR_VAR:
      if (c->var != d->var) mismatch_expr(m, "a variable differs", c, d);
      return;
    case TIR_LOAD:
      record_access(m, d->load.buf, c->load.buf, c->load.idx, c->load.n, d->load.idx, d->load.n,
                    "a load");
      return;
    case TIR_SELECT:
      match_expr(m, c->sel.cond, d->sel.cond);
      match_expr(m, c->sel.t, d->sel.t);
      match_expr(m, c->sel.f, d->sel.f);
      return;
    case TIR_RAMP:
      if (c->ramp.lanes != d->ramp.lanes) mismatch_expr(m, "a ramp differs", c, d);
      match_expr(m, c->ramp.base, d->ramp.base);
      match_expr(m, c->ramp.stride, d->ramp.stride);
      return;
    case TIR_BROADCAST:
      if (c->bcast.lanes != d->bcast.lanes) mismatch_expr(m, "a broadcast differs", c, d);
      match_expr(m, c->bcast.value, d->bcast.value);
      return;
    case TIR_LET:
      match_expr(m, c->let.value, d->let.value);
      ir_ptrmap_put(&m->vars, d->let.var, tir_var_ref(m->h, c->let.var));
      match_expr(m, c->let.body, d->let.body);
      return;
    case TIR_CALL:
      if (c->call.op != d->call.op || c->call.n != d->call.n) {
        mismatch_expr(m, "a call differs", c, d);
        return;
      }
      match_exprs(m, c->call.args, d->call.args, c->call.n);
      return;
    case TIR_NOT:
    case TIR_CAST:
      match_expr(m, c->un.a, d->un.a);
      return;
    default: /* binary kinds */
      match_expr(m, c->bin.a, d->bin.a);
      match_expr(m, c->bin.b, d->bin.b);
      return;
  }
}

/* Index-like expressions (loop bounds, iter domains, bindings): provably
 * equal once desc vars are mapped. */
static void match_value(Matcher *m, const char *what, TirExpr *c, const TirExpr *d) {
  if (m->failed) return;
  TirExpr *ds = desc_subst(m, d);
  if (!dt_eq(c->dtype, ds->dtype) && dt_is_integer(c->dtype) && dt_is_integer(ds->dtype))
    ds = tir_cast(m->h, c->dtype, ds);
  if (!arith_can_prove_equal(m->ctx, c, ds)) mismatch_expr(m, what, c, d);
}

static void match_stmt(Matcher *m, const TirStmt *c, const TirStmt *d, const char *at);

static void match_block(Matcher *m, const TirStmt *c, const TirStmt *d) {
  const TirBlock *cb = tir_realize_block(c), *db = tir_realize_block(d);
  if (cb->niters != db->niters) {
    mismatch(m, "block '%s' has %d iters, block '%s' of the description %d", cb->name, cb->niters,
             db->name, db->niters);
    return;
  }
  for (int k = 0; k < cb->niters && !m->failed; k++) {
    const TirIterVar *ci = &cb->iters[k], *di = &db->iters[k];
    if (ci->type != di->type) {
      mismatch(m, "iter '%s' of block '%s' differs in kind from '%s' in the description", ci->var->name,
               cb->name, di->var->name);
      return;
    }
    match_value(m, "an iter domain differs", ci->dom.min, di->dom.min);
    match_value(m, "an iter domain differs", ci->dom.extent, di->dom.extent);
    match_value(m, "a block binding differs", c->realize.values[k], d->realize.values[k]);
    ir_ptrmap_put(&m->vars, di->var, tir_var_ref(m->h, ci->var));
    arith_bind_range(m->ctx, ci->var, ci->dom.min, ci->dom.extent);
  }
  if (m->failed) return;
  bool ct = sch_is_trivial_pred(c->realize.pred), dtr = sch_is_trivial_pred(d->realize.pred);
  if (ct != dtr) mismatch(m, "block '%s' %s a predicate (T.where) and the description's does not", cb->name,
                          ct ? "lacks" : "has");
  else if (!ct) match_expr(m, c->realize.pred, d->realize.pred);
  if (!cb->init != !db->init) {
    mismatch(m, "block '%s' %s an init statement (T.init) and the description's does not", cb->name,
             cb->init ? "has" : "lacks");
    return;
  }
  if (cb->init) match_stmt(m, cb->init, db->init, "init");
  match_stmt(m, cb->body, db->body, "body");
}

/* "loop 'k'", "block 'update'", "a Store" for messages. */
static const char *stmt_what(const TirStmt *st, char *buf, size_t n) {
  if (st->kind == TIR_S_FOR) snprintf(buf, n, "loop '%s'", st->loop.var->name);
  else if (st->kind == TIR_S_BLOCK_REALIZE) snprintf(buf, n, "block '%s'", tir_realize_block(st)->name);
  else if (st->kind == TIR_S_STORE) snprintf(buf, n, "a store to '%s'", st->store.buf->name);
  else snprintf(buf, n, "a %s", tir_stmt_kind_name(st->kind));
  return buf;
}

static void match_stmt(Matcher *m, const TirStmt *c, const TirStmt *d, const char *at) {
  if (m->failed) return;
  if (c->kind != d->kind) {
    char a[160], b[160];
    mismatch(m, "%s where the description has %s", stmt_what(c, a, sizeof a), stmt_what(d, b, sizeof b));
    return;
  }
  switch (c->kind) {
    case TIR_S_FOR:
      if (c->loop.kind != d->loop.kind) {
        mismatch(m, "loop '%s' has another kind than loop '%s' of the description", c->loop.var->name,
                 d->loop.var->name);
        return;
      }
      if (!arith_can_prove_equal(m->ctx, c->loop.min, desc_subst(m, d->loop.min)) ||
          !arith_can_prove_equal(m->ctx, c->loop.extent, desc_subst(m, d->loop.extent))) {
        char *a = expr_text(c->loop.extent), *b = expr_text(d->loop.extent);
        mismatch(m, "loop '%s' has extent %s, loop '%s' of the description %s", c->loop.var->name, a,
                 d->loop.var->name, b);
        free(a);
        free(b);
        return;
      }
      ir_ptrmap_put(&m->vars, d->loop.var, tir_var_ref(m->h, c->loop.var));
      arith_bind_range(m->ctx, c->loop.var, c->loop.min, c->loop.extent);
      match_stmt(m, c->loop.body, d->loop.body, at);
      return;
    case TIR_S_SEQ:
      if (c->seq.n != d->seq.n) {
        mismatch(m, "a sequence of %d statements where the description has %d", c->seq.n, d->seq.n);
        return;
      }
      for (int i = 0; i < c->seq.n; i++) match_stmt(m, c->seq.stmts[i], d->seq.stmts[i], at);
      return;
    case TIR_S_BLOCK_REALIZE: match_block(m, c, d); return;
    case TIR_S_STORE:
      record_access(m, d->store.buf, c->store.buf, c->store.idx, c->store.n, d->store.idx, d->store.n,
                    "a store");
      match_expr(m, c->store.value, d->store.value);
      return;
    case TIR_S_IF:
      match_expr(m, c->ifs.cond, d->ifs.cond);
      match_stmt(m, c->ifs.then_s, d->ifs.then_s, at);
      if (!c->ifs.else_s != !d->ifs.else_s) mismatch(m, "an if with and one without else");
      else if (c->ifs.else_s) match_stmt(m, c->ifs.else_s, d->ifs.else_s, at);
      return;
    case TIR_S_LET:
      match_expr(m, c->let.value, d->let.value);
      ir_ptrmap_put(&m->vars, d->let.var, tir_var_ref(m->h, c->let.var));
      match_stmt(m, c->let.body, d->let.body, at);
      return;
    case TIR_S_EVAL: match_expr(m, c->eval.value, d->eval.value); return;
    default: mismatch(m, "a %s statement is not supported by tensorize", tir_stmt_kind_name(c->kind)); return;
  }
}

/* The region of buf among regs (NULL if absent). */
static const TirBufferRegion *region_of(const TirBufferRegion *regs, int n, const TirBuffer *buf) {
  for (int i = 0; i < n; i++)
    if (regs[i].buffer == buf) return &regs[i];
  return NULL;
}

/* Per description param: its block buffer and the base of each dimension. */
typedef struct Binding {
  const TirBuffer *cur;
  TirExpr **base;   /* cur->ndim */
} Binding;

/* Computes the bases from the regions and checks extents and accesses. */
static void match_regions(Matcher *m, const TirBlock *cb, const TirBlock *db, const TirFunc *desc,
                          Binding *bind) {
  for (int p = 0; p < desc->nparams && !m->failed; p++) {
    const TirBuffer *dbuf = desc->buffer_map[p];
    const TirBuffer *cur = ir_ptrmap_get(&m->bufs, dbuf);
    if (!cur) {
      mismatch(m, "buffer '%s' of the description is not accessed the same way here", dbuf->name);
      return;
    }
    bool dwrite = region_of(db->writes, db->nwrites, dbuf) != NULL;
    const TirBufferRegion *dr = dwrite ? region_of(db->writes, db->nwrites, dbuf)
                                       : region_of(db->reads, db->nreads, dbuf);
    const TirBufferRegion *cr = dwrite ? region_of(cb->writes, cb->nwrites, cur)
                                       : region_of(cb->reads, cb->nreads, cur);
    if (!cr) cr = region_of(cb->writes, cb->nwrites, cur);
    if (!cr) cr = region_of(cb->reads, cb->nreads, cur);
    if (!dr || !cr) {
      mismatch(m, "buffer '%s' (for '%s' of the description) has no %s region in block '%s'", cur->name,
               dbuf->name, dwrite ? "write" : "read", cb->name);
      return;
    }
    if (dwrite && !region_of(cb->writes, cb->nwrites, cur)) {
      mismatch(m, "block '%s' does not write buffer '%s' as the description writes '%s'", cb->name, cur->name,
               dbuf->name);
      return;
    }
    int off = cur->ndim - dbuf->ndim;
    TirExpr **base = ir_alloc(m->h, (size_t)(cur->ndim ? cur->ndim : 1) * sizeof *base);
    for (int d = 0; d < cur->ndim && !m->failed; d++) {
      const TirRange *c = &cr->ranges[d];
      if (d < off) {
        if (!tir_is_one(arith_simplify(m->ctx, c->extent)))
          mismatch(m, "dimension %d of the region of buffer '%s' must have extent 1 (it has no counterpart in "
                      "'%s' of the description)",
                   d, cur->name, dbuf->name);
        base[d] = c->min;
        continue;
      }
      const TirRange *r = &dr->ranges[d - off];
      TirExpr *dext = tir_cast(m->h, c->extent->dtype, r->extent);
      if (!arith_can_prove_equal(m->ctx, c->extent, dext)) {
        char *a = expr_text(c->extent), *b = expr_text(r->extent);
        mismatch(m, "the region of buffer '%s' has extent %s in dimension %d, the description's '%s' %s",
                 cur->name, a, d, dbuf->name, b);
        free(a);
        free(b);
        return;
      }
      base[d] = arith_simplify(m->ctx, tir_binary(m->h, TIR_SUB, c->min,
                                                  tir_cast(m->h, c->min->dtype, r->min)));
    }
    bind[p] = (Binding){cur, base};
  }
  /* Every access: cur index == base + desc index. */
  for (int i = 0; i < m->nacc && !m->failed; i++) {
    const Access *a = &m->acc[i];
    int p = 0;
    while (p < desc->nparams && desc->buffer_map[p] != a->desc_buf) p++;
    if (p == desc->nparams) {
      mismatch(m, "buffer '%s' of the description is not a parameter", a->desc_buf->name);
      return;
    }
    const Binding *bd = &bind[p];
    int off = bd->cur->ndim - a->desc_buf->ndim;
    for (int d = 0; d < bd->cur->ndim && !m->failed; d++) {
      TirExpr *want = bd->base[d];
      if (d >= off)
        want = tir_binary(m->h, TIR_ADD, want, tir_cast(m->h, want->dtype, a->desc_idx[d - off]));
      if (!arith_can_prove_equal(m->ctx, a->cur_idx[d], want)) {
        char *x = expr_text(a->cur_idx[d]), *y = expr_text(arith_simplify(m->ctx, want));
        mismatch(m, "%s of buffer '%s' uses index %s in dimension %d where the description implies %s",
                 a->where, bd->cur->name, x, d, y);
        free(x);
        free(y);
      }
    }
  }
}

/* ------------------------------------------- a fresh copy of the impl body */

typedef struct Fresh {
  IrPtrMap bufs;  /* impl buffer -> fresh copy */
} Fresh;

static TirVar *fresh_var(TirMutator *mu, TirVar *v) {
  TirVar *nv = tir_var(mu->heap, v->name, v->dtype);
  *nv = *v;
  return nv;
}

static TirBuffer *fresh_buffer(TirMutator *mu, TirBuffer *b) {
  Fresh *f = mu->ctx;
  TirBuffer *nb = ir_ptrmap_get(&f->bufs, b);
  if (nb) return nb;
  nb = tir_buffer_copy(mu->heap, b);
  nb->data = fresh_var(mu, b->data);
  ir_ptrmap_put(&f->bufs, b, nb);
  return nb;
}

/* ---------------------------------------------------------------- tensorize */

/* The registered intrinsic named name (NULL after an error that lists the
 * registered ones). */
static const TensorIntrin *check_tensor_intrin(Schedule *s, const char *name, const char *prim) {
  const TensorIntrin *in = tensor_intrin_get(name);
  if (in) return in;
  StrBuf names;
  sb_init(&names);
  for (int i = 0; tensor_intrin_at(i); i++) sb_printf(&names, "%s'%s'", i ? ", " : "", tensor_intrin_at(i)->name);
  sch_fail(s, SCH_ERR_NOT_FOUND, 1, "%s: no tensor intrinsic named '%s' is registered (registered: %s)", prim,
           name, names.len ? names.data : "none");
  sb_free(&names);
  return NULL;
}

/* Matches block cb (at path p) against the intrinsic's description: fills
 * m's maps and bind (one per description param), or sets m->failed and
 * m->why.  m->ctx is made here (on h). */
static void compute_tensorize_match(Matcher *m, IrHeap *h, const SchPath *p, const TirBlock *cb,
                                    const TensorIntrin *in, Binding *bind) {
  const TirStmt *droot = in->desc->body;
  const TirBlock *db = tir_realize_block(droot);
  m->h = h;
  m->ctx = arith_new(h);
  /* Ranges of the loops around the block and of its own iters. */
  for (int d = 0; d < p->n; d++)
    if (p->s[d]->kind == TIR_S_FOR)
      arith_bind_range(m->ctx, p->s[d]->loop.var, p->s[d]->loop.min, p->s[d]->loop.extent);
  for (int k = 0; k < cb->niters; k++)
    arith_bind_range(m->ctx, cb->iters[k].var, cb->iters[k].dom.min, cb->iters[k].dom.extent);
  match_stmt(m, cb->body, db->body, "body");
  if (!m->failed) match_regions(m, cb, db, in->desc, bind);
}

/* Block cb with the implementation's body, with fresh vars and buffers,
 * each implementation buffer bound to its matched region (bind). */
static TirBlock build_tensorized_block(IrHeap *h, ArithCtx *ctx, const TensorIntrin *in, const TirBlock *cb,
                                       const Binding *bind) {
  const TirFunc *impl = in->impl;
  const TirBlock *ib = tir_realize_block(impl->body);
  TirMutator mu;
  tir_mutator_init(&mu, h);
  Fresh fr;
  memset(&fr, 0, sizeof fr);
  mu.ctx = &fr;
  mu.def_var = fresh_var;
  mu.buffer = fresh_buffer;
  TirBlock nb = *cb;
  nb.matches = ir_alloc(h, (size_t)(impl->nparams + cb->nmatches + 1) * sizeof *nb.matches);
  nb.nmatches = 0;
  for (int i = 0; i < impl->nparams; i++) {
    TirBuffer *ibuf = impl->buffer_map[i];
    const Binding *bd = &bind[i];
    const TirBufferRegion *ir = region_of(ib->writes, ib->nwrites, ibuf);
    if (!ir) ir = region_of(ib->reads, ib->nreads, ibuf);
    int off = bd->cur->ndim - ibuf->ndim;
    TirRange *rs = ir_alloc(h, (size_t)(bd->cur->ndim ? bd->cur->ndim : 1) * sizeof *rs);
    for (int d = 0; d < bd->cur->ndim; d++) {
      TirExpr *mn = bd->base[d];
      TirExpr *ext = d < off ? tir_int(h, mn->dtype, 1)
                             : tir_cast(h, mn->dtype, ir ? ir->ranges[d - off].extent : ibuf->shape[d - off]);
      rs[d] = (TirRange){mn, arith_simplify(ctx, ext)};
    }
    TirMatchBuffer mb = {fresh_buffer(&mu, ibuf), {(TirBuffer *)bd->cur, rs, bd->cur->ndim}};
    nb.matches[nb.nmatches++] = mb;
  }
  nb.body = tir_mutate_stmt(&mu, ib->body);
  /* Annotations of the implementation's root block join the block's. */
  if (ib->annotations && ib->annotations->kind == IRV_DICT)
    for (int i = 0; i < ib->annotations->n; i++)
      if (!irv_dict_get(nb.annotations, ib->annotations->keys[i]))
        nb.annotations = irv_dict_set(h, nb.annotations, ib->annotations->keys[i], ib->annotations->items[i]);
  tir_mutator_free(&mu);
  ir_ptrmap_free(&fr.bufs);
  return nb;
}

int sch_tensorize(Schedule *s, SchRV rv, const char *name, bool preserve_unit_iters) {
  const char *prim = "tensorize";
  SchPath p = {0};
  int rc = -1;
  IrModule *nm = NULL;
  Binding *bind = NULL;
  Matcher m;
  memset(&m, 0, sizeof m);
  sb_init(&m.why);
  const TensorIntrin *in = check_tensor_intrin(s, name, prim);
  if (!in) goto done;
  if (rv < 0 || rv >= s->nrvs) {
    sch_fail(s, SCH_ERR_INVALID_HANDLE, 0, "%s: invalid handle", prim);
    goto done;
  }
  bool is_loop = s->rvs[rv].kind == SCH_RV_LOOP;
  TirStmt *target = is_loop ? sch_find_loop(s, rv, prim, 0, &p) : sch_find_block(s, rv, prim, 0, &p);
  if (!target) goto done;
  const char *func = s->rvs[rv].func;
  nm = sch_begin(s);
  IrHeap *h = nm->heap;
  ir_heap_depend(h, in->owner->heap);
  const TirBlock *old = NULL, *inner = NULL; /* unused: the inner block is replaced */
  TirStmt *realize = target;
  if (is_loop) {
    realize = sch_blockize_build(s, h, target, &p, preserve_unit_iters, prim, &old, &inner);
    if (!realize) goto done;
  }
  const TirBlock *cb = tir_realize_block(realize);
  bind = xcalloc((size_t)(in->desc->nparams ? in->desc->nparams : 1), sizeof *bind);
  compute_tensorize_match(&m, h, &p, cb, in, bind);
  if (m.failed) {
    sch_fail(s, SCH_ERR_BODY_PATTERN, 0, "%s: the stmt doesn't match the tensor intrin '%s': %s", prim, name,
             m.why.data);
    goto done;
  }
  TirBlock nb = build_tensorized_block(h, m.ctx, in, cb, bind);
  TirStmt *nr = sch_realize_with(h, realize, &nb, NULL, NULL);
  TirStmt *root = sch_replace_at(h, &p, p.n - 1, nr);
  sch_commit(s, nm, func, root);
  nm = NULL;
  SchVal args[3] = {sch_val_rv(rv), sch_val_str(name), sch_val_bool(preserve_unit_iters)};
  sch_record(s, prim, args, 3, NULL, 0);
  rc = 0;
done:
  free(bind);
  if (nm) ir_module_free(nm);
  if (m.ctx) arith_free(m.ctx);
  ir_ptrmap_free(&m.vars);
  ir_ptrmap_free(&m.bufs);
  ir_ptrmap_free(&m.rbufs);
  free(m.acc);
  sb_free(&m.why);
  sch_path_free(&p);
  return rc;
}
