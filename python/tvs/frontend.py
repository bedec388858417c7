"""tvs.frontend: model importers.  from_onnx runs TVS's ONNX importer
(`tvs import model.onnx -o model.tvs`, DESIGN.md section 5) and parses its
output; a build without the importer says so."""
import os
import shutil
import subprocess
import tempfile

from . import _ffi
from .ir import IRModule


def _tvs_binary():
    env = os.environ.get("TVS_BIN")
    if env:
        return env
    beside = os.path.join(os.path.dirname(os.path.realpath(_ffi.library_path)), "tvs")
    if os.path.exists(beside):
        return beside
    return shutil.which("tvs")


def from_onnx(model, shape_dict=None, dtype="float32", **kwargs):
    """An IRModule of the ONNX model (a path, bytes, or an onnx.ModelProto)."""
    tvs = _tvs_binary()
    if not tvs:
        raise NotImplementedError("tvs.frontend.from_onnx needs the `tvs` tool (the ONNX importer); none found")
    with tempfile.TemporaryDirectory() as d:
        path = model if isinstance(model, (str, os.PathLike)) else os.path.join(d, "model.onnx")
        if not isinstance(model, (str, os.PathLike)):
            with open(path, "wb") as f:
                f.write(model if isinstance(model, (bytes, bytearray)) else model.SerializeToString())
        out = os.path.join(d, "model.tvs")
        r = subprocess.run([tvs, "import", str(path), "-o", out], capture_output=True, text=True)
        if "unknown command 'import'" in r.stderr:
            raise NotImplementedError("tvs.frontend.from_onnx: this TVS build has no ONNX importer (tvs import)")
        if r.returncode != 0:
            from .base import TVMError
            raise TVMError(r.stderr.strip() or f"tvs import failed ({r.returncode})")
        return IRModule.from_file(out)
