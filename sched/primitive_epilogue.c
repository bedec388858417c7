/* primitive_epilogue.c - fuse_reduction_epilogue (TVM v0.23): fold an
 * elementwise epilogue that reads a reduction's result once (`D = temp + C`,
 * `D = max(temp + C, 0)`, `D = min(max(temp, lo), hi)`) into the reduction.
 *
 * The reduction block then writes the epilogue's output directly: its init
 * stores the epilogue with the result replaced by 0 (`D = C`), its update
 * stores the epilogue with the result replaced by the update expression, an
 * addend next to it dropped (`D = D + A * B`, `D = max(D + A * B, 0)`).  For
 * a bias add this is exact; shells like max/min are then applied at every
 * reduction step, which changes the numerics (as in TVM, by design).
 *
 * Beyond TVM's checks this refuses an epilogue that is not the only reader
 * of the reduction's buffer, one that reads the result elsewhere than where
 * the reduction writes it (TVM maps the iters by position) or over another
 * domain, and a reduction whose init is not zero: each would otherwise
 * silently compute something else. */
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"

#define PRIM "fuse_reduction_epilogue"

/* -------------------------------------------------------- expression walks */

typedef struct LoadCount {
  const TirBuffer *buf;
  int n;          /* loads of buf */
  bool scaled;    /* a load of buf under a Mul / Div / Mod */
  int scale_depth;
} LoadCount;

static bool count_pre(TirVisitor *v, const TirExpr *e) {
  LoadCount *c = v->ctx;
  if (e->kind == TIR_LOAD && e->load.buf == c->buf) {
    c->n++;
    if (c->scale_depth > 0) c->scaled = true;
  }
  if (e->kind == TIR_MUL || e->kind == TIR_DIV || e->kind == TIR_MOD) c->scale_depth++;
  return true;
}

static void count_post(TirVisitor *v, const TirExpr *e) {
  LoadCount *c = v->ctx;
  if (e->kind == TIR_MUL || e->kind == TIR_DIV || e->kind == TIR_MOD) c->scale_depth--;
}

static LoadCount count_loads(const TirExpr *e, const TirBuffer *buf) {
  LoadCount c = {buf, 0, false, 0};
  TirVisitor v = {0};
  v.pre_expr = count_pre;
  v.post_expr = count_post;
  v.ctx = &c;
  tir_visit_expr(&v, e);
  return c;
}

static bool find_pre(TirVisitor *v, const TirExpr *e) {
  const TirExpr **found = v->ctx;
  if (e->kind == TIR_LOAD && e->load.buf == found[1]->load.buf && !found[0]) found[0] = e;
  return true;
}

/* The first load of buf in e (NULL if none). */
static const TirExpr *find_load(const TirExpr *e, TirBuffer *buf) {
  TirExpr probe = {0};
  probe.kind = TIR_LOAD;
  probe.load.buf = buf;
  const TirExpr *found[2] = {NULL, &probe};
  TirVisitor v = {0};
  v.pre_expr = find_pre;
  v.ctx = found;
  tir_visit_expr(&v, e);
  return found[0];
}

/* Replaces loads of `from`: by `with` (when non-NULL), else by loads of `to`
 * at the same indices. */
typedef struct LoadRepl {
  const TirBuffer *from;
  TirBuffer *to;
  TirExpr *with;
} LoadRepl;

static TirExpr *repl_load(TirMutator *m, TirExpr *e) {
  LoadRepl *r = m->ctx;
  TirExpr *x = tir_mutate_expr_children(m, e);
  if (x->load.buf != r->from) return x;
  if (r->with) return r->with;
  TirExpr *l = tir_load(m->heap, r->to, x->load.idx, x->load.n);
  l->span = x->span;
  return l;
}

static TirExpr *replace_loads(IrHeap *h, TirExpr *e, const TirBuffer *from, TirBuffer *to,
                              TirExpr *with) {
  LoadRepl r = {from, to, with};
  TirMutator m;
  tir_mutator_init(&m, h);
  m.ctx = &r;
  m.expr[TIR_LOAD] = repl_load;
  TirExpr *out = tir_mutate_expr(&m, e);
  tir_mutator_free(&m);
  return out;
}

