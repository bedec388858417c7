/* cg_export.c - exported aliases for direct entries (see cg_export.h).
 * Lives in codegen/ because it reaches into CgResult's LLVM modules. */
#include "codegen/cg_export.h"

#include <string.h>

#include "codegen/cg_internal.h"

static int alias_in(LLVMModuleRef m, const char *alias, const char *name, DiagCtx *diag) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, name);
  if (!fn) {
    diag_error(diag, span_none, "codegen: no function '%s' to alias", name);
    return -1;
  }
  if (LLVMGetNamedGlobalAlias(m, alias, strlen(alias)) || LLVMGetNamedFunction(m, alias) ||
      LLVMGetNamedGlobal(m, alias)) {
    diag_error(diag, span_none, "codegen: cannot export '%s' as '%s': the name is taken", name, alias);
    return -1;
  }
  LLVMValueRef a = LLVMAddAlias2(m, LLVMGlobalGetValueType(fn), 0, fn, alias);
  LLVMSetLinkage(a, LLVMExternalLinkage);
  LLVMSetVisibility(a, LLVMDefaultVisibility);
  return 0;
}

int cg_add_alias(CgResult *r, const char *alias, const char *name, DiagCtx *diag) {
  if (!r || !alias || !name) return -1;
  if (alias_in(r->mod, alias, name, diag)) return -1;
  if (r->opt_mod && alias_in(r->opt_mod, alias, name, diag)) return -1;
  return 0;
}
