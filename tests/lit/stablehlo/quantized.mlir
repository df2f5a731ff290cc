// RUN: %motec print %s | FileCheck %s
// RUN: %motec eval %s | FileCheck %s --check-prefix=EVAL
// A quantized dot_general runs on the integers: s8 operands less their zero
// points contract in s32, and the requantize to s8 is convert to f32,
// multiply by the scale ratio, add the zero point, round, clamp, convert.
func.func @main() -> tensor<2xf32> {
  %x = stablehlo.constant dense<[[0.5, -1.0, 2.0]]> : tensor<1x3xf32>
  %w = stablehlo.constant dense<[[1.0, 0.5], [0.25, -1.0], [2.0, 1.5]]> : tensor<3x2xf32>
  %qx = stablehlo.uniform_quantize %x : (tensor<1x3xf32>) -> tensor<1x3x!quant.uniform<i8:f32, 0.03125:-1>>
  %qw = stablehlo.uniform_quantize %w : (tensor<3x2xf32>) -> tensor<3x2x!quant.uniform<i8:f32, 0.0625>>
  %acc = stablehlo.dot_general %qx, %qw, contracting_dims = [1] x [0] : (tensor<1x3x!quant.uniform<i8:f32, 0.03125:-1>>, tensor<3x2x!quant.uniform<i8:f32, 0.0625>>) -> tensor<1x2x!quant.uniform<i32:f32, 0.001953125>>
  %q = stablehlo.uniform_quantize %acc : (tensor<1x2x!quant.uniform<i32:f32, 0.001953125>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.125:3>>
  %y = stablehlo.uniform_dequantize %q : (tensor<1x2x!quant.uniform<i8:f32, 0.125:3>>) -> tensor<1x2xf32>
  %r = stablehlo.reshape %y : (tensor<1x2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}
// CHECK: = s32[1,3] convert(
// CHECK-NEXT: = s32[] constant(-1)
// CHECK: = s32[1,3] subtract(
// CHECK: = s32[1,2] dot(
// CHECK-NEXT: = f32[1,2] convert(%dot)
// CHECK-NEXT: = f32[] constant(0.015625)
// CHECK: = f32[1,2] multiply(
// CHECK: = f32[1,2] add(
// CHECK-NEXT: = f32[1,2] round-nearest-even(
// CHECK: = f32[1,2] clamp(
// CHECK-NEXT: = s8[1,2] convert(
// 0.5*1 - 1*0.25 + 2*2 = 4.25 and 0.25 + 1 + 3 = 4.25: quantized to 4.25 each.
// EVAL: f32[2] {4.25, 4.25}
