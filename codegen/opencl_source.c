/* opencl_source.c - the OpenCL C backend (TVM's `opencl` target): the kernels
 * split-host-device made (prim_funcs with "calling_conv" 2) become one
 * OpenCL C program.  Thread-bound loops read get_group_id/get_local_id,
 * shared allocations are __local arrays declared at kernel scope (OpenCL
 * allows them nowhere else), local ones private arrays, and the barrier of
 * thread-storage-sync is barrier(CLK_LOCAL_MEM_FENCE).  Scalar code only:
 * vector expressions are reported. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/gpu_codegen.h"
#include "ir/transform.h"
#include "ir/visit.h"

typedef struct Ocl {
  StrBuf *out;
  DiagCtx *diag;
  const char *kname;
  IrPtrMap names;  /* TirVar* -> C identifier (char *, malloc'd) */
  PtrVec owned;    /* the identifiers, to free */
  int indent;
  bool failed;
} Ocl;

static void fail(Ocl *o, Span sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(Ocl *o, Span sp, const char *fmt, ...) {
  if (o->failed) return;
  o->failed = true;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  diag_error(o->diag, sp, "opencl: %s (kernel '%s')", msg, o->kname);
}

const char *cg_gpu_c_type(DType t, bool in_memory) {
  if (t.lanes != 1) return NULL;
  switch (t.code) {
    case DT_BOOL: return in_memory ? "uchar" : "bool";
    case DT_INT: return t.bits == 8 ? "char" : t.bits == 16 ? "short" : t.bits == 32 ? "int" : t.bits == 64 ? "long" : NULL;
    case DT_UINT:
      return t.bits == 8 ? "uchar" : t.bits == 16 ? "ushort" : t.bits == 32 ? "uint" : t.bits == 64 ? "ulong" : NULL;
    case DT_FLOAT: return t.bits == 16 ? "half" : t.bits == 32 ? "float" : t.bits == 64 ? "double" : NULL;
    default: return NULL;
  }
}

/* OpenCL C's vector types (float4, int2, ...) for 2, 3, 4, 8 or 16 lanes. */
static const char *vector_type(DType t) {
  static char names[64][16];
  static int next;
  const char *base = cg_gpu_c_type(dt_element(t), false);
  if (!base || dt_is_bool(t) || (t.lanes != 2 && t.lanes != 3 && t.lanes != 4 && t.lanes != 8 && t.lanes != 16))
    return NULL;
  char *n = names[next++ % 64];
  snprintf(n, sizeof names[0], "%s%d", base, t.lanes);
  return n;
}

static const char *ctype(Ocl *o, DType t, bool mem, Span sp) {
  const char *c = t.lanes == 1 ? cg_gpu_c_type(t, mem) : vector_type(t);
  if (!c) {
    char b[32];
    fail(o, sp, "dtype %s is not supported", dt_str(t, b));
    return "int";
  }
  return c;
}

/* A C identifier for var, unique in the kernel. */
static const char *name_of(Ocl *o, const TirVar *v) {
  const char *n = ir_ptrmap_get(&o->names, v);
  if (n) return n;
  StrBuf sb;
  sb_init(&sb);
  for (const char *p = v->name && v->name[0] ? v->name : "v"; *p; p++)
    sb_putc(&sb, (char)((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ? *p : '_'));
  char *base = sb_take(&sb);
  char *cand = xstrdup(base);
  for (int k = 1;; k++) {
    bool taken = !strncmp(cand, "get_", 4) || !strcmp(cand, "barrier");
    for (int i = 0; i < o->owned.len && !taken; i++) taken = !strcmp(o->owned.items[i], cand);
    if (!taken) break;
    free(cand);
    cand = xasprintf("%s_%d", base, k);
  }
  free(base);
  pv_push(&o->owned, cand);
  ir_ptrmap_put(&o->names, v, cand);
  return cand;
}

/* ------------------------------------------------------------ expressions */

static void expr(Ocl *o, const TirExpr *e);

static void literal_float(Ocl *o, const TirExpr *e) {
  double v = e->fval;
  bool f32 = e->dtype.bits == 32;
  if (isnan(v)) sb_puts(o->out, f32 ? "NAN" : "(double)NAN");
  else if (isinf(v)) sb_puts(o->out, v < 0 ? (f32 ? "(-INFINITY)" : "(-(double)INFINITY)") : (f32 ? "INFINITY" : "((double)INFINITY)"));
  else if (f32) sb_printf(o->out, "%.9ef", v);
  else if (e->dtype.bits == 64) sb_printf(o->out, "%.17e", v);
  else sb_printf(o->out, "((half)%.9ef)", v);
}

static void literal_int(Ocl *o, const TirExpr *e) {
  if (dt_is_bool(e->dtype)) sb_puts(o->out, e->ival ? "true" : "false");
  else if (e->dtype.bits == 64) sb_printf(o->out, dt_is_uint(e->dtype) ? "%lluUL" : "%lldL", (long long)e->ival);
  else if (e->dtype.bits == 32 && e->ival == INT32_MIN) sb_puts(o->out, "(-2147483647 - 1)");
  else if (dt_is_int(e->dtype) && e->dtype.bits == 32) sb_printf(o->out, e->ival < 0 ? "(%lld)" : "%lld", (long long)e->ival);
  else sb_printf(o->out, "((%s)%lld)", ctype(o, e->dtype, false, e->span), (long long)e->ival);
}

static void binary(Ocl *o, const char *op, const TirExpr *e) {
  sb_putc(o->out, '(');
  expr(o, e->bin.a);
  sb_puts(o->out, op);
  expr(o, e->bin.b);
  sb_putc(o->out, ')');
}

static void call2(Ocl *o, const char *fn, const TirExpr *a, const TirExpr *b) {
  sb_printf(o->out, "%s(", fn);
  expr(o, a);
  if (b) {
    sb_puts(o->out, ", ");
    expr(o, b);
  }
  sb_putc(o->out, ')');
}

/* floordiv/floormod: the helpers of the program's prelude on integers. */
static void floor_op(Ocl *o, const TirExpr *e, bool div) {
  if (dt_is_float(e->dtype)) {
    if (div) {
      sb_puts(o->out, "floor(");
      binary(o, " / ", e);
      sb_putc(o->out, ')');
    } else {
      sb_putc(o->out, '(');
      expr(o, e->bin.a);
      sb_puts(o->out, " - floor(");
      binary(o, " / ", e);
      sb_puts(o->out, ") * ");
      expr(o, e->bin.b);
      sb_putc(o->out, ')');
    }
    return;
  }
  char fn[32];
  snprintf(fn, sizeof fn, "tvs_floor%s_%s", div ? "div" : "mod", e->dtype.bits == 64 ? "i64" : "i32");
  if (dt_is_uint(e->dtype)) binary(o, div ? " / " : " % ", e);
  else call2(o, fn, e->bin.a, e->bin.b);
}

static void call(Ocl *o, const TirExpr *e) {
  const TirOpInfo *op = e->call.op;
  TirExpr *const *a = e->call.args;
  switch (op->id) {
    case TIR_OP_IF_THEN_ELSE:
      sb_putc(o->out, '(');
      expr(o, a[0]);
      sb_puts(o->out, " ? ");
      expr(o, a[1]);
      sb_puts(o->out, " : ");
      expr(o, a[2]);
      sb_putc(o->out, ')');
      return;
    case TIR_OP_LIKELY: expr(o, a[0]); return;
    case TIR_OP_ASSUME: sb_puts(o->out, "true"); return;
    case TIR_OP_SIGMOID: sb_puts(o->out, "(1.0f / (1.0f + exp(-"); expr(o, a[0]); sb_puts(o->out, ")))"); return;
    case TIR_OP_ROUND: case TIR_OP_NEARBYINT: call2(o, "rint", a[0], NULL); return;
    case TIR_OP_BITWISE_AND: binary(o, " & ", &(TirExpr){.bin = {a[0], a[1]}}); return;
    case TIR_OP_BITWISE_OR: binary(o, " | ", &(TirExpr){.bin = {a[0], a[1]}}); return;
    case TIR_OP_BITWISE_XOR: binary(o, " ^ ", &(TirExpr){.bin = {a[0], a[1]}}); return;
    case TIR_OP_SHIFT_LEFT: binary(o, " << ", &(TirExpr){.bin = {a[0], a[1]}}); return;
    case TIR_OP_SHIFT_RIGHT: binary(o, " >> ", &(TirExpr){.bin = {a[0], a[1]}}); return;
    case TIR_OP_BITWISE_NOT: sb_puts(o->out, "(~"); expr(o, a[0]); sb_putc(o->out, ')'); return;
    case TIR_OP_CALL_GLOBAL:
      fail(o, e->span, "the call of prim_func '%s' is not supported in kernels",
           a[0]->kind == TIR_STR ? a[0]->str : "?");
      return;
    case TIR_OP_CALL_EXTERN: case TIR_OP_CALL_PURE_EXTERN:
      sb_printf(o->out, "%s(", a[0]->kind == TIR_STR ? a[0]->str : "?");
      for (int i = 1; i < e->call.n; i++) {
        if (i > 1) sb_puts(o->out, ", ");
        expr(o, a[i]);
      }
      sb_putc(o->out, ')');
      return;
    default: break;
  }
  if (op->kind == TIR_OPK_PURE || op->id == TIR_OP_POPCOUNT) {
    bool isx = op->id == TIR_OP_ISNAN || op->id == TIR_OP_ISINF || op->id == TIR_OP_ISFINITE;
    if (isx) sb_puts(o->out, "(bool)");
    call2(o, op->name, a[0], e->call.n > 1 ? a[1] : NULL);
    return;
  }
  fail(o, e->span, "T.%s is not supported", op->name);
}

/* Whether idx is Ramp(base, 1, lanes) of a lane count OpenCL C has. */
static bool contiguous(const TirExpr *idx) {
  int64_t st;
  return idx->kind == TIR_RAMP && tir_is_const_int(idx->ramp.stride, &st) && st == 1 && vector_type(idx->dtype);
}

/* Whether idx is Ramp(base, stride, lanes), stride a constant other than 1. */
static bool strided(const TirExpr *idx, int64_t *st) {
  return idx->kind == TIR_RAMP && tir_is_const_int(idx->ramp.stride, st) && *st != 1 && vector_type(idx->dtype);
}

/* vloadN(0, buf + base): a contiguous vector load (the vectorized
 * cooperative fetch); a load with a constant stride (a fetch down a column)
 * as a vector literal of its lanes, which OpenCL C has no instruction for;
 * a broadcast as a vector literal. */
static bool vector_expr(Ocl *o, const TirExpr *e) {
  int64_t st;
  if (e->kind == TIR_LOAD && e->load.n == 1 && contiguous(e->load.idx[0]) && vector_type(e->dtype)) {
    sb_printf(o->out, "vload%d(0, %s + ", e->dtype.lanes, name_of(o, e->load.buf->data));
    expr(o, e->load.idx[0]->ramp.base);
    sb_putc(o->out, ')');
    return true;
  }
  if (e->kind == TIR_LOAD && e->load.n == 1 && strided(e->load.idx[0], &st) && vector_type(e->dtype)) {
    sb_printf(o->out, "((%s)(", vector_type(e->dtype));
    for (int l = 0; l < e->dtype.lanes; l++) {
      sb_printf(o->out, "%s%s[", l ? ", " : "", name_of(o, e->load.buf->data));
      expr(o, e->load.idx[0]->ramp.base);
      sb_printf(o->out, " + %lld]", (long long)(st * l));
    }
    sb_puts(o->out, "))");
    return true;
  }
  if (e->kind == TIR_BROADCAST && vector_type(e->dtype)) {
    sb_printf(o->out, "((%s)(", vector_type(e->dtype));
    expr(o, e->bcast.value);
    sb_puts(o->out, "))");
    return true;
  }
  return false;
}

static bool vector_arith(TirExprKind k) {
  return k == TIR_ADD || k == TIR_SUB || k == TIR_MUL || k == TIR_DIV || k == TIR_MIN || k == TIR_MAX;
}

static void expr(Ocl *o, const TirExpr *e) {
  if (o->failed) return;
  if (e->dtype.lanes != 1 && (vector_expr(o, e) || o->failed)) return;
  if (e->dtype.lanes != 1 && (!vector_type(e->dtype) || !vector_arith(e->kind))) {
    fail(o, e->span, "vector expressions are not supported (%s)", tir_expr_kind_name(e->kind));
    return;
  }
  bool f = dt_is_float(e->dtype);
  switch (e->kind) {
    case TIR_INT: literal_int(o, e); return;
    case TIR_FLOAT: literal_float(o, e); return;
    case TIR_VAR: sb_puts(o->out, name_of(o, e->var)); return;
    case TIR_ADD: binary(o, " + ", e); return;
    case TIR_SUB: binary(o, " - ", e); return;
    case TIR_MUL: binary(o, " * ", e); return;
    case TIR_DIV: binary(o, " / ", e); return;
    case TIR_MOD: if (f) call2(o, "fmod", e->bin.a, e->bin.b); else binary(o, " % ", e); return;
    case TIR_FLOORDIV: floor_op(o, e, true); return;
    case TIR_FLOORMOD: floor_op(o, e, false); return;
    case TIR_MIN: call2(o, f ? "fmin" : "min", e->bin.a, e->bin.b); return;
    case TIR_MAX: call2(o, f ? "fmax" : "max", e->bin.a, e->bin.b); return;
    case TIR_EQ: binary(o, " == ", e); return;
    case TIR_NE: binary(o, " != ", e); return;
    case TIR_LT: binary(o, " < ", e); return;
    case TIR_LE: binary(o, " <= ", e); return;
    case TIR_GT: binary(o, " > ", e); return;
    case TIR_GE: binary(o, " >= ", e); return;
    case TIR_AND: binary(o, " && ", e); return;
    case TIR_OR: binary(o, " || ", e); return;
    case TIR_NOT: sb_puts(o->out, "(!"); expr(o, e->un.a); sb_putc(o->out, ')'); return;
    case TIR_SELECT:
      sb_putc(o->out, '(');
      expr(o, e->sel.cond);
      sb_puts(o->out, " ? ");
      expr(o, e->sel.t);
      sb_puts(o->out, " : ");
      expr(o, e->sel.f);
      sb_putc(o->out, ')');
      return;
    case TIR_CAST:
      if (dt_is_bool(e->dtype)) sb_puts(o->out, "(");
      else sb_printf(o->out, "((%s)", ctype(o, e->dtype, false, e->span));
      expr(o, e->un.a);
      sb_puts(o->out, dt_is_bool(e->dtype) ? " != 0)" : ")");
      return;
    case TIR_LOAD:
      if (e->load.n != 1) return fail(o, e->span, "buffer '%s' is not flattened", e->load.buf->name);
      if (dt_is_bool(e->dtype)) sb_puts(o->out, "(bool)");
      sb_printf(o->out, "%s[", name_of(o, e->load.buf->data));
      expr(o, e->load.idx[0]);
      sb_putc(o->out, ']');
      return;
    case TIR_LET:
      sb_printf(o->out, "({ %s %s = ", ctype(o, e->let.var->dtype, false, e->span), name_of(o, e->let.var));
      expr(o, e->let.value);
      sb_puts(o->out, "; ");
      expr(o, e->let.body);
      sb_puts(o->out, "; })");
      return;
    case TIR_CALL: call(o, e); return;
    default: fail(o, e->span, "%s is not supported", tir_expr_kind_name(e->kind));
  }
}

/* A condition without the parentheses expr() puts around a binary
 * operation: `if (k == 0)`, not `if ((k == 0))` (-Wparentheses-equality). */
static void cond_expr(Ocl *o, const TirExpr *e) {
  size_t start = o->out->len;
  expr(o, e);
  char *t = o->out->data + start;
  size_t n = o->out->len - start;
  if (n < 2 || t[0] != '(' || t[n - 1] != ')') return;
  int depth = 0;
  for (size_t k = 0; k < n; k++) {
    depth += t[k] == '(' ? 1 : t[k] == ')' ? -1 : 0;
    if (depth == 0 && k < n - 1) return; /* (a) && (b): the first paren closes early */
  }
  memmove(t, t + 1, n - 2);
  o->out->len -= 2;
  o->out->data[o->out->len] = 0;
}

/* ------------------------------------------------------------- statements */

static void line(Ocl *o) {
  for (int i = 0; i < o->indent; i++) sb_puts(o->out, "  ");
}

static void stmt(Ocl *o, const TirStmt *s);

static void block(Ocl *o, const TirStmt *s) {
  o->indent++;
  stmt(o, s);
  o->indent--;
}

static void loop(Ocl *o, const TirStmt *s) {
  if (!tir_for_trivial_step(s)) { /* canonicalize-loop removes steps before codegen */
    fail(o, s->span, "loop '%s' has a step: run the canonicalize-loop stage first", s->loop.var->name);
    return;
  }
  const char *ty = ctype(o, s->loop.var->dtype, false, s->span), *v = name_of(o, s->loop.var);
  if (s->loop.kind == TIR_FOR_THREAD_BINDING) {
    const char *tag = s->loop.thread_tag;
    const char *fn = !strncmp(tag, "blockIdx.", 9) ? "get_group_id" : "get_local_id";
    int dim = tag[strlen(tag) - 1] - 'x';
    line(o);
    sb_printf(o->out, "{\n");
    o->indent++;
    line(o);
    sb_printf(o->out, "%s %s = (%s)%s(%d);\n", ty, v, ty, fn, dim);
    stmt(o, s->loop.body);
    o->indent--;
    line(o);
    sb_puts(o->out, "}\n");
    return;
  }
  line(o);
  sb_printf(o->out, "for (%s %s = ", ty, v);
  expr(o, s->loop.min);
  sb_printf(o->out, "; %s < ", v);
  if (tir_is_zero(s->loop.min)) expr(o, s->loop.extent);
  else {
    sb_putc(o->out, '(');
    expr(o, s->loop.min);
    sb_puts(o->out, " + ");
    expr(o, s->loop.extent);
    sb_putc(o->out, ')');
  }
  sb_printf(o->out, "; ++%s) {\n", v);
  block(o, s->loop.body);
  line(o);
  sb_puts(o->out, "}\n");
}

static void allocate(Ocl *o, const TirStmt *s) {
  const char *scope = s->alloc.scope ? s->alloc.scope : "global";
  if (!strcmp(scope, "shared")) { /* declared at kernel scope (prelude) */
    stmt(o, s->alloc.body);
    return;
  }
  if (strcmp(scope, "local")) {
    fail(o, s->span, "allocation '%s' in scope '%s' inside a kernel (only shared and local are)", s->alloc.var->name, scope);
    return;
  }
  line(o);
  sb_printf(o->out, "%s %s[", ctype(o, s->alloc.dtype, true, s->span), name_of(o, s->alloc.var));
  for (int i = 0; i < s->alloc.n; i++) {
    if (i) sb_puts(o->out, " * ");
    expr(o, s->alloc.extents[i]);
  }
  sb_puts(o->out, "];\n");
  stmt(o, s->alloc.body);
}

static void stmt(Ocl *o, const TirStmt *s) {
  if (!s || o->failed) return;
  switch (s->kind) {
    case TIR_S_SEQ:
      for (int i = 0; i < s->seq.n; i++) stmt(o, s->seq.stmts[i]);
      return;
    case TIR_S_FOR: loop(o, s); return;
    case TIR_S_STORE:
      if (s->store.n == 1 && s->store.value->dtype.lanes != 1 && contiguous(s->store.idx[0])) {
        line(o); /* vstoreN(value, 0, buf + base) */
        sb_printf(o->out, "vstore%d(", s->store.value->dtype.lanes);
        expr(o, s->store.value);
        sb_printf(o->out, ", 0, %s + ", name_of(o, s->store.buf->data));
        expr(o, s->store.idx[0]->ramp.base);
        sb_puts(o->out, ");\n");
        return;
      }
      if (s->store.n != 1 || s->store.value->dtype.lanes != 1)
        return fail(o, s->span, "store to '%s' is not flat and scalar", s->store.buf->name);
      line(o);
      sb_printf(o->out, "%s[", name_of(o, s->store.buf->data));
      expr(o, s->store.idx[0]);
      sb_puts(o->out, "] = ");
      if (dt_is_bool(s->store.value->dtype)) sb_puts(o->out, "(uchar)");
      expr(o, s->store.value);
      sb_puts(o->out, ";\n");
      return;
    case TIR_S_IF:
      line(o);
      sb_puts(o->out, "if (");
      cond_expr(o, s->ifs.cond);
      sb_puts(o->out, ") {\n");
      block(o, s->ifs.then_s);
      if (s->ifs.else_s) {
        line(o);
        sb_puts(o->out, "} else {\n");
        block(o, s->ifs.else_s);
      }
      line(o);
      sb_puts(o->out, "}\n");
      return;
    case TIR_S_LET:
      line(o);
      sb_printf(o->out, "%s %s = ", ctype(o, s->let.var->dtype, false, s->span), name_of(o, s->let.var));
      expr(o, s->let.value);
      sb_puts(o->out, ";\n");
      stmt(o, s->let.body);
      return;
    case TIR_S_EVAL:
      if (tir_is_storage_sync(s)) {
        line(o);
        sb_puts(o->out, "barrier(CLK_LOCAL_MEM_FENCE);\n");
      } else if (s->eval.value->kind == TIR_CALL) {
        line(o);
        expr(o, s->eval.value);
        sb_puts(o->out, ";\n");
      }
      return;
    case TIR_S_ALLOCATE: allocate(o, s); return;
    case TIR_S_DECL_BUFFER: stmt(o, s->decl.body); return;
    case TIR_S_ATTR: stmt(o, s->attr.body); return;
    case TIR_S_ASSERT: stmt(o, s->assrt.body); return;
    case TIR_S_WHILE:
      line(o);
      sb_puts(o->out, "while (");
      expr(o, s->loop_while.cond);
      sb_puts(o->out, ") {\n");
      block(o, s->loop_while.body);
      line(o);
      sb_puts(o->out, "}\n");
      return;
    default: fail(o, s->span, "%s is not supported in a kernel", tir_stmt_kind_name(s->kind));
  }
}

/* ---------------------------------------------------------------- kernels */

static bool shared_pre(TirVisitor *v, const TirStmt *s) {
  Ocl *o = v->ctx;
  if (s->kind != TIR_S_ALLOCATE || !s->alloc.scope || strcmp(s->alloc.scope, "shared")) return true;
  sb_printf(o->out, "  __local %s %s[", ctype(o, s->alloc.dtype, true, s->span), name_of(o, s->alloc.var));
  for (int i = 0; i < s->alloc.n; i++) {
    if (i) sb_puts(o->out, " * ");
    expr(o, s->alloc.extents[i]);
  }
  sb_puts(o->out, "];\n");
  return true;
}

static void kernel(Ocl *o, const char *name, const TirFunc *f) {
  o->kname = name;
  sb_printf(o->out, "__kernel void %s(", name);
  for (int i = 0; i < f->nparams; i++) {
    const TirVar *p = f->params[i];
    if (i) sb_puts(o->out, ", ");
    DType et = cg_gpu_param_elem(f, p);
    if (dt_is_handle(p->dtype))
      sb_printf(o->out, "__global %s* restrict %s", ctype(o, et, true, f->span), name_of(o, p));
    else sb_printf(o->out, "%s %s", ctype(o, p->dtype, false, f->span), name_of(o, p));
  }
  sb_puts(o->out, ") {\n");
  TirVisitor v = {.pre_stmt = shared_pre, .ctx = o};
  tir_visit_stmt(&v, f->body);
  o->indent = 1;
  stmt(o, f->body);
  sb_puts(o->out, "}\n\n");
}

static const char prelude[] =

    "inline int tvs_floordiv_i32(int a, int b) { int q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }\n"
    "inline int tvs_floormod_i32(int a, int b) { int r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }\n"
    "inline long tvs_floordiv_i64(long a, long b) { long q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }\n"
    "inline long tvs_floormod_i64(long a, long b) { long r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }\n\n";

char *cg_opencl_source(const IrModule *low, DiagCtx *diag) {
  StrBuf sb;
  sb_init(&sb);
  bool ok = true;
  for (int i = 0; i < low->nfuncs && ok; i++) {
    const IrGlobal *g = &low->funcs[i];
    if (!cg_gpu_is_kernel(g)) continue;
    Ocl o = {&sb, diag, g->name, {0}, {0}, 0, false};
    kernel(&o, g->name, g->tir);
    ok = !o.failed;
    for (int k = 0; k < o.owned.len; k++) free(o.owned.items[k]);
    pv_free(&o.owned);
    ir_ptrmap_free(&o.names);
  }
  if (!ok) {
    sb_free(&sb);
    return NULL;
  }
  StrBuf r;
  sb_init(&r);
  sb_puts(&r, "// Generated by TVS (target opencl).\n");
  /* float64 needs the extension (PoCL and GPUs have it); the floor helpers
   * only when used */
  if (strstr(sb.data, "double")) sb_puts(&r, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
  if (strstr(sb.data, "tvs_floor")) sb_puts(&r, prelude);
  sb_puts(&r, sb.data);
  sb_free(&sb);
  return sb_take(&r);
}