/* The update value: the epilogue with its load of the reduction buffer
 * replaced by `repl`; in the Add right above that load, the other operand
 * (the bias) is dropped.  *found tracks, as in TVM, whether the load was
 * seen and not yet consumed by an Add. */
static TirExpr *apply_epilogue(IrHeap *h, TirExpr *e, const TirBuffer *temp, TirExpr *repl,
                               bool *found) {
  switch (e->kind) {
    case TIR_LOAD: {
      if (e->load.buf == temp) {
        *found = true;
        return repl;
      }
      TirExpr **idx = ir_alloc(h, (size_t)(e->load.n ? e->load.n : 1) * sizeof *idx);
      for (int i = 0; i < e->load.n; i++) idx[i] = apply_epilogue(h, e->load.idx[i], temp, repl, found);
      TirExpr *l = tir_load(h, e->load.buf, idx, e->load.n);
      l->span = e->span;
      return l;
    }
    case TIR_ADD: {
      bool before = *found;
      *found = false;
      TirExpr *a = apply_epilogue(h, e->bin.a, temp, repl, found);
      bool fa = *found;
      *found = false;
      TirExpr *b = apply_epilogue(h, e->bin.b, temp, repl, found);
      bool fb = *found;
      if (fa) {
        if (b->kind == TIR_LOAD && b->load.buf == temp) return tir_binary(h, TIR_ADD, a, b);
        return a;
      }
      if (fb) {
        if (a->kind == TIR_LOAD && a->load.buf == temp) return tir_binary(h, TIR_ADD, a, b);
        return b;
      }
      *found = before;
      return tir_binary(h, TIR_ADD, a, b);
    }
    case TIR_SUB: case TIR_MUL: case TIR_DIV: case TIR_MOD: case TIR_FLOORDIV:
    case TIR_FLOORMOD: case TIR_MIN: case TIR_MAX: case TIR_EQ: case TIR_NE: case TIR_LT:
    case TIR_LE: case TIR_GT: case TIR_GE: case TIR_AND: case TIR_OR: {
      TirExpr *a = apply_epilogue(h, e->bin.a, temp, repl, found);
      TirExpr *b = apply_epilogue(h, e->bin.b, temp, repl, found);
      if (a == e->bin.a && b == e->bin.b) return e;
      TirExpr *x = ir_memdup(h, e, sizeof *e);
      x->bin.a = a;
      x->bin.b = b;
      return x;
    }
    case TIR_NOT: case TIR_CAST: {
      TirExpr *a = apply_epilogue(h, e->un.a, temp, repl, found);
      if (a == e->un.a) return e;
      TirExpr *x = ir_memdup(h, e, sizeof *e);
      x->un.a = a;
      return x;
    }
    case TIR_SELECT: {
      TirExpr *x = ir_memdup(h, e, sizeof *e);
      x->sel.cond = apply_epilogue(h, e->sel.cond, temp, repl, found);
      x->sel.t = apply_epilogue(h, e->sel.t, temp, repl, found);
      x->sel.f = apply_epilogue(h, e->sel.f, temp, repl, found);
      return x;
    }
    case TIR_CALL: {
      TirExpr *x = ir_memdup(h, e, sizeof *e);
      x->call.args = ir_alloc(h, (size_t)(e->call.n ? e->call.n : 1) * sizeof *x->call.args);
      for (int i = 0; i < e->call.n; i++)
        x->call.args[i] = apply_epilogue(h, e->call.args[i], temp, repl, found);
      return x;
    }
    default:
      /* Leaves, and kinds an epilogue's load of the result does not sit
       * under (ramps, lets): replaced plainly. */
      return replace_loads(h, e, temp, NULL, repl);
  }
}

/* `0 + x` / `x + 0` folded anywhere in e (also for floats, as TVM's
 * simplifier does for the init value `0 + C[vi, vj]`). */
static bool is_zero_lit(const TirExpr *e) {
  return (e->kind == TIR_INT && e->ival == 0) || (e->kind == TIR_FLOAT && e->fval == 0);
}

