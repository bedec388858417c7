/* printer_relax.c - Relax functions as TVMScript (`@R.function`).
 *
 * Signature with struct-info annotations (symbolic dims as "n" strings),
 * `n = T.int64()` declarations, R.func_attr, `cls = Module`, bindings that are
 * always annotated, dataflow blocks with R.output, if/else and return. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/printer_internal.h"

static void rexpr(Printer *p, const RxExpr *e);

static void builtin(Printer *p, const char *name) { pr_color(p, PRC_BUILTIN, name); }
static void keyword(Printer *p, const char *name) { pr_color(p, PRC_KEYWORD, name); }

static void dtype_lit(Printer *p, DType t) {
  char buf[DT_STR_MAX];
  pr_string_lit(p, t.code == DT_VOID ? "void" : dt_str(t, buf));
}

/* ------------------------------------------------------------ struct info */

/* A shape dimension: int64 literals plain; in the signature a bare symbolic
 * var is written as a string ("n") because it is declared by that use. */
static void dim(Printer *p, const TirExpr *d, bool sig) {
  bool saved = p->int64_plain;
  p->int64_plain = true;
  if (sig && d && d->kind == TIR_VAR) pr_string_lit(p, pr_tir_var_name(p, d->var));
  else pr_tir_expr(p, d);
  p->int64_plain = saved;
}

static void dims(Printer *p, TirExpr *const *ds, int n, bool sig, bool tuple) {
  pr_puts(p, tuple ? "(" : "[");
  for (int i = 0; i < n; i++) {
    if (i) pr_puts(p, ", ");
    dim(p, ds[i], sig);
  }
  if (tuple && n == 1) pr_puts(p, ",");
  pr_puts(p, tuple ? ")" : "]");
}

static void sinfo(Printer *p, const RxSInfo *s, bool sig) {
  if (!s) {
    builtin(p, "R.Object");
    return;
  }
  switch (s->kind) {
    case RX_SI_OBJECT: builtin(p, "R.Object"); return;
    case RX_SI_TENSOR: {
      builtin(p, "R.Tensor");
      pr_puts(p, "(");
      bool any = false;
      if (s->shape) {
        dims(p, s->shape, s->ndim, sig, true);
        any = true;
      }
      if (!dt_is_void(s->dtype)) {
        pr_puts(p, any ? ", dtype=" : "dtype=");
        dtype_lit(p, s->dtype);
        any = true;
      }
      if (!s->shape && s->ndim >= 0) pr_printf(p, "%sndim=%d", any ? ", " : "", s->ndim);
      pr_puts(p, ")");
      return;
    }
    case RX_SI_TUPLE:
      builtin(p, "R.Tuple");
      pr_puts(p, "(");
      for (int i = 0; i < s->nfields; i++) {
        if (i) pr_puts(p, ", ");
        sinfo(p, s->fields[i], sig);
      }
      pr_puts(p, ")");
      return;
    case RX_SI_SHAPE:
      builtin(p, "R.Shape");
      pr_puts(p, "(");
      if (s->shape) dims(p, s->shape, s->ndim, sig, false);
      else if (s->ndim >= 0) pr_printf(p, "ndim=%d", s->ndim);
      pr_puts(p, ")");
      return;
    case RX_SI_PRIM:
      builtin(p, "R.Prim");
      pr_puts(p, "(");
      dtype_lit(p, s->dtype);
      pr_puts(p, ")");
      return;
    case RX_SI_FUNC: builtin(p, "R.Callable"); return;
  }
}

/* ------------------------------------------------------------ constants */

static double half_to_double(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  double v;
  if (exp == 0) v = ldexp(man, -24);
  else if (exp == 31) v = man ? NAN : INFINITY;
  else v = ldexp(man | 0x400, exp - 25);
  return sign ? -v : v;
}

