/* structural_equal.c - TVM-style structural equality of loop IR, graph IR and modules.
 *
 * Two trees are walked in lockstep.  Bound vars and buffers are mapped by the
 * position of their definition (a one-to-one, two-way map); free vars must be
 * the same object.  On the first difference the walk stops and, when asked,
 * the path to it and both sides are written as a human-readable message. */
#include "ir/structural_equal.h"
#include "ir/printer.h"
#include "ir/visit.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ state */

/* One step of the path to the current node, printed as `label`,
 * `label[idx]`, `label name` or `label "name"`. */
typedef struct PathSeg {
  const char *label; /* field or node description */
  const char *name;  /* name from the left side, or NULL */
  int idx;           /* array index, or -1 */
  bool quote;        /* print name in double quotes */
} PathSeg;

typedef struct SEq {
  IrPtrMap lr, rl;        /* bound TirVar/TirBuffer/RxExpr var: left->right, right->left */
  bool def_mode;          /* unmapped vars met now are defined (buffer definitions, param sinfo) */
  bool free_buf_identity; /* unmapped (free) buffers compare by identity (seq_tir_expr) */
  bool ignore_gs;         /* drop "global_symbol" from function attrs */
  bool map_free;          /* unmapped vars at a use are mapped (map_free_vars) */
  bool want_diff;         /* build messages at all */
  PathSeg *path;          /* current path */
  int npath, cappath;
  PathSeg *fail_path;     /* copy of path at the first failure */
  int nfail_path;
  char *msg;              /* leaf message of the first failure (malloc'd) */
  bool failed;            /* a failure was recorded */
  const TirExpr *top_a;   /* outermost expression of the field being compared */
  const TirExpr *top_b;
  int edepth;             /* expression nesting depth */
} SEq;

static void seq_init(SEq *q, const SEqualOptions *opt, bool want_diff) {
  memset(q, 0, sizeof *q);
  q->ignore_gs = opt && opt->ignore_global_symbol;
  q->map_free = opt && opt->map_free_vars;
  q->want_diff = want_diff;
}

static void seq_free(SEq *q) {
  ir_ptrmap_free(&q->lr);
  ir_ptrmap_free(&q->rl);
  free(q->path);
  free(q->fail_path);
  free(q->msg);
}

static void seg_push(SEq *q, const char *label, const char *name, int idx, bool quote) {
  if (!q->want_diff) return;
  VEC_PUSH(q->path, q->npath, q->cappath, ((PathSeg){label, name, idx, quote}));
}

static void seg_pop(SEq *q) {
  if (q->want_diff) q->npath--;
}

/* ------------------------------------------------- expression printer */

/* Expressions in diff messages are printed as the TVMScript printer does. */
static void dp_expr(StrBuf *sb, const TirExpr *e) {
  if (e) print_tir_expr(sb, e);
  else sb_puts(sb, "None");
}

static void dp_value(StrBuf *sb, const IrValue *v) {
  if (!v) {
    sb_puts(sb, "(absent)");
    return;
  }
  switch (v->kind) {
  case IRV_NONE: sb_puts(sb, "None"); break;
  case IRV_BOOL: sb_puts(sb, v->i ? "True" : "False"); break;
  case IRV_INT: sb_printf(sb, "%lld", (long long)v->i); break;
  case IRV_FLOAT: sb_printf(sb, "%.17g", v->f); break;
  case IRV_STR: sb_printf(sb, "\"%s\"", v->s); break;
  case IRV_EXPR: dp_expr(sb, v->expr); break;
  case IRV_BUFFER: sb_puts(sb, v->buf->name); break;
  case IRV_ARRAY:
    sb_putc(sb, '[');
    for (int i = 0; i < v->n; i++) {
      if (i) sb_puts(sb, ", ");
      dp_value(sb, v->items[i]);
    }
    sb_putc(sb, ']');
    break;
  case IRV_DICT:
    sb_putc(sb, '{');
    for (int i = 0; i < v->n; i++) {
      if (i) sb_puts(sb, ", ");
      sb_printf(sb, "\"%s\": ", v->keys[i]);
      dp_value(sb, v->items[i]);
    }
    sb_putc(sb, '}');
    break;
  }
}

/* ------------------------------------------------------------ failures */

/* Records the first failure: the leaf message in sb (consumed), the path. */
static bool fail_sb(SEq *q, StrBuf *sb) {
  if (q->failed || !q->want_diff) {
    sb_free(sb);
    q->failed = true;
    return false;
  }
  q->failed = true;
  if (q->edepth > 1 && q->top_a && q->top_b) {
    sb_puts(sb, " (in ");
    dp_expr(sb, q->top_a);
    sb_puts(sb, " vs ");
    dp_expr(sb, q->top_b);
    sb_putc(sb, ')');
  }
  q->msg = sb_take(sb);
  sb_free(sb); /* sb_take leaves a fresh empty buffer behind */
  q->nfail_path = q->npath;
  if (q->npath) {
    q->fail_path = xmalloc((size_t)q->npath * sizeof *q->fail_path);
    memcpy(q->fail_path, q->path, (size_t)q->npath * sizeof *q->fail_path);
  }
  return false;
}

static bool fail(SEq *q, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(SEq *q, const char *fmt, ...) {
  StrBuf sb;
  sb_init(&sb);
  if (q->want_diff && !q->failed) {
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&sb, fmt, ap);
    va_end(ap);
  }
  return fail_sb(q, &sb);
}

static bool fail_exprs(SEq *q, const TirExpr *a, const TirExpr *b, const char *why) {
  StrBuf sb;
  sb_init(&sb);
  if (q->want_diff && !q->failed) {
    dp_expr(&sb, a);
    sb_puts(&sb, " vs ");
    dp_expr(&sb, b);
    if (why) sb_printf(&sb, " (%s)", why);
  }
  return fail_sb(q, &sb);
}

/* The final message: "<fname>: seg -> seg: leaf". */
static void build_diff(SEq *q, const char *fname, char **diff) {
  if (!diff) return;
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "%s: ", fname ? fname : "ir");
  for (int i = 0; i < q->nfail_path; i++) {
    const PathSeg *p = &q->fail_path[i];
    if (i) sb_puts(&sb, " -> ");
    sb_puts(&sb, p->label);
    if (p->idx >= 0) sb_printf(&sb, "[%d]", p->idx);
    if (p->name) sb_printf(&sb, p->quote ? " \"%s\"" : " %s", p->name);
  }
  if (q->nfail_path) sb_puts(&sb, ": ");
  sb_puts(&sb, q->msg ? q->msg : "not equal");
  *diff = sb_take(&sb);
  sb_free(&sb);
}

/* ------------------------------------------------------------ helpers */

static bool streq0(const char *a, const char *b) {
  if (!a || !b) return a == b;
  return strcmp(a, b) == 0;
}

static const char *scope_of(const char *s) { return s && *s ? s : "global"; }

static bool float_eq(double a, double b) {
  if (isnan(a) && isnan(b)) return true;
  return memcmp(&a, &b, sizeof a) == 0;
}

