#!/usr/bin/env python3
"""doc_transcripts.py - the shell transcripts of a docs page, run as a test.

In a page, a fenced block preceded by `<!-- file: NAME -->` is written to NAME
in a scratch directory; a ```console block holds commands (`$ tvs ...`,
`$ tvsc ...`) each followed by the output it must print (stdout and stderr
together, trailing spaces ignored).  The commands run in order in the scratch
directory, where `examples/` is the repository's.

    doc_transcripts.py DOC.md WORKDIR TVS TVSC
Prints one line per mismatch (with a diff) and `N passed, N failed`.
"""
import difflib
import os
import re
import subprocess
import sys


def main():
    doc, work, tvs, tvsc = sys.argv[1:5]
    src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    os.makedirs(work, exist_ok=True)
    if not os.path.exists(os.path.join(work, "examples")):
        os.symlink(os.path.join(src, "examples"), os.path.join(work, "examples"))
    lines = open(doc, encoding="utf-8").read().split("\n")
    passed = failed = 0
    pending_file = None
    i = 0
    while i < len(lines):
        m = re.fullmatch(r"<!-- file: (\S+) -->", lines[i].strip())
        if m:
            pending_file = m.group(1)
            i += 1
            continue
        if lines[i].startswith("```"):
            kind = lines[i][3:].strip()
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            body = lines[i + 1:j]
            if pending_file:
                with open(os.path.join(work, pending_file), "w", encoding="utf-8") as f:
                    f.write("\n".join(body) + "\n")
                pending_file = None
            elif kind == "console":
                p, f = run_console(body, i + 2, doc, work, tvs, tvsc)
                passed, failed = passed + p, failed + f
            i = j + 1
            continue
        i += 1
    print(f"{os.path.basename(doc)} transcripts: {passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


def run_console(body, first_line, doc, work, tvs, tvsc):
    """Runs each `$ ` command of a console block and compares its output."""
    passed = failed = 0
    k = 0
    while k < len(body):
        if not body[k].startswith("$ "):
            k += 1
            continue
        cmd, line = body[k][2:], first_line + k
        k += 1
        expect = []
        while k < len(body) and not body[k].startswith("$ "):
            expect.append(body[k].rstrip())
            k += 1
        argv = cmd.split()
        exe = {"tvs": tvs, "tvsc": tvsc}.get(argv[0])
        if not exe:
            print(f"{doc}:{line}: error: a transcript may run tvs or tvsc, not '{argv[0]}'")
            failed += 1
            continue
        r = subprocess.run([exe] + argv[1:], cwd=work, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=120)
        got = [l.rstrip() for l in r.stdout.rstrip("\n").split("\n")] if r.stdout.strip() else []
        while expect and not expect[-1]:
            expect.pop()
        if got == expect:
            passed += 1
        else:
            failed += 1
            print(f"{doc}:{line}: error: `{cmd}` printed something else:")
            sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(expect, got, "doc", "tvs", lineterm=""))
    return passed, failed


if __name__ == "__main__":
    sys.exit(main())
