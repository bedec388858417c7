/* llvm_func.c - prim_funcs to LLVM functions: the direct entry, the packed
 * entry that checks TVSValue arguments through the runtime's helpers, and the
 * module's __tvs_metadata; cg_build drives it all.  Graph functions share
 * the packed entry and metadata code through their signature prim_func; their
 * direct entry's body comes from cg_relax_graph.c.
 * Calling conventions are documented in codegen.h. */
#include "codegen/cg_internal.h"

#include <llvm-c/Analysis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "ir/flops.h"

static const TirBuffer *param_buffer(const TirFunc *f, int i) {
  return f->buffer_map ? f->buffer_map[i] : NULL;
}

static const char *param_name(const TirFunc *f, int i) {
  const TirBuffer *b = param_buffer(f, i);
  return b ? b->name : f->params[i]->name;
}

static bool is_scalar_param(const TirFunc *f, int i) { return !param_buffer(f, i); }

static void add_bind(CgFuncSig *s, const TirExpr *e, int param, CgBindKind kind, int dim) {
  if (!e || e->kind != TIR_VAR) return;
  for (int i = 0; i < s->nbinds; i++)
    if (s->binds[i].var == e->var) return;
  for (int i = 0; i < s->f->nparams; i++) /* scalar params come as arguments */
    if (is_scalar_param(s->f, i) && s->f->params[i] == e->var) return;
  VEC_PUSH(s->binds, s->nbinds, s->capbinds, ((CgBindVar){e->var, param, kind, dim}));
}

/* The bind vars in make-packed-api's order (shapes, strides, offset per buffer). */
static void collect_binds(CgFuncSig *s) {
  const TirFunc *f = s->f;
  for (int i = 0; i < f->nparams; i++) {
    const TirBuffer *b = param_buffer(f, i);
    if (!b) continue;
    s->nbufs++;
    for (int d = 0; d < b->ndim; d++) add_bind(s, b->shape[d], i, CG_BIND_SHAPE, d);
    for (int d = 0; d < b->nstrides; d++) add_bind(s, b->strides[d], i, CG_BIND_STRIDE, d);
    add_bind(s, b->elem_offset, i, CG_BIND_OFFSET, 0);
  }
}

static LLVMTypeRef scalar_abi_type(CgModule *m, DType t) {
  if (dt_is_float(t)) return m->f64;
  if (dt_is_handle(t)) return m->i8p;
  return m->i64;
}

static DType scalar_abi_dtype(DType t) {
  if (dt_is_float(t)) return dt_float64;
  if (dt_is_handle(t)) return dt_handle;
  return dt_int64;
}

static void declare_direct(CgModule *m, CgFuncSig *s) {
  const TirFunc *f = s->f;
  bool ret = !dt_is_void(f->ret_type); /* a trailing i8* where T.ret puts the value */
  int n = s->nbufs + s->nbinds + (f->nparams - s->nbufs) + ret;
  LLVMTypeRef *ps = xmalloc((size_t)(n ? n : 1) * sizeof *ps);
  int k = 0;
  for (int i = 0; i < s->nbufs; i++) ps[k++] = m->i8p;
  for (int i = 0; i < s->nbinds; i++) ps[k++] = m->i64;
  for (int i = 0; i < f->nparams; i++)
    if (is_scalar_param(f, i)) ps[k++] = scalar_abi_type(m, f->params[i]->dtype);
  if (ret) ps[k++] = m->i8p;
  s->type = LLVMFunctionType(m->i32, ps, (unsigned)n, 0);
  s->direct = LLVMAddFunction(m->mod, s->name, s->type);
  free(ps);
  /* The packed entry's one call must not inline the kernel: that would be a
   * second copy of it to optimize and compile (about twice the JIT time) for
   * a saving of one call per invocation. */
  cg_add_enum_attr(m, s->direct, (int)LLVMAttributeFunctionIndex, "noinline", 0);
  const IrValue *na = irv_dict_get(f->attrs, "tir.noalias");
  bool noalias = na && ((na->kind == IRV_BOOL && na->i) || (na->kind == IRV_INT && na->i));
  for (int i = 0; i < s->nbufs; i++) {
    if (noalias) cg_add_enum_attr(m, s->direct, i + 1, "noalias", 0);
    cg_add_enum_attr(m, s->direct, i + 1, "nocapture", 0);
  }
}

void cg_fn_init(CgFn *g, CgModule *m, LLVMValueRef fn, const char *name, IrHeap *h) {
  memset(g, 0, sizeof *g);
  g->m = m;
  g->b = LLVMCreateBuilderInContext(m->ctx);
  g->fn = fn;
  g->name = name;
  g->entry = LLVMAppendBasicBlockInContext(m->ctx, fn, "entry");
  g->arith = arith_new(h);
  LLVMPositionBuilderAtEnd(g->b, LLVMAppendBasicBlockInContext(m->ctx, fn, "body"));
}

void cg_fn_done(CgFn *g) {
  cg_finish_fn(g);
  LLVMDisposeBuilder(g->b);
  arith_free(g->arith);
  free(g->vars);
  free(g->live_ws);
}

/* Facts the analyzer may use: symbolic dims are >= 0. */
static void assume_nonneg(CgFn *g, IrHeap *h, const TirVar *v) {
  TirExpr *ge = tir_binary(h, TIR_GE, tir_var_ref(h, (TirVar *)v), tir_int(h, v->dtype, 0));
  arith_assume(g->arith, ge);
}

