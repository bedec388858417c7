/* printer_dot.c - a graph function as a Graphviz digraph, for looking at what
 * the graph passes did (`tvs show m.tvs --stage fuse-tir --format dot | dot -Tsvg`).
 *
 *   parameters      ellipses: "x" and its struct info
 *   bindings        boxes: "lv0 = R.matmul" / "lv0 = call_tir fused_matmul_add"
 *   constants       grey boxes with their shape
 *   edges           operand -> user, labelled with the tensor's shape and dtype
 *   fused kernels   a call_tir of a prim_func holding several blocks (what
 *                   FuseTIR makes) is a cluster: the call, and inside it the
 *                   prim_func's blocks in order; a call of a Primitive graph
 *                   function (FuseOps' groups) is a cluster of its bindings.
 *   the result      a double octagon "return". */
#include "ir/printer.h"

#include <string.h>

#include "ir/relax.h"
#include "ir/relax_op.h"
#include "ir/visit.h"

typedef struct Dot {
  StrBuf *out;
  const IrModule *m;
  IrPtrMap ids;   /* RxExpr var (or const) -> node id (int stored as pointer + 1) */
  int next;       /* next node id */
  int clusters;   /* clusters made so far */
} Dot;

/* A DOT string literal body: quotes and backslashes escaped. */
static void esc(StrBuf *sb, const char *s) {
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') sb_putc(sb, '\\');
    if (*s == '\n') {
      sb_puts(sb, "\\n");
      continue;
    }
    sb_putc(sb, *s);
  }
}

/* "(1, 128) float32" for a tensor, its R.* spelling otherwise. */
static void sinfo_label(StrBuf *sb, const RxSInfo *s) {
  if (!s) return;
  if (s->kind == RX_SI_TENSOR && s->shape) {
    char buf[DT_STR_MAX];
    rx_shape_str(sb, s->shape, s->ndim);
    if (!dt_is_void(s->dtype)) sb_printf(sb, " %s", dt_str(s->dtype, buf));
    return;
  }
  rx_sinfo_str(sb, s);
}

static int node_of(Dot *d, const RxExpr *e) {
  void *v = ir_ptrmap_get(&d->ids, e);
  return v ? (int)((intptr_t)v - 1) : -1;
}

static int new_node(Dot *d, const RxExpr *key, const char *attrs, const char *label, int indent) {
  int id = d->next++;
  if (key) ir_ptrmap_put(&d->ids, key, (void *)(intptr_t)(id + 1));
  sb_printf(d->out, "%*sn%d [%s, label=\"", indent, "", id, attrs);
  esc(d->out, label);
  sb_puts(d->out, "\"];\n");
  return id;
}

/* The names of a prim_func's blocks (root excluded), in order. */
static bool collect_block(TirVisitor *v, const TirStmt *s) {
  PtrVec *names = v->ctx;
  if (s->kind == TIR_S_BLOCK && s->block.name && strcmp(s->block.name, "root")) pv_push(names, (void *)s->block.name);
  return true;
}

static const char *callee_name(const RxExpr *call) {
  if (call->call.n > 0 && call->call.args[0] && call->call.args[0]->kind == RX_GLOBAL_VAR)
    return call->call.args[0]->gvar.name;
  return NULL;
}

/* Edges from each operand (vars, constants, tuple fields) into node `to`. */
static void operand_edges(Dot *d, const RxExpr *e, int to, int indent) {
  if (!e) return;
  if (e->kind == RX_TUPLE) {
    for (int i = 0; i < e->tuple.n; i++) operand_edges(d, e->tuple.fields[i], to, indent);
    return;
  }
  int from = node_of(d, e);
  if (from < 0 && e->kind == RX_CONST) {
    StrBuf l;
    sb_init(&l);
    sb_puts(&l, "const ");
    sinfo_label(&l, e->sinfo);
    from = new_node(d, e, "shape=box, style=filled, fillcolor=\"#e8e8e8\"", l.data, indent);
    sb_free(&l);
  }
  if (from < 0) return;
  StrBuf l;
  sb_init(&l);
  sinfo_label(&l, e->sinfo);
  sb_printf(d->out, "%*sn%d -> n%d [label=\"", indent, "", from, to);
  esc(d->out, l.data);
  sb_puts(d->out, "\"];\n");
  sb_free(&l);
}

static void call_operands(Dot *d, const RxExpr *v, int to, int indent) {
  if (v->kind == RX_CALL) {
    bool dps = v->call.op && (v->call.op->id == RX_OP_CALL_TIR || v->call.op->id == RX_OP_CALL_TIR_INPLACE ||
                              v->call.op->id == RX_OP_CALL_DPS_PACKED);
    for (int i = dps ? 1 : 0; i < v->call.n; i++) operand_edges(d, v->call.args[i], to, indent);
  } else if (v->kind == RX_TUPLE_GET_ITEM) {
    operand_edges(d, v->get.tuple, to, indent);
  } else {
    operand_edges(d, v, to, indent);
  }
}

