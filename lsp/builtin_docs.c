/* builtin_docs.c - signatures and one-line summaries of the builtins, for
 * hover, completion and signature help.  The common TVMScript constructs are
 * described here (TVM's Python signatures); intrinsics and graph operators
 * get theirs from their tables (ir/tir_ops.def, ir/relax_ops.def). */
#include <string.h>

#include "ir/relax.h"
#include "ir/tir.h"
#include "lsp/lsp_internal.h"

typedef struct BuiltinDoc {
  const char *name, *sig, *doc;
} BuiltinDoc;

static const BuiltinDoc docs[] = {
    {"T.prim_func", "@T.prim_func(private=False)", "Declares a TensorIR function (a PrimFunc)."},
    {"T.Buffer", "T.Buffer(shape, dtype=\"float32\", data=None, strides=None, elem_offset=None, scope=\"global\", align=0, offset_factor=0)",
     "A buffer: a parameter annotation or a buffer declaration."},
    {"T.match_buffer", "T.match_buffer(param, shape, dtype=\"float32\", strides=None, elem_offset=None, scope=\"global\", align=-1, offset_factor=0)",
     "Binds a handle parameter (or a buffer region) to a buffer of the given shape."},
    {"T.alloc_buffer", "T.alloc_buffer(shape, dtype=\"float32\", data=None, strides=None, elem_offset=None, scope=\"global\", align=-1, offset_factor=0)",
     "Allocates a buffer in the enclosing block."},
    {"T.decl_buffer", "T.decl_buffer(shape, dtype=\"float32\", data=None, scope=\"global\")", "Declares a buffer over existing memory."},
    {"T.grid", "T.grid(*extents)", "Nested serial loops over the given extents: for i, j in T.grid(M, N)."},
    {"T.serial", "T.serial(start, stop=None, *, annotations=None)", "A serial loop."},
    {"T.parallel", "T.parallel(start, stop=None, *, annotations=None)", "A parallel loop (its iterations run on several threads)."},
    {"T.vectorized", "T.vectorized(start, stop=None, *, annotations=None)", "A vectorized loop."},
    {"T.unroll", "T.unroll(start, stop=None, *, annotations=None)", "A loop to unroll."},
    {"T.thread_binding", "T.thread_binding(start, stop=None, thread=\"threadIdx.x\", *, annotations=None)", "A loop bound to a GPU thread axis."},
    {"T.block", "T.block(name_hint=\"\", no_realize=False)", "A block: the unit of computation that schedules transform."},
    {"T.sblock", "T.sblock(name_hint=\"\", no_realize=False)", "A block (TVM's newer spelling of T.block)."},
    {"T.axis.spatial", "T.axis.spatial(dom, binding, dtype=\"int32\")", "A spatial (data-parallel) block iter var bound to a loop expression."},
    {"T.axis.S", "T.axis.S(dom, binding, dtype=\"int32\")", "Short form of T.axis.spatial."},
    {"T.axis.reduce", "T.axis.reduce(dom, binding, dtype=\"int32\")", "A reduction block iter var bound to a loop expression."},
    {"T.axis.R", "T.axis.R(dom, binding, dtype=\"int32\")", "Short form of T.axis.reduce."},
    {"T.axis.scan", "T.axis.scan(dom, binding, dtype=\"int32\")", "A scan (ordered) block iter var."},
    {"T.axis.opaque", "T.axis.opaque(dom, binding, dtype=\"int32\")", "An opaque block iter var."},
    {"T.axis.remap", "T.axis.remap(kinds, bindings, dtype=\"int32\")",
     "Several block iter vars at once: kinds is a string of S (spatial) and R (reduce)."},
    {"T.reads", "T.reads(*buffer_slices)", "The buffer regions a block reads (inferred when absent)."},
    {"T.writes", "T.writes(*buffer_slices)", "The buffer regions a block writes (inferred when absent)."},
    {"T.where", "T.where(predicate)", "The block's predicate: it runs only where predicate holds."},
    {"T.init", "T.init()", "The initialisation of a reduction block, run at the first reduction iteration."},
    {"T.block_attr", "T.block_attr(attrs)", "Annotations of the enclosing block."},
    {"T.func_attr", "T.func_attr(attrs)", "Attributes of the function (global_symbol, tir.noalias, ...)."},
    {"T.handle", "T.handle(dtype=None)", "A handle parameter (bound to a buffer by T.match_buffer)."},
    {"T.cast", "T.cast(value, dtype)", "Converts value to dtype."},
    {"T.Cast", "T.Cast(dtype, value)", "Converts value to dtype."},
    {"T.max", "T.max(a, b)", "The larger of a and b."},
    {"T.min", "T.min(a, b)", "The smaller of a and b."},
    {"T.Select", "T.Select(cond, true_value, false_value)", "Chooses a value (both are evaluated)."},
    {"T.floordiv", "T.floordiv(a, b)", "Division rounding towards minus infinity."},
    {"T.floormod", "T.floormod(a, b)", "The remainder of floordiv."},
    {"T.truncdiv", "T.truncdiv(a, b)", "Division rounding towards zero."},
    {"T.truncmod", "T.truncmod(a, b)", "The remainder of truncdiv."},
    {"T.ceildiv", "T.ceildiv(a, b)", "Division rounding up."},
    {"T.min_value", "T.min_value(dtype)", "The smallest value of dtype."},
    {"T.max_value", "T.max_value(dtype)", "The largest value of dtype."},
    {"T.evaluate", "T.evaluate(value)", "Evaluates an expression as a statement."},
    {"R.function", "@R.function(pure=True, private=False)", "Declares a graph (Relax) function."},
    {"R.Tensor", "R.Tensor(shape=None, dtype=None, ndim=-1)", "The struct info of a tensor."},
    {"R.Tuple", "R.Tuple(*fields)", "The struct info of a tuple."},
    {"R.Shape", "R.Shape(values=None, ndim=-1)", "The struct info of a shape."},
    {"R.dataflow", "R.dataflow()", "A dataflow block: pure bindings, outputs marked by R.output."},
    {"R.output", "R.output(*vars)", "The variables a dataflow block exposes."},
    {"R.call_tir", "R.call_tir(gvar, args, out_sinfo, tir_vars=None)", "Calls a prim_func in destination-passing style."},
    {"R.const", "R.const(value, dtype=None)", "A constant tensor."},
    {"R.match_cast", "R.match_cast(value, struct_info)", "Checks value against struct_info and binds its symbolic dims."},
    {"I.ir_module", "@I.ir_module", "Declares a module (a class of functions)."},
    {"te.compute", "te.compute(shape, fcompute, name=\"compute\")", "A tensor computed element by element."},
    {"te.placeholder", "te.placeholder(shape, dtype=\"float32\", name=\"placeholder\")", "An input tensor."},
    {"te.reduce_axis", "te.reduce_axis(dom, name=\"rv\")", "A reduction axis."},
};

