/* commands.c - the REPL's `:` commands: one table row per command (name,
 * usage, help, handler), so :help, completion and dispatch read the same
 * list.  Inspection (:funcs :blocks :loops :show :diff :trace :history),
 * session control (:load :undo :redo :reset :write :target :set :quit);
 * :run and :time live in execute.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/text_diff.h"
#include "codegen/codegen.h"
#include "driver/gpu.h"
#include "driver/npu.h"
#include "ir/printer.h"
#include "ir/transform.h"
#include "repl/repl_internal.h"
#include "runtime/tvs_runtime.h"
#include "runtime/write_file.h"

typedef int (*CmdFn)(Repl *r, int argc, char **argv);

typedef struct ReplCmd {
  const char *name;   /* without the colon */
  const char *usage;  /* arguments, for :help */
  const char *help;   /* what it does */
  CmdFn fn;
} ReplCmd;

static const ReplCmd *find_cmd(const char *name);

/* ------------------------------------------------------------ helpers */

/* Writes data to path through a temporary file renamed into place (checked;
 * devices such as /dev/full are written in place and their errors reported). */
static int write_atomic(Repl *r, const char *path, const char *data, size_t len) {
  const void *parts[1] = {data};
  char err[512];
  if (tvs_write_file_atomic(path, parts, &len, 1, err, sizeof err) == 0) return 0;
  repl_error(r, "%s", err);
  return -1;
}

/* The module restricted to its prim_funcs (or to func only). */
static IrModule *tir_part(const IrModule *m, const char *func) {
  IrModule *t = ir_module_copy(m);
  int n = 0;
  for (int i = 0; i < t->nfuncs; i++)
    if (t->funcs[i].kind == IR_FUNC_TIR && (!func || !strcmp(func, t->funcs[i].name))) t->funcs[n++] = t->funcs[i];
  t->nfuncs = n;
  return t;
}

static char *print_mod(Repl *r, const IrModule *m, bool color) {
  PrintOptions opt = print_options_default();
  opt.color = color;
  StrBuf sb;
  sb_init(&sb);
  print_module(&sb, m, &opt);
  return sb_take(&sb);
}

/* ----------------------------------------------------------- :help */

static int cmd_help(Repl *r, int argc, char **argv);

/* --------------------------------------------------------- :load etc. */

static int cmd_load(Repl *r, int argc, char **argv) {
  if (argc != 2) return repl_error(r, "usage: :load FILE"), -1;
  if (repl_load(r, argv[1])) return -1;
  const IrModule *m = r->base;
  fprintf(r->opt.out, "loaded %s: module %s with %d function%s\n", argv[1], m->name, m->nfuncs,
          m->nfuncs == 1 ? "" : "s");
  return 0;
}

static const char *dtype_name(DType t, char *buf, size_t n) {
  const char *base = t.code == DT_INT ? "int" : t.code == DT_UINT ? "uint" : t.code == DT_BFLOAT ? "bfloat"
                   : t.code == DT_BOOL ? "bool" : "float";
  if (t.code == DT_BOOL) snprintf(buf, n, "bool");
  else snprintf(buf, n, "%s%d", base, t.bits);
  return buf;
}

static int cmd_funcs(Repl *r, int argc, char **argv) {
  const IrModule *m = repl_cur_mod(r);
  if (!m->nfuncs) fprintf(r->opt.out, "(no functions; load a file with :load FILE)\n");
  for (int i = 0; i < m->nfuncs; i++) {
    const IrGlobal *g = &m->funcs[i];
    if (g->kind != IR_FUNC_TIR) {
      fprintf(r->opt.out, "%s  graph function (%d params)\n", g->name, g->rx->nparams);
      continue;
    }
    StrBuf sb;
    sb_init(&sb);
    const TirFunc *f = g->tir;
    for (int k = 0; k < f->nparams; k++) {
      const TirBuffer *b = f->buffer_map[k];
      char dt[32];
      if (k) sb_puts(&sb, ", ");
      if (!b) {
        sb_printf(&sb, "%s: %s", f->params[k]->name, dtype_name(f->params[k]->dtype, dt, sizeof dt));
        continue;
      }
      sb_printf(&sb, "%s: (", b->name);
      for (int d = 0; d < b->ndim; d++) {
        if (d) sb_puts(&sb, ", ");
        print_tir_expr(&sb, b->shape[d]);
      }
      sb_printf(&sb, "%s) %s", b->ndim == 1 ? "," : "", dtype_name(b->dtype, dt, sizeof dt));
    }
    fprintf(r->opt.out, "%s  prim_func(%s)\n", g->name, sb.data);
    sb_free(&sb);
  }
  return 0;
}

