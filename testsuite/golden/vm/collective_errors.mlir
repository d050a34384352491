// Collectives that cannot complete end the run with exit 4 and a message
// naming the op and its location, never a hang (vm/kernels/collective.c,
// vm/chips/chips.c); a reduction body that would wait for other chips is refused
// by the loader (exit 3).
// RUN: %tpurun --check --function=outside %s 2>%t.1; test $? -eq 4
// RUN: FileCheck %s --check-prefix=OUTSIDE < %t.1
// OUTSIDE: collective_errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'stablehlo.all_reduce' op replica_groups names replica 2, but the slice has 2 replicas
// RUN: %tpurun --check --function=shapes %s 2>%t.2; test $? -eq 4
// RUN: FileCheck %s --check-prefix=SHAPES < %t.2
// SHAPES: error: 'stablehlo.all_reduce' op does not match its group: {{.*}} with other operand or result types
// RUN: %tpurun --check --function=absent %s 2>%t.3; test $? -eq 4
// RUN: FileCheck %s --check-prefix=ABSENT < %t.3
// ABSENT: error: 'stablehlo.all_reduce' op deadlock: 'stablehlo.all_reduce' at {{.*}}collective_errors.mlir:{{[0-9]+}}:{{[0-9]+}} on chip 0 can never complete: its group is chips {0, 1}; did not arrive: chip 1 finished
// RUN: %tpurun --check --function=nogroup %s 2>%t.4; test $? -eq 4
// RUN: FileCheck %s --check-prefix=NOGROUP < %t.4
// NOGROUP: error: 'stablehlo.all_reduce' op chip 1 (replica 1, partition 0) is in no group of replica_groups
// RUN: %tpurun --check --function=pairs %s 2>%t.6; test $? -eq 4
// RUN: FileCheck %s --check-prefix=PAIRS < %t.6
// PAIRS: error: 'stablehlo.collective_permute' op source_target_pairs name replica 5, but the slice has 2 replicas
// RUN: %tpurun --check --function=lonely_recv %s 2>%t.7; test $? -eq 4
// RUN: FileCheck %s --check-prefix=RECV < %t.7
// RECV: error: 'stablehlo.recv' op deadlock: 'stablehlo.recv' at {{.*}} on chip 1 can never complete: no chip will send on its channel (chip 0 finished)

module @errors {
  func.func @sum3(%x : tensor<2xf32>) -> tensor<2xf32> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    return %r : tensor<2xf32>
  }
  func.func @outside() {
    %x = stablehlo.constant dense<1.0> : tensor<2xf32>
    %r:2 = "interpreter.run_parallel"(%x, %x) {programs = [[@sum3], [@sum3]]} : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    func.return
  }
  func.func @sum2(%x : tensor<2xf32>) -> tensor<2xf32> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    return %r : tensor<2xf32>
  }
  func.func @sum2_wide(%x : tensor<3xf32>) -> tensor<3xf32> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<3xf32>) -> tensor<3xf32>
    return %r : tensor<3xf32>
  }
  func.func @shapes() {
    %x = stablehlo.constant dense<1.0> : tensor<2xf32>
    %y = stablehlo.constant dense<1.0> : tensor<3xf32>
    %r:2 = "interpreter.run_parallel"(%x, %y) {programs = [[@sum2], [@sum2_wide]]} : (tensor<2xf32>, tensor<3xf32>) -> (tensor<2xf32>, tensor<3xf32>)
    func.return
  }
  func.func @idle(%x : tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
  func.func @absent() {
    %x = stablehlo.constant dense<1.0> : tensor<2xf32>
    %r:2 = "interpreter.run_parallel"(%x, %x) {programs = [[@sum2], [@idle]]} : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    func.return
  }
  func.func @sum_alone(%x : tensor<2xf32>) -> tensor<2xf32> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    return %r : tensor<2xf32>
  }
  func.func @nogroup() {
    %x = stablehlo.constant dense<1.0> : tensor<2xf32>
    %r:2 = "interpreter.run_parallel"(%x, %x) {programs = [[@sum_alone], [@sum_alone]]} : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    func.return
  }
  func.func @permute5(%x : tensor<2xf32>) -> tensor<2xf32> {
    %r = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 5]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    return %r : tensor<2xf32>
  }
  func.func @pairs() {
    %x = stablehlo.constant dense<1.0> : tensor<2xf32>
    %r:2 = "interpreter.run_parallel"(%x, %x) {programs = [[@permute5], [@permute5]]} : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    func.return
  }
  func.func @receiver(%x : tensor<2xf32>, %t : !stablehlo.token) -> tensor<2xf32> {
    %v, %t2 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 9, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
    return %v : tensor<2xf32>
  }
  func.func @idle_t(%x : tensor<2xf32>, %t : !stablehlo.token) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
  func.func @lonely_recv() {
    %x = stablehlo.constant dense<1.0> : tensor<2xf32>
    %t = stablehlo.after_all : !stablehlo.token
    %r:2 = "interpreter.run_parallel"(%x, %t, %x, %t) {programs = [[@idle_t], [@receiver]]} : (tensor<2xf32>, !stablehlo.token, tensor<2xf32>, !stablehlo.token) -> (tensor<2xf32>, tensor<2xf32>)
    func.return
  }
}
