func.func @main() -> (tensor<2x3xf32>, tensor<2xf32>) {
  %0:2 = call @inputs() : () -> (tensor<2x3xf32>, tensor<2xf32>)
  %scale = stablehlo.constant dense<2.0> : tensor<2xf32>
  %r:2 = chlo.scan(%0#0) inits(%0#1) dimension = 1 attributes {is_reverse = true} {
  ^bb0(%x: tensor<2xf32>, %carry: tensor<2xf32>):
    %scaled = stablehlo.multiply %x, %scale : tensor<2xf32>
    %sum = stablehlo.add %carry, %scaled : tensor<2xf32>
    stablehlo.return %sum, %sum : tensor<2xf32>, tensor<2xf32>
  } : (tensor<2x3xf32>, tensor<2xf32>) -> (tensor<2x3xf32>, tensor<2xf32>)
  return %r#0, %r#1 : tensor<2x3xf32>, tensor<2xf32>
}
func.func private @inputs() -> (tensor<2x3xf32>, tensor<2xf32>) {
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %c = stablehlo.constant dense<[100.0, 0.5]> : tensor<2xf32>
  return %x, %c : tensor<2x3xf32>, tensor<2xf32>
}