/* --------------------------------------------------- walking loop nests */

typedef struct NestWalk {
  StrBuf *out;
  const char *want;          /* block wanted by :loops BLOCK, or NULL for the tree */
  const TirStmt *stack[64];  /* enclosing loops */
  int depth;
  bool found;
  bool blocks_only;          /* :blocks */
} NestWalk;

static const char *kind_name(TirForKind k) {
  switch (k) {
    case TIR_FOR_PARALLEL: return "parallel";
    case TIR_FOR_VECTORIZED: return "vectorized";
    case TIR_FOR_UNROLLED: return "unroll";
    case TIR_FOR_THREAD_BINDING: return "thread_binding";
    default: return "serial";
  }
}

static void put_range(StrBuf *sb, const TirStmt *l) {
  sb_puts(sb, "range(");
  if (!(l->loop.min->kind == TIR_INT && l->loop.min->ival == 0)) {
    print_tir_expr(sb, l->loop.min);
    sb_puts(sb, ", ");
    /* range(min, min + extent) */
    print_tir_expr(sb, l->loop.min);
    sb_puts(sb, " + ");
  }
  print_tir_expr(sb, l->loop.extent);
  sb_puts(sb, ")");
}

static void put_block_line(NestWalk *w, const TirBlock *b) {
  StrBuf *sb = w->out;
  sb_printf(sb, "  %-12s", b->name);
  StrBuf it;
  sb_init(&it);
  for (int i = 0; i < b->niters; i++) {
    TirIterType t = b->iters[i].type;
    sb_printf(&it, "%s%s:%s", i ? " " : "", b->iters[i].var->name,
              t == TIR_ITER_SPATIAL ? "S" : t == TIR_ITER_REDUCE ? "R" : t == TIR_ITER_SCAN ? "scan" : "O");
  }
  sb_printf(sb, " iters [%s]", it.data);
  sb_free(&it);
  sb_puts(sb, "  loops [");
  for (int i = 0; i < w->depth; i++) sb_printf(sb, "%s%s", i ? ", " : "", w->stack[i]->loop.var->name);
  sb_puts(sb, "]\n");
}

static void walk_nest(NestWalk *w, const TirStmt *s, int indent) {
  if (!s) return;
  switch (s->kind) {
    case TIR_S_FOR:
      if (!w->want && !w->blocks_only) {
        sb_printf(w->out, "%*sfor %s in ", indent * 2, "", s->loop.var->name);
        put_range(w->out, s);
        if (s->loop.kind != TIR_FOR_SERIAL) sb_printf(w->out, "  # %s", kind_name(s->loop.kind));
        if (s->loop.thread_tag) sb_printf(w->out, " %s", s->loop.thread_tag);
        sb_putc(w->out, '\n');
      }
      if (w->depth < 64) w->stack[w->depth++] = s;
      walk_nest(w, s->loop.body, indent + 1);
      w->depth--;
      return;
    case TIR_S_SEQ:
      for (int i = 0; i < s->seq.n; i++) walk_nest(w, s->seq.stmts[i], indent);
      return;
    case TIR_S_BLOCK_REALIZE: {
      const TirBlock *b = &s->realize.block->block;
      bool root = !strcmp(b->name, "root") && w->depth == 0 && indent == 0;
      if (!root) {
        if (w->want && !strcmp(w->want, b->name) && !w->found) {
          w->found = true;
          for (int i = 0; i < w->depth; i++) {
            const TirStmt *l = w->stack[i];
            sb_printf(w->out, "  %-10s ", l->loop.var->name);
            StrBuf rg;
            sb_init(&rg);
            put_range(&rg, l);
            sb_printf(w->out, "%-16s %s", rg.data, kind_name(l->loop.kind));
            if (l->loop.thread_tag) sb_printf(w->out, " %s", l->loop.thread_tag);
            sb_putc(w->out, '\n');
            sb_free(&rg);
          }
        } else if (w->blocks_only) {
          put_block_line(w, b);
        } else if (!w->want) {
          sb_printf(w->out, "%*sblock %s\n", indent * 2, "", b->name);
        }
      }
      /* Loops inside a block are nested under it (TVM's get_loops stops at
       * the block's scope); keep counting from here. */
      int saved = w->depth;
      if (!root) w->depth = 0;
      walk_nest(w, b->init, root ? indent : indent + 1);
      walk_nest(w, b->body, root ? indent : indent + 1);
      w->depth = saved;
      return;
    }
    case TIR_S_BLOCK: walk_nest(w, s->block.body, indent); return;
    case TIR_S_IF:
      walk_nest(w, s->ifs.then_s, indent);
      walk_nest(w, s->ifs.else_s, indent);
      return;
    case TIR_S_LET: walk_nest(w, s->let.body, indent); return;
    case TIR_S_ASSERT: walk_nest(w, s->assrt.body, indent); return;
    case TIR_S_WHILE: walk_nest(w, s->loop_while.body, indent); return;
    case TIR_S_ALLOCATE: walk_nest(w, s->alloc.body, indent); return;
    case TIR_S_DECL_BUFFER: walk_nest(w, s->decl.body, indent); return;
    case TIR_S_ATTR: walk_nest(w, s->attr.body, indent); return;
    default: return;
  }
}

