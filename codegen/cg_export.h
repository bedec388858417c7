/* cg_export.h - extra exported symbols for compiled modules (used by tvsc).
 *
 * A prim_func whose name C cannot call (`main`, a C keyword) still needs a
 * direct entry a C program can link against: cg_add_alias gives its direct
 * entry a second, exported name in the LLVM module before emission. */
#ifndef TVS_CODEGEN_CG_EXPORT_H
#define TVS_CODEGEN_CG_EXPORT_H

#include "codegen/codegen.h"

/* Adds the global alias `alias` for the function `name` of r's module (both
 * the generated and, if built already, the optimized module).  0, or -1 with
 * an error in diag when name is not a function or alias is already taken. */
int cg_add_alias(CgResult *r, const char *alias, const char *name, DiagCtx *diag);

#endif
