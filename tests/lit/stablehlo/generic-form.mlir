// RUN: %motec eval %s | FileCheck %s
// The generic form, regions with block arguments, and a while loop whose
// regions read a value from outside (carried in the loop's tuple).
"builtin.module"() ({
  "func.func"() <{function_type = () -> (tensor<3xi32>, tensor<i64>), sym_name = "main"}> ({
    %0 = "stablehlo.constant"() <{value = dense<[3, 1, 2]> : tensor<3xi32>}> : () -> tensor<3xi32>
    %1 = "stablehlo.sort"(%0) <{dimension = 0 : i64}> ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %c = "stablehlo.compare"(%a, %b) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%c) : (tensor<i1>) -> ()
    }) : (tensor<3xi32>) -> tensor<3xi32>
    %zero = "stablehlo.constant"() <{value = dense<0> : tensor<i64>}> : () -> tensor<i64>
    %limit = "stablehlo.constant"() <{value = dense<5> : tensor<i64>}> : () -> tensor<i64>
    %step = "stablehlo.add"(%limit, %limit) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %r = "stablehlo.while"(%zero) ({
    ^bb0(%i: tensor<i64>):
      %lt = "stablehlo.compare"(%i, %limit) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i64>, tensor<i64>) -> tensor<i1>
      "stablehlo.return"(%lt) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<i64>):
      %n = "stablehlo.add"(%i, %step) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      "stablehlo.return"(%n) : (tensor<i64>) -> ()
    }) : (tensor<i64>) -> tensor<i64>
    "func.return"(%1, %r) : (tensor<3xi32>, tensor<i64>) -> ()
  }) : () -> ()
}) : () -> ()
// CHECK: (s32[3], s64[]) ({1, 2, 3}, 10)
