//===- SelectAndScatter.cpp - select-and-scatter --------------------------===//
//
// The result starts as the init value everywhere. For each source element,
// in row-major order, the window it belongs to is scanned in row-major order
// over the operand (padding skipped): the first element is selected, and a
// later element replaces the selection whenever select(selected, candidate)
// is false. The source element is then combined into the result at the
// selected position with the scatter computation. A window over padding only
// scatters nothing. `select = compare(p0, p1)` with `scatter = add` (the
// gradient of max pooling) and the like run typed; others call the evaluator.
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

template <typename T>
void selectAndScatterTyped(const WindowGeometry &g, const T *operand, const T *source, T *result,
                           ScalarCompare select, ScalarBinary scatter) {
  auto keepSelected = [&](T selected, T candidate) {
    return select.lhsParameter == 0
               ? applyScalarCompare(select.direction, select.type, selected, candidate)
               : applyScalarCompare(select.direction, select.type, candidate, selected);
  };
  int64_t sourceIndex = 0;
  forEachIndex(g.outputDims, [&](llvm::ArrayRef<int64_t> output) {
    int64_t selected = -1;
    g.forEachInput(output, [&](int64_t offset) {
      if (selected < 0 || !keepSelected(operand[selected], operand[offset]))
        selected = offset;
    });
    T value = source[sourceIndex++];
    if (selected >= 0)
      result[selected] = scatter.swapped
                             ? applyScalarBinary<T>(scatter.opcode, value, result[selected])
                             : applyScalarBinary<T>(scatter.opcode, result[selected], value);
  });
}

} // namespace

Result evaluateSelectAndScatter(Evaluator &evaluator, const hlo::Instruction &instruction,
                                Operands operands) {
  if (llvm::Error error = expectArrayOperands(instruction, operands, 3))
    return std::move(error);
  if (instruction.calledComputations().size() != 2)
    return errorAt(instruction, "select-and-scatter needs select and scatter computations");
  const hlo::Computation &selectComputation = *instruction.calledComputation(0);
  const hlo::Computation &scatterComputation = *instruction.calledComputation(1);
  const Literal &operand = *operands[0];
  const Literal &source = *operands[1];
  const Literal &init = *operands[2];
  const hlo::PrimitiveType type = init.shape().elementType();
  if (!init.shape().isScalar() || source.shape().elementType() != type)
    return errorAt(instruction, "select-and-scatter needs a scalar init value of the source's "
                                "element type");
  const hlo::Window &window = instruction.attributes().window;
  if (static_cast<int64_t>(window.size()) != operand.shape().rank())
    return errorAt(instruction, "select-and-scatter window has " + llvm::Twine(window.size()) +
                                    " dimensions for an operand of rank " +
                                    llvm::Twine(operand.shape().rank()));
  for (const hlo::WindowDimension &w : window)
    if (!isValidWindowDimension(w))
      return errorAt(instruction, "window strides and dilations must be positive");
  WindowGeometry geometry(operand.shape().dims(), window);
  llvm::ArrayRef<int64_t> windows = geometry.outputDims;
  if (source.shape().dims() != (operand.shape().rank() == 0 ? windows.drop_back() : windows))
    return errorAt(instruction, "source shape " + source.shape().toString(false) +
                                    " does not match the windows over the operand");
  auto result = makeArrayResult(instruction, type, operand.shape().dims());
  if (!result)
    return result.takeError();
  const size_t size = init.bytes().size();
  for (int64_t i = 0; i < result->elementCount(); ++i)
    std::memcpy(result->bytes().data() + i * size, init.bytes().data(), size);

  std::optional<ScalarCompare> select = matchScalarCompare(selectComputation);
  std::optional<ScalarBinary> scatter = matchScalarBinary(scatterComputation, type);
  if (select && scatter && operand.shape().elementType() == type &&
      selectComputation.parameterCount() == 2 && selectComputation.parameter(0) &&
      selectComputation.parameter(1) &&
      selectComputation.parameter(0)->shape().elementType() == type &&
      selectComputation.parameter(1)->shape().elementType() == type) {
    bool done = hlo::visitElementType(
        type,
        [&](auto tag) {
          using T = typename decltype(tag)::type;
          if constexpr (isFastBinaryType<T>()) {
            selectAndScatterTyped<T>(geometry, operand.data<T>(), source.data<T>(),
                                     result->data<T>(), *select, *scatter);
            return true;
          }
          return false;
        },
        [] { return false; });
    if (done) {
      wrapSubByteIntegers(*result);
      return result;
    }
  }

  hlo::PrimitiveType operandType = operand.shape().elementType();
  ScalarCall selectCall(evaluator, instruction, selectComputation, {operandType, operandType});
  ScalarCall scatterCall(evaluator, instruction, scatterComputation, {type, type});
  std::vector<Literal> values;
  llvm::Error failure = llvm::Error::success();
  int64_t sourceIndex = 0;
  forEachIndex(geometry.outputDims, [&](llvm::ArrayRef<int64_t> output) {
    if (failure)
      return;
    int64_t selected = -1;
    geometry.forEachInput(output, [&](int64_t offset) {
      if (failure)
        return;
      if (selected < 0) {
        selected = offset;
        return;
      }
      selectCall.setArgument(0, operand, selected);
      selectCall.setArgument(1, operand, offset);
      llvm::Expected<bool> keep = selectCall.runPredicate();
      if (!keep) {
        failure = keep.takeError();
        return;
      }
      if (!*keep)
        selected = offset;
    });
    const int64_t from = sourceIndex++;
    if (failure || selected < 0)
      return;
    scatterCall.setArgument(0, *result, selected);
    scatterCall.setArgument(1, source, from);
    if (llvm::Error error = scatterCall.run(1, values)) {
      failure = std::move(error);
      return;
    }
    if (values[0].shape().elementType() != type) {
      failure = errorAt(instruction, "scatter computation returns " + values[0].shape().toString());
      return;
    }
    std::memcpy(result->bytes().data() + selected * size, values[0].bytes().data(), size);
  });
  if (failure)
    return std::move(failure);
  return result;
}

} // namespace mote::eval
