/* default_schedule_util.c - the helpers the default-schedule rules share
 * (sched/default_schedule_internal.h). */
#include "sched/default_schedule_internal.h"

#include <stdlib.h>
#include <string.h>

#include "ir/visit.h"

/* The statement walks below run on the shared visitor (ir/visit.h). */
typedef struct Walk {
  const char *name;       /* sch_ds_find_realize: the block looked for */
  const TirStmt *found;   /* sch_ds_find_realize: its realize */
  bool scheduled;         /* sch_ds_has_scheduled_loop: a non-serial loop seen */
  const char **names;     /* sch_ds_collect_blocks: block names, pre-order */
  int n, cap;
} Walk;

static bool find_pre(TirVisitor *v, const TirStmt *st) {
  Walk *w = v->ctx;
  if (st->kind == TIR_S_BLOCK_REALIZE && !strcmp(st->realize.block->block.name, w->name)) {
    w->found = st;
    v->stop = true;
  }
  return true;
}

/* The realize of the first block called name under s (pre-order), or NULL. */
static const TirStmt *sch_ds_find_realize(const TirStmt *s, const char *name) {
  Walk w = {.name = name};
  TirVisitor v = {.pre_stmt = find_pre, .ctx = &w};
  if (s) tir_visit_stmt(&v, s);
  return w.found;
}

const TirBlock *sch_ds_find_block(const TirFunc *f, const char *name) {
  const TirStmt *r = sch_ds_find_realize(f->body, name);
  return r ? &r->realize.block->block : NULL;
}

static bool scheduled_pre(TirVisitor *v, const TirStmt *st) {
  Walk *w = v->ctx;
  if (st->kind == TIR_S_FOR && st->loop.kind != TIR_FOR_SERIAL) {
    w->scheduled = true;
    v->stop = true;
  }
  return true;
}

/* Whether any loop under s is other than serial (someone scheduled it). */
bool sch_ds_has_scheduled_loop(const TirStmt *s) {
  Walk w = {0};
  TirVisitor v = {.pre_stmt = scheduled_pre, .ctx = &w};
  if (s) tir_visit_stmt(&v, s);
  return w.scheduled;
}

bool sch_ds_is_scheduled(const TirFunc *f) {
  const IrValue *v = f->attrs ? irv_dict_get(f->attrs, "tir.is_scheduled") : NULL;
  if (v && (v->kind == IRV_BOOL || v->kind == IRV_INT) && v->i) return true;
  return sch_ds_has_scheduled_loop(f->body);
}

static bool collect_pre(TirVisitor *v, const TirStmt *st) {
  Walk *w = v->ctx;
  if (st->kind == TIR_S_BLOCK_REALIZE && strcmp(st->realize.block->block.name, "root") && w->n < w->cap)
    w->names[w->n++] = st->realize.block->block.name;
  return true;
}

/* The names of the blocks under s in pre-order (root excluded), appended to
 * names[*n..cap). */
void sch_ds_collect_blocks(const TirStmt *s, const char **names, int *n, int cap) {
  Walk w = {.names = names, .n = *n, .cap = cap};
  TirVisitor v = {.pre_stmt = collect_pre, .ctx = &w};
  if (s) tir_visit_stmt(&v, s);
  *n = w.n;
}



void sch_ds_quiet_open(SchDsQuiet *q, const IrModule *m) {
  diag_init(&q->d, NULL);
  q->s = sch_new(m, &q->d);
}

/* Takes the schedule's result into *m when it made no error. */
void sch_ds_quiet_close(SchDsQuiet *q, IrModule **m) {
  if (q->s && !q->d.nerr) {
    IrModule *nm = sch_take_mod(q->s);
    ir_module_free(*m);
    *m = nm;
  }
  sch_free(q->s);
  diag_free(&q->d);
}

/* Tries a primitive; on failure forgets its error (the schedule is unchanged). */
void sch_ds_undo_to(SchDsQuiet *q, int version) {
  while (sch_num_versions(q->s) > version && sch_undo(q->s)) {}
}

bool sch_ds_try_ok(SchDsQuiet *q, int rc) {
  if (rc >= 0 && !q->d.nerr) return true;
  diag_clear(&q->d);
  return false;
}


bool sch_ds_perfect_nest(const TirStmt *s, SchDsNest *n) {
  n->nloops = 0;
  while (s && s->kind == TIR_S_FOR && n->nloops < 16) {
    n->loops[n->nloops++] = s;
    s = s->loop.body;
  }
  if (!s || s->kind != TIR_S_BLOCK_REALIZE) return false;
  n->realize = s;
  n->block = &s->realize.block->block;
  return true;
}

/* Whether loop i of the nest feeds only spatial iters of its block. */
bool sch_ds_loop_is_spatial(const SchDsNest *n, int i) {
  const TirVar *v = n->loops[i]->loop.var;
  for (int k = 0; k < n->block->niters; k++)
    if (n->block->iters[k].type != TIR_ITER_SPATIAL && tir_expr_uses_var(n->realize->realize.values[k], v))
      return false;
  return true;
}

/* The output buffers a block writes that the function does not allocate. */
bool sch_ds_writes_param(const TirFunc *f, const TirBlock *b) {
  for (int w = 0; w < b->nwrites; w++)
    for (int p = 0; p < f->nparams; p++)
      if (f->buffer_map[p] && f->buffer_map[p]->data == b->writes[w].buffer->data) return true;
  return false;
}

/* Whether name is one of names[0..n) (names NULL: every name is). */
bool sch_ds_among(const char *name, const char *const *names, int n) {
  if (!names) return true;
  for (int i = 0; i < n; i++)
    if (!strcmp(names[i], name)) return true;
  return false;
}

/* Inlines every block (of only[0..nonly), all when only is NULL) whose value
 * it can into its consumers (TVM's compute_inline), until nothing more does. */
void sch_ds_inline_producers(IrModule **m, const char *const *only, int nonly) {
  for (bool progress = true; progress;) {
    progress = false;
    const TirFunc *f = (*m)->funcs[0].tir;
    const char *names[SCH_DS_MAX_BLOCKS];
    int n = 0;
    sch_ds_collect_blocks(f->body, names, &n, SCH_DS_MAX_BLOCKS);
    SchDsQuiet q;
    sch_ds_quiet_open(&q, *m);
    for (int i = 0; i < n; i++) {
      const TirBlock *b = sch_ds_find_block(f, names[i]);
      if (!b || sch_ds_writes_param(f, b) || b->niters == 0 || !sch_ds_among(names[i], only, nonly)) continue;
      bool spatial = true;
      for (int k = 0; k < b->niters; k++) spatial &= b->iters[k].type == TIR_ITER_SPATIAL;
      if (!spatial) continue;
      SchRV rv = sch_get_block(q.s, names[i], NULL);
      if (sch_ds_try_ok(&q, rv) && sch_ds_try_ok(&q, sch_compute_inline(q.s, rv))) progress = true;
    }
    sch_ds_quiet_close(&q, m);
  }
}
