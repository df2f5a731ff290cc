//===- HalfLoopWidth.cpp - Vector widths for loops over half values -------===//

#include "codegen/HalfLoopWidth.h"

#include "codegen/ContractionTiling.h"
#include "codegen/ElementTypes.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

namespace mote::codegen {

unsigned halfLoopWidth(const llvm::Module &module, const target::TargetSpec *spec,
                       hlo::PrimitiveType type, llvm::Value *count, bool staged) {
  const llvm::Triple triple(module.getTargetTriple());
  if (!triple.isX86() ||
      !(type == hlo::PrimitiveType::F16 || (staged && type == hlo::PrimitiveType::BF16)))
    return 0;
  const unsigned lanes = vectorRegisters(triple, spec).bytes / 4;
  auto *known = llvm::dyn_cast_or_null<llvm::ConstantInt>(count);
  // f16 in integer code (x86-64 without F16C) keeps one register: DS-CNN
  // f16 17.67 M instructions per inference, 18.06 M with two (baseline,
  // callgrind).
  if (!known || (type == hlo::PrimitiveType::F16 && !convertsF16WithInstructions(module)))
    return lanes;
  // A known run takes the width that leaves the least work: a vector step
  // costs about half of what one remainder element costs (a bf16 element
  // rounds, adds and rounds again in scalar code, some 35 instructions), so
  // a narrower register that divides the run beats a wider one with a
  // remainder: MobileNetV2 block bf16's runs of 24 took 16 lanes and 8
  // scalar elements a row on x86-64-v4, and now take three steps of 8.
  const uint64_t run = known->getZExtValue();
  unsigned best = 0;
  uint64_t bestCost = 2 * run; // all scalar
  for (unsigned width = 2 * lanes; width >= 4; width /= 2) {
    const uint64_t cost = run / width + 2 * (run % width);
    if (cost < bestCost)
      best = width, bestCost = cost;
  }
  return best;
}

} // namespace mote::codegen
