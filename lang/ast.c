/* ast.c - AST construction helpers, names, and the s-expression dump.
 *
 * Dump form (printed by `tvs show --stage ast`; tests compare against it):
 *   expressions on one line:   x  42  1.5  "s"  None  T.axis.spatial (dotted
 *     NAME/ATTR chains)  (Attr <value> name)  (Call f a b key=v *xs **kw)
 *     (Subscript A i)  (Subscript A (Tuple i j))  (Slice lo hi step) with _ for
 *     a missing part  (Tuple ...)  (List ...)  (Dict (k v) ...)  (+ a b)
 *     (- a) unary  (not a)  (and a b c)  (Compare a < b <= c)
 *     (IfExp cond then else)  (Lambda (x y=1) body)  big ints: 99999...:big
 *   statements one per line, children indented by two spaces:
 *     (Module ...)  (FuncDef f (decorators ...) (params A:T b=1 *args **kw)
 *     (returns T) <body>)  (ClassDef C (decorators ...) (bases ...) <body>)
 *     (Assign t1 = t2 = value)  (Assign x : ann = value)  (Assign x : ann)
 *     (AugAssign x += 1)  (For target in iter <body>)  (With item (e as x) <body>)
 *     (If cond <body> (else <stmts>))  (While cond <body>)  (Return [x])
 *     (Expr e)  (Pass) (Break) (Continue)  (Assert c [msg])
 *     (Import a.b (c as d))  (FromImport a.b c (d as e))  (Error) */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/ast.h"
#include "base/util.h"
#include "base/vec.h"

Ast *ast_new(Arena *a, AstKind kind, Span span) {
  Ast *n = arena_alloc(a, sizeof *n);
  n->kind = kind;
  n->span = span;
  return n;
}

void ast_list_push(Arena *a, AstList *l, Ast *n) {
  size_t cap = (size_t)l->cap;
  l->items = arena_grow(a, l->items, sizeof *l->items, (size_t)l->len, &cap);
  l->cap = (int)cap;
  l->items[l->len++] = n;
}

static const char *const kind_names[AST_NUM_KINDS] = {
    [AST_NAME] = "Name", [AST_INT] = "Int", [AST_FLOAT] = "Float", [AST_STR] = "Str",
    [AST_NONE] = "None", [AST_TRUE] = "True", [AST_FALSE] = "False", [AST_ATTR] = "Attr",
    [AST_CALL] = "Call", [AST_KEYWORD] = "Keyword", [AST_STARRED] = "Starred",
    [AST_SUBSCRIPT] = "Subscript", [AST_SLICE] = "Slice", [AST_TUPLE] = "Tuple",
    [AST_LIST] = "List", [AST_DICT] = "Dict", [AST_BINOP] = "BinOp", [AST_UNARY] = "UnaryOp",
    [AST_BOOLOP] = "BoolOp", [AST_COMPARE] = "Compare", [AST_LAMBDA] = "Lambda",
    [AST_IFEXP] = "IfExp", [AST_MODULE] = "Module", [AST_IMPORT] = "Import",
    [AST_FROM_IMPORT] = "FromImport", [AST_CLASS] = "ClassDef", [AST_FUNCDEF] = "FuncDef",
    [AST_PARAM] = "Param", [AST_ASSIGN] = "Assign", [AST_AUGASSIGN] = "AugAssign",
    [AST_FOR] = "For", [AST_WITH] = "With", [AST_WITH_ITEM] = "WithItem", [AST_IF] = "If",
    [AST_RETURN] = "Return", [AST_PASS] = "Pass", [AST_EXPR_STMT] = "Expr",
    [AST_WHILE] = "While", [AST_ASSERT] = "Assert", [AST_BREAK] = "Break",
    [AST_CONTINUE] = "Continue", [AST_ERROR] = "Error",
};

const char *ast_kind_name(AstKind k) {
  if ((int)k < 0 || k >= AST_NUM_KINDS || !kind_names[k]) return "?";
  return kind_names[k];
}