static const char *for_kind_name(TirForKind k) {
  switch (k) {
  case TIR_FOR_SERIAL: return "serial";
  case TIR_FOR_PARALLEL: return "parallel";
  case TIR_FOR_VECTORIZED: return "vectorized";
  case TIR_FOR_UNROLLED: return "unroll";
  case TIR_FOR_THREAD_BINDING: return "thread_binding";
  }
  return "?";
}

static const char *iter_type_name(TirIterType t) {
  switch (t) {
  case TIR_ITER_SPATIAL: return "spatial";
  case TIR_ITER_REDUCE: return "reduce";
  case TIR_ITER_SCAN: return "scan";
  case TIR_ITER_OPAQUE: return "opaque";
  }
  return "?";
}

static bool is_zero_offset(const TirExpr *e) {
  return !e || (e->kind == TIR_INT && e->ival == 0 && dt_is_integer(e->dtype));
}

/* ------------------------------------------------------------ variables */

static const char *vname(const TirVar *v) { return v && v->name ? v->name : "v"; }

/* A definition position: maps a <-> b (or checks an existing mapping). */
static bool eq_var_def(SEq *q, const TirVar *a, const TirVar *b) {
  if (!a || !b) {
    if (a == b) return true;
    return fail(q, "variable %s vs %s", a ? vname(a) : "(none)", b ? vname(b) : "(none)");
  }
  bool ha = ir_ptrmap_has(&q->lr, a), hb = ir_ptrmap_has(&q->rl, b);
  if (ha || hb) {
    if (ir_ptrmap_get(&q->lr, a) == b && ir_ptrmap_get(&q->rl, b) == a) return true;
    return fail(q, "variable %s vs %s (already bound to different variables)", vname(a), vname(b));
  }
  if (!dt_eq(a->dtype, b->dtype)) {
    char t1[DT_STR_MAX], t2[DT_STR_MAX];
    return fail(q, "variable %s vs %s: dtype %s vs %s", vname(a), vname(b), dt_str(a->dtype, t1),
                dt_str(b->dtype, t2));
  }
  if ((a->thread_tag || b->thread_tag) && !streq0(a->thread_tag, b->thread_tag))
    return fail(q, "variable %s vs %s: thread \"%s\" vs \"%s\"", vname(a), vname(b),
                a->thread_tag ? a->thread_tag : "", b->thread_tag ? b->thread_tag : "");
  ir_ptrmap_put(&q->lr, a, (void *)b);
  ir_ptrmap_put(&q->rl, b, (void *)a);
  return true;
}

/* A use position: mapped vars must map to each other; free ones be identical. */
static bool eq_var_use(SEq *q, const TirVar *a, const TirVar *b) {
  bool ha = ir_ptrmap_has(&q->lr, a), hb = ir_ptrmap_has(&q->rl, b);
  if (ha || hb) {
    if (ir_ptrmap_get(&q->lr, a) == b && ir_ptrmap_get(&q->rl, b) == a) return true;
    return fail(q, "%s vs %s (not bound to each other)", vname(a), vname(b));
  }
  if (q->def_mode || (q->map_free && a != b)) return eq_var_def(q, a, b);
  if (a == b) return true;
  return fail(q, "%s vs %s (different free variables)", vname(a), vname(b));
}

/* ------------------------------------------------------------ expressions */

static bool eq_expr(SEq *q, const TirExpr *a, const TirExpr *b);
static bool eq_buffer_use(SEq *q, const TirBuffer *a, const TirBuffer *b);

static bool eq_exprs(SEq *q, const char *label, TirExpr *const *a, int na, TirExpr *const *b,
                     int nb) {
  if (na != nb) return fail(q, "%s count %d vs %d", label, na, nb);
  for (int i = 0; i < na; i++) {
    seg_push(q, label, NULL, i, false);
    bool ok = eq_expr(q, a[i], b[i]);
    seg_pop(q);
    if (!ok) return false;
  }
  return true;
}

static bool eq_expr_inner(SEq *q, const TirExpr *a, const TirExpr *b) {
  if (!a || !b) {
    if (a == b) return true;
    return fail_exprs(q, a, b, "missing expression");
  }
  if (a->kind != b->kind) return fail_exprs(q, a, b, NULL);
  if (!dt_eq(a->dtype, b->dtype)) {
    char t1[DT_STR_MAX], t2[DT_STR_MAX], why[64];
    snprintf(why, sizeof why, "dtype %s vs %s", dt_str(a->dtype, t1), dt_str(b->dtype, t2));
    return fail_exprs(q, a, b, why);
  }
  switch (a->kind) {
  case TIR_INT: return a->ival == b->ival || fail_exprs(q, a, b, NULL);
  case TIR_FLOAT: return float_eq(a->fval, b->fval) || fail_exprs(q, a, b, NULL);
  case TIR_STR: return streq0(a->str, b->str) || fail_exprs(q, a, b, NULL);
  case TIR_VAR: return eq_var_use(q, a->var, b->var);
  case TIR_ADD: case TIR_SUB: case TIR_MUL: case TIR_DIV: case TIR_MOD: case TIR_FLOORDIV:
  case TIR_FLOORMOD: case TIR_MIN: case TIR_MAX: case TIR_EQ: case TIR_NE: case TIR_LT:
  case TIR_LE: case TIR_GT: case TIR_GE: case TIR_AND: case TIR_OR:
    return eq_expr(q, a->bin.a, b->bin.a) && eq_expr(q, a->bin.b, b->bin.b);
  case TIR_NOT: case TIR_CAST: return eq_expr(q, a->un.a, b->un.a);
  case TIR_SELECT:
    return eq_expr(q, a->sel.cond, b->sel.cond) && eq_expr(q, a->sel.t, b->sel.t) &&
           eq_expr(q, a->sel.f, b->sel.f);
  case TIR_LOAD:
    if (!eq_buffer_use(q, a->load.buf, b->load.buf)) return false;
    if (a->load.n != b->load.n) return fail_exprs(q, a, b, "index count");
    for (int i = 0; i < a->load.n; i++)
      if (!eq_expr(q, a->load.idx[i], b->load.idx[i])) return false;
    return true;
  case TIR_RAMP:
    if (a->ramp.lanes != b->ramp.lanes) return fail_exprs(q, a, b, "lanes");
    return eq_expr(q, a->ramp.base, b->ramp.base) && eq_expr(q, a->ramp.stride, b->ramp.stride);
  case TIR_BROADCAST:
    if (a->bcast.lanes != b->bcast.lanes) return fail_exprs(q, a, b, "lanes");
    return eq_expr(q, a->bcast.value, b->bcast.value);
  case TIR_LET:
    return eq_expr(q, a->let.value, b->let.value) && eq_var_def(q, a->let.var, b->let.var) &&
           eq_expr(q, a->let.body, b->let.body);
  case TIR_CALL:
    if (a->call.op != b->call.op &&
        !(a->call.op && b->call.op && streq0(a->call.op->tvm_name, b->call.op->tvm_name)))
      return fail_exprs(q, a, b, "different operators");
    if (a->call.n != b->call.n) return fail_exprs(q, a, b, "argument count");
    for (int i = 0; i < a->call.n; i++)
      if (!eq_expr(q, a->call.args[i], b->call.args[i])) return false;
    return true;
  case TIR_NUM_EXPR_KINDS: break;
  }
  tvs_unreachable();
}

