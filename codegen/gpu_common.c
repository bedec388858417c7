/* gpu_common.c - what the device backends share: which functions are
 * kernels and the element types of their pointer params. */
#include "codegen/gpu_codegen.h"
#include "ir/visit.h"

bool cg_gpu_is_kernel(const IrGlobal *g) {
  if (g->kind != IR_FUNC_TIR) return false;
  const IrValue *cc = irv_dict_get(g->tir->attrs, "calling_conv");
  return cc && cc->kind == IRV_INT && cc->i == 2;
}

typedef struct ElemOf {
  const TirVar *p;
  DType t;
  bool found;
} ElemOf;

static void elem_use(TirVisitor *v, const TirBuffer *b) {
  ElemOf *e = v->ctx;
  if (e->found || b->data != e->p) return;
  e->t = b->dtype;
  e->found = true;
  v->stop = true;
}

DType cg_gpu_param_elem(const TirFunc *f, const TirVar *p) {
  if (!dt_is_void(p->ptr_elem)) return p->ptr_elem;
  ElemOf e = {p, dt_float32, false};
  TirVisitor v = {.use_buffer = elem_use, .def_buffer = elem_use, .ctx = &e};
  tir_visit_stmt(&v, f->body);
  return e.t;
}
