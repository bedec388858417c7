#!/usr/bin/env bash
# test_tvsc.sh - the tvsc command line: products by suffix, --emit stages,
# exported symbols, the generated header, cross-compiling for aarch64,
# reproducible bytes, errors (clear message, non-zero exit, no output file),
# installation + the deployment example built with pkg-config only.
# usage: test_tvsc.sh TVS WORKDIR   (env: TVSC, TVS_BUILD_DIR, TVS_SOURCE_DIR, PYTHON3)
set -u
TVS=$1
W=$2
TVSC=${TVSC:?set TVSC to the tvsc binary}
SRC=${TVS_SOURCE_DIR:?}
BUILD=${TVS_BUILD_DIR:-$(dirname "$TVSC")}
PY=${PYTHON3:-/usr/bin/python3}
CC=${CC:-cc}
MM=$SRC/examples/mm_relu.tvs
rm -rf "$W" && mkdir -p "$W"
W=$(cd "$W" && pwd)
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# expect CODE "description" cmd... ; stdout+stderr saved in $W/out
expect() {
  local code=$1 desc=$2
  shift 2
  "$@" >"$W/out" 2>&1
  local rc=$?
  if [ "$rc" -eq "$code" ]; then ok; else bad "$desc: exit $rc, expected $code"; sed 's/^/    /' "$W/out" | head -20; fi
}
contains() { if grep -qF -- "$1" "$W/out"; then ok; else bad "output lacks: $1"; sed 's/^/    /' "$W/out" | head -20; fi; }
absent() { if [ ! -e "$1" ]; then ok; else bad "$1 exists after a failure"; fi; }
no_temps() { if ls -a "$1" | grep -q "tvsc-"; then bad "temporary files left in $1"; ls -a "$1"; else ok; fi; }

# --- basics -------------------------------------------------------------------
expect 0 "help" "$TVSC" --help;                 contains "usage: tvsc FILE.tvs"
expect 0 "version" "$TVSC" --version;           contains "tvsc 0."
expect 0 "list stages" "$TVSC" --list-stages;   contains "lower-init-block"; contains "llvm-unopt"
expect 2 "no args" "$TVSC";                     contains "no input file"
expect 2 "unknown option" "$TVSC" "$MM" --bogus; contains "unknown option '--bogus'"
expect 2 "bad -O" "$TVSC" "$MM" -O7 -o "$W/x.so"; contains "-O0..-O3"
expect 2 "unknown target" "$TVSC" "$MM" --target npu9 -o "$W/x.so"; contains "unknown target 'npu9'"

