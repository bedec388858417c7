/* primitive_loop.c - loop transformations: split, fuse, reorder, add_unit_loop.
 *
 * Each checks legality on the current version first (TVM v0.23's rules,
 * reference/schedule_primitives.md section 2), then rebuilds the changed path
 * copy-on-write in a derived version.  New loop vars get TVM's names
 * (`i_0, i_1`, `i_j_fused`, `u`). */
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"

/* ------------------------------------------------ binding simplification */

typedef struct SimpState {
  ArithCtx *ctx;
  TirExpr *pred;  /* to append to outermost realizes, or NULL */
  int depth;      /* realizes entered */
  PtrVec pred_vars; /* the free vars of pred */
} SimpState;

/* x // a % b in the form TVM's iter-map normalization gives a split's
 * middle digit, x % (a * b) // a (equal for a, b > 0). */
static TirExpr *iter_form(IrHeap *h, TirExpr *e) {
  switch (e->kind) {
    case TIR_ADD: case TIR_SUB: case TIR_MUL: case TIR_FLOORDIV: case TIR_FLOORMOD: {
      TirExpr *a = iter_form(h, e->bin.a), *b = iter_form(h, e->bin.b);
      int64_t ca, cb;
      if (e->kind == TIR_FLOORMOD && a->kind == TIR_FLOORDIV) {
        TirExpr *div = a->bin.b;
        bool pos_a = tir_is_const_int(div, &ca) ? ca > 0 : div->kind == TIR_VAR;
        bool pos_b = tir_is_const_int(b, &cb) && cb > 0;
        if (pos_a && pos_b) {
          TirExpr *m = tir_is_const_int(div, &ca) && ca <= INT32_MAX && cb <= INT32_MAX
                           ? tir_int(h, b->dtype, ca * cb)
                           : tir_binary(h, TIR_MUL, div, b);
          return tir_binary(h, TIR_FLOORDIV, tir_binary(h, TIR_FLOORMOD, a->bin.a, m), div);
        }
      }
      if (a == e->bin.a && b == e->bin.b) return e;
      return tir_binary(h, e->kind, a, b);
    }
    default: return e;
  }
}

static TirStmt *simp_realize(TirMutator *m, TirStmt *s) {
  SimpState *st = m->ctx;
  st->depth++;
  TirStmt *r = tir_mutate_stmt_children(m, s);
  st->depth--;
  int n = r->realize.n;
  TirExpr **vals = ir_alloc(m->heap, (size_t)(n ? n : 1) * sizeof *vals);
  bool changed = false;
  for (int i = 0; i < n; i++) {
    vals[i] = iter_form(m->heap, arith_simplify(st->ctx, r->realize.values[i]));
    changed |= vals[i] != r->realize.values[i];
  }
  TirExpr *pred = r->realize.pred;
  /* Outermost realizes get the predicate; so do nested ones whose bindings
   * use its vars (inside an opaque block, e.g. loop_partition's): each
   * block's bindings then stay in their domains under its own predicate. */
  bool nested_use = false;
  for (int i = 0; st->pred && st->depth > 0 && i < n && !nested_use; i++)
    for (int k = 0; k < st->pred_vars.len && !nested_use; k++)
      nested_use = tir_expr_uses_var(vals[i], st->pred_vars.items[k]);
  if (st->pred && (st->depth == 0 || nested_use))
    pred = sch_is_trivial_pred(pred) ? st->pred : tir_binary(m->heap, TIR_AND, pred, st->pred);
  /* TVM appends the predicate as built ((i0 * 2 + i1) * 3 + i2 < 128),
   * without simplifying it. */
  changed |= pred != r->realize.pred;
  if (!changed) return r;
  return sch_realize_with(m->heap, r, NULL, vals, pred);
}

