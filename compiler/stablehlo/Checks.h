//===- Checks.h - The StableHLO test suites' assertions ---------*- C++ -*-===//
///
/// \file
/// `check.expect_eq`, `expect_almost_eq`, `expect_close`, their `_const`
/// forms and the `check.eq` custom call become HLO computing one pred[] per
/// check (true when every element passes), with the reference interpreter's
/// rules: exact equality (a NaN matching a NaN); |a - b| <= tolerance with equal signs for almost
/// equal (0.001 for the custom call, 0.0001 by default otherwise); a ULP
/// distance within [min, max] ([0, 3] for the custom call) for close, where
/// NaN is close to NaN whatever its payload.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_STABLEHLO_CHECKS_H
#define MOTE_STABLEHLO_CHECKS_H

#include "stablehlo/Converter.h"

namespace mote::stablehlo {

/// `stablehlo.custom_call @check.*(...)`.
llvm::Error lowerCheckCustomCall(OpContext &context, llvm::StringRef target);

} // namespace mote::stablehlo

#endif // MOTE_STABLEHLO_CHECKS_H
