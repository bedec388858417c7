#!/usr/bin/env python3
"""check_internals_doc.py - docs/internals.md stays true to the tree.

Every path written in backquotes (`ir/transform/pipeline.c`, `sched/`) must exist,
and the layer table between the `layers` markers must list, for each folder, the
folders tests/structure/check_layering.py allows it to include.
"""
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.path.join(here, "..", ".."))
sys.path.insert(0, here)
import check_layering  # noqa: E402

doc_path = os.path.join(root, "docs", "internals.md")
doc = open(doc_path, encoding="utf-8").read()
errors = []

RESERVED = {"frontend/", "autotune/", "lsp/"}  # layers with a place in the table, no code yet
for m in re.finditer(r"`([A-Za-z0-9_./-]+)`", doc):
    p = m.group(1)
    if "/" not in p or p.startswith(("../", "-")) or p in RESERVED or "NAME" in p:
        continue
    if not re.search(r"(/|\.(c|h|def|re|y|py|sh|md|tvs|txt))$", p):
        continue
    if not os.path.exists(os.path.join(root, p)):
        line = doc.count("\n", 0, m.start()) + 1
        errors.append(f"docs/internals.md:{line}: error: '{p}' does not exist")

table = re.search(r"<!-- layers: begin -->(.*?)<!-- layers: end -->", doc, re.S)
if not table:
    errors.append("docs/internals.md:1: error: no layer table between the layers markers")
else:
    seen = set()
    everything_below = set(check_layering.BELOW) - {"tools"}
    for row in table.group(1).splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        m = re.fullmatch(r"`([a-z]+)/`", cells[0]) if len(cells) == 3 else None
        if not m:
            continue
        folder = m.group(1)
        seen.add(folder)
        said = cells[2]
        if said == "nothing":
            listed = set()
        elif said == "all of the above":
            listed = everything_below
        else:
            listed = {w.strip() for w in said.split(",")}
        want = set(check_layering.BELOW.get(folder, ["<not in the check>"]))
        if listed != want:
            errors.append(f"docs/internals.md: error: the table lets {folder}/ include "
                          f"{sorted(listed)}, the check {sorted(want)}")
    for folder in sorted(set(check_layering.BELOW) - seen):
        errors.append(f"docs/internals.md: error: folder {folder}/ is missing from the layer table")

for e in errors:
    print(e)
print(f"internals doc: {'ok' if not errors else str(len(errors)) + ' problem(s)'}")
sys.exit(1 if errors else 0)
