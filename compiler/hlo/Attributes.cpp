//===- Attributes.cpp - Spellings of enumerated HLO attributes ------------===//

#include "hlo/Attributes.h"

namespace mote::hlo {

llvm::StringRef comparisonDirectionName(ComparisonDirection direction) {
  static const char *const names[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
  return names[static_cast<unsigned>(direction)];
}

llvm::StringRef comparisonTypeName(ComparisonType type) {
  static const char *const names[] = {"", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"};
  return names[static_cast<unsigned>(type)];
}

llvm::StringRef randomDistributionName(RandomDistribution distribution) {
  return distribution == RandomDistribution::Uniform ? "rng_uniform" : "rng_normal";
}

llvm::StringRef randomAlgorithmName(RandomAlgorithm algorithm) {
  static const char *const names[] = {"rng_default", "rng_three_fry", "rng_philox"};
  return names[static_cast<unsigned>(algorithm)];
}

llvm::StringRef fftTypeName(FftType type) {
  static const char *const names[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
  return names[static_cast<unsigned>(type)];
}

llvm::StringRef triangularSolveTransposeName(TriangularSolveTranspose transpose) {
  static const char *const names[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
  return names[static_cast<unsigned>(transpose)];
}

} // namespace mote::hlo
