/* vectorize_loop.c - VectorizeLoop: vectorized loops become vector code.
 *
 * The body of a `T.vectorized` loop of constant extent L (starting at 0) is
 * rewritten once for all lanes: the loop var becomes Ramp(0, 1, L), an integer
 * expression affine in it with constant stride s becomes Ramp(base, s, L),
 * loop-invariant operands are broadcast.  A body that cannot be vectorized
 * safely (an inner loop, an `if` on a lane-varying condition, a call without
 * a vector form, a store to a loop-invariant index, or a buffer that is
 * written and also accessed at a different index, which could carry a
 * dependence between lanes) stays a serial loop, with a warning.  Never
 * wrong code: vector execution must equal serial execution. */
#include "ir/structural_equal.h"
#include "ir/transform/xform_internal.h"

#include <stdlib.h>
#include <string.h>

#define MAX_LANES 128

/* One buffer access seen in the body. */
typedef struct Access {
  const TirVar *data;  /* the buffer's data var (aliasing is by storage) */
  TirExpr *idx;        /* the (vectorized) flat index */
  bool store;          /* a store (else a load) */
  const char *name;    /* buffer name, for messages */
} Access;

typedef struct Vec {
  IrHeap *h;
  ArithCtx *a;
  TirVar *var;          /* the loop var */
  int lanes;            /* L */
  IrPtrMap vvars;       /* let var -> TirExpr* (a ref to its vector replacement) */
  const char *fail;     /* why not (static or heap-allocated in h) */
  Access *acc;          /* accesses in program order */
  int nacc, capacc;
} Vec;

static void note_access(Vec *v, const TirBuffer *b, TirExpr *idx, bool store) {
  VEC_PUSH(v->acc, v->nacc, v->capacc, ((Access){b->data, idx, store, b->name}));
}

/* Whether e depends on the lane (the loop var or a vectorized let var). */
static bool varies(Vec *v, const TirExpr *e) {
  if (!e) return false;
  PtrVec fv = {0};
  tir_expr_free_vars(e, &fv);
  bool r = false;
  for (int i = 0; i < fv.len && !r; i++) r = fv.items[i] == v->var || ir_ptrmap_has(&v->vvars, fv.items[i]);
  pv_free(&fv);
  return r;
}

static TirExpr *widen(Vec *v, TirExpr *e) {
  return e->dtype.lanes == 1 ? tir_broadcast(v->h, e, v->lanes) : e;
}

static TirExpr *vec_expr(Vec *v, TirExpr *e);

/* Vectorizes n operands; all become vectors when any is (widen = true). */
static bool vec_args(Vec *v, TirExpr **in, TirExpr **out, int n, bool *any) {
  *any = false;
  for (int i = 0; i < n; i++) {
    out[i] = vec_expr(v, in[i]);
    if (!out[i]) return false;
    if (out[i]->dtype.lanes > 1) *any = true;
  }
  if (*any)
    for (int i = 0; i < n; i++) out[i] = widen(v, out[i]);
  return true;
}

/* Whether e is `rest + coef * lane`: affine in the loop var alone (no
 * vectorized let var in it), with the rest non-empty. */
static bool lane_affine(Vec *v, const TirExpr *e, int64_t *coef, TirExpr **rest) {
  PtrVec fv = {0};
  tir_expr_free_vars(e, &fv);
  bool vvar = false;
  for (int i = 0; i < fv.len && !vvar; i++) vvar = ir_ptrmap_has(&v->vvars, fv.items[i]);
  pv_free(&fv);
  const TirVar *vars[1] = {v->var};
  *rest = NULL;
  return !vvar && arith_affine(v->a, e, vars, 1, coef, rest) && *rest;
}

/* floordiv / floormod of `rest + coef * lane` by a constant c that the lanes
 * cannot straddle (c a multiple of coef * L, rest provably one too): the
 * quotient is the same for every lane and the remainder a ramp, as TVM's
 * simplifier proves.  The fused index of a cooperative fetch split by its
 * vector width takes this form; without it the access was a gather.  NULL
 * when it does not apply. */
static TirExpr *vec_floor_divmod(Vec *v, TirExpr *e) {
  IrHeap *h = v->h;
  int64_t c, coef;
  TirExpr *rest;
  if (!tir_is_const_int(e->bin.b, &c) || c <= 0 || !lane_affine(v, e->bin.a, &coef, &rest) || coef <= 0 ||
      c % (coef * v->lanes))
    return NULL;
  TirExpr *base = xf_cast_to(h, e->dtype, xf_simplify(v->a, rest));
  TirExpr *whole = tir_binary(h, TIR_FLOORMOD, base, xf_int(h, e->dtype, coef * v->lanes));
  if (!arith_prove(v->a, tir_binary(h, TIR_EQ, whole, xf_int(h, e->dtype, 0)))) return NULL;
  TirExpr *q = xf_simplify(v->a, tir_binary(h, e->kind, base, e->bin.b));
  if (e->kind == TIR_FLOORDIV) return tir_broadcast(h, q, v->lanes);
  return tir_ramp(h, q, xf_int(h, e->dtype, coef), v->lanes);
}

