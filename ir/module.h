/* module.h - IRModule: the named functions of both IRs, one immutable version.
 *
 * A module maps global names to prim_funcs and graph functions, in source
 * order.  A module value owns one reference to the IrHeap holding its nodes;
 * transforms build a new module (ir_module_new_version) and never mutate one
 * that has been handed out. */
#ifndef TVS_IR_MODULE_H
#define TVS_IR_MODULE_H

#include "ir/relax.h"
#include "ir/tir.h"

typedef enum IrFuncKind { IR_FUNC_TIR, IR_FUNC_RELAX } IrFuncKind;

typedef struct IrGlobal {
  const char *name;  /* global name (the GlobalVar) */
  IrFuncKind kind;   /* which pointer is set */
  TirFunc *tir;      /* prim_func */
  RxFunc *rx;        /* graph function */
} IrGlobal;

typedef struct IrModule {
  IrHeap *heap;        /* owns (a reference to) all nodes reachable from here */
  const char *name;    /* class name ("Module" for an implicit module) */
  IrGlobal *funcs;     /* functions in source order */
  int nfuncs;
  int capfuncs;
  IrValue *attrs;      /* module attributes or NULL */
  bool implicit;       /* built from bare top-level defs (printed without a class) */
} IrModule;

/* A new empty module with a fresh heap. */
IrModule *ir_module_new(const char *name);
/* A new empty module whose fresh heap depends on `base`'s heap (for transforms
 * that reuse base's nodes); copy the functions you keep with ir_module_add_*. */
IrModule *ir_module_derive(const IrModule *base);
/* A module with the same functions as m (shares m's nodes); cheap. */
IrModule *ir_module_copy(const IrModule *m);
void ir_module_free(IrModule *m);

void ir_module_add_tir(IrModule *m, const char *name, TirFunc *f);
void ir_module_add_relax(IrModule *m, const char *name, RxFunc *f);
/* Replaces (or adds) the function called name; returns its index. */
int ir_module_set_tir(IrModule *m, const char *name, TirFunc *f);
const IrGlobal *ir_module_lookup(const IrModule *m, const char *name);
int ir_module_index(const IrModule *m, const char *name); /* -1 when absent */
/* Marks in keep[] (indexed like m->funcs) every module function graph
 * expression e names (cls.f in R.call_tir, calls of graph functions). */
void ir_module_mark_refs(const IrModule *m, const RxExpr *e, bool *keep);
/* Marks in keep[] every module function prim_func f calls (Module.g(...),
 * the CALL_GLOBAL op). */
void ir_module_mark_tir_calls(const IrModule *m, const TirFunc *f, bool *keep);

#endif
