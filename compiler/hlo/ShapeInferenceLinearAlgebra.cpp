//===- ShapeInferenceLinearAlgebra.cpp - Shapes of solver and norm ops -----===//
//
// cholesky, triangular-solve, fft and the batch-norm family.
//
//===----------------------------------------------------------------------===//

#include "hlo/ShapeInferenceRules.h"

namespace mote::hlo::inference {
namespace {

bool isFloatOrComplex(PrimitiveType type) { return isFloatingPoint(type) || isComplex(type); }

/// Batches of square matrices in the two minor dimensions.
llvm::Error checkSquareMatrices(const OpContext &op, llvm::StringRef name, const Shape &a) {
  if (!isFloatOrComplex(a.elementType()))
    return op.error("expected a floating-point or complex '" + name + "', got " +
                    a.toString(false));
  if (a.rank() < 2)
    return op.error("'" + name + "' must have rank at least 2, got " + a.toString(false));
  if (a.dim(a.rank() - 2) != a.dim(a.rank() - 1))
    return op.error("the two minor dimensions of '" + name + "' must be equal, got " +
                    a.toString(false));
  return llvm::Error::success();
}

llvm::Expected<Shape> inferCholesky(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(1))
    return std::move(error);
  if (llvm::Error error = op.expectArray(0, "the operand"))
    return std::move(error);
  if (llvm::Error error = checkSquareMatrices(op, "a", op.operand(0)))
    return std::move(error);
  return withoutLayout(op.operand(0));
}

llvm::Expected<Shape> inferTriangularSolve(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(2))
    return std::move(error);
  if (llvm::Error error = op.expectArray(0, "a"))
    return std::move(error);
  if (llvm::Error error = op.expectArray(1, "b"))
    return std::move(error);
  const Shape &a = op.operand(0), &b = op.operand(1);
  if (llvm::Error error = checkSquareMatrices(op, "a", a))
    return std::move(error);
  if (a.elementType() != b.elementType())
    return op.error("'a' " + a.toString(false) + " and 'b' " + b.toString(false) +
                    " must have the same element type");
  if (b.rank() != a.rank())
    return op.error("'a' " + a.toString(false) + " and 'b' " + b.toString(false) +
                    " must have the same rank");
  bool left = op.attributes().leftSide;
  int64_t shared = b.dim(b.rank() - (left ? 2 : 1));
  if (a.dim(a.rank() - 1) != shared)
    return op.error("'a' " + a.toString(false) + " does not match 'b' " + b.toString(false) +
                    (left ? " on the left" : " on the right"));
  for (int64_t i = 0; i + 2 < a.rank(); ++i)
    if (a.dim(i) != b.dim(i))
      return op.error("batch dimension " + llvm::Twine(i) + " of 'a' " + a.toString(false) +
                      " and 'b' " + b.toString(false) + " differ");
  return withoutLayout(b);
}

llvm::Expected<Shape> inferFft(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(1))
    return std::move(error);
  if (llvm::Error error = op.expectArray(0, "the operand"))
    return std::move(error);
  const Shape &in = op.operand(0);
  const DimVector &length = op.attributes().fftLength;
  int64_t fftRank = length.size();
  if (fftRank < 1 || fftRank > 3)
    return op.error("fft_length must have 1 to 3 entries, got " + dimsToString(length));
  if (in.rank() < fftRank)
    return op.error("a rank-" + llvm::Twine(fftRank) + " FFT needs an operand of at least rank " +
                    llvm::Twine(fftRank) + ", got " + in.toString(false));
  int64_t first = in.rank() - fftRank;
  Shape result = withoutLayout(in);
  DimVector dims(in.dims().begin(), in.dims().end());
  switch (op.attributes().fftType) {
  case FftType::FFT:
  case FftType::IFFT:
    if (!isComplex(in.elementType()))
      return op.error("FFT and IFFT need a complex operand, got " + in.toString(false));
    return result;
  case FftType::RFFT:
    if (in.elementType() != PrimitiveType::F32 && in.elementType() != PrimitiveType::F64)
      return op.error("RFFT needs an f32 or f64 operand, got " + in.toString(false));
    for (int64_t i = 0; i < fftRank; ++i)
      if (in.dim(first + i) != length[i])
        return op.error("RFFT operand dimension " + llvm::Twine(first + i) + " is " +
                        llvm::Twine(in.dim(first + i)) + " but fft_length says " +
                        llvm::Twine(length[i]));
    if (length.back() != 0)
      dims.back() = length.back() / 2 + 1;
    result.setElementType(in.elementType() == PrimitiveType::F32 ? PrimitiveType::C64
                                                                 : PrimitiveType::C128);
    result.setDims(dims);
    return result;
  case FftType::IRFFT: {
    if (!isComplex(in.elementType()))
      return op.error("IRFFT needs a complex operand, got " + in.toString(false));
    for (int64_t i = 0; i + 1 < fftRank; ++i)
      if (in.dim(first + i) != length[i])
        return op.error("IRFFT operand dimension " + llvm::Twine(first + i) + " is " +
                        llvm::Twine(in.dim(first + i)) + " but fft_length says " +
                        llvm::Twine(length[i]));
    int64_t last = in.dim(in.rank() - 1);
    if ((last != 0 || length.back() != 0) && last != length.back() / 2 + 1)
      return op.error("IRFFT operand's last dimension is " + llvm::Twine(last) + " but should be " +
                      llvm::Twine(length.back() / 2 + 1) + " for fft_length " +
                      dimsToString(length));
    dims.back() = length.back();
    result.setElementType(complexComponentType(in.elementType()));
    result.setDims(dims);
    return result;
  }
  }
  return op.error("unknown fft_type");
}

