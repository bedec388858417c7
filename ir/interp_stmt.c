/* interp_stmt.c - the reference interpreter: statements and prim_func calls.
 *
 * Runs every loop kind serially, realizes blocks with TVM's semantics (skip on
 * a false T.where, run T.init when all reduce iters sit at their domain's
 * minimum, zeroed alloc_buffers freed at block exit, match_buffer views), and
 * binds prim_func params to DLTensors with dtype/rank/shape checks. */
#include "ir/interp_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "runtime/tvs_runtime.h"

/* ------------------------------------------------------------- dtypes */

DLDataType interp_dl_dtype(DType t) {
  DLDataType d = {kDLInt, t.bits, t.lanes};
  switch (t.code) {
    case DT_INT: d.code = kDLInt; break;
    case DT_UINT: d.code = kDLUInt; break;
    case DT_FLOAT: d.code = kDLFloat; break;
    case DT_BFLOAT: d.code = kDLBfloat; break;
    case DT_BOOL: d.code = kDLBool; d.bits = 8; break;
    default: d.code = kDLOpaqueHandle; break;
  }
  return d;
}

bool interp_dl_matches(DType t, DLDataType d) {
  if (t.lanes != d.lanes) return false;
  if (t.code == DT_BOOL)
    return d.bits == 8 && (d.code == kDLBool || d.code == kDLUInt);
  DLDataType w = interp_dl_dtype(t);
  return w.code == d.code && w.bits == d.bits;
}

/* ------------------------------------------------------------ storage */

/* Elements a view reaches: elem_offset + sum((shape-1)*stride) + 1, or 0. */
static int view_extent(Interp *in, const IView *v, size_t *nbytes) {
  int64_t hi = v->elem_offset;
  bool ovf = false;
  for (int i = 0; i < v->ndim; i++) {
    if (v->shape[i] == 0) {
      *nbytes = 0;
      return 0;
    }
    int64_t t;
    if (v->strides[i] < 0)
      return interp_error(in, v->buf->span, "buffer '%s' has a negative stride", v->buf->name);
    ovf |= __builtin_mul_overflow(v->shape[i] - 1, v->strides[i], &t);
    ovf |= __builtin_add_overflow(hi, t, &hi);
  }
  ovf |= __builtin_add_overflow(hi, 1, &hi);
  uint64_t n;
  ovf |= hi < 0 || __builtin_mul_overflow((uint64_t)hi, (uint64_t)v->esz, &n);
  if (ovf || n > ((uint64_t)1 << 40))
    return interp_error(in, v->buf->span, "buffer '%s' is too large to allocate", v->buf->name);
  *nbytes = (size_t)n;
  return 0;
}

/* Allocates zeroed storage for buffer b and pushes it with its view. */
static int alloc_buffer(Interp *in, const TirBuffer *b) {
  IView v;
  size_t nbytes;
  if (interp_make_view(in, b, -1, &v) || view_extent(in, &v, &nbytes)) return -1;
  void *p = calloc(nbytes ? nbytes : 1, 1);
  if (!p)
    return interp_error(in, b->span, "cannot allocate %zu bytes for buffer '%s'", nbytes,
                        b->name);
  v.storage = interp_push_storage(in, b->data, p, nbytes, true);
  interp_push_view(in, &v);
  return 0;
}

/* `B = T.match_buffer(A[r0, r1, ...], shape)` inside a block: a view of A's
 * storage whose element 0 is the region's first element, with A's strides on
 * the trailing dimensions. */