# --- products by suffix ----------------------------------------------------------
mkdir -p "$W/p"
expect 0 ".so + header" "$TVSC" "$MM" -o "$W/p/k.so" -H "$W/p/k.h" -O3
expect 0 ".o" "$TVSC" "$MM" -o "$W/p/k.o"
expect 0 ".ll" "$TVSC" "$MM" -o "$W/p/k.ll" -O2
expect 0 ".s" "$TVSC" "$MM" -o "$W/p/k.s" --mattr=-avx512f
no_temps "$W/p"
file "$W/p/k.so" | grep -q "shared object" && ok || bad "k.so is not a shared object"
file "$W/p/k.o" | grep -q "relocatable" && ok || bad "k.o is not relocatable"
grep -q "define.*@mm_relu" "$W/p/k.ll" && ok || bad "k.ll lacks mm_relu"
grep -q "__tvs_packed_mm_relu:" "$W/p/k.s" && ok || bad "k.s lacks the packed entry"
# Both entries and the metadata are exported; the runtime is the only TVS dependency.
nm -D --defined-only "$W/p/k.so" >"$W/out"
contains " T mm_relu"; contains " T __tvs_packed_mm_relu"; contains "__tvs_metadata"
readelf -d "$W/p/k.so" >"$W/out"
contains "libtvs_runtime.so"
if grep "NEEDED" "$W/out" | grep -vqE "libtvs_runtime|libc\.so|libm\.so|libpthread"; then bad "unexpected NEEDED"; grep NEEDED "$W/out"; else ok; fi
# The header: self-contained, compiles alone, prototype + shapes + packed name.
cp "$W/p/k.h" "$W/out"
contains "int32_t mm_relu("; contains "float32[128, 128]"; contains "__tvs_packed_mm_relu"
printf '#include "k.h"\nint f(float *a);\nint f(float *a) { return mm_relu(a, a, a); }\n' >"$W/p/use.c"
expect 0 "header compiles alone" "$CC" -std=c11 -Wall -Wextra -Werror -c -o "$W/p/use.o" -I"$W/p" "$W/p/use.c"
# A function named main gets a C-callable alias.
printf 'from tvm.script import tir as T\n@T.prim_func\ndef main(A: T.Buffer((4,), "float32")):\n    for i in range(4):\n        A[i] = A[i] + T.float32(1)\n' >"$W/main.tvs"
expect 0 "main alias" "$TVSC" "$W/main.tvs" -o "$W/p/m.so" -H "$W/p/m.h"
nm -D --defined-only "$W/p/m.so" >"$W/out"; contains " T tvs_direct_main"; contains " T main"
cp "$W/p/m.h" "$W/out"; contains "int32_t tvs_direct_main("
# tvs run runs the compiled module like a source file.
expect 0 "tvs run k.so" "$TVS" run "$W/p/k.so";  contains "C: float32 (128, 128)"
expect 1 "tvs run k.so unknown func" "$TVS" run "$W/p/k.so" --func nope; contains "no function 'nope'"

# --- stages ---------------------------------------------------------------------
expect 0 "emit tir" "$TVSC" "$MM" --emit tir;            contains "def mm_relu("
expect 0 "emit graph" "$TVSC" "$MM" --emit graph;        contains "class Module"
expect 0 "emit pass" "$TVSC" "$MM" --emit=flatten-buffer; contains "def mm_relu("
expect 0 "emit llvm-unopt" "$TVSC" "$MM" --emit llvm-unopt; contains "define"
expect 0 "emit asm to file" "$TVSC" "$MM" --emit asm -o "$W/p/e.txt"
grep -q "mm_relu" "$W/p/e.txt" && ok || bad "--emit asm -o wrote nothing useful"
expect 0 "verbose" "$TVSC" "$MM" -v -o "$W/p/v.so"; contains "tvsc: link:"; contains "lowering"
expect 0 "--func subset" "$TVSC" "$SRC/tests/corpus/relax_symbolic_n.tvs" --func row_sum -o "$W/p/sub.so"
nm -D --defined-only "$W/p/sub.so" >"$W/out"; contains "row_sum"
grep -q "scale_cols" "$W/out" && bad "--func kept scale_cols" || ok
expect 0 "two files" "$TVSC" "$MM" "$SRC/tests/corpus/layernorm.tvs" -o "$W/p/two.so"
nm -D --defined-only "$W/p/two.so" >"$W/out"; contains "__tvs_packed_layernorm"; contains "__tvs_packed_mm_relu"

# --- cross-compiling an object for aarch64 ----------------------------------------
expect 0 "aarch64 object" "$TVSC" "$MM" --target cpu --mtriple aarch64-linux-gnu -o "$W/p/a64.o" -H "$W/p/a64.h"
file "$W/p/a64.o" >"$W/out"; contains "ARM aarch64"
llvm-objdump-14 -f -t "$W/p/a64.o" >"$W/out"
contains "elf64-littleaarch64"; contains "mm_relu"; contains "__tvs_packed_mm_relu"; contains "__tvs_metadata"
expect 0 "aarch64 asm +neon" "$TVSC" "$MM" --mtriple aarch64-linux-gnu --mcpu cortex-a72 --mattr +neon -o "$W/p/a64.s"
expect 1 "aarch64 .so needs a cross linker" "$TVSC" "$MM" --mtriple aarch64-linux-gnu -o "$W/p/a64.so"
contains "cross compiler"; absent "$W/p/a64.so"

