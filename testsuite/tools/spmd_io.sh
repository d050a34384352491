#!/usr/bin/env bash
# Partitioned programs (docs/chips.md, "Partitioned programs: global inputs
# and results"): hand-partitioned per-chip programs carrying the
# partitioner's tpu.spmd_partitioned / tpu.global_shape / tpu.shard_tiles /
# tpu.shard_devices attributes.  tpurun cuts global inputs into the chips'
# pieces (even and uneven shards, 2-D tiles, a replication axis, a
# non-iota device order, whole arguments, pieces past the end) and
# assembles global results (R replicas stacked), to stdout and .npy; bad
# global inputs, bad annotations and a corrupt SHARDS section are clear
# errors with their exit codes.
source "$(dirname "$0")/lib.sh"
TPURUN="$BUILD/tpurun"
run() { "$TPURUN" --no-cache "$@"; }

# ---- 1. 4 partitions on a 2x2 mesh.  %x: 5x3 in 2x2 tiles (uneven in
# both dims), pieces on partitions 3 1 0 2; %s whole; %y: 4x2 in 2 row
# pieces each held by 2 partitions (0,2 and 1,3).  Each chip adds
# 100 * partition (+ %s) to its piece of %x, 10 * partition + 1000 *
# replica to its piece of %y, and sums its piece of %x (a whole result:
# partition 0's, which holds rows 3-4 and a zero padding row).
X_ATTRS='tpu.global_shape = array<i64: 5, 3>, tpu.shard_tiles = array<i64: 2, 2, 1>, tpu.shard_devices = array<i64: 3, 1, 0, 2>'
Y_ATTRS='tpu.global_shape = array<i64: 4, 2>, tpu.shard_tiles = array<i64: 2, 1, 2>, tpu.shard_devices = array<i64: 0, 2, 1, 3>'
cat > "$TMP/a.mlir" <<MLIR
module @shard_io attributes {mhlo.num_partitions = 4 : i32, tpu.spmd_partitioned, tpu.mesh = array<i64: 2, 2>} {
  func.func @main(%x: tensor<3x2xf32> {$X_ATTRS}, %s: tensor<f32>, %y: tensor<2x2xf32> {$Y_ATTRS})
      -> (tensor<3x2xf32> {$X_ATTRS}, tensor<2x2xf32> {$Y_ATTRS}, tensor<f32>) {
    %p = stablehlo.partition_id : tensor<ui32>
    %pf = stablehlo.convert %p : (tensor<ui32>) -> tensor<f32>
    %r = stablehlo.replica_id : tensor<ui32>
    %rf = stablehlo.convert %r : (tensor<ui32>) -> tensor<f32>
    %c100 = stablehlo.constant dense<100.0> : tensor<f32>
    %c10 = stablehlo.constant dense<10.0> : tensor<f32>
    %c1000 = stablehlo.constant dense<1000.0> : tensor<f32>
    %p100 = stablehlo.multiply %pf, %c100 : tensor<f32>
    %a = stablehlo.add %p100, %s : tensor<f32>
    %ab = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<3x2xf32>
    %r0 = stablehlo.add %x, %ab : tensor<3x2xf32>
    %p10 = stablehlo.multiply %pf, %c10 : tensor<f32>
    %r1000 = stablehlo.multiply %rf, %c1000 : tensor<f32>
    %b = stablehlo.add %p10, %r1000 : tensor<f32>
    %bb = stablehlo.broadcast_in_dim %b, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
    %r1 = stablehlo.add %y, %bb : tensor<2x2xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %r2 = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<3x2xf32>, tensor<f32>) -> tensor<f32>
    return %r0, %r1, %r2 : tensor<3x2xf32>, tensor<2x2xf32>, tensor<f32>
  }
}
MLIR
X=5x3xf32=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14
Y=4x2xf32=0,1,2,3,4,5,6,7
R0='5x3xf32=[300.5 301.5 102.5][303.5 304.5 105.5][306.5 307.5 108.5][9.5 10.5 211.5][12.5 13.5 214.5]'
expect_status 0 run "$TMP/a.mlir" --input=$X --input=f32=0.5 --input=$Y
expect_in "$TMP/out" "result[0]: $R0"
expect_in "$TMP/out" "result[1]: 4x2xf32=[0 1][2 3][14 15][16 17]"
expect_in "$TMP/out" "result[2]: f32=44"
# The same from the compiled .tpub, and for every thread count.
expect_status 0 "$TPUCC" "$TMP/a.mlir" -o "$TMP/a.tpub"
for t in 1 3; do
  expect_status 0 run --threads=$t "$TMP/a.tpub" --input=$X --input=f32=0.5 --input=$Y
  expect_in "$TMP/out" "result[0]: $R0"
  expect_in "$TMP/out" "result[2]: f32=44"
