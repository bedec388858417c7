/* llvm_stmt.c - loop-IR statements to LLVM IR.
 *
 * Serial loops are counted loops with a phi; a parallel loop's body is
 * outlined into a task `int task(int id, int n, void *closure)` run by the
 * runtime's tvs_parallel_launch (nested parallel loops run serially inside).
 * Allocations are zero-filled like the interpreter's: small constant ones
 * are 64-byte aligned allocas, others come from the workspace allocator. */
#include "codegen/cg_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define CG_MAX_STACK_ALLOC (64 * 1024) /* bytes: larger allocations use the workspace */

/* ---------------------------------------------------------- attributes */

void cg_add_str_attr(CgModule *m, LLVMValueRef fn, int idx, const char *k, const char *v) {
  LLVMAttributeRef a = LLVMCreateStringAttribute(m->ctx, k, (unsigned)strlen(k), v, (unsigned)strlen(v));
  LLVMAddAttributeAtIndex(fn, (LLVMAttributeIndex)idx, a);
}

void cg_add_enum_attr(CgModule *m, LLVMValueRef fn, int idx, const char *k, uint64_t v) {
  unsigned kind = LLVMGetEnumAttributeKindForName(k, strlen(k));
  TVS_ASSERT(kind != 0);
  LLVMAddAttributeAtIndex(fn, (LLVMAttributeIndex)idx, LLVMCreateEnumAttribute(m->ctx, kind, v));
}

void cg_add_fn_attrs(CgModule *m, LLVMValueRef fn, int vec_bits) {
  int fi = (int)LLVMAttributeFunctionIndex;
  cg_add_enum_attr(m, fn, fi, "nounwind", 0);
  if (m->cpu && m->cpu[0]) cg_add_str_attr(m, fn, fi, "target-cpu", m->cpu);
  if (m->features && m->features[0]) cg_add_str_attr(m, fn, fi, "target-features", m->features);
  if (vec_bits > 0) {
    /* like clang: explicit vector code of this width may use registers that wide */
    char buf[16];
    snprintf(buf, sizeof buf, "%d", vec_bits);
    cg_add_str_attr(m, fn, fi, "min-legal-vector-width", buf);
  }
  if (m->opt->fast_math) {
    static const char *const keys[] = {"unsafe-fp-math", "no-infs-fp-math", "no-nans-fp-math",
                                       "no-signed-zeros-fp-math", "approx-func-fp-math"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) cg_add_str_attr(m, fn, fi, keys[i], "true");
  }
}

/* ---------------------------------------------------------------- helpers */

static LLVMBasicBlockRef new_block(CgFn *f, const char *name) {
  return LLVMAppendBasicBlockInContext(f->m->ctx, f->fn, name);
}

static LLVMValueRef build_call(CgFn *f, LLVMValueRef fn, LLVMValueRef *args, int n) {
  return LLVMBuildCall2(f->b, LLVMGlobalGetValueType(fn), fn, args, (unsigned)n, "");
}

/* return -1, freeing the workspace allocations live at this point first (a
 * failed check or task must not leak them). */
static void ret_fail(CgFn *f) {
  CgModule *m = f->m;
  for (int i = f->nlive_ws - 1; i >= 0; i--) {
    LLVMValueRef fr = cg_runtime_fn(m, "tvs_backend_free_workspace", LLVMFunctionType(m->i32, &m->i8p, 1, 0));
    build_call(f, fr, &f->live_ws[i], 1);
  }
  LLVMBuildRet(f->b, LLVMConstInt(m->i32, (unsigned long long)-1, 1));
}

/* if (rc != 0) return -1; */
static void check_rc(CgFn *f, LLVMValueRef rc) {
  LLVMValueRef bad = LLVMBuildICmp(f->b, LLVMIntNE, rc, LLVMConstNull(LLVMTypeOf(rc)), "");
  LLVMBasicBlockRef fail = new_block(f, "fail"), ok = new_block(f, "ok");
  LLVMBuildCondBr(f->b, bad, fail, ok);
  LLVMPositionBuilderAtEnd(f->b, fail);
  ret_fail(f);
  LLVMPositionBuilderAtEnd(f->b, ok);
}

