/* state.c - schedule state: module versions, handles and their lookup,
 * statement paths with copy-on-write rebuilding, scopes and dependencies.
 *
 * Handles are keys, not pointers: a loop is "the For over var V", a block
 * "the block declaring iter var W" (name for iter-less blocks).  Looking a
 * handle up walks the current version, so a primitive never has to patch a
 * handle table; rebuilding a node while keeping its var keeps its handle. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"

/* ------------------------------------------------------------- values */

void sch_val_free(SchVal *v) {
  if (!v) return;
  free(v->s);
  for (int i = 0; i < v->n; i++) sch_val_free(&v->items[i]);
  free(v->items);
  memset(v, 0, sizeof *v);
}

SchVal sch_val_copy(const SchVal *v) {
  SchVal c = *v;
  c.s = v->s ? xstrdup(v->s) : NULL;
  c.items = v->n ? xmalloc((size_t)v->n * sizeof *c.items) : NULL;
  for (int i = 0; i < v->n; i++) c.items[i] = sch_val_copy(&v->items[i]);
  return c;
}

SchVal sch_val_none(void) { SchVal v = {SV_NONE, 0, 0, NULL, NULL, 0}; return v; }
SchVal sch_val_int(int64_t i) { SchVal v = sch_val_none(); v.kind = SV_INT; v.i = i; return v; }
SchVal sch_val_bool(bool b) { SchVal v = sch_val_none(); v.kind = SV_BOOL; v.i = b; return v; }
SchVal sch_val_rv(SchRV rv) { SchVal v = sch_val_none(); v.kind = SV_RV; v.i = rv; return v; }

SchVal sch_val_str(const char *s) {
  SchVal v = sch_val_none();
  v.kind = SV_STR;
  v.s = xstrdup(s);
  return v;
}

SchVal sch_val_code(const char *text) {
  SchVal v = sch_val_str(text);
  v.kind = SV_CODE;
  return v;
}

SchVal sch_val_buffer_pair(bool is_write, int64_t index) {
  SchVal v = sch_val_none();
  v.kind = SV_LIST;
  v.n = 2;
  v.items = xmalloc(2 * sizeof *v.items);
  v.items[0] = sch_val_str(is_write ? "write" : "read");
  v.items[1] = sch_val_int(index);
  return v;
}

SchVal sch_val_rv_list(const SchRV *rvs, int n) {
  SchVal v = sch_val_none();
  v.kind = SV_LIST;
  v.n = n;
  v.items = n ? xmalloc((size_t)n * sizeof *v.items) : NULL;
  for (int i = 0; i < n; i++) v.items[i] = sch_val_rv(rvs[i]);
  return v;
}

/* -------------------------------------------------------------- state */

static void push_version(Schedule *s, IrModule *m) {
  /* versions and trace_at share capversions: grow the first, follow with the second. */
  int cap = s->capversions;
  VEC_RESERVE(s->versions, cap, s->nversions + 1);
  if (cap != s->capversions) {
    s->capversions = cap;
    s->trace_at = xrealloc(s->trace_at, (size_t)cap * sizeof *s->trace_at);
  }
  s->trace_at[s->nversions] = s->ntrace;
  s->versions[s->nversions++] = m;
}

Schedule *sch_new(const IrModule *m, DiagCtx *diag) {
  Schedule *s = xcalloc(1, sizeof *s);
  s->diag = diag;
  s->call_span = span_none;
  push_version(s, ir_module_copy(m));
  const char *fn = NULL;
  int ntir = 0;
  for (int i = 0; i < m->nfuncs; i++) {
    if (m->funcs[i].kind != IR_FUNC_TIR) continue;
    ntir++;
    if (!fn || !strcmp(m->funcs[i].name, "main")) fn = m->funcs[i].name;
  }
  if (ntir > 1 && ir_module_index(m, "main") < 0) fn = NULL;
  s->func = fn ? xstrdup(fn) : NULL;
  sch_seed(s, -1);
  return s;
}

