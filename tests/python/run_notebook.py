#!/usr/bin/env python3
"""run_notebook.py NOTEBOOK - executes a notebook with Jupyter's nbclient (the
tvs package and libtvs.so from the environment ctest sets) and checks that every
code cell ran without error and produced output where it should: each cell
that prints, shows or ends in an expression has outputs, and none is an error."""
import os
import sys
import time

import nbclient
import nbformat


def main():
    path = sys.argv[1]
    nb = nbformat.read(path, as_version=4)
    t0 = time.time()
    client = nbclient.NotebookClient(nb, timeout=240, kernel_name="python3",
                                     resources={"metadata": {"path": os.path.dirname(path)}})
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as e:
        print(f"{path}: a cell failed:\n{e}")
        return 1
    failures = 0
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    for n, cell in enumerate(code_cells, 1):
        errors = [o for o in cell.outputs if o.output_type == "error"]
        src = cell.source
        wants_output = any(w in src for w in ("print(", ".show(", "loop_nest(")) or \
            (src.strip().splitlines() or [""])[-1].startswith("tvm.")
        if errors:
            print(f"{path}: cell {n}: error output: {errors[0].get('ename')}")
            failures += 1
        elif wants_output and not cell.outputs:
            print(f"{path}: cell {n}: no output")
            failures += 1
        if "loop_nest(" in src and not any("image/svg+xml" in o.get("data", {}) for o in cell.outputs):
            print(f"{path}: cell {n}: the loop nest is not drawn as SVG")
            failures += 1
    print(f"{os.path.basename(path)}: {len(code_cells)} code cells executed in {time.time() - t0:.1f}s, "
          f"{failures} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
