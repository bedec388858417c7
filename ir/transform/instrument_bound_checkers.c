/* instrument_bound_checkers.c - InstrumentBoundCheckers (--bounds-check).
 *
 * TVM's tir.instrument_bound_checkers, extended to every access and to
 * integer division: before each statement, one `assert` per buffer index it
 * evaluates (0 <= index < extent of the flattened buffer) and per integer
 * divisor (!= 0), innermost first, so that a check never reads memory or
 * divides before its own operands were checked.  The message is a call the
 * failure path makes, T.call_extern("handle", "tvs_out_of_bounds_message",
 * access, buffer, index, extent) or "tvs_division_by_zero_message", which
 * formats the interpreter's wording with the values at run time
 * (runtime/check_message.c); codegen sets it as the packed function's error.
 *
 * Operands that run only under a condition (the arms of T.if_then_else, the
 * right side of a scalar `and`/`or`) get checks guarded by that condition.
 * Let-bound values are substituted into the checks that use them.  A vector
 * index is checked at both ends when it is a Ramp, lane by lane otherwise.
 * Checks the analyzer proves (loop ranges, enclosing `if`s) are dropped.
 * A signed division by a non-constant also gets its divisor guarded against
 * the MIN / -1 trap, so that it gives the interpreter's wrapped result. */
#include "ir/transform/xform_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct Check {
  TirExpr *cond; /* true when the access or division is safe */
  TirExpr *msg;  /* the message call, evaluated only on failure */
} Check;

typedef struct Ck {
  IrHeap *h;
  ArithCtx *a;  /* loop ranges and `if` conditions around the statement */
  Check *v;     /* checks of the statement being instrumented, in order */
  int n, cap;
} Ck;

static void collect(Ck *c, TirExpr *e, TirExpr *guard);

static TirExpr *call_op(IrHeap *h, DType t, int op, TirExpr **args, int n) {
  return tir_call(h, t, &tir_op_table[op], args, n);
}

static TirExpr *and_(IrHeap *h, TirExpr *a, TirExpr *b) {
  if (!a) return b;
  if (!b) return a;
  return tir_binary(h, TIR_AND, a, b);
}

/* lo <= x < hi for scalar integers, in the wider of the two dtypes. */
static TirExpr *in_range(IrHeap *h, TirExpr *x, TirExpr *hi) {
  if (x->dtype.bits < hi->dtype.bits || (x->dtype.bits == hi->dtype.bits && !dt_eq(x->dtype, hi->dtype)))
    x = xf_cast_to(h, dt_element(hi->dtype), x);
  else
    hi = xf_cast_to(h, dt_element(x->dtype), hi);
  return and_(h, tir_binary(h, TIR_LE, xf_int(h, x->dtype, 0), x), tir_binary(h, TIR_LT, x, hi));
}

/* Records cond (simplified; dropped when proven) under guard. */
static void add_check(Ck *c, TirExpr *cond, TirExpr *msg, TirExpr *guard) {
  arith_push(c->a);
  if (guard) arith_assume(c->a, guard);
  TirExpr *s = xf_simplify(c->a, cond);
  arith_pop(c->a);
  if (s && xf_is_const_true(s)) return;
  if (s) cond = s;
  if (guard) {
    TirExpr *args[3] = {guard, cond, tir_bool(c->h, true)};
    cond = call_op(c->h, dt_bool, TIR_OP_IF_THEN_ELSE, args, 3);
  }
  VEC_PUSH(c->v, c->n, c->cap, ((Check){cond, msg}));
}

/* ------------------------------------------------------------- vectors */

/* The scalar value of lane k of the vector expression e, or NULL when it
 * cannot be written without e's vector let vars. */
static TirExpr *lane(IrHeap *h, TirExpr *e, int k) {
  if (!e || e->dtype.lanes == 1) return e;
  TirExpr *a, *b, *r = NULL;
  switch (e->kind) {
    case TIR_RAMP:
      return xf_add(h, e->ramp.base, xf_mul(h, e->ramp.stride, xf_int(h, e->ramp.stride->dtype, k)));
    case TIR_BROADCAST: return e->bcast.value;
    case TIR_LOAD: {
      if (e->load.n != 1 || !(a = lane(h, e->load.idx[0], k))) return NULL;
      return tir_load(h, e->load.buf, &a, 1);
    }
    case TIR_NOT: return (a = lane(h, e->un.a, k)) ? tir_not(h, a) : NULL;
    case TIR_CAST: return (a = lane(h, e->un.a, k)) ? tir_cast(h, dt_element(e->dtype), a) : NULL;
    case TIR_SELECT: {
      TirExpr *cc = lane(h, e->sel.cond, k);
      a = lane(h, e->sel.t, k);
      b = lane(h, e->sel.f, k);
      return cc && a && b ? tir_select(h, cc, a, b) : NULL;
    }
    case TIR_CALL: {
      TirExpr **args = ir_alloc(h, (size_t)(e->call.n ? e->call.n : 1) * sizeof *args);
      for (int i = 0; i < e->call.n; i++)
        if (!(args[i] = lane(h, e->call.args[i], k))) return NULL;
      return tir_call(h, dt_element(e->dtype), e->call.op, args, e->call.n);
    }
    case TIR_LET: case TIR_VAR: case TIR_INT: case TIR_FLOAT: case TIR_STR: return NULL;
    default:
      a = lane(h, e->bin.a, k);
      b = lane(h, e->bin.b, k);
      if (a && b) r = tir_binary(h, e->kind, a, b);
      return r;
  }
}

