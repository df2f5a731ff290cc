// RUN: %motec eval %s | FileCheck %s
// RUN: %motec run %s --lift-inputs --target=x86_64-linux-gnu | FileCheck %s
// RUN: %motec print %s --emit=hlo | FileCheck %s --check-prefix=HLO
// chlo.asin on complex values is CHLO's decomposition (atan2 and log1p of
// forms that do not cancel), so results are within 3 ulp of XLA's: these
// inputs and expected values are four of JAX's asin_complex64 testdata,
// the first one 4 ulp away in glibc's casinf. Real operands keep the asin
// opcode.

func.func @main() -> (tensor<4xcomplex<f32>>, tensor<2xf32>) {
  %0:2 = call @inputs() : () -> (tensor<4xcomplex<f32>>, tensor<2xf32>)
  %1 = chlo.asin %0#0 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
  %2 = chlo.asin %0#1 : tensor<2xf32> -> tensor<2xf32>
  %expected = stablehlo.constant dense<[(0x3DF31D51, 0xC012054B), (0xBDED95EA, 0xBF4F4A35), (0xBDC8B23F, 0x3FE56764), (0xBE7C8424, 0x400BA557)]> : tensor<4xcomplex<f32>>
  stablehlo.custom_call @check.expect_close(%1, %expected) {has_side_effect = true} : (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) -> ()
  check.expect_almost_eq_const %2, dense<[0.5235988, -1.5707964]> : tensor<2xf32>
  return %1, %2 : tensor<4xcomplex<f32>>, tensor<2xf32>
}
func.func private @inputs() -> (tensor<4xcomplex<f32>>, tensor<2xf32>) {
  %z = stablehlo.constant dense<[(0x3F15FC6F, 0xC099F2B4), (0xBE1F8D86, 0xBF652536), (0xBE9A85DC, 0x4039DC72), (0xBF8C3D15, 0x4087C75D)]> : tensor<4xcomplex<f32>>
  %x = stablehlo.constant dense<[0.5, -1.0]> : tensor<2xf32>
  return %z, %x : tensor<4xcomplex<f32>>, tensor<2xf32>
}
// CHECK: (c64[4], f32[2]) ({(0.1187
// HLO-DAG: atan2(
// HLO-DAG: log-plus-one(
// HLO-DAG: f32[2] asin(