static bool eq_expr(SEq *q, const TirExpr *a, const TirExpr *b) {
  if (q->edepth == 0) {
    q->top_a = a;
    q->top_b = b;
  }
  q->edepth++;
  bool r = eq_expr_inner(q, a, b);
  q->edepth--;
  return r;
}

/* A labelled expression field of a statement or buffer. */
static bool eq_field(SEq *q, const char *label, const TirExpr *a, const TirExpr *b) {
  seg_push(q, label, NULL, -1, false);
  bool ok = eq_expr(q, a, b);
  seg_pop(q);
  return ok;
}

/* ------------------------------------------------------------ attrs */

static bool eq_value(SEq *q, const IrValue *a, const IrValue *b);

static bool fail_values(SEq *q, const IrValue *a, const IrValue *b) {
  StrBuf sb;
  sb_init(&sb);
  if (q->want_diff && !q->failed) {
    dp_value(&sb, a);
    sb_puts(&sb, " vs ");
    dp_value(&sb, b);
  }
  return fail_sb(q, &sb);
}

/* Dicts as unordered maps; NULL equals an empty dict; `skip` names a key
 * left out on both sides. */
static bool eq_dict(SEq *q, const IrValue *a, const IrValue *b, const char *skip) {
  int na = 0, nb = 0;
  if (a && a->kind != IRV_DICT) return fail_values(q, a, b);
  if (b && b->kind != IRV_DICT) return fail_values(q, a, b);
  for (int i = 0; a && i < a->n; i++) {
    if (skip && !strcmp(a->keys[i], skip)) continue;
    na++;
    const IrValue *bv = irv_dict_get(b, a->keys[i]);
    if (!bv) return fail(q, "key \"%s\" missing on the right", a->keys[i]);
    seg_push(q, "key", a->keys[i], -1, true);
    bool ok = eq_value(q, a->items[i], bv);
    seg_pop(q);
    if (!ok) return false;
  }
  for (int i = 0; b && i < b->n; i++) {
    if (skip && !strcmp(b->keys[i], skip)) continue;
    nb++;
    if (!irv_dict_get(a, b->keys[i])) return fail(q, "key \"%s\" missing on the left", b->keys[i]);
  }
  return na == nb || fail(q, "dict sizes %d vs %d", na, nb);
}

/* An IRV_INT/IRV_BOOL and a literal IntImm of int32/bool are the same value. */
static bool value_as_int(const IrValue *v, DType *t, int64_t *i) {
  if (v->kind == IRV_INT) {
    *t = dt_int32;
    *i = v->i;
    return true;
  }
  if (v->kind == IRV_BOOL) {
    *t = dt_bool;
    *i = v->i;
    return true;
  }
  if (v->kind == IRV_EXPR && v->expr && v->expr->kind == TIR_INT &&
      (dt_eq(v->expr->dtype, dt_int32) || dt_eq(v->expr->dtype, dt_bool))) {
    *t = v->expr->dtype;
    *i = v->expr->ival;
    return true;
  }
  return false;
}

static bool eq_value(SEq *q, const IrValue *a, const IrValue *b) {
  if (!a || !b) return a == b || fail_values(q, a, b);
  if (a->kind != b->kind) {
    DType ta, tb;
    int64_t ia, ib;
    if (value_as_int(a, &ta, &ia) && value_as_int(b, &tb, &ib) && dt_eq(ta, tb) && ia == ib)
      return true;
    return fail_values(q, a, b);
  }
  switch (a->kind) {
  case IRV_NONE: return true;
  case IRV_BOOL: case IRV_INT: return a->i == b->i || fail_values(q, a, b);
  case IRV_FLOAT: return float_eq(a->f, b->f) || fail_values(q, a, b);
  case IRV_STR: return streq0(a->s, b->s) || fail_values(q, a, b);
  case IRV_EXPR: return eq_expr(q, a->expr, b->expr);
  case IRV_BUFFER: return eq_buffer_use(q, a->buf, b->buf);
  case IRV_ARRAY:
    if (a->n != b->n) return fail_values(q, a, b);
    for (int i = 0; i < a->n; i++) {
      seg_push(q, "item", NULL, i, false);
      bool ok = eq_value(q, a->items[i], b->items[i]);
      seg_pop(q);
      if (!ok) return false;
    }
    return true;
  case IRV_DICT: return eq_dict(q, a, b, NULL);
  }
  tvs_unreachable();
}

static bool eq_attrs_field(SEq *q, const char *label, const IrValue *a, const IrValue *b,
                           const char *skip) {
  seg_push(q, label, NULL, -1, false);
  bool ok = eq_dict(q, a, b, skip);
  seg_pop(q);
  return ok;
}

/* ------------------------------------------------------------ buffers */

static bool eq_buffer_fields(SEq *q, const TirBuffer *a, const TirBuffer *b) {
  char t1[DT_STR_MAX], t2[DT_STR_MAX];
  if (!dt_eq(a->dtype, b->dtype))
    return fail(q, "dtype %s vs %s", dt_str(a->dtype, t1), dt_str(b->dtype, t2));
  if (a->ndim != b->ndim) return fail(q, "ndim %d vs %d", a->ndim, b->ndim);
  if (!eq_exprs(q, "shape", a->shape, a->ndim, b->shape, b->ndim)) return false;
  if (!eq_exprs(q, "strides", a->strides, a->nstrides, b->strides, b->nstrides)) return false;
  if (!(is_zero_offset(a->elem_offset) && is_zero_offset(b->elem_offset))) {
    if (!a->elem_offset || !b->elem_offset) {
      seg_push(q, "elem_offset", NULL, -1, false);
      bool ok = fail_exprs(q, a->elem_offset, b->elem_offset, NULL);
      seg_pop(q);
      return ok;
    }
    if (!eq_field(q, "elem_offset", a->elem_offset, b->elem_offset)) return false;
  }
  if (strcmp(scope_of(a->scope), scope_of(b->scope)))
    return fail(q, "scope \"%s\" vs \"%s\"", scope_of(a->scope), scope_of(b->scope));
  int al = a->data_alignment ? a->data_alignment : 64, bl = b->data_alignment ? b->data_alignment : 64;
  if (al != bl) return fail(q, "data_alignment %d vs %d", al, bl);
  int af = a->offset_factor ? a->offset_factor : 1, bf = b->offset_factor ? b->offset_factor : 1;
  if (af != bf) return fail(q, "offset_factor %d vs %d", af, bf);
  if (a->auto_broadcast != b->auto_broadcast)
    return fail(q, "buffer_type %s vs %s", a->auto_broadcast ? "auto_broadcast" : "default",
                b->auto_broadcast ? "auto_broadcast" : "default");
  if (a->naxis_separators != b->naxis_separators)
    return fail(q, "axis_separators count %d vs %d", a->naxis_separators, b->naxis_separators);
  for (int i = 0; i < a->naxis_separators; i++)
    if (a->axis_separators[i] != b->axis_separators[i])
      return fail(q, "axis_separators[%d] %d vs %d", i, a->axis_separators[i], b->axis_separators[i]);
  return true;
}

/* A buffer definition: compares the declarations (unmapped vars in them are
 * defined here), then maps a <-> b. */
