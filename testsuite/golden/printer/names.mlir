// RUN: %tpucc -O0 --emit=mlir %s | FileCheck %s
// RUN: %tpucc -O0 --emit=mlir %s | %tpucc -O0 --emit=mlir - | FileCheck %s
// Value names: results become %0, %1, ... in order (region bodies
// included, restarting in each function), block arguments %arg0, %arg1, ...
// (continuing into regions), groups of results %N:K used as %N#i.
// Symbols, attribute names and strings are quoted when they must be; source
// locations are dropped.

// CHECK-LABEL: func.func @numbering(%arg0: tensor<f32>, %arg1: tensor<2xui64>) -> tensor<f32> {
// CHECK-NEXT:    %0:2 = stablehlo.rng_bit_generator %arg1, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2xui32>)
// CHECK-NEXT:    %1 = stablehlo.abs %arg0 : tensor<f32>
// CHECK-NEXT:    %2:2 = stablehlo.rng_bit_generator %0#0, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2xui32>)
// CHECK-NEXT:    %3 = stablehlo.while(%arg2 = %1) : tensor<f32>
// CHECK-NEXT:     cond {
// CHECK-NEXT:      %4 = stablehlo.compare LT, %arg2, %1 : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK-NEXT:      stablehlo.return %4 : tensor<i1>
// CHECK-NEXT:    } do {
// CHECK-NEXT:      %5 = stablehlo.negate %arg2 : tensor<f32>
// CHECK-NEXT:      stablehlo.return %5 : tensor<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %6 = stablehlo.add %3, %1 : tensor<f32>
// CHECK-NEXT:    func.return %6 : tensor<f32>
func.func @numbering(%x: tensor<f32> loc("x"), %state: tensor<2xui64>) -> tensor<f32> {
  %r:2 = stablehlo.rng_bit_generator %state, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2xui32>) loc("a.py":1:2)
  %abs = stablehlo.abs %x : tensor<f32> loc(unknown)
  %s1, %s2 = "stablehlo.rng_bit_generator"(%r#0) {rng_algorithm = #stablehlo<rng_algorithm DEFAULT>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2xui32>)
  %w = stablehlo.while(%i = %abs) : tensor<f32>
   cond {
    %c = stablehlo.compare LT, %i, %abs : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %n = stablehlo.negate %i : tensor<f32>
    stablehlo.return %n : tensor<f32>
  }
  %sum = stablehlo.add %w, %abs : tensor<f32>
  func.return %sum : tensor<f32>
}

// Numbering restarts in every function.
// CHECK-LABEL: func.func @"quoted name"(%arg0: tensor<f32>) -> tensor<f32> {
// CHECK-NEXT:    %0 = stablehlo.constant dense<0> : tensor<2xui64>
// CHECK-NEXT:    %1 = func.call @numbering(%arg0, %0) : (tensor<f32>, tensor<2xui64>) -> tensor<f32>
func.func @"quoted name"(%arg0: tensor<f32>) -> tensor<f32> {
  %c = stablehlo.constant dense<0> : tensor<2xui64>
  %0 = func.call @numbering(%arg0, %c) : (tensor<f32>, tensor<2xui64>) -> tensor<f32>
  func.return %0 : tensor<f32>
}

// CHECK-LABEL: func.func @strings() attributes {"attr-with-dash" = "tab\tnewline\nquote\"backslash\\byte\01\FF", plain_name = @"sym with space", sym.dotted = @sym.dotted} {
func.func @strings() attributes {plain_name = @"sym with space", "attr-with-dash" = "tab\09newline\0Aquote\"backslash\\byte\01\ff", sym.dotted = @sym.dotted} {
  func.return
}
