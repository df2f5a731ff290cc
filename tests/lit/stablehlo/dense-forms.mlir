// RUN: %motec eval %s | FileCheck %s
// dense<...> as a hex blob, a splat, nested lists, complex pairs, NaN and
// infinity as bit patterns, and a dense_resource blob.
func.func @main() -> (tensor<2xf32>, tensor<2x2xi8>, tensor<3xf32>, tensor<1xcomplex<f32>>, tensor<2xi16>, tensor<2xi1>) {
  %hex = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
  %splat = stablehlo.constant dense<-7> : tensor<2x2xi8>
  %special = stablehlo.constant dense<[0x7FC00000, 0xFF800000, -2.5e-1]> : tensor<3xf32>
  %complex = stablehlo.constant dense<[(1.5, -2.0)]> : tensor<1xcomplex<f32>>
  %resource = stablehlo.constant dense_resource<blob> : tensor<2xi16>
  %bools = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  return %hex, %splat, %special, %complex, %resource, %bools : tensor<2xf32>, tensor<2x2xi8>, tensor<3xf32>, tensor<1xcomplex<f32>>, tensor<2xi16>, tensor<2xi1>
}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x020000000500FFFF"
    }
  }
#-}
// CHECK: (f32[2], s8[2,2], f32[3], c64[1], s16[2], pred[2])
// CHECK-SAME: ({1, 2}, {{[{][{]}}-7, -7}, {-7, -7}}, {nan, -inf, -0.25}, {(1.5, -2)}, {5, -1}, {true, false})
