// RUN: split-file %s %t
// RUN: %motec eval %t/rows.mlir | FileCheck %s --check-prefix=ROWS
// RUN: %motec run %t/rows.mlir --lift-inputs --target=x86_64-linux-gnu | FileCheck %s --check-prefix=ROWS
// RUN: %motec eval %t/batched.mlir | FileCheck %s --check-prefix=BATCHED
// RUN: %motec run %t/batched.mlir --lift-inputs --target=x86_64-linux-gnu | FileCheck %s --check-prefix=BATCHED
// RUN: %motec eval %t/contracting.mlir | FileCheck %s --check-prefix=CONTRACTING
// RUN: %motec run %t/contracting.mlir --lift-inputs --target=x86_64-linux-gnu | FileCheck %s --check-prefix=CONTRACTING
// RUN: %motec eval %t/contracting-batched.mlir | FileCheck %s --check-prefix=CONTRACTING-BATCHED
// RUN: %motec run %t/contracting-batched.mlir --lift-inputs --target=x86_64-linux-gnu | FileCheck %s --check-prefix=CONTRACTING-BATCHED
// RUN: %expect-exit 3 %motec eval %t/batch.mlir 2>&1 | FileCheck %s --check-prefix=BATCH
// chlo.ragged_dot: runs of lhs rows times their group's matrix. Group 1 is
// empty and holds an infinity that must not reach other rows (as 0 * inf);
// row 4 is in no group and comes out zero. The batched form has a set of
// group sizes per batch. With a ragged contracting dimension each group
// contracts over its run only (rhs row 3, in no run, holds an infinity);
// a ragged batch dimension is refused.

//--- rows.mlir
func.func @main() -> tensor<5x2xf32> {
  %0:3 = call @inputs() : () -> (tensor<5x2xf32>, tensor<3x2x2xf32>, tensor<3xi32>)
  %r = "chlo.ragged_dot"(%0#0, %0#1, %0#2) {
    ragged_dot_dimension_numbers = #chlo.ragged_dot<
      lhs_batching_dimensions = [], rhs_batching_dimensions = [],
      lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1],
      lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>,
    precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]
  } : (tensor<5x2xf32>, tensor<3x2x2xf32>, tensor<3xi32>) -> tensor<5x2xf32>
  check.expect_eq_const %r, dense<[[1.0, 2.0], [3.0, 4.0], [6.0, 5.0], [8.0, 7.0], [0.0, 0.0]]> : tensor<5x2xf32>
  return %r : tensor<5x2xf32>
}
func.func private @inputs() -> (tensor<5x2xf32>, tensor<3x2x2xf32>, tensor<3xi32>) {
  %lhs = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0], [9.0, 10.0]]> : tensor<5x2xf32>
  %rhs = stablehlo.constant dense<[[[1.0, 0.0], [0.0, 1.0]], [[0x7F800000, 0.0], [0.0, 2.0]], [[0.0, 1.0], [1.0, 0.0]]]> : tensor<3x2x2xf32>
  %sizes = stablehlo.constant dense<[2, 0, 2]> : tensor<3xi32>
  return %lhs, %rhs, %sizes : tensor<5x2xf32>, tensor<3x2x2xf32>, tensor<3xi32>
}
// ROWS: f32[5,2] {{[{][{]}}1, 2}, {3, 4}, {6, 5}, {8, 7}, {0, 0}}

//--- batched.mlir
func.func @main() -> tensor<2x3x1xi32> {
  %0:3 = call @inputs() : () -> (tensor<2x3x2xi32>, tensor<2x2x2x1xi32>, tensor<2x2xi64>)
  %r = "chlo.ragged_dot"(%0#0, %0#1, %0#2) {
    ragged_dot_dimension_numbers = #chlo.ragged_dot<
      lhs_batching_dimensions = [0], rhs_batching_dimensions = [1],
      lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2],
      lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]>
  } : (tensor<2x3x2xi32>, tensor<2x2x2x1xi32>, tensor<2x2xi64>) -> tensor<2x3x1xi32>
  check.expect_eq_const %r, dense<[[[1], [20], [30]], [[3], [7], [11]]]> : tensor<2x3x1xi32>
  return %r : tensor<2x3x1xi32>
}
func.func private @inputs() -> (tensor<2x3x2xi32>, tensor<2x2x2x1xi32>, tensor<2x2xi64>) {
  %lhs = stablehlo.constant dense<[[[1, 1], [2, 2], [3, 3]], [[1, 2], [3, 4], [5, 6]]]> : tensor<2x3x2xi32>
  %rhs = stablehlo.constant dense<[[[[1], [0]], [[1], [1]]], [[[0], [10]], [[100], [100]]]]> : tensor<2x2x2x1xi32>
  %sizes = stablehlo.constant dense<[[1, 2], [3, 0]]> : tensor<2x2xi64>
  return %lhs, %rhs, %sizes : tensor<2x3x2xi32>, tensor<2x2x2x1xi32>, tensor<2x2xi64>
}
// BATCHED: s32[2,3,1] {{[{][{][{]}}1}, {20}, {30}}, {{[{][{]}}3}, {7}, {11}}}