static int match_buffer(Interp *in, const TirMatchBuffer *mb) {
  const TirBufferRegion *r = &mb->source;
  const TirBuffer *b = mb->buffer;
  IView *src;
  if (interp_view(in, r->buffer, &src)) return -1;
  IView sv = *src; /* copy: pushing views below may move the array */
  if (r->n != sv.ndim)
    return interp_error(in, b->span, "match_buffer region of '%s' has %d ranges for %d dimensions",
                        r->buffer->name, r->n, sv.ndim);
  if (b->ndim > sv.ndim || b->ndim > INTERP_MAX_DIMS)
    return interp_error(in, b->span, "match_buffer '%s' has more dimensions than its source '%s'",
                        b->name, r->buffer->name);
  int64_t off = sv.elem_offset, mins[INTERP_MAX_DIMS], exts[INTERP_MAX_DIMS];
  for (int i = 0; i < r->n; i++) {
    if (interp_eval_int(in, r->ranges[i].min, &mins[i]) ||
        interp_eval_int(in, r->ranges[i].extent, &exts[i]))
      return -1;
    if (mins[i] < 0 || exts[i] < 0 || mins[i] > sv.shape[i] - exts[i])
      return interp_error(in, b->span,
                          "match_buffer region [%lld, %lld) of dimension %d is outside buffer '%s' "
                          "of extent %lld",
                          (long long)mins[i], (long long)(mins[i] + exts[i]), i, r->buffer->name,
                          (long long)sv.shape[i]);
    off += mins[i] * sv.strides[i];
  }
  int lead = sv.ndim - b->ndim;
  IView v;
  memset(&v, 0, sizeof v);
  v.buf = b;
  v.ndim = b->ndim;
  v.esz = dt_bytes(b->dtype);
  v.elem_offset = off;
  for (int i = 0; i < b->ndim; i++) {
    const TirExpr *se = b->shape[i];
    if (se->kind == TIR_VAR && !interp_lookup(in, se->var)) interp_bind_int(in, se->var, exts[lead + i]);
    if (interp_eval_int(in, se, &v.shape[i])) return -1;
    v.strides[i] = sv.strides[lead + i];
    if (b->strides && b->nstrides == b->ndim && b->strides[i]->kind == TIR_VAR &&
        !interp_lookup(in, b->strides[i]->var))
      interp_bind_int(in, b->strides[i]->var, v.strides[i]);
  }
  if (b->elem_offset && b->elem_offset->kind == TIR_VAR && !interp_lookup(in, b->elem_offset->var))
    interp_bind_int(in, b->elem_offset->var, off);
  const IStorage *s = &in->stores[sv.storage];
  v.storage = interp_push_storage(in, b->data, s->data, s->nbytes, false);
  interp_push_view(in, &v);
  return 0;
}

/* --------------------------------------------------------- statements */

static int eval_cond(Interp *in, const TirExpr *e, bool *out) {
  IVal v;
  if (interp_eval(in, e, &v)) return -1;
  if (v.t.lanes != 1) return interp_error(in, e->span, "condition must be a scalar");
  *out = dt_is_float(v.t) ? v.v[0].f != 0 : v.v[0].u != 0;
  return 0;
}

static int exec_for(Interp *in, const TirStmt *s) {
  if (in->race) {
    int r = interp_race_for(in, s);
    if (r != 1) return r;
  }
  int64_t min, ext, step = 1;
  if (interp_eval_int(in, s->loop.min, &min) || interp_eval_int(in, s->loop.extent, &ext)) return -1;
  /* TVM's For: v = min; v < min + extent; v += step (extent is the span) */
  if (s->loop.step && interp_eval_int(in, s->loop.step, &step)) return -1;
  if (step <= 0)
    return interp_error(in, s->span, "loop '%s' has step %lld; a loop step must be positive",
                        s->loop.var->name, (long long)step);
  IMark m = interp_mark(in);
  interp_bind_int(in, s->loop.var, min);
  int slot = in->nvars - 1;
  DType t = in->vars[slot].t;
  int rc = 0;
  for (int64_t i = 0; i < ext && rc == 0 && !in->returned; i += step) {
    in->vars[slot].s = interp_normalize_int(t, (uint64_t)min + (uint64_t)i);
    rc = interp_exec(in, s->loop.body);
    if (step >= ext - i) break; /* the last iteration (i + step would pass ext, or overflow) */
  }
  interp_pop(in, m);
  return rc;
}

/* A thread launch (T.launch_thread) runs its body once per thread index, one
 * thread after another, as a thread-bound loop does; a thread launched again
 * inside its own launch (the same env thread) is that one index. */
static int exec_attr(Interp *in, const TirStmt *s) {
  const TirVar *v = s->attr.node;
  bool launch = v && v->thread_tag &&
                (!strcmp(s->attr.key, "thread_extent") || !strcmp(s->attr.key, "virtual_thread"));
  if (!launch || interp_lookup(in, v)) return interp_exec(in, s->attr.body);
  int64_t ext;
  if (interp_eval_int(in, s->attr.value, &ext)) return -1;
  IMark m = interp_mark(in);
  interp_bind_int(in, v, 0);
  int slot = in->nvars - 1;
  int rc = 0;
  for (int64_t i = 0; i < ext && rc == 0; i++) {
    in->vars[slot].s = interp_normalize_int(in->vars[slot].t, (uint64_t)i);
    rc = interp_exec(in, s->attr.body);
  }
  interp_pop(in, m);
  return rc;
}

