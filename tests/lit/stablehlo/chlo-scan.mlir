// RUN: split-file %s %t
// RUN: %motec eval %t/reverse.mlir | FileCheck %s --check-prefix=REVERSE
// RUN: %motec run %t/reverse.mlir --lift-inputs --target=x86_64-linux-gnu | FileCheck %s --check-prefix=REVERSE
// RUN: %motec eval %t/generic.mlir | FileCheck %s --check-prefix=GENERIC
// RUN: %expect-exit 1 %motec eval %t/arguments.mlir 2>&1 | FileCheck %s --check-prefix=ARGUMENTS
// chlo.scan becomes a while loop: a reversed scan along dimension 1 whose
// region reads a value defined outside it, the generic form with
// operandSegmentSizes, and a region that takes the wrong arguments.

//--- reverse.mlir
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
// REVERSE: (f32[2,3], f32[2]) ({{[{][{]}}112, 110, 106}, {30.5, 22.5, 12.5}}, {112, 30.5})

//--- generic.mlir
func.func @main() -> (tensor<3xi32>, tensor<i32>) {
  %x = stablehlo.constant dense<[2, 3, 4]> : tensor<3xi32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r:2 = "chlo.scan"(%x, %one) <{dimension = 0 : i64, operandSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%v: tensor<i32>, %product: tensor<i32>):
    %p = "stablehlo.multiply"(%product, %v) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "stablehlo.return"(%p, %p) : (tensor<i32>, tensor<i32>) -> ()
  }) : (tensor<3xi32>, tensor<i32>) -> (tensor<3xi32>, tensor<i32>)
  return %r#0, %r#1 : tensor<3xi32>, tensor<i32>
}
// GENERIC: (s32[3], s32[]) ({2, 6, 24}, 24)

//--- arguments.mlir
func.func @main(%x: tensor<3xi32>, %init: tensor<i32>) -> tensor<3xi32> {
  %r:2 = chlo.scan(%x) inits(%init) dimension=0 {
  ^bb0(%v: tensor<i32>):
    stablehlo.return %v, %v : tensor<i32>, tensor<i32>
  } : (tensor<3xi32>, tensor<i32>) -> (tensor<3xi32>, tensor<i32>)
  return %r#0 : tensor<3xi32>
}
// ARGUMENTS: arguments.mlir:2:3: error: 'chlo.scan': the region takes 1 arguments for 1 inputs and 1 carries
