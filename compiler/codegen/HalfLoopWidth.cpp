//===- HalfLoopWidth.cpp - Vector widths for loops over half values -------===//

#include "codegen/HalfLoopWidth.h"

#include "codegen/ContractionTiling.h"
#include "codegen/ElementTypes.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

namespace mote::codegen {

namespace {

/// f32 lanes of a vector register where halfLoopWidth sets widths, else 0.
unsigned hintedLanes(const llvm::Module &module, const target::TargetSpec *spec,
                     hlo::PrimitiveType type, bool staged) {
  const llvm::Triple triple(module.getTargetTriple());
  if (!triple.isX86() ||
      !(type == hlo::PrimitiveType::F16 || (staged && type == hlo::PrimitiveType::BF16)))
    return 0;
  return vectorRegisters(triple, spec).bytes / 4;
}

/// The length of a run `count` when it is known and its widths are chosen
/// by length: f16 in integer code (x86-64 without F16C) keeps one register
/// whatever the length (DS-CNN f16 17.67 M instructions per inference,
/// 18.06 M with two; baseline, callgrind).
std::optional<uint64_t> knownRun(const llvm::Module &module, hlo::PrimitiveType type,
                                 llvm::Value *count) {
  auto *known = llvm::dyn_cast_or_null<llvm::ConstantInt>(count);
  if (!known || (type == hlo::PrimitiveType::F16 && !convertsF16WithInstructions(module)))
    return std::nullopt;
  return known->getZExtValue();
}

/// The width for a known run of `run` elements (0: scalar) and its cost in
/// steps, a remainder element counted as two. A known run takes the width
/// that leaves the least work: a vector step costs about half of what one
/// remainder element costs (a bf16 element rounds, adds and rounds again in
/// scalar code, some 35 instructions), so a narrower register that divides
/// the run beats a wider one with a remainder: MobileNetV2 block bf16's
/// runs of 24 took 16 lanes and 8 scalar elements a row on x86-64-v4, and
/// now take three steps of 8.
struct CheapestWidth {
  unsigned width = 0;
  uint64_t cost = 0;
};
CheapestWidth cheapestWidth(uint64_t run, unsigned lanes) {
  CheapestWidth best{0, 2 * run}; // all scalar
  for (unsigned width = 2 * lanes; width >= 4; width /= 2) {
    const uint64_t cost = run / width + 2 * (run % width);
    if (cost < best.cost)
      best = {width, cost};
  }
  return best;
}

} // namespace

unsigned halfLoopWidth(const llvm::Module &module, const target::TargetSpec *spec,
                       hlo::PrimitiveType type, llvm::Value *count, bool staged) {
  const unsigned lanes = hintedLanes(module, spec, type, staged);
  if (!lanes)
    return 0;
  std::optional<uint64_t> known = knownRun(module, type, count);
  return known ? cheapestWidth(*known, lanes).width : lanes;
}

std::optional<HalfLoopSplit> splitHalfLoop(const llvm::Module &module,
                                           const target::TargetSpec *spec, hlo::PrimitiveType type,
                                           llvm::Value *count, bool staged) {
  const unsigned lanes = hintedLanes(module, spec, type, staged);
  std::optional<uint64_t> run = lanes ? knownRun(module, type, count) : std::nullopt;
  const unsigned widest = 2 * lanes;
  if (!run || *run < widest || *run % widest == 0)
    return std::nullopt;
  HalfLoopSplit split;
  split.head = *run / widest * widest;
  split.headWidth = widest;
  const CheapestWidth tail = cheapestWidth(*run - split.head, lanes);
  split.tailWidth = tail.width;
  // The second loop costs about a step of its own.
  if (split.head / widest + tail.cost + 1 >= cheapestWidth(*run, lanes).cost)
    return std::nullopt;
  return split;
}

} // namespace mote::codegen