static int exec_block_realize(Interp *in, const TirStmt *s) {
  const TirBlock *blk = tir_realize_block(s);
  if (s->realize.n != blk->niters)
    return interp_error(in, s->span, "block '%s' has %d iter vars but %d bindings", blk->name,
                        blk->niters, s->realize.n);
  bool pred = true;
  if (s->realize.pred && eval_cond(in, s->realize.pred, &pred)) return -1;
  if (!pred) return 0;
  IMark m = interp_mark(in);
  int rc = 0;
  bool at_init = true;
  for (int i = 0; i < blk->niters && rc == 0; i++) {
    const TirIterVar *iv = &blk->iters[i];
    IVal v;
    rc = interp_eval(in, s->realize.values[i], &v);
    if (rc) break;
    if (v.t.lanes != 1 || (!dt_is_integer(v.t) && !dt_is_bool(v.t))) {
      rc = interp_error(in, s->span, "binding of block iter '%s' is not a scalar integer",
                        iv->var->name);
      break;
    }
    int64_t x = v.t.code == DT_UINT && v.v[0].u > (uint64_t)INT64_MAX ? INT64_MAX : v.v[0].i;
    if (iv->type == TIR_ITER_REDUCE && blk->init) {
      int64_t lo;
      rc = interp_eval_int(in, iv->dom.min, &lo);
      if (x != lo) at_init = false;
    }
    interp_bind_int(in, iv->var, x);
  }
  for (int i = 0; i < blk->nallocs && rc == 0; i++) rc = alloc_buffer(in, blk->allocs[i]);
  for (int i = 0; i < blk->nmatches && rc == 0; i++) rc = match_buffer(in, &blk->matches[i]);
  if (rc == 0 && blk->init && at_init) rc = interp_exec(in, blk->init);
  if (rc == 0 && blk->body) rc = interp_exec(in, blk->body);
  interp_pop(in, m);
  return rc;
}

static int exec_allocate(Interp *in, const TirStmt *s) {
  uint64_t n = dt_bytes(s->alloc.dtype);
  for (int i = 0; i < s->alloc.n; i++) {
    int64_t e;
    if (interp_eval_int(in, s->alloc.extents[i], &e)) return -1;
    if (e < 0 || __builtin_mul_overflow(n, (uint64_t)e, &n) || n > ((uint64_t)1 << 40))
      return interp_error(in, s->span, "cannot allocate '%s': bad or too large extent",
                          s->alloc.var->name);
  }
  bool shared = s->alloc.scope && !strcmp(s->alloc.scope, "shared");
  void *p = shared ? interp_race_shared_storage(in, s->alloc.var, (size_t)n) : NULL;
  bool owned = !p;
  if (!p) p = calloc(n ? (size_t)n : 1, 1);
  if (!p) return interp_error(in, s->span, "cannot allocate %llu bytes", (unsigned long long)n);
  /* T.allocate_const: the memory starts with its data */
  size_t esz = (size_t)dt_bytes(s->alloc.dtype);
  for (int i = 0; i < s->alloc.ndata && (uint64_t)(i + 1) * esz <= n; i++) {
    IVal v;
    if (interp_eval(in, s->alloc.data[i], &v)) {
      if (owned) free(p);
      return -1;
    }
    interp_write_elem(s->alloc.dtype, (char *)p + (size_t)i * esz, v.v[0]);
  }
  IMark m = interp_mark(in);
  interp_push_storage(in, s->alloc.var, p, (size_t)n, owned);
  int rc = s->alloc.body ? interp_exec(in, s->alloc.body) : 0;
  interp_pop(in, m);
  return rc;
}

static int exec_decl_buffer(Interp *in, const TirStmt *s) {
  const TirBuffer *b = s->decl.buf;
  IMark m = interp_mark(in);
  int st = interp_find_storage(in, b->data);
  int rc;
  if (st < 0) {
    rc = alloc_buffer(in, b); /* T.decl_buffer without data=: it owns its memory */
  } else {
    IView v;
    rc = interp_make_view(in, b, st, &v);
    if (rc == 0) interp_push_view(in, &v);
  }
  if (rc == 0 && s->decl.body) rc = interp_exec(in, s->decl.body);
  interp_pop(in, m);
  return rc;
}

