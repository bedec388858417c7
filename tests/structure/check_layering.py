#!/usr/bin/env python3
"""check_layering.py - dependencies between TVS's folders flow one way.

Every `#include "folder/..."` in a library or tool folder must name a folder
that the including folder may use (docs/internals.md draws the same table).
An include that points up or sideways is reported as
`path:line: error: FOLDER may not include FOLDER/... (it sits above it)`
and the script exits 1.

    check_layering.py [ROOT]        ROOT defaults to the repository root
"""
import os
import re
import sys

# Each folder with the folders it may include (besides itself).  Read from the
# bottom up: base and runtime stand alone; ir builds on them; the front end
# (lang + parser, one layer: the parser builds lang's AST and elaboration
# drives the parser) and codegen build on ir; sched on the front end; driver
# joins sched and codegen; autotune measures through driver; repl and lsp sit
# on everything below; tools are thin mains over the libraries.
BELOW = {
    "base": [],
    "runtime": [],
    "ir": ["base", "runtime"],
    "lang": ["base", "runtime", "ir", "parser"],
    "parser": ["base", "runtime", "ir", "lang"],
    "codegen": ["base", "runtime", "ir"],
    "sched": ["base", "runtime", "ir", "lang", "parser"],
    "frontend": ["base", "runtime", "ir", "lang", "parser"],
    "driver": ["base", "runtime", "ir", "lang", "parser", "codegen", "sched", "frontend"],
    "autotune": ["base", "runtime", "ir", "lang", "parser", "codegen", "sched", "driver"],
    "repl": ["base", "runtime", "ir", "lang", "parser", "codegen", "sched", "frontend", "driver",
             "autotune"],
    "lsp": ["base", "runtime", "ir", "lang", "parser", "sched", "frontend", "driver"],
    # include/tvs/: the public C API's headers (self-contained: DLPack and their own).
    "include": [],
    # api/: libtvs.so, the thin layer behind include/tvs/ over everything below.
    "api": ["base", "runtime", "ir", "lang", "parser", "codegen", "sched", "frontend", "driver",
            "autotune", "include"],
    "tools": ["base", "runtime", "ir", "lang", "parser", "codegen", "sched", "frontend", "driver",
              "autotune", "repl", "lsp", "include", "api"],
}
# Folders whose files may include anything (they test or measure the layers).
ANY = {"tests", "bench", "examples", "stdlib", "docs", "build", "python", "scripts"}
SOURCE_EXT = (".c", ".h", ".def", ".re", ".y", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_]+)/')


def check(root):
    errors = []
    for top in sorted(os.listdir(root)):
        where = os.path.join(root, top)
        if top.startswith(".") or top in ANY or not os.path.isdir(where):
            continue
        if os.path.exists(os.path.join(where, "CMakeCache.txt")):
            continue  # a build tree (build-asan/, out/...): generated code, not a layer
        allowed = BELOW.get(top)
        for dirpath, dirnames, files in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(files):
                if not name.endswith(SOURCE_EXT):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                if allowed is None:
                    errors.append(f"{rel}:1: error: folder '{top}' is not in the layer table "
                                  "of tests/structure/check_layering.py")
                    break
                with open(path, encoding="utf-8", errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = m.group(1)
                        if target == top or target in allowed:
                            continue
                        if target not in BELOW:
                            continue  # generated or system-style paths (gen/, llvm-c/)
                        errors.append(f"{rel}:{lineno}: error: {top}/ may not include "
                                      f"{target}/ (allowed: {', '.join(allowed) or 'nothing'})")
    return errors


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    errors = check(os.path.abspath(root))
    for e in errors:
        print(e)
    if errors:
        print(f"layering: {len(errors)} include(s) point up or sideways")
        return 1
    print("layering: every include points down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