static void const_elem(Printer *p, DType t, const unsigned char *data, int64_t i) {
  char buf[32];
  if (t.code == DT_BOOL) {
    pr_color(p, PRC_NUMBER, data[i] ? "True" : "False");
    return;
  }
  if (t.code == DT_FLOAT || t.code == DT_BFLOAT) {
    double v = 0;
    if (t.code == DT_FLOAT && t.bits == 32) { float f; memcpy(&f, data + i * 4, 4); v = f; }
    else if (t.code == DT_FLOAT && t.bits == 64) memcpy(&v, data + i * 8, 8);
    else if (t.code == DT_FLOAT && t.bits == 16) {
      uint16_t h;
      memcpy(&h, data + i * 2, 2);
      v = half_to_double(h);
    } else {
      uint16_t h;
      memcpy(&h, data + i * 2, 2);
      uint32_t w = (uint32_t)h << 16;
      float f;
      memcpy(&f, &w, 4);
      v = f;
    }
    pr_pyfloat(p, v);
    return;
  }
  int64_t v = 0;
  size_t nb = (size_t)t.bits / 8;
  if (t.code == DT_INT) {
    if (nb == 1) { int8_t x; memcpy(&x, data + i, 1); v = x; }
    else if (nb == 2) { int16_t x; memcpy(&x, data + i * 2, 2); v = x; }
    else if (nb == 4) { int32_t x; memcpy(&x, data + i * 4, 4); v = x; }
    else memcpy(&v, data + i * 8, 8);
    snprintf(buf, sizeof buf, "%lld", (long long)v);
  } else {
    uint64_t u = 0;
    if (nb == 1) { uint8_t x; memcpy(&x, data + i, 1); u = x; }
    else if (nb == 2) { uint16_t x; memcpy(&x, data + i * 2, 2); u = x; }
    else if (nb == 4) { uint32_t x; memcpy(&x, data + i * 4, 4); u = x; }
    else memcpy(&u, data + i * 8, 8);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)u);
  }
  pr_color(p, PRC_NUMBER, buf);
}

/* Nested lists, row-major; returns the next flat index. */
static int64_t const_nested(Printer *p, const RxExpr *e, int d, int64_t i) {
  if (d == e->cnst.ndim) {
    const_elem(p, e->cnst.dtype, e->cnst.data, i);
    return i + 1;
  }
  pr_puts(p, "[");
  for (int64_t k = 0; k < e->cnst.shape[d]; k++) {
    if (k) pr_puts(p, ", ");
    i = const_nested(p, e, d + 1, i);
  }
  pr_puts(p, "]");
  return i;
}

/* ------------------------------------------------------------ expressions */

static const char *var_name(Printer *p, const RxExpr *v) {
  const char *n = pr_lookup(p, v);
  return n ? n : pr_define(p, v, v->var.name);
}

static void args_list(Printer *p, RxExpr *const *args, int n, bool leading_comma) {
  for (int i = 0; i < n; i++) {
    if (i || leading_comma) pr_puts(p, ", ");
    rexpr(p, args[i]);
  }
}

static void kw_attrs(Printer *p, const IrValue *attrs) {
  if (!attrs || attrs->kind != IRV_DICT) return;
  for (int i = 0; i < attrs->n; i++) {
    pr_printf(p, ", %s=", attrs->keys[i]);
    const IrValue *v = attrs->items[i];
    if (!strcmp(attrs->keys[i], "index_map") && v && v->kind == IRV_STR) {
      pr_printf(p, "T.index_map(%s)", v->s); /* layout_transform's lambda, kept as text */
      continue;
    }
    pr_irvalue(p, v, true);
  }
}

static void sinfo_args(Printer *p, const char *kw, RxSInfo *const *si, int n) {
  if (n == 0) return;
  pr_printf(p, ", %s=", kw);
  if (n == 1) {
    sinfo(p, si[0], false);
    return;
  }
  pr_puts(p, "[");
  for (int i = 0; i < n; i++) {
    if (i) pr_puts(p, ", ");
    sinfo(p, si[i], false);
  }
  pr_puts(p, "]");
}

static void call(Printer *p, const RxExpr *e) {
  const RxOpInfo *op = e->call.op;
  if (!op && e->call.callee) { /* a graph function of the module: cls.f(args) */
    rexpr(p, e->call.callee);
    pr_puts(p, "(");
    args_list(p, e->call.args, e->call.n, false);
    pr_puts(p, ")");
    return;
  }
  char name[96];
  snprintf(name, sizeof name, "R.%s", op ? op->script_name : "unknown");
  builtin(p, name);
  pr_puts(p, "(");
  const char *opn = op ? op->name : "";
  bool dps = !strcmp(opn, "relax.call_tir") || !strcmp(opn, "relax.call_dps_packed") ||
             !strcmp(opn, "relax.call_tir_inplace");
  if (dps && e->call.n >= 2) {
    rexpr(p, e->call.args[0]);
    pr_puts(p, ", ");
    rexpr(p, e->call.args[1]);
    sinfo_args(p, "out_sinfo", e->call.sinfo_args, e->call.nsinfo_args);
    if (e->call.n >= 3) {
      pr_puts(p, ", tir_vars=");
      rexpr(p, e->call.args[2]);
    }
    kw_attrs(p, e->call.attrs);
  } else {
    args_list(p, e->call.args, e->call.n, false);
    kw_attrs(p, e->call.attrs);
    if (e->call.nsinfo_args) {
      if (!e->call.n && !(e->call.attrs && e->call.attrs->n)) {
        /* no leading comma: print the keyword directly */
        StrBuf tmp;
        sb_init(&tmp);
        StrBuf *saved = p->out;
        p->out = &tmp;
        sinfo_args(p, "sinfo_args", e->call.sinfo_args, e->call.nsinfo_args);
        p->out = saved;
        pr_puts(p, tmp.data + 2);
        sb_free(&tmp);
      } else {
        sinfo_args(p, "sinfo_args", e->call.sinfo_args, e->call.nsinfo_args);
      }
    }
  }
  pr_puts(p, ")");
}

