#!/usr/bin/env bash
# test_embed.sh BUILD_DIR WORK_DIR - installs TVS into a fresh prefix, builds
# examples/embed/embed.c with `pkg-config --cflags --libs tvs` only, runs it, and
# checks that libtvs.so exports only the public API (include/tvs/).
set -u
BUILD=$1 W=$2 SRC=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$W" && mkdir -p "$W"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
P="$W/prefix"
cmake --install "$BUILD" --prefix "$P" >"$W/install.log" 2>&1 || { bad "cmake --install"; cat "$W/install.log"; exit 1; }
for f in include/tvs/tvs.h include/tvs/ir.h include/tvs/schedule.h include/tvs/build.h lib/libtvs.so \
         lib/pkgconfig/tvs.pc; do
  [ -e "$P/$f" ] || bad "not installed: $f"
done
export PKG_CONFIG_PATH="$P/lib/pkgconfig"
flags=$(pkg-config --cflags --libs tvs) || bad "pkg-config tvs"
# shellcheck disable=SC2086
cc -std=c11 -Wall -Wextra -Werror "$SRC/examples/embed/embed.c" $flags -lm -o "$W/embed" || bad "embed.c does not build"
# (a sanitizer build's libtvs.so needs the sanitizer runtimes loaded first)
run() { if [ -n "${TVS_SAN_PRELOAD:-}" ]; then LD_PRELOAD=$TVS_SAN_PRELOAD ASAN_OPTIONS=detect_leaks=0 "$@"; else "$@"; fi; }
run "$W/embed" >"$W/out" 2>&1 || { bad "embed exits $?"; }
cat "$W/out"
grep -q "T.vectorized(8)" "$W/out" || bad "no scheduled IR printed"
grep -q "illegal split: TVS_ERR_SCHEDULE" "$W/out" || bad "the illegal split is not reported"
grep -q "error: split: factors \[3, 5\] multiply to 15" "$W/out" || bad "no diagnostic for the split"
grep -q "wrong shape: TVS_ERR_RUN: " "$W/out" || bad "the wrong shape is not reported"
grep -q "typed calls: the same trace (6 steps)" "$W/out" || bad "the typed calls do not give the script's trace"
lib=$(ldd "$W/embed" | awk '/libtvs.so/ {print $3}')
[ "$(realpath "$lib")" = "$(realpath "$P/lib/libtvs.so.0")" ] || bad "embed does not use the installed libtvs ($lib)"
# Only the API: every exported function is declared in include/tvs/.
nm -D --defined-only "$P/lib/libtvs.so" | awk '$2 == "T" {print $3}' | sort >"$W/exported"
grep -ho '^TVS_API [^(]*(' "$SRC"/include/tvs/*.h | sed 's/.*[ *]\([a-z_0-9]*\)($/\1/' | sort >"$W/declared"
if ! diff "$W/declared" "$W/exported" >"$W/diff"; then bad "libtvs.so exports differ from include/tvs/"; cat "$W/diff"; fi
echo "exported: $(wc -l <"$W/exported") functions, all declared in include/tvs/"
# The Python package, pip-installed from python/, finds the installed libtvs.so
# through pkg-config (no TVS_LIBRARY, not run from the source tree).
PY=${PYTHON3:-python3}
if "$PY" -m pip install -q --no-deps --no-build-isolation --disable-pip-version-check --target "$W/site" \
     "$SRC/python" >"$W/pip.log" 2>&1; then
  rm -rf "$SRC/python/build" "$SRC"/python/*.egg-info
  (cd "$W" && run env -u TVS_LIBRARY PYTHONPATH="$W/site" "$PY" -c '
import numpy as np, tvs
from tvs import _ffi
assert _ffi.library_path.startswith("'"$P"'"), _ffi.library_path
m = tvs.IRModule.from_text("@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    for i in range(4):\n        A[i] = A[i] * T.float32(2)\n")
a = np.arange(4, dtype=np.float32)
tvs.build(m)["f"](a)
assert list(a) == [0, 2, 4, 6], a
print("pip-installed tvs:", _ffi.library_path)
') || bad "the pip-installed package does not work"
else
  bad "pip install ./python"; cat "$W/pip.log"
fi
# The package CMake installed beside the library.
(cd "$W" && run env -u TVS_LIBRARY PYTHONPATH="$P/lib/python3/site-packages" "$PY" -c '
import tvs
from tvs import _ffi
assert _ffi.library_path.startswith("'"$P"'"), _ffi.library_path
print("installed package:", tvs.__version__, _ffi.library_path)
') || bad "the package installed by cmake does not find its libtvs.so"
[ $fail = 0 ] && echo "embed: ok"
exit $fail
