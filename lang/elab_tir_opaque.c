/* elab_tir_opaque.c - TIR builtins TVS does not model, kept as opaque calls.
 *
 * TVM's lowered and GPU programs call builtins that only some targets
 * implement (tensor-core fragments `T.tvm_load_matrix_sync`, PTX builtins,
 * `T.q_multiply_shift`, `T.tvm_access_ptr`, ...).  They elaborate into one
 * Call of the OPAQUE op whose first argument is the builtin's name (a
 * StringImm) and whose dtype is the `dtype=` given or the builtin's usual
 * result type; the printer writes them back as `T.<name>(...)`, and the
 * interpreter and the CPU backend report them as unsupported when asked to
 * run them.  `buffer.access_ptr(mask, ...)` is TVM's sugar for
 * `T.tvm_access_ptr(T.type_annotation(dtype), data, offset, extent, mask)`. */
#include "lang/elab_internal.h"
#include "base/util.h"

#include <string.h>

/* Names TVM's `T.` namespace defines as plain builtin calls. */
static const char *const opaque_names[] = {
    "q_multiply_shift", "q_multiply_shift_per_axis", "address_of", "lookup_param",
    "start_profile_intrinsic", "end_profile_intrinsic", "call_llvm_intrin",
    "call_llvm_pure_intrin", "call_packed", "call_cpacked", "call_packed_lowered",
    "call_cpacked_lowered", "create_barriers", "vectorlow", "vectorhigh", "vectorcombine",
    "dp4a", "atomic_add", "make_filled_simdgroup_matrix", "simdgroup_load", "simdgroup_store",
    "simdgroup_multiply_accumulate", "texture2d_load", "texture2d_store", "isnullptr",
    "anylist_getitem", "anylist_resetitem", "anylist_setitem_call_packed",
    "anylist_setitem_call_cpacked", "get_active_lane_mask", "get_vscale_expr", "undef",
    "call_intrin", "type_annotation", "break_loop", "continue_loop", "TVMBackendAllocWorkspace",
    "TVMBackendFreeWorkspace", "llvm_lookup_intrinsic_id", NULL,
};

/* Name prefixes of TVM's builtin families (tvm_struct_get, ptx_mma, mma_store, ...). */
static const char *const opaque_prefixes[] = {"tvm_", "ptx_", "mma_", NULL};

bool elab_tir_opaque_name(const char *nm) {
  for (int i = 0; opaque_names[i]; i++)
    if (!strcmp(nm, opaque_names[i])) return true;
  for (int i = 0; opaque_prefixes[i]; i++)
    if (!strncmp(nm, opaque_prefixes[i], strlen(opaque_prefixes[i]))) return true;
  return false;
}

static TirExpr *opaque(ElabCtx *c, Span sp, const char *nm, DType t, TirExpr **rest, int n) {
  TirExpr **args = arena_alloc(&c->scratch, (size_t)(n + 1) * sizeof *args);
  args[0] = tir_str(c->h, nm);
  args[0]->span = sp;
  for (int i = 0; i < n; i++) args[i + 1] = rest[i];
  TirExpr *e = tir_call(c->h, t, tir_op_lookup(" opaque"), args, n + 1);
  e->span = sp;
  return e;
}

/* `break` / `continue` in a loop: T.evaluate(T.break_loop()) as TVM's parser
 * writes them (kept opaque: the interpreter and backends refuse them). */
TirExpr *elab_tir_opaque_named(ElabCtx *c, Span sp, const char *nm) {
  return opaque(c, sp, nm, tir_opaque_default_dtype(nm, NULL, 0), NULL, 0);
}

/* A target in a function attribute, `T.target("cuda")`, `T.target("llvm",
 * host="llvm")` (also `tvm.target.Target(...)`): kept as the opaque call
 * T.target(kind[, host]) of strings, printed back as written.  NULL (nothing
 * reported) for a config dict, which TVS does not model. */
TirExpr *elab_tir_target_value(ElabCtx *c, const Ast *call) {
  static const char *const kw[] = {"host", NULL};
  const Ast *a[2] = {elab_posarg(call, 0), elab_posarg(call, 1)};
  if (!a[1]) a[1] = elab_kwarg(call, "host");
  if (!a[0] || a[0]->kind != AST_STR || elab_num_posargs(call) > 2 || (a[1] && a[1]->kind != AST_STR))
    return NULL;
  if (!elab_check_kwargs(c, call, kw)) return NULL;
  TirExpr *args[2];
  int n = a[1] ? 2 : 1;
  for (int i = 0; i < n; i++) {
    args[i] = tir_str(c->h, a[i]->str);
    args[i]->span = a[i]->span;
  }
  return opaque(c, call->span, "target", dt_handle, args, n);
}