static void free_inst(SchInst *in) {
  for (int i = 0; i < in->nargs; i++) sch_val_free(&in->args[i]);
  free(in->args);
  free(in->outs);
}

void sch_free(Schedule *s) {
  if (!s) return;
  for (int i = 0; i < s->nversions; i++) ir_module_free(s->versions[i]);
  free(s->versions);
  free(s->trace_at);
  for (int i = 0; i < s->nrvs; i++) {
    free(s->rvs[i].func);
    free(s->rvs[i].block_name);
  }
  free(s->rvs);
  for (int i = 0; i < s->ntrace; i++) free_inst(&s->trace[i]);
  free(s->trace);
  free(s->func);
  free(s);
}

const IrModule *sch_mod(const Schedule *s) { return s->versions[s->nversions - 1]; }
IrModule *sch_take_mod(const Schedule *s) { return ir_module_copy(sch_mod(s)); }
int sch_num_versions(const Schedule *s) { return s->nversions; }
int sch_trace_len(const Schedule *s) { return s->ntrace; }

int sch_work_on(Schedule *s, const char *func_name) {
  const IrGlobal *g = ir_module_lookup(sch_mod(s), func_name);
  if (!g || g->kind != IR_FUNC_TIR) {
    sch_fail(s, SCH_ERR_NOT_FOUND, 0, "work_on: the module has no prim_func named '%s'", func_name);
    return -1;
  }
  free(s->func);
  s->func = xstrdup(func_name);
  return 0;
}

bool sch_undo(Schedule *s) {
  if (s->nversions <= 1) return false;
  s->nversions--;
  ir_module_free(s->versions[s->nversions]);
  int keep = s->trace_at[s->nversions];
  while (s->ntrace > keep) free_inst(&s->trace[--s->ntrace]);
  return true;
}

void sch_set_call_spans(Schedule *s, Span call, const Span *args, int nargs) {
  s->call_span = call;
  s->nargspans = nargs < 8 ? nargs : 8;
  for (int i = 0; i < s->nargspans; i++) s->arg_spans[i] = args[i];
}

static void sch_report(Schedule *s, SchErrorKind kind, int argi, const char *fmt, va_list ap) {
  Span sp = s->call_span;
  if (argi >= 0 && argi < s->nargspans && s->arg_spans[argi].file) sp = s->arg_spans[argi];
  s->last_error = kind;
  diag_report(s->diag, DIAG_ERROR, sp, fmt, ap);
  diag_set_code(s->diag, sch_error_kind_name(kind));
}

void sch_fail(Schedule *s, SchErrorKind kind, int argi, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sch_report(s, kind, argi, fmt, ap);
  va_end(ap);
}

const char *sch_error_kind_name(SchErrorKind kind) {
  static const char *const names[] = {
      [SCH_ERR_NONE] = "NoError",
      [SCH_ERR_INVALID_ARGUMENT] = "InvalidArgumentError",
      [SCH_ERR_INVALID_HANDLE] = "InvalidHandleError",
      [SCH_ERR_NOT_FOUND] = "NotFoundError",
      [SCH_ERR_LOOP_STRUCTURE] = "LoopStructureError",
      [SCH_ERR_LOOP_KIND] = "LoopKindError",
      [SCH_ERR_NOT_AFFINE] = "NotAffineBindingError",
      [SCH_ERR_DATAFLOW] = "DataflowError",
      [SCH_ERR_REDUCTION] = "ReductionError",
      [SCH_ERR_BODY_PATTERN] = "BodyPatternError",
      [SCH_ERR_BUFFER_ACCESS] = "BufferAccessError",
      [SCH_ERR_UNSUPPORTED] = "UnsupportedError",
      [SCH_ERR_INTERNAL] = "InternalError",
  };
  return (unsigned)kind < sizeof names / sizeof *names && names[kind] ? names[kind] : "UnknownError";
}

