// RUN: %make-npy '<f4' 2,3 1,-2,3,-4,5,-6 %t.x.npy
// RUN: %motec eval %s --input %t.x.npy | FileCheck %s
// A shape-polymorphic function called with static arguments is converted for
// them: its shape computations fold and its dynamic ops become static.
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = call @f(%x) : (tensor<2x3xf32>) -> tensor<?x3xf32>
  %1 = stablehlo.convert %0 : (tensor<?x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
func.func private @f(%a: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = stablehlo.abs %a : tensor<?x3xf32>
  %d = stablehlo.get_dimension_size %0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
  %d1 = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
  %three = stablehlo.constant dense<3> : tensor<1xi32>
  %shape = stablehlo.concatenate %d1, %three, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %c = stablehlo.constant dense<2.0> : tensor<f32>
  %b = stablehlo.dynamic_broadcast_in_dim %c, %shape, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x3xf32>
  %2 = stablehlo.multiply %0, %b : tensor<?x3xf32>
  return %2 : tensor<?x3xf32>
}
// CHECK: f32[2,3] {{[{][{]}}2, 4, 6}, {8, 10, 12}}
