/* grammar.y - the Lemon grammar of the Python subset TVMScript uses.
 *
 * Thin on purpose: each action builds one node through the helpers in the
 * %include block below (all memory from the AstFile's arena, so no destructors
 * are needed).  Top-level statements are appended to ctx->module as soon as
 * they are reduced, so a file that fails to parse still yields every statement
 * before the failure.  Error recovery: a statement that fails to parse becomes
 * `error NEWLINE` (plus its indented block, if the broken line was a header)
 * and parsing resumes at the next line; see driver.c for the messages. */

%name parse_lemon
%token_prefix TK_
%token_type {PTok}
%default_type {Ast *}
%extra_context {ParseCtx *ctx}
%stack_size 4000

%include {
#include <string.h>

#include "base/util.h"
#include "parser/parse_internal.h"

#define P_SPAN(a, b) span_join((a), (b))

static Ast *p_new(ParseCtx *c, AstKind k, Span s) { return ast_new(c->arena, k, s); }

/* A node of one operand (UNARY) or two (BINOP). */
static Ast *p_binop(ParseCtx *c, AstOp op, Ast *l, Ast *r) {
  Ast *n = p_new(c, AST_BINOP, P_SPAN(l->span, r->span));
  n->op = op;
  n->a = l;
  n->b = r;
  return n;
}

static Ast *p_unary(ParseCtx *c, AstOp op, Span opspan, Ast *x) {
  Ast *n = p_new(c, AST_UNARY, P_SPAN(opspan, x->span));
  n->op = op;
  n->a = x;
  return n;
}

/* A temporary list holder (kind TUPLE) with one element. */
static Ast *p_list1(ParseCtx *c, AstKind k, Ast *x) {
  Ast *n = p_new(c, k, x->span);
  ast_list_push(c->arena, &n->list, x);
  return n;
}

static Ast *p_push(ParseCtx *c, Ast *l, Ast *x) {
  ast_list_push(c->arena, &l->list, x);
  l->span = P_SPAN(l->span, x->span);
  return l;
}

/* A statement sequence: `a; b` and suites are holders of kind MODULE. */
static void p_block_append(ParseCtx *c, AstList *dst, Ast *s) {
  if (s->kind == AST_MODULE) {
    for (int i = 0; i < s->body.len; i++) ast_list_push(c->arena, dst, s->body.items[i]);
  } else {
    ast_list_push(c->arena, dst, s);
  }
}

static Ast *p_block(ParseCtx *c, Ast *s) {
  if (s->kind == AST_MODULE) return s;
  Ast *b = p_new(c, AST_MODULE, s->span);
  ast_list_push(c->arena, &b->body, s);
  return b;
}

/* Appends statement s to the holder b (created when NULL). */
static Ast *p_seq(ParseCtx *c, Ast *b, Ast *s) {
  if (!b) b = p_new(c, AST_MODULE, s->span);
  p_block_append(c, &b->body, s);
  b->span = P_SPAN(b->span, s->span);
  return b;
}

/* Gives a compound statement its body and extends its span over it. */
static void p_set_body(Ast *n, AstList *dst, Ast *suite) {
  *dst = suite->body;
  n->span = P_SPAN(n->span, suite->span);
}

/* A comma-separated list being parsed: the TUPLE is only made once a
 * second element (or a trailing comma) shows up, so that the common single
 * expression costs no holder node. */
typedef struct PList {
  Ast *one;  /* the first element */
  Ast *many; /* TUPLE of all elements once there are two, else NULL */
} PList;

static PList pl_one(Ast *x) {
  PList l = {x, NULL};
  return l;
}

static PList pl_push(ParseCtx *c, PList l, Ast *x) {
  if (!l.many) l.many = p_list1(c, AST_TUPLE, l.one);
  p_push(c, l.many, x);
  return l;
}

/* The list as an expression: one element is itself, several a TUPLE. */
static Ast *pl_value(PList l) { return l.many ? l.many : l.one; }

/* The list as a TUPLE (there was a trailing comma, or brackets). */
static Ast *pl_tuple(ParseCtx *c, PList l) { return l.many ? l.many : p_list1(c, AST_TUPLE, l.one); }

static const char *p_what(const Ast *e) {
  switch (e->kind) {
  case AST_CALL: return "function call";
  case AST_INT: case AST_FLOAT: case AST_STR: return "literal";
  case AST_NONE: return "None";
  case AST_TRUE: return "True";
  case AST_FALSE: return "False";
  case AST_BINOP: case AST_UNARY: return "expression";
  case AST_BOOLOP: return "expression";
  case AST_COMPARE: return "comparison";
  case AST_LAMBDA: return "lambda";
  case AST_IFEXP: return "conditional expression";
  case AST_DICT: return "dict literal";
  case AST_KEYWORD: return "keyword";
  default: return "expression";
  }
}

/* Checks an assignment target (aug: augmented or annotated, single only). */
static void p_check_target(ParseCtx *c, const Ast *e, bool single) {
  switch (e->kind) {
  case AST_NAME: case AST_ATTR: case AST_SUBSCRIPT: return;
  case AST_TUPLE: case AST_LIST:
    if (!single) {
      for (int i = 0; i < e->list.len; i++) p_check_target(c, e->list.items[i], false);
      return;
    }
    break;
  case AST_STARRED:
    if (!single) {
      p_check_target(c, e->a, false);
      return;
    }
    break;
  default: break;
  }
  if (single && (e->kind == AST_TUPLE || e->kind == AST_LIST || e->kind == AST_STARRED))
    lex_error(&c->lx, e->span, "only a single target can be used here, not a %s",
              e->kind == AST_STARRED ? "starred expression" : e->kind == AST_LIST ? "list" : "tuple");
  else
    lex_error(&c->lx, e->span, "cannot assign to %s", p_what(e));
}

static Ast *p_name(ParseCtx *c, PTok t) {
  Ast *n = p_new(c, AST_NAME, t.span);
  n->name = t.text;
  return n;
}

/* COMPARE: ops grows with the operand list (same capacity). */
static void p_cmp_push(ParseCtx *c, Ast *n, AstOp op, Ast *x) {
  int oldcap = n->list.cap;
  ast_list_push(c->arena, &n->list, x);
  if (n->list.cap != oldcap) {
    AstOp *ops = arena_alloc(c->arena, (size_t)n->list.cap * sizeof *ops);
    if (n->list.len > 1) memcpy(ops, n->ops, (size_t)(n->list.len - 1) * sizeof *ops);
    n->ops = ops;
  }
  n->ops[n->list.len - 1] = op;
  n->span = P_SPAN(n->span, x->span);
}

/* CALL arguments: no positional argument after a keyword one. */
static void p_check_args(ParseCtx *c, const Ast *call) {
  bool kw = false;
  for (int i = 0; i < call->list.len; i++) {
    const Ast *a = call->list.items[i];
    if (a->kind == AST_KEYWORD) kw = true;
    else if (a->kind != AST_STARRED && kw) {
      lex_error(&c->lx, a->span, "positional argument follows keyword argument");
      return;
    }
  }
}

static Ast *p_param(ParseCtx *c, Span s, const char *name, int star, Ast *ann, Ast *def) {
  Ast *p = p_new(c, AST_PARAM, s);
  p->name = name;
  p->ival = star;
  p->a = ann;
  p->b = def;
  if (ann) p->span = P_SPAN(p->span, ann->span);
  if (def) p->span = P_SPAN(p->span, def->span);
  return p;
}

/* Implicit concatenation of adjacent string literals (one copy at the end). */
static Ast *p_join_strings(ParseCtx *c, PList pl) {
  if (!pl.many) return pl.one;
  Ast *l = pl.many;
  size_t n = 0;
  for (int i = 0; i < l->list.len; i++) n += (size_t)l->list.items[i]->ival;
  char *s = arena_alloc(c->arena, n + 1), *p = s;
  for (int i = 0; i < l->list.len; i++) {
    const Ast *x = l->list.items[i];
    memcpy(p, x->str, (size_t)x->ival);
    p += x->ival;
  }
  Ast *r = p_new(c, AST_STR, l->span);
  r->str = s;
  r->ival = (int64_t)n;
  return r;
}
}