/* A call_tir of a multi-block prim_func: a cluster of the call and its blocks. */
static int fused_cluster(Dot *d, const RxExpr *var, const char *label, const TirFunc *f, int indent) {
  PtrVec names = {0};
  TirVisitor tv;
  memset(&tv, 0, sizeof tv);
  tv.pre_stmt = collect_block;
  tv.ctx = &names;
  tir_visit_func(&tv, f);
  if (names.len < 2) {
    pv_free(&names);
    return -1;
  }
  sb_printf(d->out, "%*ssubgraph cluster_%d {\n%*sstyle=rounded; color=\"#4a7bd0\"; label=\"", indent, "",
            d->clusters++, indent + 2, "");
  esc(d->out, callee_name(var) ? callee_name(var) : "fused");
  sb_puts(d->out, "\";\n");
  int id = new_node(d, NULL, "shape=box, style=\"rounded,filled\", fillcolor=\"#dbe7fb\"", label, indent + 2);
  int prev = -1;
  for (int i = 0; i < names.len; i++) {
    int b = new_node(d, NULL, "shape=plaintext, fontsize=10", names.items[i], indent + 2);
    if (prev >= 0) sb_printf(d->out, "%*sn%d -> n%d [style=dotted, arrowsize=0.5];\n", indent + 2, "", prev, b);
    prev = b;
  }
  sb_printf(d->out, "%*s}\n", indent, "");
  pv_free(&names);
  return id;
}

static void binding_node(Dot *d, const RxBinding *b, int indent) {
  const RxExpr *v = b->value;
  StrBuf l;
  sb_init(&l);
  sb_printf(&l, "%s = ", b->var->var.name);
  const TirFunc *callee = NULL;
  if (v->kind == RX_CALL && v->call.op) {
    const char *cn = callee_name(v);
    if (cn && v->call.op->id == RX_OP_CALL_TIR) {
      const IrGlobal *g = ir_module_lookup(d->m, cn);
      if (g && g->kind == IR_FUNC_TIR) callee = g->tir;
      sb_printf(&l, "call_tir %s", cn);
    } else {
      sb_printf(&l, "R.%s", v->call.op->script_name);
    }
  } else if (v->kind == RX_TUPLE_GET_ITEM) {
    sb_printf(&l, "[%d]", v->get.index);
  } else if (v->kind == RX_TUPLE) {
    sb_puts(&l, "tuple");
  } else if (v->kind == RX_CONST) {
    sb_puts(&l, "R.const");
  } else {
    sb_puts(&l, "value");
  }
  sb_puts(&l, "\n");
  sinfo_label(&l, b->var->sinfo);
  int id = callee ? fused_cluster(d, v, l.data, callee, indent) : -1;
  if (id < 0) id = new_node(d, NULL, "shape=box, style=rounded", l.data, indent);
  call_operands(d, v, id, indent);
  ir_ptrmap_put(&d->ids, b->var, (void *)(intptr_t)(id + 1));
  sb_free(&l);
}

static void func_graph(Dot *d, const RxFunc *f, const char *name) {
  sb_printf(d->out, "  subgraph cluster_%d {\n    label=\"", d->clusters++);
  esc(d->out, name);
  sb_puts(d->out, "\"; color=\"#999999\";\n");
  for (int i = 0; i < f->nparams; i++) {
    StrBuf l;
    sb_init(&l);
    sb_printf(&l, "%s\n", f->params[i]->var.name);
    sinfo_label(&l, f->params[i]->sinfo);
    new_node(d, f->params[i], "shape=ellipse", l.data, 4);
    sb_free(&l);
  }
  const RxExpr *body = f->body;
  if (body && body->kind == RX_SEQ) {
    for (int bi = 0; bi < body->seq.nblocks; bi++)
      for (int i = 0; i < body->seq.blocks[bi].n; i++) binding_node(d, &body->seq.blocks[bi].bindings[i], 4);
    body = body->seq.body;
  }
  int ret = new_node(d, NULL, "shape=doubleoctagon", "return", 4);
  if (body) operand_edges(d, body, ret, 4);
  sb_puts(d->out, "  }\n");
}

void print_module_dot(StrBuf *out, const IrModule *m) {
  Dot d = {out, m, {0}, 0, 0};
  ir_ptrmap_init(&d.ids);
  sb_printf(out, "digraph \"%s\" {\n  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=11];\n"
                 "  edge [fontname=\"Helvetica\", fontsize=9];\n",
            m->name ? m->name : "Module");
  for (int i = 0; i < m->nfuncs; i++) {
    const IrGlobal *g = &m->funcs[i];
    if (g->kind != IR_FUNC_RELAX) continue;
    const IrValue *prim = irv_dict_get(g->rx->attrs, "Primitive");
    if (prim) continue; /* drawn where they are called */
    func_graph(&d, g->rx, g->name);
  }
  sb_puts(out, "}\n");
  ir_ptrmap_free(&d.ids);
}