static bool eq_buffer_def(SEq *q, const TirBuffer *a, const TirBuffer *b) {
  if (!a || !b) {
    if (a == b) return true;
    return fail(q, "buffer %s vs %s", a ? a->name : "(none)", b ? b->name : "(none)");
  }
  bool ha = ir_ptrmap_has(&q->lr, a), hb = ir_ptrmap_has(&q->rl, b);
  if (ha || hb) {
    if (ir_ptrmap_get(&q->lr, a) == b && ir_ptrmap_get(&q->rl, b) == a) return true;
    return fail(q, "buffer %s vs %s (already bound to different buffers)", a->name, b->name);
  }
  /* A buffer compared from inside an expression starts a fresh field. */
  bool saved_def = q->def_mode;
  int saved_depth = q->edepth;
  const TirExpr *saved_a = q->top_a, *saved_b = q->top_b;
  q->def_mode = true;
  q->edepth = 0;
  seg_push(q, "buffer", a->name, -1, false);
  bool ok = true;
  if (a->data || b->data) {
    seg_push(q, "data", NULL, -1, false);
    ok = eq_var_def(q, a->data, b->data);
    seg_pop(q);
  }
  ok = ok && eq_buffer_fields(q, a, b);
  seg_pop(q);
  q->def_mode = saved_def;
  q->edepth = saved_depth;
  q->top_a = saved_a;
  q->top_b = saved_b;
  if (!ok) return false;
  ir_ptrmap_put(&q->lr, a, (void *)b);
  ir_ptrmap_put(&q->rl, b, (void *)a);
  return true;
}

/* A use: a mapped buffer must map to b; a buffer first seen here is compared
 * by its declaration and mapped (as TVM does for buffers it meets first). */
static bool eq_buffer_use(SEq *q, const TirBuffer *a, const TirBuffer *b) {
  if (!a || !b) {
    if (a == b) return true;
    return fail(q, "buffer %s vs %s", a ? a->name : "(none)", b ? b->name : "(none)");
  }
  bool ha = ir_ptrmap_has(&q->lr, a), hb = ir_ptrmap_has(&q->rl, b);
  if (ha || hb) {
    if (ir_ptrmap_get(&q->lr, a) == b && ir_ptrmap_get(&q->rl, b) == a) return true;
    return fail(q, "buffer %s vs %s (not bound to each other)", a->name, b->name);
  }
  if (q->free_buf_identity && !q->def_mode) {
    if (a == b) return true;
    return fail(q, "buffer %s vs %s (different free buffers)", a->name, b->name);
  }
  return eq_buffer_def(q, a, b);
}

static bool eq_region(SEq *q, const TirBufferRegion *a, const TirBufferRegion *b) {
  if (!eq_buffer_use(q, a->buffer, b->buffer)) return false;
  if (a->n != b->n) return fail(q, "region rank %d vs %d", a->n, b->n);
  for (int i = 0; i < a->n; i++) {
    seg_push(q, "ranges", NULL, i, false);
    bool ok = eq_field(q, "min", a->ranges[i].min, b->ranges[i].min) &&
              eq_field(q, "extent", a->ranges[i].extent, b->ranges[i].extent);
    seg_pop(q);
    if (!ok) return false;
  }
  return true;
}

static bool eq_regions(SEq *q, const char *label, const TirBufferRegion *a, int na,
                       const TirBufferRegion *b, int nb) {
  if (na != nb) return fail(q, "%s count %d vs %d", label, na, nb);
  for (int i = 0; i < na; i++) {
    seg_push(q, label, NULL, i, false);
    bool ok = eq_region(q, &a[i], &b[i]);
    seg_pop(q);
    if (!ok) return false;
  }
  return true;
}

/* ------------------------------------------------------------ statements */

static bool eq_stmt(SEq *q, const TirStmt *a, const TirStmt *b);

static bool eq_stmt_field(SEq *q, const char *label, const TirStmt *a, const TirStmt *b) {
  seg_push(q, label, NULL, -1, false);
  bool ok = eq_stmt(q, a, b);
  seg_pop(q);
  return ok;
}

static bool eq_block(SEq *q, const TirBlock *a, const TirBlock *b) {
  if (a->niters != b->niters) return fail(q, "iter_vars count %d vs %d", a->niters, b->niters);
  for (int i = 0; i < a->niters; i++) {
    const TirIterVar *x = &a->iters[i], *y = &b->iters[i];
    seg_push(q, "iter_vars", NULL, i, false);
    bool ok = eq_field(q, "dom.min", x->dom.min, y->dom.min) &&
              eq_field(q, "dom.extent", x->dom.extent, y->dom.extent);
    if (ok && x->type != y->type)
      ok = fail(q, "iter type %s vs %s", iter_type_name(x->type), iter_type_name(y->type));
    ok = ok && eq_var_def(q, x->var, y->var);
    seg_pop(q);
    if (!ok) return false;
  }
  if (a->nallocs != b->nallocs)
    return fail(q, "alloc_buffers count %d vs %d", a->nallocs, b->nallocs);
  for (int i = 0; i < a->nallocs; i++) {
    seg_push(q, "alloc_buffers", NULL, i, false);
    bool ok = eq_buffer_def(q, a->allocs[i], b->allocs[i]);
    seg_pop(q);
    if (!ok) return false;
  }
  if (a->nmatches != b->nmatches)
    return fail(q, "match_buffers count %d vs %d", a->nmatches, b->nmatches);
  for (int i = 0; i < a->nmatches; i++) {
    seg_push(q, "match_buffers", NULL, i, false);
    bool ok = eq_region(q, &a->matches[i].source, &b->matches[i].source) &&
              eq_buffer_def(q, a->matches[i].buffer, b->matches[i].buffer);
    seg_pop(q);
    if (!ok) return false;
  }
  if (!eq_attrs_field(q, "annotations", a->annotations, b->annotations, NULL)) return false;
  if (!eq_regions(q, "reads", a->reads, a->nreads, b->reads, b->nreads)) return false;
  if (!eq_regions(q, "writes", a->writes, a->nwrites, b->writes, b->nwrites)) return false;
  if (!a->init != !b->init)
    return fail(q, "init %s vs %s", a->init ? "present" : "absent", b->init ? "present" : "absent");
  if (a->init && !eq_stmt_field(q, "init", a->init, b->init)) return false;
  return eq_stmt(q, a->body, b->body);
}

