/* structural_hash.c - hashes consistent with structural_equal.c (equal => same hash).
 *
 * The walk visits fields in exactly the order the equality compares them, so
 * a bound var or buffer hashes as the index of its definition and renamed
 * copies agree; free vars hash by identity; names and spans are ignored. */
#include "ir/structural_equal.h"
#include "ir/visit.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct SHash {
  IrPtrMap defs;   /* bound var / buffer / relax var -> definition index + 1 */
  uint64_t next;   /* next definition index */
  bool def_mode;   /* unmapped vars met now are definitions */
  bool ignore_gs;  /* leave "global_symbol" out of function attrs */
} SHash;

enum {
  TAG_NULL = 0x6e756c6c, TAG_FREE, TAG_BOUND, TAG_DEF, TAG_EXPR, TAG_STMT, TAG_BUF, TAG_DICT,
  TAG_VALUE, TAG_SINFO, TAG_RX, TAG_FUNC, TAG_ZERO_OFFSET, TAG_NAN
};

static uint64_t fmix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

/* Order-sensitive combination. */
static uint64_t hc(uint64_t h, uint64_t v) {
  return fmix(h * 0x100000001b3ULL ^ (v + 0x9e3779b97f4a7c15ULL));
}

static uint64_t hstr(const char *s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (; s && *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
  return fmix(h);
}

static uint64_t hdt(DType t) { return ((uint64_t)t.code << 32) | ((uint64_t)t.bits << 16) | t.lanes; }

static uint64_t hfloat(double f) {
  if (isnan(f)) return TAG_NAN;
  uint64_t bits;
  memcpy(&bits, &f, sizeof bits);
  return bits;
}

static uint64_t hint_imm(DType t, int64_t v) {
  return hc(hc(hc(TAG_EXPR, TIR_INT), hdt(t)), (uint64_t)v);
}

/* ------------------------------------------------------------ definitions */

static bool lookup(const SHash *s, const void *p, uint64_t *idx) {
  if (!ir_ptrmap_has(&s->defs, p)) return false;
  *idx = (uint64_t)(uintptr_t)ir_ptrmap_get(&s->defs, p) - 1;
  return true;
}

static void define(SHash *s, const void *p) {
  ir_ptrmap_put(&s->defs, p, (void *)(uintptr_t)(++s->next));
}

static uint64_t h_var_def(SHash *s, const TirVar *v) {
  uint64_t idx;
  if (!v) return TAG_NULL;
  if (lookup(s, v, &idx)) return hc(TAG_BOUND, idx);
  define(s, v);
  return hc(TAG_DEF, hdt(v->dtype));
}

static uint64_t h_var_use(SHash *s, const TirVar *v) {
  uint64_t idx;
  if (lookup(s, v, &idx)) return hc(TAG_BOUND, idx);
  if (s->def_mode) return h_var_def(s, v);
  return hc(TAG_FREE, (uint64_t)(uintptr_t)v);
}

/* ------------------------------------------------------------ expressions */

static uint64_t h_expr(SHash *s, const TirExpr *e);
static uint64_t h_buffer_use(SHash *s, const TirBuffer *b);

static uint64_t h_exprs(SHash *s, TirExpr *const *es, int n) {
  uint64_t h = hc(TAG_EXPR, (uint64_t)n);
  for (int i = 0; i < n; i++) h = hc(h, h_expr(s, es[i]));
  return h;
}

static uint64_t h_expr(SHash *s, const TirExpr *e) {
  if (!e) return TAG_NULL;
  if (e->kind == TIR_INT) return hint_imm(e->dtype, e->ival);
  uint64_t h = hc(hc(TAG_EXPR, e->kind), hdt(e->dtype));
  switch (e->kind) {
  case TIR_INT: break;
  case TIR_FLOAT: return hc(h, hfloat(e->fval));
  case TIR_STR: return hc(h, hstr(e->str));
  case TIR_VAR: return hc(h, h_var_use(s, e->var));
  case TIR_ADD: case TIR_SUB: case TIR_MUL: case TIR_DIV: case TIR_MOD: case TIR_FLOORDIV:
  case TIR_FLOORMOD: case TIR_MIN: case TIR_MAX: case TIR_EQ: case TIR_NE: case TIR_LT:
  case TIR_LE: case TIR_GT: case TIR_GE: case TIR_AND: case TIR_OR:
    h = hc(h, h_expr(s, e->bin.a));
    return hc(h, h_expr(s, e->bin.b));
  case TIR_NOT: case TIR_CAST: return hc(h, h_expr(s, e->un.a));
  case TIR_SELECT:
    h = hc(h, h_expr(s, e->sel.cond));
    h = hc(h, h_expr(s, e->sel.t));
    return hc(h, h_expr(s, e->sel.f));
  case TIR_LOAD:
    h = hc(h, h_buffer_use(s, e->load.buf));
    return hc(h, h_exprs(s, e->load.idx, e->load.n));
  case TIR_RAMP:
    h = hc(h, (uint64_t)e->ramp.lanes);
    h = hc(h, h_expr(s, e->ramp.base));
    return hc(h, h_expr(s, e->ramp.stride));
  case TIR_BROADCAST:
    h = hc(h, (uint64_t)e->bcast.lanes);
    return hc(h, h_expr(s, e->bcast.value));
  case TIR_LET:
    h = hc(h, h_expr(s, e->let.value));
    h = hc(h, h_var_def(s, e->let.var));
    return hc(h, h_expr(s, e->let.body));
  case TIR_CALL:
    h = hc(h, hstr(e->call.op ? e->call.op->tvm_name : ""));
    return hc(h, h_exprs(s, e->call.args, e->call.n));
  case TIR_NUM_EXPR_KINDS: break;
  }
  tvs_unreachable();
}

/* ------------------------------------------------------------ attrs */

static uint64_t h_value(SHash *s, const IrValue *v);

/* Unordered: a sum of per-entry hashes.  NULL hashes as the empty dict. */
static uint64_t h_dict(SHash *s, const IrValue *d, const char *skip) {
  if (d && d->kind != IRV_DICT) return h_value(s, d);
  uint64_t sum = 0, n = 0;
  for (int i = 0; d && i < d->n; i++) {
    if (skip && !strcmp(d->keys[i], skip)) continue;
    n++;
    sum += hc(hstr(d->keys[i]), h_value(s, d->items[i]));
  }
  return hc(hc(TAG_DICT, n), sum);
}

static uint64_t h_value(SHash *s, const IrValue *v) {
  if (!v) return TAG_NULL;
  switch (v->kind) {
  case IRV_NONE: return hc(TAG_VALUE, IRV_NONE);
  case IRV_BOOL: return hint_imm(dt_bool, v->i);
  case IRV_INT: return hint_imm(dt_int32, v->i);
  case IRV_FLOAT: return hc(hc(TAG_VALUE, IRV_FLOAT), hfloat(v->f));
  case IRV_STR: return hc(hc(TAG_VALUE, IRV_STR), hstr(v->s));
  case IRV_EXPR: return h_expr(s, v->expr);
  case IRV_BUFFER: return h_buffer_use(s, v->buf);
  case IRV_ARRAY: {
    uint64_t h = hc(hc(TAG_VALUE, IRV_ARRAY), (uint64_t)v->n);
    for (int i = 0; i < v->n; i++) h = hc(h, h_value(s, v->items[i]));
    return h;
  }
  case IRV_DICT: return h_dict(s, v, NULL);
  }
  tvs_unreachable();
}

/* ------------------------------------------------------------ buffers */

static uint64_t h_buffer_def(SHash *s, const TirBuffer *b) {
  uint64_t idx;
  if (!b) return TAG_NULL;
  if (lookup(s, b, &idx)) return hc(TAG_BOUND, idx);
  bool saved = s->def_mode;
  s->def_mode = true;
  uint64_t h = TAG_BUF;
  if (b->data) h = hc(h, h_var_def(s, b->data));
  h = hc(h, hdt(b->dtype));
  h = hc(h, h_exprs(s, b->shape, b->ndim));
  h = hc(h, h_exprs(s, b->strides, b->nstrides));
  const TirExpr *off = b->elem_offset;
  bool zero = !off || (off->kind == TIR_INT && off->ival == 0 && dt_is_integer(off->dtype));
  h = hc(h, zero ? TAG_ZERO_OFFSET : h_expr(s, off));
  h = hc(h, hstr(b->scope && *b->scope ? b->scope : "global"));
  h = hc(h, (uint64_t)(b->data_alignment ? b->data_alignment : 64));
  h = hc(h, (uint64_t)(b->offset_factor ? b->offset_factor : 1));
  h = hc(h, b->auto_broadcast);
  h = hc(h, (uint64_t)b->naxis_separators);
  for (int i = 0; i < b->naxis_separators; i++) h = hc(h, (uint64_t)b->axis_separators[i]);
  s->def_mode = saved;
  define(s, b);
  return h;
}

static uint64_t h_buffer_use(SHash *s, const TirBuffer *b) {
  uint64_t idx;
  if (b && lookup(s, b, &idx)) return hc(TAG_BOUND, idx);
  return h_buffer_def(s, b);
}

static uint64_t h_region(SHash *s, const TirBufferRegion *r) {
  uint64_t h = hc(h_buffer_use(s, r->buffer), (uint64_t)r->n);
  for (int i = 0; i < r->n; i++) {
    h = hc(h, h_expr(s, r->ranges[i].min));
    h = hc(h, h_expr(s, r->ranges[i].extent));
  }
  return h;
}

static uint64_t h_regions(SHash *s, const TirBufferRegion *r, int n) {
  uint64_t h = (uint64_t)n;
  for (int i = 0; i < n; i++) h = hc(h, h_region(s, &r[i]));
  return h;
}

/* ------------------------------------------------------------ statements */

static uint64_t h_stmt(SHash *s, const TirStmt *st);

static uint64_t h_block(SHash *s, const TirBlock *b) {
  uint64_t h = hc(TAG_STMT, (uint64_t)b->niters);
  for (int i = 0; i < b->niters; i++) {
    h = hc(h, h_expr(s, b->iters[i].dom.min));
    h = hc(h, h_expr(s, b->iters[i].dom.extent));
    h = hc(h, (uint64_t)b->iters[i].type);
    h = hc(h, h_var_def(s, b->iters[i].var));
  }
  h = hc(h, (uint64_t)b->nallocs);
  for (int i = 0; i < b->nallocs; i++) h = hc(h, h_buffer_def(s, b->allocs[i]));
  h = hc(h, (uint64_t)b->nmatches);
  for (int i = 0; i < b->nmatches; i++) {
    h = hc(h, h_region(s, &b->matches[i].source));
    h = hc(h, h_buffer_def(s, b->matches[i].buffer));
  }
  h = hc(h, h_dict(s, b->annotations, NULL));
  h = hc(h, h_regions(s, b->reads, b->nreads));
  h = hc(h, h_regions(s, b->writes, b->nwrites));
  h = hc(h, h_stmt(s, b->init));
  return hc(h, h_stmt(s, b->body));
}

static uint64_t h_stmt(SHash *s, const TirStmt *a) {
  if (!a) return TAG_NULL;
  uint64_t h = hc(TAG_STMT, a->kind);
  switch (a->kind) {
  case TIR_S_STORE:
    h = hc(h, h_buffer_use(s, a->store.buf));
    h = hc(h, h_expr(s, a->store.value));
    return hc(h, h_exprs(s, a->store.idx, a->store.n));
  case TIR_S_SEQ:
    h = hc(h, (uint64_t)a->seq.n);
    for (int i = 0; i < a->seq.n; i++) h = hc(h, h_stmt(s, a->seq.stmts[i]));
    return h;
  case TIR_S_FOR:
    h = hc(h, h_expr(s, a->loop.min));
    h = hc(h, h_expr(s, a->loop.extent));
    if (a->loop.step) h = hc(h, h_expr(s, a->loop.step));
    h = hc(h, (uint64_t)a->loop.kind);
    h = hc(h, hstr(a->loop.thread_tag));
    h = hc(h, a->loop.thread_tag != NULL);
    h = hc(h, h_var_def(s, a->loop.var));
    h = hc(h, h_dict(s, a->loop.annotations, NULL));
    return hc(h, h_stmt(s, a->loop.body));
  case TIR_S_IF:
    h = hc(h, h_expr(s, a->ifs.cond));
    h = hc(h, h_stmt(s, a->ifs.then_s));
    return hc(h, h_stmt(s, a->ifs.else_s));
  case TIR_S_LET:
    h = hc(h, h_expr(s, a->let.value));
    h = hc(h, h_var_def(s, a->let.var));
    return hc(h, h_stmt(s, a->let.body));
  case TIR_S_EVAL: return hc(h, h_expr(s, a->eval.value));
  case TIR_S_ASSERT:
    h = hc(h, h_expr(s, a->assrt.cond));
    h = hc(h, h_expr(s, a->assrt.msg));
    return hc(h, h_stmt(s, a->assrt.body));
  case TIR_S_WHILE:
    h = hc(h, h_expr(s, a->loop_while.cond));
    return hc(h, h_stmt(s, a->loop_while.body));
  case TIR_S_BLOCK_REALIZE: {
    const TirStmt *blk = a->realize.block;
    h = hc(h, h_exprs(s, a->realize.values, a->realize.n));
    h = hc(h, h_expr(s, a->realize.pred));
    if (!blk || blk->kind != TIR_S_BLOCK) return hc(h, h_stmt(s, blk));
    return hc(h, h_block(s, &blk->block));
  }
  case TIR_S_BLOCK: return hc(h, h_block(s, &a->block));
  case TIR_S_ALLOCATE:
  case TIR_S_ALLOCATE_CONST:
    h = hc(h, h_dict(s, a->alloc.annotations, NULL));
    h = hc(h, h_exprs(s, a->alloc.data, a->alloc.ndata));
    h = hc(h, hdt(a->alloc.dtype));
    h = hc(h, hstr(a->alloc.scope && *a->alloc.scope ? a->alloc.scope : "global"));
    h = hc(h, h_exprs(s, a->alloc.extents, a->alloc.n));
    h = hc(h, h_var_def(s, a->alloc.var));
    return hc(h, h_stmt(s, a->alloc.body));
  case TIR_S_DECL_BUFFER:
    h = hc(h, h_buffer_def(s, a->decl.buf));
    return hc(h, h_stmt(s, a->decl.body));
  case TIR_S_ATTR:
    h = hc(h, hstr(a->attr.key));
    h = hc(h, h_var_def(s, a->attr.node));
    h = hc(h, h_expr(s, a->attr.value));
    return hc(h, h_stmt(s, a->attr.body));
  case TIR_NUM_STMT_KINDS: break;
  }
  tvs_unreachable();
}

static uint64_t h_tir_func(SHash *s, const TirFunc *f) {
  if (!f) return TAG_NULL;
  uint64_t h = hc(TAG_FUNC, (uint64_t)f->nparams);
  for (int i = 0; i < f->nparams; i++) h = hc(h, h_var_def(s, f->params[i]));
  for (int i = 0; i < f->nparams; i++) {
    const TirBuffer *b = f->buffer_map ? f->buffer_map[i] : NULL;
    h = hc(h, b ? h_buffer_def(s, b) : TAG_NULL);
  }
  h = hc(h, hdt(f->ret_type));
  h = hc(h, h_dict(s, f->attrs, s->ignore_gs ? "global_symbol" : NULL));
  return hc(h, h_stmt(s, f->body));
}

/* ------------------------------------------------------------ relax */

static uint64_t h_sinfo(SHash *s, const RxSInfo *si) {
  if (!si) return TAG_NULL;
  uint64_t h = hc(TAG_SINFO, si->kind);
  switch (si->kind) {
  case RX_SI_OBJECT: case RX_SI_FUNC: return h;
  case RX_SI_PRIM: return hc(h, hdt(si->dtype));
  case RX_SI_TENSOR: h = hc(h, hdt(si->dtype)); __attribute__((fallthrough));
  case RX_SI_SHAPE:
    h = hc(h, (uint64_t)(int64_t)si->ndim);
    h = hc(h, si->shape != NULL);
    return si->shape ? hc(h, h_exprs(s, si->shape, si->ndim)) : h;
  case RX_SI_TUPLE:
    h = hc(h, (uint64_t)si->nfields);
    for (int i = 0; i < si->nfields; i++) h = hc(h, h_sinfo(s, si->fields[i]));
    return h;
  }
  tvs_unreachable();
}

static uint64_t h_sinfo_def(SHash *s, const RxSInfo *si) {
  bool saved = s->def_mode;
  s->def_mode = true;
  uint64_t h = h_sinfo(s, si);
  s->def_mode = saved;
  return h;
}

static uint64_t h_rx_var_def(SHash *s, const RxExpr *v) {
  uint64_t idx;
  if (!v) return TAG_NULL;
  uint64_t h = hc(TAG_DEF, v->kind);
  if (lookup(s, v, &idx)) return hc(h, idx);
  h = hc(h, h_sinfo_def(s, v->sinfo));
  define(s, v);
  return h;
}

static uint64_t h_rx(SHash *s, const RxExpr *e);

static uint64_t h_rx_list(SHash *s, RxExpr *const *es, int n) {
  uint64_t h = (uint64_t)n;
  for (int i = 0; i < n; i++) h = hc(h, h_rx(s, es[i]));
  return h;
}

static uint64_t h_rx(SHash *s, const RxExpr *e) {
  uint64_t idx;
  if (!e) return TAG_NULL;
  uint64_t h = hc(TAG_RX, e->kind);
  switch (e->kind) {
  case RX_VAR: case RX_DATAFLOW_VAR:
    if (lookup(s, e, &idx)) return hc(hc(h, TAG_BOUND), idx);
    return hc(hc(h, TAG_FREE), (uint64_t)(uintptr_t)e);
  case RX_CONST: {
    h = hc(h, hdt(e->cnst.dtype));
    h = hc(h, (uint64_t)e->cnst.ndim);
    for (int i = 0; i < e->cnst.ndim; i++) h = hc(h, (uint64_t)e->cnst.shape[i]);
    h = hc(h, (uint64_t)e->cnst.nbytes);
    const unsigned char *p = e->cnst.data;
    uint64_t d = 0xcbf29ce484222325ULL;
    for (int64_t i = 0; i < e->cnst.nbytes; i++) d = (d ^ p[i]) * 0x100000001b3ULL;
    return hc(h, d);
  }
  case RX_CALL:
    h = hc(h, hstr(e->call.op ? e->call.op->name : e->call.callee ? e->call.callee->gvar.name : ""));
    h = hc(h, h_rx_list(s, e->call.args, e->call.n));
    h = hc(h, h_dict(s, e->call.attrs, NULL));
    h = hc(h, (uint64_t)e->call.nsinfo_args);
    for (int i = 0; i < e->call.nsinfo_args; i++) h = hc(h, h_sinfo(s, e->call.sinfo_args[i]));
    return h;
  case RX_TUPLE: return hc(h, h_rx_list(s, e->tuple.fields, e->tuple.n));
  case RX_TUPLE_GET_ITEM:
    h = hc(h, (uint64_t)e->get.index);
    return hc(h, h_rx(s, e->get.tuple));
  case RX_GLOBAL_VAR: case RX_EXTERN_FUNC: return hc(h, hstr(e->gvar.name));
  case RX_SHAPE_EXPR: return hc(h, h_exprs(s, e->shape.values, e->shape.n));
  case RX_PRIM_VALUE: return hc(h, h_expr(s, e->prim.value));
  case RX_STRING: return hc(h, hstr(e->str.value));
  case RX_IF:
    h = hc(h, h_rx(s, e->ifs.cond));
    h = hc(h, h_rx(s, e->ifs.then_e));
    return hc(h, h_rx(s, e->ifs.else_e));
  case RX_SEQ:
    h = hc(h, (uint64_t)e->seq.nblocks);
    for (int i = 0; i < e->seq.nblocks; i++) {
      const RxBlock *b = &e->seq.blocks[i];
      h = hc(hc(h, b->is_dataflow), (uint64_t)b->n);
      for (int j = 0; j < b->n; j++) {
        h = hc(h, h_rx(s, b->bindings[j].value));
        h = hc(h, b->bindings[j].cast_to ? h_sinfo_def(s, b->bindings[j].cast_to) : TAG_NULL);
        h = hc(h, h_rx_var_def(s, b->bindings[j].var));
      }
    }
    return hc(h, h_rx(s, e->seq.body));
  }
  tvs_unreachable();
}

static uint64_t h_rx_func(SHash *s, const RxFunc *f) {
  if (!f) return TAG_NULL;
  uint64_t h = hc(TAG_FUNC + 1, (uint64_t)f->nparams);
  for (int i = 0; i < f->nparams; i++) h = hc(h, h_rx_var_def(s, f->params[i]));
  const RxSInfo *ret = f->ret_sinfo ? f->ret_sinfo : f->body ? f->body->sinfo : NULL;
  h = hc(h, h_sinfo_def(s, ret));
  h = hc(h, f->is_pure);
  h = hc(h, h_dict(s, f->attrs, s->ignore_gs ? "global_symbol" : NULL));
  return hc(h, h_rx(s, f->body));
}

/* ------------------------------------------------------------ entry points */

uint64_t shash_tir_func(const TirFunc *f, bool ignore_global_symbol) {
  SHash s = {.ignore_gs = ignore_global_symbol};
  uint64_t h = h_tir_func(&s, f);
  ir_ptrmap_free(&s.defs);
  return h;
}

uint64_t shash_relax_func(const RxFunc *f, bool ignore_global_symbol) {
  SHash s = {.ignore_gs = ignore_global_symbol};
  uint64_t h = h_rx_func(&s, f);
  ir_ptrmap_free(&s.defs);
  return h;
}

uint64_t shash_tir_expr(const TirExpr *e) {
  SHash s = {0};
  uint64_t h = h_expr(&s, e);
  ir_ptrmap_free(&s.defs);
  return h;
}

uint64_t shash_tir_stmt(const TirStmt *st) {
  SHash s = {0};
  uint64_t h = h_stmt(&s, st);
  ir_ptrmap_free(&s.defs);
  return h;
}

uint64_t shash_module(const IrModule *m) {
  if (!m) return TAG_NULL;
  uint64_t sum = 0;
  for (int i = 0; i < m->nfuncs; i++) {
    const IrGlobal *g = &m->funcs[i];
    uint64_t fh = g->kind == IR_FUNC_TIR ? shash_tir_func(g->tir, false)
                                         : shash_relax_func(g->rx, false);
    sum += hc(hc(hstr(g->name), g->kind), fh);
  }
  SHash s = {0};
  uint64_t h = hc(hc(TAG_FUNC + 2, (uint64_t)m->nfuncs), sum);
  h = hc(h, h_dict(&s, m->attrs, NULL));
  ir_ptrmap_free(&s.defs);
  return h;
}