static void rexpr(Printer *p, const RxExpr *e) {
  if (!e) {
    keyword(p, "None");
    return;
  }
  switch (e->kind) {
    case RX_VAR: case RX_DATAFLOW_VAR: pr_puts(p, var_name(p, e)); return;
    case RX_CONST:
      builtin(p, "R.const");
      pr_puts(p, "(");
      const_nested(p, e, 0, 0);
      pr_puts(p, ", ");
      dtype_lit(p, e->cnst.dtype);
      pr_puts(p, ")");
      return;
    case RX_CALL: call(p, e); return;
    case RX_TUPLE:
      pr_puts(p, "(");
      args_list(p, e->tuple.fields, e->tuple.n, false);
      if (e->tuple.n == 1) pr_puts(p, ",");
      pr_puts(p, ")");
      return;
    case RX_TUPLE_GET_ITEM:
      rexpr(p, e->get.tuple);
      pr_printf(p, "[%d]", e->get.index);
      return;
    case RX_GLOBAL_VAR: pr_printf(p, "cls.%s", e->gvar.name); return;
    case RX_EXTERN_FUNC: pr_string_lit(p, e->gvar.name); return;
    case RX_SHAPE_EXPR:
      builtin(p, "R.shape");
      pr_puts(p, "(");
      dims(p, e->shape.values, e->shape.n, false, false);
      pr_puts(p, ")");
      return;
    case RX_PRIM_VALUE:
      builtin(p, "R.prim_value");
      pr_puts(p, "(");
      pr_tir_expr(p, e->prim.value);
      pr_puts(p, ")");
      return;
    case RX_STRING: pr_string_lit(p, e->str.value); return;
    case RX_IF: case RX_SEQ:
      /* Only valid as a binding value / function body (handled there). */
      keyword(p, "None");
      return;
  }
}

/* ------------------------------------------------------------ bodies */

static bool uses_global(const RxExpr *e);

static bool seq_uses_global(const RxExpr *e) {
  for (int b = 0; b < e->seq.nblocks; b++)
    for (int i = 0; i < e->seq.blocks[b].n; i++)
      if (uses_global(e->seq.blocks[b].bindings[i].value)) return true;
  return uses_global(e->seq.body);
}

static bool uses_global(const RxExpr *e) {
  if (!e) return false;
  switch (e->kind) {
    case RX_GLOBAL_VAR: return true;
    case RX_CALL:
      if (e->call.callee) return true;
      for (int i = 0; i < e->call.n; i++)
        if (uses_global(e->call.args[i])) return true;
      return false;
    case RX_TUPLE:
      for (int i = 0; i < e->tuple.n; i++)
        if (uses_global(e->tuple.fields[i])) return true;
      return false;
    case RX_TUPLE_GET_ITEM: return uses_global(e->get.tuple);
    case RX_IF:
      return uses_global(e->ifs.cond) || uses_global(e->ifs.then_e) || uses_global(e->ifs.else_e);
    case RX_SEQ: return seq_uses_global(e);
    default: return false;
  }
}

static void seq_bindings(Printer *p, const RxExpr *seq);