SchErrorKind sch_last_error_kind(const Schedule *s) { return s->last_error; }

TirFunc *sch_cur_func(Schedule *s, const char *func) {
  if (!func) func = s->func;
  if (!func) {
    const IrModule *m = sch_mod(s);
    int ntir = 0;
    for (int i = 0; i < m->nfuncs; i++) ntir += m->funcs[i].kind == IR_FUNC_TIR;
    if (ntir == 0)
      sch_fail(s, SCH_ERR_NOT_FOUND, -1, "schedule: the module has no prim_func to schedule");
    else
      sch_fail(s, SCH_ERR_NOT_FOUND, -1,
               "schedule: the module has several prim_funcs and none is called 'main'; "
               "pass func_name or call sch.work_on(name)");
    return NULL;
  }
  const IrGlobal *g = ir_module_lookup(sch_mod(s), func);
  if (!g || g->kind != IR_FUNC_TIR) {
    sch_fail(s, SCH_ERR_NOT_FOUND, -1, "schedule: the module has no prim_func named '%s'", func);
    return NULL;
  }
  return g->tir;
}

SchRVKind sch_rv_kind(const Schedule *s, SchRV rv) { return s->rvs[rv].kind; }
const char *sch_rv_name(const Schedule *s, SchRV rv) { return s->rvs[rv].name; }
int sch_num_rvs(const Schedule *s) { return s->nrvs; }

SchRV sch_new_rv(Schedule *s, SchRVKind kind, const char *func, const void *key,
                 const char *block_name) {
  VEC_RESERVE(s->rvs, s->caprvs, s->nrvs + 1);
  SchRVInfo *r = &s->rvs[s->nrvs];
  memset(r, 0, sizeof *r);
  r->kind = kind;
  r->func = xstrdup(func ? func : (s->func ? s->func : "main"));
  r->key = key;
  r->block_name = block_name ? xstrdup(block_name) : NULL;
  snprintf(r->name, sizeof r->name, "%c%d", kind == SCH_RV_BLOCK ? 'b' : kind == SCH_RV_LOOP ? 'l' : 'v',
           s->nrvs);
  return s->nrvs++;
}

SchRV sch_loop_rv(Schedule *s, const char *func, const TirStmt *loop) {
  return sch_new_rv(s, SCH_RV_LOOP, func, loop->loop.var, NULL);
}

SchRV sch_block_rv(Schedule *s, const char *func, const TirStmt *realize) {
  const TirBlock *b = tir_realize_block(realize);
  if (b->niters) return sch_new_rv(s, SCH_RV_BLOCK, func, b->iters[0].var, NULL);
  return sch_new_rv(s, SCH_RV_BLOCK, func, NULL, b->name);
}

void sch_record(Schedule *s, const char *method, SchVal *args, int nargs, const SchRV *outs,
                int nouts) {
  const SchMethod *m = sch_method_lookup(method);
  TVS_ASSERT(m);
  s->last_error = SCH_ERR_NONE;
  VEC_RESERVE(s->trace, s->captrace, s->ntrace + 1);
  SchInst *in = &s->trace[s->ntrace++];
  in->method = m;
  in->args = xmalloc((size_t)(nargs ? nargs : 1) * sizeof *in->args);
  memcpy(in->args, args, (size_t)nargs * sizeof *args);
  in->nargs = nargs;
  in->outs = xmalloc((size_t)(nouts ? nouts : 1) * sizeof *in->outs);
  if (nouts) memcpy(in->outs, outs, (size_t)nouts * sizeof *outs);
  in->nouts = nouts;
  /* debug_mask: an instruction that made a new version is checked (TVM's
   * ScheduleState verification after every step). */
  if (s->debug_mask && s->nversions > 1 && s->trace_at[s->nversions - 1] == s->ntrace - 1) {
    StrBuf why;
    sb_init(&why);
    const char *fn = s->func;
    for (int i = 0; i < nouts && !fn; i++) fn = s->rvs[outs[i]].func;
    for (int i = 0; i < nargs; i++)
      if (in->args[i].kind == SV_RV && in->args[i].i >= 0 && in->args[i].i < s->nrvs) {
        fn = s->rvs[in->args[i].i].func;
        break;
      }
    if (fn && !sch_verify_func(s, fn, &why))
      sch_fail(s, SCH_ERR_INTERNAL, -1,
               "internal error: %s produced ill-formed IR in '%s': %s", method, fn, why.data);
    sb_free(&why);
  }
}