%syntax_error {
  parse_syntax_error(ctx, yymajor, &yyminor);
}

%stack_overflow {
  lex_error(&ctx->lx, ctx->cur_span, "%s", "program too deeply nested for the parser");
  ctx->fatal = true;
}

/* Every token, in a fixed order (codes are stable for the language server). */
%token NAME INT FLOAT STRING NEWLINE INDENT DEDENT
       DEF CLASS RETURN PASS FOR IN IF ELIF ELSE WITH AS IMPORT FROM AND OR NOT IS
       LAMBDA NONE TRUE FALSE WHILE BREAK CONTINUE ASSERT
       PLUS MINUS STAR SLASH DSLASH PERCENT POW AT LSHIFT RSHIFT AMP PIPE CARET TILDE
       LT GT LE GE EQ NE ASSIGN
       PLUSEQ MINUSEQ STAREQ SLASHEQ DSLASHEQ PERCENTEQ POWEQ ATEQ AMPEQ PIPEEQ CARETEQ
       LSHIFTEQ RSHIFTEQ
       LPAREN RPAREN LBRACKET RBRACKET LBRACE RBRACE COMMA COLON DOT ELLIPSIS SEMI ARROW.

/* Binary operator precedence, lowest first (Python's). UNARY is - + ~ prefix;
 * ** binds tighter than a unary operator on its left: -2**2 == -(2**2). */
