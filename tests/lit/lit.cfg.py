# lit configuration for TVS's compiler-behaviour tests (printers, diagnostics, --emit output).
import os
import lit.formats

config.name = "tvs"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".tvs", ".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
# Scratch output goes to the build tree, never the sources.
config.test_exec_root = lit_config.params.get("exec_root", "/tmp/tvs-lit")

params = lit_config.params
tvs = params.get("tvs")
filecheck = params.get("FileCheck", "/usr/lib/llvm-14/bin/FileCheck")
python = params.get("python", "/usr/bin/python3")
if not tvs:
    lit_config.fatal("pass -Dtvs=/path/to/tvs")

config.substitutions.append(("%tvs", tvs))
config.substitutions.append(("%FileCheck", filecheck))
config.substitutions.append(("FileCheck", filecheck))
config.substitutions.append(("%python", python))
# Diagnostics must be deterministic: no colour, whatever the terminal.
config.environment["NO_COLOR"] = "1"
for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "HOME"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# `not` and FileCheck ship with llvm-14-tools.
config.environment["PATH"] = os.pathsep.join(
    [os.path.dirname(filecheck), "/usr/lib/llvm-14/bin", os.environ.get("PATH", "/usr/bin:/bin")])

# OpenCL (PoCL) for tests that run kernels on it (REQUIRES: opencl): absent in
# sanitizer builds, which refuse the ICD, and on machines without an ICD.
import subprocess
try:
    probe = subprocess.run([params.get("tvs", "tvs"), "run", os.path.join(os.path.dirname(__file__), "..", "gpu",
                            "ewise.tvs"), "--target", "opencl"], capture_output=True, timeout=60)
    if probe.returncode == 0:
        config.available_features.add("opencl")
except (OSError, subprocess.SubprocessError):
    pass

# Host ISA features, for tests of ISA-specific default schedules (REQUIRES: avx512).
try:
    with open("/proc/cpuinfo") as f:
        if " avx512f" in f.read():
            config.available_features.add("avx512")
except OSError:
    pass
