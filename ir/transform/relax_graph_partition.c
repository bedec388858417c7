/* relax_graph_partition.c - FuseOps' grouping: TVM's IndexedForwardGraph,
 * post-dominator tree and GraphPartitioner over one graph function.
 *
 * Nodes, in post-DFS order: the params (external, opaque), then each binding's
 * var.  A call_tir binding has its prim_func's "op_pattern" (opaque when
 * absent), a tuple item is injective, anything else (high-level calls,
 * tuples, match_cast, aliases, constants) is opaque; each argument var gets
 * an edge to the binding carrying the binding's pattern (match_cast too,
 * unlike TVM, whose FuseOps then stops at a cycle).  A var that is not a
 * DataflowVar (a block output) is external: it never fuses into its users.
 *
 * The post-dominator of a node is the least common ancestor of its users in
 * the tree, and the tree node records the largest edge pattern met on the way.
 * Three phases then walk the nodes in order and merge a node's group into its
 * post-dominator's when every node on the paths between them allows it:
 *   0: an out-ewise-fusable op (matmul, conv2d) through element-wise or
 *      broadcast ops, when its post-dominator edge is element-wise; and an
 *      element-wise/broadcast op into an injective, reduction or
 *      out-ewise-fusable sink through injective paths;
 *   1: the same for element-wise/broadcast ops, and injective ops into
 *      injective sinks;
 *   2: injective ops into tuples (no tuple nodes in graph functions: kept for
 *      the rule set's sake).
 * Groups are a union-find; a merged-in out-ewise-fusable op becomes the
 * group's anchor and pattern, so a matmul+add group keeps absorbing
 * element-wise consumers but not another matmul. */
#include "ir/transform/relax_fusion.h"

#include <stdlib.h>
#include <string.h>

#include "ir/visit.h"
#include "base/util.h"
#include "base/vec.h"

enum { MAX_FUSE_DEPTH = 256 };

typedef struct FEdge {
  int to;              /* consumer node */
  RxOpPattern pattern; /* the consumer's pattern */
} FEdge;

typedef struct FNode {
  const RxExpr *ref;   /* the param or binding var */
  RxOpPattern pattern;
  bool extern_ref;     /* used outside the graph: never fused as a producer */
  FEdge *outs;
  int nouts, capouts;
} FNode;

typedef struct DomNode {
  int parent;          /* immediate post-dominator, -1 = none */
  int depth;
  RxOpPattern pattern; /* largest edge pattern up to the parent */
} DomNode;

typedef struct Group {
  int parent;          /* union-find parent, -1 = root */
  RxOpPattern pattern;
  bool anchor;         /* holds an out-ewise-fusable op */
  int num_nodes;
} Group;

struct RxPartition {
  const IrModule *mod;
  FNode *nodes;
  int n, cap;
  IrPtrMap index;      /* var -> node index + 1 */
  DomNode *dom;
  Group *groups;
  char *visited;
  int num_input;       /* the "num_input" attr, or -1 */
};

static RxOpPattern pmax(RxOpPattern a, RxOpPattern b) { return a > b ? a : b; }

/* ------------------------------------------------------------ the graph */

static int node_add(RxPartition *p, const RxExpr *ref, RxOpPattern pat, bool ext) {
  VEC_RESERVE(p->nodes, p->cap, p->n + 1);
  FNode *nd = &p->nodes[p->n];
  memset(nd, 0, sizeof *nd);
  nd->ref = ref;
  nd->pattern = pat;
  nd->extern_ref = ext;
  ir_ptrmap_put(&p->index, ref, (void *)(intptr_t)(p->n + 1));
  return p->n++;
}

static int node_of(const RxPartition *p, const RxExpr *e) {
  return (int)(intptr_t)ir_ptrmap_get(&p->index, e) - 1;
}

static void edge_add(RxPartition *p, int from, int to, RxOpPattern pat) {
  FNode *nd = &p->nodes[from];
  VEC_PUSH(nd->outs, nd->nouts, nd->capouts, ((FEdge){to, pat}));
}

/* An argument: a var (an edge), or a tuple of them. */
static void leaf_edges(RxPartition *p, const RxExpr *a, int to, RxOpPattern pat) {
  if (!a) return;
  if (a->kind == RX_TUPLE) {
    for (int i = 0; i < a->tuple.n; i++) leaf_edges(p, a->tuple.fields[i], to, pat);
    return;
  }
  int k = node_of(p, a);
  if (k >= 0) edge_add(p, k, to, pat);
}