static int exec_store(Interp *in, const TirStmt *s) {
  IVal v;
  if (interp_eval(in, s->store.value, &v)) return -1;
  if (!dt_eq(dt_element(v.t), dt_element(s->store.buf->dtype))) {
    char a[DT_STR_MAX], b[DT_STR_MAX];
    return interp_error(in, s->span, "store of a %s value into %s buffer '%s'",
                        dt_str(dt_element(v.t), a), dt_str(s->store.buf->dtype, b),
                        s->store.buf->name);
  }
  return interp_store(in, s, &v);
}

/* A failed check of instrument-bound-checkers: its message call formatted
 * by the runtime function native code calls (the same text). */
static int check_failed(Interp *in, const TirStmt *s) {
  const TirExpr *m = s->assrt.msg;
  int64_t v[2] = {0, 0};
  bool oob = m->call.n == 5 && m->call.args[0]->kind == TIR_STR &&
             !strcmp(m->call.args[0]->str, "tvs_out_of_bounds_message") && m->call.args[1]->kind == TIR_STR &&
             m->call.args[2]->kind == TIR_STR;
  if (oob && (interp_eval_int(in, m->call.args[3], &v[0]) || interp_eval_int(in, m->call.args[4], &v[1])))
    return -1;
  if (oob)
    return interp_error(in, s->span, "%s",
                        tvs_out_of_bounds_message(m->call.args[1]->str, m->call.args[2]->str, v[0], v[1]));
  if (m->call.n == 1 && m->call.args[0]->kind == TIR_STR &&
      !strcmp(m->call.args[0]->str, "tvs_division_by_zero_message"))
    return interp_error(in, s->span, "%s", tvs_division_by_zero_message());
  return interp_error(in, s->span, "assertion failed");
}

int interp_exec(Interp *in, const TirStmt *s) {
  if (!s || in->returned) return 0; /* after T.ret nothing more runs */
  Span saved = in->span;
  if (s->span.file) in->span = s->span;
  int rc = 0;
  switch (s->kind) {
    case TIR_S_STORE:
      rc = exec_store(in, s);
      break;
    case TIR_S_SEQ:
      for (int i = 0; i < s->seq.n && rc == 0; i++) rc = interp_exec(in, s->seq.stmts[i]);
      break;
    case TIR_S_FOR:
      rc = exec_for(in, s);
      break;
    case TIR_S_IF: {
      bool c;
      rc = eval_cond(in, s->ifs.cond, &c);
      if (rc == 0) rc = interp_exec(in, c ? s->ifs.then_s : s->ifs.else_s);
      break;
    }
    case TIR_S_LET: {
      IVal *v = xmalloc(sizeof *v);
      rc = interp_eval(in, s->let.value, v);
      if (rc == 0) {
        IMark m = interp_mark(in);
        interp_bind(in, s->let.var, v);
        rc = interp_exec(in, s->let.body);
        interp_pop(in, m);
      }
      free(v);
      break;
    }
    case TIR_S_EVAL: {
      IVal *v = xmalloc(sizeof *v);
      rc = interp_eval(in, s->eval.value, v);
      free(v);
      break;
    }
    case TIR_S_ASSERT: {
      bool c;
      rc = eval_cond(in, s->assrt.cond, &c);
      if (rc == 0 && !c) {
        if (s->assrt.msg && s->assrt.msg->kind == TIR_CALL)
          rc = check_failed(in, s);
        else if (s->assrt.msg && s->assrt.msg->kind == TIR_STR)
          rc = interp_error(in, s->span, "assertion failed: %s", s->assrt.msg->str);
        else
          rc = interp_error(in, s->span, "assertion failed");
      }
      if (rc == 0) rc = interp_exec(in, s->assrt.body);
      break;
    }
    case TIR_S_WHILE:
      for (;;) {
        bool c;
        rc = eval_cond(in, s->loop_while.cond, &c);
        if (rc || !c) break;
        rc = interp_exec(in, s->loop_while.body);
        if (rc || in->returned) break;
      }
      break;
    case TIR_S_BLOCK_REALIZE:
      rc = exec_block_realize(in, s);
      break;
    case TIR_S_BLOCK:
      rc = interp_error(in, s->span, "block '%s' is not inside a BlockRealize", s->block.name);
      break;
    case TIR_S_ALLOCATE:
    case TIR_S_ALLOCATE_CONST:
      rc = exec_allocate(in, s);
      break;
    case TIR_S_DECL_BUFFER:
      rc = exec_decl_buffer(in, s);
      break;
    case TIR_S_ATTR:
      rc = exec_attr(in, s);
      break;
    default:
      rc = interp_error(in, s->span, "cannot run a %s statement", tir_stmt_kind_name(s->kind));
  }
  in->span = saved;
  return rc;
}

