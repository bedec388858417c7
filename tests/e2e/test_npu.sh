#!/usr/bin/env bash
# test_npu.sh - the simulated NPU end to end (docs/npu.md): int8 matmuls of
# several shapes (multiples of 16 and not, B as [K, N] and [N, K]) run with
# `tvs run --target npu` on 1 and 2 virtual threads, on the default machine
# and on one with small scratchpads (many tiles, edge tiles, token
# pipelines), and must equal the interpreter exactly, as must matmuls with a
# requantizing epilogue (ALU: shift, clip, bias, int8 narrowing) and int8
# conv2d layers (padding, strides, odd channel counts); two virtual threads
# take fewer cycles than one where loads are as long as GEMMs; bad input is a
# clear error.  usage: test_npu.sh TVS WORKDIR   (env: TVS_SOURCE_DIR)
set -u
TVS=$1
W=$2
SRC=${TVS_SOURCE_DIR:?}
rm -rf "$W" && mkdir -p "$W"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# mm M N K [nt]: an int8 matmul prim_func (nt: B is [N, K])
mm() {
  local m=$1 n=$2 k=$3 bshape="($3, $2)" bidx="vk, vj"
  if [ "${4:-}" = nt ]; then bshape="($2, $3)"; bidx="vj, vk"; fi
  cat <<TVS
@T.prim_func
def mm(A: T.Buffer(($m, $k), "int8"), B: T.Buffer($bshape, "int8"), C: T.Buffer(($m, $n), "int32")):
    for i, j, k in T.grid($m, $n, $k):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0
            C[vi, vj] = C[vi, vj] + T.Cast("int32", A[vi, vk]) * T.Cast("int32", B[$bidx])
TVS
}

echo '{"inp_buff_bytes": 1024, "wgt_buff_bytes": 8192, "acc_buff_bytes": 2048}' >"$W/small.json"
echo '{"inp_buff_bytes": 4096, "wgt_buff_bytes": 16384, "acc_buff_bytes": 16384}' >"$W/mid.json"
cycles() { sed -n 's/^npu: \([0-9]*\) cycles.*/\1/p' "$1"; }
# TVS_TEST_QUICK (the sanitizer build): two virtual threads only, one machine for conv2d.
VTS="1 2" CONV_CFGS="default mid"
if [ -n "${TVS_TEST_QUICK:-}" ]; then VTS="2" CONV_CFGS="mid"; fi

for shape in "16 16 16" "1 1 1" "40 33 72" "64 48 100 nt" "17 130 47" "96 80 64 nt"; do
  set -- $shape
  f="$W/mm_$1_$2_$3${4:-}.tvs"
  mm "$@" >"$f"
  for cfg in default small; do
    for v in $VTS; do
      extra=""
      [ $cfg = small ] && extra="--npu-config $W/small.json"
      if "$TVS" run "$f" --target npu --npu-vthreads $v $extra >"$W/out.$cfg.$v" 2>&1 &&
        grep -q "outputs equal the interpreter's" "$W/out.$cfg.$v"; then ok
      else bad "$shape $cfg vthreads=$v"; cat "$W/out.$cfg.$v"; fi
    done
  done
done

