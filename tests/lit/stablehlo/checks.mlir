// RUN: split-file %s %t
// RUN: %motec eval %t/passing.mlir | FileCheck %s --check-prefix=PASS
// RUN: %motec eval %t/passing.mlir --lift-inputs | FileCheck %s --check-prefix=PASS
// RUN: %motec print %t/passing.mlir --lift-inputs | FileCheck %s --check-prefix=LIFTED
// RUN: %expect-exit 1 %motec eval %t/failing.mlir 2>&1 | FileCheck %s --check-prefix=FAIL
// RUN: %expect-exit 3 %motec eval %t/probe.mlir 2>&1 | FileCheck %s --check-prefix=PROBE
// A test file's check.* assertions are verified by eval (and run); the entry's
// own results are what is printed and written. check.expect_serialized_eq
// reads the StableHLO interpreter's probe files, which Mote does not write:
// unsupported (exit 3), not a failed check.

//--- passing.mlir
module {
  func.func @main() -> tensor<2xf32> {
    %0 = call @inputs() : () -> tensor<2xf32>
    %1 = stablehlo.multiply %0, %0 : tensor<2xf32>
    %2 = stablehlo.constant dense<[2.25, 4.0]> : tensor<2xf32>
    stablehlo.custom_call @check.expect_close(%1, %2) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
    check.expect_almost_eq_const %1, dense<[2.25, 4.00001]> : tensor<2xf32>
    return %1 : tensor<2xf32>
  }
  func.func private @inputs() -> tensor<2xf32> {
    %c = stablehlo.constant dense<[1.5, -2.0]> : tensor<2xf32>
    return %c : tensor<2xf32>
  }
}
// PASS: f32[2] {2.25, 4}
// LIFTED: ENTRY %main (input: f32[2]) -> (f32[2], pred[], pred[])

//--- failing.mlir
func.func @main() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.add %0, %0 : tensor<2xi32>
  check.expect_eq_const %1, dense<[2, 5]> : tensor<2xi32>
  func.return
}
// FAIL: failing.mlir:4:3: error: check.expect_eq_const failed

//--- probe.mlir
func.func @main() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = interpreter.probe %0, probe_id = "p" : tensor<2xi32>
  check.expect_serialized_eq %1, probe_id = "p" : tensor<2xi32>
  func.return
}
// PROBE: probe.mlir:4:3: error: 'check.expect_serialized_eq': reads back the .npy file interpreter.probe writes {{.*}}; Mote writes no probe files
