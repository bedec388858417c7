/* ir_info.c - what the elaborated IR knows about a name, for hovers: a
 * buffer's shape, dtype and scope, a loop's or block iter var's kind and
 * domain, a block's iter vars and read/write regions, a graph variable's
 * struct info.  Lookups are by name within one function (the IR keeps name
 * hints, and the index says which function a name belongs to). */
#include <string.h>

#include "ir/printer.h"
#include "ir/relax_op.h"
#include "lsp/lsp_info.h"

static void buffer_str(StrBuf *sb, const TirBuffer *b) {
  char buf[DT_STR_MAX];
  sb_printf(sb, "%s: T.Buffer((", b->name);
  for (int i = 0; i < b->ndim; i++) {
    if (i) sb_puts(sb, ", ");
    print_tir_expr(sb, b->shape[i]);
  }
  sb_printf(sb, "%s), \"%s\")", b->ndim == 1 ? "," : "", dt_str(b->dtype, buf));
  sb_printf(sb, "\nscope: %s", b->scope ? b->scope : "global");
}

static void region_str(StrBuf *sb, const TirBufferRegion *r) {
  sb_printf(sb, "%s[", r->buffer->name);
  for (int i = 0; i < r->n; i++) {
    if (i) sb_puts(sb, ", ");
    print_tir_expr(sb, r->ranges[i].min);
    sb_puts(sb, ":");
    print_tir_expr(sb, r->ranges[i].min);
    sb_puts(sb, " + ");
    print_tir_expr(sb, r->ranges[i].extent);
  }
  sb_puts(sb, "]");
}

static const char *iter_kind(TirIterType t) {
  switch (t) {
    case TIR_ITER_SPATIAL: return "spatial";
    case TIR_ITER_REDUCE: return "reduce";
    case TIR_ITER_SCAN: return "scan";
    default: return "opaque";
  }
}

static void block_str(StrBuf *sb, const TirBlock *b) {
  char buf[DT_STR_MAX];
  sb_printf(sb, "block \"%s\"\n", b->name);
  for (int i = 0; i < b->niters; i++) {
    const TirIterVar *iv = &b->iters[i];
    sb_printf(sb, "%s: %s, domain [", iv->var->name, iter_kind(iv->type));
    print_tir_expr(sb, iv->dom.min);
    sb_puts(sb, ", ");
    print_tir_expr(sb, iv->dom.extent);
    sb_printf(sb, "), %s\n", dt_str(iv->var->dtype, buf));
  }
  sb_puts(sb, "reads:");
  for (int i = 0; i < b->nreads; i++) sb_puts(sb, i ? ", " : " "), region_str(sb, &b->reads[i]);
  sb_puts(sb, "\nwrites:");
  for (int i = 0; i < b->nwrites; i++) sb_puts(sb, i ? ", " : " "), region_str(sb, &b->writes[i]);
}

/* The search: the first match of `name` of kind `kind` in a statement tree. */
typedef struct Find {
  const char *name;
  LspSymKind kind;
  StrBuf *out;
  bool found;
} Find;

static void find_stmt(Find *f, const TirStmt *s);

static void find_block(Find *f, const TirBlock *b) {
  if (f->kind == LSP_SYM_BLOCK && !strcmp(b->name, f->name)) {
    block_str(f->out, b);
    f->found = true;
    return;
  }
  for (int i = 0; i < b->nallocs && !f->found; i++)
    if (f->kind == LSP_SYM_BUFFER && !strcmp(b->allocs[i]->name, f->name))
      buffer_str(f->out, b->allocs[i]), f->found = true;
  for (int i = 0; i < b->nmatches && !f->found; i++)
    if (f->kind == LSP_SYM_BUFFER && !strcmp(b->matches[i].buffer->name, f->name))
      buffer_str(f->out, b->matches[i].buffer), f->found = true;
  for (int i = 0; i < b->niters && !f->found; i++) {
    const TirIterVar *iv = &b->iters[i];
    if (f->kind != LSP_SYM_ITER_VAR || strcmp(iv->var->name, f->name)) continue;
    char buf[DT_STR_MAX];
    sb_printf(f->out, "%s: block iter var (%s) of block \"%s\"\ndomain [", f->name, iter_kind(iv->type), b->name);
    print_tir_expr(f->out, iv->dom.min);
    sb_puts(f->out, ", ");
    print_tir_expr(f->out, iv->dom.extent);
    sb_printf(f->out, "), dtype %s", dt_str(iv->var->dtype, buf));
    f->found = true;
  }
  find_stmt(f, b->init);
  find_stmt(f, b->body);
}

static const char *for_kind(TirForKind k) {
  static const char *const names[] = {"serial", "parallel", "vectorized", "unroll", "thread_binding"};
  return names[k];
}