static void build_direct(CgModule *m, CgFuncSig *s) {
  const TirFunc *f = s->f;
  IrHeap *h = ir_heap_new();
  CgFn g;
  cg_fn_init(&g, m, s->direct, s->name, h);
  int k = 0;
  for (int i = 0; i < f->nparams; i++) {
    const TirBuffer *b = param_buffer(f, i);
    if (!b) continue;
    LLVMValueRef p = LLVMGetParam(s->direct, (unsigned)k++);
    LLVMSetValueName2(p, b->name, strlen(b->name));
    cg_bind(&g, f->params[i], p);
    cg_bind(&g, b->data, p);
  }
  for (int i = 0; i < s->nbinds; i++) {
    LLVMValueRef p = LLVMGetParam(s->direct, (unsigned)k++);
    const TirVar *v = s->binds[i].var;
    LLVMSetValueName2(p, v->name, strlen(v->name));
    cg_bind(&g, v, cg_convert(&g, p, dt_int64, dt_element(v->dtype)));
    assume_nonneg(&g, h, v);
  }
  for (int i = 0; i < f->nparams; i++) {
    if (!is_scalar_param(f, i)) continue;
    const TirVar *v = f->params[i];
    LLVMValueRef p = LLVMGetParam(s->direct, (unsigned)k++);
    LLVMSetValueName2(p, v->name, strlen(v->name));
    cg_bind(&g, v, cg_convert(&g, p, scalar_abi_dtype(v->dtype), dt_element(v->dtype)));
  }
  if (!dt_is_void(f->ret_type)) g.ret_slot = LLVMGetParam(s->direct, (unsigned)k++);
  cg_stmt(&g, f->body);
  LLVMBuildRet(g.b, LLVMConstInt(m->i32, 0, 0));
  cg_fn_done(&g);
  ir_heap_release(h);
}

LLVMValueRef cg_call_prim_func(CgFn *g, const TirExpr *e) {
  CgModule *m = g->m;
  const char *name = e->call.n > 0 && e->call.args[0]->kind == TIR_STR ? e->call.args[0]->str : "?";
  const IrGlobal *gl = m->low ? ir_module_lookup(m->low, name) : NULL;
  LLVMValueRef fn = gl && gl->kind == IR_FUNC_TIR ? LLVMGetNamedFunction(m->mod, name) : NULL;
  if (m->device_stmt)
    return cg_fail(g, e->span, m->i32, "codegen: the call of prim_func '%s' compiles on the cpu target only", name);
  if (!fn)
    return cg_fail(g, e->span, m->i32, "codegen: the lowered module has no prim_func '%s' to call", name);
  CgFuncSig s = {.name = name, .f = gl->tir};
  collect_binds(&s);
  free(s.binds);
  if (s.nbinds || s.f->nparams != e->call.n - 1)
    return cg_fail(g, e->span, m->i32, "codegen: the call of prim_func '%s': %s", name,
                   s.nbinds ? "its buffer parameters have symbolic shapes, which a data pointer does not carry"
                            : "the argument count differs from its parameters");
  bool ret = !dt_is_void(s.f->ret_type);
  LLVMValueRef *ca = xmalloc((size_t)(s.f->nparams + 1) * sizeof *ca), slot = NULL;
  int k = 0;
  for (int pass = 0; pass < 2; pass++) /* the direct entry's order: buffers, then scalars */
    for (int i = 0; i < s.f->nparams; i++) {
      const TirExpr *a = e->call.args[i + 1];
      if (is_scalar_param(s.f, i) == !pass) continue;
      DType want = pass ? scalar_abi_dtype(s.f->params[i]->dtype) : dt_handle;
      LLVMValueRef v = cg_expr(g, a);
      if (dt_is_handle(want)) ca[k++] = LLVMBuildBitCast(g->b, v, m->i8p, "");
      else ca[k++] = cg_convert(g, v, a->dtype, want);
    }
  if (ret) { /* the callee's T.ret value comes back through a slot */
    slot = LLVMBuildBitCast(g->b, cg_entry_alloca(g, LLVMArrayType(m->i8, CG_RET_SLOT_BYTES), 64, "ret"), m->i8p, "");
    ca[k++] = slot;
  }
  LLVMValueRef rc = LLVMBuildCall2(g->b, LLVMGlobalGetValueType(fn), fn, ca, (unsigned)k, "");
  free(ca);
  cg_check_rc(g, rc);
  if (!ret || dt_is_void(e->dtype)) return rc;
  LLVMTypeRef ty = cg_reg_type(m, e->dtype);
  if (!dt_eq(e->dtype, s.f->ret_type))
    return cg_fail(g, e->span, ty, "codegen: the call of prim_func '%s' expects a value of another type", name);
  return LLVMBuildLoad2(g->b, ty, LLVMBuildBitCast(g->b, slot, LLVMPointerType(ty, 0), ""), "");
}

/* DLPack's DLDataType {code, bits, lanes} packed into the i32 the C ABI passes. */
static uint32_t dl_dtype_bits(DType t) {
  unsigned code, bits = t.bits;
  switch (t.code) {
    case DT_INT: code = 0; break;
    case DT_UINT: code = 1; break;
    case DT_FLOAT: code = 2; break;
    case DT_BFLOAT: code = 4; break;
    case DT_BOOL: code = 6; bits = 8; break;
    default: code = 3; break;
  }
  return code | (bits << 8) | ((uint32_t)(t.lanes ? t.lanes : 1) << 16);
}