static TirExpr *fold_add(TirMutator *m, TirExpr *e) {
  TirExpr *x = tir_mutate_expr_children(m, e);
  if (is_zero_lit(x->bin.a) && dt_eq(x->bin.b->dtype, x->dtype)) return x->bin.b;
  if (is_zero_lit(x->bin.b) && dt_eq(x->bin.a->dtype, x->dtype)) return x->bin.a;
  return x;
}

static TirExpr *fold_zero_add(IrHeap *h, TirExpr *e) {
  TirMutator m;
  tir_mutator_init(&m, h);
  m.expr[TIR_ADD] = fold_add;
  TirExpr *out = tir_mutate_expr(&m, e);
  tir_mutator_free(&m);
  return out;
}

/* ------------------------------------------------------------ the primitive */

/* What the checks find and the rewrite uses. */
typedef struct EpiState {
  Schedule *s;
  const char *func;        /* the function worked on */
  SchPath rp, ep;          /* paths to the reduction's and the epilogue's realizes */
  PtrVec sibs;             /* the blocks of their scope */
  TirStmt *rr, *er;        /* the two realizes */
  const TirBlock *rb, *eb; /* and their blocks */
  int escope;              /* index of the scope block in ep */
  TirBuffer *temp;         /* the reduction's buffer */
  const TirStmt *est;      /* the epilogue's store */
} EpiState;

/* The reduction block: one written buffer, a reduction with a zero init. */
static bool check_reduction_block(EpiState *st) {
  Schedule *s = st->s;
  const TirBlock *rb = st->rb;
  if (rb->nwrites != 1) {
    sch_fail(s, SCH_ERR_REDUCTION, 0,
             PRIM ": the reduction block '%s' must write exactly one buffer, it writes %d", rb->name,
             rb->nwrites);
    return false;
  }
  TirBuffer *temp = rb->writes[0].buffer;
  bool has_reduce = false, other = false;
  for (int i = 0; i < rb->niters; i++) {
    has_reduce |= rb->iters[i].type == TIR_ITER_REDUCE;
    other |= rb->iters[i].type != TIR_ITER_SPATIAL && rb->iters[i].type != TIR_ITER_REDUCE;
  }
  if (!rb->init || !has_reduce || other || rb->body->kind != TIR_S_STORE || rb->body->store.buf != temp) {
    sch_fail(s, SCH_ERR_REDUCTION, 0, PRIM ": block '%s' is not a reduction block", rb->name);
    return false;
  }
  const TirStmt *init = rb->init;
  bool zero = init->kind == TIR_S_STORE && init->store.buf == temp && is_zero_lit(init->store.value);
  if (!zero) {
    sch_fail(s, SCH_ERR_UNSUPPORTED, 0,
             PRIM ": the init of reduction block '%s' must store zero, the value the fused "
                  "init replaces the result by",
             rb->name);
    return false;
  }
  st->temp = temp;
  return true;
}

/* The epilogue block: complete, the reduction's buffer not a parameter, a
 * single unpredicated store reading the result once, unscaled. */
static bool check_epilogue_block(EpiState *st) {
  Schedule *s = st->s;
  const TirBlock *rb = st->rb, *eb = st->eb;
  TirBuffer *temp = st->temp;
  for (int i = 0; i < eb->niters; i++)
    if (eb->iters[i].type != TIR_ITER_SPATIAL || eb->init) {
      sch_fail(s, SCH_ERR_DATAFLOW, 1, PRIM ": the epilogue block '%s' is not a complete block",
               eb->name);
      return false;
    }
  const TirFunc *f = sch_cur_func(s, st->func);
  if (!f) return false;
  if (sch_is_param_buffer(f, temp)) {
    sch_fail(s, SCH_ERR_DATAFLOW, 0,
             PRIM ": block '%s' is an output block: the buffer '%s' it writes is a function "
                  "parameter",
             rb->name, temp->name);
    return false;
  }
  const TirStmt *est = eb->body;
  if (!sch_is_trivial_pred(st->er->realize.pred) || est->kind != TIR_S_STORE) {
    sch_fail(s, SCH_ERR_BODY_PATTERN, 1,
             PRIM ": the body of epilogue block '%s' must be a single store without a predicate",
             eb->name);
    return false;
  }
  LoadCount lc = count_loads(est->store.value, temp);
  if (lc.n != 1) {
    sch_fail(s, SCH_ERR_BODY_PATTERN, 1,
             PRIM ": the epilogue block '%s' must read the reduction result '%s' exactly "
                  "once, it reads it %d times",
             eb->name, temp->name, lc.n);
    return false;
  }
  if (lc.scaled) {
    sch_fail(s, SCH_ERR_BODY_PATTERN, 1,
             PRIM ": the epilogue block '%s' scales the reduction result '%s' (by a multiply, "
                  "divide or modulo); only additive epilogues and min/max shells can be fused",
             eb->name, temp->name);
    return false;
  }
  st->est = est;
  return true;
}

