// RUN: split-file %s %t
// RUN: %expect-exit 1 %motec check %t/undefined.mlir 2>&1 | FileCheck %s --check-prefix=UNDEFINED
// RUN: %expect-exit 1 %motec check %t/located.mlir 2>&1 | FileCheck %s --check-prefix=LOCATED
// RUN: %expect-exit 3 %motec eval %t/collective.mlir 2>&1 | FileCheck %s --check-prefix=DEVICES
// RUN: %expect-exit 3 %motec check %t/dynamic.mlir 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: %expect-exit 1 %motec check %t/syntax.mlir 2>&1 | FileCheck %s --check-prefix=SYNTAX

//--- undefined.mlir
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.add %x, %nope : tensor<3xf32>
  return %0 : tensor<3xf32>
}
// UNDEFINED: undefined.mlir:2:26: error: use of undefined value '%nope'

//--- located.mlir
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.transpose %x, dims = [1] : (tensor<3xf32>) -> tensor<3xf32> loc(#loc2)
  return %0 : tensor<3xf32>
}
#loc1 = loc("model.py":12:7)
#loc2 = loc("jit(f)/transpose"(#loc1))
// LOCATED: located.mlir:2:3: error: {{.*}} is not a permutation {{.*}}(from model.py:12:7)

//--- collective.mlir
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// DEVICES: collective.mlir:2:3: error: 'stablehlo.all_reduce' is not supported on a single device

//--- dynamic.mlir
func.func @main(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = stablehlo.abs %x : tensor<?x3xf32>
  %1 = stablehlo.reshape %0 : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %1 : tensor<?x3xf32>
}
// DYNAMIC: dynamic.mlir:3:3: error: 'stablehlo.reshape': the result shape f32[?,3] is dynamic and nothing here pins it

//--- syntax.mlir
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.add %x, %x : tensor<3xf32
  return %0 : tensor<3xf32>
}
// SYNTAX: syntax.mlir:3:3: error: expected '>' to end the tensor type
