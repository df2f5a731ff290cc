//===- ResourceLimits.cpp - The largest model a target can hold -----------===//

#include "output/ResourceLimits.h"

#include "hlo/Diagnostics.h"

#include "llvm/Support/MathExtras.h"

namespace mote::output {

namespace {

/// "2 GiB", "128 TiB", or bytes when not a whole number of either.
std::string describeLimit(uint64_t bytes) {
  if (bytes % (uint64_t(1) << 40) == 0)
    return std::to_string(bytes >> 40) + " TiB";
  if (bytes % (uint64_t(1) << 30) == 0)
    return std::to_string(bytes >> 30) + " GiB";
  return std::to_string(bytes) + " bytes";
}

/// Bytes of an array shape, saturating at UINT64_MAX.
uint64_t arrayBytes(const hlo::Shape &shape) {
  uint64_t bytes = hlo::storageBytes(shape.elementType());
  for (int64_t dim : shape.dims())
    bytes = llvm::SaturatingMultiply(bytes, static_cast<uint64_t>(std::max<int64_t>(dim, 0)));
  return bytes;
}

} // namespace

ResourceLimits resourceLimits(unsigned pointerBits) {
  constexpr uint64_t kConstants = (uint64_t(1) << 31) - 1;
  if (pointerBits <= 32)
    return {(uint64_t(1) << 31) - 1, (uint64_t(1) << 31) - 1, kConstants};
  return {(uint64_t(1) << 47) - 1, (uint64_t(1) << 47) - 1, kConstants};
}

llvm::Error checkResourceLimits(const hlo::Module &module, uint64_t arenaBytes,
                                llvm::StringRef triple, unsigned pointerBits) {
  const ResourceLimits limits = resourceLimits(pointerBits);
  const std::string target = (triple + " (" + llvm::Twine(pointerBits) + "-bit)").str();
  // The entry first, so the error names the value the user wrote there
  // rather than its copy in a fused computation.
  std::vector<const hlo::Computation *> computations{module.entry()};
  for (const auto &computation : module.computations())
    if (computation.get() != module.entry())
      computations.push_back(computation.get());
  uint64_t constants = 0;
  for (const hlo::Computation *computation : computations)
    for (const auto &instruction : computation->instructions()) {
      llvm::SmallVector<const hlo::Shape *, 4> leaves;
      instruction->shape().collectLeaves(leaves);
      for (const hlo::Shape *leaf : leaves) {
        if (!leaf->isArray())
          continue;
        uint64_t bytes = arrayBytes(*leaf);
        if (bytes > limits.maxArrayBytes)
          return hlo::errorAt(*instruction, "a value of " + leaf->toString(false) + " takes " +
                                                llvm::Twine(bytes) + " bytes; code for " + target +
                                                " holds arrays below " +
                                                describeLimit(limits.maxArrayBytes + 1));
        if (instruction->opcode() == hlo::Opcode::Constant)
          constants = llvm::SaturatingAdd(constants, bytes);
      }
    }
  if (constants > limits.maxConstantBytes)
    return hlo::errorAt(llvm::SMLoc(), "the model's constants take " + llvm::Twine(constants) +
                                           " bytes; compiled models hold constants below " +
                                           describeLimit(limits.maxConstantBytes + 1) +
                                           " in total");
  if (arenaBytes > limits.maxArenaBytes)
    return hlo::errorAt(llvm::SMLoc(), "the model needs a scratch arena of " +
                                           llvm::Twine(arenaBytes) + " bytes; code for " + target +
                                           " addresses arenas below " +
                                           describeLimit(limits.maxArenaBytes + 1));
  return llvm::Error::success();
}

} // namespace mote::output