static int cmd_blocks(Repl *r, int argc, char **argv) {
  if (argc > 2) return repl_error(r, "usage: :blocks [FUNC]"), -1;
  const char *f = repl_default_func(r, argc > 1 ? argv[1] : NULL);
  if (!f) return -1;
  StrBuf sb;
  sb_init(&sb);
  NestWalk w = {&sb, NULL, {NULL}, 0, false, true};
  walk_nest(&w, ir_module_lookup(repl_cur_mod(r), f)->tir->body, 0);
  fprintf(r->opt.out, "blocks of %s:\n%s", f, sb.len ? sb.data : "  (none)\n");
  sb_free(&sb);
  return 0;
}

/* Whether name is a block of function f (for :loops with several funcs). */
static bool func_has_block(const TirFunc *tf, const char *name) {
  StrBuf sb;
  sb_init(&sb);
  NestWalk w = {&sb, name, {NULL}, 0, false, false};
  walk_nest(&w, tf->body, 0);
  sb_free(&sb);
  return w.found;
}

static int cmd_loops(Repl *r, int argc, char **argv) {
  if (argc > 3) return repl_error(r, "usage: :loops [BLOCK] [FUNC]"), -1;
  const IrModule *m = repl_cur_mod(r);
  const char *block = argc > 1 ? argv[1] : NULL;
  const char *f = NULL;
  if (argc > 2) {
    f = repl_default_func(r, argv[2]);
  } else if (block) {
    for (int i = 0; i < m->nfuncs && !f; i++)
      if (m->funcs[i].kind == IR_FUNC_TIR && func_has_block(m->funcs[i].tir, block)) f = m->funcs[i].name;
    if (!f && !ir_module_lookup(m, block)) {
      repl_error(r, ":loops: no block named '%s' (see :blocks)", block);
      return -1;
    }
    if (!f) f = repl_default_func(r, block), block = NULL; /* :loops FUNC */
  } else {
    f = repl_default_func(r, NULL);
  }
  if (!f) return -1;
  StrBuf sb;
  sb_init(&sb);
  NestWalk w = {&sb, block, {NULL}, 0, false, false};
  walk_nest(&w, ir_module_lookup(m, f)->tir->body, 0);
  if (block && !w.found) {
    sb_free(&sb);
    repl_error(r, ":loops: %s has no block named '%s' (see :blocks)", f, block);
    return -1;
  }
  if (block) fprintf(r->opt.out, "loops around block %s in %s, outer to inner:\n%s", block, f,
                     sb.len ? sb.data : "  (none)\n");
  else fprintf(r->opt.out, "loop nest of %s:\n%s", f, sb.data);
  sb_free(&sb);
  return 0;
}

/* -------------------------------------------------------------- :show */

static bool is_stage(const char *s) { return drv_find_stage(s, DRV_STAGES_REPL, NULL); }

/* :show --diff PASS: what that lowering pass changed, as a unified diff of
 * the IR before it (after the pass before, or tir) and after it. */
static int show_pass_diff(Repl *r, const IrModule *m, const char *stage) {
  int idx = tir_pipeline_index(stage);
  if (idx < 0) return repl_error(r, ":show --diff takes a lowering pass (:help show lists them)"), -1;
  TirPassConfig cfg = {repl_bounds_check(r, false)};
  IrModule *before = idx == 0 ? ir_module_copy(m) : tir_lower_with(m, idx - 1, &cfg, &r->diag, NULL, NULL);
  IrModule *after = before ? tir_lower_with(m, idx, &cfg, &r->diag, NULL, NULL) : NULL;
  int rc = -1;
  if (before && after) {
    char *a = print_mod(r, before, false), *b = print_mod(r, after, false);
    char *na = xasprintf("before %s", stage), *nb = xasprintf("after %s", stage);
    StrBuf sb;
    sb_init(&sb);
    if (text_unified_diff(&sb, a, b, na, nb, r->color) == 0) fprintf(r->opt.out, "(%s changed nothing)\n", stage);
    else repl_puts(r, sb.data);
    sb_free(&sb);
    free(a), free(b), free(na), free(nb);
    rc = 0;
  }
  ir_module_free(before);
  ir_module_free(after);
  return rc;
}

