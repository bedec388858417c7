/* legalize_template.h - legalization through the operator library: a call
 * becomes a specialized stdlib/ template (TVM's bb.call_te(topi.nn.X, ...)).
 *
 * The template's input buffers are unified with the call's operands (a
 * template dim that is a plain var is bound to the operand's dim, mapped to
 * the prim_func's own size vars), its output buffer with the call's result,
 * and its attribute vars are bound by name; tir_specialize does the rest. */
#ifndef TVS_IR_TRANSFORM_LEGALIZE_TEMPLATE_H
#define TVS_IR_TRANSFORM_LEGALIZE_TEMPLATE_H

#include "ir/transform/legalize_internal.h"

/* One attribute var of a template and its value. */
typedef struct LgBind {
  const char *name; /* the template's var: "stride_h" */
  int64_t value;
} LgBind;

/* The prim_func of template tmpl specialized for call (operands = the
 * template's inputs, in order: nin of call's args) with binds[0..nb);
 * args[0..*nargs) get the operands.  NULL when the template is unknown or
 * cannot be unified (the call then stays as it is). */
TirFunc *lg_from_template(Lg *g, const char *tmpl, const RxExpr *call, int nin, const LgBind *binds, int nb,
                          RxExpr **args, int *nargs);

#endif