static LLVMTypeRef dltensor_type(CgModule *m) {
  LLVMTypeRef dev[2] = {m->i32, m->i32};
  LLVMTypeRef dt[3] = {m->i8, m->i8, m->i16};
  LLVMTypeRef f[7] = {m->i8p, LLVMStructTypeInContext(m->ctx, dev, 2, 0), m->i32,
                      LLVMStructTypeInContext(m->ctx, dt, 3, 0), LLVMPointerType(m->i64, 0),
                      LLVMPointerType(m->i64, 0), m->i64};
  return LLVMStructTypeInContext(m->ctx, f, 7, 0);
}

/* A private constant array of int64. */
static LLVMValueRef const_i64_array(CgModule *m, const int64_t *v, int n, const char *name) {
  LLVMValueRef *els = xmalloc((size_t)(n ? n : 1) * sizeof *els);
  for (int i = 0; i < n; i++) els[i] = LLVMConstInt(m->i64, (unsigned long long)v[i], 1);
  LLVMValueRef init = LLVMConstArray(m->i64, els, (unsigned)n);
  free(els);
  LLVMValueRef g = LLVMAddGlobal(m->mod, LLVMTypeOf(init), name);
  LLVMSetInitializer(g, init);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  return LLVMConstBitCast(g, LLVMPointerType(m->i64, 0));
}

static LLVMValueRef call_rt(CgFn *g, const char *name, LLVMTypeRef ret, LLVMTypeRef *ps, int np,
                            LLVMValueRef *args, bool vararg, int nargs) {
  LLVMValueRef fn = cg_runtime_fn(g->m, name, LLVMFunctionType(ret, ps, (unsigned)np, vararg));
  return LLVMBuildCall2(g->b, LLVMGlobalGetValueType(fn), fn, args, (unsigned)nargs, "");
}

static void ret_if_nonzero(CgFn *g, LLVMValueRef rc) {
  LLVMValueRef bad = LLVMBuildICmp(g->b, LLVMIntNE, rc, LLVMConstNull(LLVMTypeOf(rc)), "");
  LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(g->m->ctx, g->fn, "argerr");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(g->m->ctx, g->fn, "argok");
  LLVMBuildCondBr(g->b, bad, fail, ok);
  LLVMPositionBuilderAtEnd(g->b, fail);
  LLVMBuildRet(g->b, LLVMConstInt(g->m->i32, (unsigned long long)-1, 1));
  LLVMPositionBuilderAtEnd(g->b, ok);
}

/* What the steps of cg_build_packed share. */
typedef struct Packed {
  CgModule *m;
  CgFuncSig *s;
  const TirFunc *f;
  CgFn g;               /* the wrapper being built */
  LLVMValueRef fname;   /* the function's name (messages) */
  LLVMTypeRef dlt;      /* DLTensor */
  LLVMTypeRef slot_t;   /* TVSDimSlot {i64 value, i8* first param} */
  LLVMValueRef *slots;  /* per bind: its TVSDimSlot (shape binds only) */
  LLVMValueRef *datas, *shapes, *scalars; /* per param */
  LLVMValueRef *bvals;  /* per bind: its i64 value */
} Packed;

/* One TVSDimSlot per bound shape var, allocated in the entry block. */
static void build_dim_slots(Packed *p) {
  CgModule *m = p->m;
  CgFuncSig *s = p->s;
  p->slots = xcalloc((size_t)(s->nbinds ? s->nbinds : 1), sizeof *p->slots);
  LLVMBuilderRef eb = LLVMCreateBuilderInContext(m->ctx);
  LLVMPositionBuilderAtEnd(eb, p->g.entry);
  for (int i = 0; i < s->nbinds; i++) {
    if (s->binds[i].kind != CG_BIND_SHAPE) continue;
    p->slots[i] = LLVMBuildAlloca(eb, p->slot_t, s->binds[i].var->name);
  }
  LLVMDisposeBuilder(eb);
  for (int i = 0; i < s->nbinds; i++)
    if (p->slots[i]) LLVMBuildStore(p->g.b, LLVMConstNull(p->slot_t), p->slots[i]);
}

/* The index of the shape bind of var, or -1. */
static int shape_bind_of(const Packed *p, const TirVar *var) {
  int k = -1;
  for (int j = 0; j < p->s->nbinds; j++)
    if (p->s->binds[j].var == var && p->slots[j]) k = j;
  return k;
}

/* Checks tensor argument i (in args slot64 with type code tc), takes its data
 * and shape pointers and binds its bare symbolic dims. */