/* :show on a GPU target: a GPU lowering pass, or the device code (opencl,
 * ptx, nvvm). */
static bool is_gpu_stage(const Repl *r, const char *s) {
  return r->gpu_target && (tir_gpu_pipeline_index(s) >= 0 || !strcmp(s, "opencl") || !strcmp(s, "ptx") ||
                           !strcmp(s, "nvvm"));
}

static int show_gpu(Repl *r, const IrModule *m, const char *stage) {
  bool code = tir_gpu_pipeline_index(stage) < 0;
  if (code && (strcmp(stage, "opencl") == 0) != (strcmp(r->gpu_target, "opencl") == 0))
    return repl_error(r, ":show: '%s' is not target %s's device code", stage, r->gpu_target), -1;
  IrModule *low = drv_gpu_lower(m, r->gpu_target, code ? NULL : stage, &r->diag);
  CgOptions cgo = cg_options_default();
  char *text = low && code ? drv_gpu_device_code(low, r->gpu_target, &cgo, !strcmp(stage, "nvvm"), &r->diag)
                           : low ? print_mod(r, low, r->color) : NULL;
  if (text) repl_puts(r, text);
  free(text);
  ir_module_free(low);
  return text ? 0 : -1;
}

/* :show npu-isa (or an earlier NPU lowering stage): each prim_func's
 * instruction stream on the simulated NPU (docs/npu.md). */
static int show_npu(Repl *r, const IrModule *m, NpuStage stage) {
  DrvNpuOptions o;
  drv_npu_options_default(&o);
  int rc = 0;
  for (int i = 0; i < m->nfuncs && rc == 0; i++) {
    if (m->funcs[i].kind != IR_FUNC_TIR) continue;
    NpuLowered l;
    rc = drv_npu_lower(m, m->funcs[i].name, &o, stage, &l, NULL, &r->diag);
    char *text = NULL;
    size_t len = 0;
    FILE *f = rc == 0 ? open_memstream(&text, &len) : NULL;
    if (f) {
      fprintf(f, "# prim_func %s\n", m->funcs[i].name);
      cg_npu_lowered_print(f, &l);
      fclose(f);
      repl_puts(r, text);
    }
    free(text);
    cg_npu_lowered_free(&l);
  }
  return rc;
}

static int cmd_show(Repl *r, int argc, char **argv) {
  const char *stage = "tir", *func = NULL;
  bool diff = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--diff")) diff = true;
    else if (is_gpu_stage(r, argv[i]) && !ir_module_lookup(repl_cur_mod(r), argv[i])) stage = argv[i];
    else if (cg_npu_stage_lookup(argv[i]) >= 0 && !ir_module_lookup(repl_cur_mod(r), argv[i])) stage = argv[i];
    else if (is_stage(argv[i]) && !ir_module_lookup(repl_cur_mod(r), argv[i])) stage = argv[i];
    else if (!func) func = argv[i];
    else return repl_error(r, "usage: :show [STAGE] [FUNC]"), -1;
  }
  const IrModule *cur = repl_cur_mod(r);
  if (func && !ir_module_lookup(cur, func) && !is_stage(func)) {
    /* neither a stage nor a function: say both, with what exists */
    StrBuf sb;
    sb_init(&sb);
    const char *stages[64];
    int nstages = 0;
    for (int i = 0, ns = drv_stage_count(); i < ns && nstages < 64; i++) {
      DrvStage st = drv_stage_at(i);
      if (!(st.kind & DRV_STAGES_REPL)) continue;
      sb_printf(&sb, " %s", st.name);
      stages[nstages++] = st.name;
    }
    const char *near = closest_name(func, stages, nstages, 3); /* at most two edits away */
    sb_puts(&sb, "; prim_funcs:");
    for (int i = 0; i < cur->nfuncs; i++)
      if (cur->funcs[i].kind == IR_FUNC_TIR) sb_printf(&sb, " %s", cur->funcs[i].name);
    if (near)
      repl_error(r, ":show: no stage or prim_func named '%s'; did you mean '%s'? (stages:%s)", func, near,
                 sb.data);
    else
      repl_error(r, ":show: no stage or prim_func named '%s' (stages:%s)", func, sb.data);
    sb_free(&sb);
    return -1;
  }
  if (func && !repl_default_func(r, func)) return -1;
  IrModule *m = tir_part(repl_cur_mod(r), func);
  int rc = 0;
  diag_clear(&r->diag);
  if (diff) {
    rc = show_pass_diff(r, m, stage);
  } else if (is_gpu_stage(r, stage)) {
    rc = show_gpu(r, m, stage);
  } else if (cg_npu_stage_lookup(stage) >= 0) {
    rc = show_npu(r, m, (NpuStage)cg_npu_stage_lookup(stage));
  } else if (!strcmp(stage, "tir")) {
    char *text = print_mod(r, m, r->color);
    repl_puts(r, text);
    free(text);
  } else {
    int idx = tir_pipeline_index(stage);
    TirPassConfig cfg = {repl_bounds_check(r, false)};
    IrModule *low = tir_lower_with(m, idx, &cfg, &r->diag, NULL, NULL);
    if (!low) {
      rc = -1;
    } else if (idx >= 0) {
      char *text = print_mod(r, low, r->color);
      repl_puts(r, text);
      free(text);
    } else {
      CgOptions cgo = cg_options_default();
      CgResult *cg = cg_build(low, &cgo, &r->diag);
      char *text = NULL;
      if (cg && !strcmp(stage, "asm")) text = cg_emit_asm(cg, &r->diag);
      else if (cg) text = cg_emit_llvm(cg, !strcmp(stage, "llvm"));
      if (text) repl_puts(r, text);
      else rc = -1;
      free(text);
      cg_free(cg);
    }
    ir_module_free(low);
  }
  fflush(r->opt.out);
  diag_flush(&r->diag);
  diag_clear(&r->diag);
  ir_module_free(m);
  return rc;
}

