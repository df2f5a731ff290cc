//===- RandomBits.h - Counter-based random bit generators -------*- C++ -*-===//
///
/// \file
/// The block functions behind rng-bit-generator, as XLA builds them in
/// xla/hlo/builder/lib/prng.cc (Salmon et al., "Parallel random numbers: as
/// easy as 1, 2, 3", SC 2011): Threefry-2x32 with 20 rounds and Philox-4x32
/// with 10 rounds. They match the Random123 reference implementation.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_EVAL_RANDOMBITS_H
#define MOTE_EVAL_RANDOMBITS_H

#include <array>
#include <cstdint>

namespace mote::eval {

/// Threefry-2x32-20 of `counter` under `key`.
std::array<uint32_t, 2> threeFry2x32(std::array<uint32_t, 2> key, std::array<uint32_t, 2> counter);

/// Philox-4x32-10 of `counter` under `key`.
std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 2> key, std::array<uint32_t, 4> counter);

} // namespace mote::eval

#endif // MOTE_EVAL_RANDOMBITS_H
