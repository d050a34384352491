"""Prints a module whose @f calls 100 distinct functions in a chain, each
of which needs a 4 MiB temporary (buffer_assign.mlir's call-table test)."""
T = "tensor<1024x1024xf32>"
N = 100
print(f"func.func @main(%x: {T}) -> {T} {{")
print(f"  %0 = func.call @f(%x) : ({T}) -> {T}")
print(f"  return %0 : {T}\n}}")
print(f"func.func private @f(%x: {T}) -> {T} {{")
prev = "%x"
for k in range(N):
    print(f"  %v{k} = func.call @g{k}({prev}) : ({T}) -> {T}")
    prev = f"%v{k}"
print(f"  return {prev} : {T}\n}}")
for k in range(N):
    print(f"func.func private @g{k}(%x: {T}) -> {T} {{")
    print(f"  %0 = stablehlo.transpose %x, dims = [1, 0] : ({T}) -> {T}")
    print(f"  %1 = stablehlo.transpose %0, dims = [1, 0] : ({T}) -> {T}")
    print(f"  return %1 : {T}\n}}")