static void build_tensor_arg(Packed *p, int i, LLVMValueRef slot64, LLVMValueRef tc, LLVMValueRef pn) {
  CgModule *m = p->m;
  LLVMBuilderRef b = p->g.b;
  const TirBuffer *buf = param_buffer(p->f, i);
  int64_t *shape = xmalloc((size_t)(buf->ndim ? buf->ndim : 1) * sizeof *shape);
  for (int d = 0; d < buf->ndim; d++) {
    int64_t v;
    shape[d] = tir_is_const_int(buf->shape[d], &v) ? v : -1;
  }
  char gname[64];
  snprintf(gname, sizeof gname, ".shape.%d", m->nstrings++);
  LLVMValueRef shp = buf->ndim ? const_i64_array(m, shape, buf->ndim, gname) : LLVMConstNull(LLVMPointerType(m->i64, 0));
  free(shape);
  LLVMValueRef ai = LLVMConstInt(m->i32, (unsigned long long)i, 0);
  LLVMTypeRef cps[8] = {m->i8p, m->i8p, m->i32, m->i8p, m->i32, m->i32, m->i32, LLVMPointerType(m->i64, 0)};
  LLVMValueRef a[8] = {p->fname, pn, ai, LLVMBuildBitCast(b, slot64, m->i8p, ""), tc,
                       LLVMConstInt(m->i32, dl_dtype_bits(buf->dtype), 0),
                       LLVMConstInt(m->i32, (unsigned long long)buf->ndim, 0), shp};
  ret_if_nonzero(&p->g, call_rt(&p->g, "tvs_check_tensor_arg", m->i32, cps, 8, a, false, 8));
  LLVMTypeRef dlt = p->dlt;
  LLVMValueRef tp = LLVMBuildLoad2(b, LLVMPointerType(dlt, 0),
                                   LLVMBuildBitCast(b, slot64, LLVMPointerType(LLVMPointerType(dlt, 0), 0), ""), "");
  LLVMValueRef data = LLVMBuildLoad2(b, m->i8p, LLVMBuildStructGEP2(b, dlt, tp, 0, ""), "");
  LLVMValueRef off = LLVMBuildLoad2(b, m->i64, LLVMBuildStructGEP2(b, dlt, tp, 6, ""), "");
  p->datas[i] = LLVMBuildInBoundsGEP2(b, m->i8, data, &off, 1, buf->name);
  p->shapes[i] = LLVMBuildLoad2(b, LLVMPointerType(m->i64, 0), LLVMBuildStructGEP2(b, dlt, tp, 4, ""), "");
  /* bind each bare symbolic dim (every occurrence checks consistency) */
  for (int d = 0; d < buf->ndim; d++) {
    const TirExpr *e = buf->shape[d];
    if (e->kind != TIR_VAR) continue;
    int k = shape_bind_of(p, e->var);
    if (k < 0) continue; /* a scalar param used as a dim: checked below */
    LLVMValueRef di = LLVMConstInt(m->i64, (unsigned long long)d, 0);
    LLVMValueRef dv = LLVMBuildLoad2(b, m->i64, LLVMBuildInBoundsGEP2(b, m->i64, p->shapes[i], &di, 1, ""), "");
    LLVMTypeRef bps[5] = {m->i8p, m->i8p, m->i8p, m->i64, m->i8p};
    LLVMValueRef ba[5] = {p->fname, cg_const_string(m, e->var->name), pn, dv,
                          LLVMBuildBitCast(b, p->slots[k], m->i8p, "")};
    ret_if_nonzero(&p->g, call_rt(&p->g, "tvs_bind_dim", m->i32, bps, 5, ba, false, 5));
  }
}

/* Checks and unpacks every argument: scalars by value, tensors by pointer. */
static void build_unpack_args(Packed *p, LLVMValueRef args, LLVMValueRef tcodes) {
  CgModule *m = p->m;
  const TirFunc *f = p->f;
  LLVMBuilderRef b = p->g.b;
  size_t np = (size_t)(f->nparams ? f->nparams : 1);
  p->datas = xcalloc(np, sizeof *p->datas);
  p->shapes = xcalloc(np, sizeof *p->shapes);
  p->scalars = xcalloc(np, sizeof *p->scalars);
  LLVMValueRef args64 = LLVMBuildBitCast(b, args, LLVMPointerType(m->i64, 0), "");
  for (int i = 0; i < f->nparams; i++) {
    LLVMValueRef idx = LLVMConstInt(m->i64, (unsigned long long)i, 0);
    LLVMValueRef slot64 = LLVMBuildInBoundsGEP2(b, m->i64, args64, &idx, 1, "");
    LLVMValueRef tcp = LLVMBuildInBoundsGEP2(b, m->i32, tcodes, &idx, 1, "");
    LLVMValueRef tc = LLVMBuildLoad2(b, m->i32, tcp, "");
    LLVMValueRef pn = cg_const_string(m, param_name(f, i));
    if (param_buffer(f, i)) {
      build_tensor_arg(p, i, slot64, tc, pn);
      continue;
    }
    DType t = f->params[i]->dtype;
    int want = dt_is_float(t) ? TVS_FLOAT : dt_is_handle(t) ? TVS_HANDLE : TVS_INT;
    LLVMTypeRef cps[5] = {m->i8p, m->i8p, m->i32, m->i32, m->i32};
    LLVMValueRef a[5] = {p->fname, pn, LLVMConstInt(m->i32, (unsigned long long)i, 0), tc,
                         LLVMConstInt(m->i32, (unsigned long long)want, 0)};
    ret_if_nonzero(&p->g, call_rt(&p->g, "tvs_check_scalar_arg", m->i32, cps, 5, a, false, 5));
    LLVMTypeRef at = scalar_abi_type(m, t);
    p->scalars[i] = LLVMBuildLoad2(b, at, LLVMBuildBitCast(b, slot64, LLVMPointerType(at, 0), ""), "");
  }
}

