// RUN: %motec print %s --emit=hlo | FileCheck %s
// RUN: %make-npy '<f4' 2,3 1,2,3,4,5,6 %t.x.npy
// RUN: %motec eval %s --input %t.x.npy | FileCheck %s --check-prefix=EVAL
// The pretty form JAX prints becomes HLO: broadcast_in_dim with a stretched
// size-1 dimension is a reshape and a broadcast, reduce's `applies` is a
// computation, private functions are calls.
module @jit_f attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32> {mhlo.layout_mode = "default"}) -> (tensor<2xf32> {jax.result_info = ""}) {
    %cst = stablehlo.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<2x3xf32>
    %1 = call @scale(%arg0, %0) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    return %2 : tensor<2xf32>
  }
  func.func private @scale(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %0 = stablehlo.multiply %a, %b : tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
}
// CHECK: HloModule jit_f
// CHECK: %scale
// CHECK: multiply
// CHECK: ENTRY %main
// CHECK: f32[3] reshape(
// CHECK: f32[2,3] broadcast({{.*}}), dimensions={1}
// CHECK: call({{.*}}), to_apply=%scale
// CHECK: f32[2] reduce({{.*}}), dimensions={1}, to_apply=
// EVAL: f32[2] {14, 32}