/* `var: S = value` or the if/else form whose branches end assigning var. */
static void binding(Printer *p, const RxBinding *b) {
  const RxExpr *v = b->value;
  if (v && v->kind == RX_IF) {
    pr_indent(p);
    keyword(p, "if");
    pr_puts(p, " ");
    rexpr(p, v->ifs.cond);
    pr_puts(p, ":\n");
    const char *name = NULL;
    for (int br = 0; br < 2; br++) {
      const RxExpr *arm = br ? v->ifs.else_e : v->ifs.then_e;
      if (br) {
        pr_indent(p);
        keyword(p, "else");
        pr_puts(p, ":\n");
      }
      p->level++;
      const RxExpr *result = arm;
      if (arm && arm->kind == RX_SEQ) {
        seq_bindings(p, arm);
        result = arm->seq.body;
      }
      StrBuf val;
      sb_init(&val);
      StrBuf *saved = p->out;
      p->out = &val;
      rexpr(p, result);
      p->out = saved;
      if (!name) name = var_name(p, b->var);
      pr_indent(p);
      pr_printf(p, "%s: ", name);
      sinfo(p, b->var->sinfo, false);
      pr_printf(p, " = %s\n", val.data);
      sb_free(&val);
      p->level--;
    }
    return;
  }
  StrBuf val;
  sb_init(&val);
  StrBuf *saved = p->out;
  p->out = &val;
  if (b->cast_to) {
    builtin(p, "R.match_cast");
    pr_puts(p, "(");
    rexpr(p, v);
    pr_puts(p, ", ");
    sinfo(p, b->cast_to, false);
    pr_puts(p, ")");
  } else {
    rexpr(p, v);
  }
  p->out = saved;
  pr_indent(p);
  pr_puts(p, var_name(p, b->var));
  if (!b->cast_to && b->var->sinfo) {
    pr_puts(p, ": ");
    sinfo(p, b->var->sinfo, false);
  }
  pr_printf(p, " = %s\n", val.data);
  sb_free(&val);
}

static void seq_bindings(Printer *p, const RxExpr *seq) {
  for (int bi = 0; bi < seq->seq.nblocks; bi++) {
    const RxBlock *blk = &seq->seq.blocks[bi];
    if (!blk->is_dataflow) {
      for (int i = 0; i < blk->n; i++) binding(p, &blk->bindings[i]);
      continue;
    }
    pr_indent(p);
    keyword(p, "with");
    pr_puts(p, " ");
    builtin(p, "R.dataflow");
    pr_puts(p, "():\n");
    p->level++;
    for (int i = 0; i < blk->n; i++) binding(p, &blk->bindings[i]);
    pr_indent(p);
    builtin(p, "R.output");
    pr_puts(p, "(");
    int k = 0;
    for (int i = 0; i < blk->n; i++) {
      const RxExpr *v = blk->bindings[i].var;
      if (v->kind != RX_VAR) continue;
      pr_printf(p, "%s%s", k++ ? ", " : "", var_name(p, v));
    }
    pr_puts(p, ")\n");
    p->level--;
  }
}

void pr_relax_func(Printer *p, const RxFunc *f, const char *name) {
  int base_level = p->level;
  int mark = pr_mark(p);
  const IrValue *gs = irv_dict_get(f->attrs, "global_symbol");
  bool drop_gs = gs && gs->kind == IRV_STR && !strcmp(gs->s, name);
  pr_indent(p);
  builtin(p, "@R.function");
  if (!gs && !f->is_pure) pr_puts(p, "(private=True, pure=False)");
  else if (!gs) pr_puts(p, "(private=True)");
  else if (!f->is_pure) pr_puts(p, "(pure=False)");
  pr_puts(p, "\n");

  for (int i = 0; i < f->nsym_vars; i++) pr_define(p, f->sym_vars[i], f->sym_vars[i]->name);
  pr_indent(p);
  keyword(p, "def");
  pr_printf(p, " %s(", name);
  for (int i = 0; i < f->nparams; i++) {
    if (i) pr_puts(p, ", ");
    pr_printf(p, "%s: ", pr_define(p, f->params[i], f->params[i]->var.name));
    sinfo(p, f->params[i]->sinfo, true);
  }
  pr_puts(p, ")");
  if (f->ret_sinfo) {
    pr_puts(p, " -> ");
    sinfo(p, f->ret_sinfo, true);
  }
  pr_puts(p, ":\n");
  p->level++;
  pr_func_attrs(p, "R.func_attr", f->attrs, drop_gs, true);
  for (int i = 0; i < f->nsym_vars; i++) {
    pr_indent(p);
    pr_printf(p, "%s = ", pr_tir_var_name(p, f->sym_vars[i]));
    char buf[DT_STR_MAX], tname[DT_STR_MAX + 4];
    snprintf(tname, sizeof tname, "T.%s", dt_str(f->sym_vars[i]->dtype, buf));
    builtin(p, tname);
    pr_puts(p, "()\n");
  }
  if (uses_global(f->body)) {
    pr_indent(p);
    pr_printf(p, "cls = %s\n", p->module_name);
  }
  const RxExpr *result = f->body;
  if (f->body && f->body->kind == RX_SEQ) {
    seq_bindings(p, f->body);
    result = f->body->seq.body;
  }
  pr_indent(p);
  keyword(p, "return");
  pr_puts(p, " ");
  rexpr(p, result);
  pr_puts(p, "\n");
  p->level = base_level;
  pr_pop(p, mark);
}
