/* builtins.c - the names of the builtin namespaces T., R., I. and te.
 *
 * One table answers "is this a known builtin?" for every elaborator, so that
 * an unknown `T.gird` gets a "did you mean 'T.grid'?" instead of a bare error.
 * Intrinsics and Relax operators come from their .def tables; dtype
 * constructors (T.float32, T.int8x4, ...) are recognised by parsing. */
#include "lang/elab_internal.h"
#include "base/util.h"

#include <string.h>

/* Hand-listed names: TVMScript constructs (reference/tir_surface.md sections
 * 3-4, relax_surface.md) that are not intrinsics or operators. */
static const char *const builtin_names[] = {
    /* T: function and module level */
    "T.prim_func", "T.handle", "T.Buffer", "T.match_buffer", "T.func_attr", "T.macro",
    "T.meta_var", "T.Ptr", "T.let",
    /* T: loops */
    "T.grid", "T.serial", "T.parallel", "T.vectorized", "T.unroll", "T.thread_binding",
    "T.vscale",
    /* T: blocks */
    "T.block", "T.sblock", "T.axis.spatial", "T.axis.S", "T.axis.reduce", "T.axis.R",
    "T.axis.scan", "T.axis.opaque", "T.axis.remap", "T.reads", "T.writes", "T.where",
    "T.init", "T.alloc_buffer", "T.sblock_alloc_buffer", "T.block_attr", "T.sblock_attr",
    "T.decl_buffer", "T.allocate_const",
    /* T: expressions and statements */
    "T.Cast", "T.cast", "T.max", "T.min", "T.Select", "T.floordiv", "T.floormod",
    "T.truncdiv", "T.truncmod", "T.ceildiv", "T.abs", "T.min_value", "T.max_value",
    "T.evaluate", "T.q_multiply_shift", "T.q_multiply_shift_per_axis", "T.tvm_fill_fragment",
    "T.tvm_load_matrix_sync", "T.tvm_store_matrix_sync", "T.tvm_mma_sync", "T.tvm_access_ptr",
    "T.type_annotation", "T.launch_thread", "T.env_thread", "T.attr", "T.allocate",
    "T.LetStmt", "T.Let", "T.realize", "T.Assert", "T.While", "T.If", "T.Then", "T.Else",
    "T.ramp", "T.Ramp", "T.broadcast", "T.Broadcast", "T.comm_reducer", "T.tvm_struct_get",
    "T.tvm_struct_set", "T.ptr", "T.buffer_store", "T.target",
    /* T: dtype constructors (others such as T.float32x4 are recognised by parsing) */
    "T.bool", "T.int8", "T.int16", "T.int32", "T.int64", "T.uint8", "T.uint16", "T.uint32",
    "T.uint64", "T.float16", "T.bfloat16", "T.float32", "T.float64", "T.void",
    /* R */
    "R.function", "R.Tensor", "R.Tuple", "R.Shape", "R.Prim", "R.Object", "R.dataflow",
    "R.output", "R.const", "R.shape", "R.match_cast", "R.func_attr", "R.prim_value",
    "R.str", "R.dtype", "R.ExternFunc", "R.Callable",
    /* I */
    "I.ir_module", "I.module_attrs", "I.module_global_infos",
    /* te */
    "te.prim_func", "te.placeholder", "te.compute", "te.reduce_axis", "te.sum", "te.max",
    "te.min",
};

static const char *const intrinsic_names[] = {
#define X(E, S, T, N, K, L, M, C, I) "T." S,
#include "ir/tir_ops.def"
#undef X
};

static const char *const relax_op_names[] = {
#define X(ID, S, N, MIN, MAX, PAT, ATTRS, INFER, EVAL, LEGAL, BINOP) "R." S,
#include "ir/relax_ops.def"
#undef X
};

#define NELEMS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static bool in_table(const char *const *tab, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (!strcmp(tab[i], name)) return true;
  return false;
}

bool builtin_known(const char *canonical) {
  if (!canonical) return false;
  if (in_table(builtin_names, NELEMS(builtin_names), canonical) ||
      in_table(intrinsic_names, NELEMS(intrinsic_names), canonical) ||
      in_table(relax_op_names, NELEMS(relax_op_names), canonical))
    return true;
  DType t;
  return !strncmp(canonical, "T.", 2) && canonical[2] && dt_parse(canonical + 2, &t);
}

/* Length of the namespace prefix including the dot ("T." -> 2), 0 if none. */
static size_t ns_prefix_len(const char *s) {
  const char *dot = strchr(s, '.');
  return dot ? (size_t)(dot - s) + 1 : 0;
}

static void consider(const char *query, size_t plen, const char *cand, const char **best,
                     int *best_d) {
  if (strncmp(query, cand, plen) != 0 || ns_prefix_len(cand) != plen) return;
  int d = edit_distance(query + plen, cand + plen);
  if (d < *best_d) {
    *best_d = d;
    *best = cand;
  }
}

const char *builtin_suggest(const char *canonical) {
  if (!canonical) return NULL;
  size_t plen = ns_prefix_len(canonical);
  if (plen == 0) return NULL;
  const char *best = NULL;
  int best_d = 1 << 20;
  for (int i = 0; i < NELEMS(builtin_names); i++)
    consider(canonical, plen, builtin_names[i], &best, &best_d);
  for (int i = 0; i < NELEMS(intrinsic_names); i++)
    consider(canonical, plen, intrinsic_names[i], &best, &best_d);
  for (int i = 0; i < NELEMS(relax_op_names); i++)
    consider(canonical, plen, relax_op_names[i], &best, &best_d);
  if (!best) return NULL;
  int len = (int)strlen(canonical + plen);
  int limit = len / 3 > 2 ? len / 3 : 2;
  /* A one- or two-letter name is "close" to almost anything; stay quiet. */
  if (len <= 2) limit = 1;
  return best_d <= limit && best_d > 0 ? best : NULL;
}

const char *builtin_name_at(int i) {
  if (i < 0) return NULL;
  if (i < NELEMS(builtin_names)) return builtin_names[i];
  i -= NELEMS(builtin_names);
  if (i < NELEMS(intrinsic_names)) return intrinsic_names[i];
  i -= NELEMS(intrinsic_names);
  return i < NELEMS(relax_op_names) ? relax_op_names[i] : NULL;
}
