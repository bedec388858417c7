/* lsp_info.h - descriptions of names from the elaborated IR (ir_info.c). */
#ifndef TVS_LSP_INFO_H
#define TVS_LSP_INFO_H

#include "lsp/lsp_internal.h"

/* Appends what the IR of function func (NULL: any) knows about name, taken
 * as a symbol of the given kind; false when the IR has nothing. */
bool lsp_ir_info(const IrModule *m, const char *func, const char *name, LspSymKind kind, StrBuf *out);

#endif