void sch_trace_truncate(Schedule *s, int ntrace) {
  while (s->ntrace > ntrace) free_inst(&s->trace[--s->ntrace]);
}

void sch_rvs_truncate(Schedule *s, int nrvs) {
  while (s->nrvs > nrvs) {
    s->nrvs--;
    free(s->rvs[s->nrvs].func);
    free(s->rvs[s->nrvs].block_name);
  }
}

IrModule *sch_begin(Schedule *s) { return ir_module_derive(sch_mod(s)); }

void sch_commit(Schedule *s, IrModule *nm, const char *func, TirStmt *body) {
  const IrModule *cur = sch_mod(s);
  for (int i = 0; i < cur->nfuncs; i++) {
    const IrGlobal *g = &cur->funcs[i];
    if (g->kind == IR_FUNC_RELAX) {
      ir_module_add_relax(nm, g->name, g->rx);
    } else if (!strcmp(g->name, func)) {
      TirFunc *f = ir_memdup(nm->heap, g->tir, sizeof *g->tir);
      f->body = body;
      ir_module_add_tir(nm, g->name, f);
    } else {
      ir_module_add_tir(nm, g->name, g->tir);
    }
  }
  push_version(s, nm);
}

/* -------------------------------------------------------------- paths */

void sch_path_free(SchPath *p) {
  free(p->s);
  memset(p, 0, sizeof *p);
}

void sch_path_push(SchPath *p, TirStmt *st) {
  VEC_PUSH(p->s, p->n, p->cap, st);
}

void sch_path_copy(SchPath *dst, const SchPath *src) {
  dst->n = 0;
  for (int i = 0; i < src->n; i++) sch_path_push(dst, src->s[i]);
}

int sch_children(const TirStmt *st, TirStmt **out, int cap) {
  int n = 0;
#define ADD(x) do { if ((x) && n < cap) out[n++] = (x); } while (0)
  switch (st->kind) {
    case TIR_S_SEQ:
      for (int i = 0; i < st->seq.n; i++) ADD(st->seq.stmts[i]);
      break;
    case TIR_S_FOR: ADD(st->loop.body); break;
    case TIR_S_IF: ADD(st->ifs.then_s); ADD(st->ifs.else_s); break;
    case TIR_S_LET: ADD(st->let.body); break;
    case TIR_S_ASSERT: ADD(st->assrt.body); break;
    case TIR_S_WHILE: ADD(st->loop_while.body); break;
    case TIR_S_BLOCK_REALIZE: ADD(st->realize.block); break;
    case TIR_S_BLOCK: ADD(st->block.init); ADD(st->block.body); break;
    case TIR_S_ALLOCATE: case TIR_S_ALLOCATE_CONST: ADD(st->alloc.body); break;
    case TIR_S_DECL_BUFFER: ADD(st->decl.body); break;
    case TIR_S_ATTR: ADD(st->attr.body); break;
    default: break;
  }
#undef ADD
  return n;
}

static TirStmt *copy_stmt(IrHeap *h, const TirStmt *s) { return ir_memdup(h, s, sizeof *s); }

TirStmt *sch_for_with_body(IrHeap *h, const TirStmt *loop, TirStmt *body) {
  TirStmt *n = copy_stmt(h, loop);
  n->loop.body = body;
  return n;
}