/* The bound vars' values, bound (with the scalar params) for the body's use. */
static void build_bound_values(Packed *p) {
  CgModule *m = p->m;
  CgFuncSig *s = p->s;
  const TirFunc *f = p->f;
  LLVMBuilderRef b = p->g.b;
  p->bvals = xcalloc((size_t)(s->nbinds ? s->nbinds : 1), sizeof *p->bvals);
  for (int i = 0; i < s->nbinds; i++) {
    const CgBindVar *bv = &s->binds[i];
    if (bv->kind == CG_BIND_SHAPE) {
      p->bvals[i] = LLVMBuildLoad2(b, m->i64, LLVMBuildStructGEP2(b, p->slot_t, p->slots[i], 0, ""), "");
    } else if (bv->kind == CG_BIND_STRIDE) {
      /* compact (checked): the product of the later dims */
      const TirBuffer *buf = param_buffer(f, bv->param);
      LLVMValueRef prod = LLVMConstInt(m->i64, 1, 0);
      for (int d = bv->dim + 1; d < buf->ndim; d++) {
        LLVMValueRef di = LLVMConstInt(m->i64, (unsigned long long)d, 0);
        prod = LLVMBuildMul(b, prod, LLVMBuildLoad2(b, m->i64, LLVMBuildInBoundsGEP2(b, m->i64, p->shapes[bv->param], &di, 1, ""), ""), "");
      }
      p->bvals[i] = prod;
    } else {
      p->bvals[i] = LLVMConstInt(m->i64, 0, 0); /* byte_offset is applied to the data pointer */
    }
    cg_bind(&p->g, bv->var, cg_convert(&p->g, p->bvals[i], dt_int64, dt_element(bv->var->dtype)));
  }
  for (int i = 0; i < f->nparams; i++)
    if (p->scalars[i]) cg_bind(&p->g, f->params[i], cg_convert(&p->g, p->scalars[i], scalar_abi_dtype(f->params[i]->dtype), dt_element(f->params[i]->dtype)));
}

/* Dims given by expressions (n * 2, or a scalar param): check their value. */
static void check_expr_dims(Packed *p) {
  CgModule *m = p->m;
  const TirFunc *f = p->f;
  LLVMBuilderRef b = p->g.b;
  for (int i = 0; i < f->nparams; i++) {
    const TirBuffer *buf = param_buffer(f, i);
    if (!buf) continue;
    for (int d = 0; d < buf->ndim; d++) {
      const TirExpr *e = buf->shape[d];
      int64_t cv;
      if (tir_is_const_int(e, &cv)) continue;
      if (e->kind == TIR_VAR && shape_bind_of(p, e->var) >= 0) continue;
      LLVMValueRef want = cg_convert(&p->g, cg_expr(&p->g, e), e->dtype, dt_int64);
      LLVMValueRef di = LLVMConstInt(m->i64, (unsigned long long)d, 0);
      LLVMValueRef got = LLVMBuildLoad2(b, m->i64, LLVMBuildInBoundsGEP2(b, m->i64, p->shapes[i], &di, 1, ""), "");
      LLVMValueRef bad = LLVMBuildICmp(b, LLVMIntNE, got, want, "");
      LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(m->ctx, p->g.fn, "dimerr");
      LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(m->ctx, p->g.fn, "dimok");
      LLVMBuildCondBr(b, bad, fail, ok);
      LLVMPositionBuilderAtEnd(b, fail);
      LLVMValueRef fa[7] = {cg_const_string(m, "%s: argument %d ('%s') shape[%d] is %lld, expected %lld"),
                            p->fname, LLVMConstInt(m->i32, (unsigned long long)i, 0),
                            cg_const_string(m, param_name(f, i)), LLVMConstInt(m->i32, (unsigned long long)d, 0),
                            got, want};
      call_rt(&p->g, "tvs_set_last_error", m->voidt, &m->i8p, 1, fa, true, 7);
      LLVMBuildRet(b, LLVMConstInt(m->i32, (unsigned long long)-1, 1));
      LLVMPositionBuilderAtEnd(b, ok);
    }
  }
}

/* Moves the stack pointer down to a fixed offset within its 4 KiB page (a
 * dynamic alloca of the distance), returning the saved pointer for
 * llvm.stackrestore.  A kernel's stack buffers (a register tile's write
 * cache) then sit at the same page offset in every process: where they fall
 * relative to page-aligned operands decides whether their stores alias the
 * operands' loads in the store buffer (4 KiB aliasing).  At a random offset
 * (ASLR) one tuned matmul ran at 68 or 78 GFLOP/s from process to process,
 * and the tuner, measuring in one process, could keep a candidate only its
 * own offset favoured. */
static LLVMValueRef stack_to_page_offset(CgModule *m, LLVMBuilderRef b) {
  LLVMValueRef save = cg_intrinsic(m, "llvm.stacksave", NULL, 0);
  LLVMValueRef sp = LLVMBuildCall2(b, LLVMGlobalGetValueType(save), save, NULL, 0, "sp");
  LLVMValueRef off = LLVMBuildAnd(b, LLVMBuildPtrToInt(b, sp, m->i64, ""), LLVMConstInt(m->i64, 4095, 0), "");
  off = LLVMBuildAdd(b, off, LLVMConstInt(m->i64, 16, 0), ""); /* never zero bytes */
  LLVMValueRef pad = LLVMBuildArrayAlloca(b, m->i8, off, "page_pad");
  LLVMSetVolatile(LLVMBuildStore(b, LLVMConstInt(m->i8, 0, 0), pad), 1); /* keeps the alloca */
  return sp;
}