/* The blocks of the scope around the pair: none between them writes what the
 * epilogue reads, and no other reads the reduction's result. */
static bool check_epilogue_neighbours(EpiState *st) {
  Schedule *s = st->s;
  const TirBlock *rb = st->rb, *eb = st->eb;
  TirBuffer *temp = st->temp;
  const PtrVec *sibs = &st->sibs;
  /* The fused block reads the epilogue's other inputs where the reduction
   * runs: no block between the two may write them (e.g. a read_at copy of
   * the bias placed in the epilogue's loops). */
  int ri = -1, ei = -1;
  for (int i = 0; i < sibs->len; i++) {
    if (sibs->items[i] == st->rr) ri = i;
    if (sibs->items[i] == st->er) ei = i;
  }
  for (int i = ri + 1; ri >= 0 && i < ei; i++) {
    const TirBlock *x = tir_realize_block(sibs->items[i]);
    for (int k = 0; k < eb->nreads; k++)
      if (eb->reads[k].buffer != temp && sch_block_writes(x, eb->reads[k].buffer)) {
        sch_fail(s, SCH_ERR_DATAFLOW, 1,
                 PRIM ": block '%s' writes buffer '%s', which the epilogue block '%s' reads, "
                      "between the reduction '%s' and the epilogue",
                 x->name, eb->reads[k].buffer->name, eb->name, rb->name);
        return false;
      }
  }
  for (int i = 0; i < sibs->len; i++) {
    const TirBlock *x = tir_realize_block(sibs->items[i]);
    if (x != rb && x != eb && sch_block_reads(x, temp)) {
      sch_fail(s, SCH_ERR_UNSUPPORTED, 1,
               PRIM ": the epilogue block '%s' must be the only reader of '%s', but block '%s' "
                    "reads it too",
               eb->name, temp->name, x->name);
      return false;
    }
  }
  return true;
}

/* The epilogue's iters against the reduction's data-parallel ones. */
static bool check_epilogue_domain(EpiState *st) {
  Schedule *s = st->s;
  const TirBlock *rb = st->rb, *eb = st->eb;
  int nrd = 0, ned = 0;
  for (int i = 0; i < rb->niters; i++) nrd += rb->iters[i].type == TIR_ITER_SPATIAL;
  ned = eb->niters;
  if (nrd != ned) {
    sch_fail(s, SCH_ERR_BODY_PATTERN, 1,
             PRIM ": blocks '%s' and '%s' must have the same number of data-parallel iters (%d "
                  "and %d)",
             rb->name, eb->name, nrd, ned);
    return false;
  }
  /* The epilogue must run over the reduction's data-parallel space and
   * read the result where the reduction writes it, else the positional
   * iter mapping below would compute something else. */
  IrHeap *th = ir_heap_new();
  ArithCtx *tc = arith_new(th);
  IrPtrMap tm;
  ir_ptrmap_init(&tm);
  const char *why = NULL;
  for (int i = 0, k = 0; i < rb->niters && !why; i++) {
    if (rb->iters[i].type != TIR_ITER_SPATIAL) continue;
    if (!arith_can_prove_equal(tc, rb->iters[i].dom.extent, eb->iters[k].dom.extent))
      why = "its iter domains differ from the reduction's data-parallel ones";
    ir_ptrmap_put(&tm, eb->iters[k++].var, tir_var_ref(th, rb->iters[i].var));
  }
  const TirExpr *ld = find_load(st->est->store.value, st->temp);
  for (int d = 0; d < ld->load.n && !why; d++)
    if (!arith_can_prove_equal(tc, tir_substitute_expr(th, ld->load.idx[d], &tm),
                               rb->body->store.idx[d]))
      why = "it does not read the result at the point the reduction writes";
  ir_ptrmap_free(&tm);
  arith_free(tc);
  ir_heap_release(th);
  if (why) {
    sch_fail(s, SCH_ERR_UNSUPPORTED, 1, PRIM ": the epilogue block '%s' cannot be fused: %s",
             eb->name, why);
    return false;
  }
  return true;
}