/* Ramp and Broadcast operands of + - * folded into one Ramp or Broadcast (the quotient
 * and remainder above, scaled and offset back into a flat index); NULL when
 * they do not fold. */
static TirExpr *fold_ramp(Vec *v, TirExprKind k, TirExpr *a, TirExpr *b) {
  IrHeap *h = v->h;
  bool ra = a->kind == TIR_RAMP, rb = b->kind == TIR_RAMP;
  if (!dt_is_integer(a->dtype) || (!ra && a->kind != TIR_BROADCAST) || (!rb && b->kind != TIR_BROADCAST))
    return NULL;
  if (!ra && !rb) /* both invariant across lanes */
    return tir_broadcast(h, xf_simplify(v->a, tir_binary(h, k, a->bcast.value, b->bcast.value)), v->lanes);
  TirExpr *ab = ra ? a->ramp.base : a->bcast.value, *bb = rb ? b->ramp.base : b->bcast.value;
  DType t = dt_with_lanes(a->dtype, 1);
  TirExpr *as = ra ? a->ramp.stride : xf_int(h, t, 0), *bs = rb ? b->ramp.stride : xf_int(h, t, 0);
  if (k == TIR_ADD || k == TIR_SUB)
    return tir_ramp(h, xf_simplify(v->a, tir_binary(h, k, ab, bb)), xf_simplify(v->a, tir_binary(h, k, as, bs)),
                    v->lanes);
  if (k == TIR_MUL && ra != rb) { /* a ramp times an invariant */
    TirExpr *scale = ra ? bb : ab, *rbase = ra ? ab : bb, *rstride = ra ? as : bs;
    return tir_ramp(h, xf_simplify(v->a, tir_binary(h, TIR_MUL, rbase, scale)),
                    xf_simplify(v->a, tir_binary(h, TIR_MUL, rstride, scale)), v->lanes);
  }
  return NULL;
}