TirStmt *sch_simplify_bindings(ArithCtx *ctx, TirStmt *st, TirExpr *pred) {
  TirMutator m;
  tir_mutator_init(&m, arith_heap(ctx));
  SimpState ss = {ctx, pred, 0, {0}};
  if (pred) tir_expr_free_vars(pred, &ss.pred_vars);
  m.ctx = &ss;
  m.stmt[TIR_S_BLOCK_REALIZE] = simp_realize;
  TirStmt *r = tir_mutate_stmt(&m, st);
  tir_mutator_free(&m);
  pv_free(&ss.pred_vars);
  return r;
}

/* ------------------------------------------------------------- helpers */

static bool has_annotations(const TirStmt *loop) {
  return (loop->loop.annotations && loop->loop.annotations->n > 0) ||
         loop->loop.kind == TIR_FOR_THREAD_BINDING;
}

/* The blocks (realizes) anywhere under st, not descending into blocks. */
static void outer_realizes(TirStmt *st, PtrVec *out) {
  TirStmt fake = {0};
  fake.kind = TIR_S_BLOCK;
  fake.block.body = st;
  sch_scope_blocks(&fake, out);
}

static void format_factors(StrBuf *sb, const int64_t *f, int n) {
  sb_putc(sb, '[');
  for (int i = 0; i < n; i++) {
    if (i) sb_puts(sb, ", ");
    if (f[i] == 0) sb_puts(sb, "None");
    else sb_printf(sb, "%lld", (long long)f[i]);
  }
  sb_putc(sb, ']');
}

static SchVal factors_val(const int64_t *f, int n) {
  SchVal v = sch_val_none();
  v.kind = SV_LIST;
  v.n = n;
  v.items = xmalloc((size_t)(n ? n : 1) * sizeof *v.items);
  for (int i = 0; i < n; i++) v.items[i] = f[i] == 0 ? sch_val_none() : sch_val_int(f[i]);
  return v;
}

/* ---------------------------------------------------------------- split */

/* The factor checks: loop kind and min, then the factors themselves
 * (fs: the factors as text).  Sets the inferred factor's position (-1: none)
 * and the product of the others. */
static bool check_split(Schedule *s, const TirStmt *loop, const int64_t *factors, int n,
                        const char *fs, int *infer_at, int64_t *prod) {
  const char *name = sch_loop_name(loop);
  int ninfer = 0;
  if (has_annotations(loop)) {
    sch_fail(s, SCH_ERR_LOOP_KIND, 0, "split: loop '%s' has annotations or a thread binding", name);
    return false;
  }
  if (!tir_is_zero(loop->loop.min)) {
    sch_fail(s, SCH_ERR_LOOP_STRUCTURE, 0, "split: loop '%s' does not start at 0", name);
    return false;
  }
  if (n < 1) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1, "split: factors must not be empty");
    return false;
  }
  for (int i = 0; i < n; i++) {
    if (factors[i] == 0 || factors[i] == -1) {
      ninfer++;
      *infer_at = i;
    } else if (factors[i] < 0) {
      sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
               "split: all the constant factors must be positive, got %s", fs);
      return false;
    } else {
      *prod *= factors[i];
    }
  }
  if (ninfer > 1) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1, "split: only one factor can be None or -1, got %s", fs);
    return false;
  }
  return true;
}

/* The factors as expressions, the inferred one ceil(extent / prod); NULL when
 * the constant factors do not cover the extent. */
static TirExpr **compute_split_factors(Schedule *s, ArithCtx *ctx, const TirStmt *loop,
                                       const int64_t *factors, int n, int infer_at, int64_t prod,
                                       const char *fs) {
  IrHeap *h = arith_heap(ctx);
  DType dt = loop->loop.var->dtype;
  TirExpr *extent = loop->loop.extent;
  TirExpr *prod_e = tir_int(h, dt, prod);
  TirExpr **fe = ir_alloc(h, (size_t)n * sizeof *fe);
  for (int i = 0; i < n; i++) fe[i] = i == infer_at ? NULL : tir_int(h, dt, factors[i]);
  if (infer_at >= 0) {
    TirExpr *num = tir_binary(h, TIR_SUB, tir_binary(h, TIR_ADD, extent, prod_e), tir_int(h, dt, 1));
    fe[infer_at] = arith_simplify(ctx, tir_binary(h, TIR_FLOORDIV, num, prod_e));
  } else if (!arith_prove(ctx, tir_binary(h, TIR_GE, prod_e, extent))) {
    StrBuf es;
    sb_init(&es);
    print_tir_expr(&es, extent);
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1, "split: factors %s multiply to %lld but loop '%s' has extent %s",
             fs, (long long)prod, sch_loop_name(loop), es.data);
    sb_free(&es);
    return NULL;
  }
  return fe;
}

