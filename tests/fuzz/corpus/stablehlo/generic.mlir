"builtin.module"() <{sym_name = "m"}> ({
  "func.func"() <{function_type = (tensor<3xi32>) -> tensor<3xi32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<3xi32>):
    %0 = "stablehlo.constant"() <{value = dense<"0x010000000200000003000000"> : tensor<3xi32>}> : () -> tensor<3xi32>
    %1 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %2 = "stablehlo.compare"(%a, %b) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%2) : (tensor<i1>) -> ()
    }) : (tensor<3xi32>) -> tensor<3xi32>
    %3 = "stablehlo.add"(%1, %0) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    "func.return"(%3) : (tensor<3xi32>) -> ()
  }) : () -> ()
}) : () -> ()
