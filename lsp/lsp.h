/* lsp.h - `tvs lsp`: a Language Server Protocol server for .tvs files and
 * schedule scripts, over stdio with Content-Length framing (JSON-RPC 2.0).
 *
 * The server is built on the same front end as the other tools: the parser and
 * elaborator give diagnostics (the messages and spans of `tvs check`), the AST
 * gives symbols, definitions and references, the IR gives hovers.  Bad input of
 * any kind (broken framing, invalid JSON, unknown methods, wrong parameters)
 * gets a JSON-RPC error reply; nothing takes the server down. */
#ifndef TVS_LSP_LSP_H
#define TVS_LSP_LSP_H

#include <stdio.h>

/* Serves one client reading framed messages from in_fd and writing to out
 * until `exit` or end of input.  log (may be NULL) receives one line per
 * protocol problem.  Returns the process exit code: 0 after shutdown + exit,
 * 1 otherwise (as the protocol specifies). */
int lsp_serve(int in_fd, FILE *out, FILE *log);

#endif
