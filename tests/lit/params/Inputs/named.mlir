// A predict step as jax.jit(f).lower(params, x).as_text() prints it: the
// weights' pytree paths in jax.arg_info, the results' in jax.result_info.
module @jit_predict attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x2xf32> {jax.arg_info = "params['dense']['kernel']", mhlo.sharding = "{replicated}"}, %arg1: tensor<2xf32> {jax.arg_info = "params['dense']['bias']", mhlo.sharding = "{replicated}"}, %arg2: tensor<1x2xf32> {jax.arg_info = "x", mhlo.sharding = "{replicated}"}) -> (tensor<1x2xf32> {jax.result_info = "['logits']"}, tensor<1x2xf32> {jax.result_info = "['probe']"}) {
    %0 = stablehlo.dot_general %arg2, %arg0, contracting_dims = [1] x [0] : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<2xf32>) -> tensor<1x2xf32>
    %2 = stablehlo.add %0, %1 : tensor<1x2xf32>
    %3 = stablehlo.subtract %2, %2 : tensor<1x2xf32>
    return %2, %3 : tensor<1x2xf32>, tensor<1x2xf32>
  }
}
