/* module.c - IRModule versions. */
#include "ir/module.h"
#include "ir/visit.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

IrModule *ir_module_new(const char *name) {
  IrModule *m = xcalloc(1, sizeof *m);
  m->heap = ir_heap_new();
  m->name = ir_strdup(m->heap, name ? name : "Module");
  return m;
}

IrModule *ir_module_derive(const IrModule *base) {
  IrModule *m = ir_module_new(base->name);
  ir_heap_depend(m->heap, base->heap);
  m->attrs = base->attrs;
  m->implicit = base->implicit;
  return m;
}

IrModule *ir_module_copy(const IrModule *m) {
  IrModule *c = xcalloc(1, sizeof *c);
  *c = *m;
  ir_heap_retain(c->heap);
  c->funcs = m->nfuncs ? xmalloc((size_t)m->nfuncs * sizeof *c->funcs) : NULL;
  if (m->nfuncs) memcpy(c->funcs, m->funcs, (size_t)m->nfuncs * sizeof *c->funcs);
  c->capfuncs = m->nfuncs;
  return c;
}

void ir_module_free(IrModule *m) {
  if (!m) return;
  ir_heap_release(m->heap);
  free(m->funcs);
  free(m);
}

static IrGlobal *push(IrModule *m) {
  VEC_RESERVE(m->funcs, m->capfuncs, m->nfuncs + 1);
  IrGlobal *g = &m->funcs[m->nfuncs++];
  memset(g, 0, sizeof *g);
  return g;
}

void ir_module_add_tir(IrModule *m, const char *name, TirFunc *f) {
  IrGlobal *g = push(m);
  g->name = ir_strdup(m->heap, name);
  g->kind = IR_FUNC_TIR;
  g->tir = f;
}

void ir_module_add_relax(IrModule *m, const char *name, RxFunc *f) {
  IrGlobal *g = push(m);
  g->name = ir_strdup(m->heap, name);
  g->kind = IR_FUNC_RELAX;
  g->rx = f;
}

int ir_module_index(const IrModule *m, const char *name) {
  for (int i = 0; i < m->nfuncs; i++)
    if (!strcmp(m->funcs[i].name, name)) return i;
  return -1;
}

const IrGlobal *ir_module_lookup(const IrModule *m, const char *name) {
  int i = ir_module_index(m, name);
  return i < 0 ? NULL : &m->funcs[i];
}

int ir_module_set_tir(IrModule *m, const char *name, TirFunc *f) {
  int i = ir_module_index(m, name);
  if (i < 0) {
    ir_module_add_tir(m, name, f);
    return m->nfuncs - 1;
  }
  m->funcs[i].kind = IR_FUNC_TIR;
  m->funcs[i].tir = f;
  m->funcs[i].rx = NULL;
  return i;
}

void ir_module_mark_refs(const IrModule *m, const RxExpr *e, bool *keep) {
  if (!e) return;
  switch (e->kind) {
    case RX_GLOBAL_VAR: {
      int k = ir_module_index(m, e->gvar.name);
      if (k >= 0) keep[k] = true;
      return;
    }
    case RX_CALL:
      ir_module_mark_refs(m, e->call.callee, keep);
      for (int i = 0; i < e->call.n; i++) ir_module_mark_refs(m, e->call.args[i], keep);
      return;
    case RX_TUPLE:
      for (int i = 0; i < e->tuple.n; i++) ir_module_mark_refs(m, e->tuple.fields[i], keep);
      return;
    case RX_TUPLE_GET_ITEM: ir_module_mark_refs(m, e->get.tuple, keep); return;
    case RX_IF:
      ir_module_mark_refs(m, e->ifs.cond, keep);
      ir_module_mark_refs(m, e->ifs.then_e, keep);
      ir_module_mark_refs(m, e->ifs.else_e, keep);
      return;
    case RX_SEQ:
      for (int b = 0; b < e->seq.nblocks; b++)
        for (int i = 0; i < e->seq.blocks[b].n; i++) ir_module_mark_refs(m, e->seq.blocks[b].bindings[i].value, keep);
      ir_module_mark_refs(m, e->seq.body, keep);
      return;
    default: return;
  }
}

typedef struct CallMarks {
  const IrModule *m;
  bool *keep;
} CallMarks;

static bool mark_call(TirVisitor *v, const TirExpr *e) {
  const CallMarks *c = v->ctx;
  if (e->kind == TIR_CALL && e->call.op->id == TIR_OP_CALL_GLOBAL && e->call.n > 0 &&
      e->call.args[0]->kind == TIR_STR) {
    int k = ir_module_index(c->m, e->call.args[0]->str);
    if (k >= 0) c->keep[k] = true;
  }
  return true;
}

void ir_module_mark_tir_calls(const IrModule *m, const TirFunc *f, bool *keep) {
  CallMarks c = {m, keep};
  TirVisitor v = {.pre_expr = mark_call, .ctx = &c};
  tir_visit_func(&v, f);
}
