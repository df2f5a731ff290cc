//===- InputGenerator.h - Seeded inputs for entry parameters ----*- C++ -*-===//
///
/// \file
/// Deterministic arguments for running a model without user inputs. The same
/// seed gives the same values on every host (our own generator, not <random>'s
/// implementation-defined distributions). Each parameter draws from its own
/// stream derived from (seed, parameter number), so adding a parameter does
/// not change the values of the others.
///
/// Distributions, chosen so real models run sensibly:
///   floating point (bf16, f16, f32, f64): uniform in [-1, 1), rounded to the
///     type (a bf16/f16 value can round up to exactly 1);
///   complex: real and imaginary parts each uniform in [-1, 1);
///   integers: uniform in [0, 8) (narrower for 2-bit types) so that trip
///     counts, indices and sizes stay small and in range;
///   pred: true or false with equal probability;
///   tuples: their leaves in order from the same stream; tokens: a token.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TOOLS_INPUTGENERATOR_H
#define MOTE_TOOLS_INPUTGENERATOR_H

#include "hlo/Literal.h"

#include "llvm/Support/Error.h"

#include <cstdint>

namespace mote::tools {

/// The seed motec uses when --seed is not given.
inline constexpr uint64_t kDefaultInputSeed = 1;

/// A value for entry parameter number `parameterNumber` of shape `shape`.
/// Fails for element types without a host representation (f8).
llvm::Expected<hlo::Literal> generateInput(const hlo::Shape &shape, uint64_t seed,
                                           uint64_t parameterNumber);

} // namespace mote::tools

#endif // MOTE_TOOLS_INPUTGENERATOR_H