%left PIPE.
%left CARET.
%left AMP.
%left LSHIFT RSHIFT.
%left PLUS MINUS.
%left STAR SLASH DSLASH PERCENT AT.
%right UNARY TILDE.
%right POW.

%type compop {AstOp}
%type tl {PList}
%type etl {PList}
%type sl {PList}
%type strings {PList}
%type augop {AstOp}

/* ======================= statements ======================= */

file ::= top.
top ::= .
top ::= top stmt(S). { p_block_append(ctx, &ctx->module->body, S); }

stmts(A) ::= stmt(S). { A = p_seq(ctx, NULL, S); }
stmts(A) ::= stmts(B) stmt(S). { A = p_seq(ctx, B, S); }

stmt(A) ::= simple_stmt(S). { A = S; }
stmt(A) ::= compound_stmt(S). { A = S; }
stmt(A) ::= error NEWLINE(N). {
  A = p_new(ctx, AST_ERROR, N.span);
  yypParser->yyerrcnt = -1;
}
stmt(A) ::= error NEWLINE(N) INDENT stmts DEDENT. {
  A = p_new(ctx, AST_ERROR, N.span);
  yypParser->yyerrcnt = -1;
}

simple_stmt(A) ::= smalls(S) NEWLINE. { A = S; }
simple_stmt(A) ::= smalls(S) SEMI NEWLINE. { A = S; }

/* One small statement stays itself; several become a MODULE holder. */
smalls(A) ::= small(S). { A = S; }
smalls(A) ::= smalls(B) SEMI small(S). {
  if (B->kind != AST_MODULE) B = p_seq(ctx, NULL, B);
  A = p_seq(ctx, B, S);
}

small(A) ::= expr_stmt(S). { A = S; }
small(A) ::= PASS(T). { A = p_new(ctx, AST_PASS, T.span); }
small(A) ::= BREAK(T). { A = p_new(ctx, AST_BREAK, T.span); }
small(A) ::= CONTINUE(T). { A = p_new(ctx, AST_CONTINUE, T.span); }
small(A) ::= RETURN(T). { A = p_new(ctx, AST_RETURN, T.span); }
small(A) ::= RETURN(T) testlist(E). {
  A = p_new(ctx, AST_RETURN, P_SPAN(T.span, E->span));
  A->a = E;
}
small(A) ::= ASSERT(T) test(C). {
  A = p_new(ctx, AST_ASSERT, P_SPAN(T.span, C->span));
  A->a = C;
}
small(A) ::= ASSERT(T) test(C) COMMA test(M). {
  A = p_new(ctx, AST_ASSERT, P_SPAN(T.span, M->span));
  A->a = C;
  A->b = M;
}
small(A) ::= import_stmt(S). { A = S; }

/* --- expression statements and assignments --- */
expr_stmt(A) ::= testlist(E). {
  A = p_new(ctx, AST_EXPR_STMT, E->span);
  A->a = E;
}
expr_stmt(A) ::= assign(S). { A = S; }
assign(A) ::= testlist(T) ASSIGN testlist(V). {
  p_check_target(ctx, T, false);
  A = p_new(ctx, AST_ASSIGN, P_SPAN(T->span, V->span));
  ast_list_push(ctx->arena, &A->list, T);
  A->a = V;
}
assign(A) ::= assign(B) ASSIGN testlist(V). {
  p_check_target(ctx, B->a, false);
  A = B;
  ast_list_push(ctx->arena, &A->list, A->a);
  A->a = V;
  A->span = P_SPAN(A->span, V->span);
}
expr_stmt(A) ::= testlist(T) COLON test(N). {
  p_check_target(ctx, T, true);
  A = p_new(ctx, AST_ASSIGN, P_SPAN(T->span, N->span));
  ast_list_push(ctx->arena, &A->list, T);
  A->b = N;
}
expr_stmt(A) ::= testlist(T) COLON test(N) ASSIGN testlist(V). {
  p_check_target(ctx, T, true);
  A = p_new(ctx, AST_ASSIGN, P_SPAN(T->span, V->span));
  ast_list_push(ctx->arena, &A->list, T);
  A->a = V;
  A->b = N;
}
expr_stmt(A) ::= testlist(T) augop(O) testlist(V). {
  p_check_target(ctx, T, true);
  A = p_new(ctx, AST_AUGASSIGN, P_SPAN(T->span, V->span));
  A->op = O;
  A->a = T;
  A->b = V;
}
augop(A) ::= PLUSEQ. { A = OP_ADD; }
augop(A) ::= MINUSEQ. { A = OP_SUB; }
augop(A) ::= STAREQ. { A = OP_MUL; }
augop(A) ::= SLASHEQ. { A = OP_DIV; }
augop(A) ::= DSLASHEQ. { A = OP_FLOORDIV; }
augop(A) ::= PERCENTEQ. { A = OP_MOD; }
augop(A) ::= POWEQ. { A = OP_POW; }
augop(A) ::= ATEQ. { A = OP_MATMUL; }
augop(A) ::= AMPEQ. { A = OP_BITAND; }
augop(A) ::= PIPEEQ. { A = OP_BITOR; }
augop(A) ::= CARETEQ. { A = OP_BITXOR; }
augop(A) ::= LSHIFTEQ. { A = OP_LSHIFT; }
augop(A) ::= RSHIFTEQ. { A = OP_RSHIFT; }

