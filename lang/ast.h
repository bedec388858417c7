/* ast.h - the syntax tree of the Python subset that TVMScript uses.
 *
 * This is throwaway scratch between the parser and elaboration, so it uses a
 * single "fat" node struct (as chibicc does): which fields a kind uses is noted
 * in the table below.  All nodes and lists of one parse live in one Arena
 * (AstFile.arena) and are freed together; the parser therefore never leaks. */
#ifndef TVS_LANG_AST_H
#define TVS_LANG_AST_H

#include <stdint.h>

#include "base/arena.h"
#include "base/source.h"

/* Kinds.  Fields used (see struct Ast):
 *   expressions                                 statements
 *   NAME      name                              MODULE     body
 *   INT       ival (suffix-free integer)        IMPORT     list=dotted names (NAME/ATTR), each with
 *   FLOAT     fval                                         name2 = the "as" alias or NULL
 *   STR       str, ival = length (may hold NUL) FROM_IMPORT a=module (NAME/ATTR), list=imported
 *   NONE/TRUE/FALSE  -                                     NAME nodes, each with name2 = alias or NULL
 *   ATTR      a=value, name=attribute           CLASS      name, decorators, list=bases, body
 *   CALL      a=callee, list=args (KEYWORD or   FUNCDEF    name, decorators, list=params (PARAM),
 *             STARRED nodes may appear)                    b=return annotation or NULL, body
 *   KEYWORD   name, a=value (only in CALL)      PARAM      name, a=annotation or NULL, b=default or NULL
 *   STARRED   a=value (*x in calls)             ASSIGN     list=targets (chained a = b = e: several),
 *   SUBSCRIPT a=value, b=index (TUPLE for                  a=value, b=annotation (x: T = e) or NULL;
 *             A[i, j]; SLICE elements allowed)             an annotation without value has a=NULL
 *   SLICE     a=lo, b=hi, c=step (any NULL)     AUGASSIGN  op, a=target, b=value
 *   TUPLE     list (parenthesized or bare)      FOR        a=target (NAME or TUPLE), b=iterable, body
 *   LIST      list                              WITH       list=items (WITH_ITEM), body
 *   DICT      list=keys, list2=values           WITH_ITEM  a=context expr, b=as-target or NULL
 *   BINOP     op, a, b                          IF         a=cond, body, orelse (elif: one IF inside)
 *   UNARY     op (OP_NEG/OP_POS/OP_INVERT/      RETURN     a=value or NULL
 *             OP_NOT), a                        PASS       -
 *   BOOLOP    op (OP_AND/OP_OR), list (>=2)     EXPR_STMT  a=expression
 *   COMPARE   a=first, list=rest, ops=operators  WHILE      a=cond, body
 *             (ops[i] between operand i and i+1) ASSERT     a=cond, b=message or NULL
 *   LAMBDA    list=params (PARAM), a=body       BREAK/CONTINUE -
 *   IFEXP     a=cond, b=then, c=else            (decorators are expressions in `decorators`)
 *
 * Details the parser guarantees (parser/grammar.y):
 *   - Spans cover the whole construct.  A parenthesized expression keeps the
 *     span of its inside; a parenthesized TUPLE includes the parentheses.
 *     Compound statements run from their keyword (or first decorator) to the
 *     end of their body.
 *   - SUBSCRIPT: A[i] -> b = i; A[i, j] and A[i,] -> b = TUPLE; A[()] -> b = empty
 *     TUPLE; A[0:16, ::2] -> b = TUPLE(SLICE(0,16,NULL), SLICE(NULL,NULL,2)).
 *     SLICE only appears as a subscript index or an element of that TUPLE.
 *   - CALL list: positional args, STARRED (*xs) and KEYWORD nodes in source
 *     order; `**kw` is a KEYWORD with name == NULL.  No positional argument
 *     follows a KEYWORD with a name (reported as an error).
 *   - Decorators: `@T.prim_func` is the ATTR chain itself; `@T.prim_func(private=True)`
 *     is a CALL (a = the ATTR chain, list = [KEYWORD private=TRUE]).
 *   - CLASS list = bases, same node kinds as CALL arguments.
 *   - PARAM ival: 0 plain, 1 `*args` (bare `*`: name == NULL), 2 `**kwargs`.
 *   - COMPARE: `0 <= i < n` is a=0, list=[i, n], ops=[OP_LE, OP_LT] (one
 *     node for a chain, never nested).  BOOLOP flattens `a and b and c` into
 *     one node with three operands (not when parenthesized).
 *   - ASSIGN targets (list items) are NAME, ATTR, SUBSCRIPT, or TUPLE/LIST of
 *     targets (STARRED allowed inside); `i, j = e` has one TUPLE target.
 *     Other targets are reported as errors ("cannot assign to ...").
 *   - STARRED also appears in tuple/list displays and targets (`*a, b = c`).
 *   - STR: adjacent literals are concatenated into one STR.
 *   - FOR a: a NAME, or a TUPLE for `for i, j in ...`.  IF: `elif` is an IF
 *     alone in orelse.  FROM_IMPORT `from m import *`: list = [NAME "*"].
 *   - ERROR: a statement that failed to parse (its error was reported). */