static void find_stmt(Find *f, const TirStmt *s) {
  if (!s || f->found) return;
  switch (s->kind) {
    case TIR_S_FOR:
      if (f->kind == LSP_SYM_LOOP_VAR && !strcmp(s->loop.var->name, f->name)) {
        char buf[DT_STR_MAX];
        sb_printf(f->out, "%s: loop var (T.%s), range [", f->name, for_kind(s->loop.kind));
        print_tir_expr(f->out, s->loop.min);
        sb_puts(f->out, ", ");
        print_tir_expr(f->out, s->loop.extent);
        sb_printf(f->out, "), dtype %s", dt_str(s->loop.var->dtype, buf));
        f->found = true;
        return;
      }
      find_stmt(f, s->loop.body);
      return;
    case TIR_S_SEQ:
      for (int i = 0; i < s->seq.n; i++) find_stmt(f, s->seq.stmts[i]);
      return;
    case TIR_S_BLOCK_REALIZE: find_block(f, &s->realize.block->block); return;
    case TIR_S_BLOCK: find_block(f, &s->block); return;
    case TIR_S_IF: find_stmt(f, s->ifs.then_s); find_stmt(f, s->ifs.else_s); return;
    case TIR_S_LET: find_stmt(f, s->let.body); return;
    case TIR_S_ALLOCATE: find_stmt(f, s->alloc.body); return;
    case TIR_S_DECL_BUFFER:
      if (f->kind == LSP_SYM_BUFFER && !strcmp(s->decl.buf->name, f->name)) {
        buffer_str(f->out, s->decl.buf);
        f->found = true;
        return;
      }
      find_stmt(f, s->decl.body);
      return;
    case TIR_S_ATTR: find_stmt(f, s->attr.body); return;
    case TIR_S_ASSERT: find_stmt(f, s->assrt.body); return;
    case TIR_S_WHILE: find_stmt(f, s->loop_while.body); return;
    default: return;
  }
}

static bool tir_info(const TirFunc *fn, Find *f) {
  char buf[DT_STR_MAX];
  for (int i = 0; i < fn->nparams && !f->found; i++) {
    const TirBuffer *b = fn->buffer_map[i];
    if (b && !strcmp(b->name, f->name) && (f->kind == LSP_SYM_BUFFER || f->kind == LSP_SYM_PARAM))
      buffer_str(f->out, b), f->found = true;
    else if (!b && !strcmp(fn->params[i]->name, f->name))
      sb_printf(f->out, "%s: parameter, dtype %s", f->name, dt_str(fn->params[i]->dtype, buf)), f->found = true;
  }
  if (f->kind == LSP_SYM_BUFFER || f->kind == LSP_SYM_PARAM) { /* match_buffer of a handle param */
    LspSymKind k = f->kind;
    f->kind = LSP_SYM_BUFFER;
    for (int i = 0; i < fn->nparams && !f->found; i++)
      if (fn->buffer_map[i] && !strcmp(fn->buffer_map[i]->name, f->name))
        buffer_str(f->out, fn->buffer_map[i]), f->found = true;
    f->kind = k;
  }
  find_stmt(f, fn->body);
  return f->found;
}

static bool rx_info(const RxFunc *fn, Find *f) {
  const RxExpr *hit = NULL;
  for (int i = 0; i < fn->nparams && !hit; i++)
    if (!strcmp(fn->params[i]->var.name, f->name)) hit = fn->params[i];
  if (!hit && fn->body && fn->body->kind == RX_SEQ)
    for (int b = 0; b < fn->body->seq.nblocks && !hit; b++)
      for (int i = 0; i < fn->body->seq.blocks[b].n && !hit; i++) {
        const RxExpr *v = fn->body->seq.blocks[b].bindings[i].var;
        if (!strcmp(v->var.name, f->name)) hit = v;
      }
  if (!hit) return false;
  sb_printf(f->out, "%s: ", f->name);
  if (hit->sinfo) rx_sinfo_str(f->out, hit->sinfo);
  return f->found = true;
}

bool lsp_ir_info(const IrModule *m, const char *func, const char *name, LspSymKind kind, StrBuf *out) {
  if (!m) return false;
  Find f = {name, kind, out, false};
  for (int i = 0; i < m->nfuncs; i++) {
    const IrGlobal *g = &m->funcs[i];
    if (func && strcmp(g->name, func) && kind != LSP_SYM_BLOCK) continue;
    if (g->kind == IR_FUNC_TIR ? tir_info(g->tir, &f) : rx_info(g->rx, &f)) return true;
  }
  return false;
}

typedef struct BlockWalk {
  void (*fn)(void *user, const char *block, const char *func);
  void *user;
  const char *func;
} BlockWalk;

static void walk_blocks(BlockWalk *w, const TirStmt *s) {
  if (!s) return;
  switch (s->kind) {
    case TIR_S_FOR: walk_blocks(w, s->loop.body); return;
    case TIR_S_SEQ:
      for (int i = 0; i < s->seq.n; i++) walk_blocks(w, s->seq.stmts[i]);
      return;
    case TIR_S_BLOCK_REALIZE: walk_blocks(w, s->realize.block); return;
    case TIR_S_BLOCK:
      if (strcmp(s->block.name, "root")) w->fn(w->user, s->block.name, w->func);
      walk_blocks(w, s->block.init);
      walk_blocks(w, s->block.body);
      return;
    case TIR_S_IF: walk_blocks(w, s->ifs.then_s); walk_blocks(w, s->ifs.else_s); return;
    case TIR_S_LET: walk_blocks(w, s->let.body); return;
    case TIR_S_ALLOCATE: walk_blocks(w, s->alloc.body); return;
    case TIR_S_DECL_BUFFER: walk_blocks(w, s->decl.body); return;
    case TIR_S_ATTR: walk_blocks(w, s->attr.body); return;
    default: return;
  }
}

void lsp_ir_blocks(const IrModule *m, void (*fn)(void *user, const char *block, const char *func), void *user) {
  for (int i = 0; m && i < m->nfuncs; i++) {
    if (m->funcs[i].kind != IR_FUNC_TIR) continue;
    BlockWalk w = {fn, user, m->funcs[i].name};
    walk_blocks(&w, m->funcs[i].tir->body);
  }
}
