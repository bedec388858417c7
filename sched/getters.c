/* getters.c - lookup primitives: get_block, get_loops, get_child_blocks,
 * get_producers, get_consumers.  They change no IR; each records its
 * instruction so traces replay the handles they create. */
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"

typedef struct NameSearch {
  const char *name;
  PtrVec found;   /* realizes whose block has the name */
  PtrVec all;     /* every block name (for suggestions) */
} NameSearch;

static void collect_blocks(TirStmt *st, NameSearch *ns) {
  if (st->kind == TIR_S_BLOCK_REALIZE) {
    const TirBlock *b = tir_realize_block(st);
    pv_push(&ns->all, (void *)b->name);
    if (!strcmp(b->name, ns->name)) pv_push(&ns->found, st);
  }
  TirStmt *kids[64];
  int n = sch_children(st, kids, 64);
  TirStmt **all = kids;
  if (st->kind == TIR_S_SEQ && st->seq.n > 64) all = st->seq.stmts, n = st->seq.n;
  for (int i = 0; i < n; i++) collect_blocks(all[i], ns);
}

/* TVM's Schedule(prim_func) names the function "main": with one prim_func
 * and none called main, "main" denotes that one. */
static const char *resolve_func_name(Schedule *s, const char *fn) {
  if (!fn || strcmp(fn, "main") != 0 || ir_module_lookup(sch_mod(s), fn)) return fn;
  const IrModule *m = sch_mod(s);
  const char *only = NULL;
  int ntir = 0;
  for (int i = 0; i < m->nfuncs; i++)
    if (m->funcs[i].kind == IR_FUNC_TIR) ntir++, only = m->funcs[i].name;
  return ntir == 1 ? only : fn;
}

SchRV sch_get_block(Schedule *s, const char *name, const char *func_name) {
  const char *fn = resolve_func_name(s, func_name ? func_name : s->func);
  TirFunc *f = sch_cur_func(s, fn);
  if (!f) return -1;
  NameSearch ns = {name, {0}, {0}};
  collect_blocks(f->body, &ns);
  SchRV rv = -1;
  if (ns.found.len == 1) {
    rv = sch_block_rv(s, fn, ns.found.items[0]);
    SchVal args[2] = {sch_val_str(name), sch_val_str(fn)};
    sch_record(s, "get_block", args, 2, &rv, 1);
  } else if (ns.found.len == 0) {
    const char *best = closest_name(name, (const char *const *)ns.all.items, ns.all.len, 3);
    if (best)
      sch_fail(s, SCH_ERR_NOT_FOUND, 0,
               "get_block: cannot find a block named '%s' in function '%s'; did you mean '%s'?",
               name, fn, best);
    else
      sch_fail(s, SCH_ERR_NOT_FOUND, 0,
               "get_block: cannot find a block named '%s' in function '%s'", name, fn);
  } else {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 0,
             "get_block: found %d blocks named '%s' in function '%s'", ns.found.len, name, fn);
  }
  pv_free(&ns.found);
  pv_free(&ns.all);
  return rv;
}

static int finish_list(Schedule *s, const char *method, SchVal *args, int nargs, PtrVec *stmts,
                       const char *func, bool loops, SchRV **out) {
  SchRV *rvs = xmalloc((size_t)(stmts->len ? stmts->len : 1) * sizeof *rvs);
  for (int i = 0; i < stmts->len; i++)
    rvs[i] = loops ? sch_loop_rv(s, func, stmts->items[i]) : sch_block_rv(s, func, stmts->items[i]);
  sch_record(s, method, args, nargs, rvs, stmts->len);
  *out = rvs;
  int n = stmts->len;
  pv_free(stmts);
  return n;
}

int sch_get_loops(Schedule *s, SchRV block, SchRV **out) {
  SchPath p = {0};
  *out = NULL;
  if (!sch_find_block(s, block, "get_loops", 0, &p)) return sch_path_free(&p), -1;
  PtrVec loops = {0};
  int scope = sch_scope_index(&p, p.n - 1);
  for (int d = scope + 1; d < p.n - 1; d++)
    if (p.s[d]->kind == TIR_S_FOR) pv_push(&loops, p.s[d]);
  sch_path_free(&p);
  SchVal arg = sch_val_rv(block);
  return finish_list(s, "get_loops", &arg, 1, &loops, s->rvs[block].func, true, out);
}

