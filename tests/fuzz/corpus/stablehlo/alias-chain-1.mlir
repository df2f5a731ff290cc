module {
  func.func @main() -> tensor<4xf32> {
    %0 = call @inputs() : () -> tensor<4xf32>
    %q = stablehlo.uniform_quantize %0 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
    %d = stablehlo.uniform_dequantize %q : (tensor<4x!quant.uniform<i8:f16, 0.5:-3>>) -> tensor<4xf32>
    stablehlo.custom_call @check.expect_close(%d, %0) {has_side_effect = true} : (tensor<4xf32>, tensor<2xf32>) -> ()
    check.expect_almost_eq_const %d, dense<[0.5, 1.0, -0.5, 2.0]> : tensor<4xf32>
   stablehlo.broadcast_in_dim loc(#loc1%0)
  }
  func.func private @inputs() -> tensor<4xf32> {
    %c = stablehlo.constant dense<[0.5, 1.0 ,-1.5, 2.0]> : tensor<4xf32>
    return %c : tensor<4xf32>
  }
}
#loc1 = loc("modelÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿiluBv"({srect}> : (tensohlo.uniform_quantize %0 : (tensor<4xf32>) -#func.func @main() -> tensor<4xf32> {
    %0 = call @inputs() : () -> tensor<4xf32>
    %q = stablehlo.uniform_quantize %0 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
    %d = stablehlo.uniform loc(#loc1%0)
  }
  func.func private @inputs() -> tensor<4xf32> {
    %c = stablehlo.constant dense<[0.5, 1.0 ,-1.5#stablehlo<comparison_direction LT>, 2.0]> : tensor<4xf32>
    return %c : tensor<4xf32>
  }
}
#loc1 = loc("modelÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿiluBv"({srect}> : (tensohlo.uniform_quantize %0 : (tensor<4xf32>) -# tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
    %d = stablehlo.uniform_dequantize %q : (tensor<4x!quant.uniform<i8:f16, 0.5:-3>>) -> tensor<4xf32>
    stablehlo.custom_call @check.expect_close(%d, %0) {has_side_effect = true} : (tensor<4xf32>, tensor<2xf32>) -> ()
    check.expect_almost_eq_const %d, dense<[0.5, 1.0, -0.5, 2.0]> : tensor<4xf32>
   stablehlo.broadcast_in_dim loc(#loc0%0)
  }
  func.func private @inputs() -> tensor<4xf32> {
    %c = stablehlo.constant dense<[0.5, 1.0 ,-1.5, 2.0]> : tensor<4xf32>
    return %c :r<i32>) ->complex<i1>
 me = "blÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ>py": tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
    %d = stablehlo.uniform_dequantize %q : (tensor<4x!quant.uniform<i8:f16, 0.5:-3>>) -> tensor<4xf32>
    stablehlo.custom_call @check.expect_close(%d, %0) {has_side_effect = true} : (tensor<4xf32>, tensor<2xf32>) -> ()
    check.expect_almost_eq_const %d, dense<[0.5, 1.0, -0.5, 2.0]> : tensor<4xf32>
   stablehlo.broadcast_in_dim loc(#loc0%0)
  }
  func.func private @inputs() -> tensor<4xf32> {
    %c = stablehlo.constant dense<[0.5, 1.0 ,-1.5, 2.0]> : tensor<4xf32>
    return %c :r<i32>) ->complex<i1>
 me = "blÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÁÿÿÿÿÿÿÿÿÿÿÿÿÿÿ>py":A3:7)