static const char *const op_strs[OP_NUM_OPS] = {
    [OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*", [OP_DIV] = "/", [OP_FLOORDIV] = "//",
    [OP_MOD] = "%", [OP_POW] = "**", [OP_MATMUL] = "@", [OP_LSHIFT] = "<<", [OP_RSHIFT] = ">>",
    [OP_BITAND] = "&", [OP_BITOR] = "|", [OP_BITXOR] = "^", [OP_NEG] = "-", [OP_POS] = "+",
    [OP_INVERT] = "~", [OP_NOT] = "not", [OP_AND] = "and", [OP_OR] = "or", [OP_LT] = "<",
    [OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">=", [OP_EQ] = "==", [OP_NE] = "!=",
    [OP_IN] = "in", [OP_NOT_IN] = "not in", [OP_IS] = "is", [OP_IS_NOT] = "is not",
};

const char *ast_op_str(AstOp op) {
  if ((int)op < 0 || op >= OP_NUM_OPS || !op_strs[op]) return "?";
  return op_strs[op];
}

/* Appends the dotted form of n; false when n is not a NAME/ATTR chain. */
static bool dotted(const Ast *n, StrBuf *sb) {
  if (!n) return false;
  if (n->kind == AST_NAME && n->name) {
    sb_puts(sb, n->name);
    return true;
  }
  if (n->kind == AST_ATTR && n->name && dotted(n->a, sb)) {
    sb_putc(sb, '.');
    sb_puts(sb, n->name);
    return true;
  }
  return false;
}

static bool is_dotted(const Ast *n) {
  while (n && n->kind == AST_ATTR && n->name) n = n->a;
  return n && n->kind == AST_NAME && n->name;
}

const char *ast_dotted_name(Arena *a, const Ast *n) {
  if (!is_dotted(n)) return NULL;
  if (n->kind == AST_NAME) return n->name;
  StrBuf sb;
  sb_init(&sb);
  dotted(n, &sb);
  const char *r = arena_strndup(a, sb.data, sb.len);
  sb_free(&sb);
  return r;
}

/* ---- dump ---------------------------------------------------------------- */

static void dump_expr(const Ast *n, StrBuf *out);

static void dump_str(const char *s, int64_t len, StrBuf *out) {
  sb_putc(out, '"');
  for (int64_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
    case '"': sb_puts(out, "\\\""); break;
    case '\\': sb_puts(out, "\\\\"); break;
    case '\n': sb_puts(out, "\\n"); break;
    case '\t': sb_puts(out, "\\t"); break;
    case '\r': sb_puts(out, "\\r"); break;
    default:
      if (c < 0x20 || c == 0x7F) sb_printf(out, "\\x%02x", c);
      else sb_putc(out, (char)c);
    }
  }
  sb_putc(out, '"');
}

static void dump_float(double v, StrBuf *out) {
  char buf[64];
  if (isnan(v)) {
    sb_puts(out, "nan");
    return;
  }
  if (isinf(v)) {
    sb_puts(out, v < 0 ? "-inf" : "inf");
    return;
  }
  /* Python's repr: the shortest digits that read back exactly, in fixed
   * notation for 1e-4 <= |v| < 1e16, else in exponent notation. */
  int prec;
  for (prec = 1; prec < 17; prec++) {
    snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
    if (strtod(buf, NULL) == v) break;
  }
  int exp = atoi(strchr(buf, 'e') + 1);
  if (v != 0 && (exp < -4 || exp >= 16)) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
  } else {
    int decimals = prec - 1 - exp;
    snprintf(buf, sizeof buf, "%.*f", decimals > 0 ? decimals : 0, v);
  }
  sb_puts(out, buf);
  if (!strpbrk(buf, ".en")) sb_puts(out, ".0");
}

static void dump_list(const AstList *l, StrBuf *out) {
  for (int i = 0; i < l->len; i++) {
    sb_putc(out, ' ');
    dump_expr(l->items[i], out);
  }
}

