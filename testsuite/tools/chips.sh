#!/usr/bin/env bash
# Slices of simulated chips (docs/chips.md): tpurun --replicas/--partitions/
# --mesh, per-chip and shared inputs, stacked results, the same bits for
# every --threads, deadlocks and mismatched collectives ending with exit 4
# and a message (never a hang), MPMD groups, and the --trace file.
source "$(dirname "$0")/lib.sh"
TPURUN="$BUILD/tpurun"
run() { "$TPURUN" --no-cache "$@"; }
SUM='({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
    })'

# ---- 1. an all_reduce and replica ids on 4 chips: split and shared inputs,
# stacked results, defaults from mhlo.num_replicas.
cat > "$TMP/ar.mlir" <<MLIR
module attributes {mhlo.num_replicas = 4 : i32} {
func.func @main(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<ui32>) {
  %y = stablehlo.multiply %x, %w : tensor<4xf32>
  %0 = "stablehlo.all_reduce"(%y) $SUM {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %r = stablehlo.replica_id : tensor<ui32>
  return %0, %r : tensor<4xf32>, tensor<ui32>
}
}
MLIR
X=4x4xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16
expect_status 0 run --replicas=4 "$TMP/ar.mlir" --input=$X --input=4xf32=1,1,1,2
expect_in "$TMP/out" "result[0]: 4x4xf32=[28 32 36 80][28 32 36 80][28 32 36 80][28 32 36 80]"
expect_in "$TMP/out" "result[1]: 4xui32=0 1 2 3"
# The same run with the replica count from the module attribute.
expect_status 0 run "$TMP/ar.mlir" --input=$X --input=4xf32=1,1,1,2
expect_in "$TMP/out" "result[1]: 4xui32=0 1 2 3"
# 2 replicas x 2 partitions on a 2x2 torus: chip c is replica c / 2,
# partition c % 2; a cross-replica all_reduce adds chips 0+2 and 1+3.
cat > "$TMP/rp.mlir" <<MLIR
func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<ui32>, tensor<ui32>) {
  %0 = "stablehlo.all_reduce"(%x) $SUM {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  %r = stablehlo.replica_id : tensor<ui32>
  %p = stablehlo.partition_id : tensor<ui32>
  return %0, %r, %p : tensor<2xf32>, tensor<ui32>, tensor<ui32>
}
MLIR
expect_status 0 run --replicas=2 --partitions=2 --mesh=2x2 "$TMP/rp.mlir" --input=4x2xf32=1,2,10,20,100,200,1000,2000
expect_in "$TMP/out" "result[0]: 4x2xf32=[101 202][1010 2020][101 202][1010 2020]"
expect_in "$TMP/out" "result[1]: 4xui32=0 0 1 1"
expect_in "$TMP/out" "result[2]: 4xui32=0 1 0 1"

# ---- 2. usage errors
expect_status 1 run --replicas=4 --mesh=2x3 "$TMP/ar.mlir" --input=$X --input=4xf32=1,1,1,1
expect_in "$TMP/err" "--mesh holds 6 chips, the run has 4 replicas x 1 partitions = 4"
expect_status 1 run --replicas=0 "$TMP/ar.mlir"
expect_in "$TMP/err" "invalid --replicas count '0'"
expect_status 1 run --mesh=4 "$TMP/ar.mlir"
expect_in "$TMP/err" "invalid --mesh '4'"
expect_status 1 run --replicas=4 "$TMP/ar.mlir" --input=3xf32=1,2,3 --input=4xf32=1,1,1,1
expect_in "$TMP/err" "one per chip"

# ---- 3. the same bits for every thread count (random data, 8 chips)
cat > "$TMP/big.mlir" <<MLIR
func.func @main(%x: tensor<3000xf32>) -> tensor<3000xf32> {
  %e = stablehlo.exponential %x : tensor<3000xf32>
  %0 = "stablehlo.all_reduce"(%e) $SUM {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>} : (tensor<3000xf32>) -> tensor<3000xf32>
  return %0 : tensor<3000xf32>
}
MLIR
for t in 1 2 5; do
  expect_status 0 run --replicas=8 --threads=$t "$TMP/big.mlir" --input=random:7 --output=@"$TMP/t$t.npy"
done
cmp -s "$TMP/t1.npy" "$TMP/t2.npy" && cmp -s "$TMP/t1.npy" "$TMP/t5.npy" || fail "results differ between --threads=1, 2 and 5"

# ---- 4. a chip that skips the collective: deadlock, exit 4, named
cat > "$TMP/skip.mlir" <<MLIR
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = stablehlo.replica_id : tensor<ui32>
  %zero = stablehlo.constant dense<0> : tensor<ui32>
  %p = stablehlo.compare EQ, %r, %zero : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
  %0 = "stablehlo.if"(%p) ({
    %s = "stablehlo.all_reduce"(%x) $SUM {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    stablehlo.return %s : tensor<4xf32>
  }, {
    stablehlo.return %x : tensor<4xf32>
  }) : (tensor<i1>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
MLIR
for t in 1 2; do
  expect_status 4 timeout 20 "$TPURUN" --no-cache --threads=$t --replicas=2 "$TMP/skip.mlir" --input=random
  expect_in "$TMP/err" "skip.mlir:6:10: error: 'stablehlo.all_reduce' op deadlock:"
  expect_in "$TMP/err" "its group is chips {0, 1}; did not arrive: chip 1 finished"
done

# ---- 5. chips at collectives of other shapes: exit 4, both places named
cat > "$TMP/shapes.mlir" <<MLIR
func.func @main(%x: tensor<4xf32>) -> tensor<2xf32> {
  %r = stablehlo.replica_id : tensor<ui32>
  %zero = stablehlo.constant dense<0> : tensor<ui32>
  %p = stablehlo.compare EQ, %r, %zero : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
  %0 = "stablehlo.if"(%p) ({
    %s = "stablehlo.all_reduce"(%x) $SUM {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    %h = stablehlo.slice %s [0:2] : (tensor<4xf32>) -> tensor<2xf32>
    stablehlo.return %h : tensor<2xf32>
  }, {
    %y = stablehlo.slice %x [0:2] : (tensor<4xf32>) -> tensor<2xf32>
    %s = "stablehlo.all_reduce"(%y) $SUM {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    stablehlo.return %s : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
MLIR
expect_status 4 timeout 20 "$TPURUN" --no-cache --replicas=2 "$TMP/shapes.mlir" --input=random
# Reported by the lowest chip, the places in chip order, whoever came last.
for t in 1 2; do
  expect_status 4 timeout 20 "$TPURUN" --no-cache --threads=$t --replicas=2 "$TMP/shapes.mlir" --input=random
  expect_in "$TMP/err" "shapes.mlir:6:10: error: 'stablehlo.all_reduce' op does not match its group: chip 0 is at 'stablehlo.all_reduce' at $TMP/shapes.mlir:6:10, chip 1 at 'stablehlo.all_reduce' at $TMP/shapes.mlir:15:10, with other"
done

# ---- 6. MPMD: three chips each waiting for a group the others never form
cat > "$TMP/cycle.mlir" <<MLIR
module {
  func.func @a(%x: tensor<2xf32>) -> tensor<2xf32> {
    %0 = "stablehlo.all_reduce"(%x) $SUM {replica_groups = dense<[[0, 1], [2, -1]]> : tensor<2x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
  func.func @b(%x: tensor<2xf32>) -> tensor<2xf32> {
    %0 = "stablehlo.all_reduce"(%x) $SUM {replica_groups = dense<[[1, 2], [0, -1]]> : tensor<2x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
  func.func @c(%x: tensor<2xf32>) -> tensor<2xf32> {
    %0 = "stablehlo.all_reduce"(%x) $SUM {replica_groups = dense<[[0, 2], [1, -1]]> : tensor<2x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
  func.func @main() {
    %v = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %r:3 = "interpreter.run_parallel"(%v, %v, %v) {programs = [[@a], [@b], [@c]]} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
    func.return
  }
}
MLIR
expect_status 4 timeout 20 "$TPURUN" --no-cache --check "$TMP/cycle.mlir"
expect_in "$TMP/err" "deadlock"
expect_in "$TMP/err" "chip 1 waits at 'stablehlo.all_reduce' at"

# ---- 7. MPMD divergence: chips 0-1 and 2-3 reduce in their own groups while
# chip 2 does side work first; a collective waits only for its group.
cat > "$TMP/groups.mlir" <<MLIR
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = stablehlo.replica_id : tensor<ui32>
  %two = stablehlo.constant dense<2> : tensor<ui32>
  %p = stablehlo.compare EQ, %r, %two : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
  %y = "stablehlo.if"(%p) ({
    %t = stablehlo.multiply %x, %x : tensor<2xf32>
    stablehlo.return %t : tensor<2xf32>
  }, {
    stablehlo.return %x : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  %0 = "stablehlo.all_reduce"(%y) $SUM {replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
MLIR
expect_status 0 run --replicas=4 "$TMP/groups.mlir" --input=4x2xf32=1,2,3,4,5,6,7,8
expect_in "$TMP/out" "result[0]: 4x2xf32=[4 6][4 6][32 44][32 44]"

# ---- 8. --trace: valid JSON, one process per chip, the four unit tracks,
# and the all_reduce on every chip's ICI track.
expect_status 0 run --replicas=4 "$TMP/ar.mlir" --input=$X --input=4xf32=1,1,1,2 --trace="$TMP/t.json"
expect_in "$TMP/out" "modeled step:"
/usr/bin/python3 - "$TMP/t.json" <<'PY' || fail "bad trace: $(head -c 600 "$TMP/t.json")"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
procs = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
assert procs == {c: "chip %d (replica %d, partition 0)" % (c, c) for c in range(4)}, procs
threads = {(e["pid"], e["args"]["name"]) for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
assert all((c, u) in threads for c in range(4) for u in ("MXU", "VPU", "DMA (HBM)", "ICI")), threads
ici = [e for e in ev if e["ph"] == "X" and e["name"] == "stablehlo.all_reduce"]
assert sorted(e["pid"] for e in ici) == [0, 1, 2, 3], ici
assert all(e["dur"] > 0 and e["args"]["location"].endswith("ar.mlir:4:8") for e in ici), ici
# A collective starts when the last chip arrives: the same start everywhere.
assert len({round(e["ts"], 6) for e in ici}) == 1, ici
PY
echo "chips: ok"