/* -------------------------------------------------------------- :diff */

static int cmd_diff(Repl *r, int argc, char **argv) {
  if (!r->prev) {
    fprintf(r->opt.out, "(no step yet: nothing to compare)\n");
    return 0;
  }
  char *a = print_mod(r, r->prev, false), *b = print_mod(r, repl_cur_mod(r), false);
  StrBuf sb;
  sb_init(&sb);
  char *na = xasprintf("before %s", r->prev_what), *nb = xasprintf("after %s", r->prev_what);
  int n = text_unified_diff(&sb, a, b, na, nb, r->color);
  if (n == 0) fprintf(r->opt.out, "(%s changed nothing in the printed IR)\n", r->prev_what);
  else fputs(sb.data, r->opt.out);
  free(na);
  free(nb);
  sb_free(&sb);
  free(a);
  free(b);
  return 0;
}

/* ------------------------------------------------------ history, trace */

static void put_step(Repl *r, int n, const ReplStep *s, const char *mark) {
  const char *t = s->text;
  fprintf(r->opt.out, "%4d%s ", n, mark);
  for (; *t; t++) {
    fputc(*t, r->opt.out);
    if (*t == '\n' && t[1]) fputs("      ", r->opt.out);
  }
  fputc('\n', r->opt.out);
}

static int cmd_history(Repl *r, int argc, char **argv) {
  if (!r->nsteps && !r->nredo) fprintf(r->opt.out, "(no steps yet)\n");
  for (int i = 0; i < r->nsteps; i++) put_step(r, i + 1, &r->steps[i], r->steps[i].changed ? "*" : " ");
  if (r->nredo) {
    fprintf(r->opt.out, "undone (:redo brings back, last first):\n");
    int n = r->nsteps;
    for (int g = r->nredo - 1; g >= 0; g--)
      for (int i = 0; i < r->redo[g].n; i++) put_step(r, ++n, &r->redo[g].steps[i], "-");
  }
  return 0;
}

static int cmd_trace(Repl *r, int argc, char **argv) {
  StrBuf sb;
  sb_init(&sb);
  sch_trace_print(sch_script_schedule(r->script), &sb, true);
  int rc = 0;
  if (argc == 1) {
    repl_puts(r, sb.data);
  } else if (argc == 3 && !strcmp(argv[1], "save")) {
    rc = write_atomic(r, argv[2], sb.data, sb.len);
    if (!rc) fprintf(r->opt.out, "wrote the trace (%d instruction%s) to %s\n",
                     sch_trace_len(sch_script_schedule(r->script)),
                     sch_trace_len(sch_script_schedule(r->script)) == 1 ? "" : "s", argv[2]);
  } else {
    repl_error(r, "usage: :trace [save FILE]");
    rc = -1;
  }
  sb_free(&sb);
  return rc;
}