static void dump_opt(const Ast *n, StrBuf *out) {
  if (n) dump_expr(n, out);
  else sb_putc(out, '_');
}

static void dump_param(const Ast *p, StrBuf *out) {
  if (p->kind != AST_PARAM) {
    dump_expr(p, out);
    return;
  }
  if (p->ival == 1) sb_putc(out, '*');
  else if (p->ival == 2) sb_puts(out, "**");
  if (p->name) sb_puts(out, p->name);
  if (p->a) {
    sb_putc(out, ':');
    dump_expr(p->a, out);
  }
  if (p->b) {
    sb_putc(out, '=');
    dump_expr(p->b, out);
  }
}

static void dump_params(const AstList *l, StrBuf *out) {
  sb_puts(out, "(params");
  for (int i = 0; i < l->len; i++) {
    sb_putc(out, ' ');
    dump_param(l->items[i], out);
  }
  sb_putc(out, ')');
}

/* Names and literals. */
static void dump_atom(const Ast *n, StrBuf *out) {
  switch (n->kind) {
  case AST_NAME: sb_puts(out, n->name ? n->name : "?"); return;
  case AST_INT:
    sb_printf(out, "%lld", (long long)n->ival);
    if (n->big) sb_puts(out, ":big");
    return;
  case AST_FLOAT: dump_float(n->fval, out); return;
  case AST_STR: dump_str(n->str ? n->str : "", n->str ? n->ival : 0, out); return;
  case AST_NONE: sb_puts(out, "None"); return;
  case AST_TRUE: sb_puts(out, "True"); return;
  case AST_FALSE: sb_puts(out, "False"); return;
  default: break;
  }
}

/* Attribute access, calls and their arguments, subscripts and slices. */
static void dump_trailer(const Ast *n, StrBuf *out) {
  switch (n->kind) {
  case AST_ATTR:
    if (is_dotted(n)) {
      dotted(n, out);
    } else {
      sb_puts(out, "(Attr ");
      dump_expr(n->a, out);
      sb_printf(out, " %s)", n->name ? n->name : "?");
    }
    return;
  case AST_CALL:
    sb_puts(out, "(Call ");
    dump_expr(n->a, out);
    dump_list(&n->list, out);
    sb_putc(out, ')');
    return;
  case AST_KEYWORD:
    if (n->name) sb_printf(out, "%s=", n->name);
    else sb_puts(out, "**");
    dump_expr(n->a, out);
    return;
  case AST_STARRED:
    sb_putc(out, '*');
    dump_expr(n->a, out);
    return;
  case AST_SUBSCRIPT:
    sb_puts(out, "(Subscript ");
    dump_expr(n->a, out);
    sb_putc(out, ' ');
    dump_expr(n->b, out);
    sb_putc(out, ')');
    return;
  case AST_SLICE:
    sb_puts(out, "(Slice ");
    dump_opt(n->a, out);
    sb_putc(out, ' ');
    dump_opt(n->b, out);
    sb_putc(out, ' ');
    dump_opt(n->c, out);
    sb_putc(out, ')');
    return;
  default: break;
  }
}

/* Tuple, list and dict displays. */
static void dump_display(const Ast *n, StrBuf *out) {
  switch (n->kind) {
  case AST_TUPLE:
  case AST_LIST:
    sb_printf(out, "(%s", ast_kind_name(n->kind));
    dump_list(&n->list, out);
    sb_putc(out, ')');
    return;
  case AST_DICT:
    sb_puts(out, "(Dict");
    for (int i = 0; i < n->list.len; i++) {
      sb_puts(out, " (");
      dump_expr(n->list.items[i], out);
      sb_putc(out, ' ');
      dump_expr(i < n->list2.len ? n->list2.items[i] : NULL, out);
      sb_putc(out, ')');
    }
    sb_putc(out, ')');
    return;
  default: break;
  }
}