/* ------------------------------------------------------------- checks */

static TirExpr *oob_msg(Ck *c, const TirBuffer *b, bool store, TirExpr *idx, TirExpr *ext) {
  TirExpr *args[5] = {tir_str(c->h, "tvs_out_of_bounds_message"), tir_str(c->h, store ? "store to" : "load from"),
                      tir_str(c->h, b->name ? b->name : "?"), xf_cast_to(c->h, dt_int64, idx),
                      xf_cast_to(c->h, dt_int64, ext)};
  return call_op(c->h, dt_handle, TIR_OP_CALL_EXTERN, args, 5);
}

/* One scalar index of dimension d of b. */
static void check_scalar_index(Ck *c, const TirBuffer *b, int d, TirExpr *idx, bool store, TirExpr *guard) {
  TirExpr *ext = b->shape[d];
  add_check(c, in_range(c->h, idx, ext), oob_msg(c, b, store, idx, ext), guard);
}

static void check_index(Ck *c, const TirBuffer *b, int d, TirExpr *idx, bool store, TirExpr *guard) {
  if (d >= b->ndim || !dt_is_integer(idx->dtype)) return;
  int lanes = idx->dtype.lanes;
  if (lanes == 1) {
    check_scalar_index(c, b, d, idx, store, guard);
  } else if (idx->kind == TIR_BROADCAST) {
    check_scalar_index(c, b, d, idx->bcast.value, store, guard);
  } else if (idx->kind == TIR_RAMP) {
    /* linear in the lane: in bounds at both ends means in bounds everywhere */
    IrHeap *h = c->h;
    TirExpr *lo = idx->ramp.base, *hi = lane(h, idx, lanes - 1), *ext = b->shape[d];
    TirExpr *lo_ok = in_range(h, lo, ext);
    TirExpr *bad = tir_select(h, lo_ok, xf_cast_to(h, dt_int64, hi), xf_cast_to(h, dt_int64, lo));
    add_check(c, and_(h, lo_ok, in_range(h, hi, ext)), oob_msg(c, b, store, bad, ext), guard);
  } else {
    for (int k = 0; k < lanes; k++) {
      TirExpr *x = lane(c->h, idx, k);
      if (x) check_scalar_index(c, b, d, x, store, guard);
    }
  }
}

static void check_divisor(Ck *c, TirExpr *e, TirExpr *guard) {
  TirExpr *d = e->bin.b;
  int lanes = d->dtype.lanes;
  for (int k = 0; k < lanes; k++) {
    TirExpr *x = lanes == 1 ? d : d->kind == TIR_BROADCAST ? d->bcast.value : lane(c->h, d, k);
    if (!x) continue;
    TirExpr *args[1] = {tir_str(c->h, "tvs_division_by_zero_message")};
    add_check(c, tir_binary(c->h, TIR_NE, x, xf_int(c->h, x->dtype, 0)),
              call_op(c->h, dt_handle, TIR_OP_CALL_EXTERN, args, 1), guard);
    if (d->kind == TIR_BROADCAST) break;
  }
}

/* Checks collected from body, with var replaced by its value. */
static void collect_let(Ck *c, TirExpr *e, TirExpr *guard) {
  collect(c, e->let.value, guard);
  int mark = c->n;
  collect(c, e->let.body, guard);
  for (int i = mark; i < c->n; i++) {
    c->v[i].cond = tir_substitute_expr1(c->h, c->v[i].cond, e->let.var, e->let.value);
    c->v[i].msg = tir_substitute_expr1(c->h, c->v[i].msg, e->let.var, e->let.value);
  }
}

