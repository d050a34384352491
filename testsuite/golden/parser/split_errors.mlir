// RUN: %not %tpucc -O0 --emit=mlir --split-input-file %s 2>%t.err | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %tpucc -O0 --emit=mlir --split-input-file %s > /dev/null 2>&1; test $? = 2
// RUN: %not %tpucc -O0 --emit=mlir --split-input-file --verify-only %s 2>&1 | FileCheck %s --check-prefix=QUIET
// With --split-input-file a bad chunk does not stop the others: valid chunks
// are printed, errors name lines of the whole file, the exit status is 2.

// OUT:         func.func @ok1
// OUT-NOT:     @bad
func.func @ok1() {
  func.return
}

// -----

func.func @bad1(%a: tensor<f32>) -> tensor<f32> {
  // ERR:       split_errors.mlir:[[# @LINE + 1]]:22: error: use of undeclared SSA value name '%nope'
  %0 = stablehlo.abs %nope : tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

func.func @bad2(%a: tensor<f32>) -> tensor<i32> {
  // ERR:       split_errors.mlir:[[# @LINE + 1]]:3: error: 'func.return' op type of return operand 0 ('tensor<f32>') doesn't match function result type ('tensor<i32>') in function @bad2
  func.return %a : tensor<f32>
}

// -----

// OUT:         // -----
// OUT-NEXT:    module {
// OUT-NEXT:      func.func @ok2
func.func @ok2() {
  func.return
}

// QUIET-NOT:   func.func
// QUIET:       error: use of undeclared SSA value name '%nope'
// QUIET:       error: 'func.return' op type of return operand 0
// QUIET-NOT:   func.func
