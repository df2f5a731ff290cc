//===- ReduceWindow.cpp - reduce-window (variadic) ------------------------===//
//
// Every output element is a left fold: acc = init, then acc = f(acc, x) for
// the input elements under its window in row-major order of the window.
// Window positions over padding or base-dilation holes are skipped (as XLA's
// evaluator does), not folded with the init value. A single operand reduced
// by add/multiply/maximum/minimum/and/or/xor takes a typed path that walks
// whole rows of the innermost dimension (f16 and bf16 rounding after every
// step, as XLA's reduce_window does: HalfReduction.h); anything else calls
// to_apply.
//
//===----------------------------------------------------------------------===//

#include "eval/OpEvaluators.h"
#include "eval/OperandChecks.h"
#include "eval/ScalarComputation.h"
#include "eval/WindowIndex.h"

#include "hlo/Diagnostics.h"

#include <vector>

namespace mote::eval {

using hlo::errorAt;
using hlo::Literal;

namespace {

/// The typed path. For each row of outputs along the last dimension and each
/// position of the window over the other dimensions, the last dimension is
/// walked for all outputs of the row at once: per output that still visits
/// the window in row-major order, and a unit window with unit stride there
/// (the channels of an NHWC pooling) becomes a contiguous loop.
/// Sums build in the output row itself, rounding to T every step (f16 and
/// bf16 too, as XLA's reduce_window does: HalfReduction.h).
template <typename T>
void reduceWindowTyped(const WindowGeometry &g, const T *in, T *out, T init, ScalarBinary op) {
  auto apply = [op](T acc, T x) {
    return op.swapped ? applyScalarBinary<T>(op.opcode, x, acc)
                      : applyScalarBinary<T>(op.opcode, acc, x);
  };
  const size_t last = g.inputDims.size() - 1;
  const int64_t width = g.outputDims[last];
  const int64_t lastWindow = g.windowSizes[last];
  const std::vector<int64_t> &lastTable = g.tables[last];
  bool contiguous = lastWindow == 1;
  for (int64_t j = 0; j < width && contiguous; ++j)
    contiguous = lastTable[j] == j;

  llvm::ArrayRef<int64_t> outerOutput = llvm::ArrayRef<int64_t>(g.outputDims).drop_back();
  llvm::ArrayRef<int64_t> outerWindow = llvm::ArrayRef<int64_t>(g.windowSizes).drop_back();
  int64_t rowStart = 0;
  forEachIndex(outerOutput, [&](llvm::ArrayRef<int64_t> output) {
    T *acc = out + rowStart;
    rowStart += width;
    for (int64_t j = 0; j < width; ++j)
      acc[j] = init;
    forEachIndex(outerWindow, [&](llvm::ArrayRef<int64_t> window) {
      int64_t offset = 0;
      for (size_t d = 0; d < last; ++d) {
        int64_t index = g.tables[d][output[d] * g.windowSizes[d] + window[d]];
        if (index < 0)
          return;
        offset += index * g.inputStrides[d];
      }
      const T *source = in + offset;
      if (contiguous) {
        for (int64_t j = 0; j < width; ++j)
          acc[j] = apply(acc[j], source[j]);
        return;
      }
      for (int64_t j = 0; j < width; ++j)
        for (int64_t w = 0; w < lastWindow; ++w) {
          int64_t index = lastTable[j * lastWindow + w];
          if (index >= 0)
            acc[j] = apply(acc[j], source[index]);
        }
    });
  });
}

} // namespace

Result evaluateReduceWindow(Evaluator &evaluator, const hlo::Instruction &instruction,
                            Operands operands) {
  if (operands.empty() || operands.size() % 2 != 0)
    return errorAt(instruction, "reduce-window needs as many init values as operands");
  const size_t count = operands.size() / 2;
  if (llvm::Error error = expectArrayOperands(instruction, operands, operands.size()))
    return std::move(error);
  if (instruction.calledComputations().size() != 1)
    return errorAt(instruction, "reduce-window needs one to_apply computation");
  const hlo::Computation &reducer = *instruction.calledComputation(0);
  const hlo::Shape &first = operands[0]->shape();
  for (size_t i = 0; i < count; ++i) {
    if (operands[i]->shape().dims() != first.dims())
      return errorAt(instruction, "reduce-window operands must have the same dimensions");
    const hlo::Shape &init = operands[count + i]->shape();
    if (!init.isScalar() || init.elementType() != operands[i]->shape().elementType())
      return errorAt(instruction, "init value " + llvm::Twine(i) + " must be a scalar of " +
                                      hlo::primitiveTypeName(operands[i]->shape().elementType()));
  }
  const hlo::Window &window = instruction.attributes().window;
  if (static_cast<int64_t>(window.size()) != first.rank())
    return errorAt(instruction, "reduce-window window has " + llvm::Twine(window.size()) +
                                    " dimensions for an operand of rank " +
                                    llvm::Twine(first.rank()));
  for (const hlo::WindowDimension &w : window)
    if (!isValidWindowDimension(w))
      return errorAt(instruction, "window strides and dilations must be positive");
  WindowGeometry geometry(first.dims(), window);
  Index resultDims;
  for (int64_t d = 0; d < first.rank(); ++d)
    resultDims.push_back(geometry.outputDims[d]);

  const hlo::Shape &shape = instruction.shape();
  if (count > 1 && (!shape.isTuple() || shape.tupleSize() != count))
    return errorAt(instruction, "reduce-window of " + llvm::Twine(count) + " operands returns a " +
                                    llvm::Twine(count) + "-tuple");
  std::vector<Literal> results;
  for (size_t i = 0; i < count; ++i) {
    const hlo::Shape &expected = count == 1 ? shape : shape.tupleElement(i);
    hlo::PrimitiveType type = operands[i]->shape().elementType();
    if (!expected.isArray() || expected.elementType() != type || expected.dims() != resultDims)
      return errorAt(instruction, "result shape " + expected.toString(false) +
                                      " does not match the evaluated " +
                                      hlo::Shape::array(type, resultDims).toString(false));
    results.emplace_back(expected);
  }
  auto finish = [&]() -> Result {
    for (Literal &literal : results)
      wrapSubByteIntegers(literal);
    if (count == 1)
      return std::move(results[0]);
    return Literal::tuple(std::move(results));
  };

  hlo::PrimitiveType type = first.elementType();
  if (count == 1)
    if (std::optional<ScalarBinary> op = matchScalarBinary(reducer, type)) {
      bool done = hlo::visitElementType(
          type,
          [&](auto tag) {
            using T = typename decltype(tag)::type;
            if constexpr (isFastBinaryType<T>()) {
              const T *in = operands[0]->data<T>();
              T *out = results[0].data<T>();
              reduceWindowTyped<T>(geometry, in, out, operands[1]->get<T>(0), *op);
              return true;
            }
            return false;
          },
          [] { return false; });
      if (done)
        return finish();
    }

  // General path: to_apply(acc_0..acc_n-1, x_0..x_n-1) per window element.
  llvm::SmallVector<hlo::PrimitiveType, 8> types;
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < count; ++i)
      types.push_back(operands[i]->shape().elementType());
  ScalarCall call(evaluator, instruction, reducer, types);
  std::vector<Literal> values;
  llvm::Error failure = llvm::Error::success();
  int64_t target = 0;
  forEachIndex(geometry.outputDims, [&](llvm::ArrayRef<int64_t> output) {
    if (failure)
      return;
    for (size_t j = 0; j < count; ++j)
      call.setArgument(j, *operands[count + j], 0);
    geometry.forEachInput(output, [&](int64_t offset) {
      if (failure)
        return;
      for (size_t j = 0; j < count; ++j)
        call.setArgument(count + j, *operands[j], offset);
      if (llvm::Error error = call.run(count, values)) {
        failure = std::move(error);
        return;
      }
      for (size_t j = 0; j < count; ++j) {
        if (values[j].shape().elementType() != types[j]) {
          failure =
              errorAt(instruction, "to_apply returns " + values[j].shape().toString() + " for a " +
                                       hlo::primitiveTypeName(types[j]) + " accumulator");
          return;
        }
        call.setArgumentBytes(j, values[j].bytes().data());
      }
    });
    for (size_t j = 0; j < count; ++j)
      std::memcpy(results[j].bytes().data() + target * call.argument(j).bytes().size(),
                  call.argument(j).bytes().data(), call.argument(j).bytes().size());
    ++target;
  });
  if (failure)
    return std::move(failure);
  return finish();
}

} // namespace mote::eval