/* --- imports --- */
import_stmt(A) ::= IMPORT(T) dnames(L). {
  A = L;
  A->kind = AST_IMPORT;
  A->span = P_SPAN(T.span, L->span);
}
dnames(A) ::= dname_as(X). { A = p_list1(ctx, AST_IMPORT, X); }
dnames(A) ::= dnames(L) COMMA dname_as(X). { A = p_push(ctx, L, X); }
dname_as(A) ::= dotted(D). { A = D; }
dname_as(A) ::= dotted(D) AS NAME(N). {
  A = D;
  A->name2 = N.text;
}
dotted(A) ::= NAME(N). { A = p_name(ctx, N); }
dotted(A) ::= dotted(D) DOT NAME(N). {
  A = p_new(ctx, AST_ATTR, P_SPAN(D->span, N.span));
  A->a = D;
  A->name = N.text;
}
import_stmt(A) ::= FROM(T) dotted(D) IMPORT inames(L). {
  A = L;
  A->kind = AST_FROM_IMPORT;
  A->a = D;
  A->span = P_SPAN(T.span, L->span);
}
import_stmt(A) ::= FROM(T) dotted(D) IMPORT LPAREN inames(L) RPAREN(R). {
  A = L;
  A->kind = AST_FROM_IMPORT;
  A->a = D;
  A->span = P_SPAN(T.span, R.span);
}
import_stmt(A) ::= FROM(T) dotted(D) IMPORT LPAREN inames(L) COMMA RPAREN(R). {
  A = L;
  A->kind = AST_FROM_IMPORT;
  A->a = D;
  A->span = P_SPAN(T.span, R.span);
}
import_stmt(A) ::= FROM(T) dotted(D) IMPORT STAR(S). {
  A = p_new(ctx, AST_FROM_IMPORT, P_SPAN(T.span, S.span));
  A->a = D;
  Ast *n = p_new(ctx, AST_NAME, S.span);
  n->name = "*";
  ast_list_push(ctx->arena, &A->list, n);
}
inames(A) ::= iname(X). { A = p_list1(ctx, AST_FROM_IMPORT, X); }
inames(A) ::= inames(L) COMMA iname(X). { A = p_push(ctx, L, X); }
iname(A) ::= NAME(N). { A = p_name(ctx, N); }
iname(A) ::= NAME(N) AS NAME(M). {
  A = p_name(ctx, N);
  A->name2 = M.text;
  A->span = P_SPAN(N.span, M.span);
}

/* --- compound statements --- */
compound_stmt(A) ::= if_stmt(S). { A = S; }
compound_stmt(A) ::= for_stmt(S). { A = S; }
compound_stmt(A) ::= while_stmt(S). { A = S; }
compound_stmt(A) ::= with_stmt(S). { A = S; }
compound_stmt(A) ::= funcdef(S). { A = S; }
compound_stmt(A) ::= classdef(S). { A = S; }
compound_stmt(A) ::= decorators(D) funcdef(F). {
  A = F;
  A->decorators = D->list;
  A->span = P_SPAN(D->span, F->span);
}
compound_stmt(A) ::= decorators(D) classdef(F). {
  A = F;
  A->decorators = D->list;
  A->span = P_SPAN(D->span, F->span);
}

decorators(A) ::= decorator(X). { A = p_list1(ctx, AST_TUPLE, X); }
decorators(A) ::= decorators(L) decorator(X). { A = p_push(ctx, L, X); }
decorator(A) ::= AT test(E) NEWLINE. { A = E; }