static void collect_call(Ck *c, TirExpr *e, TirExpr *guard) {
  if (e->call.op->id == TIR_OP_IF_THEN_ELSE && e->call.n == 3 && e->call.args[0]->dtype.lanes == 1) {
    TirExpr *cond = e->call.args[0];
    collect(c, cond, guard);
    collect(c, e->call.args[1], and_(c->h, guard, cond));
    collect(c, e->call.args[2], and_(c->h, guard, tir_not(c->h, cond)));
    return;
  }
  for (int i = 0; i < e->call.n; i++) collect(c, e->call.args[i], guard);
}

/* Appends the checks of every access and division e evaluates. */
static void collect(Ck *c, TirExpr *e, TirExpr *guard) {
  if (!e) return;
  switch (e->kind) {
    case TIR_INT: case TIR_FLOAT: case TIR_STR: case TIR_VAR: return;
    case TIR_NOT: case TIR_CAST: collect(c, e->un.a, guard); return;
    case TIR_SELECT:
      collect(c, e->sel.cond, guard);
      collect(c, e->sel.t, guard);
      collect(c, e->sel.f, guard);
      return;
    case TIR_LOAD:
      for (int i = 0; i < e->load.n; i++) collect(c, e->load.idx[i], guard);
      for (int i = 0; i < e->load.n; i++) check_index(c, e->load.buf, i, e->load.idx[i], false, guard);
      return;
    case TIR_RAMP:
      collect(c, e->ramp.base, guard);
      collect(c, e->ramp.stride, guard);
      return;
    case TIR_BROADCAST: collect(c, e->bcast.value, guard); return;
    case TIR_LET: collect_let(c, e, guard); return;
    case TIR_CALL: collect_call(c, e, guard); return;
    case TIR_AND: case TIR_OR:
      collect(c, e->bin.a, guard);
      if (e->dtype.lanes == 1) /* scalar and/or short-circuit */
        collect(c, e->bin.b, and_(c->h, guard, e->kind == TIR_AND ? e->bin.a : tir_not(c->h, e->bin.a)));
      else
        collect(c, e->bin.b, guard);
      return;
    case TIR_DIV: case TIR_MOD: case TIR_FLOORDIV: case TIR_FLOORMOD:
      collect(c, e->bin.a, guard);
      collect(c, e->bin.b, guard);
      if (dt_is_integer(e->dtype)) check_divisor(c, e, guard);
      return;
    default:
      collect(c, e->bin.a, guard);
      collect(c, e->bin.b, guard);
      return;
  }
}

/* ---------------------------------------------------------- statements */

/* The checks of the expressions s evaluates itself (not its sub-statements). */
static void collect_own(Ck *c, TirStmt *s) {
  switch (s->kind) {
    case TIR_S_STORE:
      collect(c, s->store.value, NULL);
      for (int i = 0; i < s->store.n; i++) collect(c, s->store.idx[i], NULL);
      for (int i = 0; i < s->store.n; i++) check_index(c, s->store.buf, i, s->store.idx[i], true, NULL);
      return;
    case TIR_S_FOR:
      collect(c, s->loop.min, NULL);
      collect(c, s->loop.extent, NULL);
      return;
    case TIR_S_IF: collect(c, s->ifs.cond, NULL); return;
    case TIR_S_LET: collect(c, s->let.value, NULL); return;
    case TIR_S_EVAL: collect(c, s->eval.value, NULL); return;
    case TIR_S_ASSERT: collect(c, s->assrt.cond, NULL); return;
    case TIR_S_WHILE: collect(c, s->loop_while.cond, NULL); return;
    case TIR_S_ALLOCATE:
      for (int i = 0; i < s->alloc.n; i++) collect(c, s->alloc.extents[i], NULL);
      return;
    case TIR_S_ATTR: collect(c, s->attr.value, NULL); return;
    default: return;
  }
}

/* assert checks[0]; assert checks[1]; ...; s */
static TirStmt *wrap(IrHeap *h, const Check *v, int n, TirStmt *s, Span sp) {
  for (int i = n - 1; i >= 0; i--) s = tir_stmt_with_span(h, tir_assert(h, v[i].cond, v[i].msg, s), sp);
  return s;
}

static TirStmt *ck_stmt(TirMutator *m, TirStmt *s);

/* The children of s, with loop ranges and if conditions known to the analyzer. */
static TirStmt *ck_children(TirMutator *m, Ck *c, TirStmt *s) {
  if (s->kind == TIR_S_FOR) {
    arith_push(c->a);
    arith_bind_range(c->a, s->loop.var, s->loop.min, s->loop.extent);
    TirStmt *r = tir_mutate_stmt_children(m, s);
    arith_pop(c->a);
    return r;
  }
  if (s->kind == TIR_S_IF && s->ifs.cond->dtype.lanes == 1) {
    arith_push(c->a);
    arith_assume(c->a, s->ifs.cond);
    TirStmt *t = tir_mutate_stmt(m, s->ifs.then_s);
    arith_pop(c->a);
    TirStmt *e = tir_mutate_stmt(m, s->ifs.else_s);
    if (t == s->ifs.then_s && e == s->ifs.else_s) return s;
    return tir_stmt_with_span(m->heap, tir_if(m->heap, s->ifs.cond, t, e), s->span);
  }
  return tir_mutate_stmt_children(m, s);
}