# --- reproducibility: same inputs, same bytes --------------------------------------
for ext in so o ll s; do
  "$TVSC" "$MM" -o "$W/p/r1.$ext" -H "$W/p/r.h" && cp "$W/p/r.h" "$W/p/r1.h" &&
    "$TVSC" "$MM" -o "$W/p/r2.$ext" -H "$W/p/r.h" || bad "reproducibility compile .$ext"
  cmp -s "$W/p/r1.$ext" "$W/p/r2.$ext" && ok || bad "two compiles to .$ext differ"
done
cmp -s "$W/p/r1.h" "$W/p/r.h" && ok || bad "two headers differ"

# --- errors: clear message, non-zero exit, no output file -------------------------
mkdir -p "$W/e"
expect 1 "unknown --func" "$TVSC" "$MM" --func nope -o "$W/e/x.so";  contains "no function 'nope'"; absent "$W/e/x.so"
expect 1 "unwritable dir" "$TVSC" "$MM" -o "$W/e/missing/x.so";       contains "cannot write"
mkdir -p "$W/e/ro" && chmod 555 "$W/e/ro"
if [ "$(id -u)" -ne 0 ]; then
  expect 1 "read-only dir" "$TVSC" "$MM" -o "$W/e/ro/x.so"; contains "cannot write"; absent "$W/e/ro/x.so"
fi
mkdir -p "$W/e/dir.so"
expect 1 "output is a directory" "$TVSC" "$MM" -o "$W/e/dir.so" -H "$W/e/h.h"; contains "cannot write"; absent "$W/e/h.h"
expect 1 "unknown --mattr" "$TVSC" "$MM" --mattr=+avx2,+nosuchfeature -o "$W/e/x.so"; contains "unknown --mattr feature '+nosuchfeature'"; absent "$W/e/x.so"
expect 1 "unknown --mcpu" "$TVSC" "$MM" --mcpu nosuchcpu -o "$W/e/x.so"; contains "unknown --mcpu CPU 'nosuchcpu'"
expect 1 "unknown triple" "$TVSC" "$MM" --mtriple nosuch-arch-none -o "$W/e/x.o"; contains "unknown target triple"; absent "$W/e/x.o"
expect 2 "conflicting -o x.so --emit" "$TVSC" "$MM" --emit llvm -o "$W/e/x.so"; contains "conflicting options"; absent "$W/e/x.so"
expect 2 "conflicting -H --emit" "$TVSC" "$MM" --emit tir -H "$W/e/x.h"; contains "conflicting options"
expect 2 "unknown suffix" "$TVSC" "$MM" -o "$W/e/x.exe"; contains "cannot tell what to build"
expect 2 "unknown stage" "$TVSC" "$MM" --emit bogus; contains "unknown stage 'bogus'"
expect 2 "nothing to do" "$TVSC" "$MM"; contains "nothing to do"
expect 1 "missing file" "$TVSC" "$W/nope.tvs" -o "$W/e/x.so"; contains "cannot open"; absent "$W/e/x.so"
printf 'from tvm.script import tir as T\n@T.prim_func\ndef f(A: T.Buffer((4,), "float32"):\n    pass\n' >"$W/e/syntax.tvs"
expect 1 "syntax error" "$TVSC" "$W/e/syntax.tvs" -o "$W/e/x.so" -H "$W/e/x.h"; contains "syntax.tvs:3:"; contains "error:"
absent "$W/e/x.so"; absent "$W/e/x.h"
expect 1 "duplicate function across files" "$TVSC" "$MM" "$MM" -o "$W/e/x.so"; contains "already defined"
# A failed compile never replaces an existing output.
echo old >"$W/e/keep.so"
expect 1 "failed compile keeps old output" "$TVSC" "$W/e/syntax.tvs" -o "$W/e/keep.so"
[ "$(cat "$W/e/keep.so")" = old ] && ok || bad "keep.so was replaced"
no_temps "$W/e"
chmod 755 "$W/e/ro"

