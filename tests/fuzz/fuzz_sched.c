/* fuzz_sched.c - libFuzzer target: schedule scripts against a fixed module.
 *
 * The input is a schedule script (`b = sch.get_block("C")`, `sch.split(...)`)
 * run statement by statement on a fixed three-block function (an elementwise
 * producer, a matmul reduction, an elementwise consumer) with the schedule's
 * debug mask on, so every primitive is re-verified.  Each statement either
 * applies, leaving a well-formed function, or is refused with an error and
 * (when it is a single step) the module unchanged (byte-equal printed text). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/printer.h"
#include "ir/verify.h"
#include "lang/elab.h"
#include "parser/parser.h"
#include "sched/schedule.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long n_applied, n_refused; /* statements, for the replay's report */

static const char fixed_module[] =
    "@T.prim_func\n"
    "def main(A: T.Buffer((16, 16), \"float32\"), W: T.Buffer((16, 16), \"float32\"),\n"
    "         D: T.Buffer((16, 16), \"float32\")):\n"
    "    B = T.alloc_buffer((16, 16), \"float32\")\n"
    "    C = T.alloc_buffer((16, 16), \"float32\")\n"
    "    for i, j in T.grid(16, 16):\n"
    "        with T.block(\"B\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            B[vi, vj] = A[vi, vj] * T.float32(2)\n"
    "    for i, j, k in T.grid(16, 16, 16):\n"
    "        with T.block(\"C\"):\n"
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "            with T.init():\n"
    "                C[vi, vj] = T.float32(0)\n"
    "            C[vi, vj] = C[vi, vj] + B[vi, vk] * W[vj, vk]\n"
    "    for i, j in T.grid(16, 16):\n"
    "        with T.block(\"D\"):\n"
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
    "            D[vi, vj] = T.max(C[vi, vj], T.float32(0))\n";

static IrModule *load_fixed(void) {
  static IrModule *m;
  static SourceFile *src; /* kept with m: its spans point into the text */
  if (m) return m;
  src = src_from_string("fixed.tvs", fixed_module, sizeof fixed_module - 1);
  DiagCtx d;
  diag_init(&d, stderr);
  m = tvs_load_module(src, &d);
  diag_free(&d);
  if (!m) abort();
  return m; /* kept for the whole run */
}

static char *print_text(const IrModule *m) {
  PrintOptions opt = print_options_default();
  StrBuf sb;
  sb_init(&sb);
  print_module(&sb, m, &opt);
  return sb_take(&sb);
}

/* Every function of m is well formed, with the rules of scheduled IR. */
static void check_well_formed(const IrModule *m, const Ast *st) {
  for (int i = 0; i < m->nfuncs; i++) {
    if (m->funcs[i].kind != IR_FUNC_TIR) continue;
    StrBuf why;
    sb_init(&why);
    if (!tir_verify_func_flags(m->funcs[i].tir, TIR_VERIFY_SCHEDULE, &why)) {
      fprintf(stderr, "statement at line %u applied but left an ill-formed function: %s\n", st->span.line,
              why.data);
      abort();
    }
    sb_free(&why);
  }
}

/* Whether st is one schedule method call (`sch.split(...)`, `l = sch.fuse(...)`):
 * one step, so a refusal must leave the module as it was.  A call of a script
 * function (`apply_trace(sch)`) runs several, and the steps before the failing
 * one stay applied, as in TVM. */
/* Method calls (callee an attribute) in the expression tree under e. */
static int method_calls(const Ast *e) {
  if (!e) return 0;
  int n = e->kind == AST_CALL && e->a && e->a->kind == AST_ATTR;
  n += method_calls(e->a) + method_calls(e->b) + method_calls(e->c);
  for (int i = 0; i < e->list.len; i++) n += method_calls(e->list.items[i]);
  for (int i = 0; i < e->list2.len; i++) n += method_calls(e->list2.items[i]);
  return n;
}

static bool single_step(const Ast *st) {
  const Ast *e = st->kind == AST_EXPR_STMT || st->kind == AST_ASSIGN ? st->a : NULL;
  /* Unpacking (`a, b = sch.split(...)`) into the wrong number of names fails
   * after the primitive applied, as in Python: not checked here (not done). */
  for (int i = 0; st->kind == AST_ASSIGN && i < st->list.len; i++)
    if (st->list.items[i]->kind == AST_TUPLE || st->list.items[i]->kind == AST_LIST) return false;
  /* one method call: `sch.a(...).b(...)` or `sch.a(sch.b(...))` applies a
   * first and fails in b, as Python does */
  return e && e->kind == AST_CALL && e->a && e->a->kind == AST_ATTR && method_calls(e) == 1;
}

/* Runs one statement; a refused single step must leave the module as it was. */
static void run_stmt(SchScript *sc, const Ast *st, DiagCtx *d) {
  Schedule *s = sch_script_schedule(sc);
  char *before = print_text(sch_mod(s));
  int nerr = d->nerr;
  int rc = sch_script_exec(sc, st, NULL);
  if (rc != 0 && d->nerr == nerr) {
    fprintf(stderr, "statement at line %u failed without an error\n", st->span.line);
    abort();
  }
  if (rc != 0 && sch_script_schedule(sc) == s && single_step(st)) {
    char *after = print_text(sch_mod(s));
    if (strcmp(before, after) != 0) {
      diag_flush(d);
    fprintf(stderr, "statement at line %u was refused but changed the module:\n%s\n---\n%s\n", st->span.line,
              before, after);
      abort();
    }
    free(after);
  }
  if (rc == 0) n_applied++;
  else n_refused++;
  if (rc == 0) check_well_formed(sch_mod(sch_script_schedule(sc)), st);
  free(before);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096) return 0;
  IrModule *m = load_fixed();
  SourceFile *src = src_from_string("fuzz_sched.py", (const char *)data, size);
  DiagCtx d;
  diag_init(&d, getenv("FUZZ_VERBOSE") ? stderr : NULL);
  AstFile *f = parse_file(src, &d);
  if (f && d.nerr == 0) {
    SchScript *sc = sch_script_new(m, &d);
    sch_set_debug_mask(sch_script_schedule(sc), -1);
    const AstList *body = &f->module->body;
    for (int i = 0, n = 0; i < body->len && n < 64; i++) {
      if (!sch_is_script_stmt(body->items[i])) continue;
      run_stmt(sc, body->items[i], &d);
      n++;
    }
    sch_script_free(sc);
  }
  if (f) ast_file_free(f);
  diag_free(&d);
  src_free(src);
  return 0;
}

#ifndef TVS_LIBFUZZER
static void fuzz_report(void) { printf("%ld statements applied, %ld refused\n", n_applied, n_refused); }
#include "replay_main.h"
#endif
