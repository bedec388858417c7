"""Broadcasting binary operators (the ones legalized before the operator library grew)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from op_harness import Case, run_cases  # noqa: E402

F = "float32"
CASES = [
    Case("R.add(a, b)", {"a": ((2, 3), F), "b": ((3,), F)}, ref=lambda a, b: a + b),
    Case("R.add(a, b)", {"a": (("n", 3), F), "b": ((3,), F)}, dims={"n": 5}, ref=lambda a, b: a + b,
         name="add symbolic n"),
    Case("R.subtract(a, b)", {"a": ((4, 1, 5), F), "b": ((3, 1), F)}, ref=lambda a, b: a - b),
    Case("R.multiply(a, b)", {"a": ((1,), F), "b": ((7, 13), F)}, ref=lambda a, b: a * b),
    Case("R.maximum(a, b)", {"a": ((2, 3), "int32"), "b": ((2, 3), "int32")}, ref=np.maximum),
    Case("R.add(a, b)", {"a": ((2, 3), F), "b": ((4,), F)}, error="broadcast", name="add bad broadcast"),
]

if __name__ == "__main__":
    run_cases(CASES)