/* Operators: binary, unary, boolean, comparison chains, conditional. */
static void dump_operator(const Ast *n, StrBuf *out) {
  switch (n->kind) {
  case AST_BINOP:
    sb_printf(out, "(%s ", ast_op_str(n->op));
    dump_expr(n->a, out);
    sb_putc(out, ' ');
    dump_expr(n->b, out);
    sb_putc(out, ')');
    return;
  case AST_UNARY:
    sb_printf(out, "(%s ", ast_op_str(n->op));
    dump_expr(n->a, out);
    sb_putc(out, ')');
    return;
  case AST_BOOLOP:
    sb_printf(out, "(%s", ast_op_str(n->op));
    dump_list(&n->list, out);
    sb_putc(out, ')');
    return;
  case AST_COMPARE:
    sb_puts(out, "(Compare ");
    dump_expr(n->a, out);
    for (int i = 0; i < n->list.len; i++) {
      sb_printf(out, " %s ", n->ops ? ast_op_str(n->ops[i]) : "?");
      dump_expr(n->list.items[i], out);
    }
    sb_putc(out, ')');
    return;
  case AST_IFEXP:
    sb_puts(out, "(IfExp ");
    dump_expr(n->a, out);
    sb_putc(out, ' ');
    dump_expr(n->b, out);
    sb_putc(out, ' ');
    dump_expr(n->c, out);
    sb_putc(out, ')');
    return;
  default: break;
  }
}

static void dump_expr(const Ast *n, StrBuf *out) {
  if (!n) {
    sb_putc(out, '_');
    return;
  }
  switch (n->kind) {
  case AST_NAME:
  case AST_INT:
  case AST_FLOAT:
  case AST_STR:
  case AST_NONE:
  case AST_TRUE:
  case AST_FALSE: dump_atom(n, out); return;
  case AST_ATTR:
  case AST_CALL:
  case AST_KEYWORD:
  case AST_STARRED:
  case AST_SUBSCRIPT:
  case AST_SLICE: dump_trailer(n, out); return;
  case AST_TUPLE:
  case AST_LIST:
  case AST_DICT: dump_display(n, out); return;
  case AST_BINOP:
  case AST_UNARY:
  case AST_BOOLOP:
  case AST_COMPARE:
  case AST_IFEXP: dump_operator(n, out); return;
  case AST_LAMBDA:
    sb_puts(out, "(Lambda (");
    for (int i = 0; i < n->list.len; i++) {
      if (i) sb_putc(out, ' ');
      dump_param(n->list.items[i], out);
    }
    sb_puts(out, ") ");
    dump_expr(n->a, out);
    sb_putc(out, ')');
    return;
  case AST_PARAM: dump_param(n, out); return;
  case AST_WITH_ITEM:
    if (!n->b) {
      dump_expr(n->a, out);
    } else {
      sb_putc(out, '(');
      dump_expr(n->a, out);
      sb_puts(out, " as ");
      dump_expr(n->b, out);
      sb_putc(out, ')');
    }
    return;
  case AST_ERROR: sb_puts(out, "(Error)"); return;
  default: /* a statement where an expression was expected */
    sb_printf(out, "(%s)", ast_kind_name(n->kind));
    return;
  }
}

static void dump_stmt(const Ast *n, StrBuf *out, int ind);

static void newline(StrBuf *out, int ind) {
  sb_putc(out, '\n');
  for (int i = 0; i < ind; i++) sb_putc(out, ' ');
}

static void dump_body(const AstList *body, StrBuf *out, int ind) {
  for (int i = 0; i < body->len; i++) {
    newline(out, ind);
    dump_stmt(body->items[i], out, ind);
  }
}

static void dump_import_item(const Ast *x, StrBuf *out) {
  sb_putc(out, ' ');
  if (x->name2) sb_putc(out, '(');
  dump_expr(x, out);
  if (x->name2) sb_printf(out, " as %s)", x->name2);
}

static void dump_decorators(const Ast *n, StrBuf *out) {
  if (!n->decorators.len) return;
  sb_puts(out, " (decorators");
  dump_list(&n->decorators, out);
  sb_putc(out, ')');
}

