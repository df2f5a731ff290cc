//===- RngBitGeneratorEmitter.cpp - rng-bit-generator (Threefry, Philox) --===//
//
// Bit-exact with eval/Random.cpp (itself XLA's RngBitGeneratorExpander): the
// state is [key, counter...]. Philox-4x32-10 (also rng_default) hashes the
// 128-bit counter + i into four 32-bit words (two 64-bit values) per block;
// its counter is (state[1], state[0]) for u64[2] and (state[1], state[2]) for
// u64[3]. Threefry-2x32-20 hashes state[1] + i: one 64-bit value per hash, or
// for 32-bit and narrower types two neighbours along a split dimension (the
// first even one, else the first largest). Types narrower than the draw keep
// its low bits. The new state is the old one with the counter advanced by
// the hashes used.
//
//===----------------------------------------------------------------------===//

#include "codegen/FunctionEmitter.h"
#include "codegen/RandomBits.h"

namespace mote::codegen {

namespace {

using random::Words2;
using random::Words4;

Words2 split(llvm::IRBuilderBase &b, llvm::Value *value) {
  return {b.CreateTrunc(value, b.getInt32Ty()),
          b.CreateTrunc(b.CreateLShr(value, 32), b.getInt32Ty())};
}

llvm::Value *join(llvm::IRBuilderBase &b, llvm::Value *low, llvm::Value *high) {
  return b.CreateOr(b.CreateZExt(low, b.getInt64Ty()),
                    b.CreateShl(b.CreateZExt(high, b.getInt64Ty()), 32));
}

} // namespace

void FunctionEmitter::emitRngBitGenerator(const hlo::Instruction &instruction) {
  emitOutlined(instruction, [&] {
    llvm::IRBuilderBase &b = builder_;
    const hlo::Instruction &state = *instruction.operand(0);
    const hlo::Shape &dataShape = instruction.shape().tupleElement(1);
    const int64_t stateSize = state.shape().dim(0);
    const int bits = hlo::bitWidth(dataShape.elementType());
    const bool wide = bits == 64;
    const int64_t count = dataShape.elementCount();
    const bool philox = instruction.attributes().rngAlgorithm != hlo::RandomAlgorithm::ThreeFry;
    llvm::Type *i64 = b.getInt64Ty();
    llvm::Type *element = b.getIntNTy(bits);
    auto constant = [&](int64_t value) { return llvm::ConstantInt::get(indexType_, value); };

    llvm::Value *stateBase = address(assignment_.slice(&state));
    llvm::SmallVector<llvm::Value *, 3> s;
    for (int64_t i = 0; i < stateSize; ++i)
      s.push_back(b.CreateLoad(i64, b.CreateConstInBoundsGEP1_64(i64, stateBase, i)));
    const BufferSlice &dataSlice = assignment_.slice(&instruction, 1);
    llvm::Value *data = address(dataSlice);
    auto storeBits = [&](llvm::Value *linear, llvm::Value *value) {
      b.CreateStore(b.CreateZExtOrTrunc(value, element),
                    b.CreateInBoundsGEP(element, data, linear));
    };
    Words2 key = split(b, s[0]);
    llvm::SmallVector<llvm::Value *, 3> next(s.begin(), s.end());

    if (philox) {
      llvm::Type *i128 = b.getInt128Ty();
      llvm::Value *low = s[1], *high = stateSize == 3 ? s[2] : s[0];
      llvm::Value *counter =
          b.CreateOr(b.CreateZExt(low, i128), b.CreateShl(b.CreateZExt(high, i128), 64));
      const int64_t words = wide ? 2 * count : count;
      const int64_t blocks = (words + 3) / 4;
      const int perBlock = wide ? 2 : 4;
      emitCountedLoop(
          b, constant(blocks),
          [&](llvm::Value *i) {
            llvm::Value *c = b.CreateAdd(counter, b.CreateZExtOrTrunc(i, i128));
            Words2 lowWords = split(b, b.CreateTrunc(c, i64));
            Words2 highWords = split(b, b.CreateTrunc(b.CreateLShr(c, 64), i64));
            Words4 out =
                random::emitPhilox(b, key, {lowWords[0], lowWords[1], highWords[0], highWords[1]});
            for (int j = 0; j < perBlock; ++j) {
              llvm::Value *linear = b.CreateAdd(b.CreateMul(i, constant(perBlock)), constant(j));
              llvm::Value *value = wide ? join(b, out[2 * j], out[2 * j + 1]) : out[j];
              if (blocks * perBlock > count) {
                // The last block may run past the end.
                emitIf(
                    b.CreateICmpULT(linear, constant(count)), [&] { storeBits(linear, value); },
                    "rng.inside");
              } else {
                storeBits(linear, value);
              }
            }
          },
          "rng.block");
      llvm::Value *advanced = b.CreateAdd(counter, llvm::ConstantInt::get(i128, blocks));
      next[1] = b.CreateTrunc(advanced, i64);
      if (stateSize == 3)
        next[2] = b.CreateTrunc(b.CreateLShr(advanced, 64), i64);
    } else if (wide || dataShape.rank() == 0) {
      emitCountedLoop(
          b, constant(count),
          [&](llvm::Value *i) {
            Words2 out = random::emitThreeFry(
                b, key, split(b, b.CreateAdd(s[1], b.CreateZExtOrTrunc(i, i64))));
            storeBits(i, wide ? join(b, out[0], out[1]) : out[0]);
          },
          "rng.i");
      next[1] = b.CreateAdd(s[1], b.getInt64(count));
    } else {
      llvm::ArrayRef<int64_t> dims = dataShape.dims();
      int64_t splitDim = -1;
      for (size_t d = 0; d < dims.size() && splitDim < 0; ++d)
        if (dims[d] % 2 == 0)
          splitDim = static_cast<int64_t>(d);
      if (splitDim < 0) {
        splitDim = 0;
        for (size_t d = 1; d < dims.size(); ++d)
          if (dims[d] > dims[splitDim])
            splitDim = static_cast<int64_t>(d);
      }
      llvm::SmallVector<int64_t, 4> half(dims.begin(), dims.end());
      half[splitDim] = (dims[splitDim] + 1) / 2;
      int64_t halfCount = 1;
      for (int64_t d : half)
        halfCount *= d;
      // One hash per position of the halved space feeds the two neighbours.
      emitLoopNest(b, indexType_, half, [&](IndexRef index) {
        llvm::Value *h = emitLinearIndex(b, indexType_, half, index);
        Words2 out =
            random::emitThreeFry(b, key, split(b, b.CreateAdd(s[1], b.CreateZExtOrTrunc(h, i64))));
        for (int j = 0; j < 2; ++j) {
          llvm::SmallVector<llvm::Value *, 4> at(index.begin(), index.end());
          at[splitDim] = b.CreateAdd(b.CreateMul(index[splitDim], constant(2)), constant(j));
          llvm::Value *linear = emitLinearIndex(b, indexType_, dims, at);
          if (j == 1 && dims[splitDim] % 2 != 0)
            emitIf(
                b.CreateICmpULT(at[splitDim], constant(dims[splitDim])),
                [&] { storeBits(linear, out[j]); }, "rng.inside");
          else
            storeBits(linear, out[j]);
        }
      });
      next[1] = b.CreateAdd(s[1], b.getInt64(halfCount));
    }

    llvm::Value *stateOut = address(assignment_.slice(&instruction, 0));
    for (int64_t i = 0; i < stateSize; ++i)
      b.CreateStore(next[i], b.CreateConstInBoundsGEP1_64(i64, stateOut, i));
  });
}

} // namespace mote::codegen