static bool eq_stmt_inner(SEq *q, const TirStmt *a, const TirStmt *b) {
  switch (a->kind) {
  case TIR_S_STORE:
    if (!eq_buffer_use(q, a->store.buf, b->store.buf)) return false;
    if (!eq_field(q, "value", a->store.value, b->store.value)) return false;
    return eq_exprs(q, "indices", a->store.idx, a->store.n, b->store.idx, b->store.n);
  case TIR_S_SEQ:
    if (a->seq.n != b->seq.n) return fail(q, "seq length %d vs %d", a->seq.n, b->seq.n);
    for (int i = 0; i < a->seq.n; i++) {
      seg_push(q, "seq", NULL, i, false);
      bool ok = eq_stmt(q, a->seq.stmts[i], b->seq.stmts[i]);
      seg_pop(q);
      if (!ok) return false;
    }
    return true;
  case TIR_S_FOR:
    if (!eq_field(q, "min", a->loop.min, b->loop.min)) return false;
    if (!eq_field(q, "extent", a->loop.extent, b->loop.extent)) return false;
    if (!a->loop.step != !b->loop.step)
      return fail(q, "step %s vs %s", a->loop.step ? "present" : "absent",
                  b->loop.step ? "present" : "absent");
    if (a->loop.step && !eq_field(q, "step", a->loop.step, b->loop.step)) return false;
    if (a->loop.kind != b->loop.kind)
      return fail(q, "kind %s vs %s", for_kind_name(a->loop.kind), for_kind_name(b->loop.kind));
    if (!streq0(a->loop.thread_tag, b->loop.thread_tag))
      return fail(q, "thread \"%s\" vs \"%s\"", a->loop.thread_tag ? a->loop.thread_tag : "",
                  b->loop.thread_tag ? b->loop.thread_tag : "");
    if (!eq_var_def(q, a->loop.var, b->loop.var)) return false;
    if (!eq_attrs_field(q, "annotations", a->loop.annotations, b->loop.annotations, NULL))
      return false;
    return eq_stmt(q, a->loop.body, b->loop.body);
  case TIR_S_IF:
    if (!eq_field(q, "condition", a->ifs.cond, b->ifs.cond)) return false;
    if (!eq_stmt_field(q, "then", a->ifs.then_s, b->ifs.then_s)) return false;
    if (!a->ifs.else_s != !b->ifs.else_s)
      return fail(q, "else branch %s vs %s", a->ifs.else_s ? "present" : "absent",
                  b->ifs.else_s ? "present" : "absent");
    return eq_stmt_field(q, "else", a->ifs.else_s, b->ifs.else_s);
  case TIR_S_LET:
    return eq_field(q, "value", a->let.value, b->let.value) &&
           eq_var_def(q, a->let.var, b->let.var) && eq_stmt(q, a->let.body, b->let.body);
  case TIR_S_EVAL: return eq_field(q, "value", a->eval.value, b->eval.value);
  case TIR_S_ASSERT:
    return eq_field(q, "condition", a->assrt.cond, b->assrt.cond) &&
           eq_field(q, "message", a->assrt.msg, b->assrt.msg) &&
           eq_stmt(q, a->assrt.body, b->assrt.body);
  case TIR_S_WHILE:
    return eq_field(q, "condition", a->loop_while.cond, b->loop_while.cond) &&
           eq_stmt(q, a->loop_while.body, b->loop_while.body);
  case TIR_S_BLOCK_REALIZE: {
    const TirStmt *ba = a->realize.block, *bb = b->realize.block;
    if (!eq_exprs(q, "iter_values", a->realize.values, a->realize.n, b->realize.values,
                  b->realize.n))
      return false;
    if (!eq_field(q, "predicate", a->realize.pred, b->realize.pred)) return false;
    if (!ba || !bb || ba->kind != TIR_S_BLOCK || bb->kind != TIR_S_BLOCK)
      return eq_stmt(q, ba, bb);
    return eq_block(q, &ba->block, &bb->block);
  }
  case TIR_S_BLOCK: return eq_block(q, &a->block, &b->block);
  case TIR_S_ALLOCATE:
  case TIR_S_ALLOCATE_CONST: {
    char t1[DT_STR_MAX], t2[DT_STR_MAX];
    if (!eq_attrs_field(q, "annotations", a->alloc.annotations, b->alloc.annotations, NULL) ||
        !eq_exprs(q, "data", a->alloc.data, a->alloc.ndata, b->alloc.data, b->alloc.ndata))
      return false;
    if (!dt_eq(a->alloc.dtype, b->alloc.dtype))
      return fail(q, "dtype %s vs %s", dt_str(a->alloc.dtype, t1), dt_str(b->alloc.dtype, t2));
    if (strcmp(scope_of(a->alloc.scope), scope_of(b->alloc.scope)))
      return fail(q, "scope \"%s\" vs \"%s\"", scope_of(a->alloc.scope), scope_of(b->alloc.scope));
    return eq_exprs(q, "extents", a->alloc.extents, a->alloc.n, b->alloc.extents, b->alloc.n) &&
           eq_var_def(q, a->alloc.var, b->alloc.var) && eq_stmt(q, a->alloc.body, b->alloc.body);
  }
  case TIR_S_DECL_BUFFER:
    return eq_buffer_def(q, a->decl.buf, b->decl.buf) && eq_stmt(q, a->decl.body, b->decl.body);
  case TIR_S_ATTR:
    if (!streq0(a->attr.key, b->attr.key))
      return fail(q, "key \"%s\" vs \"%s\"", a->attr.key, b->attr.key);
    return eq_var_def(q, a->attr.node, b->attr.node) &&
           eq_field(q, "value", a->attr.value, b->attr.value) &&
           eq_stmt(q, a->attr.body, b->attr.body);
  case TIR_NUM_STMT_KINDS: break;
  }
  tvs_unreachable();
}

/* The path segment a statement contributes (named after the left side). */
static void push_stmt_seg(SEq *q, const TirStmt *a) {
  switch (a->kind) {
  case TIR_S_STORE: seg_push(q, "store", a->store.buf->name, -1, false); break;
  case TIR_S_FOR: seg_push(q, "for", vname(a->loop.var), -1, false); break;
  case TIR_S_IF: seg_push(q, "if", NULL, -1, false); break;
  case TIR_S_LET: seg_push(q, "let", vname(a->let.var), -1, false); break;
  case TIR_S_EVAL: seg_push(q, "evaluate", NULL, -1, false); break;
  case TIR_S_ASSERT: seg_push(q, "assert", NULL, -1, false); break;
  case TIR_S_WHILE: seg_push(q, "while", NULL, -1, false); break;
  case TIR_S_BLOCK_REALIZE: {
    const TirStmt *blk = a->realize.block;
    seg_push(q, "block", blk && blk->kind == TIR_S_BLOCK ? blk->block.name : "?", -1, true);
    break;
  }
  case TIR_S_BLOCK: seg_push(q, "block", a->block.name, -1, true); break;
  case TIR_S_ALLOCATE: seg_push(q, "allocate", vname(a->alloc.var), -1, false); break;
  case TIR_S_ALLOCATE_CONST: seg_push(q, "allocate_const", vname(a->alloc.var), -1, false); break;
  case TIR_S_DECL_BUFFER: seg_push(q, "decl_buffer", a->decl.buf->name, -1, false); break;
  case TIR_S_ATTR: seg_push(q, "attr", a->attr.key, -1, true); break;
  case TIR_S_SEQ: break;
  case TIR_NUM_STMT_KINDS: tvs_unreachable();
  }
}

static bool eq_stmt(SEq *q, const TirStmt *a, const TirStmt *b) {
  if (!a || !b) {
    if (a == b) return true;
    return fail(q, "statement %s vs %s", a ? tir_stmt_kind_name(a->kind) : "(none)",
                b ? tir_stmt_kind_name(b->kind) : "(none)");
  }
  if (a->kind != b->kind)
    return fail(q, "statement kinds differ: %s vs %s", tir_stmt_kind_name(a->kind),
                tir_stmt_kind_name(b->kind));
  int depth = q->npath;
  push_stmt_seg(q, a);
  bool ok = eq_stmt_inner(q, a, b);
  if (q->want_diff) q->npath = depth;
  return ok;
}