/* The fused block's reads: the epilogue's (its iters renamed by vmap) but
 * the result, then the reduction's not yet listed. */
static void build_fused_reads(IrHeap *h, const EpiState *st, IrPtrMap *vmap, TirBlock *nb) {
  const TirBlock *rb = st->rb, *eb = st->eb;
  TirBufferRegion *reads = ir_alloc(h, (size_t)(eb->nreads + rb->nreads + 1) * sizeof *reads);
  int nr = 0;
  for (int i = 0; i < eb->nreads; i++) {
    if (eb->reads[i].buffer == st->temp) continue;
    TirBufferRegion r = eb->reads[i];
    r.ranges = ir_alloc(h, (size_t)(r.n ? r.n : 1) * sizeof *r.ranges);
    for (int d = 0; d < r.n; d++) {
      r.ranges[d].min = tir_substitute_expr(h, eb->reads[i].ranges[d].min, vmap);
      r.ranges[d].extent = tir_substitute_expr(h, eb->reads[i].ranges[d].extent, vmap);
    }
    reads[nr++] = r;
  }
  for (int i = 0; i < rb->nreads; i++) {
    bool dup = rb->reads[i].buffer == st->temp;
    for (int k = 0; k < nr && !dup; k++) dup = reads[k].buffer == rb->reads[i].buffer;
    if (!dup) reads[nr++] = rb->reads[i];
  }
  nb->reads = reads;
  nb->nreads = nr;
}

/* The reduction block writing the epilogue's output: init and update are
 * the epilogue applied to 0 and to the update. */
static TirBlock build_fused_block(IrHeap *h, const EpiState *st) {
  const TirBlock *rb = st->rb, *eb = st->eb;
  const TirStmt *est = st->est;
  TirBuffer *temp = st->temp;
  ArithCtx *ctx = arith_new(h);
  TirBuffer *out = est->store.buf;
  IrPtrMap vmap;
  ir_ptrmap_init(&vmap);
  for (int i = 0, k = 0; i < rb->niters; i++)
    if (rb->iters[i].type == TIR_ITER_SPATIAL)
      ir_ptrmap_put(&vmap, eb->iters[k++].var, tir_var_ref(h, rb->iters[i].var));
  TirExpr *epi = tir_substitute_expr(h, est->store.value, &vmap);
  /* init: D[idx] = epilogue(0) */
  TirExpr *zero = dt_is_float(out->dtype) ? tir_float(h, out->dtype, 0) : tir_int(h, out->dtype, 0);
  TirExpr *init_v = arith_simplify(ctx, fold_zero_add(h, replace_loads(h, epi, temp, NULL, zero)));
  TirExpr **iidx = ir_alloc(h, (size_t)(est->store.n ? est->store.n : 1) * sizeof *iidx);
  for (int d = 0; d < est->store.n; d++) iidx[d] = tir_substitute_expr(h, est->store.idx[d], &vmap);
  TirStmt *init = tir_store(h, out, init_v, iidx, est->store.n);
  init->span = rb->init->span;
  /* update: D[idx] = epilogue(update with temp -> D), bias dropped.  D is
   * indexed as the epilogue stores it (temp's layout may differ, e.g.
   * after transform_layout of temp). */
  const TirStmt *ust = rb->body;
  TirExpr *upd = replace_loads(h, ust->store.value, temp, NULL, tir_load(h, out, iidx, est->store.n));
  bool found = false;
  TirExpr *nv = apply_epilogue(h, epi, temp, upd, &found);
  TirStmt *body = tir_store(h, out, nv, iidx, est->store.n);
  body->span = ust->span;
  TirBlock nb = *rb;
  nb.init = init;
  nb.body = body;
  nb.writes = ir_alloc(h, sizeof *nb.writes);
  nb.writes[0].buffer = out;
  nb.writes[0].n = est->store.n;
  nb.writes[0].ranges = ir_alloc(h, (size_t)(est->store.n ? est->store.n : 1) * sizeof(TirRange));
  for (int d = 0; d < est->store.n; d++)
    nb.writes[0].ranges[d] = (TirRange){iidx[d], tir_int(h, iidx[d]->dtype, 1)};
  build_fused_reads(h, st, &vmap, &nb);
  ir_ptrmap_free(&vmap);
  arith_free(ctx);
  return nb;
}

