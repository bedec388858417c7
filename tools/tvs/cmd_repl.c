/* cmd_repl.c - `tvs repl [FILE.tvs]`: the interactive REPL (repl/).
 * A thin call: the session, line editing and script mode live in repl/. */
#include "repl/repl.h"
#include "tools/tvs/tvs.h"

int cmd_repl(int argc, char **argv) { return repl_main(argc, argv); }
