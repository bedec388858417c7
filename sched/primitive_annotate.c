/* primitive_annotate.c - loop kinds and annotations: parallel, vectorize,
 * unroll, bind, annotate, unannotate.
 *
 * parallel / vectorize / bind require every block iter whose binding uses
 * the loop var to be data-parallel (bind to threadIdx.* also allows reduce
 * iters: cross-thread reduction); unroll has no checks. */
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"

/* ------------------------------------------------------ value conversion */

IrValue *sch_val_to_irv(IrHeap *h, const SchVal *v) {
  switch (v->kind) {
    case SV_NONE: return irv_none(h);
    case SV_BOOL: return irv_bool(h, v->i != 0);
    case SV_INT: return irv_int(h, v->i);
    case SV_FLOAT: return irv_float(h, v->f);
    case SV_STR: return irv_str(h, v->s);
    case SV_LIST: {
      IrValue **items = ir_alloc(h, (size_t)(v->n ? v->n : 1) * sizeof *items);
      for (int i = 0; i < v->n; i++) items[i] = sch_val_to_irv(h, &v->items[i]);
      return irv_array(h, items, v->n);
    }
    default: return irv_none(h);
  }
}

SchVal sch_irv_to_val(const IrValue *v) {
  SchVal r = sch_val_none();
  switch (v->kind) {
    case IRV_BOOL: return sch_val_bool(v->i != 0);
    case IRV_INT: return sch_val_int(v->i);
    case IRV_FLOAT: r.kind = SV_FLOAT; r.f = v->f; return r;
    case IRV_STR: return sch_val_str(v->s);
    case IRV_ARRAY:
      r.kind = SV_LIST;
      r.n = v->n;
      r.items = xmalloc((size_t)(v->n ? v->n : 1) * sizeof *r.items);
      for (int i = 0; i < v->n; i++) r.items[i] = sch_irv_to_val(v->items[i]);
      return r;
    default: return r;
  }
}

/* ------------------------------------------------------------ loop kinds */

typedef struct KindCheck {
  Schedule *s;
  const char *prim;
  const TirStmt *loop;
  bool allow_reduce;
  bool failed;
} KindCheck;

static bool check_realize(TirVisitor *v, const TirStmt *st) {
  KindCheck *kc = v->ctx;
  if (st->kind != TIR_S_BLOCK_REALIZE || kc->failed) return !kc->failed;
  const TirBlock *b = tir_realize_block(st);
  for (int k = 0; k < b->niters && k < st->realize.n; k++) {
    TirIterType t = b->iters[k].type;
    if (t == TIR_ITER_SPATIAL || (t == TIR_ITER_REDUCE && kc->allow_reduce)) continue;
    if (!tir_expr_uses_var(st->realize.values[k], kc->loop->loop.var)) continue;
    const char *what = t == TIR_ITER_REDUCE ? "a reduction dependency" : "an ordered dependency";
    const char *tn = t == TIR_ITER_REDUCE ? "reduce" : t == TIR_ITER_SCAN ? "scan" : "opaque";
    sch_fail(kc->s, SCH_ERR_LOOP_KIND, 0,
             "%s: loop '%s' carries %s (block '%s' iter '%s' is a %s iter)", kc->prim,
             sch_loop_name(kc->loop), what, b->name, b->iters[k].var->name, tn);
    kc->failed = true;
    v->stop = true;
    return false;
  }
  return true;
}

static int set_kind(Schedule *s, SchRV rv, const char *prim, TirForKind kind, const char *tag) {
  SchPath p = {0};
  TirStmt *loop = sch_find_loop(s, rv, prim, 0, &p);
  if (!loop) return sch_path_free(&p), -1;
  if (kind != TIR_FOR_UNROLLED) {
    KindCheck kc = {s, prim, loop, tag && !strncmp(tag, "threadIdx.", 10), false};
    TirVisitor v = {0};
    v.pre_stmt = check_realize;
    v.ctx = &kc;
    tir_visit_stmt(&v, loop->loop.body);
    if (kc.failed) return sch_path_free(&p), -1;
    /* TVM's compact data flow: every block under the loop is complete, or a
     * reduction block with affine bindings. */
    const TirBlock *bad = sch_first_non_compact(sch_cur_func(s, s->rvs[rv].func)->body, loop->loop.body);
    if (bad) {
      sch_fail(s, SCH_ERR_DATAFLOW, 0,
               "%s: block '%s' under loop '%s' is neither a complete block nor a reduction block with "
               "affine bindings (the loop's subtree has no compact data flow)",
               prim, bad->name, sch_loop_name(loop));
      return sch_path_free(&p), -1;
    }
  }
  IrModule *nm = sch_begin(s);
  IrHeap *h = nm->heap;
  TirStmt *nl = sch_for_with_body(h, loop, loop->loop.body);
  nl->loop.kind = kind;
  nl->loop.thread_tag = tag ? ir_strdup(h, tag) : NULL;
  TirStmt *root = sch_replace_at(h, &p, p.n - 1, nl);
  sch_path_free(&p);
  sch_commit(s, nm, s->rvs[rv].func, root);
  SchVal args[2] = {sch_val_rv(rv), tag ? sch_val_str(tag) : sch_val_none()};
  sch_record(s, prim, args, tag ? 2 : 1, NULL, 0);
  if (!tag) sch_val_free(&args[1]);
  return 0;
}