# Requantizing epilogues on the ALU: int8 narrowing that wraps, a clip, an
# int32 relu with a bias; several blocks on the small machine.
rq() { # rq M N K DTYPE EXPR
  cat <<TVS
@T.prim_func
def rq(A: T.Buffer(($1, $3), "int8"), B: T.Buffer(($3, $2), "int8"), D: T.Buffer(($1, $2), "$4")):
    C = T.alloc_buffer(($1, $2), "int32")
    for i, j, k in T.grid($1, $2, $3):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0
            C[vi, vj] = C[vi, vj] + T.Cast("int32", A[vi, vk]) * T.Cast("int32", B[vk, vj])
    for i, j in T.grid($1, $2):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = $5
TVS
}
rq 40 50 70 int8 'T.Cast("int8", C[vi, vj])' >"$W/rq_wrap.tvs"
rq 64 48 96 int8 'T.Cast("int8", T.min(T.max(T.shift_right(C[vi, vj], 2), -30), 30))' >"$W/rq_clip.tvs"
rq 33 64 64 int32 'T.max(C[vi, vj] + 100, 0)' >"$W/rq_relu.tvs"
for f in rq_wrap rq_clip rq_relu; do
  for v in $VTS; do
    "$TVS" run "$W/$f.tvs" --target npu --npu-vthreads $v --npu-config "$W/small.json" >"$W/$f.$v" 2>&1 &&
      grep -q "outputs equal the interpreter's" "$W/$f.$v" &&
      { [ $f = rq_wrap ] || grep -q " [1-9][0-9]* ALU cycles" "$W/$f.$v"; } && ok ||
      { bad "$f vthreads=$v"; cat "$W/$f.$v"; }
  done
done

# int8 conv2d (NCHW, OIHW; legalized R.nn.conv2d): padding, strides, 1x1,
# channels not multiples of 16, batch 2; 1 and 2 virtual threads, default and
# mid-size machines; the output equals the interpreter's run of the graph.
conv() { # conv N C H W O K STRIDE PAD
  local oh=$(( ($3 + 2 * $8 - $6) / $7 + 1 )) ow=$(( ($4 + 2 * $8 - $6) / $7 + 1 ))
  cat <<TVS
@R.function
def main(x: R.Tensor(($1, $2, $3, $4), "int8"), w: R.Tensor(($5, $2, $6, $6), "int8")) -> R.Tensor(($1, $5, $oh, $ow), "int32"):
    with R.dataflow():
        y = R.nn.conv2d(x, w, strides=$7, padding=$8, out_dtype="int32")
        R.output(y)
    return y
TVS
}
for shape in "1 32 14 14 16 3 1 1" "1 3 16 16 20 3 2 1" "2 16 8 8 32 1 1 0" "1 40 9 11 24 3 1 0" "1 16 12 12 16 5 2 2"; do
  set -- $shape
  f="$W/conv_$(echo $shape | tr ' ' _).tvs"
  conv "$@" >"$f"
  "$TVS" run "$f" --target interp >"$W/conv.interp" 2>&1 || { bad "$shape: interp"; cat "$W/conv.interp"; continue; }
  for cfg in $CONV_CFGS; do
    for v in $VTS; do
      extra=""
      [ $cfg = mid ] && extra="--npu-config $W/mid.json"
      out="$W/conv.$cfg.$v"
      if "$TVS" run "$f" --target npu --npu-vthreads $v $extra >"$out" 2>&1 && grep -q "in 1 NPU kernel" "$out" &&
        diff <(grep '^output' "$out") "$W/conv.interp" >/dev/null; then ok
      else bad "conv $shape $cfg vthreads=$v"; cat "$out"; fi
    done
  done
done

# Fused epilogue chains (fusion's relu, then a cast to int8) after conv2d
# and after matmul run on the ALU, and narrow with STORE.out.
cat >"$W/fused.tvs" <<'EOF2'
@R.function
def main(x: R.Tensor((1, 20, 10, 10), "int8"), w: R.Tensor((24, 20, 3, 3), "int8"), w2: R.Tensor((100, 40), "int8")) -> R.Tensor((24, 40), "int8"):
    with R.dataflow():
        y = R.nn.conv2d(x, w, strides=1, padding=1, out_dtype="int32")
        q = R.astype(R.nn.relu(y), "int8")
        f = R.reshape(q, (24, 100))
        m = R.matmul(f, w2, out_dtype="int32")
        o = R.astype(R.nn.relu(m), "int8")
        R.output(o)
    return o