suite(A) ::= simple_stmt(S). { A = p_block(ctx, S); }
suite(A) ::= NEWLINE INDENT stmts(S) DEDENT. { A = S; }

/* elif chains are left-recursive (no stack growth); c tracks the last IF. */
if_stmt(A) ::= if_head(H). { A = H; A->c = NULL; }
if_stmt(A) ::= if_head(H) ELSE COLON suite(S). {
  A = H;
  p_set_body(A, &A->c->orelse, S);
  A->c = NULL;
}
if_head(A) ::= IF(T) test(C) COLON suite(S). {
  A = p_new(ctx, AST_IF, T.span);
  A->a = C;
  p_set_body(A, &A->body, S);
  A->c = A;
}
if_head(A) ::= if_head(H) ELIF(T) test(C) COLON suite(S). {
  Ast *e = p_new(ctx, AST_IF, T.span);
  e->a = C;
  p_set_body(e, &e->body, S);
  A = H;
  ast_list_push(ctx->arena, &A->c->orelse, e);
  A->c = e;
  A->span = P_SPAN(A->span, e->span);
}

for_stmt(A) ::= FOR(T) targets(X) IN testlist(E) COLON suite(S). {
  p_check_target(ctx, X, false);
  A = p_new(ctx, AST_FOR, T.span);
  A->a = X;
  A->b = E;
  p_set_body(A, &A->body, S);
}
targets(A) ::= etl(L). { A = pl_value(L); }
targets(A) ::= etl(L) COMMA(C). { A = pl_tuple(ctx, L); A->span = P_SPAN(A->span, C.span); }
etl(A) ::= expr(X). { A = pl_one(X); }
etl(A) ::= etl(L) COMMA expr(X). { A = pl_push(ctx, L, X); }

while_stmt(A) ::= WHILE(T) test(C) COLON suite(S). {
  A = p_new(ctx, AST_WHILE, T.span);
  A->a = C;
  p_set_body(A, &A->body, S);
}

with_stmt(A) ::= WITH(T) witems(L) COLON suite(S). {
  A = L;
  A->kind = AST_WITH;
  A->span = T.span;
  p_set_body(A, &A->body, S);
}
witems(A) ::= witem(X). { A = p_list1(ctx, AST_WITH, X); }
witems(A) ::= witems(L) COMMA witem(X). { A = p_push(ctx, L, X); }
witem(A) ::= test(E). {
  A = p_new(ctx, AST_WITH_ITEM, E->span);
  A->a = E;
}
witem(A) ::= test(E) AS expr(X). {
  p_check_target(ctx, X, false);
  A = p_new(ctx, AST_WITH_ITEM, P_SPAN(E->span, X->span));
  A->a = E;
  A->b = X;
}

funcdef(A) ::= DEF(T) NAME(N) LPAREN params(P) RPAREN COLON suite(S). {
  A = P;
  A->kind = AST_FUNCDEF;
  A->name = N.text;
  A->span = T.span;
  p_set_body(A, &A->body, S);
}
funcdef(A) ::= DEF(T) NAME(N) LPAREN params(P) RPAREN ARROW test(R) COLON suite(S). {
  A = P;
  A->kind = AST_FUNCDEF;
  A->name = N.text;
  A->b = R;
  A->span = T.span;
  p_set_body(A, &A->body, S);
}
params(A) ::= . { A = p_new(ctx, AST_FUNCDEF, span_none); }
params(A) ::= pl(L). { A = L; }
params(A) ::= pl(L) COMMA. { A = L; }
pl(A) ::= param(X). { A = p_list1(ctx, AST_FUNCDEF, X); }
pl(A) ::= pl(L) COMMA param(X). { A = p_push(ctx, L, X); }
param(A) ::= NAME(N). { A = p_param(ctx, N.span, N.text, 0, NULL, NULL); }
param(A) ::= NAME(N) COLON test(T). { A = p_param(ctx, N.span, N.text, 0, T, NULL); }
param(A) ::= NAME(N) ASSIGN test(D). { A = p_param(ctx, N.span, N.text, 0, NULL, D); }
param(A) ::= NAME(N) COLON test(T) ASSIGN test(D). { A = p_param(ctx, N.span, N.text, 0, T, D); }
param(A) ::= STAR(S). { A = p_param(ctx, S.span, NULL, 1, NULL, NULL); }
param(A) ::= STAR(S) NAME(N). { A = p_param(ctx, P_SPAN(S.span, N.span), N.text, 1, NULL, NULL); }
param(A) ::= STAR(S) NAME(N) COLON test(T). {
  A = p_param(ctx, P_SPAN(S.span, N.span), N.text, 1, T, NULL);
}
param(A) ::= POW(S) NAME(N). { A = p_param(ctx, P_SPAN(S.span, N.span), N.text, 2, NULL, NULL); }
param(A) ::= POW(S) NAME(N) COLON test(T). {
  A = p_param(ctx, P_SPAN(S.span, N.span), N.text, 2, T, NULL);
}