# --- installation + the deployment example, pkg-config only ------------------------
P=$W/prefix
if cmake --install "$BUILD" --prefix "$P" >"$W/out" 2>&1; then ok; else bad "cmake --install"; cat "$W/out"; fi
for f in bin/tvsc lib/libtvs_runtime.so include/tvs/runtime/tvs_runtime.h include/tvs/runtime/npy.h lib/pkgconfig/tvs-runtime.pc; do
  [ -e "$P/$f" ] && ok || bad "not installed: $f"
done
D=$W/deploy
mkdir -p "$D"
expect 0 "installed tvsc" "$P/bin/tvsc" "$MM" -o "$D/mm_relu.so" -H "$D/mm_relu.h" -v; contains "-L$P/lib"
readelf -d "$D/mm_relu.so" | grep -q "$P/lib" && ok || bad "mm_relu.so has no rpath to the installed runtime"
export PKG_CONFIG_PATH=$P/lib/pkgconfig
flags=$(pkg-config --cflags --libs tvs-runtime) && ok || bad "pkg-config tvs-runtime"
# shellcheck disable=SC2086
expect 0 "build deploy" "$CC" -std=c11 -Wall -Werror -o "$D/deploy" "$SRC/examples/deploy/deploy.c" -I"$D" $flags "$D/mm_relu.so"
"$PY" - "$D" <<'PYEOF' && ok || bad "inputs for deploy"
import sys, numpy as np
d = sys.argv[1]; rng = np.random.default_rng(0)
a = rng.uniform(-1, 1, (128, 128)).astype("float32"); b = rng.uniform(-1, 1, (128, 128)).astype("float32")
np.save(d + "/A.npy", a); np.save(d + "/B.npy", b)
np.save(d + "/ref.npy", np.maximum(a.astype("float64") @ b.astype("float64"), 0).astype("float32"))
PYEOF
expect 0 "run deploy" "$D/deploy" "$D/mm_relu.so" "$D/A.npy" "$D/B.npy" "$D/C.npy"
contains "direct and packed entries agree"; contains "expected 3 arguments"
"$PY" -c "import sys, numpy as np; c=np.load(sys.argv[1]); r=np.load(sys.argv[2]); sys.exit(0 if np.allclose(c, r, rtol=1e-4, atol=1e-4) else 1)" \
  "$D/C.npy" "$D/ref.npy" && ok || bad "deploy result differs from numpy"
# a symbolic size and scalars (float32 alpha, int32 n: passed widened, as the header says)
expect 0 "installed tvsc scale_add" "$P/bin/tvsc" "$SRC/examples/deploy/scale_add.tvs" -o "$D/scale_add.so" -H "$D/scale_add.h"
grep -q "double alpha, /\* scalar param 3: float32 \*/" "$D/scale_add.h" && grep -q "passed widened" "$D/scale_add.h" && ok ||
  bad "scale_add.h does not declare the widened scalars"
# shellcheck disable=SC2086
expect 0 "build scale_add" "$CC" -std=c11 -Wall -Werror -o "$D/scale_add" "$SRC/examples/deploy/scale_add.c" -I"$D" $flags "$D/scale_add.so" -lm
expect 0 "run scale_add" "$D/scale_add" "$D/scale_add.so" 1001 0.5
contains "direct and packed entries agree with the C loop"; contains "packed entry rejects n = 1002"
rt=$(ldd "$D/deploy" | awk '/libtvs_runtime/ {print $3}')
[ -n "$rt" ] && [ "$(realpath "$rt")" = "$(realpath "$P/lib/libtvs_runtime.so.0")" ] && ok || bad "deploy does not use the installed runtime ($rt)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