/* Module, imports, class and function definitions. */
static void dump_def(const Ast *n, StrBuf *out, int ind) {
  switch (n->kind) {
  case AST_MODULE:
    sb_puts(out, "(Module");
    dump_body(&n->body, out, ind + 2);
    sb_putc(out, ')');
    return;
  case AST_IMPORT:
  case AST_FROM_IMPORT:
    sb_printf(out, "(%s", ast_kind_name(n->kind));
    if (n->kind == AST_FROM_IMPORT) {
      sb_putc(out, ' ');
      dump_expr(n->a, out);
    }
    for (int i = 0; i < n->list.len; i++) dump_import_item(n->list.items[i], out);
    sb_putc(out, ')');
    return;
  case AST_CLASS:
    sb_printf(out, "(ClassDef %s", n->name ? n->name : "?");
    dump_decorators(n, out);
    if (n->list.len) {
      sb_puts(out, " (bases");
      dump_list(&n->list, out);
      sb_putc(out, ')');
    }
    dump_body(&n->body, out, ind + 2);
    sb_putc(out, ')');
    return;
  case AST_FUNCDEF:
    sb_printf(out, "(FuncDef %s", n->name ? n->name : "?");
    dump_decorators(n, out);
    sb_putc(out, ' ');
    dump_params(&n->list, out);
    if (n->b) {
      sb_puts(out, " (returns ");
      dump_expr(n->b, out);
      sb_putc(out, ')');
    }
    dump_body(&n->body, out, ind + 2);
    sb_putc(out, ')');
    return;
  default: break;
  }
}

/* Assignments (plain, annotated, augmented). */
static void dump_assign(const Ast *n, StrBuf *out, int ind) {
  switch (n->kind) {
  case AST_ASSIGN:
    sb_puts(out, "(Assign");
    for (int i = 0; i < n->list.len; i++) {
      sb_putc(out, ' ');
      dump_expr(n->list.items[i], out);
      if (i + 1 < n->list.len) sb_puts(out, " =");
    }
    if (n->b) {
      sb_puts(out, " : ");
      dump_expr(n->b, out);
    }
    if (n->a) {
      sb_puts(out, " = ");
      dump_expr(n->a, out);
    }
    sb_putc(out, ')');
    return;
  case AST_AUGASSIGN:
    sb_puts(out, "(AugAssign ");
    dump_expr(n->a, out);
    sb_printf(out, " %s= ", ast_op_str(n->op));
    dump_expr(n->b, out);
    sb_putc(out, ')');
    return;
  default: break;
  }
}

/* Compound statements with a body. */
static void dump_compound(const Ast *n, StrBuf *out, int ind) {
  switch (n->kind) {
  case AST_FOR:
    sb_puts(out, "(For ");
    dump_expr(n->a, out);
    sb_puts(out, " in ");
    dump_expr(n->b, out);
    dump_body(&n->body, out, ind + 2);
    sb_putc(out, ')');
    return;
  case AST_WITH:
    sb_puts(out, "(With");
    dump_list(&n->list, out);
    dump_body(&n->body, out, ind + 2);
    sb_putc(out, ')');
    return;
  case AST_IF:
    sb_puts(out, "(If ");
    dump_expr(n->a, out);
    dump_body(&n->body, out, ind + 2);
    if (n->orelse.len) {
      newline(out, ind + 2);
      sb_puts(out, "(else");
      dump_body(&n->orelse, out, ind + 4);
      sb_putc(out, ')');
    }
    sb_putc(out, ')');
    return;
  case AST_WHILE:
    sb_puts(out, "(While ");
    dump_expr(n->a, out);
    dump_body(&n->body, out, ind + 2);
    sb_putc(out, ')');
    return;
  default: break;
  }
}