/* The nest of n loops (vars[i] over fe[i]) replacing loop, its body's
 * bindings rewritten to the combined index. */
static TirStmt *build_split_nest(ArithCtx *ctx, const TirStmt *loop, TirExpr **fe, int n,
                                 bool preserve_unit_iters, bool disable_predication, TirVar **vars) {
  IrHeap *h = arith_heap(ctx);
  DType dt = loop->loop.var->dtype;
  const char *name = sch_loop_name(loop);
  TirExpr *extent = loop->loop.extent;
  /* The combined index ((v0 * f1 + v1) * f2 + v2)...; unit factors are left
   * out of it unless preserve_unit_iters. */
  TirExpr *value = NULL;
  for (int i = 0; i < n; i++) {
    char nbuf[256];
    snprintf(nbuf, sizeof nbuf, "%s_%d", name, i);
    vars[i] = tir_var(h, nbuf, dt);
    arith_bind_range(ctx, vars[i], tir_int(h, dt, 0), fe[i]);
    if (!tir_is_one(fe[i]) || preserve_unit_iters) {
      TirExpr *v = tir_var_ref(h, vars[i]);
      value = value ? tir_binary(h, TIR_ADD, tir_binary(h, TIR_MUL, value, fe[i]), v) : v;
    }
  }
  if (!value) value = tir_int(h, dt, 0);
  TirExpr *total = fe[0];
  for (int i = 1; i < n; i++) total = tir_binary(h, TIR_MUL, total, fe[i]);
  total = arith_simplify(ctx, total);
  TirExpr *pred = NULL;
  if (!disable_predication && !arith_can_prove_equal(ctx, total, extent))
    pred = tir_binary(h, TIR_LT, value, extent);
  TirStmt *body = tir_substitute_stmt1(h, loop->loop.body, loop->loop.var, value);
  body = sch_simplify_bindings(ctx, body, pred);
  for (int i = n - 1; i >= 0; i--) {
    body = tir_for(h, vars[i], tir_int(h, dt, 0), fe[i], TIR_FOR_SERIAL, NULL, NULL, body);
    body->span = loop->span;
  }
  return body;
}

/* Binds the loops above p's last statement, outermost first: as in TVM's
 * binding simplification, which knows them, and so that outer loop vars
 * come first in the simplified bindings (i * 32 + f // 128). */
static void bind_enclosing_loops(ArithCtx *ctx, const SchPath *p) {
  for (int d = 0; d < p->n - 1; d++)
    if (p->s[d]->kind == TIR_S_FOR)
      arith_bind_range(ctx, p->s[d]->loop.var, p->s[d]->loop.min, p->s[d]->loop.extent);
}