done
# The disassembly shows the module and the shard records.
expect_status 0 "$TPUCC" --emit=asm "$TMP/a.mlir"
expect_in "$TMP/out" "; module: 1 replicas x 4 partitions, SPMD partitioned (global inputs and results), mesh 2x2"
expect_in "$TMP/out" "; shard param 0: global 5x3, tiles [2, 2], replicated 1, devices [3, 1, 0, 2]"
expect_in "$TMP/out" "; shard param 2: global 4x2, tiles [2, 1], replicated 2, devices [0, 2, 1, 3]"
expect_in "$TMP/out" "; shard result 1: global 4x2, tiles [2, 1], replicated 2, devices [0, 2, 1, 3]"

# ---- 2. 2 replicas x 4 partitions: one global value per replica, stacked;
# an input may also hold one global value per replica.
expect_status 0 run --replicas=2 "$TMP/a.tpub" --input=$X --input=f32=0.5 --input=$Y
expect_in "$TMP/out" "result[0]: 2x5x3xf32=[${R0#*=}][${R0#*=}]"
expect_in "$TMP/out" "result[1]: 2x4x2xf32=[[0 1][2 3][14 15][16 17]][[1000 1001][1002 1003][1014 1015][1016 1017]]"
expect_in "$TMP/out" "result[2]: 2xf32=44 44"
expect_status 0 run --replicas=2 "$TMP/a.tpub" --input=$X --input=f32=0.5 \
  --input=2x4x2xf32=0,1,2,3,4,5,6,7,50,51,52,53,54,55,56,57
expect_in "$TMP/out" "result[1]: 2x4x2xf32=[[0 1][2 3][14 15][16 17]][[1050 1051][1052 1053][1064 1065][1066 1067]]"
# --mesh wins over the module's; a module mesh that does not hold the run's
# chips (2 replicas) gives way to the default.
expect_status 0 run --mesh=4x1 "$TMP/a.tpub" --input=$X --input=f32=0.5 --input=$Y
expect_in "$TMP/out" "result[0]: $R0"

# ---- 3. results written as global .npy files, read back as global inputs.
expect_status 0 run "$TMP/a.tpub" --input=$X --input=f32=0.5 --input=$Y --output=@"$TMP/r0.npy" --output=- \
  --output=@"$TMP/r2.npy"
grep -aq "'shape': (5, 3)" "$TMP/r0.npy" || fail "r0.npy is not 5x3: $(head -c 120 "$TMP/r0.npy")"
grep -aq "'shape': ()" "$TMP/r2.npy" || fail "r2.npy is not a scalar: $(head -c 120 "$TMP/r2.npy")"
expect_in "$TMP/out" "result[1]: 4x2xf32=[0 1][2 3][14 15][16 17]"
expect_status 0 run "$TMP/a.tpub" --input=@"$TMP/r0.npy" --input=f32=0 --input=$Y
expect_in "$TMP/out" "result[0]: 5x3xf32=[600.5 601.5 202.5][603.5 604.5 205.5][606.5 607.5 208.5][9.5 10.5 411.5][12.5 13.5 414.5]"
expect_status 0 run --replicas=2 "$TMP/a.tpub" --input=$X --input=f32=0.5 --input=$Y --output=@"$TMP/r0x2.npy"
grep -aq "'shape': (2, 5, 3)" "$TMP/r0x2.npy" || fail "r0x2.npy is not 2x5x3"
# random inputs are global values too (the same seed, the same bits).
expect_status 0 run "$TMP/a.tpub" --input=random:7 --input=random --input=random
cp "$TMP/out" "$TMP/random1"
expect_status 0 run --threads=2 "$TMP/a.tpub" --input=random:7 --input=random --input=random
cmp -s "$TMP/out" "$TMP/random1" || fail "random global inputs differ between runs"
expect_in "$TMP/out" "result[0]: 5x3xf32="