/* An alloca in the entry block. */
static LLVMValueRef entry_alloca(CgFn *f, LLVMTypeRef ty, unsigned align, const char *name) {
  LLVMBuilderRef eb = LLVMCreateBuilderInContext(f->m->ctx);
  LLVMValueRef first = LLVMGetFirstInstruction(f->entry);
  if (first) LLVMPositionBuilderBefore(eb, first);
  else LLVMPositionBuilderAtEnd(eb, f->entry);
  LLVMValueRef a = LLVMBuildAlloca(eb, ty, name);
  LLVMSetAlignment(a, align);
  LLVMDisposeBuilder(eb);
  return a;
}

static void memset_zero(CgFn *f, LLVMValueRef p8, LLVMValueRef nbytes, unsigned align) {
  LLVMValueRef st = LLVMBuildMemSet(f->b, p8, LLVMConstInt(f->m->i8, 0, 0), nbytes, align);
  (void)st;
}

/* ------------------------------------------------------------------ loops */

/* Emits for (i = 0; i < ext; i++) { var = min + i; body }, with lo/hi
 * overriding the counter's range (parallel chunks) when given. */
static void counted_loop(CgFn *f, const TirStmt *s, LLVMValueRef min, LLVMValueRef lo, LLVMValueRef hi) {
  LLVMBuilderRef b = f->b;
  LLVMTypeRef ty = LLVMTypeOf(hi);
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef head = new_block(f, "for.head"), body = new_block(f, "for.body"),
                    exit = new_block(f, "for.end");
  LLVMBuildBr(b, head);
  LLVMPositionBuilderAtEnd(b, head);
  LLVMValueRef i = LLVMBuildPhi(b, ty, s->loop.var->name);
  LLVMValueRef cond = LLVMBuildICmp(b, LLVMIntSLT, i, hi, "");
  LLVMBuildCondBr(b, cond, body, exit);
  LLVMPositionBuilderAtEnd(b, body);
  LLVMValueRef v = i;
  if (!(LLVMIsConstant(min) && LLVMConstIntGetSExtValue(min) == 0)) v = LLVMBuildAdd(b, min, i, "");
  int mark = f->nvars;
  cg_bind(f, s->loop.var, v);
  cg_stmt(f, s->loop.body);
  f->nvars = mark;
  LLVMValueRef next = LLVMBuildNSWAdd(b, i, LLVMConstInt(ty, 1, 0), "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
  LLVMBuildBr(b, head);
  LLVMValueRef vals[2] = {lo, next};
  LLVMBasicBlockRef bbs[2] = {pre, latch};
  LLVMAddIncoming(i, vals, bbs, 2);
  LLVMPositionBuilderAtEnd(b, exit);
}

static void finish_fn(CgFn *g) {
  /* the entry block holds the allocas and falls into the first code block */
  LLVMBasicBlockRef first = LLVMGetNextBasicBlock(g->entry);
  LLVMPositionBuilderAtEnd(g->b, g->entry);
  LLVMBuildBr(g->b, first);
  cg_add_fn_attrs(g->m, g->fn, g->vec_bits);
}

/* The object pointer v points into: v with bitcasts and GEPs stripped. */
static LLVMValueRef underlying_object(LLVMValueRef v) {
  while (v && (LLVMIsABitCastInst(v) || LLVMIsAGetElementPtrInst(v) || LLVMIsAAddrSpaceCastInst(v)))
    v = LLVMGetOperand(v, 0);
  return v;
}

/* Whether o is an object nothing else in the function reaches: a noalias
 * parameter, or a workspace allocation. */
static bool distinct_object(LLVMValueRef o) {
  if (LLVMIsAArgument(o)) {
    LLVMValueRef fn = LLVMGetParamParent(o);
    unsigned kind = LLVMGetEnumAttributeKindForName("noalias", 7);
    for (unsigned i = 0; i < LLVMCountParams(fn); i++)
      if (LLVMGetParam(fn, i) == o) return LLVMGetEnumAttributeAtIndex(fn, i + 1, kind) != NULL;
    return false;
  }
  if (LLVMIsACallInst(o)) {
    LLVMValueRef callee = LLVMGetCalledValue(o);
    size_t len;
    const char *name = callee ? LLVMGetValueName2(callee, &len) : "";
    return !strcmp(name, "tvs_backend_alloc_workspace");
  }
  return false;
}

/* noalias on the parameters of the outlined body that carry a pointer to a
 * distinct object no other parameter carries: the buffers keep the
 * no-aliasing the entry's noalias arguments gave them (without it, the
 * loops of a parallel body lost their vectorization to alias checks).
 * The body is always inlined into the task, which turns the attributes
 * into alias scopes. */
static void mark_noalias_params(CgModule *m, LLVMValueRef body, LLVMValueRef *vals, int n) {
  for (int i = 0; i < n; i++) {
    if (LLVMGetTypeKind(LLVMTypeOf(vals[i])) != LLVMPointerTypeKind) continue;
    LLVMValueRef o = underlying_object(vals[i]);
    bool alone = distinct_object(o);
    for (int j = 0; j < n && alone; j++)
      if (j != i && LLVMGetTypeKind(LLVMTypeOf(vals[j])) == LLVMPointerTypeKind && underlying_object(vals[j]) == o)
        alone = false;
    if (alone) cg_add_enum_attr(m, body, i + 1, "noalias", 0);
  }
}

/* The task `int task(int id, int n, void *closure)`: loads the closure's n
 * fields (of types tys, struct st), computes its chunk of the loop's
 * iterations (ceil(ext / n) each) and returns body(fields..., lo, hi). */
static void emit_task(CgModule *m, LLVMValueRef task, LLVMValueRef body, LLVMTypeRef st, LLVMTypeRef *tys, int n,
                      LLVMTypeRef ety) {
  LLVMBuilderRef tb = LLVMCreateBuilderInContext(m->ctx);
  LLVMPositionBuilderAtEnd(tb, LLVMAppendBasicBlockInContext(m->ctx, task, "entry"));
  LLVMValueRef cp = LLVMBuildBitCast(tb, LLVMGetParam(task, 2), LLVMPointerType(st, 0), "");
  LLVMValueRef *fields = xmalloc((size_t)(n + 2) * sizeof *fields);
  for (int i = 0; i < n; i++) fields[i] = LLVMBuildLoad2(tb, tys[i], LLVMBuildStructGEP2(tb, st, cp, (unsigned)i, ""), "");
  LLVMValueRef text = fields[n - 1];
  LLVMValueRef id = LLVMBuildSExt(tb, LLVMGetParam(task, 0), ety, "");
  LLVMValueRef nt = LLVMBuildSExt(tb, LLVMGetParam(task, 1), ety, "");
  LLVMValueRef one = LLVMConstInt(ety, 1, 0);
  LLVMValueRef chunk = LLVMBuildSDiv(tb, LLVMBuildSub(tb, LLVMBuildAdd(tb, text, nt, ""), one, ""), nt, "");
  LLVMValueRef lo = LLVMBuildMul(tb, id, chunk, "");
  LLVMValueRef hi = LLVMBuildAdd(tb, lo, chunk, "");
  fields[n] = lo;
  fields[n + 1] = LLVMBuildSelect(tb, LLVMBuildICmp(tb, LLVMIntSLT, hi, text, ""), hi, text, "");
  LLVMBuildRet(tb, LLVMBuildCall2(tb, LLVMGlobalGetValueType(body), body, fields, (unsigned)n + 2, ""));
  LLVMDisposeBuilder(tb);
  free(fields);
  cg_add_fn_attrs(m, task, 0);
}

/* A parallel loop: outline the body into a task over a chunk of iterations. */
static void parallel_loop(CgFn *f, const TirStmt *s, LLVMValueRef min, LLVMValueRef ext) {
  CgModule *m = f->m;
  LLVMBuilderRef b = f->b;
  /* the closure: every distinct visible value, then min and extent;
   * field[i] is the field of binding i */
  int nv = f->nvars;
  int *field = xmalloc((size_t)(nv ? nv : 1) * sizeof *field);
  LLVMValueRef *vals = xmalloc((size_t)(nv + 2) * sizeof *vals);
  int n = 0;
  for (int i = 0; i < nv; i++) {
    int k = 0;
    while (k < n && vals[k] != f->vars[i].val) k++;
    if (k == n) vals[n++] = f->vars[i].val;
    field[i] = k;
  }
  vals[n++] = min;
  vals[n++] = ext;
  LLVMTypeRef *tys = xmalloc((size_t)n * sizeof *tys);
  for (int i = 0; i < n; i++) tys[i] = LLVMTypeOf(vals[i]);
  LLVMTypeRef st = LLVMStructTypeInContext(m->ctx, tys, (unsigned)n, 0);
  LLVMValueRef clo = entry_alloca(f, st, 64, "closure");
  for (int i = 0; i < n; i++) LLVMBuildStore(b, vals[i], LLVMBuildStructGEP2(b, st, clo, (unsigned)i, ""));
  /* the task function: loads the closure, computes its chunk and calls the body */
  char name[256];
  snprintf(name, sizeof name, "%s.par%d", f->name, m->ntasks++);
  LLVMTypeRef ps[3] = {m->i32, m->i32, m->i8p};
  LLVMValueRef task = LLVMAddFunction(m->mod, name, LLVMFunctionType(m->i32, ps, 3, 0));
  LLVMSetLinkage(task, LLVMInternalLinkage);
  LLVMTypeRef ety = LLVMTypeOf(ext);
  LLVMTypeRef *bps = xmalloc((size_t)(n + 2) * sizeof *bps);
  memcpy(bps, tys, (size_t)n * sizeof *tys);
  bps[n] = bps[n + 1] = ety;
  char bname[300];
  snprintf(bname, sizeof bname, "%s.body", name);
  LLVMValueRef body = LLVMAddFunction(m->mod, bname, LLVMFunctionType(m->i32, bps, (unsigned)n + 2, 0));
  LLVMSetLinkage(body, LLVMInternalLinkage);
  cg_add_enum_attr(m, body, (int)LLVMAttributeFunctionIndex, "alwaysinline", 0);
  mark_noalias_params(m, body, vals, n);
  emit_task(m, task, body, st, tys, n, ety);
  free(bps);
  /* the body: the chunk's iterations */
  CgFn g;
  memset(&g, 0, sizeof g);
  g.m = m;
  g.b = LLVMCreateBuilderInContext(m->ctx);
  g.fn = body;
  g.entry = LLVMAppendBasicBlockInContext(m->ctx, body, "entry");
  g.arith = f->arith;
  g.name = f->name;
  g.parallel_depth = f->parallel_depth + 1;
  LLVMPositionBuilderAtEnd(g.b, LLVMAppendBasicBlockInContext(m->ctx, body, "body"));
  for (int i = 0; i < nv; i++) cg_bind(&g, f->vars[i].var, LLVMGetParam(body, (unsigned)field[i]));
  LLVMValueRef tmin = LLVMGetParam(body, (unsigned)n - 2);
  free(field);
  free(vals);
  counted_loop(&g, s, tmin, LLVMGetParam(body, (unsigned)n), LLVMGetParam(body, (unsigned)n + 1));
  LLVMBuildRet(g.b, LLVMConstInt(m->i32, 0, 0));
  finish_fn(&g);
  if (g.vec_bits > f->vec_bits) f->vec_bits = g.vec_bits;
  if (g.failed) f->failed = true;
  LLVMDisposeBuilder(g.b);
  free(g.vars);
  free(g.live_ws);
  free(tys);
  /* the launch */
  LLVMTypeRef lps[3] = {LLVMPointerType(LLVMFunctionType(m->i32, ps, 3, 0), 0), m->i8p, m->i32};
  LLVMValueRef launch = cg_runtime_fn(m, "tvs_parallel_launch", LLVMFunctionType(m->i32, lps, 3, 0));
  LLVMValueRef args[3] = {task, LLVMBuildBitCast(b, clo, m->i8p, ""), LLVMConstInt(m->i32, 0, 0)};
  check_rc(f, build_call(f, launch, args, 3));
}

static void for_stmt(CgFn *f, const TirStmt *s) {
  if (!tir_for_trivial_step(s)) { /* canonicalize-loop removes steps before codegen */
    cg_fail(f, s->span, NULL, "codegen: loop '%s' has a step: run the canonicalize-loop stage first",
            s->loop.var->name);
    return;
  }
  LLVMValueRef min = cg_expr(f, s->loop.min), ext = cg_expr(f, s->loop.extent);
  LLVMTypeRef vt = cg_reg_type(f->m, s->loop.var->dtype);
  if (LLVMTypeOf(min) != vt) min = cg_convert(f, min, s->loop.min->dtype, s->loop.var->dtype);
  if (LLVMTypeOf(ext) != vt) ext = cg_convert(f, ext, s->loop.extent->dtype, s->loop.var->dtype);
  arith_push(f->arith);
  arith_bind_range(f->arith, s->loop.var, s->loop.min, s->loop.extent);
  if (s->loop.kind == TIR_FOR_PARALLEL && f->parallel_depth == 0)
    parallel_loop(f, s, min, ext);
  else
    counted_loop(f, s, min, LLVMConstInt(vt, 0, 0), ext);
  arith_pop(f->arith);
}

/* ------------------------------------------------------------ allocations */

/* Storage for `var` of nbytes (i64) bytes: runs body with var bound. */
static void with_storage(CgFn *f, const TirVar *var, DType dt, const TirExpr *extent, const TirStmt *body) {
  CgModule *m = f->m;
  LLVMBuilderRef b = f->b;
  size_t esz = dt_bytes(dt_element(dt)) * (dt.lanes ? dt.lanes : 1);
  int64_t n;
  LLVMValueRef p8;
  bool heap = true;
  if (tir_is_const_int(extent, &n) && n >= 0 && (uint64_t)n * esz <= CG_MAX_STACK_ALLOC) {
    size_t bytes = (size_t)n * esz;
    LLVMTypeRef at = LLVMArrayType(m->i8, (unsigned)(bytes ? bytes : 1));
    p8 = LLVMBuildBitCast(b, entry_alloca(f, at, 64, var->name), m->i8p, "");
    memset_zero(f, p8, LLVMConstInt(m->i64, bytes, 0), 64);
    heap = false;
  } else {
    LLVMValueRef e = cg_expr(f, extent);
    e = cg_convert(f, e, extent->dtype, dt_int64);
    LLVMValueRef nbytes = LLVMBuildMul(b, e, LLVMConstInt(m->i64, esz, 0), "");
    LLVMTypeRef aps[2] = {m->i64, m->i64};
    LLVMValueRef alloc = cg_runtime_fn(m, "tvs_backend_alloc_workspace", LLVMFunctionType(m->i8p, aps, 2, 0));
    LLVMValueRef args[2] = {nbytes, LLVMConstInt(m->i64, 64, 0)};
    p8 = build_call(f, alloc, args, 2);
    LLVMValueRef isnull = LLVMBuildIsNull(b, p8, "");
    LLVMBasicBlockRef fail = new_block(f, "oom"), ok = new_block(f, "alloc.ok");
    LLVMBuildCondBr(b, isnull, fail, ok);
    LLVMPositionBuilderAtEnd(b, fail);
    ret_fail(f);
    LLVMPositionBuilderAtEnd(b, ok);
    memset_zero(f, p8, nbytes, 64);
    VEC_PUSH(f->live_ws, f->nlive_ws, f->caplive_ws, p8);
  }
  int mark = f->nvars;
  cg_bind(f, var, p8);
  cg_stmt(f, body);
  f->nvars = mark;
  if (heap) {
    f->nlive_ws--;
    LLVMValueRef fr = cg_runtime_fn(m, "tvs_backend_free_workspace", LLVMFunctionType(m->i32, &m->i8p, 1, 0));
    build_call(f, fr, &p8, 1);
  }
}

static void allocate(CgFn *f, const TirStmt *s) {
  if (s->alloc.n != 1) {
    cg_fail(f, s->span, NULL, "codegen: allocation '%s' is not flattened to one extent", s->alloc.var->name);
    return;
  }
  with_storage(f, s->alloc.var, s->alloc.dtype, s->alloc.extents[0], s->alloc.body);
}

/* T.allocate_const: storage whose body starts by storing the data. */
static void allocate_const(CgFn *f, const TirStmt *s) {
  if (s->alloc.n != 1) {
    cg_fail(f, s->span, NULL, "codegen: allocation '%s' is not flattened to one extent", s->alloc.var->name);
    return;
  }
  IrHeap *h = arith_heap(f->arith);
  TirExpr *ext = tir_i32(h, s->alloc.ndata);
  TirBuffer *flat = tir_buffer(h, s->alloc.var->name, s->alloc.dtype, &ext, 1, "global");
  flat->data = s->alloc.var;
  TirStmt **seq = ir_alloc(h, (size_t)(s->alloc.ndata + 1) * sizeof *seq);
  for (int i = 0; i < s->alloc.ndata; i++) {
    TirExpr *idx = tir_i32(h, i);
    seq[i] = tir_store(h, flat, s->alloc.data[i], &idx, 1);
  }
  seq[s->alloc.ndata] = s->alloc.body;
  with_storage(f, s->alloc.var, s->alloc.dtype, s->alloc.extents[0], tir_seq(h, seq, s->alloc.ndata + 1));
}

static void decl_buffer(CgFn *f, const TirStmt *s) {
  const TirBuffer *buf = s->decl.buf;
  if (cg_lookup(f, buf->data)) {
    cg_stmt(f, s->decl.body);
    return;
  }
  /* T.decl_buffer without data: it owns zeroed storage of its (flat) size */
  IrHeap *h = arith_heap(f->arith);
  TirExpr *n = tir_int(h, dt_int64, 1);
  for (int d = 0; d < buf->ndim; d++)
    n = tir_binary(h, TIR_MUL, n, tir_cast(h, dt_int64, buf->shape[d]));
  TirExpr *folded = arith_simplify(f->arith, n);
  with_storage(f, buf->data, buf->dtype, folded, s->decl.body);
}

/* A thread launch on the CPU (no threads): a serial loop over the thread
 * index, as the interpreter runs it; a relaunch of a bound thread is that index. */
static void attr_stmt(CgFn *f, const TirStmt *s) {
  const TirVar *v = s->attr.node;
  bool launch = v && v->thread_tag &&
                (!strcmp(s->attr.key, "thread_extent") || !strcmp(s->attr.key, "virtual_thread"));
  if (!launch || cg_lookup(f, v)) {
    cg_stmt(f, s->attr.body);
    return;
  }
  IrHeap *h = arith_heap(f->arith);
  TirStmt *loop = tir_for(h, (TirVar *)v, tir_int(h, v->dtype, 0), s->attr.value, TIR_FOR_SERIAL, NULL,
                          NULL, s->attr.body);
  loop->span = s->span;
  for_stmt(f, loop);
}

/* ------------------------------------------------------------ statements */

static void if_stmt(CgFn *f, const TirStmt *s) {
  LLVMBuilderRef b = f->b;
  LLVMValueRef c = cg_truth(f, cg_expr(f, s->ifs.cond), s->ifs.cond->dtype);
  if (LLVMGetTypeKind(LLVMTypeOf(c)) == LLVMVectorTypeKind) {
    cg_fail(f, s->span, NULL, "codegen: the condition of an if must be a scalar");
    return;
  }
  LLVMBasicBlockRef bt = new_block(f, "if.then"), done = new_block(f, "if.end");
  LLVMBasicBlockRef be = s->ifs.else_s ? new_block(f, "if.else") : done;
  LLVMBuildCondBr(b, c, bt, be);
  LLVMPositionBuilderAtEnd(b, bt);
  cg_stmt(f, s->ifs.then_s);
  LLVMBuildBr(b, done);
  if (s->ifs.else_s) {
    LLVMPositionBuilderAtEnd(b, be);
    cg_stmt(f, s->ifs.else_s);
    LLVMBuildBr(b, done);
  }
  LLVMMoveBasicBlockAfter(done, LLVMGetInsertBlock(b));
  LLVMPositionBuilderAtEnd(b, done);
}

static void assert_stmt(CgFn *f, const TirStmt *s) {
  CgModule *m = f->m;
  LLVMBuilderRef b = f->b;
  LLVMValueRef c = cg_truth(f, cg_expr(f, s->assrt.cond), s->assrt.cond->dtype);
  LLVMBasicBlockRef fail = new_block(f, "assert.fail"), ok = new_block(f, "assert.ok");
  LLVMBuildCondBr(b, c, ok, fail);
  LLVMPositionBuilderAtEnd(b, fail);
  if (s->assrt.msg && s->assrt.msg->kind != TIR_STR && dt_is_handle(s->assrt.msg->dtype)) {
    /* a computed message (the --bounds-check checks): "func: " + its text */
    LLVMValueRef args[3] = {cg_const_string(m, "%s: %s"), cg_const_string(m, f->name), cg_expr(f, s->assrt.msg)};
    LLVMValueRef set = cg_runtime_fn(m, "tvs_set_last_error", LLVMFunctionType(m->voidt, &m->i8p, 1, 1));
    build_call(f, set, args, 3);
    ret_fail(f);
    LLVMPositionBuilderAtEnd(b, ok);
    cg_stmt(f, s->assrt.body);
    return;
  }
  char *msg = s->assrt.msg && s->assrt.msg->kind == TIR_STR
                  ? xasprintf("%s: assertion failed: %s", f->name, s->assrt.msg->str)
                  : xasprintf("%s: assertion failed", f->name);
  LLVMValueRef set = cg_runtime_fn(m, "tvs_set_last_error_str", LLVMFunctionType(m->voidt, &m->i8p, 1, 0));
  LLVMValueRef str = cg_const_string(m, msg);
  free(msg);
  build_call(f, set, &str, 1);
  ret_fail(f);
  LLVMPositionBuilderAtEnd(b, ok);
  cg_stmt(f, s->assrt.body);
}

static void while_stmt(CgFn *f, const TirStmt *s) {
  LLVMBuilderRef b = f->b;
  LLVMBasicBlockRef head = new_block(f, "while.head"), body = new_block(f, "while.body"),
                    exit = new_block(f, "while.end");
  LLVMBuildBr(b, head);
  LLVMPositionBuilderAtEnd(b, head);
  LLVMValueRef c = cg_truth(f, cg_expr(f, s->loop_while.cond), s->loop_while.cond->dtype);
  LLVMBuildCondBr(b, c, body, exit);
  LLVMPositionBuilderAtEnd(b, body);
  cg_stmt(f, s->loop_while.body);
  LLVMBuildBr(b, head);
  LLVMPositionBuilderAtEnd(b, exit);
}

void cg_stmt(CgFn *f, const TirStmt *s) {
  if (!s || f->failed) return;
  if (f->m->device_stmt && f->m->device_stmt(f, s)) return;
  switch (s->kind) {
    case TIR_S_STORE: cg_store(f, s); break;
    case TIR_S_SEQ:
      for (int i = 0; i < s->seq.n; i++) cg_stmt(f, s->seq.stmts[i]);
      break;
    case TIR_S_FOR: for_stmt(f, s); break;
    case TIR_S_IF: if_stmt(f, s); break;
    case TIR_S_LET: {
      LLVMValueRef v = cg_expr(f, s->let.value);
      int mark = f->nvars;
      cg_bind(f, s->let.var, v);
      arith_push(f->arith);
      if (s->let.value->dtype.lanes == 1) arith_bind_value(f->arith, s->let.var, s->let.value);
      cg_stmt(f, s->let.body);
      arith_pop(f->arith);
      f->nvars = mark;
      break;
    }
    case TIR_S_EVAL: (void)cg_expr(f, s->eval.value); break;
    case TIR_S_ASSERT: assert_stmt(f, s); break;
    case TIR_S_WHILE: while_stmt(f, s); break;
    case TIR_S_ALLOCATE: allocate(f, s); break;
    case TIR_S_ALLOCATE_CONST: allocate_const(f, s); break;
    case TIR_S_DECL_BUFFER: decl_buffer(f, s); break;
    case TIR_S_ATTR: attr_stmt(f, s); break;
    case TIR_S_BLOCK: case TIR_S_BLOCK_REALIZE:
      cg_fail(f, s->span, NULL, "codegen: blocks must be lowered first (run tir_lower)");
      break;
    default:
      cg_fail(f, s->span, NULL, "codegen: cannot compile a %s statement", tir_stmt_kind_name(s->kind));
  }
}

void cg_finish_fn(CgFn *f) { finish_fn(f); }

void cg_check_rc(CgFn *f, LLVMValueRef rc) { check_rc(f, rc); }

LLVMValueRef cg_entry_alloca(CgFn *f, LLVMTypeRef ty, unsigned align, const char *name) {
  return entry_alloca(f, ty, align, name);
}

LLVMValueRef cg_ret_value(CgFn *f, const TirExpr *e) {
  CgModule *m = f->m;
  const TirExpr *a = e->call.args[0];
  LLVMTypeRef ty = cg_reg_type(m, a->dtype);
  if (!f->ret_slot || f->parallel_depth > 0 || dt_bytes(a->dtype) > CG_RET_SLOT_BYTES)
    return cg_fail(f, e->span, ty, "codegen: T.ret here is not supported (only in a prim_func with a "
                   "return type, outside parallel loops)");
  LLVMValueRef v = cg_expr(f, a);
  LLVMBuildStore(f->b, v, LLVMBuildBitCast(f->b, f->ret_slot, LLVMPointerType(ty, 0), ""));
  for (int i = f->nlive_ws - 1; i >= 0; i--) {
    LLVMValueRef fr = cg_runtime_fn(m, "tvs_backend_free_workspace", LLVMFunctionType(m->i32, &m->i8p, 1, 0));
    build_call(f, fr, &f->live_ws[i], 1);
  }
  LLVMBuildRet(f->b, LLVMConstInt(m->i32, 0, 0));
  LLVMPositionBuilderAtEnd(f->b, new_block(f, "after.ret"));
  return v;
}
