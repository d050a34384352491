// Constant folding against the VM, over edge values of every integer width
// and float format the folder handles, and shape ops on sub-byte, 16-bit
// and complex elements: Inputs/fold_vs_vm.py writes a program that computes
// each op once on constants (folded) and once behind an
// optimization_barrier (run by the VM) and checks the bits agree.
// RUN: %python %S/Inputs/fold_vs_vm.py > %t.mlir
// Every op on constants folds; only the VM-side ops remain:
// RUN: %tpucc --passes=canonicalize --verify-each --emit=mlir %t.mlir | FileCheck %t.mlir --check-prefix=FOLDED
// RUN: %tpurun --passes=canonicalize --check %t.mlir | FileCheck %s --implicit-check-not=FAIL
// RUN: %tpurun -O2 --check %t.mlir | FileCheck %s --implicit-check-not=FAIL
// CHECK: checks: 740 passed, 0 failed