classdef(A) ::= CLASS(T) NAME(N) COLON suite(S). {
  A = p_new(ctx, AST_CLASS, T.span);
  A->name = N.text;
  p_set_body(A, &A->body, S);
}
classdef(A) ::= CLASS(T) NAME(N) LPAREN args(L) RPAREN COLON suite(S). {
  A = p_new(ctx, AST_CLASS, T.span);
  A->name = N.text;
  A->list = L->list;
  p_set_body(A, &A->body, S);
}

/* ======================= expressions ======================= */

/* A bare list of expressions: one element stays itself, otherwise a TUPLE. */
testlist(A) ::= tl(L). { A = pl_value(L); }
testlist(A) ::= tl(L) COMMA(C). { A = pl_tuple(ctx, L); A->span = P_SPAN(A->span, C.span); }
tl(A) ::= tlelem(X). { A = pl_one(X); }
tl(A) ::= tl(L) COMMA tlelem(X). { A = pl_push(ctx, L, X); }
tlelem(A) ::= test(E). { A = E; }
tlelem(A) ::= STAR(S) expr(E). {
  A = p_new(ctx, AST_STARRED, P_SPAN(S.span, E->span));
  A->a = E;
}

test(A) ::= or_test(E). { A = E; }
test(A) ::= or_test(T) IF or_test(C) ELSE test(E). {
  A = p_new(ctx, AST_IFEXP, P_SPAN(T->span, E->span));
  A->a = C;
  A->b = T;
  A->c = E;
}
test(A) ::= LAMBDA(L) COLON test(B). {
  A = p_new(ctx, AST_LAMBDA, P_SPAN(L.span, B->span));
  A->a = B;
}
test(A) ::= LAMBDA(L) lparams(P) COLON test(B). {
  A = P;
  A->kind = AST_LAMBDA;
  A->span = P_SPAN(L.span, B->span);
  A->a = B;
}
lparams(A) ::= lpl(L). { A = L; }
lparams(A) ::= lpl(L) COMMA. { A = L; }
lpl(A) ::= lparam(X). { A = p_list1(ctx, AST_LAMBDA, X); }
lpl(A) ::= lpl(L) COMMA lparam(X). { A = p_push(ctx, L, X); }
lparam(A) ::= NAME(N). { A = p_param(ctx, N.span, N.text, 0, NULL, NULL); }
lparam(A) ::= NAME(N) ASSIGN test(D). { A = p_param(ctx, N.span, N.text, 0, NULL, D); }
lparam(A) ::= STAR(S). { A = p_param(ctx, S.span, NULL, 1, NULL, NULL); }
lparam(A) ::= STAR(S) NAME(N). { A = p_param(ctx, P_SPAN(S.span, N.span), N.text, 1, NULL, NULL); }
lparam(A) ::= POW(S) NAME(N). { A = p_param(ctx, P_SPAN(S.span, N.span), N.text, 2, NULL, NULL); }

or_test(A) ::= and_test(E). { A = E; }
or_test(A) ::= orl(L). { A = L; }
orl(A) ::= and_test(X) OR and_test(Y). {
  A = p_list1(ctx, AST_BOOLOP, X);
  A->op = OP_OR;
  p_push(ctx, A, Y);
}
orl(A) ::= orl(L) OR and_test(Y). { A = p_push(ctx, L, Y); }

and_test(A) ::= not_test(E). { A = E; }
and_test(A) ::= andl(L). { A = L; }
andl(A) ::= not_test(X) AND not_test(Y). {
  A = p_list1(ctx, AST_BOOLOP, X);
  A->op = OP_AND;
  p_push(ctx, A, Y);
}
andl(A) ::= andl(L) AND not_test(Y). { A = p_push(ctx, L, Y); }

not_test(A) ::= NOT(T) not_test(X). { A = p_unary(ctx, OP_NOT, T.span, X); }
not_test(A) ::= comparison(E). { A = E; }