TirStmt *sch_replace_child(IrHeap *h, const TirStmt *parent, const TirStmt *old, TirStmt *nw) {
  TirStmt *n = copy_stmt(h, parent);
  switch (parent->kind) {
    case TIR_S_SEQ: {
      TirStmt **items = ir_alloc(h, (size_t)parent->seq.n * sizeof *items);
      int m = 0;
      for (int i = 0; i < parent->seq.n; i++) {
        TirStmt *c = parent->seq.stmts[i] == old ? nw : parent->seq.stmts[i];
        if (c) items[m++] = c;
      }
      return tir_seq(h, items, m);
    }
    case TIR_S_FOR:
      if (!nw) return NULL;
      n->loop.body = nw;
      return n;
    case TIR_S_IF:
      if (parent->ifs.then_s == old) n->ifs.then_s = nw;
      else n->ifs.else_s = nw;
      if (!n->ifs.then_s) return NULL;
      return n;
    case TIR_S_LET: if (!nw) return NULL; n->let.body = nw; return n;
    case TIR_S_ASSERT: if (!nw) return NULL; n->assrt.body = nw; return n;
    case TIR_S_WHILE: if (!nw) return NULL; n->loop_while.body = nw; return n;
    case TIR_S_ALLOCATE: if (!nw) return NULL; n->alloc.body = nw; return n;
    case TIR_S_DECL_BUFFER: if (!nw) return NULL; n->decl.body = nw; return n;
    case TIR_S_ATTR: if (!nw) return NULL; n->attr.body = nw; return n;
    case TIR_S_BLOCK_REALIZE:
      if (!nw) return NULL;
      n->realize.block = nw;
      return n;
    case TIR_S_BLOCK:
      if (parent->block.init == old) n->block.init = nw;
      else n->block.body = nw ? nw : tir_evaluate(h, tir_i32(h, 0));
      return n;
    default: tvs_unreachable();
  }
}

TirStmt *sch_replace_at(IrHeap *h, const SchPath *path, int depth, TirStmt *nw) {
  for (int d = depth; d > 0; d--) {
    nw = sch_replace_child(h, path->s[d - 1], path->s[d], nw);
  }
  return nw;
}

typedef bool (*MatchFn)(const TirStmt *st, const void *key);

static bool find_rec(TirStmt *st, MatchFn match, const void *key, SchPath *p) {
  sch_path_push(p, st);
  if (match(st, key)) return true;
  TirStmt *kids[64];
  int n = sch_children(st, kids, 64);
  TirStmt **all = kids;
  if (st->kind == TIR_S_SEQ && st->seq.n > 64) all = st->seq.stmts, n = st->seq.n;
  for (int i = 0; i < n; i++)
    if (find_rec(all[i], match, key, p)) return true;
  p->n--;
  return false;
}

static bool match_loop(const TirStmt *st, const void *key) {
  return st->kind == TIR_S_FOR && st->loop.var == key;
}

static bool match_realize(const TirStmt *st, const void *key) {
  return st->kind == TIR_S_BLOCK_REALIZE && st->realize.block == key;
}

bool sch_path_to_loop(TirStmt *root, const TirVar *var, SchPath *path) {
  path->n = 0;
  return find_rec(root, match_loop, var, path);
}

bool sch_path_to_realize(TirStmt *root, const TirStmt *block, SchPath *path) {
  path->n = 0;
  return find_rec(root, match_realize, block, path);
}

typedef struct BlockKey {
  const void *var;
  const char *name;
} BlockKey;

static bool match_block_key(const TirStmt *st, const void *key) {
  const BlockKey *k = key;
  if (st->kind != TIR_S_BLOCK_REALIZE) return false;
  const TirBlock *b = tir_realize_block(st);
  if (k->var) return b->niters && b->iters[0].var == k->var;
  return !b->niters && !strcmp(b->name, k->name);
}

/* Primitives that keep a loop's step as it is: the getters, annotations and
 * loop kinds (vectorize-loop runs after canonicalize-loop removes the step). */
