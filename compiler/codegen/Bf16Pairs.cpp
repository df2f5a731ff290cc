//===- Bf16Pairs.cpp - bf16 vectors widened two at a time, deinterleaved --===//

#include "codegen/Bf16Pairs.h"

namespace mote::codegen {

std::pair<llvm::Value *, llvm::Value *> loadBf16Deinterleaved(llvm::IRBuilderBase &builder,
                                                              llvm::Value *address, unsigned lanes,
                                                              llvm::Align align) {
  auto *words = llvm::FixedVectorType::get(builder.getInt32Ty(), lanes);
  auto *floats = llvm::FixedVectorType::get(builder.getFloatTy(), lanes);
  llvm::Value *bits = builder.CreateAlignedLoad(words, address, align);
  llvm::Value *even = builder.CreateShl(bits, llvm::ConstantInt::get(words, 16));
  llvm::Value *odd = builder.CreateAnd(bits, llvm::ConstantInt::get(words, 0xffff0000u));
  return {builder.CreateBitCast(even, floats), builder.CreateBitCast(odd, floats)};
}

std::pair<llvm::Value *, llvm::Value *> interleavePair(llvm::IRBuilderBase &builder,
                                                       llvm::Value *even, llvm::Value *odd) {
  const int lanes = int(llvm::cast<llvm::FixedVectorType>(even->getType())->getNumElements());
  llvm::SmallVector<int, 32> low, high;
  for (int i = 0; i < lanes / 2; ++i) {
    low.append({i, lanes + i});
    high.append({lanes / 2 + i, lanes + lanes / 2 + i});
  }
  return {builder.CreateShuffleVector(even, odd, low),
          builder.CreateShuffleVector(even, odd, high)};
}

llvm::SmallVector<bool, 8> deinterleavedPairStarts(llvm::ArrayRef<unsigned> widths) {
  llvm::SmallVector<bool, 8> starts(widths.size(), false);
  for (size_t v = 0; v + 1 < widths.size(); ++v)
    if (widths[v] >= 2 && widths[v + 1] == widths[v]) {
      starts[v] = true;
      ++v;
    }
  return starts;
}

} // namespace mote::codegen
