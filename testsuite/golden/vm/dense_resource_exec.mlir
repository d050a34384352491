// dense_resource blobs run with their data (f32, i1 one byte per element,
// i4 one byte per element); a bad blob is exit 2 before anything runs,
// never random or cut data.
// RUN: %tpurun -O0 %s 2>&1 | FileCheck %s
// RUN: %tpurun -O2 %s 2>&1 | FileCheck %s
// RUN: sed 's/"0x040000000000803F00000040"/"0x040000000000803F"/' %s > %t.short.mlir
// RUN: %tpurun %t.short.mlir > %t.out 2>&1; echo "exit $?" >> %t.out; FileCheck %s --check-prefix=SHORT < %t.out
// RUN: sed 's/dense_resource<w0>/dense_resource<gone>/' %s > %t.missing.mlir
// RUN: %tpurun %t.missing.mlir > %t.out 2>&1; echo "exit $?" >> %t.out; FileCheck %s --check-prefix=MISSING < %t.out
// CHECK-NOT: warning
// CHECK: result[0]: 2xf32=1 2
// CHECK: result[1]: 3xi1=true false true
// CHECK: result[2]: 2xi4=7 -7
// SHORT: dense_resource_exec.mlir.tmp.short.mlir:[[#@LINE+6]]:8: error: 'stablehlo.constant' op the blob of dense_resource<w0> has 4 bytes of data, but 'tensor<2xf32>' needs 8 bytes
// SHORT-NOT: result
// SHORT: exit 2
// MISSING: error: 'stablehlo.constant' op dense_resource<gone> has no blob in the dialect_resources section ('tensor<2xf32>' needs 8 bytes)
// MISSING: exit 2
func.func @main() -> (tensor<2xf32>, tensor<3xi1>, tensor<2xi4>) {
  %0 = stablehlo.constant dense_resource<w0> : tensor<2xf32>
  %1 = stablehlo.constant dense_resource<b> : tensor<3xi1>
  %2 = stablehlo.constant dense_resource<q> : tensor<2xi4>
  return %0, %1, %2 : tensor<2xf32>, tensor<3xi1>, tensor<2xi4>
}
{-#
  dialect_resources: {
    builtin: {
      w0: "0x040000000000803F00000040",
      b: "0x01000000010001",
      q: "0x0100000007F9"
    }
  }
#-}
