// RUN: %verify-diagnostics %s
// The verifier's rules for tpu.async_start / tpu.async_done
// (ir/verify_control.c), the ops the collective-overlap pass produces.

// A well-formed pair verifies.
func.func @ok(%a: tensor<8x128xf32>, %b: tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>) {
  %s:2 = "tpu.async_start"(%a, %b) ({
  ^bb0(%x: tensor<8x128xf32>, %y: tensor<8x128xf32>):
    %r:2 = "stablehlo.all_reduce"(%x, %y) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<8x128xf32>, tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>)
    "tpu.yield"(%r#0, %r#1) : (tensor<8x128xf32>, tensor<8x128xf32>) -> ()
  }) : (tensor<8x128xf32>, tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>)
  %d:2 = "tpu.async_done"(%s#0, %s#1) : (tensor<8x128xf32>, tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>)
  func.return %d#0, %d#1 : tensor<8x128xf32>, tensor<8x128xf32>
}

// -----

func.func @not_a_collective(%a: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{region must hold one collective (all_reduce, all_gather, reduce_scatter, all_to_all, collective_permute or collective_broadcast) followed by 'tpu.yield'}}
  %s = "tpu.async_start"(%a) ({
  ^bb0(%x: tensor<8x128xf32>):
    %r = stablehlo.negate %x : tensor<8x128xf32>
    "tpu.yield"(%r) : (tensor<8x128xf32>) -> ()
  }) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %d = "tpu.async_done"(%s) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  func.return %d : tensor<8x128xf32>
}

// -----

func.func @two_collectives(%a: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{region must hold one collective}}
  %s = "tpu.async_start"(%a) ({
  ^bb0(%x: tensor<8x128xf32>):
    %r = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
    %r2 = "stablehlo.collective_permute"(%r) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
    "tpu.yield"(%r2) : (tensor<8x128xf32>) -> ()
  }) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %d = "tpu.async_done"(%s) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  func.return %d : tensor<8x128xf32>
}

// -----

func.func @args_out_of_order(%a: tensor<8x128xf32>, %b: tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>) {
  // expected-error @+1 {{'stablehlo.all_gather' must take the region's arguments, in order}}
  %s:2 = "tpu.async_start"(%a, %b) ({
  ^bb0(%x: tensor<8x128xf32>, %y: tensor<8x128xf32>):
    %r:2 = "stablehlo.all_gather"(%y, %x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<8x128xf32>, tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>)
    "tpu.yield"(%r#0, %r#1) : (tensor<8x128xf32>, tensor<8x128xf32>) -> ()
  }) : (tensor<8x128xf32>, tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>)
  %d:2 = "tpu.async_done"(%s#0, %s#1) : (tensor<8x128xf32>, tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>)
  func.return %d#0, %d#1 : tensor<8x128xf32>, tensor<8x128xf32>
}

// -----

func.func @region_arg_type(%a: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{region argument #0 has type 'tensor<8x128xf16>' but operand #0 has type 'tensor<8x128xf32>'}}
  %s = "tpu.async_start"(%a) ({
  ^bb0(%x: tensor<8x128xf16>):
    %r = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<8x128xf16>) -> tensor<8x128xf16>
    "tpu.yield"(%r) : (tensor<8x128xf16>) -> ()
  }) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %d = "tpu.async_done"(%s) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  func.return %d : tensor<8x128xf32>
}

// -----

func.func @yield_not_the_results(%a: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'tpu.yield' must give the results of 'stablehlo.collective_permute', in order}}
  %s = "tpu.async_start"(%a) ({
  ^bb0(%x: tensor<8x128xf32>):
    %r = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
    "tpu.yield"(%x) : (tensor<8x128xf32>) -> ()
  }) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %d = "tpu.async_done"(%s) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  func.return %d : tensor<8x128xf32>
}

// -----

func.func @result_type(%a: tensor<8x128xf32>) -> tensor<8x128xf16> {
  // expected-error @+1 {{result #0 has type 'tensor<8x128xf16>' but 'stablehlo.collective_permute' gives 'tensor<8x128xf32>'}}
  %s = "tpu.async_start"(%a) ({
  ^bb0(%x: tensor<8x128xf32>):
    %r = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
    "tpu.yield"(%r) : (tensor<8x128xf32>) -> ()
  }) : (tensor<8x128xf32>) -> tensor<8x128xf16>
  %d = "tpu.async_done"(%s) : (tensor<8x128xf16>) -> tensor<8x128xf16>
  func.return %d : tensor<8x128xf16>
}

// -----