/* ------------------------------------------------------------ functions */

static bool eq_tir_func(SEq *q, const TirFunc *a, const TirFunc *b) {
  if (a->nparams != b->nparams) return fail(q, "params count %d vs %d", a->nparams, b->nparams);
  for (int i = 0; i < a->nparams; i++) {
    seg_push(q, "params", NULL, i, false);
    bool ok = eq_var_def(q, a->params[i], b->params[i]);
    seg_pop(q);
    if (!ok) return false;
  }
  for (int i = 0; i < a->nparams; i++) {
    const TirBuffer *ba = a->buffer_map ? a->buffer_map[i] : NULL;
    const TirBuffer *bb = b->buffer_map ? b->buffer_map[i] : NULL;
    seg_push(q, "params", NULL, i, false);
    bool ok = true;
    if (!ba != !bb)
      ok = fail(q, "%s vs %s", ba ? "buffer" : "scalar", bb ? "buffer" : "scalar");
    else if (ba)
      ok = eq_buffer_def(q, ba, bb);
    seg_pop(q);
    if (!ok) return false;
  }
  if (!dt_eq(a->ret_type, b->ret_type)) {
    char t1[DT_STR_MAX], t2[DT_STR_MAX];
    return fail(q, "return type %s vs %s", dt_str(a->ret_type, t1), dt_str(b->ret_type, t2));
  }
  if (!eq_attrs_field(q, "attrs", a->attrs, b->attrs, q->ignore_gs ? "global_symbol" : NULL))
    return false;
  return eq_stmt_field(q, "body", a->body, b->body);
}

static const char *tir_func_name(const TirFunc *f) {
  const IrValue *gs = f ? irv_dict_get(f->attrs, "global_symbol") : NULL;
  return gs && gs->kind == IRV_STR ? gs->s : "prim_func";
}

/* ------------------------------------------------------------ relax */

static bool eq_sinfo(SEq *q, const RxSInfo *a, const RxSInfo *b);

static const char *si_kind_name(RxSInfoKind k) {
  switch (k) {
  case RX_SI_OBJECT: return "R.Object";
  case RX_SI_TENSOR: return "R.Tensor";
  case RX_SI_TUPLE: return "R.Tuple";
  case RX_SI_SHAPE: return "R.Shape";
  case RX_SI_PRIM: return "R.Prim";
  case RX_SI_FUNC: return "R.Callable";
  }
  return "?";
}

static bool eq_sinfo(SEq *q, const RxSInfo *a, const RxSInfo *b) {
  char t1[DT_STR_MAX], t2[DT_STR_MAX];
  if (!a || !b) {
    if (a == b) return true;
    return fail(q, "struct info %s vs %s", a ? si_kind_name(a->kind) : "(none)",
                b ? si_kind_name(b->kind) : "(none)");
  }
  if (a->kind != b->kind)
    return fail(q, "struct info %s vs %s", si_kind_name(a->kind), si_kind_name(b->kind));
  switch (a->kind) {
  case RX_SI_OBJECT: case RX_SI_FUNC: return true;
  case RX_SI_PRIM:
    return dt_eq(a->dtype, b->dtype) ||
           fail(q, "dtype %s vs %s", dt_str(a->dtype, t1), dt_str(b->dtype, t2));
  case RX_SI_TENSOR:
    if (!dt_eq(a->dtype, b->dtype))
      return fail(q, "dtype %s vs %s", dt_str(a->dtype, t1), dt_str(b->dtype, t2));
    __attribute__((fallthrough)); /* ndim and shape as for R.Shape */
  case RX_SI_SHAPE:
    if (a->ndim != b->ndim) return fail(q, "ndim %d vs %d", a->ndim, b->ndim);
    if (!a->shape != !b->shape)
      return fail(q, "shape %s vs %s", a->shape ? "known" : "unknown", b->shape ? "known" : "unknown");
    if (!a->shape) return true;
    return eq_exprs(q, "shape", a->shape, a->ndim, b->shape, b->ndim);
  case RX_SI_TUPLE:
    if (a->nfields != b->nfields) return fail(q, "tuple size %d vs %d", a->nfields, b->nfields);
    for (int i = 0; i < a->nfields; i++) {
      seg_push(q, "fields", NULL, i, false);
      bool ok = eq_sinfo(q, a->fields[i], b->fields[i]);
      seg_pop(q);
      if (!ok) return false;
    }
    return true;
  }
  tvs_unreachable();
}

/* Struct info at a definition: its symbolic dims are defined on first sight. */
static bool eq_sinfo_def(SEq *q, const char *label, const RxSInfo *a, const RxSInfo *b) {
  bool saved = q->def_mode;
  q->def_mode = true;
  seg_push(q, label, NULL, -1, false);
  bool ok = eq_sinfo(q, a, b);
  seg_pop(q);
  q->def_mode = saved;
  return ok;
}

static const char *rxname(const RxExpr *v) {
  return v && (v->kind == RX_VAR || v->kind == RX_DATAFLOW_VAR) && v->var.name ? v->var.name : "?";
}

static bool eq_rx_var_def(SEq *q, const RxExpr *a, const RxExpr *b) {
  if (!a || !b) return a == b || fail(q, "variable missing");
  if (a->kind != b->kind)
    return fail(q, "%s vs %s", a->kind == RX_DATAFLOW_VAR ? "DataflowVar" : "Var",
                b->kind == RX_DATAFLOW_VAR ? "DataflowVar" : "Var");
  bool ha = ir_ptrmap_has(&q->lr, a), hb = ir_ptrmap_has(&q->rl, b);
  if (ha || hb) {
    if (ir_ptrmap_get(&q->lr, a) == b && ir_ptrmap_get(&q->rl, b) == a) return true;
    return fail(q, "variable %s vs %s (already bound to different variables)", rxname(a), rxname(b));
  }
  if (!eq_sinfo_def(q, "struct info", a->sinfo, b->sinfo)) return false;
  ir_ptrmap_put(&q->lr, a, (void *)b);
  ir_ptrmap_put(&q->rl, b, (void *)a);
  return true;
}

static bool eq_rx_expr(SEq *q, const RxExpr *a, const RxExpr *b);

static bool eq_rx_list(SEq *q, const char *label, RxExpr *const *a, int na, RxExpr *const *b,
                       int nb) {
  if (na != nb) return fail(q, "%s count %d vs %d", label, na, nb);
  for (int i = 0; i < na; i++) {
    seg_push(q, label, NULL, i, false);
    bool ok = eq_rx_expr(q, a[i], b[i]);
    seg_pop(q);
    if (!ok) return false;
  }
  return true;
}