static int cmd_undo(Repl *r, int argc, char **argv) { return repl_undo(r); }
static int cmd_redo(Repl *r, int argc, char **argv) { return repl_redo(r); }
static int cmd_reset(Repl *r, int argc, char **argv) {
  repl_reset(r);
  return 0;
}

static int cmd_write(Repl *r, int argc, char **argv) {
  if (argc < 2 || argc > 3) return repl_error(r, "usage: :write FILE [FUNC]"), -1;
  const char *f = NULL;
  if (argc == 3 && !(f = repl_default_func(r, argv[2]))) return -1;
  IrModule *m = f ? tir_part(repl_cur_mod(r), f) : ir_module_copy(repl_cur_mod(r));
  char *text = print_mod(r, m, false);
  int rc = write_atomic(r, argv[1], text, strlen(text));
  if (!rc) fprintf(r->opt.out, "wrote %s%s%s to %s\n", f ? "function " : "the module", f ? f : "",
                   "", argv[1]);
  free(text);
  ir_module_free(m);
  return rc;
}

static int cmd_target(Repl *r, int argc, char **argv) {
  if (argc == 1) {
    fprintf(r->opt.out, "target: %s\n",
            r->npu_target ? "npu" : r->gpu_target ? r->gpu_target : r->target_cpu ? "cpu" : "interp");
    return 0;
  }
  if (argc != 2 || (strcmp(argv[1], "cpu") && strcmp(argv[1], "interp") && !tir_is_gpu_target(argv[1]) &&
                    strcmp(argv[1], "npu")))
    return repl_error(r, "usage: :target cpu|interp|cuda|opencl|npu"), -1;
  r->npu_target = !strcmp(argv[1], "npu");
  r->gpu_target = !strcmp(argv[1], "cuda") ? "cuda" : !strcmp(argv[1], "opencl") ? "opencl" : NULL;
  r->target_cpu = strcmp(argv[1], "interp") != 0;
  fprintf(r->opt.out, "target: %s\n", argv[1]);
  return 0;
}

bool repl_bounds_check(const Repl *r, bool timing) {
  return r->bounds_check >= 0 ? r->bounds_check == 1 : !timing;
}

static const char *bounds_check_name(const Repl *r) {
  return r->bounds_check > 0 ? "on" : r->bounds_check == 0 ? "off" : "auto (:run checked, :time not)";
}

static int cmd_set(Repl *r, int argc, char **argv) {
  if (argc == 1) {
    fprintf(r->opt.out, "threads %d\nrepeat %d%s\ncolor %s\npager %s\nbounds-check %s\n",
            r->threads ? r->threads : tvs_thread_pool_num_threads(), r->repeat, r->repeat ? "" : " (adaptive)",
            r->color ? "on" : "off", r->pager ? "on" : "off", bounds_check_name(r));
    return 0;
  }
  if (argc != 3)
    return repl_error(r, "usage: :set threads N | repeat N | color on|off|auto | pager on|off | bounds-check on|off|auto"),
           -1;
  const char *name = argv[1], *val = argv[2];
  if (!strcmp(name, "threads") || !strcmp(name, "repeat")) {
    char *end;
    errno = 0;
    long v = strtol(val, &end, 10);
    if (!*val || *end || errno || v < 0 || v > 100000)
      return repl_error(r, ":set %s: expected a non-negative integer, got '%s'", name, val), -1;
    if (name[0] == 't') {
      r->threads = (int)v;
      tvs_thread_pool_set_num_threads((int)v);
      fprintf(r->opt.out, "threads %d\n", tvs_thread_pool_num_threads());
    } else {
      r->repeat = (int)v;
      fprintf(r->opt.out, "repeat %d%s\n", r->repeat, v ? "" : " (adaptive)");
    }
    return 0;
  }
  if (!strcmp(name, "color")) {
    int c = !strcmp(val, "on") ? 1 : !strcmp(val, "off") ? 0 : !strcmp(val, "auto") ? -1 : -2;
    if (c == -2) return repl_error(r, ":set color: expected on, off or auto, got '%s'", val), -1;
    r->opt.color = c;
    r->color = c == 1 || (c == -1 && isatty(fileno(r->opt.out)) && !(getenv("NO_COLOR") && *getenv("NO_COLOR")));
    sch_script_set_color(r->script, r->color);
    fprintf(r->opt.out, "color %s\n", r->color ? "on" : "off");
    return 0;
  }
  if (!strcmp(name, "pager")) {
    if (strcmp(val, "on") && strcmp(val, "off"))
      return repl_error(r, ":set pager: expected on or off, got '%s'", val), -1;
    r->pager = !strcmp(val, "on");
    fprintf(r->opt.out, "pager %s\n", r->pager ? "on" : "off");
    return 0;
  }
  if (!strcmp(name, "bounds-check")) {
    int c = !strcmp(val, "on") ? 1 : !strcmp(val, "off") ? 0 : !strcmp(val, "auto") ? -1 : -2;
    if (c == -2) return repl_error(r, ":set bounds-check: expected on, off or auto, got '%s'", val), -1;
    r->bounds_check = c;
    fprintf(r->opt.out, "bounds-check %s\n", bounds_check_name(r));
    return 0;
  }
  return repl_error(r, ":set: unknown setting '%s' (threads, repeat, color, pager, bounds-check)", name), -1;
}