func.func @result_used_twice(%a: tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>) {
  // expected-error @+1 {{result #0 must be used exactly once, by a 'tpu.async_done'}}
  %s = "tpu.async_start"(%a) ({
  ^bb0(%x: tensor<8x128xf32>):
    %r = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
    "tpu.yield"(%r) : (tensor<8x128xf32>) -> ()
  }) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %d = "tpu.async_done"(%s) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  func.return %d, %s : tensor<8x128xf32>, tensor<8x128xf32>
}

// -----

func.func @never_done(%a: tensor<8x128xf32>) {
  // expected-error @+1 {{result #0 must be used exactly once, by a 'tpu.async_done'}}
  %s = "tpu.async_start"(%a) ({
  ^bb0(%x: tensor<8x128xf32>):
    %r = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
    "tpu.yield"(%r) : (tensor<8x128xf32>) -> ()
  }) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  func.return
}

// -----

func.func @split_dones(%a: tensor<8x128xf32>, %b: tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>) {
  // expected-error @+1 {{results must all go to one 'tpu.async_done', in order}}
  %s:2 = "tpu.async_start"(%a, %b) ({
  ^bb0(%x: tensor<8x128xf32>, %y: tensor<8x128xf32>):
    %r:2 = "stablehlo.all_to_all"(%x, %y) {split_dimension = 1 : i64, concat_dimension = 1 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<8x128xf32>, tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>)
    "tpu.yield"(%r#0, %r#1) : (tensor<8x128xf32>, tensor<8x128xf32>) -> ()
  }) : (tensor<8x128xf32>, tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>)
  // expected-error @+1 {{operands must be all the results of one 'tpu.async_start', in order}}
  %d = "tpu.async_done"(%s#0) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  // expected-error @+1 {{operands must be all the results of one 'tpu.async_start', in order}}
  %e = "tpu.async_done"(%s#1) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  func.return %d, %e : tensor<8x128xf32>, tensor<8x128xf32>
}

// -----

func.func @done_of_a_plain_value(%a: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{operands must be all the results of one 'tpu.async_start', in order}}
  %d = "tpu.async_done"(%a) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  func.return %d : tensor<8x128xf32>
}

// -----

func.func @done_type(%a: tensor<8x128xf32>) -> tensor<8x128xf16> {
  %s = "tpu.async_start"(%a) ({
  ^bb0(%x: tensor<8x128xf32>):
    %r = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
    "tpu.yield"(%r) : (tensor<8x128xf32>) -> ()
  }) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  // expected-error @+1 {{result #0 has type 'tensor<8x128xf16>' but operand #0 has type 'tensor<8x128xf32>'}}
  %d = "tpu.async_done"(%s) : (tensor<8x128xf32>) -> tensor<8x128xf16>
  func.return %d : tensor<8x128xf16>
}

// -----

func.func @done_in_a_region(%a: tensor<8x128xf32>, %p: tensor<i1>) -> tensor<8x128xf32> {
  %s = "tpu.async_start"(%a) ({
  ^bb0(%x: tensor<8x128xf32>):
    %r = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
    "tpu.yield"(%r) : (tensor<8x128xf32>) -> ()
  }) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %o = "stablehlo.if"(%p) ({
    // expected-error @+1 {{must be in the block of its 'tpu.async_start'}}
    %d = "tpu.async_done"(%s) : (tensor<8x128xf32>) -> tensor<8x128xf32>
    stablehlo.return %d : tensor<8x128xf32>
  }, {
    stablehlo.return %a : tensor<8x128xf32>
  }) : (tensor<i1>) -> tensor<8x128xf32>
  func.return %o : tensor<8x128xf32>
}

// -----

// The region is isolated from above.
func.func @isolated(%a: tensor<8x128xf32>, %b: tensor<8x128xf32>) -> tensor<8x128xf32> {
  // expected-error @+1 {{'stablehlo.collective_permute' must take the region's arguments, in order}}
  %s = "tpu.async_start"(%a) ({
  ^bb0(%x: tensor<8x128xf32>):
    // expected-error @+1 {{using value defined outside the region}}
    %r = "stablehlo.collective_permute"(%b) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<8x128xf32>) -> tensor<8x128xf32>
    "tpu.yield"(%r) : (tensor<8x128xf32>) -> ()
  }) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  %d = "tpu.async_done"(%s) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  func.return %d : tensor<8x128xf32>
}

// -----

func.func @stray_yield(%a: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %o = "stablehlo.optimization_barrier"(%a) : (tensor<8x128xf32>) -> tensor<8x128xf32>
  // expected-error @+2 {{the body of a function must end with 'func.return'}}
  // expected-error @+1 {{expects parent op 'tpu.fusion' or 'tpu.async_start'}}
  "tpu.yield"(%o) : (tensor<8x128xf32>) -> ()
}
