//===- Dot.cpp - dot with general dimension numbers -----------------------===//
//
// The operands are copied into [batch][rows][contracting] and
// [batch][contracting][columns] work arrays of the accumulation type (see
// WorkArrays.h), multiplied by the matrix kernel and converted to the result
// type once. Every result element sums its products in increasing row-major
// order of the contracting dimensions, taken in the order the dimension
// numbers list them, starting from zero, each product added as the
// ContractionArithmetic says.
//
//===----------------------------------------------------------------------===//

#include "eval/MatrixMultiply.h"
#include "eval/OpEvaluators.h"
#include "eval/OperandChecks.h"
#include "eval/WorkArrays.h"

#include "hlo/Diagnostics.h"

#include <numeric>
#include <type_traits>
#include <vector>

namespace mote::eval {

using hlo::errorAt;
using hlo::Literal;

namespace {

/// Checks that `dims` are distinct dimensions of a rank-`rank` operand.
llvm::Error checkDimensionList(const hlo::Instruction &instruction, llvm::ArrayRef<int64_t> dims,
                               int64_t rank, const llvm::Twine &what,
                               llvm::SmallVectorImpl<bool> &used) {
  for (int64_t dim : dims) {
    if (dim < 0 || dim >= rank)
      return errorAt(instruction, what + " dimension " + llvm::Twine(dim) +
                                      " is out of range for rank " + llvm::Twine(rank));
    if (used[dim])
      return errorAt(instruction, what + " dimension " + llvm::Twine(dim) + " is used twice");
    used[dim] = true;
  }
  return llvm::Error::success();
}

/// One side of the dot: which operand dimensions are batch, free and contracting.
struct DotSide {
  Index batch, contracting, free;
};

llvm::Expected<DotSide> classifyDimensions(const hlo::Instruction &instruction,
                                           const Literal &operand, llvm::ArrayRef<int64_t> batch,
                                           llvm::ArrayRef<int64_t> contracting,
                                           llvm::StringRef side) {
  int64_t rank = operand.shape().rank();
  llvm::SmallVector<bool, 8> used(rank, false);
  if (llvm::Error error = checkDimensionList(instruction, batch, rank, side + " batch", used))
    return std::move(error);
  if (llvm::Error error =
          checkDimensionList(instruction, contracting, rank, side + " contracting", used))
    return std::move(error);
  DotSide result;
  result.batch.assign(batch.begin(), batch.end());
  result.contracting.assign(contracting.begin(), contracting.end());
  for (int64_t dim = 0; dim < rank; ++dim)
    if (!used[dim])
      result.free.push_back(dim);
  return result;
}

int64_t product(const Literal &operand, llvm::ArrayRef<int64_t> dims) {
  int64_t size = 1;
  for (int64_t dim : dims)
    size *= operand.shape().dim(dim);
  return size;
}

Index concat(std::initializer_list<llvm::ArrayRef<int64_t>> lists) {
  Index result;
  for (llvm::ArrayRef<int64_t> list : lists)
    result.append(list.begin(), list.end());
  return result;
}

template <typename Acc>
void multiplyOperands(const Literal &lhs, const DotSide &left, const Literal &rhs,
                      const DotSide &right, Literal &result, ContractionArithmetic arithmetic) {
  const int64_t batch = product(lhs, left.batch);
  const int64_t m = product(lhs, left.free);
  const int64_t n = product(rhs, right.free);
  const int64_t k = product(lhs, left.contracting);
  // The kernel runs the columns of C in parallel; a C narrower than a vector
  // is computed transposed (C^T = B^T A^T) so the longer side is the columns.
  const bool transposed = n < multiplyVectorColumns<Acc>() && m > n;

  std::vector<Acc> aStorage, bStorage, c;
  if (!transposed) {
    const Acc *a = packedView(lhs, concat({left.batch, left.free, left.contracting}), aStorage);
    const Acc *b = packedView(rhs, concat({right.batch, right.contracting, right.free}), bStorage);
    // The result is row-major [batch][m][n]: accumulate in place when it
    // holds Acc (it starts zeroed).
    const bool inPlace = hlo::visitElementType(
        result.shape().elementType(),
        [](auto tag) { return std::is_same_v<typename decltype(tag)::type, Acc>; },
        [] { return false; });
    if (!inPlace)
      c.assign(static_cast<size_t>(batch * m * n), Acc(0));
    Acc *out = inPlace ? result.data<Acc>() : c.data();
    for (int64_t i = 0; i < batch; ++i)
      multiplyAccumulate(arithmetic, m, n, k, a + i * m * k, k, b + i * k * n, n, out + i * m * n,
                         n);
    if (!inPlace) {
      Index order(result.shape().rank());
      std::iota(order.begin(), order.end(), 0);
      unpackPermuted(c.data(), order, result);
    }
    return;
  }
  const Acc *a = packedView(lhs, concat({left.batch, left.contracting, left.free}), aStorage);
  const Acc *b = packedView(rhs, concat({right.batch, right.free, right.contracting}), bStorage);
  c.assign(static_cast<size_t>(batch * m * n), Acc(0));
  for (int64_t i = 0; i < batch; ++i)
    multiplyAccumulate(arithmetic, n, m, k, b + i * n * k, k, a + i * k * m, m,
                       c.data() + i * m * n, m);
  // c is [batch][rhs free][lhs free]; the result is [batch][lhs free][rhs free].
  const int64_t batchRank = left.batch.size();
  const int64_t lhsFreeRank = left.free.size();
  Index order;
  for (int64_t i = 0; i < batchRank; ++i)
    order.push_back(i);
  for (int64_t i = 0; i < static_cast<int64_t>(right.free.size()); ++i)
    order.push_back(batchRank + lhsFreeRank + i);
  for (int64_t i = 0; i < lhsFreeRank; ++i)
    order.push_back(batchRank + i);
  unpackPermuted(c.data(), order, result);
}

bool hasNativeType(hlo::PrimitiveType type) {
  return hlo::visitElementType(
      type, [](auto) { return true; }, [] { return false; });
}

} // namespace

Result evaluateDot(const hlo::Instruction &instruction, Operands operands,
                   ContractionArithmetic arithmetic) {
  if (llvm::Error error = expectArrayOperands(instruction, operands, 2))
    return std::move(error);
  const Literal &lhs = *operands[0];
  const Literal &rhs = *operands[1];
  const hlo::DotDimensionNumbers &numbers = instruction.attributes().dotDimensions;
  if (numbers.lhsBatchDimensions.size() != numbers.rhsBatchDimensions.size() ||
      numbers.lhsContractingDimensions.size() != numbers.rhsContractingDimensions.size())
    return errorAt(instruction, "dot needs as many lhs as rhs batch and contracting dimensions");
  auto left = classifyDimensions(instruction, lhs, numbers.lhsBatchDimensions,
                                 numbers.lhsContractingDimensions, "lhs");
  if (!left)
    return left.takeError();
  auto right = classifyDimensions(instruction, rhs, numbers.rhsBatchDimensions,
                                  numbers.rhsContractingDimensions, "rhs");
  if (!right)
    return right.takeError();
  auto checkPairs = [&](llvm::ArrayRef<int64_t> l, llvm::ArrayRef<int64_t> r,
                        llvm::StringRef what) -> llvm::Error {
    for (size_t i = 0; i < l.size(); ++i)
      if (lhs.shape().dim(l[i]) != rhs.shape().dim(r[i]))
        return errorAt(instruction, what + " dimensions lhs " + llvm::Twine(l[i]) + " and rhs " +
                                        llvm::Twine(r[i]) + " differ in size");
    return llvm::Error::success();
  };
  if (llvm::Error error = checkPairs(left->batch, right->batch, "batch"))
    return std::move(error);
  if (llvm::Error error = checkPairs(left->contracting, right->contracting, "contracting"))
    return std::move(error);

  hlo::PrimitiveType type = instruction.shape().elementType();
  for (hlo::PrimitiveType t : {lhs.shape().elementType(), rhs.shape().elementType(), type})
    if (!hasNativeType(t))
      return unsupportedElementType(instruction, t);
  Index dims;
  for (int64_t dim : left->batch)
    dims.push_back(lhs.shape().dim(dim));
  for (int64_t dim : left->free)
    dims.push_back(lhs.shape().dim(dim));
  for (int64_t dim : right->free)
    dims.push_back(rhs.shape().dim(dim));
  auto result = makeArrayResult(instruction, type, dims);
  if (!result)
    return result.takeError();
  visitAccumulator(type, lhs.shape().elementType(), rhs.shape().elementType(), [&](auto zero) {
    multiplyOperands<decltype(zero)>(lhs, *left, rhs, *right, *result, arithmetic);
  });
  wrapSubByteIntegers(*result);
  return result;
}

} // namespace mote::eval
