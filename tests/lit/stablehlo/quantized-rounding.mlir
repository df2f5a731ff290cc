// RUN: %motec eval %s | FileCheck %s
// RUN: %motec run %s --target=x86_64-linux-gnu | FileCheck %s
// Requantizing the s32 accumulator adds the zero point before rounding, as
// the spec's quantize does: 5 * 0.5 = 2.5 into scale 1 with zero point 1 is
// round(2.5 + 1) = 4, which dequantizes to 3 (rounding 2.5 to even first
// and adding 1 after would give 3, i.e. 2.0); -2.5 likewise becomes -3.
func.func @main() -> tensor<2x1xf32> {
  %x = stablehlo.constant dense<[[5.0], [-5.0]]> : tensor<2x1xf32>
  %w = stablehlo.constant dense<[[0.5]]> : tensor<1x1xf32>
  %qx = stablehlo.uniform_quantize %x : (tensor<2x1xf32>) -> tensor<2x1x!quant.uniform<i8:f32, 1.0>>
  %qw = stablehlo.uniform_quantize %w : (tensor<1x1xf32>) -> tensor<1x1x!quant.uniform<i8:f32, 0.5>>
  %acc = stablehlo.dot_general %qx, %qw, contracting_dims = [1] x [0] : (tensor<2x1x!quant.uniform<i8:f32, 1.0>>, tensor<1x1x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x1x!quant.uniform<i8:f32, 1.0:1>>
  %y = stablehlo.uniform_dequantize %acc : (tensor<2x1x!quant.uniform<i8:f32, 1.0:1>>) -> tensor<2x1xf32>
  return %y : tensor<2x1xf32>
}
// CHECK: f32[2,1] {{[{][{]}}3}, {-3}}
