// RUN: %verify-diagnostics %s
// dense_resource blobs: a missing blob (other than __elided__), or one
// shorter or longer than the tensor's bytes, is refused with both sizes.
// The blob is "0x" + a 4-byte little-endian alignment + the data; i1 and
// sub-byte integers take one byte per element, as MLIR stores them.

func.func @missing() -> tensor<2xf32> {
  // expected-error @+1 {{dense_resource<w0> has no blob in the dialect_resources section ('tensor<2xf32>' needs 8 bytes); only __elided__ may be left out}}
  %0 = stablehlo.constant dense_resource<w0> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @short() -> tensor<2xf32> {
  // expected-error @+1 {{the blob of dense_resource<w0> has 4 bytes of data, but 'tensor<2xf32>' needs 8 bytes}}
  %0 = stablehlo.constant dense_resource<w0> : tensor<2xf32>
  return %0 : tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w0: "0x040000000000803F"
    }
  }
#-}

// -----

func.func @long() -> tensor<2xf32> {
  // expected-error @+1 {{the blob of dense_resource<w0> has 12 bytes of data, but 'tensor<2xf32>' needs 8 bytes}}
  %0 = stablehlo.constant dense_resource<w0> : tensor<2xf32>
  return %0 : tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w0: "0x040000000000803F0000004000004040"
    }
  }
#-}

// -----

func.func @no_alignment() -> tensor<0xf32> {
  // expected-error @+1 {{the blob of dense_resource<w0> has 2 bytes, fewer than its 4-byte alignment prefix}}
  %0 = stablehlo.constant dense_resource<w0> : tensor<0xf32>
  return %0 : tensor<0xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w0: "0x0400"
    }
  }
#-}

// -----

// i1: one byte per element (4 bytes for tensor<4xi1>, not 1).
func.func @bool_packed() -> tensor<4xi1> {
  // expected-error @+1 {{the blob of dense_resource<b> has 1 bytes of data, but 'tensor<4xi1>' needs 4 bytes}}
  %0 = stablehlo.constant dense_resource<b> : tensor<4xi1>
  return %0 : tensor<4xi1>
}
{-#
  dialect_resources: {
    builtin: {
      b: "0x010000000F"
    }
  }
#-}

// -----

// i4: one byte per element.
func.func @i4_packed() -> tensor<4xi4> {
  // expected-error @+1 {{the blob of dense_resource<q> has 2 bytes of data, but 'tensor<4xi4>' needs 4 bytes}}
  %0 = stablehlo.constant dense_resource<q> : tensor<4xi4>
  return %0 : tensor<4xi4>
}
{-#
  dialect_resources: {
    builtin: {
      q: "0x010000001032"
    }
  }
#-}

// -----

// The same blob used at a second type of another size: that use is refused.
func.func @two_uses() -> (tensor<2xf32>, tensor<4xf32>) {
  %0 = stablehlo.constant dense_resource<w0> : tensor<2xf32>
  // expected-error @+1 {{the blob of dense_resource<w0> has 8 bytes of data, but 'tensor<4xf32>' needs 16 bytes}}
  %1 = stablehlo.constant dense_resource<w0> : tensor<4xf32>
  return %0, %1 : tensor<2xf32>, tensor<4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w0: "0x040000000000803F00000040"
    }
  }
#-}

// -----

// Correct blobs, and __elided__ without one, are accepted.
func.func @fine() -> (tensor<2xf32>, tensor<3xi1>, tensor<2xi4>, tensor<3xf32>, tensor<0xf32>) {
  %0 = stablehlo.constant dense_resource<w0> : tensor<2xf32>
  %1 = stablehlo.constant dense_resource<b> : tensor<3xi1>
  %2 = stablehlo.constant dense_resource<q> : tensor<2xi4>
  %3 = stablehlo.constant dense_resource<__elided__> : tensor<3xf32>
  %4 = stablehlo.constant dense_resource<e> : tensor<0xf32>
  return %0, %1, %2, %3, %4 : tensor<2xf32>, tensor<3xi1>, tensor<2xi4>, tensor<3xf32>, tensor<0xf32>
}
{-#
  dialect_resources: {
    builtin: {
      w0: "0x040000000000803F00000040",
      b: "0x01000000010001",
      q: "0x0100000007F9",
      e: "0x04000000"
    }
  }
#-}