/* The call of the direct function: data pointers, bound vars, scalars. */
static void build_direct_call(Packed *p) {
  CgFuncSig *s = p->s;
  const TirFunc *f = p->f;
  int n = LLVMCountParamTypes(s->type), k = 0;
  LLVMValueRef *ca = xmalloc((size_t)(n ? n : 1) * sizeof *ca);
  for (int i = 0; i < f->nparams; i++)
    if (p->datas[i]) ca[k++] = p->datas[i];
  for (int i = 0; i < s->nbinds; i++) ca[k++] = p->bvals[i];
  for (int i = 0; i < f->nparams; i++)
    if (p->scalars[i]) ca[k++] = p->scalars[i];
  CgModule *m = p->g.m;
  if (!dt_is_void(f->ret_type)) /* the packed API drops the returned value */
    ca[k++] = LLVMBuildBitCast(p->g.b, cg_entry_alloca(&p->g, LLVMArrayType(m->i8, CG_RET_SLOT_BYTES), 64, "ret"),
                               m->i8p, "");
  LLVMValueRef sp = stack_to_page_offset(m, p->g.b);
  LLVMValueRef rc = LLVMBuildCall2(p->g.b, s->type, s->direct, ca, (unsigned)k, "");
  LLVMValueRef restore = cg_intrinsic(m, "llvm.stackrestore", NULL, 0);
  LLVMBuildCall2(p->g.b, LLVMGlobalGetValueType(restore), restore, &sp, 1, "");
  LLVMBuildRet(p->g.b, rc);
  free(ca);
}

void cg_build_packed(CgModule *m, CgFuncSig *s) {
  char *pname = xasprintf("__tvs_packed_%s", s->name);
  LLVMTypeRef i32p = LLVMPointerType(m->i32, 0);
  LLVMTypeRef ps[6] = {m->i8p, i32p, m->i32, m->i8p, i32p, m->i8p};
  LLVMValueRef fn = LLVMAddFunction(m->mod, pname, LLVMFunctionType(m->i32, ps, 6, 0));
  free(pname);
  IrHeap *h = ir_heap_new();
  Packed p;
  memset(&p, 0, sizeof p);
  p.m = m;
  p.s = s;
  p.f = s->f;
  cg_fn_init(&p.g, m, fn, s->name, h);
  LLVMValueRef args = LLVMGetParam(fn, 0), tcodes = LLVMGetParam(fn, 1), nargs = LLVMGetParam(fn, 2);
  p.fname = cg_const_string(m, s->name);
  p.dlt = dltensor_type(m);
  LLVMTypeRef st[2] = {m->i64, m->i8p};
  p.slot_t = LLVMStructTypeInContext(m->ctx, st, 2, 0);
  /* count */
  LLVMTypeRef cps[3] = {m->i8p, m->i32, m->i32};
  LLVMValueRef a[3] = {p.fname, nargs, LLVMConstInt(m->i32, (unsigned long long)p.f->nparams, 0)};
  ret_if_nonzero(&p.g, call_rt(&p.g, "tvs_check_num_args", m->i32, cps, 3, a, false, 3));
  build_dim_slots(&p);
  build_unpack_args(&p, args, tcodes);
  build_bound_values(&p);
  check_expr_dims(&p);
  build_direct_call(&p);
  free(p.bvals);
  free(p.slots);
  free(p.datas);
  free(p.shapes);
  free(p.scalars);
  cg_fn_done(&p.g);
  ir_heap_release(h);
}

/* ------------------------------------------------------------- metadata */

static LLVMValueRef private_const(CgModule *m, LLVMValueRef init, const char *prefix) {
  char name[64];
  snprintf(name, sizeof name, "%s.%d", prefix, m->nstrings++);
  LLVMValueRef g = LLVMAddGlobal(m->mod, LLVMTypeOf(init), name);
  LLVMSetInitializer(g, init);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  return g;
}

static LLVMValueRef first_elem(CgModule *m, LLVMValueRef g) {
  LLVMValueRef zero = LLVMConstInt(m->i64, 0, 0);
  LLVMValueRef idx[2] = {zero, zero};
  return LLVMConstInBoundsGEP2(LLVMGlobalGetValueType(g), g, idx, 2);
}

/* A prim_func's FLOPs per call from the IR before lowering (the count tvs
 * run --time uses), when every loop extent is static; else -1. */
static double prim_flops(const IrModule *src, const char *name) {
  const IrGlobal *g = src ? ir_module_lookup(src, name) : NULL;
  if (!g || g->kind != IR_FUNC_TIR || !g->tir) return -1;
  double n = tir_count_flops(g->tir, NULL, 0);
  return n >= 0 ? n : -1;
}

/* A graph function's FLOPs per call: the sum over its call_tir bindings
 * (what tvs run --time on the .tvs counts), -1 when one is unknown. */
static double graph_flops(const IrModule *src, const RxFunc *f) {
  const RxExpr *body = f ? f->body : NULL;
  double sum = 0;
  for (int b = 0; body && body->kind == RX_SEQ && b < body->seq.nblocks; b++)
    for (int i = 0; i < body->seq.blocks[b].n; i++) {
      const RxExpr *v = body->seq.blocks[b].bindings[i].value;
      if (v->kind != RX_CALL || !v->call.op || v->call.op->id != RX_OP_CALL_TIR) continue;
      double n = v->call.n > 0 && v->call.args[0]->kind == RX_GLOBAL_VAR ? prim_flops(src, v->call.args[0]->gvar.name) : -1;
      if (n < 0) return -1;
      sum += n;
    }
  return sum > 0 ? sum : -1;
}