comparison(A) ::= expr(E). { A = E; }
comparison(A) ::= cmpl(L). { A = L; }
cmpl(A) ::= expr(X) compop(O) expr(Y). {
  A = p_new(ctx, AST_COMPARE, X->span);
  A->a = X;
  p_cmp_push(ctx, A, O, Y);
}
cmpl(A) ::= cmpl(L) compop(O) expr(Y). { A = L; p_cmp_push(ctx, A, O, Y); }
compop(A) ::= LT. { A = OP_LT; }
compop(A) ::= GT. { A = OP_GT; }
compop(A) ::= LE. { A = OP_LE; }
compop(A) ::= GE. { A = OP_GE; }
compop(A) ::= EQ. { A = OP_EQ; }
compop(A) ::= NE. { A = OP_NE; }
compop(A) ::= IN. { A = OP_IN; }
compop(A) ::= NOT IN. { A = OP_NOT_IN; }
compop(A) ::= IS. { A = OP_IS; }
compop(A) ::= IS NOT. { A = OP_IS_NOT; }

expr(A) ::= expr(X) PIPE expr(Y). { A = p_binop(ctx, OP_BITOR, X, Y); }
expr(A) ::= expr(X) CARET expr(Y). { A = p_binop(ctx, OP_BITXOR, X, Y); }
expr(A) ::= expr(X) AMP expr(Y). { A = p_binop(ctx, OP_BITAND, X, Y); }
expr(A) ::= expr(X) LSHIFT expr(Y). { A = p_binop(ctx, OP_LSHIFT, X, Y); }
expr(A) ::= expr(X) RSHIFT expr(Y). { A = p_binop(ctx, OP_RSHIFT, X, Y); }
expr(A) ::= expr(X) PLUS expr(Y). { A = p_binop(ctx, OP_ADD, X, Y); }
expr(A) ::= expr(X) MINUS expr(Y). { A = p_binop(ctx, OP_SUB, X, Y); }
expr(A) ::= expr(X) STAR expr(Y). { A = p_binop(ctx, OP_MUL, X, Y); }
expr(A) ::= expr(X) SLASH expr(Y). { A = p_binop(ctx, OP_DIV, X, Y); }
expr(A) ::= expr(X) DSLASH expr(Y). { A = p_binop(ctx, OP_FLOORDIV, X, Y); }
expr(A) ::= expr(X) PERCENT expr(Y). { A = p_binop(ctx, OP_MOD, X, Y); }
expr(A) ::= expr(X) AT expr(Y). { A = p_binop(ctx, OP_MATMUL, X, Y); }
expr(A) ::= expr(X) POW expr(Y). { A = p_binop(ctx, OP_POW, X, Y); }
expr(A) ::= MINUS(T) expr(X). [UNARY] { A = p_unary(ctx, OP_NEG, T.span, X); }
expr(A) ::= PLUS(T) expr(X). [UNARY] { A = p_unary(ctx, OP_POS, T.span, X); }
expr(A) ::= TILDE(T) expr(X). [UNARY] { A = p_unary(ctx, OP_INVERT, T.span, X); }
expr(A) ::= primary(P). { A = P; }

primary(A) ::= atom(X). { A = X; }
primary(A) ::= primary(P) DOT NAME(N). {
  A = p_new(ctx, AST_ATTR, P_SPAN(P->span, N.span));
  A->a = P;
  A->name = N.text;
}
primary(A) ::= primary(P) LPAREN args(L) RPAREN(R). {
  A = L;
  A->a = P;
  A->span = P_SPAN(P->span, R.span);
  p_check_args(ctx, A);
}
primary(A) ::= primary(P) LBRACKET subscripts(I) RBRACKET(R). {
  A = p_new(ctx, AST_SUBSCRIPT, P_SPAN(P->span, R.span));
  A->a = P;
  A->b = I;
}

/* Call arguments: the holder is the CALL node itself. */
args(A) ::= . { A = p_new(ctx, AST_CALL, span_none); }
args(A) ::= al(L). { A = L; }
args(A) ::= al(L) COMMA. { A = L; }
al(A) ::= arg(X). { A = p_list1(ctx, AST_CALL, X); }
al(A) ::= al(L) COMMA arg(X). { A = p_push(ctx, L, X); }
arg(A) ::= test(E). { A = E; }
arg(A) ::= NAME(N) ASSIGN test(E). {
  A = p_new(ctx, AST_KEYWORD, P_SPAN(N.span, E->span));
  A->name = N.text;
  A->a = E;
}
arg(A) ::= STAR(S) test(E). {
  A = p_new(ctx, AST_STARRED, P_SPAN(S.span, E->span));
  A->a = E;
}
arg(A) ::= POW(S) test(E). {
  A = p_new(ctx, AST_KEYWORD, P_SPAN(S.span, E->span));
  A->a = E;
}