static TirExpr *vec_expr(Vec *v, TirExpr *e) {
  if (v->fail) return NULL;
  if (!varies(v, e)) {
    /* invariant loads still count for the dependence check */
    if (e->kind == TIR_LOAD && e->load.n == 1) note_access(v, e->load.buf, e->load.idx[0], false);
    else if (e->kind != TIR_INT && e->kind != TIR_FLOAT && e->kind != TIR_VAR) {
      /* walk invariant subtrees for loads */
      TirExpr *args[3];
      int n = 0;
      switch (e->kind) {
        case TIR_NOT: case TIR_CAST: args[n++] = e->un.a; break;
        case TIR_SELECT: args[n++] = e->sel.cond; args[n++] = e->sel.t; args[n++] = e->sel.f; break;
        case TIR_CALL: for (int i = 0; i < e->call.n; i++) vec_expr(v, e->call.args[i]); break;
        case TIR_LOAD: v->fail = "multi-dimensional buffer access"; return NULL;
        case TIR_LET: case TIR_RAMP: case TIR_BROADCAST: case TIR_STR: break;
        default: args[n++] = e->bin.a; args[n++] = e->bin.b; break;
      }
      for (int i = 0; i < n; i++) vec_expr(v, args[i]);
    }
    return v->fail ? NULL : e;
  }
  IrHeap *h = v->h;
  TirExpr *ops[3];
  bool any;
  switch (e->kind) {
    case TIR_VAR:
      if (e->var == v->var) return tir_ramp(h, xf_int(h, e->dtype, 0), xf_int(h, e->dtype, 1), v->lanes);
      return ir_ptrmap_get(&v->vvars, e->var);
    case TIR_LOAD: {
      if (e->load.n != 1) {
        v->fail = "multi-dimensional buffer access";
        return NULL;
      }
      TirExpr *idx = vec_expr(v, e->load.idx[0]);
      if (!idx) return NULL;
      note_access(v, e->load.buf, idx, false);
      TirExpr *r = tir_load(h, e->load.buf, &idx, 1);
      r->span = e->span;
      return r;
    }
    case TIR_NOT:
      if (!vec_args(v, &e->un.a, ops, 1, &any)) return NULL;
      return tir_not(h, ops[0]);
    case TIR_CAST:
      if (!vec_args(v, &e->un.a, ops, 1, &any)) return NULL;
      return tir_cast(h, dt_with_lanes(e->dtype, ops[0]->dtype.lanes), ops[0]);
    case TIR_SELECT: {
      TirExpr *in[3] = {e->sel.cond, e->sel.t, e->sel.f};
      if (!vec_args(v, in, ops, 3, &any)) return NULL;
      return tir_select(h, ops[0], ops[1], ops[2]);
    }
    case TIR_CALL: {
      const TirOpInfo *op = e->call.op;
      if (op->id == TIR_OP_IF_THEN_ELSE) {
        if (varies(v, e->call.args[0])) {
          v->fail = "if_then_else with a lane-varying condition";
          return NULL;
        }
        TirExpr *in[2] = {e->call.args[1], e->call.args[2]};
        TirExpr *c = vec_expr(v, e->call.args[0]);
        if (!c || !vec_args(v, in, ops, 2, &any)) return NULL;
        TirExpr *args[3] = {c, widen(v, ops[0]), widen(v, ops[1])};
        return tir_call(h, dt_with_lanes(e->dtype, v->lanes), op, args, 3);
      }
      if (op->kind == TIR_OPK_SPECIAL && op->id != TIR_OP_LIKELY) {
        char *msg = xasprintf("call to T.%s has no vector form", op->name);
        v->fail = ir_strdup(h, msg);
        free(msg);
        return NULL;
      }
      TirExpr **args = ir_alloc(h, (size_t)(e->call.n ? e->call.n : 1) * sizeof *args);
      if (!vec_args(v, e->call.args, args, e->call.n, &any)) return NULL;
      return tir_call(h, dt_with_lanes(e->dtype, v->lanes), op, args, e->call.n);
    }
    case TIR_LET: case TIR_RAMP: case TIR_BROADCAST: case TIR_STR: case TIR_INT: case TIR_FLOAT:
      v->fail = "a lane-varying let or vector expression";
      return NULL;
    default: break;
  }
  /* binary operators: affine integer index arithmetic becomes one Ramp */
  if (dt_is_integer(e->dtype) && (e->kind == TIR_ADD || e->kind == TIR_SUB || e->kind == TIR_MUL)) {
    int64_t coef;
    TirExpr *rest;
    if (lane_affine(v, e, &coef, &rest))
      return tir_ramp(h, xf_cast_to(h, e->dtype, xf_simplify(v->a, rest)), xf_int(h, e->dtype, coef), v->lanes);
  }
  if (dt_is_integer(e->dtype) && (e->kind == TIR_FLOORDIV || e->kind == TIR_FLOORMOD)) {
    TirExpr *dm = vec_floor_divmod(v, e);
    if (dm) return dm;
  }
  TirExpr *in[2] = {e->bin.a, e->bin.b};
  if (!vec_args(v, in, ops, 2, &any)) return NULL;
  if (e->kind == TIR_ADD || e->kind == TIR_SUB || e->kind == TIR_MUL) {
    TirExpr *f = fold_ramp(v, e->kind, ops[0], ops[1]);
    if (f) return f;
  }
  TirExpr *r = tir_binary(h, e->kind, ops[0], ops[1]);
  r->span = e->span;
  return r;
}

static TirStmt *vec_stmt(Vec *v, TirStmt *s) {
  if (v->fail || !s) return NULL;
  IrHeap *h = v->h;
  switch (s->kind) {
    case TIR_S_STORE: {
      if (s->store.n != 1) {
        v->fail = "multi-dimensional buffer access";
        return NULL;
      }
      TirExpr *val = vec_expr(v, s->store.value);
      TirExpr *idx = val ? vec_expr(v, s->store.idx[0]) : NULL;
      if (!idx) return NULL;
      if (idx->dtype.lanes == 1) {
        v->fail = "a store to an index that does not depend on the loop var";
        return NULL;
      }
      note_access(v, s->store.buf, idx, true);
      TirStmt *r = tir_store(h, s->store.buf, widen(v, val), &idx, 1);
      r->span = s->span;
      return r;
    }
    case TIR_S_SEQ: {
      TirStmt **out = ir_alloc(h, (size_t)s->seq.n * sizeof *out);
      for (int i = 0; i < s->seq.n; i++)
        if (!(out[i] = vec_stmt(v, s->seq.stmts[i]))) return NULL;
      return tir_seq(h, out, s->seq.n);
    }
    case TIR_S_IF: {
      if (varies(v, s->ifs.cond)) {
        v->fail = "an if with a lane-varying condition";
        return NULL;
      }
      vec_expr(v, s->ifs.cond);
      TirStmt *t = vec_stmt(v, s->ifs.then_s);
      TirStmt *f = s->ifs.else_s ? vec_stmt(v, s->ifs.else_s) : NULL;
      if (!t || (s->ifs.else_s && !f)) return NULL;
      TirStmt *r = tir_if(h, s->ifs.cond, t, f);
      r->span = s->span;
      return r;
    }
    case TIR_S_LET: {
      TirExpr *val = vec_expr(v, s->let.value);
      if (!val) return NULL;
      TirVar *var = s->let.var;
      if (val->dtype.lanes > 1) {
        var = tir_var(h, s->let.var->name, val->dtype);
        ir_ptrmap_put(&v->vvars, s->let.var, tir_var_ref(h, var));
      }
      TirStmt *body = vec_stmt(v, s->let.body);
      if (!body) return NULL;
      TirStmt *r = tir_let_stmt(h, var, val, body);
      r->span = s->span;
      return r;
    }
    case TIR_S_EVAL:
      if (varies(v, s->eval.value) || xf_has_side_effect(s->eval.value)) {
        v->fail = "an expression statement inside the loop";
        return NULL;
      }
      return s;
    case TIR_S_FOR:
      v->fail = "it contains an inner loop";
      return NULL;
    default: { /* braces: a declaration may not follow a label before C23 (clang rejects it) */
      char *msg = xasprintf("it contains a %s statement", tir_stmt_kind_name(s->kind));
      v->fail = ir_strdup(h, msg);
      free(msg);
      return NULL;
    }
  }
}