static double static_flops(const CgModule *m, const CgFuncSig *s) {
  if (s->rx) return graph_flops(m->opt->flop_source, s->rx);
  const IrGlobal *g = m->opt->flop_source ? ir_module_lookup(m->opt->flop_source, s->name) : NULL;
  if (!g || g->kind != IR_FUNC_TIR || !g->tir) return -1;
  double n = tir_count_flops(g->tir, NULL, 0);
  return n >= 0 ? n : -1;
}

static void build_metadata(CgModule *m, CgFuncSig *sigs, int nsigs) {
  LLVMTypeRef dt3[3] = {m->i8, m->i8, m->i16};
  LLVMTypeRef dlt = LLVMStructTypeInContext(m->ctx, dt3, 3, 0);
  LLVMTypeRef i64p = LLVMPointerType(m->i64, 0), i8pp = LLVMPointerType(m->i8p, 0);
  LLVMTypeRef pf[6] = {m->i8p, m->i32, dlt, m->i32, i64p, i8pp};
  LLVMTypeRef pinfo = LLVMStructTypeInContext(m->ctx, pf, 6, 0);
  LLVMTypeRef ff[5] = {m->i8p, m->i32, LLVMPointerType(pinfo, 0), m->i32, m->f64};
  LLVMTypeRef finfo = LLVMStructTypeInContext(m->ctx, ff, 5, 0);
  LLVMValueRef *funcs = xmalloc((size_t)(nsigs ? nsigs : 1) * sizeof *funcs);
  for (int k = 0; k < nsigs; k++) {
    const TirFunc *f = sigs[k].f;
    LLVMValueRef *params = xmalloc((size_t)(f->nparams ? f->nparams : 1) * sizeof *params);
    for (int i = 0; i < f->nparams; i++) {
      const TirBuffer *buf = param_buffer(f, i);
      DType t = buf ? buf->dtype : f->params[i]->dtype;
      uint32_t bits = dl_dtype_bits(t);
      LLVMValueRef dv[3] = {LLVMConstInt(m->i8, bits & 0xff, 0), LLVMConstInt(m->i8, (bits >> 8) & 0xff, 0),
                            LLVMConstInt(m->i16, bits >> 16, 0)};
      int code = buf ? TVS_TENSOR : dt_is_float(t) ? TVS_FLOAT : dt_is_handle(t) ? TVS_HANDLE : TVS_INT;
      LLVMValueRef shape = LLVMConstNull(i64p), syms = LLVMConstNull(i8pp);
      int ndim = buf ? buf->ndim : 0;
      if (ndim > 0) {
        int64_t *sh = xmalloc((size_t)ndim * sizeof *sh);
        LLVMValueRef *sv = xmalloc((size_t)ndim * sizeof *sv);
        bool any = false;
        for (int d = 0; d < ndim; d++) {
          int64_t v;
          sh[d] = tir_is_const_int(buf->shape[d], &v) ? v : -1;
          if (sh[d] < 0 && buf->shape[d]->kind == TIR_VAR) {
            sv[d] = cg_const_string(m, buf->shape[d]->var->name);
            any = true;
          } else {
            sv[d] = LLVMConstNull(m->i8p);
          }
        }
        char nm[32];
        snprintf(nm, sizeof nm, ".mshape.%d", m->nstrings++);
        shape = const_i64_array(m, sh, ndim, nm);
        if (any) syms = first_elem(m, private_const(m, LLVMConstArray(m->i8p, sv, (unsigned)ndim), ".msyms"));
        free(sh);
        free(sv);
      }
      LLVMValueRef pv[6] = {cg_const_string(m, param_name(f, i)), LLVMConstInt(m->i32, (unsigned long long)code, 0),
                            LLVMConstNamedStruct(dlt, dv, 3), LLVMConstInt(m->i32, (unsigned long long)ndim, 0),
                            shape, syms};
      params[i] = LLVMConstNamedStruct(pinfo, pv, 6);
    }
    LLVMValueRef parr = f->nparams ? first_elem(m, private_const(m, LLVMConstArray(pinfo, params, (unsigned)f->nparams), ".mparams"))
                                   : LLVMConstNull(LLVMPointerType(pinfo, 0));
    free(params);
    LLVMValueRef fv[5] = {cg_const_string(m, sigs[k].name), LLVMConstInt(m->i32, (unsigned long long)f->nparams, 0),
                          parr, LLVMConstInt(m->i32, (unsigned long long)sigs[k].num_outputs, 0),
                          LLVMConstReal(m->f64, static_flops(m, &sigs[k]))};
    funcs[k] = LLVMConstNamedStruct(finfo, fv, 5);
  }
  LLVMValueRef farr = nsigs ? first_elem(m, private_const(m, LLVMConstArray(finfo, funcs, (unsigned)nsigs), ".mfuncs"))
                            : LLVMConstNull(LLVMPointerType(finfo, 0));
  free(funcs);
  LLVMTypeRef mf[4] = {m->i32, m->i32, m->i32, LLVMPointerType(finfo, 0)};
  LLVMTypeRef mt = LLVMStructTypeInContext(m->ctx, mf, 4, 0);
  LLVMValueRef mv[4] = {LLVMConstInt(m->i32, TVS_METADATA_MAGIC, 0), LLVMConstInt(m->i32, TVS_METADATA_VERSION, 0),
                        LLVMConstInt(m->i32, (unsigned long long)nsigs, 0), farr};
  LLVMValueRef g = LLVMAddGlobal(m->mod, mt, "__tvs_metadata");
  LLVMSetInitializer(g, LLVMConstNamedStruct(mt, mv, 4));
  LLVMSetGlobalConstant(g, 1);
  LLVMSetAlignment(g, 8);
}

