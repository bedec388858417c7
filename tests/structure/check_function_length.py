#!/usr/bin/env python3
"""check_function_length.py - no function body in the core folders grows past a limit.

Primitives and passes read as steps: a function longer than LIMIT lines (from
its opening brace to its closing one) is reported as
`path:line: error: NAME is N lines (limit LIMIT)`.

    check_function_length.py [--limit N] [--top K] [ROOT]
"""
import argparse
import os
import re
import sys

FOLDERS = ("sched", "ir", "lang")


def strip(src):
    """Blanks comments, strings and character literals, keeping line breaks."""
    src = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), src, flags=re.S)
    src = re.sub(r"//[^\n]*", "", src)
    src = re.sub(r'"(\\.|[^"\\\n])*"', '""', src)
    return re.sub(r"'(\\.|[^'\\\n])*'", "''", src)


def functions(path):
    """Yields (lines, name, first line) of each top-level braced definition."""
    lines = strip(open(path, encoding="utf-8", errors="replace").read()).split("\n")
    depth, start, name = 0, None, None
    for i, line in enumerate(lines):
        for ch in line:
            if ch == "{":
                if depth == 0:
                    head = "\n".join(lines[max(0, i - 6):i + 1])
                    found = re.findall(r"(\w+)\s*\([^;{}]*\)\s*\{?\s*$", head, flags=re.S)
                    name, start = (found[-1] if found else None), i
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0 and name:
                    yield i - start + 1, name, start + 1
                    name = None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=150)
    ap.add_argument("--top", type=int, default=5, help="also list the K longest functions")
    ap.add_argument("root", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    found = []
    for folder in FOLDERS:
        for dirpath, dirnames, files in os.walk(os.path.join(root, folder)):
            dirnames.sort()
            for f in sorted(files):
                if f.endswith(".c"):
                    path = os.path.join(dirpath, f)
                    for n, name, line in functions(path):
                        found.append((n, name, os.path.relpath(path, root), line))
    found.sort(key=lambda t: (-t[0], t[2], t[3]))
    over = [t for t in found if t[0] > a.limit]
    for n, name, path, line in over:
        print(f"{path}:{line}: error: {name} is {n} lines (limit {a.limit})")
    print(f"function length: the {a.top} longest in {', '.join(FOLDERS)}:")
    for n, name, path, line in found[:a.top]:
        print(f"  {n:4d}  {name}  {path}:{line}")
    if over:
        print(f"function length: {len(over)} function(s) over {a.limit} lines")
        return 1
    print(f"function length: all {len(found)} functions within {a.limit} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