# ---- 4. pieces past the end (5 rows in 4 pieces of 2: partition 3's is all
# padding, zeros), i32, and results read from the first partition of
# their replication list.
V_ATTRS='tpu.global_shape = array<i64: 5>, tpu.shard_tiles = array<i64: 4, 1>, tpu.shard_devices = array<i64: 0, 1, 2, 3>'
cat > "$TMP/b.mlir" <<MLIR
module attributes {mhlo.num_partitions = 4 : i32, tpu.spmd_partitioned} {
  func.func @main(%v: tensor<2xi32> {$V_ATTRS})
      -> (tensor<2xi32> {$V_ATTRS},
          tensor<2xi32> {tpu.global_shape = array<i64: 2>, tpu.shard_tiles = array<i64: 1, 4>, tpu.shard_devices = array<i64: 3, 2, 1, 0>},
          tensor<2xi32> {tpu.global_shape = array<i64: 2>, tpu.shard_tiles = array<i64: 1, 4>, tpu.shard_devices = array<i64: 2, 3, 1, 0>}) {
    %p = stablehlo.partition_id : tensor<ui32>
    %pi = stablehlo.convert %p : (tensor<ui32>) -> tensor<i32>
    %pb = stablehlo.broadcast_in_dim %pi, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %r0 = stablehlo.add %v, %pb : tensor<2xi32>
    return %r0, %v, %v : tensor<2xi32>, tensor<2xi32>, tensor<2xi32>
  }
}
MLIR
expect_status 0 run "$TMP/b.mlir" --input=5xi32=1,2,3,4,5
expect_in "$TMP/out" "result[0]: 5xi32=1 2 4 5 7"
expect_in "$TMP/out" "result[1]: 2xi32=0 0"
expect_in "$TMP/out" "result[2]: 2xi32=5 0"
# --profile and --trace: per chip, as for any slice.
expect_status 0 run "$TMP/b.mlir" --input=5xi32=1,2,3,4,5 --profile --trace="$TMP/b.json"
expect_in "$TMP/out" "modeled step:"
expect_in "$TMP/out" "on 4 chips"
expect_in "$TMP/b.json" "chip 3 (replica 0, partition 3)"

# ---- 5. input errors (exit 1): a wrong global shape names the argument and
# the global type; the per-chip type is not a global value; another
# partition count would cut the values differently.
expect_status 1 run "$TMP/a.tpub" --input=4x3xf32=0,1,2,3,4,5,6,7,8,9,10,11 --input=f32=0.5 --input=$Y
expect_in "$TMP/err" "input 0: expected 5x3xf32, got 4x3xf32"
expect_in "$TMP/err" "argument 0 of the partitioned @main takes the global value, 5x3xf32; each of its 4 partitions gets its piece, 3x2xf32"
expect_status 1 run "$TMP/a.tpub" --input=$X --input=f32=0.5 --input=2x2xf32=0,1,2,3
expect_in "$TMP/err" "argument 2 of the partitioned @main takes the global value, 4x2xf32"
expect_status 1 run "$TMP/a.tpub" --input=$X --input=2xf32=0,1 --input=$Y
expect_in "$TMP/err" "gets a copy, f32"
expect_status 1 run --partitions=2 "$TMP/a.tpub" --input=$X --input=f32=0.5 --input=$Y
expect_in "$TMP/err" "is partitioned for 4 partitions (mhlo.num_partitions): --partitions=2"
expect_status 1 run "$TMP/a.tpub" --input=$X --input=f32=0.5 --input=$Y --output=- --output=@"$TMP/bad.npy" --output=- --output=-
expect_in "$TMP/err" "4 --output given, @main has 3 results"