/* `T.type_annotation("float32")`: a call with no arguments of that dtype. */
static TirExpr *type_annotation(ElabCtx *c, const Ast *call) {
  static const char *const kw[] = {"dtype", NULL};
  if (!elab_check_kwargs(c, call, kw)) return NULL;
  DType t;
  const Ast *d = elab_num_posargs(call) == 1 ? elab_posarg(call, 0) : elab_kwarg(call, "dtype");
  if (!d || elab_num_posargs(call) > 1) {
    diag_error(c->diag, call->span, "T.type_annotation takes one dtype");
    return NULL;
  }
  if (!elab_dtype_arg(c, d, &t)) return NULL;
  return opaque(c, call->span, "type_annotation", t, NULL, 0);
}

TirExpr *elab_tir_opaque_call(ElabCtx *c, const Ast *call, const char *nm) {
  static const char *const kw[] = {"dtype", NULL};
  if (!strcmp(nm, "type_annotation")) return type_annotation(c, call);
  if (!elab_check_kwargs(c, call, kw)) return NULL;
  int n = elab_num_posargs(call);
  TirExpr **args = arena_alloc(&c->scratch, (size_t)(n ? n : 1) * sizeof *args);
  for (int i = 0; i < n; i++) {
    const Ast *a = elab_posarg(call, i);
    if (a->kind == AST_STR) {
      args[i] = tir_str(c->h, a->str);
      args[i]->span = a->span;
      continue;
    }
    /* T.address_of(A): the address of A's first element, A[0, ..., 0] */
    Sym *bs = !strcmp(nm, "address_of") && a->kind == AST_NAME ? elab_lookup(c, a->name) : NULL;
    if (bs && bs->kind == SYM_BUFFER) {
      TirBuffer *b = bs->ptr;
      TirExpr **zeros = arena_alloc(&c->scratch, (size_t)(b->ndim + 1) * sizeof *zeros);
      for (int d = 0; d < b->ndim; d++) zeros[d] = tir_int(c->h, b->ndim ? b->shape[d]->dtype : dt_int32, 0);
      args[i] = tir_load(c->h, b, zeros, b->ndim);
      args[i]->span = a->span;
      continue;
    }
    TirVal v = elab_tir_val(c, a);
    if (!v.e) return NULL;
    args[i] = v.e;
  }
  DType t = tir_opaque_default_dtype(nm, args, n);
  const Ast *dk = elab_kwarg(call, "dtype");
  if (dk && !elab_dtype_arg(c, dk, &t)) return NULL;
  return opaque(c, call->span, nm, t, args, n);
}

/* The access mask of access_ptr: "r" 1, "w" 2, "rw" 3 (or an integer). */
static bool access_mask(ElabCtx *c, const Ast *a, int64_t *mask) {
  if (a->kind == AST_INT) {
    *mask = a->ival;
    return true;
  }
  if (a->kind == AST_STR && a->str[0] && strspn(a->str, "rw") == strlen(a->str)) {
    *mask = (strchr(a->str, 'r') ? 1 : 0) | (strchr(a->str, 'w') ? 2 : 0);
    return true;
  }
  diag_error(c->diag, a->span, "access_ptr: the access mask must be \"r\", \"w\" or \"rw\"");
  return false;
}

TirExpr *elab_tir_access_ptr(ElabCtx *c, const Ast *call, TirBuffer *buf) {
  static const char *const kw[] = {"access_mask", "ptr_type", "content_lanes", "offset", "extent", NULL};
  if (!elab_check_kwargs(c, call, kw)) return NULL;
  const Ast *ma = elab_num_posargs(call) > 0 ? elab_posarg(call, 0) : elab_kwarg(call, "access_mask");
  int64_t mask;
  if (!ma) {
    diag_error(c->diag, call->span, "access_ptr needs an access mask (\"r\", \"w\" or \"rw\")");
    return NULL;
  }
  if (!access_mask(c, ma, &mask)) return NULL;
  const Ast *oa = elab_kwarg(call, "offset"), *ea = elab_kwarg(call, "extent");
  TirExpr *off = oa ? elab_tir_int_expr(c, oa, dt_int32, "offset") : tir_int(c->h, dt_int32, 0);
  if (!off) return NULL;
  if (buf->elem_offset && !tir_is_zero(buf->elem_offset)) off = tir_binary(c->h, TIR_ADD, buf->elem_offset, off);
  TirExpr *ext;
  if (ea) {
    ext = elab_tir_int_expr(c, ea, dt_int32, "extent");
  } else {
    /* The whole buffer past the offset. */
    ext = buf->ndim ? buf->shape[0] : tir_int(c->h, dt_int32, 1);
    for (int d = 1; d < buf->ndim; d++) ext = tir_binary(c->h, TIR_MUL, ext, buf->shape[d]);
    if (!tir_is_zero(off)) ext = tir_binary(c->h, TIR_SUB, ext, off);
  }
  if (!ext) return NULL;
  TirExpr *args[5];
  args[0] = opaque(c, call->span, "type_annotation", buf->dtype, NULL, 0);
  args[1] = tir_var_ref(c->h, buf->data);
  args[2] = off;
  args[3] = ext;
  args[4] = tir_int(c->h, dt_int32, mask);
  return opaque(c, call->span, "tvm_access_ptr", dt_handle, args, 5);
}