static int cmd_quit(Repl *r, int argc, char **argv) { return 1; }

/* -------------------------------------------------------------- table */

static const ReplCmd commands[] = {
    {"help", "[CMD]", "list the commands, or explain one", cmd_help},
    {"load", "FILE", "load a .tvs file (starts a new schedule)", cmd_load},
    {"funcs", "", "list the module's functions and their parameters", cmd_funcs},
    {"blocks", "[FUNC]", "list the blocks of a prim_func: iter kinds (S spatial, R reduce) and loops", cmd_blocks},
    {"loops", "[BLOCK] [FUNC]", "the loops around BLOCK, outer to inner; without BLOCK, the loop nest", cmd_loops},
    {"show", "[--diff] [STAGE] [FUNC]",
     "print the current IR: tir (default), the IR after a lowering pass\n"
     "(lower-init-block, ..., make-packed-api), llvm-unopt, llvm or asm,\n"
     "or npu-isa (the simulated NPU's instruction stream, docs/npu.md; npu-inject-dma,\n"
     "npu-inject-vthread and npu-coproc-sync show its lowering stages);\n"
     "--diff PASS: only what that pass changed", cmd_show},
    {"diff", "", "unified diff of the printed IR against the step before", cmd_diff},
    {"undo", "", "take back the last step that changed the module (and the statements after it)", cmd_undo},
    {"redo", "", "apply again what the last :undo took back", cmd_redo},
    {"history", "", "the statements of this session (* changed the module, - undone)", cmd_history},
    {"trace", "[save FILE]", "print the schedule trace, or save it as a replayable script\n"
                             "(tvs show FILE.tvs --schedule TRACE replays it)", cmd_trace},
    {"reset", "", "back to the module as loaded (forgets every step)", cmd_reset},
    {"write", "FILE [FUNC]", "write the current module (or one function) as .tvs text", cmd_write},
    {"target", "cpu|interp|cuda|opencl|npu",
     "where :run and :time execute: LLVM JIT (cpu), the interpreter, or a GPU\n"
     "(cuda, opencl: :show then also takes the GPU passes and opencl/ptx/nvvm);\n"
     "npu: :time reports the simulated NPU's cycles (:run stays on the cpu)", cmd_target},
    {"run", "[FUNC] [--input NAME=x.npy ...] [--params w.npz]",
     "run on random inputs (or .npy files) and check the result against the\n"
     "unscheduled function on the interpreter; a graph function (a model) is\n"
     "compiled whole and checked against the interpreter, --params binds its weights", repl_cmd_run},
    {"time", "[FUNC] [--input NAME=x.npy ...] [--params w.npz]",
     "median time and GFLOP/s (after a warm-up) on the current target,\n"
     "with the ratio to the previous :time of the same function; a graph\n"
     "function: a table of its kernels' medians, then the whole graph's", repl_cmd_time},
    {"tune", "[FUNC] [--trials N] [--seed S] [--db FILE]",
     "auto-tune the prim_func (docs/tuning.md); the best schedule found becomes\n"
     "the next step (:diff shows it, :undo takes it back)", repl_cmd_tune},
    {"set", "NAME VALUE", "settings: threads N (0 = default), repeat N (0 = adaptive), color on|off|auto, pager on|off (long outputs through $PAGER on a terminal),\n"
                          "bounds-check on|off|auto (native code checks every access and integer division; auto: :run and :show yes, :time no)", cmd_set},
    {"quit", "", "leave the REPL (also :q, :exit, Ctrl-D)", cmd_quit},
};
#define NCOMMANDS ((int)(sizeof commands / sizeof commands[0]))

const char *repl_command_name(int i) { return i >= 0 && i < NCOMMANDS ? commands[i].name : NULL; }