static const char *rx_kind_name(RxExprKind k) {
  static const char *names[] = {"Var", "DataflowVar", "Constant", "Call", "Tuple",
                                "TupleGetItem", "GlobalVar", "ExternFunc", "ShapeExpr",
                                "PrimValue", "StringImm", "If", "SeqExpr"};
  return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

static bool eq_rx_seq(SEq *q, const RxExpr *a, const RxExpr *b) {
  if (a->seq.nblocks != b->seq.nblocks)
    return fail(q, "block count %d vs %d", a->seq.nblocks, b->seq.nblocks);
  for (int i = 0; i < a->seq.nblocks; i++) {
    const RxBlock *x = &a->seq.blocks[i], *y = &b->seq.blocks[i];
    seg_push(q, x->is_dataflow ? "dataflow block" : "block", NULL, i, false);
    bool ok = true;
    if (x->is_dataflow != y->is_dataflow)
      ok = fail(q, "dataflow %s vs %s", x->is_dataflow ? "yes" : "no", y->is_dataflow ? "yes" : "no");
    else if (x->n != y->n)
      ok = fail(q, "binding count %d vs %d", x->n, y->n);
    for (int j = 0; ok && j < x->n; j++) {
      const RxBinding *p = &x->bindings[j], *r = &y->bindings[j];
      seg_push(q, "binding", rxname(p->var), -1, false);
      seg_push(q, "value", NULL, -1, false);
      ok = eq_rx_expr(q, p->value, r->value);
      seg_pop(q);
      if (ok && !p->cast_to != !r->cast_to)
        ok = fail(q, "match_cast %s vs %s", p->cast_to ? "present" : "absent",
                  r->cast_to ? "present" : "absent");
      if (ok && p->cast_to) ok = eq_sinfo_def(q, "match_cast", p->cast_to, r->cast_to);
      ok = ok && eq_rx_var_def(q, p->var, r->var);
      seg_pop(q);
    }
    seg_pop(q);
    if (!ok) return false;
  }
  seg_push(q, "result", NULL, -1, false);
  bool ok = eq_rx_expr(q, a->seq.body, b->seq.body);
  seg_pop(q);
  return ok;
}

static bool eq_rx_expr(SEq *q, const RxExpr *a, const RxExpr *b) {
  if (!a || !b) return a == b || fail(q, "expression missing");
  if (a->kind != b->kind)
    return fail(q, "%s vs %s", rx_kind_name(a->kind), rx_kind_name(b->kind));
  switch (a->kind) {
  case RX_VAR: case RX_DATAFLOW_VAR: {
    bool ha = ir_ptrmap_has(&q->lr, a), hb = ir_ptrmap_has(&q->rl, b);
    if (ha || hb) {
      if (ir_ptrmap_get(&q->lr, a) == b && ir_ptrmap_get(&q->rl, b) == a) return true;
      return fail(q, "%s vs %s (not bound to each other)", rxname(a), rxname(b));
    }
    return a == b || fail(q, "%s vs %s (different free variables)", rxname(a), rxname(b));
  }
  case RX_CONST: {
    char t1[DT_STR_MAX], t2[DT_STR_MAX];
    if (!dt_eq(a->cnst.dtype, b->cnst.dtype))
      return fail(q, "constant dtype %s vs %s", dt_str(a->cnst.dtype, t1), dt_str(b->cnst.dtype, t2));
    if (a->cnst.ndim != b->cnst.ndim)
      return fail(q, "constant ndim %d vs %d", a->cnst.ndim, b->cnst.ndim);
    for (int i = 0; i < a->cnst.ndim; i++)
      if (a->cnst.shape[i] != b->cnst.shape[i])
        return fail(q, "constant shape[%d] %lld vs %lld", i, (long long)a->cnst.shape[i],
                    (long long)b->cnst.shape[i]);
    if (a->cnst.nbytes != b->cnst.nbytes ||
        (a->cnst.nbytes && memcmp(a->cnst.data, b->cnst.data, (size_t)a->cnst.nbytes)))
      return fail(q, "constant values differ");
    return true;
  }
  case RX_CALL:
    if (a->call.op != b->call.op &&
        !(a->call.op && b->call.op && streq0(a->call.op->name, b->call.op->name)))
      return fail(q, "op %s vs %s", a->call.op ? a->call.op->name : "?",
                  b->call.op ? b->call.op->name : "?");
    if (!a->call.op && !streq0(a->call.callee ? a->call.callee->gvar.name : NULL,
                               b->call.callee ? b->call.callee->gvar.name : NULL))
      return fail(q, "callee %s vs %s", a->call.callee ? a->call.callee->gvar.name : "?",
                  b->call.callee ? b->call.callee->gvar.name : "?");
    if (!eq_rx_list(q, "args", a->call.args, a->call.n, b->call.args, b->call.n)) return false;
    if (!eq_attrs_field(q, "attrs", a->call.attrs, b->call.attrs, NULL)) return false;
    if (a->call.nsinfo_args != b->call.nsinfo_args)
      return fail(q, "sinfo_args count %d vs %d", a->call.nsinfo_args, b->call.nsinfo_args);
    for (int i = 0; i < a->call.nsinfo_args; i++) {
      seg_push(q, "sinfo_args", NULL, i, false);
      bool ok = eq_sinfo(q, a->call.sinfo_args[i], b->call.sinfo_args[i]);
      seg_pop(q);
      if (!ok) return false;
    }
    return true;
  case RX_TUPLE:
    return eq_rx_list(q, "fields", a->tuple.fields, a->tuple.n, b->tuple.fields, b->tuple.n);
  case RX_TUPLE_GET_ITEM:
    if (a->get.index != b->get.index) return fail(q, "index %d vs %d", a->get.index, b->get.index);
    return eq_rx_expr(q, a->get.tuple, b->get.tuple);
  case RX_GLOBAL_VAR: case RX_EXTERN_FUNC:
    return streq0(a->gvar.name, b->gvar.name) ||
           fail(q, "%s vs %s", a->gvar.name ? a->gvar.name : "?", b->gvar.name ? b->gvar.name : "?");
  case RX_SHAPE_EXPR:
    return eq_exprs(q, "values", a->shape.values, a->shape.n, b->shape.values, b->shape.n);
  case RX_PRIM_VALUE: return eq_field(q, "value", a->prim.value, b->prim.value);
  case RX_STRING:
    return streq0(a->str.value, b->str.value) ||
           fail(q, "\"%s\" vs \"%s\"", a->str.value ? a->str.value : "",
                b->str.value ? b->str.value : "");
  case RX_IF: {
    seg_push(q, "condition", NULL, -1, false);
    bool ok = eq_rx_expr(q, a->ifs.cond, b->ifs.cond);
    seg_pop(q);
    if (!ok) return false;
    seg_push(q, "then", NULL, -1, false);
    ok = eq_rx_expr(q, a->ifs.then_e, b->ifs.then_e);
    seg_pop(q);
    if (!ok) return false;
    seg_push(q, "else", NULL, -1, false);
    ok = eq_rx_expr(q, a->ifs.else_e, b->ifs.else_e);
    seg_pop(q);
    return ok;
  }
  case RX_SEQ: return eq_rx_seq(q, a, b);
  }
  tvs_unreachable();
}

/* The declared return struct info, or the body's when none was written. */
static const RxSInfo *rx_ret_sinfo(const RxFunc *f) {
  if (f->ret_sinfo) return f->ret_sinfo;
  return f->body ? f->body->sinfo : NULL;
}

static bool eq_rx_func(SEq *q, const RxFunc *a, const RxFunc *b) {
  if (a->nparams != b->nparams) return fail(q, "params count %d vs %d", a->nparams, b->nparams);
  for (int i = 0; i < a->nparams; i++) {
    seg_push(q, "params", rxname(a->params[i]), i, false);
    bool ok = eq_rx_var_def(q, a->params[i], b->params[i]);
    seg_pop(q);
    if (!ok) return false;
  }
  if (!eq_sinfo_def(q, "ret_struct_info", rx_ret_sinfo(a), rx_ret_sinfo(b))) return false;
  if (a->is_pure != b->is_pure)
    return fail(q, "purity %s vs %s", a->is_pure ? "pure" : "impure", b->is_pure ? "pure" : "impure");
  if (!eq_attrs_field(q, "attrs", a->attrs, b->attrs, q->ignore_gs ? "global_symbol" : NULL))
    return false;
  seg_push(q, "body", NULL, -1, false);
  bool ok = eq_rx_expr(q, a->body, b->body);
  seg_pop(q);
  return ok;
}

static const char *rx_func_name(const RxFunc *f) {
  const IrValue *gs = f ? irv_dict_get(f->attrs, "global_symbol") : NULL;
  return gs && gs->kind == IRV_STR ? gs->s : "function";
}

/* ------------------------------------------------------------ entry points */

bool seq_tir_func(const TirFunc *a, const TirFunc *b, const SEqualOptions *opt, char **diff) {
  if (diff) *diff = NULL;
  SEq q;
  seq_init(&q, opt, diff != NULL);
  bool ok;
  if (!a || !b) ok = a == b || fail(&q, "function missing");
  else ok = eq_tir_func(&q, a, b);
  if (!ok) build_diff(&q, tir_func_name(a ? a : b), diff);
  seq_free(&q);
  return ok;
}

bool seq_relax_func(const RxFunc *a, const RxFunc *b, const SEqualOptions *opt, char **diff) {
  if (diff) *diff = NULL;
  SEq q;
  seq_init(&q, opt, diff != NULL);
  bool ok;
  if (!a || !b) ok = a == b || fail(&q, "function missing");
  else ok = eq_rx_func(&q, a, b);
  if (!ok) build_diff(&q, rx_func_name(a ? a : b), diff);
  seq_free(&q);
  return ok;
}

bool seq_relax_expr(const RxExpr *a, const RxExpr *b) {
  SEq q;
  seq_init(&q, NULL, false);
  bool ok = eq_rx_expr(&q, a, b);
  seq_free(&q);
  return ok;
}

static bool identical_list(TirExpr *const *a, TirExpr *const *b, int n) {
  for (int i = 0; i < n; i++)
    if (!tir_expr_identical(a[i], b[i])) return false;
  return true;
}

bool tir_expr_identical(const TirExpr *a, const TirExpr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || !dt_eq(a->dtype, b->dtype)) return false;
  switch (a->kind) {
  case TIR_INT: return a->ival == b->ival;
  case TIR_FLOAT: return a->fval == b->fval;
  case TIR_STR: return !strcmp(a->str, b->str);
  case TIR_VAR: return a->var == b->var;
  case TIR_NOT:
  case TIR_CAST: return tir_expr_identical(a->un.a, b->un.a);
  case TIR_SELECT:
    return tir_expr_identical(a->sel.cond, b->sel.cond) && tir_expr_identical(a->sel.t, b->sel.t) &&
           tir_expr_identical(a->sel.f, b->sel.f);
  case TIR_LOAD:
    return a->load.buf == b->load.buf && a->load.n == b->load.n &&
           identical_list(a->load.idx, b->load.idx, a->load.n);
  case TIR_RAMP:
    return a->ramp.lanes == b->ramp.lanes && tir_expr_identical(a->ramp.base, b->ramp.base) &&
           tir_expr_identical(a->ramp.stride, b->ramp.stride);
  case TIR_BROADCAST:
    return a->bcast.lanes == b->bcast.lanes && tir_expr_identical(a->bcast.value, b->bcast.value);
  case TIR_LET:
    return a->let.var == b->let.var && tir_expr_identical(a->let.value, b->let.value) &&
           tir_expr_identical(a->let.body, b->let.body);
  case TIR_CALL:
    return a->call.op == b->call.op && a->call.n == b->call.n &&
           identical_list(a->call.args, b->call.args, a->call.n);
  default: /* binary kinds */
    return tir_expr_identical(a->bin.a, b->bin.a) && tir_expr_identical(a->bin.b, b->bin.b);
  }
}