/* Every var anywhere inside e (values TVM does not fuse: opaque edges). */
static void deep_edges(RxPartition *p, const RxExpr *e, int to) {
  if (!e) return;
  switch (e->kind) {
    case RX_VAR: case RX_DATAFLOW_VAR: leaf_edges(p, e, to, RX_PAT_OPAQUE); return;
    case RX_CALL:
      for (int i = 0; i < e->call.n; i++) deep_edges(p, e->call.args[i], to);
      return;
    case RX_TUPLE:
      for (int i = 0; i < e->tuple.n; i++) deep_edges(p, e->tuple.fields[i], to);
      return;
    case RX_TUPLE_GET_ITEM: deep_edges(p, e->get.tuple, to); return;
    case RX_IF:
      deep_edges(p, e->ifs.cond, to);
      deep_edges(p, e->ifs.then_e, to);
      deep_edges(p, e->ifs.else_e, to);
      return;
    case RX_SEQ:
      for (int b = 0; b < e->seq.nblocks; b++)
        for (int i = 0; i < e->seq.blocks[b].n; i++) deep_edges(p, e->seq.blocks[b].bindings[i].value, to);
      deep_edges(p, e->seq.body, to);
      return;
    default: return;
  }
}

static bool is_call_tir(const RxExpr *e) {
  return e->kind == RX_CALL && e->call.op &&
         (e->call.op->id == RX_OP_CALL_TIR || e->call.op->id == RX_OP_CALL_TIR_INPLACE) && e->call.n >= 2 &&
         e->call.args[0]->kind == RX_GLOBAL_VAR;
}

/* The callee's "op_pattern" attribute; opaque when absent. */
static RxOpPattern call_tir_pattern(const RxPartition *p, const RxExpr *call) {
  const IrGlobal *g = ir_module_lookup(p->mod, call->call.args[0]->gvar.name);
  const IrValue *v = g && g->kind == IR_FUNC_TIR ? irv_dict_get(g->tir->attrs, "op_pattern") : NULL;
  return v && v->kind == IRV_INT ? (RxOpPattern)v->i : RX_PAT_OPAQUE;
}

static bool is_packed_param(const RxPartition *p, const RxFunc *f, const RxExpr *t) {
  for (int i = p->num_input >= 0 ? p->num_input : f->nparams; i < f->nparams; i++)
    if (f->params[i] == t) return true;
  return false;
}

static void graph_binding(RxPartition *p, const RxFunc *f, const RxBinding *b) {
  const RxExpr *v = b->value;
  RxOpPattern pat = RX_PAT_OPAQUE;
  if (!b->cast_to && is_call_tir(v)) pat = call_tir_pattern(p, v);
  else if (!b->cast_to && v->kind == RX_TUPLE_GET_ITEM)
    pat = is_packed_param(p, f, v->get.tuple) ? RX_PAT_OPAQUE : RX_PAT_INJECTIVE;
  int k = node_add(p, b->var, pat, b->var->kind != RX_DATAFLOW_VAR);
  if (b->cast_to) { /* TVM gives match_cast no edges and then fails on the cycle a fused
                     * producer would make through it; an opaque use keeps it unfused */
    deep_edges(p, v, k);
    return;
  }
  if (is_call_tir(v)) leaf_edges(p, v->call.args[1], k, pat);
  else if (v->kind == RX_TUPLE_GET_ITEM) leaf_edges(p, v->get.tuple, k, pat);
  else if (v->kind == RX_CALL && v->call.op)
    for (int i = 0; i < v->call.n; i++) leaf_edges(p, v->call.args[i], k, pat);
  else deep_edges(p, v, k);
}

static void graph_build(RxPartition *p, const RxFunc *f) {
  const IrValue *ni = irv_dict_get(f->attrs, "num_input");
  p->num_input = ni && ni->kind == IRV_INT ? (int)ni->i : -1;
  for (int i = 0; i < f->nparams; i++) node_add(p, f->params[i], RX_PAT_OPAQUE, true);
  const RxExpr *body = f->body;
  if (!body || body->kind != RX_SEQ) return;
  for (int bi = 0; bi < body->seq.nblocks; bi++)
    for (int i = 0; i < body->seq.blocks[bi].n; i++) graph_binding(p, f, &body->seq.blocks[bi].bindings[i]);
}

/* ------------------------------------------------------------ post-dominators */

