//===- PadRows.cpp - Pads stored a row at a time ------------------------===//
//
// A pad computed one element at a time tests every output index against
// the operand's bounds and selects between the operand and the pad value:
// LLVM vectorises that with gathers for 32-bit types and not at all for
// 16-bit ones. A pad without interior padding is a copy of its operand
// into a box of the result, so it is stored row by row instead.
//
// A row runs along the row dimension, the last dimension with edge padding,
// together with the unpadded dimensions after it (every one of its elements
// is contiguous in the result). A row whose index in an outer dimension
// lies outside the operand is all pad value. The others are the low edge
// (pad value), the interior run (the operand read at consecutive indices,
// with whatever elementwise ops a fusion puts under the pad, in a plain
// loop the loop vectorizer turns into vector loads and stores) and the high
// edge. The runs' bounds are constants; only the "is this row inside" test
// runs per row. Negative padding (a slice) falls out: the run's bounds are
// clamped to the result. An output fusion whose kernel writes the interior
// (FusionEmitter.cpp) stores the edges only.
//
//===----------------------------------------------------------------------===//

#include "codegen/FunctionEmitter.h"

namespace mote::codegen {

/// The dimension a pad's rows run along: the last one with low or high
/// padding (the last dimension when there is none).
static size_t rowDimension(const hlo::Instruction &pad) {
  const std::vector<hlo::PaddingDimension> &padding = pad.attributes().padding;
  for (size_t d = padding.size(); d-- > 0;)
    if (padding[d].low != 0 || padding[d].high != 0)
      return d;
  return padding.size() - 1;
}

bool padsByRows(const hlo::Instruction &pad) {
  if (pad.opcode() != Opcode::Pad || !pad.shape().isArray() || pad.shape().rank() == 0 ||
      pad.operandCount() != 2 || pad.operand(0)->shape().elementCount() == 0)
    return false;
  return llvm::all_of(pad.attributes().padding,
                      [](const hlo::PaddingDimension &d) { return d.interior == 0; });
}

int64_t padRowsSplitExtent(const hlo::Instruction &pad) {
  return outermostExtent(pad.shape().dims().take_front(rowDimension(pad)));
}

void FunctionEmitter::emitPadRows(const hlo::Instruction &pad, const hlo::Instruction &stored,
                                  llvm::Value *base, ElementalEmitter::OperandReader read,
                                  const LoopRange *range) {
  emitPadByRows(
      pad, stored, base, read(*pad.operand(1), {}),
      [&](IndexRef operandIndex) { return read(*pad.operand(0), operandIndex); }, range);
}

void FunctionEmitter::emitPadByRows(const hlo::Instruction &pad, const hlo::Instruction &stored,
                                    llvm::Value *base, llvm::Value *padValue,
                                    InteriorReader interior, const LoopRange *range) {
  llvm::ArrayRef<int64_t> dims = pad.shape().dims();
  llvm::ArrayRef<int64_t> inner = pad.operand(0)->shape().dims();
  const std::vector<hlo::PaddingDimension> &padding = pad.attributes().padding;
  const hlo::PrimitiveType type = pad.shape().elementType();
  const size_t row = rowDimension(pad);
  auto index = [&](int64_t value) { return llvm::ConstantInt::get(indexType_, value); };
  // The interior run along the row dimension, clamped to the result (a
  // negative low or high pad cuts it).
  const int64_t runBegin = std::clamp<int64_t>(padding[row].low, 0, dims[row]);
  const int64_t runEnd = std::clamp<int64_t>(padding[row].low + inner[row], runBegin, dims[row]);
  emitLoopNest(
      builder_, indexType_, dims.take_front(row),
      [&](IndexRef outer) {
        // Signed: with negative low padding an index maps past the
        // operand's start, with positive padding before it.
        llvm::Value *inside = builder_.getTrue();
        for (size_t d = 0; d < row; ++d)
          inside = builder_.CreateAnd(
              inside, builder_.CreateAnd(
                          builder_.CreateICmpSGE(outer[d], index(padding[d].low)),
                          builder_.CreateICmpSLT(outer[d], index(padding[d].low + inner[d]))));
        // Stores `element(at)` at every result index `at` whose row index
        // lies in [from, to), the unpadded dimensions after it innermost.
        auto run = [&](llvm::Value *from, llvm::Value *to, const llvm::Twine &name,
                       llvm::function_ref<llvm::Value *(IndexRef at)> element) {
          emitCountedLoop(
              builder_, builder_.CreateSub(to, from),
              [&](llvm::Value *i) {
                emitLoopNest(
                    builder_, indexType_, dims.drop_front(row + 1),
                    [&](IndexRef trailing) {
                      llvm::SmallVector<llvm::Value *, 4> at(outer.begin(), outer.end());
                      at.push_back(builder_.CreateAdd(from, i));
                      at.append(trailing.begin(), trailing.end());
                      storeElement(builder_, type, element(at), elementAddress(stored, base, at));
                    },
                    name + ".t");
              },
              name);
        };
        auto fill = [&](IndexRef) { return padValue; };
        // Constant bounds on both branches: the vectorizer knows each run's
        // length (DS-CNN's: 10 elements of a 12-element row).
        emitIfThen(builder_, builder_.CreateNot(inside),
                   [&] { run(index(0), index(dims[row]), "pad.outside", fill); });
        emitIfThen(builder_, inside, [&] {
          run(index(0), index(runBegin), "pad.low", fill);
          if (interior)
            run(index(runBegin), index(runEnd), "pad.run", [&](IndexRef at) {
              llvm::SmallVector<llvm::Value *, 4> source;
              for (auto [d, position] : llvm::enumerate(at))
                source.push_back(padding[d].low
                                     ? builder_.CreateSub(position, index(padding[d].low))
                                     : position);
              return interior(source);
            });
          run(index(runEnd), index(dims[row]), "pad.high", fill);
        });
      },
      "pad.row", range);
}

} // namespace mote::codegen
