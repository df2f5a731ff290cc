module {
  func.func @main() -> tensor<4xf32> {
    %0 = call @inputs() : () -> tensor<4xf32>
    %q = stablehlo.uniform_quantize %0 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
    %d = stablehlo.uniform_dequantize %q : (tensor<4x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<4xf32>
    stablehlo.custom_call @check.expect_close(%d, %0) {has_side_effect = true} : (tensor<4xf32>, tensor<4xf32>) -> ()
    check.expect_almost_eq_const %d, dense<[0.5, 1.0, -1.5, 2.0]> : tensor<4xf32>
    return %d : tensor<4xf32> loc(#loc1)
  }
  func.func private @inputs() -> tensor<4xf32> {
    %c = stablehlo.constant dense<[0.5, 1.0, -1.5, 2.0]> : tensor<4xf32>
    return %c : tensor<4xf32>
  }
}
#loc1 = loc("model.py":3:7)