static int lca2(const RxPartition *p, int l, int r, RxOpPattern *ep) {
  while (l != r) {
    if (l < 0 || r < 0) return -1;
    const DomNode *a = &p->dom[l], *b = &p->dom[r];
    if (a->depth < b->depth) {
      *ep = pmax(*ep, b->pattern);
      r = b->parent;
    } else if (b->depth < a->depth) {
      *ep = pmax(*ep, a->pattern);
      l = a->parent;
    } else {
      *ep = pmax(*ep, pmax(a->pattern, b->pattern));
      l = a->parent;
      r = b->parent;
    }
  }
  return l;
}

static void build_postdom(RxPartition *p) {
  p->dom = xcalloc((size_t)(p->n ? p->n : 1), sizeof *p->dom);
  for (int i = p->n - 1; i >= 0; i--) {
    const FNode *nd = &p->nodes[i];
    DomNode *t = &p->dom[i];
    t->parent = -1;
    t->depth = 1;
    t->pattern = RX_PAT_OPAQUE;
    if (nd->extern_ref || !nd->nouts) {
      if (!nd->extern_ref) t->pattern = RX_PAT_ELEMWISE;
      continue;
    }
    RxOpPattern ep = pmax(RX_PAT_ELEMWISE, nd->outs[0].pattern);
    int parent = nd->outs[0].to;
    for (int k = 1; k < nd->nouts; k++) {
      parent = lca2(p, parent, nd->outs[k].to, &ep);
      ep = pmax(ep, nd->outs[k].pattern);
    }
    t->parent = parent;
    t->depth = parent >= 0 ? p->dom[parent].depth + 1 : 1;
    t->pattern = ep;
  }
}

/* ------------------------------------------------------------ partitioning */

static int find_root(RxPartition *p, int g) {
  int r = g;
  while (p->groups[r].parent >= 0) r = p->groups[r].parent;
  while (g != r) { /* path compression */
    int next = p->groups[g].parent;
    p->groups[g].parent = r;
    g = next;
  }
  return r;
}

static void merge_from_to(RxPartition *p, int child, int parent) {
  child = find_root(p, child);
  parent = find_root(p, parent);
  if (child == parent) return;
  Group *c = &p->groups[child], *t = &p->groups[parent];
  t->num_nodes += c->num_nodes;
  c->parent = parent;
  if (c->anchor) {
    t->anchor = true;
    t->pattern = pmax(c->pattern, t->pattern);
  }
}

typedef enum PathCond {
  COND_LE_BROADCAST,  /* every node element-wise or broadcast */
  COND_INTO_SINK,     /* injective on the way, the sink anything fusable */
  COND_LE_INJECTIVE   /* every node at most injective */
} PathCond;

static bool cond_ok(PathCond c, RxOpPattern k, bool is_sink) {
  switch (c) {
    case COND_LE_BROADCAST: return k <= RX_PAT_BROADCAST;
    case COND_INTO_SINK:
      return is_sink ? k <= RX_PAT_OUT_EWISE_FUSABLE : k <= RX_PAT_INJECTIVE;
    case COND_LE_INJECTIVE: return k <= RX_PAT_INJECTIVE;
  }
  return false;
}

static bool check_path_(RxPartition *p, int src, int sink, PathCond c) {
  if (p->visited[src]) return true;
  p->visited[src] = 1;
  if (!cond_ok(c, p->groups[find_root(p, src)].pattern, src == sink)) return false;
  if (src == sink) return true;
  for (int k = 0; k < p->nodes[src].nouts; k++)
    if (!check_path_(p, p->nodes[src].outs[k].to, sink, c)) return false;
  return true;
}

/* Every path from src (exclusive) to sink satisfies c. */
static bool check_path(RxPartition *p, int src, int sink, PathCond c) {
  memset(p->visited, 0, (size_t)p->n);
  for (int k = 0; k < p->nodes[src].nouts; k++)
    if (!check_path_(p, p->nodes[src].outs[k].to, sink, c)) return false;
  return true;
}

static void commit_fuse_(RxPartition *p, int src, int sink, int target) {
  if (src == sink || p->visited[src]) return;
  p->visited[src] = 1;
  merge_from_to(p, src, target);
  for (int k = 0; k < p->nodes[src].nouts; k++) commit_fuse_(p, p->nodes[src].outs[k].to, sink, target);
}

/* Merges every node on the paths from src to sink into sink's group. */
static void commit_fuse(RxPartition *p, int src, int sink) {
  memset(p->visited, 0, (size_t)p->n);
  commit_fuse_(p, src, sink, sink);
}