EOF2
"$TVS" run "$W/fused.tvs" --target interp >"$W/fused.interp" 2>&1
for v in $VTS; do
  "$TVS" run "$W/fused.tvs" --target npu --npu-vthreads $v >"$W/fused.$v" 2>&1 && grep -q "in 2 NPU kernels" "$W/fused.$v" &&
    grep -q "fused_conv2d_relu_cast: .* ALU cycles" "$W/fused.$v" && diff <(grep '^output' "$W/fused.$v") "$W/fused.interp" >/dev/null &&
    ok || { bad "fused epilogues, vthreads=$v"; cat "$W/fused.$v"; }
done

# A conv2d whose rows fit no scratchpad split is a clear error, not a
# silent fallback.
echo '{"inp_buff_bytes": 256}' >"$W/tiny.json"
"$TVS" run "$W/conv_1_32_14_14_16_3_1_1.tvs" --target npu --npu-config "$W/tiny.json" >"$W/tiny.out" 2>&1
[ $? -ne 0 ] && grep -q "error: npu: conv2d 1 x 32 x 14 x 14: no tiling fits the scratchpads" "$W/tiny.out" && ok ||
  { bad "conv overflow"; cat "$W/tiny.out"; }

# Latency hiding: where a task's loads take about as long as its GEMMs, two
# virtual threads overlap them and take fewer cycles than one.
mm 64 64 128 >"$W/lh.tvs"
for v in 1 2; do
  "$TVS" run "$W/lh.tvs" --target npu --npu-vthreads $v --npu-config "$W/mid.json" >"$W/lh.$v" 2>&1 &&
    grep -q "outputs equal" "$W/lh.$v" && ok || { bad "latency hiding run, vthreads=$v"; cat "$W/lh.$v"; }
done
c1=$(cycles "$W/lh.1") c2=$(cycles "$W/lh.2")
if [ -n "$c1" ] && [ -n "$c2" ] && [ "$c2" -lt "$c1" ]; then ok; else bad "2 vthreads: $c2 cycles, 1: $c1"; fi

# The schedule's vthread binding selects two virtual threads.
mm 64 64 64 >"$W/vt.tvs"
cat >>"$W/vt.tvs" <<'EOF2'
b = sch.get_block("C")
i, j, k = sch.get_loops(b)
io, ii = sch.split(i, factors=[2, None])
sch.bind(io, "vthread")
EOF2
"$TVS" show "$W/vt.tvs" --stage npu-isa >"$W/vt.isa" 2>&1
grep -q "2 virtual threads" "$W/vt.isa" && ok || { bad "vthread binding"; head -3 "$W/vt.isa"; }
"$TVS" run "$W/vt.tvs" --target npu >"$W/vt.out" 2>&1 && grep -q "outputs equal" "$W/vt.out" && ok || { bad "vthread run"; cat "$W/vt.out"; }

# Bad input: not a matmul, a bad config, a graph function.
cat >"$W/add.tvs" <<'EOF2'
@T.prim_func
def add(A: T.Buffer((16,), "int8"), B: T.Buffer((16,), "int8")):
    for i in range(16):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi] + T.int8(1)
EOF2
"$TVS" run "$W/add.tvs" --target npu >"$W/add.out" 2>&1
[ $? -ne 0 ] && grep -q "error: the npu target runs int8 matmuls" "$W/add.out" && ok || { bad "non-matmul"; cat "$W/add.out"; }
echo '{"block_in": "x"}' >"$W/bad.json"
"$TVS" run "$W/mm_16_16_16.tvs" --target npu --npu-config "$W/bad.json" >"$W/cfg.out" 2>&1
[ $? -ne 0 ] && grep -q "npu config: 'block_in' must be an integer" "$W/cfg.out" && ok || { bad "bad config"; cat "$W/cfg.out"; }
"$TVS" run "$W/mm_16_16_16.tvs" --target npu --npu-vthreads 9 >"$W/vt9.out" 2>&1
[ $? -eq 2 ] && grep -q "takes 1 to 4" "$W/vt9.out" && ok || { bad "--npu-vthreads 9"; cat "$W/vt9.out"; }

echo "test_npu: $pass passed, $fail failed"
[ $fail -eq 0 ]