typedef enum AstKind {
  AST_NAME, AST_INT, AST_FLOAT, AST_STR, AST_NONE, AST_TRUE, AST_FALSE,
  AST_ATTR, AST_CALL, AST_KEYWORD, AST_STARRED, AST_SUBSCRIPT, AST_SLICE,
  AST_TUPLE, AST_LIST, AST_DICT, AST_BINOP, AST_UNARY, AST_BOOLOP, AST_COMPARE,
  AST_LAMBDA, AST_IFEXP,
  AST_MODULE, AST_IMPORT, AST_FROM_IMPORT, AST_CLASS, AST_FUNCDEF, AST_PARAM,
  AST_ASSIGN, AST_AUGASSIGN, AST_FOR, AST_WITH, AST_WITH_ITEM, AST_IF, AST_RETURN,
  AST_PASS, AST_EXPR_STMT, AST_WHILE, AST_ASSERT, AST_BREAK, AST_CONTINUE,
  AST_ERROR, /* placeholder left by error recovery; elaboration skips it silently */
  AST_NUM_KINDS
} AstKind;

/* Operators of BINOP, AUGASSIGN, UNARY, BOOLOP and COMPARE. */
typedef enum AstOp {
  OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_POW, OP_MATMUL,
  OP_LSHIFT, OP_RSHIFT, OP_BITAND, OP_BITOR, OP_BITXOR,
  OP_NEG, OP_POS, OP_INVERT, OP_NOT,
  OP_AND, OP_OR,
  OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE, OP_IN, OP_NOT_IN, OP_IS, OP_IS_NOT,
  OP_NUM_OPS
} AstOp;

typedef struct Ast Ast;

/* An arena-allocated array of nodes. */
typedef struct AstList {
  Ast **items; /* elements */
  int len;     /* number of elements */
  int cap;     /* allocated slots (growth doubles within the arena) */
} AstList;

struct Ast {
  AstKind kind;       /* what this node is; decides which fields below are used */
  Span span;          /* the whole construct in the source */
  AstOp op;           /* BINOP/UNARY/BOOLOP/AUGASSIGN operator */
  const char *name;   /* NAME id, ATTR attribute, KEYWORD/PARAM/CLASS/FUNCDEF name */
  const char *name2;  /* IMPORT/FROM_IMPORT alias ("as" name) */
  const char *str;    /* STR contents after escape processing */
  int64_t ival;       /* INT value; STR length */
  double fval;        /* FLOAT value */
  int big;            /* INT literal did not fit in int64 (value saturated) */
  Ast *a, *b, *c;     /* children, per kind (see table) */
  AstList list;       /* children, per kind (see table) */
  AstList list2;      /* DICT values */
  AstList body;       /* statements of MODULE/CLASS/FUNCDEF/FOR/WITH/IF/WHILE */
  AstList orelse;     /* IF else-branch */
  AstList decorators; /* CLASS/FUNCDEF decorators */
  AstOp *ops;         /* COMPARE operators (list.len of them) */
};

/* The result of parsing one file. */
typedef struct AstFile {
  Arena arena;             /* owns every node */
  const SourceFile *src;   /* the text parsed */
  Ast *module;             /* AST_MODULE, never NULL after parse_file returns */
} AstFile;

Ast *ast_new(Arena *a, AstKind kind, Span span);
void ast_list_push(Arena *a, AstList *l, Ast *n);
const char *ast_kind_name(AstKind k);
const char *ast_op_str(AstOp op);   /* "+", "//", "not in", ... */
/* The dotted name of a NAME/ATTR chain ("T.axis.remap") in the arena, or NULL. */
const char *ast_dotted_name(Arena *a, const Ast *n);
/* Debug dump in an s-expression form, used by `tvs show --stage ast` (the form
 * is documented at the top of lang/ast.c). */
struct StrBuf;
void ast_dump(const Ast *n, struct StrBuf *out);
void ast_file_free(AstFile *f);

/* How deeply a program may nest before elaboration refuses it with "program
 * too deeply nested": expression operands, statement bodies, elif branches,
 * and the statements after a binding (`x = ...` in TIR becomes a LetStmt
 * around the rest of its list) each count one level.  Far beyond real
 * programs (a 100,000-term sum or 100,000 bindings in a row still pass); every
 * stage after the parser recurses over this depth, which the tools' stack
 * (base/big_stack.h) holds in the sanitizer build too.  docs/checks.md. */
#define TVS_MAX_NESTING 150000

/* The first node (in source order) nested more than `limit` levels below
 * `root`, or NULL; *depth gets the deepest level seen (at most limit + 1).
 * Iterative: safe on any tree the parser builds. */
const Ast *ast_too_deep(const Ast *root, int limit, int *depth);

#endif
