"""test_course.py - the MLC course's TensorIR chapter as written for TVM
(mlc_tensorir.py: only `import tvs as tvm` differs) runs, and the IR and trace
it prints are what `tvs repl` prints for the same module and statements."""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "mlc_tensorir.py")

STATEMENTS = """\
block_Y = sch.get_block("Y", func_name="mm_relu")
i, j, k = sch.get_loops(block_Y)
j0, j1 = sch.split(j, factors=[None, 4])
sch.reorder(j0, k, j1)
block_C = sch.get_block("C", "mm_relu")
sch.reverse_compute_at(block_C, j0)
sch.decompose_reduction(block_Y, k)
sch.mod.show()
print(sch.trace)
"""


def _repl_outputs(text):
    """{statement: its output} from a `tvs repl` transcript (>>> prompts)."""
    out, cur = {}, None
    for line in text.splitlines(keepends=True):
        if line.startswith(">>> "):
            cur = line[4:].strip()
            out[cur] = ""
        elif cur is not None:
            out[cur] += line
    return out


def test_course_script_matches_tvs_repl(tmp_path, tvs_bin):
    pypath = os.pathsep.join([os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"),
                              os.environ.get("PYTHONPATH", "")])
    py = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True, timeout=300,
                        env={**os.environ, "PYTHONPATH": pypath})
    assert py.returncode == 0, py.stderr
    assert re.search(r"Time cost of transformed sch.mod [0-9.e-]+ sec", py.stdout)
    # The module of the script, as a .tvs file (TVS reads the class as written).
    src = open(SCRIPT, encoding="utf-8").read()
    module = src[src.index("@tvm.script.ir_module"):src.index("\nprint(type(MyModule))")]
    tvs_file = tmp_path / "mlc.tvs"
    tvs_file.write_text(module + "\n")
    repl = subprocess.run([tvs_bin, "repl", str(tvs_file)], input=STATEMENTS, capture_output=True, text=True,
                          env={**os.environ, "NO_COLOR": "1"}, timeout=300)
    assert repl.returncode == 0, repl.stderr
    outs = _repl_outputs(repl.stdout)
    ir, trace = outs["sch.mod.show()"], outs["print(sch.trace)"]
    assert 'with T.block("Y_update"):' in ir and "def apply_trace" in trace
    assert ir in py.stdout, "the scheduled IR differs from tvs repl's"
    assert trace in py.stdout, "the trace differs from tvs repl's"