/* ----------------------------------------------------------------- driver */

void cg_build_functions(CgModule *m, const IrModule *low) {
  m->low = low;
  CgFuncSig *sigs = xcalloc((size_t)(low->nfuncs ? low->nfuncs : 1), sizeof *sigs);
  IrHeap *h = ir_heap_new(); /* graph signatures */
  int n = 0, ntir;
  for (int i = 0; i < low->nfuncs; i++) {
    const IrGlobal *gl = &low->funcs[i];
    if (gl->kind != IR_FUNC_TIR || !gl->tir) continue;
    CgFuncSig *s = &sigs[n++];
    s->name = gl->name;
    s->f = gl->tir;
    collect_binds(s);
    declare_direct(m, s);
  }
  ntir = n;
  for (int i = 0; i < low->nfuncs && m->opt->graph_funcs; i++) {
    const IrGlobal *gl = &low->funcs[i];
    if (gl->kind != IR_FUNC_RELAX || !gl->rx) continue;
    int nout = 0;
    TirFunc *sig = cg_graph_signature(h, gl->name, gl->rx, &nout, m->diag);
    if (!sig) continue;
    CgFuncSig *s = &sigs[n++];
    s->name = gl->name;
    s->f = sig;
    s->rx = gl->rx;
    s->num_outputs = nout;
    collect_binds(s);
    declare_direct(m, s);
  }
  for (int i = 0; i < n && !m->diag->nerr; i++) {
    if (sigs[i].rx) cg_build_graph(m, &sigs[i], sigs, ntir);
    else build_direct(m, &sigs[i]);
    cg_build_packed(m, &sigs[i]);
  }
  if (!m->diag->nerr) build_metadata(m, sigs, n);
  for (int i = 0; i < n; i++) free(sigs[i].binds);
  free(sigs);
  ir_heap_release(h);
}

CgResult *cg_build(const IrModule *lowered, const CgOptions *opt, DiagCtx *diag) {
  if (!lowered) return NULL;
  cg_init_llvm();
  CgOptions dflt = cg_options_default();
  CgResult *r = xcalloc(1, sizeof *r);
  cg_resolve_target(r, opt ? opt : &dflt);
  /* the host's own CPU and features need no check; anything the user named does */
  bool named = opt && ((opt->mcpu && opt->mcpu[0] && strcmp(opt->mcpu, "native")) || opt->mattr ||
                       (opt->triple && opt->triple[0]));
  if (named && cg_check_target(r->triple, r->cpu, r->features, diag)) {
    cg_free(r);
    return NULL;
  }
  r->tsctx = LLVMOrcCreateNewThreadSafeContext();
  r->ctx = LLVMOrcThreadSafeContextGetContext(r->tsctx);
  r->mod = LLVMModuleCreateWithNameInContext(lowered->name ? lowered->name : "tvs", r->ctx);
  LLVMSetTarget(r->mod, r->triple);
  LLVMTargetMachineRef tm = cg_target_machine(r, LLVMRelocPIC, LLVMCodeModelDefault, diag);
  if (!tm) {
    cg_free(r);
    return NULL;
  }
  LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(r->mod, td);
  LLVMDisposeTargetData(td);
  LLVMDisposeTargetMachine(tm);
  CgModule m;
  memset(&m, 0, sizeof m);
  m.ctx = r->ctx;
  m.mod = r->mod;
  m.diag = diag;
  m.opt = &r->opt;
  m.cpu = r->cpu;
  m.features = r->features;
  m.i1 = LLVMInt1TypeInContext(m.ctx);
  m.i8 = LLVMInt8TypeInContext(m.ctx);
  m.i16 = LLVMInt16TypeInContext(m.ctx);
  m.i32 = LLVMInt32TypeInContext(m.ctx);
  m.i64 = LLVMInt64TypeInContext(m.ctx);
  m.f16 = LLVMHalfTypeInContext(m.ctx);
  m.f32 = LLVMFloatTypeInContext(m.ctx);
  m.f64 = LLVMDoubleTypeInContext(m.ctx);
  m.i8p = LLVMPointerType(m.i8, 0);
  m.voidt = LLVMVoidTypeInContext(m.ctx);
  int nerr0 = diag->nerr;
  cg_build_functions(&m, lowered);
  if (diag->nerr > nerr0) {
    cg_free(r);
    return NULL;
  }
  char *msg = NULL;
  if (LLVMVerifyModule(r->mod, LLVMReturnStatusAction, &msg)) {
    diag_error(diag, span_none, "codegen: internal error: invalid LLVM IR: %s", msg ? msg : "?");
    LLVMDisposeMessage(msg);
    cg_free(r);
    return NULL;
  }
  LLVMDisposeMessage(msg);
  return r;
}