# ---- 6. bad annotations are rejected by the compiler (exit 2).
sed 's/array<i64: 5>/array<i64: 9>/' "$TMP/b.mlir" > "$TMP/bad_dims.mlir"
expect_status 2 "$TPUCC" "$TMP/bad_dims.mlir" -o "$TMP/bad.tpub"
expect_in "$TMP/err" "%arg0 of @main: dim 0 is 2 per chip, but tpu.global_shape 9 in 4 tiles gives 3"
sed 's/array<i64: 3, 1, 0, 2>/array<i64: 3, 1, 0, 3>/' "$TMP/a.mlir" > "$TMP/bad_devs.mlir"
expect_status 2 "$TPUCC" "$TMP/bad_devs.mlir" -o "$TMP/bad.tpub"
expect_in "$TMP/err" "partition 3 appears twice in tpu.shard_devices"
sed 's/tpu.spmd_partitioned, tpu.mesh = array<i64: 2, 2>/tpu.spmd_partitioned, tpu.mesh = array<i64: 2, 3>/' "$TMP/a.mlir" > "$TMP/bad_mesh.mlir"
expect_status 2 "$TPUCC" "$TMP/bad_mesh.mlir" -o "$TMP/bad.tpub"
expect_in "$TMP/err" "tpu.mesh holds 6 devices, but mhlo.num_partitions is 4"
sed 's/, tpu.spmd_partitioned, tpu.mesh = array<i64: 2, 2>//' "$TMP/a.mlir" > "$TMP/not_spmd.mlir"
expect_status 2 "$TPUCC" "$TMP/not_spmd.mlir" -o "$TMP/bad.tpub"
expect_in "$TMP/err" "%arg0 of @main is sharded (tpu.global_shape, tpu.shard_*), but the module is not tpu.spmd_partitioned"
sed '0,/, tpu.shard_devices = array<i64: 0, 2, 1, 3>}/s//}/' "$TMP/a.mlir" > "$TMP/partial.mlir"
expect_status 2 "$TPUCC" "$TMP/partial.mlir" -o "$TMP/bad.tpub"
expect_in "$TMP/err" "%arg2 of @main has tpu.global_shape without tpu.shard_devices"

# ---- 7. a corrupt SHARDS section is refused by the loader (exit 3): a
# partition listed twice, a local dim that is not ceil(global / tiles).
corrupt() { # corrupt IN OUT WHAT: patch the first SHARDS record, reseal
  /usr/bin/python3 - "$@" <<'PY' || fail "could not patch $1"
import ctypes, struct, sys
xxh = ctypes.CDLL("libxxhash.so.0")
xxh.XXH3_64bits.restype = ctypes.c_uint64
xxh.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
b = bytearray(open(sys.argv[1], "rb").read())
count = struct.unpack_from("<I", b, 40)[0]
secs = {k: (c, off) for k, c, off in (struct.unpack_from("<IIQ", b, 64 + 16 * i) for i in range(count))}
ints_off = secs[2][1]
shards_off = secs[11][1]
func, kind, rank, index, glob, tiles, devices, ndevices, pad = struct.unpack_from("<IHHIIIIII", b, shards_off)
if sys.argv[3] == "twice":   # devices [3 1 0 2] -> [3 3 0 2]
    struct.pack_into("<q", b, ints_off + 8 * (devices + 1), 3)
elif sys.argv[3] == "dims":  # global 5x3 -> 7x3: ceil(7/2) = 4, not 3
    struct.pack_into("<q", b, ints_off + 8 * glob, 7)
elif sys.argv[3] == "func":
    struct.pack_into("<I", b, shards_off, 99)
struct.pack_into("<Q", b, 56, 0)
struct.pack_into("<Q", b, 56, xxh.XXH3_64bits(bytes(b), len(b)))
open(sys.argv[2], "wb").write(b)
PY
}
corrupt "$TMP/a.tpub" "$TMP/c1.tpub" twice
expect_status 3 run "$TMP/c1.tpub" --input=$X --input=f32=0.5 --input=$Y
expect_in "$TMP/err" "bad bytecode: SHARDS: @main parameter 0: partition 3 holds two pieces"
corrupt "$TMP/a.tpub" "$TMP/c2.tpub" dims
expect_status 3 run "$TMP/c2.tpub" --input=$X --input=f32=0.5 --input=$Y
expect_in "$TMP/err" "bad bytecode: SHARDS: @main parameter 0: dim 0 is 3 per chip, but ceil(global 7 / 2 tiles) = 4"
corrupt "$TMP/a.tpub" "$TMP/c3.tpub" func
expect_status 3 run "$TMP/c3.tpub" --input=$X --input=f32=0.5 --input=$Y
expect_in "$TMP/err" "bad bytecode: SHARDS: record 0 names function 99"
echo "spmd_io: all passed"