/* ------------------------------------------------------- param binding */

/* The name users know a param by: its buffer's name, else the var's. */
static const char *param_name(const TirFunc *f, int i) {
  return f->buffer_map[i] ? f->buffer_map[i]->name : f->params[i]->name;
}

static int check_dim(Interp *in, const TirFunc *f, int pi, int d, int64_t got, bool bind_only) {
  const TirExpr *e = f->buffer_map[pi]->shape[d];
  const char *an = param_name(f, pi);
  if (e->kind == TIR_VAR) {
    if (!bind_only) return 0;
    IBinding *b = interp_lookup(in, e->var);
    if (!b) {
      interp_bind_int(in, e->var, got);
      in->vars[in->nvars - 1].bound_by = an;
      return 0;
    }
    int64_t want = b->s.i;
    if (want == got) return 0;
    if (b->bound_by)
      return interp_error(in, f->span,
                          "argument '%s': shape[%d] is %lld but the function expects %s = %lld "
                          "(bound by argument '%s')",
                          an, d, (long long)got, e->var->name, (long long)want, b->bound_by);
    return interp_error(in, f->span,
                        "argument '%s': shape[%d] is %lld but the function expects %s = %lld", an,
                        d, (long long)got, e->var->name, (long long)want);
  }
  if (bind_only) return 0;
  int64_t want;
  if (interp_eval_int(in, e, &want)) return -1;
  if (want == got) return 0;
  return interp_error(in, f->span, "argument '%s': shape[%d] is %lld but the function expects %lld",
                      an, d, (long long)got, (long long)want);
}

static int bind_params(Interp *in, const TirFunc *f, InterpArg *args) {
  /* pass 0: scalars, tensor dtype/rank/device, storage */
  for (int i = 0; i < f->nparams; i++) {
    const TirVar *p = f->params[i];
    const TirBuffer *b = f->buffer_map[i];
    const char *an = param_name(f, i);
    DLTensor *t = args[i].tensor;
    if (!b && !dt_is_handle(p->dtype)) {
      if (t) return interp_error(in, f->span, "argument '%s' must be a scalar, not a tensor", an);
      IVal v;
      v.t = dt_element(p->dtype);
      if (dt_is_float(v.t)) v.v[0].f = dt_round_float(v.t, args[i].f);
      else if (dt_is_bool(v.t)) v.v[0].i = args[i].i != 0;
      else v.v[0] = interp_normalize_int(v.t, (uint64_t)args[i].i);
      interp_bind(in, p, &v);
      continue;
    }
    if (!t) return interp_error(in, f->span, "argument '%s' must be a tensor", an);
    if (t->device.device_type != kDLCPU && t->device.device_type != kDLCUDAHost)
      return interp_error(in, f->span, "argument '%s' is not in host memory", an);
    if (!b) { /* a raw handle without a buffer: bind its memory */
      size_t nb = tvs_ndarray_nbytes(t);
      interp_push_storage(in, p, (unsigned char *)t->data + t->byte_offset, nb, false);
      continue;
    }
    char want[DT_STR_MAX], got[32];
    if (!interp_dl_matches(b->dtype, t->dtype))
      return interp_error(in, f->span, "argument '%s': dtype is %s but the function expects %s",
                          an, tvs_dtype_str(t->dtype, got), dt_str(b->dtype, want));
    if (t->ndim != b->ndim)
      return interp_error(in, f->span,
                          "argument '%s': expected a %d-D tensor but got a %d-D tensor", an,
                          b->ndim, t->ndim);
    if (b->ndim > INTERP_MAX_DIMS)
      return interp_error(in, f->span, "argument '%s' has too many dimensions", an);
    for (int d = 0; d < t->ndim; d++)
      if (t->shape[d] < 0) return interp_error(in, f->span, "argument '%s': negative shape", an);
  }
  /* pass 1: bind bare symbolic dims, first binding wins */
  for (int i = 0; i < f->nparams; i++) {
    const TirBuffer *b = f->buffer_map[i];
    if (!b) continue;
    for (int d = 0; d < b->ndim; d++)
      if (check_dim(in, f, i, d, args[i].tensor->shape[d], true)) return -1;
  }
  /* pass 2: every other dim, strides, offset; then the storage and view */
  for (int i = 0; i < f->nparams; i++) {
    const TirBuffer *b = f->buffer_map[i];
    if (!b) continue;
    const DLTensor *t = args[i].tensor;
    const char *an = param_name(f, i);
    for (int d = 0; d < b->ndim; d++)
      if (check_dim(in, f, i, d, t->shape[d], false)) return -1;
    int64_t tstrides[INTERP_MAX_DIMS], s = 1;
    for (int d = b->ndim - 1; d >= 0; d--) {
      tstrides[d] = t->strides ? t->strides[d] : s;
      s *= t->shape[d] ? t->shape[d] : 1;
    }
    if (b->strides && b->nstrides == b->ndim) {
      for (int d = 0; d < b->ndim; d++) {
        const TirExpr *se = b->strides[d];
        if (se->kind == TIR_VAR && !interp_lookup(in, se->var)) {
          interp_bind_int(in, se->var, tstrides[d]);
          continue;
        }
        int64_t want;
        if (interp_eval_int(in, se, &want)) return -1;
        if (want != tstrides[d] && t->shape[d] > 1)
          return interp_error(in, f->span,
                              "argument '%s': stride[%d] is %lld but the function expects %lld",
                              an, d, (long long)tstrides[d], (long long)want);
      }
    } else if (t->strides) {
      int64_t e = 1;
      for (int d = b->ndim - 1; d >= 0; d--) {
        if (t->shape[d] > 1 && t->strides[d] != e)
          return interp_error(in, f->span, "argument '%s' must be a compact (row-major) tensor", an);
        e *= t->shape[d];
      }
    }
    if (b->elem_offset && b->elem_offset->kind == TIR_VAR && !interp_lookup(in, b->elem_offset->var))
      interp_bind_int(in, b->elem_offset->var, 0);
    IView v;
    if (interp_make_view(in, b, -1, &v)) return -1;
    for (int d = 0; d < b->ndim; d++) v.strides[d] = tstrides[d];
    size_t nbytes;
    if (view_extent(in, &v, &nbytes)) return -1;
    if (nbytes && !t->data)
      return interp_error(in, f->span, "argument '%s' has no data", an);
    v.storage = interp_push_storage(in, b->data, (unsigned char *)t->data + t->byte_offset,
                                    nbytes, false);
    interp_push_view(in, &v);
  }
  return 0;
}

