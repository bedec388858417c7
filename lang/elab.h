/* elab.h - elaboration: AST -> IRModule (name resolution, type/shape checks).
 *
 * Handles both dialects of DESIGN.md section 3: TensorIR (`T.`), Relax (`R.`),
 * the tensor-expression sugar (`te.`), `I.ir_module` classes and bare
 * top-level definitions (an implicit module).  Errors go to the DiagCtx with
 * the span of the offending construct, in user terms. */
#ifndef TVS_LANG_ELAB_H
#define TVS_LANG_ELAB_H

#include "ir/module.h"
#include "lang/ast.h"
#include "base/diag.h"

/* Elaborates a parsed file.  Returns a new module (free with ir_module_free)
 * or NULL when errors were reported.  Schedule-script statements at top level
 * (sch = ..., sch.split(...)) are not part of the module; they are skipped
 * here and handled by sched/ in a later stage. */
IrModule *elab_module(const AstFile *file, DiagCtx *diag);

/* Convenience: parse + elaborate a file's text. */
IrModule *tvs_load_module(const SourceFile *src, DiagCtx *diag);

/* Builtin name i of the T./R./I./te. namespaces ("T.grid", "R.nn.relu"), NULL
 * past the end (completion in the language server). */
const char *builtin_name_at(int i);

#endif
