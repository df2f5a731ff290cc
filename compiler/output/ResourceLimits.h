//===- ResourceLimits.h - The largest model a target can hold ---*- C++ -*-===//
///
/// \file
/// What a compiled model may need, stated and enforced before any code is
/// generated, so a model too large for its target is a clear error rather
/// than code whose index arithmetic wraps or whose header promises an arena
/// the machine cannot address:
///
/// - every array the code holds (arguments, results, values in the arena,
///   values computed inside fused loops) and the scratch arena itself must
///   fit in a signed pointer-sized offset, because generated code indexes
///   them with signed pointer-width arithmetic: below 2 GiB on 32-bit targets
///   (Cortex-M, RV32), and below 2^47 bytes (128 TiB, the user address
///   space of 64-bit Linux) on 64-bit ones;
/// - the constants together stay below 2 GiB on every target: they sit in
///   read-only data next to the code, reached by 32-bit PC-relative offsets
///   (the small code model), and a package holds at most 2 GiB.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_OUTPUT_RESOURCELIMITS_H
#define MOTE_OUTPUT_RESOURCELIMITS_H

#include "hlo/Module.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace mote::output {

struct ResourceLimits {
  uint64_t maxArrayBytes;    ///< each array, in or out of the arena
  uint64_t maxArenaBytes;    ///< the scratch arena
  uint64_t maxConstantBytes; ///< all constants together
};

/// The limits of a target whose pointers are `pointerBits` wide.
ResourceLimits resourceLimits(unsigned pointerBits);

/// Checks `module` (after the passes) and its arena of `arenaBytes` against
/// the limits of `triple`, whose pointers are `pointerBits` wide. The error
/// is located at the first array too large, and says what the limit is.
llvm::Error checkResourceLimits(const hlo::Module &module, uint64_t arenaBytes,
                                llvm::StringRef triple, unsigned pointerBits);

} // namespace mote::output

#endif // MOTE_OUTPUT_RESOURCELIMITS_H