/* Subscripts: A[i] -> i; A[i, j] and A[i,] -> TUPLE; slices -> SLICE. */
subscripts(A) ::= sl(L). { A = pl_value(L); }
subscripts(A) ::= sl(L) COMMA(C). { A = pl_tuple(ctx, L); A->span = P_SPAN(A->span, C.span); }
sl(A) ::= sub(X). { A = pl_one(X); }
sl(A) ::= sl(L) COMMA sub(X). { A = pl_push(ctx, L, X); }
sub(A) ::= test(E). { A = E; }
sub(A) ::= opt(L) COLON(C) opt(H). {
  A = p_new(ctx, AST_SLICE, C.span);
  A->a = L;
  A->b = H;
  if (L) A->span = P_SPAN(A->span, L->span);
  if (H) A->span = P_SPAN(A->span, H->span);
}
sub(A) ::= opt(L) COLON(C) opt(H) COLON(D) opt(S). {
  A = p_new(ctx, AST_SLICE, P_SPAN(C.span, D.span));
  A->a = L;
  A->b = H;
  A->c = S;
  if (L) A->span = P_SPAN(A->span, L->span);
  if (S) A->span = P_SPAN(A->span, S->span);
}
opt(A) ::= . { A = NULL; }
opt(A) ::= test(E). { A = E; }

atom(A) ::= NAME(N). { A = p_name(ctx, N); }
atom(A) ::= INT(T). {
  A = p_new(ctx, AST_INT, T.span);
  A->ival = T.ival;
  A->big = T.big;
}
atom(A) ::= FLOAT(T). {
  A = p_new(ctx, AST_FLOAT, T.span);
  A->fval = T.fval;
}
atom(A) ::= strings(L). { A = p_join_strings(ctx, L); }
atom(A) ::= NONE(T). { A = p_new(ctx, AST_NONE, T.span); }
atom(A) ::= TRUE(T). { A = p_new(ctx, AST_TRUE, T.span); }
atom(A) ::= FALSE(T). { A = p_new(ctx, AST_FALSE, T.span); }
atom(A) ::= LPAREN(L) RPAREN(R). { A = p_new(ctx, AST_TUPLE, P_SPAN(L.span, R.span)); }
atom(A) ::= LPAREN(L) tl(X) RPAREN(R). {
  A = pl_value(X);
  if (X.many) A->span = P_SPAN(L.span, R.span);
}
atom(A) ::= LPAREN(L) tl(X) COMMA RPAREN(R). {
  A = pl_tuple(ctx, X);
  A->span = P_SPAN(L.span, R.span);
}
atom(A) ::= LBRACKET(L) RBRACKET(R). { A = p_new(ctx, AST_LIST, P_SPAN(L.span, R.span)); }
atom(A) ::= LBRACKET(L) tl(X) RBRACKET(R). {
  A = pl_tuple(ctx, X);
  A->kind = AST_LIST;
  A->span = P_SPAN(L.span, R.span);
}
atom(A) ::= LBRACKET(L) tl(X) COMMA RBRACKET(R). {
  A = pl_tuple(ctx, X);
  A->kind = AST_LIST;
  A->span = P_SPAN(L.span, R.span);
}
atom(A) ::= LBRACE(L) RBRACE(R). { A = p_new(ctx, AST_DICT, P_SPAN(L.span, R.span)); }
atom(A) ::= LBRACE(L) dl(X) RBRACE(R). { A = X; A->span = P_SPAN(L.span, R.span); }
atom(A) ::= LBRACE(L) dl(X) COMMA RBRACE(R). { A = X; A->span = P_SPAN(L.span, R.span); }
dl(A) ::= test(K) COLON test(V). {
  A = p_new(ctx, AST_DICT, P_SPAN(K->span, V->span));
  ast_list_push(ctx->arena, &A->list, K);
  ast_list_push(ctx->arena, &A->list2, V);
}
dl(A) ::= dl(L) COMMA test(K) COLON test(V). {
  A = L;
  ast_list_push(ctx->arena, &A->list, K);
  ast_list_push(ctx->arena, &A->list2, V);
  A->span = P_SPAN(A->span, V->span);
}
strings(A) ::= STRING(T). {
  Ast *s = p_new(ctx, AST_STR, T.span);
  s->str = T.text;
  s->ival = T.ival;
  A = pl_one(s);
}
strings(A) ::= strings(L) STRING(T). {
  Ast *s = p_new(ctx, AST_STR, T.span);
  s->str = T.text;
  s->ival = T.ival;
  A = pl_push(ctx, L, s);
}
