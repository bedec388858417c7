/* gpu_split_host_device.c - SplitHostDevice + LowerDeviceKernelLaunch (GPU).
 *
 * Every outermost thread-bound loop nest of a prim_func becomes a kernel
 * prim_func FUNC_kernel (FUNC_kernel_1, ... when there are several) whose
 * params are the data pointers and scalars the nest uses; the host function
 * keeps what surrounds the nests (allocations, serial loops) and calls each
 * kernel as T.call_extern("int32", "FUNC_kernel", args..., extents...), the
 * launch extents in the order of the kernel's "tir.kernel_launch_params"
 * (the kernel's leading loops, which unify-thread-binding made one per
 * thread axis).
 * A statement outside every thread-bound loop is an error (TVM's "Did you
 * forget to bind?"): a GPU target runs nothing on the host but launches. */
#include "ir/transform/xform_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct Split {
  IrHeap *h;
  DiagCtx *diag;
  const char *target;
  const TirFunc *f;     /* the function split */
  const char *fname;    /* its global name */
  PtrVec kernels;       /* the kernels outlined so far (TirFunc *) */
  PtrVec names;         /* and their names (in the heap) */
  int nkernels;
  bool failed;
} Split;

/* ---------------------------------------------------- free vars of a nest */

typedef struct Uses {
  PtrVec vars;     /* free scalar vars and data vars, first use order */
  PtrVec defined;  /* vars defined inside */
} Uses;

static bool pv_has(const PtrVec *v, const void *p) {
  for (int i = 0; i < v->len; i++)
    if (v->items[i] == p) return true;
  return false;
}

static void use_var(Uses *u, const TirVar *var) {
  if (!pv_has(&u->defined, var) && !pv_has(&u->vars, var)) pv_push(&u->vars, (void *)var);
}

static bool uses_pre_expr(TirVisitor *v, const TirExpr *e) {
  if (e->kind == TIR_VAR) use_var(v->ctx, e->var);
  return true;
}

static void uses_def_var(TirVisitor *v, const TirVar *var) {
  Uses *u = v->ctx;
  pv_push(&u->defined, (void *)var);
}

static void uses_buffer(TirVisitor *v, const TirBuffer *b) { use_var(v->ctx, b->data); }

/* ------------------------------------------------------------ the kernel */

/* The launch threads of a kernel: the leading nest of thread loops that
 * unify-thread-binding made (one loop per axis, outermost first). */
typedef struct Launch {
  const char *tags[8];
  TirExpr *extents[8];
  int n;
} Launch;

static Launch launch_threads(const TirStmt *nest) {
  Launch l = {{0}, {0}, 0};
  for (const TirStmt *s = nest; s->kind == TIR_S_FOR && s->loop.kind == TIR_FOR_THREAD_BINDING && l.n < 8;
       s = s->loop.body) {
    l.tags[l.n] = s->loop.thread_tag;
    l.extents[l.n++] = s->loop.extent;
  }
  return l;
}

static DType param_dtype(const TirVar *v) { return v->dtype; }

/* Outlines nest as a kernel and returns the launch statement. */
static TirStmt *outline(Split *sp, TirStmt *nest) {
  IrHeap *h = sp->h;
  Uses u = {{0}, {0}};
  TirVisitor v = {.pre_expr = uses_pre_expr, .def_var = uses_def_var, .use_buffer = uses_buffer,
                  .def_buffer = uses_buffer, .ctx = &u};
  tir_visit_stmt(&v, nest);
  Launch l = launch_threads(nest);
  /* handles first (TVM orders kernel params: buffers, then scalars) */
  int n = u.vars.len;
  TirVar **params = ir_alloc(h, (size_t)(n ? n : 1) * sizeof *params);
  TirExpr **args = ir_alloc(h, (size_t)(n + l.n + 1) * sizeof *args);
  int k = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < n; i++) {
      TirVar *var = u.vars.items[i];
      if (dt_is_handle(param_dtype(var)) != (pass == 0)) continue;
      params[k] = var;
      args[1 + k] = tir_var_ref(h, var);
      k++;
    }
  char name[256];
  if (sp->nkernels == 0) snprintf(name, sizeof name, "%s_kernel", sp->fname);
  else snprintf(name, sizeof name, "%s_kernel_%d", sp->fname, sp->nkernels);
  sp->nkernels++;
  args[0] = tir_str(h, name);
  IrValue **tags = ir_alloc(h, (size_t)(l.n ? l.n : 1) * sizeof *tags);
  for (int i = 0; i < l.n; i++) {
    tags[i] = irv_str(h, l.tags[i]);
    args[1 + n + i] = l.extents[i];
  }
  const char *keys[] = {"global_symbol", "calling_conv", "target", "tir.is_global_func",
                        "tir.kernel_launch_params", "tir.noalias"};
  IrValue *vals[] = {irv_str(h, name), irv_int(h, 2), irv_str(h, sp->target ? sp->target : "cuda"),
                     irv_bool(h, true), irv_array(h, tags, l.n), irv_bool(h, true)};
  TirFunc *kf = tir_func(h, params, NULL, n, nest, irv_dict(h, keys, vals, 6));
  kf->span = sp->f->span;
  pv_push(&sp->kernels, kf);
  pv_push(&sp->names, (void *)ir_strdup(h, name));
  pv_free(&u.vars);
  pv_free(&u.defined);
  TirExpr *call = tir_call(h, dt_int32, &tir_op_table[TIR_OP_CALL_EXTERN], args, 1 + n + l.n);
  return tir_evaluate(h, call);
}