int sch_split(Schedule *s, SchRV loop_rv, const int64_t *factors, int n, bool preserve_unit_iters,
              bool disable_predication, SchRV *out) {
  SchPath p = {0};
  TirStmt *loop = sch_find_loop(s, loop_rv, "split", 0, &p);
  if (!loop) return sch_path_free(&p), -1;
  int infer_at = -1;
  int64_t prod = 1;
  int rc = -1;
  StrBuf fs;
  sb_init(&fs);
  format_factors(&fs, factors, n);
  if (!check_split(s, loop, factors, n, fs.data, &infer_at, &prod)) goto done;
  IrModule *nm = sch_begin(s);
  IrHeap *h = nm->heap;
  ArithCtx *ctx = arith_new(h);
  TirExpr **fe = compute_split_factors(s, ctx, loop, factors, n, infer_at, prod, fs.data);
  if (!fe) {
    arith_free(ctx);
    ir_module_free(nm);
    goto done;
  }
  TirVar **vars = ir_alloc(h, (size_t)n * sizeof *vars);
  TirStmt *body = build_split_nest(ctx, loop, fe, n, preserve_unit_iters, disable_predication, vars);
  TirStmt *root = sch_replace_at(h, &p, p.n - 1, body);
  arith_free(ctx);
  const char *func = s->rvs[loop_rv].func;
  sch_commit(s, nm, func, root);
  for (int i = 0; i < n; i++) out[i] = sch_new_rv(s, SCH_RV_LOOP, func, vars[i], NULL);
  SchVal args[4] = {sch_val_rv(loop_rv), factors_val(factors, n), sch_val_bool(preserve_unit_iters),
                    sch_val_bool(disable_predication)};
  sch_record(s, "split", args, 4, out, n);
  rc = 0;
done:
  sb_free(&fs);
  sch_path_free(&p);
  return rc;
}

/* ----------------------------------------------------------------- fuse */

/* Finds the loops: plain loops from 0, each the only child of the one
 * before, no extent depending on another loop (path of the first in p). */
static bool check_fuse(Schedule *s, const SchRV *rvs, int n, TirStmt **loops, SchPath *p, SchPath *q) {
  for (int i = 0; i < n; i++) {
    loops[i] = sch_find_loop(s, rvs[i], "fuse", i, i == 0 ? p : q);
    if (!loops[i]) return false;
    const char *nm = sch_loop_name(loops[i]);
    if (has_annotations(loops[i])) {
      sch_fail(s, SCH_ERR_LOOP_KIND, i, "fuse: loop '%s' has annotations or a thread binding", nm);
      return false;
    }
    if (!tir_is_zero(loops[i]->loop.min)) {
      sch_fail(s, SCH_ERR_LOOP_STRUCTURE, i, "fuse: loop '%s' does not start at 0", nm);
      return false;
    }
    if (i > 0 && loops[i - 1]->loop.body != loops[i]) {
      if (sch_contains(loops[i - 1]->loop.body, loops[i]))
        sch_fail(s, SCH_ERR_LOOP_STRUCTURE, i, "fuse: loop '%s' is not the only child of loop '%s'", nm,
                 sch_loop_name(loops[i - 1]));
      else
        sch_fail(s, SCH_ERR_LOOP_STRUCTURE, i, "fuse: loop '%s' is not the parent of loop '%s'",
                 sch_loop_name(loops[i - 1]), nm);
      return false;
    }
  }
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++)
      if (k != i && tir_expr_uses_var(loops[i]->loop.extent, loops[k]->loop.var)) {
        sch_fail(s, SCH_ERR_LOOP_STRUCTURE, i, "fuse: the extent of loop '%s' depends on loop '%s'",
                 sch_loop_name(loops[i]), sch_loop_name(loops[k]));
        return false;
      }
  return true;
}

/* The fused loop `<l0>_<l1>_..._fused` (var in *fv_out) over the product of
 * the extents, the innermost body's loop vars rewritten to its digits. */
