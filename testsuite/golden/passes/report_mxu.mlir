// The issue's bar: a 4096x4096x4096 bf16 dot_general through the full -O2
// pipeline (layout tiles it for the MXU) models at >= 95% MXU utilization
// on v5e, and on v6e's 256x256 MXU too.
// RUN: %tpucc --report --verify-each %s | FileCheck %s
// RUN: %tpucc --report --verify-each --target=v6e %s | FileCheck %s --check-prefix=V6E
// CHECK: on v5e (MXU 128x128
// CHECK: stablehlo.dot_general report_mxu.mlir:[[@LINE+5]]:8 137438953472 {{[0-9]+}} {{[0-9.]+}} MXU {{9[5-9]\.[0-9]|100\.0}}
// CHECK: total: modeled {{.*}} MXU utilization {{9[5-9]\.[0-9]|100\.0}}%, peak HBM 96.0 MiB
// V6E: on v6e (MXU 256x256
// V6E: total: modeled {{.*}} MXU utilization {{9[5-9]\.[0-9]|100\.0}}%
func.func @main(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16>
  return %0 : tensor<4096x4096xbf16>
}