static int count_upto_sink(RxPartition *p, int src, int sink) {
  if (src == sink || p->visited[src]) return 0;
  p->visited[src] = 1;
  int sum = p->groups[src].num_nodes;
  for (int k = 0; k < p->nodes[src].nouts; k++) sum += count_upto_sink(p, p->nodes[src].outs[k].to, sink);
  return sum;
}

static int count_fused_nodes(RxPartition *p, int child, int dom_parent) {
  memset(p->visited, 0, (size_t)p->n);
  return p->groups[find_root(p, dom_parent)].num_nodes + count_upto_sink(p, child, dom_parent);
}

/* Tries to fuse node nid into its post-dominator in this phase. */
static void fuse_node(RxPartition *p, int nid, int phase) {
  const Group *g = &p->groups[nid];
  const DomNode *dn = &p->dom[nid];
  if (g->pattern == RX_PAT_OPAQUE || dn->parent < 0) return;
  int dp = dn->parent;
  if (count_fused_nodes(p, nid, dp) > MAX_FUSE_DEPTH) return;
  if (phase == 2) {
    /* injective ops into intermediate tuples */
    if (g->pattern > RX_PAT_INJECTIVE) return;
    RxOpPattern root_pat = p->groups[find_root(p, dp)].pattern;
    if (root_pat == RX_PAT_TUPLE) return;
    if (p->groups[dp].pattern == RX_PAT_TUPLE && root_pat <= RX_PAT_INJECTIVE &&
        check_path(p, nid, dp, COND_LE_INJECTIVE))
      commit_fuse(p, nid, dp);
    return;
  }
  if (find_root(p, nid) == find_root(p, dp)) return;
  if (p->groups[dp].pattern == RX_PAT_TUPLE) return;
  if (g->pattern == RX_PAT_OUT_EWISE_FUSABLE) {
    /* matmul/conv2d: its element-wise epilogue */
    if (phase == 0 && dn->pattern == RX_PAT_ELEMWISE && check_path(p, nid, dp, COND_LE_BROADCAST))
      commit_fuse(p, nid, dp);
  } else if (g->pattern <= RX_PAT_BROADCAST) {
    if ((dn->pattern <= RX_PAT_INJECTIVE || dn->pattern == RX_PAT_COMM_REDUCE) &&
        check_path(p, nid, dp, COND_INTO_SINK))
      commit_fuse(p, nid, dp);
  } else if (g->pattern == RX_PAT_INJECTIVE || g->pattern == RX_PAT_TUPLE) {
    /* after phase 0, so that conv2d groups are complete first */
    if (phase == 1 && check_path(p, nid, dp, COND_LE_INJECTIVE)) commit_fuse(p, nid, dp);
  }
}

RxPartition *rx_partition_func(const IrModule *m, const RxFunc *f) {
  RxPartition *p = xcalloc(1, sizeof *p);
  p->mod = m;
  ir_ptrmap_init(&p->index);
  graph_build(p, f);
  build_postdom(p);
  p->groups = xcalloc((size_t)(p->n ? p->n : 1), sizeof *p->groups);
  p->visited = xcalloc((size_t)(p->n ? p->n : 1), 1);
  for (int i = 0; i < p->n; i++) {
    p->groups[i].parent = -1;
    p->groups[i].pattern = p->nodes[i].pattern;
    p->groups[i].anchor = p->nodes[i].pattern == RX_PAT_OUT_EWISE_FUSABLE;
    p->groups[i].num_nodes = 1;
  }
  for (int phase = 0; phase < 3; phase++)
    for (int i = 0; i < p->n; i++) fuse_node(p, i, phase);
  return p;
}

void rx_partition_free(RxPartition *p) {
  if (!p) return;
  for (int i = 0; i < p->n; i++) free(p->nodes[i].outs);
  free(p->nodes);
  ir_ptrmap_free(&p->index);
  free(p->dom);
  free(p->groups);
  free(p->visited);
  free(p);
}

int rx_partition_group(RxPartition *p, const RxExpr *var) {
  int k = node_of(p, var);
  return k < 0 ? -1 : find_root(p, k);
}

int rx_partition_group_size(const RxPartition *p, int group) {
  return group >= 0 && group < p->n ? p->groups[group].num_nodes : 0;
}

int rx_partition_num_nodes(const RxPartition *p) { return p->n; }
