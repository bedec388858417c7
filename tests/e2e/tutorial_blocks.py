#!/usr/bin/env python3
"""tutorial_blocks.py - the ```tvs-repl blocks of docs/tutorial.md as a test.

A block is a REPL transcript: lines after the prompts `>>> ` / `... ` are
typed, the others are what `tvs repl` prints.  Modes:
  inputs DOC              print the typed lines of every block, in order
  check DOC TRANSCRIPT    compare the blocks with a `tvs repl --script` run
                          (timings masked); print a diff, exit 1 on mismatch
  fill DOC TRANSCRIPT     rewrite the blocks' outputs from a run (maintainers:
                          after changing the tutorial's inputs)
"""
import difflib
import re
import sys

FENCE = "```tvs-repl"
TIMING = re.compile(r"^(\S+ on (?:cpu|interp)): median [0-9.]+ ms over \d+ runs.*$")


def blocks(lines):
    """(start, end) line ranges of each block's body."""
    out, i = [], 0
    while i < len(lines):
        if lines[i].rstrip() == FENCE:
            j = i + 1
            while j < len(lines) and lines[j].rstrip() != "```":
                j += 1
            out.append((i + 1, j))
            i = j
        i += 1
    return out


def is_input(line):
    return line.startswith(">>> ") or line.startswith("... ") or line in (">>>", "...")


def mask(line):
    return TIMING.sub(r"\1: median <time>", line)


def main():
    mode, doc = sys.argv[1], sys.argv[2]
    lines = open(doc).read().split("\n")
    bl = blocks(lines)
    if mode == "inputs":
        for s, e in bl:
            for line in lines[s:e]:
                if is_input(line):
                    print(line[4:])
        return 0
    run = open(sys.argv[3]).read().rstrip("\n").split("\n")
    if mode == "check":
        want = [mask(l.rstrip()) for s, e in bl for l in lines[s:e]]
        got = [mask(l.rstrip()) for l in run]
        if want == got:
            print("tutorial: %d blocks, %d lines match" % (len(bl), len(want)))
            return 0
        sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(
            want, got, "docs/tutorial.md (expected)", "tvs repl (actual)", lineterm=""))
        return 1
    if mode == "fill":
        # Each block takes the run's lines from its first input up to the
        # next block's first input.
        firsts = []
        pos = 0
        for s, e in bl:
            first = next(l for l in lines[s:e] if is_input(l))
            while run[pos].rstrip() != first.rstrip():
                pos += 1
            firsts.append(pos)
        firsts.append(len(run))
        out, prev = [], 0
        for k, (s, e) in enumerate(bl):
            out += lines[prev:s] + run[firsts[k]:firsts[k + 1]]
            prev = e
        out += lines[prev:]
        open(doc, "w").write("\n".join(out))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