static TirStmt *build_fused_loop(ArithCtx *ctx, TirStmt *const *loops, int n, bool preserve_unit_iters,
                                 TirVar **fv_out) {
  IrHeap *h = arith_heap(ctx);
  DType dt = loops[0]->loop.var->dtype;
  for (int i = 1; i < n; i++)
    if (loops[i]->loop.var->dtype.bits > dt.bits) dt = loops[i]->loop.var->dtype;
  StrBuf name;
  sb_init(&name);
  for (int i = 0; i < n; i++) sb_printf(&name, "%s_", sch_loop_name(loops[i]));
  sb_puts(&name, "fused");
  TirVar *fv = tir_var(h, name.data, dt);
  sb_free(&name);
  TirExpr *extent = NULL;
  for (int i = 0; i < n; i++) {
    TirExpr *e = loops[i]->loop.extent;
    if (!dt_eq(e->dtype, dt)) e = tir_cast(h, dt, e);
    extent = extent ? tir_binary(h, TIR_MUL, extent, e) : e;
  }
  extent = arith_simplify(ctx, extent);
  arith_bind_range(ctx, fv, tir_int(h, dt, 0), extent);
  IrPtrMap vmap;
  ir_ptrmap_init(&vmap);
  TirExpr *stride = tir_int(h, dt, 1);
  for (int i = n - 1; i >= 0; i--) {
    TirExpr *e = loops[i]->loop.extent;
    if (!dt_eq(e->dtype, dt)) e = tir_cast(h, dt, e);
    TirExpr *v;
    if (!preserve_unit_iters && tir_is_one(e)) {
      v = tir_int(h, dt, 0);
    } else {
      /* TVM's form: fused // stride for the outermost, else
       * fused % (stride * extent) // stride (no division by 1) */
      v = tir_var_ref(h, fv);
      if (i > 0) v = tir_binary(h, TIR_FLOORMOD, v, arith_simplify(ctx, tir_binary(h, TIR_MUL, stride, e)));
      if (!tir_is_one(stride)) v = tir_binary(h, TIR_FLOORDIV, v, stride);
    }
    if (!dt_eq(v->dtype, loops[i]->loop.var->dtype)) v = tir_cast(h, loops[i]->loop.var->dtype, v);
    ir_ptrmap_put(&vmap, loops[i]->loop.var, v);
    stride = arith_simplify(ctx, tir_binary(h, TIR_MUL, stride, e));
  }
  TirStmt *body = tir_substitute_stmt(h, loops[n - 1]->loop.body, &vmap);
  ir_ptrmap_free(&vmap);
  body = sch_simplify_bindings(ctx, body, NULL);
  body = tir_for(h, fv, tir_int(h, dt, 0), extent, TIR_FOR_SERIAL, NULL, NULL, body);
  body->span = loops[0]->span;
  *fv_out = fv;
  return body;
}

SchRV sch_fuse(Schedule *s, const SchRV *rvs, int n, bool preserve_unit_iters) {
  if (n < 1) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, -1, "fuse: expected at least one loop");
    return -1;
  }
  SchPath p = {0}, q = {0};
  TirStmt **loops = xmalloc((size_t)n * sizeof *loops);
  SchRV res = -1;
  if (check_fuse(s, rvs, n, loops, &p, &q)) {
    IrModule *nmod = sch_begin(s);
    IrHeap *h = nmod->heap;
    ArithCtx *ctx = arith_new(h);
    bind_enclosing_loops(ctx, &p);
    TirVar *fv = NULL;
    TirStmt *body = build_fused_loop(ctx, loops, n, preserve_unit_iters, &fv);
    TirStmt *root = sch_replace_at(h, &p, p.n - 1, body);
    arith_free(ctx);
    const char *func = s->rvs[rvs[0]].func;
    sch_commit(s, nmod, func, root);
    res = sch_new_rv(s, SCH_RV_LOOP, func, fv, NULL);
    SchVal args[2] = {sch_val_rv_list(rvs, n), sch_val_bool(preserve_unit_iters)};
    sch_record(s, "fuse", args, 2, &res, 1);
  }
  free(loops);
  sch_path_free(&p);
  sch_path_free(&q);
  return res;
}

/* -------------------------------------------------------------- reorder */