int sch_parallel(Schedule *s, SchRV loop) { return set_kind(s, loop, "parallel", TIR_FOR_PARALLEL, NULL); }
int sch_vectorize(Schedule *s, SchRV loop) {
  return set_kind(s, loop, "vectorize", TIR_FOR_VECTORIZED, NULL);
}
int sch_unroll(Schedule *s, SchRV loop) { return set_kind(s, loop, "unroll", TIR_FOR_UNROLLED, NULL); }

int sch_bind(Schedule *s, SchRV loop, const char *axis) {
  static const char *const axes[] = {"blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x",
                                     "threadIdx.y", "threadIdx.z", "vthread.x", "vthread.y",
                                     "vthread.z", "vthread"};
  bool ok = false;
  for (size_t i = 0; i < sizeof axes / sizeof axes[0]; i++) ok |= !strcmp(axes[i], axis);
  if (!ok) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 1,
             "bind: unknown thread axis '%s' (expected blockIdx.x/y/z, threadIdx.x/y/z or "
             "vthread.x/y/z)",
             axis);
    return -1;
  }
  return set_kind(s, loop, "bind", TIR_FOR_THREAD_BINDING, axis);
}

/* ----------------------------------------------------------- annotations */

static int annotate(Schedule *s, SchRV rv, const char *key, const IrValue *val) {
  const char *prim = val ? "annotate" : "unannotate";
  SchPath p = {0};
  bool is_loop = rv >= 0 && rv < s->nrvs && s->rvs[rv].kind == SCH_RV_LOOP;
  TirStmt *st = is_loop ? sch_find_loop(s, rv, prim, 0, &p) : sch_find_block(s, rv, prim, 0, &p);
  if (!st) return sch_path_free(&p), -1;
  IrModule *nm = sch_begin(s);
  IrHeap *h = nm->heap;
  const IrValue *old = is_loop ? st->loop.annotations : tir_realize_block(st)->annotations;
  IrValue *ann = (IrValue *)old;
  if (val && !irv_dict_get(old, key)) {
    SchVal sv = sch_irv_to_val(val);
    ann = irv_dict_set(h, old, key, sch_val_to_irv(h, &sv));
    sch_val_free(&sv);
  } else if (!val && irv_dict_get(old, key)) {
    ann = irv_dict_set(h, old, key, NULL);
    if (ann && ann->n == 0) ann = NULL;
  }
  TirStmt *nw;
  if (is_loop) {
    nw = sch_for_with_body(h, st, st->loop.body);
    nw->loop.annotations = ann;
  } else {
    TirBlock b = *tir_realize_block(st);
    b.annotations = ann;
    nw = sch_realize_with(h, st, &b, NULL, NULL);
  }
  TirStmt *root = sch_replace_at(h, &p, p.n - 1, nw);
  sch_path_free(&p);
  sch_commit(s, nm, s->rvs[rv].func, root);
  SchVal args[3] = {sch_val_rv(rv), sch_val_str(key), sch_val_none()};
  if (val) args[2] = sch_irv_to_val(val);
  sch_record(s, prim, args, val ? 3 : 2, NULL, 0);
  return 0;
}

int sch_annotate(Schedule *s, SchRV rv, const char *key, const IrValue *val) {
  return annotate(s, rv, key, val);
}

int sch_unannotate(Schedule *s, SchRV rv, const char *key) { return annotate(s, rv, key, NULL); }