/* Lanes never touch another lane's element: every access to a written
 * storage uses the same index, an injective Ramp (constant stride != 0). */
static void check_deps(Vec *v) {
  for (int i = 0; i < v->nacc && !v->fail; i++) {
    const Access *w = &v->acc[i];
    if (!w->store) continue;
    int64_t st;
    if (w->idx->kind != TIR_RAMP || !tir_is_const_int(w->idx->ramp.stride, &st) || st == 0) {
      v->fail = "a store index that may repeat across lanes";
      return;
    }
    for (int j = 0; j < v->nacc; j++) {
      const Access *o = &v->acc[j];
      if (j == i || o->data != w->data) continue;
      if (!seq_tir_expr(o->idx, w->idx)) {
        char *msg = xasprintf("buffer '%s' is written and accessed at another index", w->name);
        v->fail = ir_strdup(v->h, msg);
        free(msg);
        return;
      }
    }
  }
}

typedef struct VecPass {
  TirPassCtx *pc;
} VecPass;

static TirStmt *vectorize_for(TirMutator *m, TirStmt *s) {
  TirStmt *r = tir_mutate_stmt_children(m, s); /* inner loops first */
  if (r->loop.kind != TIR_FOR_VECTORIZED) return r;
  VecPass *vp = m->ctx;
  IrHeap *h = m->heap;
  int64_t ext = 0;
  Vec v;
  memset(&v, 0, sizeof v);
  v.h = h;
  v.var = r->loop.var;
  if (!tir_is_const_int(r->loop.extent, &ext)) v.fail = "its extent is not a constant";
  else if (!tir_is_zero(r->loop.min)) v.fail = "it does not start at 0";
  else if (ext > MAX_LANES) v.fail = "its extent is more than 128 lanes";
  TirStmt *out = NULL;
  if (!v.fail && ext <= 1) {
    /* one lane: a plain loop */
  } else if (!v.fail) {
    v.lanes = (int)ext;
    v.a = arith_new(h);
    out = vec_stmt(&v, r->loop.body);
    if (out) check_deps(&v);
    arith_free(v.a);
  }
  if (v.fail && vp->pc->diag)
    diag_warning(vp->pc->diag, r->span,
                 "vectorize: loop '%s' cannot be vectorized (%s); emitting a scalar loop",
                 r->loop.var->name, v.fail);
  free(v.acc);
  ir_ptrmap_free(&v.vvars);
  if (out && !v.fail) return out;
  TirStmt *c = tir_stmt_with_span(h, r, r->span);
  c->loop.kind = TIR_FOR_SERIAL;
  return c;
}

/* requires: canonicalize-loop and flatten-buffer ran (1-D accesses, loops at
 * 0); ensures: no loop of kind vectorized remains: each became vector code
 * (Ramp/Broadcast, vector loads/stores) or a serial loop with a warning. */
TirFunc *tir_vectorize_loop(TirPassCtx *ctx, TirFunc *f) {
  VecPass vp = {ctx};
  TirMutator m;
  tir_mutator_init(&m, ctx->heap);
  m.stmt[TIR_S_FOR] = vectorize_for;
  m.ctx = &vp;
  TirStmt *body = tir_mutate_stmt(&m, f->body);
  tir_mutator_free(&m);
  return xf_with_body(ctx->heap, f, body);
}