static const ReplCmd *find_cmd(const char *name) {
  if (!strcmp(name, "q") || !strcmp(name, "exit")) name = "quit";
  if (!strcmp(name, "h") || !strcmp(name, "?")) name = "help";
  for (int i = 0; i < NCOMMANDS; i++)
    if (!strcmp(commands[i].name, name)) return &commands[i];
  return NULL;
}

static int cmd_help(Repl *r, int argc, char **argv) {
  FILE *o = r->opt.out;
  if (argc > 1) {
    const char *n = argv[1][0] == ':' ? argv[1] + 1 : argv[1];
    const ReplCmd *c = find_cmd(n);
    StrBuf sig;
    sb_init(&sig);
    if (!c && argv[1][0] != ':' && sch_method_signature(n, &sig)) { /* :help split */
      fprintf(o, "%s\n    a schedule primitive; docs/schedules.md describes it\n", sig.data);
      sb_free(&sig);
      return 0;
    }
    sb_free(&sig);
    if (!c) return repl_error(r, ":help: no command ':%s' or schedule primitive '%s'", n, n), -1;
    fprintf(o, ":%s%s%s\n", c->name, *c->usage ? " " : "", c->usage);
    const char *h = c->help;
    fputs("    ", o);
    for (; *h; h++) {
      fputc(*h, o);
      if (*h == '\n') fputs("    ", o);
    }
    fputc('\n', o);
    if (!strcmp(c->name, "show")) {
      fputs("    stages:", o);
      for (int i = 0, ns = drv_stage_count(); i < ns; i++)
        if (drv_stage_at(i).kind & DRV_STAGES_REPL) fprintf(o, " %s", drv_stage_at(i).name);
      fputc('\n', o);
    }
    return 0;
  }
  fputs("Schedule statements use TVM's Python API, e.g.\n"
        "    sch = tvm.tir.Schedule(MyModule)      (sch is already bound)\n"
        "    block_Y = sch.get_block(\"Y\", func_name=\"mm_relu\")\n"
        "    i, j, k = sch.get_loops(block_Y)\n"
        "    j0, j1 = sch.split(j, factors=[None, 4])\n"
        "    sch.mod.show()      print(sch.trace)\n"
        "Commands:\n", o);
  for (int i = 0; i < NCOMMANDS; i++) {
    char head[64];
    snprintf(head, sizeof head, ":%s %s", commands[i].name, commands[i].usage);
    /* every line of the description, continuations under the first */
    const char *h = commands[i].help;
    for (bool first = true; *h; first = false) {
      const char *nl = strchr(h, '\n');
      int len = nl ? (int)(nl - h) : (int)strlen(h);
      fprintf(o, "  %-34s %.*s\n", first ? head : "", len, h);
      h += len + (nl ? 1 : 0);
    }
  }
  fputs("`:help CMD` explains one command.  TAB completes, Ctrl-R searches the history.\n", o);
  return 0;
}

/* Splits a command line into words (double or single quotes group). */
static int split_words(const char *line, char ***out) {
  char **v = NULL;
  int n = 0, cap = 0;
  const char *p = line;
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (!*p) break;
    StrBuf w;
    sb_init(&w);
    while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
      if (*p == '"' || *p == '\'') {
        char q = *p++;
        while (*p && *p != q) sb_putc(&w, *p++);
        if (*p) p++;
      } else {
        sb_putc(&w, *p++);
      }
    }
    VEC_RESERVE(v, cap, (size_t)n + 2); /* room for a NULL after the last */
    v[n++] = sb_take(&w);
  }
  *out = v;
  return n;
}

int repl_command(Repl *r, const char *line) {
  char **argv = NULL;
  int argc = split_words(line + 1, &argv);
  int rc;
  if (!argc) {
    repl_error(r, "expected a command after ':' (try :help)");
    rc = -1;
  } else {
    const ReplCmd *c = find_cmd(argv[0]);
    if (!c) {
      const char *names[NCOMMANDS];
      for (int i = 0; i < NCOMMANDS; i++) names[i] = commands[i].name;
      const char *best = closest_name(argv[0], names, NCOMMANDS, 3);
      if (best) repl_error(r, "unknown command ':%s'; did you mean ':%s'? (:help lists them)", argv[0], best);
      else repl_error(r, "unknown command ':%s' (:help lists them)", argv[0]);
      rc = -1;
    } else {
      rc = c->fn(r, argc, argv);
    }
  }
  for (int i = 0; i < argc; i++) free(argv[i]);
  free(argv);
  fflush(r->opt.out);
  return rc;
}