bool seq_tir_expr(const TirExpr *a, const TirExpr *b) {
  SEq q;
  seq_init(&q, NULL, false);
  q.free_buf_identity = true; /* A[i] and B[i] differ even when A and B look alike */
  bool ok = eq_expr(&q, a, b);
  seq_free(&q);
  return ok;
}

bool seq_tir_stmt(const TirStmt *a, const TirStmt *b, char **diff) {
  if (diff) *diff = NULL;
  SEq q;
  seq_init(&q, NULL, diff != NULL);
  bool ok = eq_stmt(&q, a, b);
  if (!ok) build_diff(&q, "stmt", diff);
  seq_free(&q);
  return ok;
}

bool seq_module(const IrModule *a, const IrModule *b, const SEqualOptions *opt, char **diff) {
  if (diff) *diff = NULL;
  if (!a || !b) {
    if (a == b) return true;
    if (diff) *diff = xstrdup("module: missing module");
    return false;
  }
  for (int i = 0; i < a->nfuncs; i++) {
    const IrGlobal *g = &a->funcs[i];
    const IrGlobal *h = ir_module_lookup(b, g->name);
    if (!h) {
      if (diff) *diff = xasprintf("module: function '%s' missing on the right", g->name);
      return false;
    }
    if (g->kind != h->kind) {
      if (diff)
        *diff = xasprintf("module: function '%s' is a %s vs a %s", g->name,
                          g->kind == IR_FUNC_TIR ? "prim_func" : "relax function",
                          h->kind == IR_FUNC_TIR ? "prim_func" : "relax function");
      return false;
    }
  }
  for (int i = 0; i < b->nfuncs; i++)
    if (!ir_module_lookup(a, b->funcs[i].name)) {
      if (diff) *diff = xasprintf("module: function '%s' missing on the left", b->funcs[i].name);
      return false;
    }
  if (a->nfuncs != b->nfuncs) {
    if (diff) *diff = xasprintf("module: %d vs %d functions", a->nfuncs, b->nfuncs);
    return false;
  }
  for (int i = 0; i < a->nfuncs; i++) {
    const IrGlobal *g = &a->funcs[i];
    const IrGlobal *h = ir_module_lookup(b, g->name);
    SEq q;
    seq_init(&q, opt, diff != NULL);
    bool ok;
    if (g->kind == IR_FUNC_TIR)
      ok = (g->tir && h->tir) ? eq_tir_func(&q, g->tir, h->tir)
                              : (g->tir == h->tir || fail(&q, "function missing"));
    else
      ok = (g->rx && h->rx) ? eq_rx_func(&q, g->rx, h->rx)
                            : (g->rx == h->rx || fail(&q, "function missing"));
    if (!ok) build_diff(&q, g->name, diff);
    seq_free(&q);
    if (!ok) return false;
  }
  SEq q;
  seq_init(&q, opt, diff != NULL);
  bool ok = eq_attrs_field(&q, "attrs", a->attrs, b->attrs, NULL);
  if (!ok) build_diff(&q, "module", diff);
  seq_free(&q);
  return ok;
}
