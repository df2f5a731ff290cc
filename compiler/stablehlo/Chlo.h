//===- Chlo.h - CHLO ops as HLO ---------------------------------*- C++ -*-===//
#ifndef MOTE_STABLEHLO_CHLO_H
#define MOTE_STABLEHLO_CHLO_H

#include "stablehlo/Converter.h"

namespace mote::stablehlo {

/// `x` broadcast numpy-style to the dimensions of `result` (trailing
/// dimensions, or the op's `broadcast_dimensions`).
llvm::Expected<hlo::Instruction *> broadcastTo(OpContext &context, hlo::Instruction *x,
                                               const hlo::Shape &result);

/// lgamma, digamma, erf_inv, erfc, bessel_i1e, polygamma, zeta (ChloSpecial.cpp).
void registerChloSpecialLowerings(llvm::StringMap<OpLowering> &table);

/// asin: CHLO's decomposition on complex values, the asin opcode on real
/// ones (ChloComplexAsin.cpp).
void registerChloAsinLowering(llvm::StringMap<OpLowering> &table);

/// ragged_dot as a masked dot_general (ChloRaggedDot.cpp).
void registerChloRaggedDotLowering(llvm::StringMap<OpLowering> &table);

/// scan as a while loop (ChloScan.cpp).
void registerChloScanLowering(llvm::StringMap<OpLowering> &table);

} // namespace mote::stablehlo

#endif // MOTE_STABLEHLO_CHLO_H