static TirStmt *ck_stmt(TirMutator *m, TirStmt *s) {
  Ck *c = m->ctx;
  int mark = c->n;
  collect_own(c, s);
  int n = c->n - mark;
  Check *own = NULL;
  if (n) {
    own = xmalloc((size_t)n * sizeof *own);
    memcpy(own, c->v + mark, (size_t)n * sizeof *own);
  }
  c->n = mark;
  TirStmt *r = ck_children(m, c, s);
  if (n && s->kind == TIR_S_WHILE) {
    /* the condition runs again after each iteration */
    TirStmt *two[2] = {r->loop_while.body, wrap(m->heap, own, n, xf_nop(m->heap), s->span)};
    TirStmt *body = tir_seq(m->heap, two, 2);
    r = tir_stmt_with_span(m->heap, tir_while(m->heap, r->loop_while.cond, body), s->span);
  }
  r = wrap(m->heap, own, n, r, s->span);
  free(own);
  return r;
}

/* ------------------------------------------------- INT_MIN / -1 */

/* Whether e is a constant (or a broadcast one). */
static bool is_const(const TirExpr *e) {
  int64_t v;
  if (e->kind == TIR_BROADCAST) e = e->bcast.value;
  return tir_is_const_int(e, &v);
}

/* The one signed division that traps although its divisor is not 0:
 * MIN / -1 (x86 raises SIGFPE).  The interpreter wraps it (quotient MIN,
 * remainder 0), which is what dividing MIN by 1 gives, so the divisor
 * becomes Select(a == MIN and b == -1, 1, b). */
static TirExpr *safe_div(TirMutator *m, TirExpr *e) {
  TirExpr *r = tir_mutate_expr_children(m, e);
  if (!dt_is_int(r->dtype) || is_const(r->bin.b)) return r;
  IrHeap *h = m->heap;
  DType t = r->dtype, st = dt_element(t);
  int bits = st.bits;
  TirExpr *mn = xf_int(h, st, bits >= 64 ? INT64_MIN : -((int64_t)1 << (bits - 1))), *m1 = xf_int(h, st, -1),
          *one = xf_int(h, st, 1);
  if (t.lanes > 1) {
    mn = tir_broadcast(h, mn, t.lanes);
    m1 = tir_broadcast(h, m1, t.lanes);
    one = tir_broadcast(h, one, t.lanes);
  }
  TirExpr *trap = and_(h, tir_binary(h, TIR_EQ, r->bin.a, mn), tir_binary(h, TIR_EQ, r->bin.b, m1));
  TirExpr *d = tir_select(h, trap, one, r->bin.b);
  TirExpr *out = tir_binary(h, r->kind, r->bin.a, d);
  out->span = e->span;
  return out;
}

static TirStmt *safe_divisions(IrHeap *h, TirStmt *body) {
  TirMutator m;
  tir_mutator_init(&m, h);
  m.expr[TIR_DIV] = m.expr[TIR_MOD] = m.expr[TIR_FLOORDIV] = m.expr[TIR_FLOORMOD] = safe_div;
  TirStmt *r = tir_mutate_stmt(&m, body);
  tir_mutator_free(&m);
  return r;
}

/* requires: flattened buffers (after flatten-buffer), no blocks; ensures:
 * with cfg->instrument_bound_checkers, every buffer index and integer
 * divisor is asserted safe before the statement that evaluates it, and no
 * signed division traps on MIN / -1;
 * preserves: everything else.  Without the option: f itself. */
TirFunc *tir_instrument_bound_checkers(TirPassCtx *ctx, TirFunc *f) {
  if (!ctx->cfg || !ctx->cfg->instrument_bound_checkers || !f->body) return f;
  Ck c = {ctx->heap, arith_new(ctx->heap), NULL, 0, 0};
  TirMutator m;
  tir_mutator_init(&m, ctx->heap);
  for (int k = 0; k < TIR_NUM_STMT_KINDS; k++) m.stmt[k] = ck_stmt;
  m.ctx = &c;
  TirStmt *body = tir_mutate_stmt(&m, f->body);
  tir_mutator_free(&m);
  arith_free(c.a);
  free(c.v);
  return xf_with_body(ctx->heap, f, safe_divisions(ctx->heap, body));
}