static void dump_stmt(const Ast *n, StrBuf *out, int ind) {
  if (!n) {
    sb_puts(out, "_");
    return;
  }
  switch (n->kind) {
  case AST_MODULE:
  case AST_IMPORT:
  case AST_FROM_IMPORT:
  case AST_CLASS:
  case AST_FUNCDEF: dump_def(n, out, ind); return;
  case AST_ASSIGN:
  case AST_AUGASSIGN: dump_assign(n, out, ind); return;
  case AST_FOR:
  case AST_WITH:
  case AST_IF:
  case AST_WHILE: dump_compound(n, out, ind); return;
  case AST_RETURN:
    sb_puts(out, "(Return");
    if (n->a) {
      sb_putc(out, ' ');
      dump_expr(n->a, out);
    }
    sb_putc(out, ')');
    return;
  case AST_EXPR_STMT:
    sb_puts(out, "(Expr ");
    dump_expr(n->a, out);
    sb_putc(out, ')');
    return;
  case AST_ASSERT:
    sb_puts(out, "(Assert ");
    dump_expr(n->a, out);
    if (n->b) {
      sb_putc(out, ' ');
      dump_expr(n->b, out);
    }
    sb_putc(out, ')');
    return;
  case AST_PASS: sb_puts(out, "(Pass)"); return;
  case AST_BREAK: sb_puts(out, "(Break)"); return;
  case AST_CONTINUE: sb_puts(out, "(Continue)"); return;
  case AST_ERROR: sb_puts(out, "(Error)"); return;
  default: dump_expr(n, out); return;
  }
}

void ast_dump(const Ast *n, StrBuf *out) { dump_stmt(n, out, 0); }

void ast_file_free(AstFile *f) {
  if (!f) return;
  arena_free(&f->arena);
  free(f);
}

/* ------------------------------------------------------------- nesting */

typedef struct {
  const Ast *n; /* a node to visit */
  int depth;    /* its nesting level */
} DeepItem;

typedef struct {
  DeepItem *v;
  int n, cap;
} DeepStack;

/* Pushes a statement list: each statement one level below `depth`, plus one
 * per binding (ASSIGN, ASSERT) before it in the list.  Pushed in reverse so
 * that they pop in source order. */
static void push_stmts(DeepStack *st, const AstList *l, int depth) {
  int extra = 0;
  for (int i = 0; i < l->len; i++)
    if (l->items[i]->kind == AST_ASSIGN || l->items[i]->kind == AST_ASSERT) extra++;
  for (int i = l->len - 1; i >= 0; i--) {
    const Ast *x = l->items[i];
    if (x->kind == AST_ASSIGN || x->kind == AST_ASSERT) extra--;
    DeepItem it = {x, depth + 1 + extra};
    VEC_PUSH(st->v, st->n, st->cap, it);
  }
}

static void push_exprs(DeepStack *st, const AstList *l, int depth) {
  for (int i = l->len - 1; i >= 0; i--)
    if (l->items[i]) {
      DeepItem it = {l->items[i], depth + 1};
      VEC_PUSH(st->v, st->n, st->cap, it);
    }
}

const Ast *ast_too_deep(const Ast *root, int limit, int *depth) {
  DeepStack st = {0};
  int deepest = 0;
  const Ast *found = NULL;
  if (root) VEC_PUSH(st.v, st.n, st.cap, ((DeepItem){root, 0}));
  while (st.n && !found) {
    DeepItem it = st.v[--st.n];
    if (it.depth > deepest) deepest = it.depth;
    if (it.depth > limit) {
      found = it.n;
      break;
    }
    const Ast *n = it.n;
    push_stmts(&st, &n->orelse, it.depth);
    push_stmts(&st, &n->body, it.depth);
    push_exprs(&st, &n->list2, it.depth);
    push_exprs(&st, &n->list, it.depth);
    const Ast *kids[] = {n->c, n->b, n->a};
    for (int k = 0; k < 3; k++)
      if (kids[k]) VEC_PUSH(st.v, st.n, st.cap, ((DeepItem){kids[k], it.depth + 1}));
    push_exprs(&st, &n->decorators, it.depth);
  }
  free(st.v);
  if (depth) *depth = deepest;
  return found;
}
