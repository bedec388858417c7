/* verify.c - well-formedness of a scheduled function, checked after every
 * primitive when a schedule has a debug_mask (TVM verifies its sref tree and
 * cached flags after each step under debug_mask="all").
 *
 * The IR rules live in ir/verify.c (tir_verify_func_flags with
 * TIR_VERIFY_SCHEDULE): they catch what a buggy primitive leaves behind - a
 * loop or block iter var used outside the statement that defines it (a block
 * body must be isolated: it sees its own and enclosing blocks' iters, not the
 * loops around it), a buffer allocated by one block used outside it, a
 * realize whose binding count differs from its iters, a binding whose range
 * (under loops of constant extent, without a predicate or an enclosing if)
 * leaves its iter's domain, a region whose rank differs from its buffer's, a
 * leaf block accessing a buffer missing from its reads/writes.  Here is
 * added what needs the language: the printed form must parse back to an
 * equal function. */
#include <stdlib.h>

#include "ir/structural_equal.h"
#include "ir/verify.h"
#include "lang/elab.h"
#include "sched/sched_internal.h"

/* The function printed and parsed back is structurally equal to it. */
static bool round_trips(const IrModule *m, const char *func, StrBuf *why) {
  StrBuf sb;
  sb_init(&sb);
  PrintOptions opt = print_options_default();
  print_module(&sb, m, &opt);
  SourceFile *src = src_from_string("<verify>", sb.data, sb.len);
  DiagCtx d;
  diag_init(&d, NULL);
  IrModule *back = tvs_load_module(src, &d);
  bool ok = false;
  if (!back || d.nerr) {
    sb_printf(why, "the printed module does not parse back%s%s", d.len ? ": " : "", d.len ? d.items[0].msg : "");
  } else {
    const IrGlobal *a = ir_module_lookup(m, func), *b = ir_module_lookup(back, func);
    char *diff = NULL;
    SEqualOptions eqo = {false, true}; /* free vars are parsed back as new ones */
    ok = a && b && a->kind == IR_FUNC_TIR && b->kind == IR_FUNC_TIR && seq_tir_func(a->tir, b->tir, &eqo, &diff);
    if (!ok) sb_printf(why, "the printed function parses back different: %s", diff ? diff : "?");
    free(diff);
  }
  ir_module_free(back);
  diag_free(&d);
  src_free(src);
  sb_free(&sb);
  return ok;
}

bool sch_verify_func(Schedule *s, const char *func, StrBuf *why) {
  const IrGlobal *g = ir_module_lookup(sch_mod(s), func);
  if (!g || g->kind != IR_FUNC_TIR) return true;
  if (!tir_verify_func_flags(g->tir, TIR_VERIFY_SCHEDULE, why)) return false;
  return round_trips(sch_mod(s), func, why);
}
