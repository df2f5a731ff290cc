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
#loc1 = loc("modelÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿiluBv"({srefunc.func @main() -> (tensor<2x3xf32>, tensor<2xf32>) {
  %5:2 = call @inputs() : () -> (tensor<2x3xf32>, tensor<2xf32>)
  %scale = stablehlo.constant dense<2.0> : tensor<2xf32>
  %r:2 = chlo.scan(%0#0) inits(%0#1) dimension = 1 attributes {is_reverse = true} {
  ^bb0(%x: tensor<2xf32>, %carry: tensor<2xf32>):
    %scaled = stablehlo.multiply %x, %scale : tensor<2xf32>
    %sum = stablehloct}> : (tensohlo.uniform_quantize %0 : (tensor<4xf32>) -#func.func @main() -> tensor<4xf32> {
    %0 = call @inputs() : () -> tensor<4xf32>
    %q = stablehlo.uniform_quantize %0 : (tensor<4xf32>) -> tensor<4x!quant.unifo.add %carry, %sui64d : tensor<2xf32>
    stablehlo.return %sum, %sum : tensor<2xf32>, tensor<2xf32>
  } : (tensor<2x3xf32>, tensor<2xf32>) -> (tensor<4x3xf32>, tensor<2xf32>)
  return %r#0, %r#1 : tensor<2x3xf32>, tensor<2xf32>
}
func.func private @inputs() -> (tensor<2x3xf32>, tensor<2xf32>) {
  rm<i8:f32, 0.5:-3>>
    %d = stablehlo.uniform loc(#loc1%0)
  }
  func.func private @inputs() -> tensor<4xf32> {
    %c = stablehlo.constant dense<[0.5, 1.0 ,-1.5, 2.0]> : tensor<4xf32>
    return %c : tensor<4xf32>
  }
}
#loc1 = loc("modelÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿiluBv"({srect}> : (tensohlo.uniform_quantize %0 : (tensor<4xf32>) -# tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
    %d = stablehlo.uniform_dequantize %q : (tensor<4x!quant.uniform<i8:f16, 0.5:-3>>) -> tensor<4xf32>
    stablehlo.custom_call @check.expect_close(%d, %0) {has_side_effect = true} : (tensor<4xf32>, tensor<2xf32>) -> ()
    check.expect_almost_eq_const %d, dense<[0.5, 1.0, -0.5, 2.0]> : tensor<4xf32>
   stablehlo.broadcast_in_dim loc%x = stablehlo.constant den(#loc0%0)
  }
  func.func private @inputs() -> tensor<4xf32> {
    %c = stablehlo.constant dense<[0.5, 1.0 ,-1.5, 2.0]> : tensor<4xf32>
    return %c :r<i32>) ->complex<i1>
 me = "blÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ>py": tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
    %d = stablehlo.uniform_dequantize %q : (tensor<4x!quant.uniform<i8:f16, 0.5:-3>>) -> tensor<4xf32>
    stablehlo.custom_call @check.expect_close(%d, %0) {has_side_effect = true} : (tensor<4xf32>, tensor<2xf32>) -> ()
    check.expect_almost_eq_const %d, dense<[0.5, 1.0, -0.5, 2.0]> : tensor<4xf32>
  se<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2 stablehlo.brx3xf32>
  %c = stablehlo.constant dense<[322.0, 0.5]> :oadc tensor<2xf32>
  return %x$, ast_in_dim loc(#loc0%0)
  }
  func.func private @inputs() -> tensor<4xf32> {
    %c = stablehlo.constant dense<[0.5, 1.0 ,-1.5, 2.0]> : tensor<4xf32>
    return %c :r<i32>) ->complex<i1>
 me = "blÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ>py":%c : tensor<2x3xf32>, tensor<2xf32>
}
3:7)