//--- contracting.mlir
func.func @main() -> tensor<2x2x1xf32> {
  %0:3 = call @inputs() : () -> (tensor<2x4xf32>, tensor<4x1xf32>, tensor<2xi32>)
  %r = "chlo.ragged_dot"(%0#0, %0#1, %0#2) {
    ragged_dot_dimension_numbers = #chlo.ragged_dot<
      lhs_batching_dimensions = [], rhs_batching_dimensions = [],
      lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0],
      lhs_ragged_dimensions = [1], rhs_group_dimensions = []>
  } : (tensor<2x4xf32>, tensor<4x1xf32>, tensor<2xi32>) -> tensor<2x2x1xf32>
  check.expect_eq_const %r, dense<[[[21.0], [65.0]], [[300.0], [700.0]]]> : tensor<2x2x1xf32>
  return %r : tensor<2x2x1xf32>
}
func.func private @inputs() -> (tensor<2x4xf32>, tensor<4x1xf32>, tensor<2xi32>) {
  %lhs = stablehlo.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  %rhs = stablehlo.constant dense<[[1.0], [10.0], [100.0], [0x7F800000]]> : tensor<4x1xf32>
  %sizes = stablehlo.constant dense<[2, 1]> : tensor<2xi32>
  return %lhs, %rhs, %sizes : tensor<2x4xf32>, tensor<4x1xf32>, tensor<2xi32>
}
// CONTRACTING: f32[2,2,1] {{[{][{][{]}}21}, {65}}, {{[{][{]}}300}, {700}}}

//--- contracting-batched.mlir
func.func @main() -> tensor<2x2x1x1xi32> {
  %0:3 = call @inputs() : () -> (tensor<2x1x3xi32>, tensor<2x3x1xi32>, tensor<2x2xi32>)
  %r = "chlo.ragged_dot"(%0#0, %0#1, %0#2) {
    ragged_dot_dimension_numbers = #chlo.ragged_dot<
      lhs_batching_dimensions = [0], rhs_batching_dimensions = [0],
      lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1],
      lhs_ragged_dimensions = [2], rhs_group_dimensions = []>
  } : (tensor<2x1x3xi32>, tensor<2x3x1xi32>, tensor<2x2xi32>) -> tensor<2x2x1x1xi32>
  check.expect_eq_const %r, dense<[[[[1]], [[30]]], [[[5]], [[0]]]]> : tensor<2x2x1x1xi32>
  return %r : tensor<2x2x1x1xi32>
}
func.func private @inputs() -> (tensor<2x1x3xi32>, tensor<2x3x1xi32>, tensor<2x2xi32>) {
  %lhs = stablehlo.constant dense<[[[1, 1, 1]], [[2, 2, 2]]]> : tensor<2x1x3xi32>
  %rhs = stablehlo.constant dense<[[[1], [2], [3]], [[4], [5], [6]]]> : tensor<2x3x1xi32>
  %sizes = stablehlo.constant dense<[[1, 2], [3, 0]]> : tensor<2x2xi32>
  return %lhs, %rhs, %sizes : tensor<2x1x3xi32>, tensor<2x3x1xi32>, tensor<2x2xi32>
}
// CONTRACTING-BATCHED: s32[2,2,1,1] {{[{][{][{][{]}}1}}, {{[{][{]}}30}}}, {{[{][{][{]}}5}}, {{[{][{]}}0}}}}

//--- batch.mlir
func.func @main(%lhs: tensor<2x3x4xf32>, %rhs: tensor<2x4x5xf32>, %sizes: tensor<2xi32>) -> tensor<2x3x5xf32> {
  %r = "chlo.ragged_dot"(%lhs, %rhs, %sizes) {
    ragged_dot_dimension_numbers = #chlo.ragged_dot<
      lhs_batching_dimensions = [0], rhs_batching_dimensions = [0],
      lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1],
      lhs_ragged_dimensions = [0], rhs_group_dimensions = []>
  } : (tensor<2x3x4xf32>, tensor<2x4x5xf32>, tensor<2xi32>) -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}
// BATCH: batch.mlir:2:3: error: 'chlo.ragged_dot': ragged_dot with a ragged batch dimension