static bool keeps_steps(const char *prim) {
  static const char *const ok[] = {"get", "get_loops", "get_child_blocks", "get_producers",
                                   "get_consumers", "get_output_blocks", "annotate", "unannotate",
                                   "parallel", "vectorize", "unroll", NULL};
  for (int i = 0; ok[i]; i++)
    if (!strcmp(prim, ok[i])) return true;
  return false;
}

/* The other primitives read a loop's extent as its trip count and its var's
 * range as [min, min + extent): they refuse a function with a stepped loop
 * rather than produce a wrong program. */
static bool check_no_steps(Schedule *s, const char *prim, int argi, const TirFunc *f) {
  const TirStmt *l = keeps_steps(prim) ? NULL : tir_find_stepped_loop(f->body);
  if (!l) return true;
  sch_fail(s, SCH_ERR_UNSUPPORTED, argi,
           "%s: loop '%s' has a step; schedule primitives other than annotate, parallel, vectorize "
           "and unroll need loops with step 1 (write the loop as range(n) with i * step + min)",
           prim, l->loop.var->name);
  return false;
}

static TirStmt *find_rv(Schedule *s, SchRV rv, SchRVKind kind, const char *prim, int argi,
                        SchPath *path) {
  if (rv < 0 || rv >= s->nrvs) {
    sch_fail(s, SCH_ERR_INVALID_HANDLE, argi, "%s: invalid handle", prim);
    return NULL;
  }
  SchRVInfo *r = &s->rvs[rv];
  if (r->removed) {
    sch_fail(s, SCH_ERR_INVALID_HANDLE, argi, "%s: the handle '%s' was removed by remove_rv", prim, r->name);
    return NULL;
  }
  if (r->kind == SCH_RV_LOOP && kind == SCH_RV_LOOP && !r->key) {
    sch_fail(s, SCH_ERR_INVALID_HANDLE, argi, "%s: the LoopRV '%s' is the compute-location mark '%s' (from "
             "sample_compute_location), not a loop", prim, r->name,
             r->value == SCH_LOC_INLINE ? "inline" : "root");
    return NULL;
  }
  if (r->kind != kind) {
    sch_fail(s, SCH_ERR_INVALID_HANDLE, argi, "%s: expected a %s, got the %s handle '%s'", prim,
             kind == SCH_RV_BLOCK ? "BlockRV" : "LoopRV",
             r->kind == SCH_RV_BLOCK ? "block" : r->kind == SCH_RV_LOOP ? "loop" : "expr", r->name);
    return NULL;
  }
  TirFunc *f = sch_cur_func(s, r->func);
  if (!f || !check_no_steps(s, prim, argi, f)) return NULL;
  path->n = 0;
  bool ok;
  if (kind == SCH_RV_LOOP) {
    ok = find_rec(f->body, match_loop, r->key, path);
  } else {
    BlockKey k = {r->key, r->block_name};
    ok = find_rec(f->body, match_block_key, &k, path);
  }
  if (!ok) {
    if (kind == SCH_RV_LOOP)
      sch_fail(s, SCH_ERR_INVALID_HANDLE, argi,
               "%s: stale handle: loop '%s' (%s) no longer exists in '%s'", prim,
               ((const TirVar *)r->key)->name, r->name, r->func);
    else
      sch_fail(s, SCH_ERR_INVALID_HANDLE, argi,
               "%s: stale handle: block %s no longer exists in '%s'", prim, r->name,
               r->func);
    return NULL;
  }
  return path->s[path->n - 1];
}

TirStmt *sch_find_loop(Schedule *s, SchRV rv, const char *prim, int argi, SchPath *path) {
  return find_rv(s, rv, SCH_RV_LOOP, prim, argi, path);
}

TirStmt *sch_find_block(Schedule *s, SchRV rv, const char *prim, int argi, SchPath *path) {
  return find_rv(s, rv, SCH_RV_BLOCK, prim, argi, path);
}