static int call_tir(const IrModule *m, const TirFunc *f, const char *name, InterpArg *args, int nargs,
                    DiagCtx *diag, int depth, IRace *race, IVal *ret) {
  Interp in;
  interp_init(&in, m, diag, name, f->span);
  in.depth = depth;
  in.race = race;
  in.ret = ret;
  int rc;
  if (nargs != f->nparams)
    rc = interp_error(&in, f->span, "function '%s' takes %d argument%s but %d %s given", name,
                      f->nparams, f->nparams == 1 ? "" : "s", nargs, nargs == 1 ? "was" : "were");
  else if (nargs > 0 && !args)
    rc = interp_error(&in, f->span, "function '%s': no arguments given", name);
  else
    rc = bind_params(&in, f, args);
  if (rc == 0) rc = interp_exec(&in, f->body);
  interp_cleanup(&in);
  return rc;
}

int interp_call_tir(const IrModule *m, const TirFunc *f, const char *name, InterpArg *args,
                    int nargs, DiagCtx *diag, int depth) {
  return call_tir(m, f, name, args, nargs, diag, depth, NULL, NULL);
}

int interp_call_tir_ret(const IrModule *m, const TirFunc *f, const char *name, InterpArg *args,
                        int nargs, DiagCtx *diag, int depth, IVal *ret) {
  return call_tir(m, f, name, args, nargs, diag, depth, NULL, ret);
}

int interp_call_tir_with(const IrModule *m, const TirFunc *f, const char *name, InterpArg *args, int nargs,
                         DiagCtx *diag, IRace *race) {
  return call_tir(m, f, name, args, nargs, diag, 0, race, NULL);
}

int interp_run_tir(const IrModule *m, const char *name, InterpArg *args, int nargs, DiagCtx *diag) {
  const IrGlobal *g = m && name ? ir_module_lookup(m, name) : NULL;
  if (!g) {
    diag_error(diag, span_none, "no function named '%s' in the module", name ? name : "(null)");
    return -1;
  }
  if (g->kind != IR_FUNC_TIR || !g->tir) {
    diag_error(diag, span_none, "'%s' is a Relax function, not a prim_func", name);
    return -1;
  }
  return interp_call_tir(m, g->tir, name, args, nargs, diag, 0);
}