static void args_sig(StrBuf *sig, const char *name, int nargs) {
  sb_printf(sig, "%s(", name);
  static const char *const argn[] = {"x", "y", "z", "w"};
  if (nargs < 0) sb_puts(sig, "*args");
  for (int i = 0; i < nargs; i++) sb_printf(sig, "%s%s", i ? ", " : "", i < 4 ? argn[i] : "arg");
  sb_puts(sig, ")");
}

bool lsp_builtin_doc(const char *dotted, StrBuf *sig, StrBuf *doc) {
  for (size_t i = 0; i < sizeof docs / sizeof *docs; i++)
    if (!strcmp(docs[i].name, dotted)) {
      sb_puts(sig, docs[i].sig);
      sb_puts(doc, docs[i].doc);
      return true;
    }
  if (!strncmp(dotted, "T.", 2)) {
    const TirOpInfo *op = tir_op_lookup(dotted + 2);
    if (op) {
      args_sig(sig, dotted, op->nargs);
      sb_printf(doc, "intrinsic %s", op->tvm_name);
      return true;
    }
    DType t;
    if (dt_parse(dotted + 2, &t)) {
      sb_printf(sig, "%s(value=None)", dotted);
      sb_printf(doc, "a %s scalar (a size var when called without a value)", dotted + 2);
      return true;
    }
  }
  if (!strncmp(dotted, "R.", 2)) {
    const RxOpInfo *op = rx_op_lookup(dotted + 2);
    if (!op) return false;
    sb_printf(sig, "%s(", dotted);
    static const char *const argn[] = {"x1", "x2", "x3", "x4"};
    for (int i = 0; i < op->max_args && i < 4; i++) sb_printf(sig, "%s%s", i ? ", " : "", argn[i]);
    for (int i = 0; op->attrs && i < op->attrs->n; i++) {
      const RxAttrSpec *a = &op->attrs->specs[i];
      sb_printf(sig, "%s%s", op->max_args > 0 || i ? ", " : "", a->name);
      if (a->default_text && a->default_text[0] != '=') sb_printf(sig, "=%s", a->default_text);
    }
    sb_puts(sig, ")");
    sb_printf(doc, "graph operator %s (%s)", op->name, rx_op_pattern_name(op->pattern));
    return true;
  }
  return false;
}