/* The new root: within the scope block, the epilogue dropped and the fused
 * block in the reduction's place. */
static TirStmt *replace_epilogue_scope(IrHeap *h, EpiState *st, const TirBlock *nb) {
  SchPath p2 = {0};
  /* Within the scope block: drop the epilogue, then put the fused block in
   * the reduction's place (its block node is shared, so it is found again
   * after the first edit).  The reduction buffer stays allocated: TVM's
   * still-used check counts the scope's own allocation as a use, so it
   * never drops the buffer from the scope that allocates it. */
  SchPath ev = {st->ep.s + st->escope, st->ep.n - st->escope, 0};
  TirStmt *scope = sch_replace_at(h, &ev, ev.n - 1, NULL);
  if (!sch_path_to_realize(scope, st->rr->realize.block, &p2)) tvs_unreachable();
  scope = sch_replace_at(h, &p2, p2.n - 1, sch_realize_with(h, st->rr, nb, NULL, NULL));
  sch_path_free(&p2);
  return sch_replace_at(h, &st->ep, st->escope, scope);
}

/* The checks, in order: handles, one scope, a stage pipeline, then the
 * reduction, the epilogue, their neighbours and their domains. */
static bool check_fuse_epilogue(EpiState *st, SchRV red_rv, SchRV epi_rv) {
  Schedule *s = st->s;
  st->rr = sch_find_block(s, red_rv, PRIM, 0, &st->rp);
  if (!st->rr) return false;
  st->func = s->rvs[red_rv].func;
  st->er = sch_find_block(s, epi_rv, PRIM, 1, &st->ep);
  if (!st->er) return false;
  st->rb = tir_realize_block(st->rr);
  st->eb = tir_realize_block(st->er);
  SchPath *rp = &st->rp, *ep = &st->ep;
  int escope = sch_scope_index(ep, ep->n - 1), rscope = sch_scope_index(rp, rp->n - 1);
  if (escope < 0 || rscope < 0 || ep->s[escope] != rp->s[rscope]) {
    sch_fail(s, SCH_ERR_DATAFLOW, 1, PRIM ": blocks '%s' and '%s' are not under the same block scope",
             st->rb->name, st->eb->name);
    return false;
  }
  st->escope = escope;
  sch_scope_blocks(ep->s[escope], &st->sibs);
  if (!sch_check_stage_pipeline(s, PRIM, 1, &st->sibs, st->eb)) return false;
  return check_reduction_block(st) && check_epilogue_block(st) && check_epilogue_neighbours(st) &&
         check_epilogue_domain(st);
}

int sch_fuse_reduction_epilogue(Schedule *s, SchRV red_rv, SchRV epi_rv) {
  EpiState st = {0};
  st.s = s;
  int rc = -1;
  if (check_fuse_epilogue(&st, red_rv, epi_rv)) {
    IrModule *nm = sch_begin(s);
    TirBlock nb = build_fused_block(nm->heap, &st);
    TirStmt *root = replace_epilogue_scope(nm->heap, &st, &nb);
    sch_commit(s, nm, s->rvs[red_rv].func, root);
    SchVal args[2] = {sch_val_rv(red_rv), sch_val_rv(epi_rv)};
    sch_record(s, PRIM, args, 2, NULL, 0);
    rc = 0;
  }
  pv_free(&st.sibs);
  sch_path_free(&st.rp);
  sch_path_free(&st.ep);
  return rc;
}
