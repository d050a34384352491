import numpy as np
rng=np.random.default_rng(7)
x=rng.standard_normal((2,3,4)).astype(np.float32)
scale=rng.standard_normal(3).astype(np.float32); off=rng.standard_normal(3).astype(np.float32)
gy=rng.standard_normal((2,3,4)).astype(np.float32)
eps=np.float32(0.001); fi=1
ax=(0,2)
def b(v): return v.reshape(1,3,1)
mean=x.mean(axis=ax); var=((x-b(mean))**2).mean(axis=ax)
out=b(scale)*(x-b(mean))/np.sqrt(b(var)+eps)+b(off)
# grad
n=x.size/3
c=x-b(mean); sd=np.sqrt(b(var)+eps)
i1=gy*n; i2=b(gy.sum(axis=ax)); i3=b((gy*c).sum(axis=ax)); i5=i3*c/(b(var)+eps)
gx=b(scale)/sd/n*(i1-i2-i5); gs=(gy*c/sd).sum(axis=ax); go=gy.sum(axis=ax)
def d(a): return "dense<"+np.array2string(np.asarray(a,dtype=np.float64), separator=', ', threshold=10**6, floatmode='unique').replace('\n','')+">"
T="tensor<2x3x4xf32>"; V="tensor<3xf32>"
print(f"""// Expanded by the expand pass at every -O level; values from NumPy
// (Inputs/gen_batch_norm.py).
// RUN: %tpurun -O0 --check %s | FileCheck %s
// RUN: %tpurun -O2 --check %s | FileCheck %s
// CHECK: checks: 6 passed, 0 failed
func.func @main() {{
  %x = stablehlo.constant {d(x)} : {T}
  %scale = stablehlo.constant {d(scale)} : {V}
  %offset = stablehlo.constant {d(off)} : {V}
  %gy = stablehlo.constant {d(gy)} : {T}
  %out:3 = "stablehlo.batch_norm_training"(%x, %scale, %offset) {{epsilon = 0.001 : f32, feature_index = 1 : i64}} : ({T}, {V}, {V}) -> ({T}, {V}, {V})
  check.expect_almost_eq_const %out#0, {d(out)} : {T}
  check.expect_almost_eq_const %out#1, {d(mean)} : {V}
  check.expect_almost_eq_const %out#2, {d(var)} : {V}
  %inf = "stablehlo.batch_norm_inference"(%x, %scale, %offset, %out#1, %out#2) {{epsilon = 0.001 : f32, feature_index = 1 : i64}} : ({T}, {V}, {V}, {V}, {V}) -> {T}
  check.expect_almost_eq_const %inf, {d(out)} : {T}
  %g:3 = "stablehlo.batch_norm_grad"(%x, %scale, %out#1, %out#2, %gy) {{epsilon = 0.001 : f32, feature_index = 1 : i64}} : ({T}, {V}, {V}, {V}, {T}) -> ({T}, {V}, {V})
  check.expect_almost_eq_const %g#0, {d(gx)} : {T}
  check.expect_almost_eq_const %g#1, {d(gs)} : {V}
  func.return
}}""")
