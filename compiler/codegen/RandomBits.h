//===- RandomBits.h - Counter-based random bit generators as IR -*- C++ -*-===//
///
/// \file
/// The block functions behind rng-bit-generator and rng, bit-exact with
/// eval/RandomBits.h: 32-bit words in, 32-bit words out.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_RANDOMBITS_H
#define MOTE_CODEGEN_RANDOMBITS_H

#include "llvm/IR/IRBuilder.h"

#include <array>

namespace mote::codegen::random {

using Words2 = std::array<llvm::Value *, 2>;
using Words4 = std::array<llvm::Value *, 4>;

/// Threefry-2x32-20 of `counter` under `key`.
Words2 emitThreeFry(llvm::IRBuilderBase &b, Words2 key, Words2 counter);

/// Philox-4x32-10 of `counter` under `key`.
Words4 emitPhilox(llvm::IRBuilderBase &b, Words2 key, Words4 counter);

} // namespace mote::codegen::random

#endif // MOTE_CODEGEN_RANDOMBITS_H