static bool has_thread_loop(const TirStmt *s);

static bool thread_pre(TirVisitor *v, const TirStmt *s) {
  if (s->kind == TIR_S_FOR && s->loop.kind == TIR_FOR_THREAD_BINDING) {
    *(bool *)v->ctx = true;
    v->stop = true;
  }
  return true;
}

static bool has_thread_loop(const TirStmt *s) {
  bool found = false;
  TirVisitor v = {.pre_stmt = thread_pre, .ctx = &found};
  tir_visit_stmt(&v, s);
  return found;
}

/* ------------------------------------------------------------- the host */

static TirStmt *host(Split *sp, TirStmt *s);

static TirStmt *host_body(Split *sp, const TirStmt *s, TirStmt *body) {
  TirStmt *nb = host(sp, body);
  if (nb == body) return (TirStmt *)s;
  TirStmt *c = ir_memdup(sp->h, s, sizeof *s);
  switch (s->kind) {
    case TIR_S_ALLOCATE: c->alloc.body = nb; break;
    case TIR_S_DECL_BUFFER: c->decl.body = nb; break;
    case TIR_S_LET: c->let.body = nb; break;
    case TIR_S_ATTR: c->attr.body = nb; break;
    case TIR_S_ASSERT: c->assrt.body = nb; break;
    case TIR_S_FOR: c->loop.body = nb; break;
    default: break;
  }
  return c;
}

static TirStmt *host(Split *sp, TirStmt *s) {
  if (!s || sp->failed || xf_is_nop(s)) return s;
  switch (s->kind) {
    case TIR_S_FOR:
      if (s->loop.kind == TIR_FOR_THREAD_BINDING) return outline(sp, s);
      if (has_thread_loop(s->loop.body)) return host_body(sp, s, s->loop.body);
      break;
    case TIR_S_SEQ: {
      TirStmt **items = ir_alloc(sp->h, (size_t)s->seq.n * sizeof *items);
      for (int i = 0; i < s->seq.n; i++) items[i] = host(sp, s->seq.stmts[i]);
      return tir_seq(sp->h, items, s->seq.n);
    }
    case TIR_S_ALLOCATE: return host_body(sp, s, s->alloc.body);
    case TIR_S_DECL_BUFFER: return host_body(sp, s, s->decl.body);
    case TIR_S_LET: return host_body(sp, s, s->let.body);
    case TIR_S_ATTR: return host_body(sp, s, s->attr.body);
    case TIR_S_ASSERT: return host_body(sp, s, s->assrt.body);
    default: break;
  }
  diag_error(sp->diag, s->span,
             "'%s' computes outside every thread-bound loop (%s): on target %s bind its outer loops to "
             "blockIdx/threadIdx (Did you forget to bind?)",
             sp->fname, tir_stmt_kind_name(s->kind), sp->target);
  sp->failed = true;
  return s;
}

/* requires: lowered (flattened, no blocks), target a GPU target; ensures:
 * functions with thread-bound loops become a host function of launches and
 * kernels (calling_conv 2); others are kept. */
IrModule *tir_split_host_device(const IrModule *m, const char *target, DiagCtx *diag, bool *changed) {
  IrModule *out = ir_module_derive(m);
  bool ch = false;
  for (int i = 0; i < m->nfuncs; i++) {
    const IrGlobal *g = &m->funcs[i];
    if (g->kind != IR_FUNC_TIR) {
      ir_module_add_relax(out, g->name, g->rx);
      continue;
    }
    if (tir_is_gpu_target(target) && !irv_dict_get(g->tir->attrs, "calling_conv") && !has_thread_loop(g->tir->body) &&
        !xf_is_nop(g->tir->body))
      diag_error(diag, g->tir->span,
                 "'%s' has no loop bound to a GPU thread: on target %s bind its outer loops to blockIdx/threadIdx "
                 "(Did you forget to bind?)", g->name, target);
    if (!tir_is_gpu_target(target) || irv_dict_get(g->tir->attrs, "calling_conv") || !has_thread_loop(g->tir->body)) {
      ir_module_add_tir(out, g->name, g->tir);
      continue;
    }
    Split sp = {out->heap, diag, target, g->tir, g->name, {0}, {0}, 0, false};
    TirStmt *body = host(&sp, g->tir->body);
    ir_module_add_tir(out, g->name, xf_with_body(out->heap, g->tir, body));
    for (int k = 0; k < sp.kernels.len; k++) ir_module_add_tir(out, sp.names.items[k], sp.kernels.items[k]);
    pv_free(&sp.kernels);
    pv_free(&sp.names);
    ch = true;
  }
  if (changed) *changed = ch;
  return out;
}