/// batch-norm operands: a floating-point operand and rank-1 per-feature
/// vectors of the feature dimension's size and the same element type.
llvm::Error checkBatchNorm(const OpContext &op, llvm::ArrayRef<const char *> vectorNames,
                           size_t firstVector) {
  for (size_t i = 0; i < op.operandCount(); ++i)
    if (llvm::Error error = op.expectArray(i, "every operand"))
      return error;
  const Shape &x = op.operand(0);
  int64_t feature = op.attributes().featureIndex;
  if (x.rank() < 1)
    return op.error("the operand must have rank at least 1");
  if (feature < 0 || feature >= x.rank())
    return op.error("feature_index=" + llvm::Twine(feature) + " is out of range for " +
                    x.toString(false));
  if (!isFloatingPoint(x.elementType()))
    return op.error("the operand must be floating-point, got " + x.toString(false));
  int64_t features = x.dim(feature);
  for (size_t i = 0; i < vectorNames.size(); ++i) {
    const Shape &v = op.operand(firstVector + i);
    llvm::StringRef name = vectorNames[i];
    if (v.rank() != 1)
      return op.error(name + " must have rank 1, got " + v.toString(false));
    if (!sameTypeIgnoringFpPrecision(v.elementType(), x.elementType()))
      return op.error(name + " " + v.toString(false) + " and the operand " + x.toString(false) +
                      " have different element types");
    if (v.dim(0) != features)
      return op.error(name + " has " + llvm::Twine(v.dim(0)) + " elements but feature dimension " +
                      llvm::Twine(feature) + " has " + llvm::Twine(features));
  }
  return llvm::Error::success();
}

llvm::Expected<Shape> inferBatchNorm(const OpContext &op) {
  Opcode opcode = op.instruction().opcode();
  const Shape *x = nullptr;
  if (opcode == Opcode::BatchNormTraining) {
    if (llvm::Error error = op.expectOperandCount(3))
      return std::move(error);
    if (llvm::Error error = checkBatchNorm(op, {"scale", "offset"}, 1))
      return std::move(error);
    x = &op.operand(0);
  } else if (opcode == Opcode::BatchNormInference) {
    if (llvm::Error error = op.expectOperandCount(5))
      return std::move(error);
    if (llvm::Error error = checkBatchNorm(op, {"scale", "offset", "mean", "variance"}, 1))
      return std::move(error);
    return withoutLayout(op.operand(0));
  } else {
    if (llvm::Error error = op.expectOperandCount(5))
      return std::move(error);
    if (llvm::Error error = checkBatchNorm(op, {"scale", "mean", "variance"}, 1))
      return std::move(error);
    x = &op.operand(0);
    const Shape &gradOutput = op.operand(4);
    if (!gradOutput.isArray() || !isFloatingPoint(gradOutput.elementType()) ||
        !sameTypeIgnoringFpPrecision(gradOutput.elementType(), x->elementType()) ||
        !sameDims(gradOutput, *x))
      return op.error("grad_output " + gradOutput.toString(false) +
                      " must have the operand's dimensions and element type " + x->toString(false));
  }
  Shape features = Shape::array(x->elementType(), {x->dim(op.attributes().featureIndex)});
  return Shape::tuple({withoutLayout(*x), features, features});
}

} // namespace

llvm::Expected<Shape> inferLinearAlgebra(const OpContext &op) {
  switch (op.instruction().opcode()) {
  case Opcode::Cholesky:
    return inferCholesky(op);
  case Opcode::TriangularSolve:
    return inferTriangularSolve(op);
  case Opcode::Fft:
    return inferFft(op);
  default:
    return inferBatchNorm(op);
  }
}

} // namespace mote::hlo::inference