int sch_scope_index(const SchPath *p, int depth) {
  for (int d = depth - 1; d >= 0; d--)
    if (p->s[d]->kind == TIR_S_BLOCK) return d;
  return -1;
}

int sch_block_scope_index(Schedule *s, const char *prim, const SchPath *p) {
  int i = sch_scope_index(p, p->n - 1);
  if (i < 0)
    sch_fail(s, SCH_ERR_INVALID_ARGUMENT, 0,
             "%s: block '%s' is the root block", prim, tir_realize_block(p->s[p->n - 1])->name);
  return i;
}

bool sch_check_reduce_below_scope(Schedule *s, const char *prim, const SchPath *path, int scope_i,
                                  const char *what) {
  const TirBlock *b = tir_realize_block(path->s[path->n - 1]);
  const TirStmt *loop = b->init ? sch_reduce_loop_above(path, scope_i) : NULL;
  if (loop)
    sch_fail(s, SCH_ERR_REDUCTION, 0,
             "%s: block '%s' reduces over loop '%s' outside its scope block, where the %s would be "
             "allocated anew for each step of the reduction",
             prim, b->name, sch_loop_name(loop), what);
  return !loop;
}

static void scope_rec(TirStmt *st, PtrVec *out) {
  if (st->kind == TIR_S_BLOCK_REALIZE) {
    pv_push(out, st);
    return;
  }
  TirStmt *kids[64];
  int n = sch_children(st, kids, 64);
  TirStmt **all = kids;
  if (st->kind == TIR_S_SEQ && st->seq.n > 64) all = st->seq.stmts, n = st->seq.n;
  for (int i = 0; i < n; i++) scope_rec(all[i], out);
}

void sch_scope_blocks(TirStmt *scope_block, PtrVec *out) {
  TVS_ASSERT(scope_block->kind == TIR_S_BLOCK);
  if (scope_block->block.init) scope_rec(scope_block->block.init, out);
  scope_rec(scope_block->block.body, out);
}

bool sch_block_writes(const TirBlock *b, const TirBuffer *buf) {
  for (int i = 0; i < b->nwrites; i++)
    if (b->writes[i].buffer == buf) return true;
  return false;
}

bool sch_block_reads(const TirBlock *b, const TirBuffer *buf) {
  for (int i = 0; i < b->nreads; i++)
    if (b->reads[i].buffer == buf) return true;
  return false;
}

bool sch_is_param_buffer(const TirFunc *f, const TirBuffer *buf) {
  for (int i = 0; i < f->nparams; i++)
    if (f->buffer_map && f->buffer_map[i] == buf) return true;
  return false;
}

bool sch_contains(const TirStmt *stmt, const TirStmt *target) {
  if (stmt == target) return true;
  TirStmt *kids[64];
  int n = sch_children(stmt, kids, 64);
  TirStmt **all = kids;
  if (stmt->kind == TIR_S_SEQ && stmt->seq.n > 64) all = stmt->seq.stmts, n = stmt->seq.n;
  for (int i = 0; i < n; i++)
    if (sch_contains(all[i], target)) return true;
  return false;
}

TirStmt *sch_realize_with(IrHeap *h, const TirStmt *realize, const TirBlock *blk,
                          TirExpr **values, TirExpr *pred) {
  TirStmt *b = blk ? tir_block(h, blk) : realize->realize.block;
  if (blk) b->span = realize->realize.block->span;
  TirStmt *r = tir_block_realize(h, values ? values : realize->realize.values, realize->realize.n,
                                 pred ? pred : realize->realize.pred, b);
  r->span = realize->span;
  return r;
}

const char *sch_loop_name(const TirStmt *loop) { return loop->loop.var->name; }

bool sch_is_trivial_pred(const TirExpr *pred) {
  int64_t v;
  return !pred || (tir_is_const_int(pred, &v) && v != 0);
}