static bool iters_reorderable(Schedule *s, TirStmt *root, TirStmt *st) {
  PtrVec rs = {0};
  outer_realizes(st, &rs);
  bool ok = true;
  for (int i = 0; i < rs.len && ok; i++) {
    const TirBlock *b = tir_realize_block(rs.items[i]);
    if (!sch_binding_is_affine(root, rs.items[i])) {
      sch_fail(s, SCH_ERR_LOOP_KIND, -1,
               "reorder: block '%s' does not have affine bindings (or its predicate is not a bound of "
               "one of them), so its loops cannot be reordered",
               b->name);
      ok = false;
      break;
    }
    for (int k = 0; k < b->niters; k++) {
      TirIterType t = b->iters[k].type;
      if (t != TIR_ITER_SPATIAL && t != TIR_ITER_REDUCE) {
        sch_fail(s, SCH_ERR_LOOP_KIND, -1,
                  "reorder: block '%s' has iter '%s' that is neither data-parallel nor a "
                 "reduction",
                  b->name, b->iters[k].var->name);
        ok = false;
        break;
      }
    }
  }
  pv_free(&rs);
  return ok;
}

/* Every loop must lie on the single-child chain from the outermost listed
 * (*top) to the innermost (*bottom); the chain (malloc'd, *len loops) is
 * returned, NULL after an error. */
static TirStmt **check_reorder_chain(Schedule *s, const SchPath *paths, TirStmt *const *loops, int n,
                                     int *top_out, int *bottom_out, int *len_out) {
  int top = 0, bottom = 0;
  for (int i = 1; i < n; i++) {
    if (paths[i].n < paths[top].n) top = i;
    if (paths[i].n > paths[bottom].n) bottom = i;
  }
  int len = paths[bottom].n - paths[top].n + 1;
  TirStmt **chain = xmalloc((size_t)len * sizeof *chain);
  int base = paths[top].n - 1;
  bool on_path = paths[bottom].s[base] == loops[top];
  for (int k = 0; k < len && on_path; k++) chain[k] = paths[bottom].s[base + k];
  for (int i = 0; i < n && on_path; i++) {
    if (i == top) continue;
    bool found = false;
    for (int k = 0; k < len; k++) found |= chain[k] == loops[i];
    if (!found) {
      sch_fail(s, SCH_ERR_LOOP_STRUCTURE, i, "reorder: loops '%s' and '%s' are not in one chain",
               sch_loop_name(loops[top]), sch_loop_name(loops[i]));
      return free(chain), NULL;
    }
  }
  if (!on_path) {
    sch_fail(s, SCH_ERR_LOOP_STRUCTURE, bottom, "reorder: loops '%s' and '%s' are not in one chain",
             sch_loop_name(loops[top]), sch_loop_name(loops[bottom]));
    return free(chain), NULL;
  }
  for (int k = 0; k + 1 < len; k++) {
    if (chain[k]->kind != TIR_S_FOR || chain[k]->loop.body != chain[k + 1]) {
      sch_fail(s, SCH_ERR_LOOP_STRUCTURE, bottom, "reorder: loops '%s' and '%s' are not in one chain",
               sch_loop_name(loops[top]), sch_loop_name(loops[bottom]));
      return free(chain), NULL;
    }
  }
  *top_out = top;
  *bottom_out = bottom;
  *len_out = len;
  return chain;
}

/* The new chain (malloc'd): listed loops take the chain positions of listed
 * loops, in the given order; NULL when a loop's min or extent would use a
 * loop inside it. */
static TirStmt **compute_reorder(Schedule *s, TirStmt *const *chain, int len, TirStmt *const *loops, int n) {
  TirStmt **order = xmalloc((size_t)len * sizeof *order);
  int next = 0;
  for (int k = 0; k < len; k++) {
    bool listed = false;
    for (int i = 0; i < n; i++) listed |= chain[k] == loops[i];
    order[k] = listed ? loops[next++] : chain[k];
  }
  for (int k = 0; k < len; k++)
    for (int j = k + 1; j < len; j++)
      if (tir_expr_uses_var(order[k]->loop.min, order[j]->loop.var) ||
          tir_expr_uses_var(order[k]->loop.extent, order[j]->loop.var)) {
        sch_fail(s, SCH_ERR_LOOP_STRUCTURE, -1,
                 "reorder: the min or extent of loop '%s' depends on loop '%s', which would "
                 "be inside it in the new order",
                 sch_loop_name(order[k]), sch_loop_name(order[j]));
        free(order);
        return NULL;
      }
  return order;
}