int sch_get_child_blocks(Schedule *s, SchRV rv, SchRV **out) {
  SchPath p = {0};
  *out = NULL;
  TirStmt *st;
  if (rv >= 0 && rv < s->nrvs && s->rvs[rv].kind == SCH_RV_LOOP)
    st = sch_find_loop(s, rv, "get_child_blocks", 0, &p);
  else
    st = sch_find_block(s, rv, "get_child_blocks", 0, &p);
  sch_path_free(&p);
  if (!st) return -1;
  PtrVec blocks = {0};
  if (st->kind == TIR_S_BLOCK_REALIZE) {
    sch_scope_blocks(st->realize.block, &blocks);
  } else {
    /* A loop: wrap its body as if it were a scope. */
    TirBlock tmp = {0};
    tmp.body = st->loop.body;
    TirStmt fake = {0};
    fake.kind = TIR_S_BLOCK;
    fake.block = tmp;
    sch_scope_blocks(&fake, &blocks);
  }
  SchVal arg = sch_val_rv(rv);
  return finish_list(s, "get_child_blocks", &arg, 1, &blocks, s->rvs[rv].func, false, out);
}

/* Producers (RAW: earlier writers of what block reads) or consumers (later
 * readers of what it writes) in the block's scope. */
static int deps(Schedule *s, SchRV block, bool producers, SchRV **out) {
  const char *prim = producers ? "get_producers" : "get_consumers";
  SchPath p = {0};
  *out = NULL;
  TirStmt *r = sch_find_block(s, block, prim, 0, &p);
  if (!r) return sch_path_free(&p), -1;
  int scope = sch_scope_index(&p, p.n - 1);
  PtrVec sibs = {0}, res = {0};
  if (scope >= 0) sch_scope_blocks(p.s[scope], &sibs);
  sch_path_free(&p);
  const TirBlock *me = tir_realize_block(r);
  int pos = -1;
  for (int i = 0; i < sibs.len; i++)
    if (sibs.items[i] == r) pos = i;
  for (int i = 0; i < sibs.len; i++) {
    if (i == pos || (producers ? i > pos : i < pos)) continue;
    const TirBlock *o = tir_realize_block(sibs.items[i]);
    bool dep = false;
    if (producers) {
      for (int k = 0; k < me->nreads && !dep; k++) dep = sch_block_writes(o, me->reads[k].buffer);
    } else {
      for (int k = 0; k < me->nwrites && !dep; k++) dep = sch_block_reads(o, me->writes[k].buffer);
    }
    if (dep) pv_push(&res, sibs.items[i]);
  }
  pv_free(&sibs);
  SchVal arg = sch_val_rv(block);
  return finish_list(s, prim, &arg, 1, &res, s->rvs[block].func, false, out);
}

int sch_get_producers(Schedule *s, SchRV block, SchRV **out) { return deps(s, block, true, out); }
int sch_get_consumers(Schedule *s, SchRV block, SchRV **out) { return deps(s, block, false, out); }

int sch_buffer_index_by_name(Schedule *s, SchRV block, const char *name, int which,
                             bool *is_write, const char *prim, int argi) {
  SchPath path = {0};
  TirStmt *realize = sch_find_block(s, block, prim, 0, &path);
  sch_path_free(&path);
  if (!realize) return -1;
  const TirBlock *b = tir_realize_block(realize);
  /* As TVM's name lookup: the distinct buffers so named must be one; a
   * buffer both read and written resolves to its write (the later entry). */
  int found = -1, nfound = 0;
  bool w = false;
  const TirBuffer *match = NULL;
  for (int pass = 0; pass < 2; pass++) {
    if ((pass == 0 && which == 1) || (pass == 1 && which == 0)) continue;
    const TirBufferRegion *rs = pass ? b->writes : b->reads;
    int n = pass ? b->nwrites : b->nreads;
    for (int i = 0; i < n; i++)
      if (!strcmp(rs[i].buffer->name, name)) {
        if (rs[i].buffer != match) nfound++;
        if (nfound == 1) found = i, w = pass == 1, match = rs[i].buffer;
      }
  }
  const char *lists = which == 0 ? "reads" : which == 1 ? "writes" : "reads or writes";
  if (nfound == 0) {
    sch_fail(s, SCH_ERR_NOT_FOUND, argi,
             "%s: block '%s' has no buffer '%s' in its %s", prim, b->name, name, lists);
    return -1;
  }
  if (nfound > 1 && which < 0) {
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, argi,
             "%s: block '%s' accesses several buffers named '%s'; pass (\"read\", i) or (\"write\", i)",
             prim, b->name, name);
    return -1;
  }
  if (is_write) *is_write = w;
  return found;
}