int sch_reorder(Schedule *s, const SchRV *rvs, int n) {
  SchPath *paths = xcalloc((size_t)(n ? n : 1), sizeof *paths);
  TirStmt **loops = xcalloc((size_t)(n ? n : 1), sizeof *loops);
  TirStmt **chain = NULL, **order = NULL;
  int rc = -1, top = 0, bottom = 0, len = 0;
  for (int i = 0; i < n; i++) {
    loops[i] = sch_find_loop(s, rvs[i], "reorder", i, &paths[i]);
    if (!loops[i]) goto done;
    for (int k = 0; k < i; k++)
      if (loops[k] == loops[i]) {
        sch_fail(s, SCH_ERR_LOOP_STRUCTURE, i,
                 "reorder: loop '%s' appears more than once", sch_loop_name(loops[i]));
        goto done;
      }
  }
  if (n < 2) {
    if (n == 1) {
      SchVal args[1] = {sch_val_rv_list(rvs, n)};
      sch_record(s, "reorder", args, 1, NULL, 0);
    }
    rc = 0;
    goto done;
  }
  chain = check_reorder_chain(s, paths, loops, n, &top, &bottom, &len);
  if (!chain || !iters_reorderable(s, sch_cur_func(s, s->rvs[rvs[0]].func)->body, loops[bottom]->loop.body))
    goto done;
  order = compute_reorder(s, chain, len, loops, n);
  if (!order) goto done;
  IrModule *nm = sch_begin(s);
  IrHeap *h = nm->heap;
  TirStmt *body = chain[len - 1]->loop.body;
  for (int k = len - 1; k >= 0; k--) body = sch_for_with_body(h, order[k], body);
  TirStmt *root = sch_replace_at(h, &paths[top], paths[top].n - 1, body);
  sch_commit(s, nm, s->rvs[rvs[0]].func, root);
  SchVal args[1] = {sch_val_rv_list(rvs, n)};
  sch_record(s, "reorder", args, 1, NULL, 0);
  rc = 0;
done:
  for (int i = 0; i < n; i++) sch_path_free(&paths[i]);
  free(paths);
  free(loops);
  free(chain);
  free(order);
  return rc;
}

/* --------------------------------------------------------- add_unit_loop */

SchRV sch_add_unit_loop(Schedule *s, SchRV rv) {
  SchPath p = {0};
  bool is_loop = rv >= 0 && rv < s->nrvs && s->rvs[rv].kind == SCH_RV_LOOP;
  TirStmt *st = is_loop ? sch_find_loop(s, rv, "add_unit_loop", 0, &p)
                        : sch_find_block(s, rv, "add_unit_loop", 0, &p);
  if (!st) return sch_path_free(&p), -1;
  if (!is_loop && p.n == 1) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 0, "add_unit_loop: cannot add loops on top of the root block");
    sch_path_free(&p);
    return -1;
  }
  IrModule *nm = sch_begin(s);
  IrHeap *h = nm->heap;
  TirVar *u = tir_var(h, "u", dt_int32);
  TirStmt *loop = tir_for(h, u, tir_i32(h, 0), tir_i32(h, 1), TIR_FOR_SERIAL, NULL, NULL, st);
  TirStmt *root = sch_replace_at(h, &p, p.n - 1, loop);
  sch_path_free(&p);
  const char *func = s->rvs[rv].func;
  sch_commit(s, nm, func, root);
  SchRV res = sch_new_rv(s, SCH_RV_LOOP, func, u, NULL);
  SchVal args[1] = {sch_val_rv(rv)};
  sch_record(s, "add_unit_loop", args, 1, &res, 1);
  return res;
}
