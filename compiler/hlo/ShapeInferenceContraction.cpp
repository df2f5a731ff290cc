//===- ShapeInferenceContraction.cpp - Shapes of dot and convolution -------===//
//
// The result element type is the declared one when the text gives it (XLA's
// preferred_element_type), as long as it does not narrow an integer input;
// otherwise the inputs' type.
//
//===----------------------------------------------------------------------===//

#include "hlo/ShapeInferenceRules.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

namespace mote::hlo::inference {
namespace {

llvm::Expected<PrimitiveType> resultType(const OpContext &op, const Shape &lhs, const Shape &rhs) {
  PrimitiveType from = higherPrecisionType(lhs.elementType(), rhs.elementType());
  const Shape *declared = op.declared();
  if (!declared || !declared->isArray() || declared->elementType() == from)
    return from;
  PrimitiveType preferred = declared->elementType();
  if (!isFloatingPoint(from) && !isComplex(from) && bitWidth(preferred) < bitWidth(from))
    return op.error("result type " + primitiveTypeName(preferred) + " is narrower than the " +
                    primitiveTypeName(from) + " inputs");
  if ((isFloatingPoint(from) || isComplex(from)) && !isFloatingPoint(preferred) &&
      !isComplex(preferred))
    return op.error("result type " + primitiveTypeName(preferred) +
                    " cannot hold the floating-point " + primitiveTypeName(from) + " inputs");
  return preferred;
}

llvm::Error checkDotSide(const OpContext &op, llvm::StringRef side, const Shape &shape,
                         llvm::ArrayRef<int64_t> batch, llvm::ArrayRef<int64_t> contracting) {
  for (llvm::ArrayRef<int64_t> dims : {batch, contracting})
    if (!allInRange(dims, shape.rank()))
      return op.error(side + " dimension numbers " + dimsToString(dims) + " are out of range for " +
                      shape.toString(false));
  DimVector all(batch.begin(), batch.end());
  all.append(contracting.begin(), contracting.end());
  if (!allDistinct(all))
    return op.error(side + " batch and contracting dimensions " + dimsToString(all) +
                    " repeat a dimension");
  return llvm::Error::success();
}

llvm::Expected<Shape> inferDot(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(2))
    return std::move(error);
  if (llvm::Error error = op.expectArray(0, "lhs"))
    return std::move(error);
  if (llvm::Error error = op.expectArray(1, "rhs"))
    return std::move(error);
  const Shape &lhs = op.operand(0), &rhs = op.operand(1);
  const DotDimensionNumbers &dn = op.attributes().dotDimensions;
  if (llvm::Error error =
          checkDotSide(op, "lhs", lhs, dn.lhsBatchDimensions, dn.lhsContractingDimensions))
    return std::move(error);
  if (llvm::Error error =
          checkDotSide(op, "rhs", rhs, dn.rhsBatchDimensions, dn.rhsContractingDimensions))
    return std::move(error);
  if (dn.lhsContractingDimensions.size() != dn.rhsContractingDimensions.size())
    return op.error("lhs has " + llvm::Twine(dn.lhsContractingDimensions.size()) +
                    " contracting dimensions but rhs has " +
                    llvm::Twine(dn.rhsContractingDimensions.size()));
  for (size_t i = 0; i < dn.lhsContractingDimensions.size(); ++i) {
    int64_t l = dn.lhsContractingDimensions[i], r = dn.rhsContractingDimensions[i];
    if (lhs.dim(l) != rhs.dim(r))
      return op.error("lhs contracting dimension " + llvm::Twine(l) + " has size " +
                      llvm::Twine(lhs.dim(l)) + " but rhs contracting dimension " + llvm::Twine(r) +
                      " has size " + llvm::Twine(rhs.dim(r)));
  }
  if (dn.lhsBatchDimensions.size() != dn.rhsBatchDimensions.size())
    return op.error("lhs has " + llvm::Twine(dn.lhsBatchDimensions.size()) +
                    " batch dimensions but rhs has " + llvm::Twine(dn.rhsBatchDimensions.size()));
  for (size_t i = 0; i < dn.lhsBatchDimensions.size(); ++i) {
    int64_t l = dn.lhsBatchDimensions[i], r = dn.rhsBatchDimensions[i];
    if (lhs.dim(l) != rhs.dim(r))
      return op.error("lhs batch dimension " + llvm::Twine(l) + " has size " +
                      llvm::Twine(lhs.dim(l)) + " but rhs batch dimension " + llvm::Twine(r) +
                      " has size " + llvm::Twine(rhs.dim(r)));
  }
  DimVector dims;
  for (int64_t d : dn.lhsBatchDimensions)
    dims.push_back(lhs.dim(d));
  for (int64_t d = 0; d < lhs.rank(); ++d)
    if (!llvm::is_contained(dn.lhsBatchDimensions, d) &&
        !llvm::is_contained(dn.lhsContractingDimensions, d))
      dims.push_back(lhs.dim(d));
  for (int64_t d = 0; d < rhs.rank(); ++d)
    if (!llvm::is_contained(dn.rhsBatchDimensions, d) &&
        !llvm::is_contained(dn.rhsContractingDimensions, d))
      dims.push_back(rhs.dim(d));
  auto type = resultType(op, lhs, rhs);
  if (!type)
    return type.takeError();
  return Shape::array(*type, dims);
}

/// `dims` is a permutation of 0..n-1.
bool isPermutation(DimVector dims, int64_t n) {
  if (static_cast<int64_t>(dims.size()) != n)
    return false;
  std::sort(dims.begin(), dims.end());
  for (int64_t i = 0; i < n; ++i)
    if (dims[i] != i)
      return false;
  return true;
}

llvm::Expected<Shape> inferConvolution(const OpContext &op) {
  if (llvm::Error error = op.expectOperandCount(2))
    return std::move(error);
  if (llvm::Error error = op.expectArray(0, "lhs"))
    return std::move(error);
  if (llvm::Error error = op.expectArray(1, "rhs"))
    return std::move(error);
  const Shape &lhs = op.operand(0), &rhs = op.operand(1);
  const InstructionAttributes &attrs = op.attributes();
  const ConvolutionDimensionNumbers &dn = attrs.convolutionDimensions;
  int64_t featureGroups = attrs.featureGroupCount, batchGroups = attrs.batchGroupCount;
  if (featureGroups <= 0)
    return op.error("feature_group_count must be positive, got " + llvm::Twine(featureGroups));
  if (batchGroups <= 0)
    return op.error("batch_group_count must be positive, got " + llvm::Twine(batchGroups));
  if (featureGroups > 1 && batchGroups > 1)
    return op.error("feature_group_count and batch_group_count cannot both exceed 1");
  size_t spatial = dn.inputSpatialDimensions.size();
  if (dn.kernelSpatialDimensions.size() != spatial || dn.outputSpatialDimensions.size() != spatial)
    return op.error("dim_labels name " + llvm::Twine(spatial) + " input, " +
                    llvm::Twine(dn.kernelSpatialDimensions.size()) + " kernel and " +
                    llvm::Twine(dn.outputSpatialDimensions.size()) +
                    " output spatial dimensions; they must agree");
  if (attrs.window.size() != spatial)
    return op.error("window has " + llvm::Twine(attrs.window.size()) +
                    " dimensions but there are " + llvm::Twine(spatial) + " spatial dimensions");
  int64_t rank = spatial + 2;
  if (lhs.rank() != rank)
    return op.error("lhs " + lhs.toString(false) + " must have rank " + llvm::Twine(rank));
  if (rhs.rank() != rank)
    return op.error("rhs " + rhs.toString(false) + " must have rank " + llvm::Twine(rank));
  DimVector input{dn.inputBatchDimension, dn.inputFeatureDimension};
  input.append(dn.inputSpatialDimensions.begin(), dn.inputSpatialDimensions.end());
  DimVector kernel{dn.kernelInputFeatureDimension, dn.kernelOutputFeatureDimension};
  kernel.append(dn.kernelSpatialDimensions.begin(), dn.kernelSpatialDimensions.end());
  DimVector output{dn.outputBatchDimension, dn.outputFeatureDimension};
  output.append(dn.outputSpatialDimensions.begin(), dn.outputSpatialDimensions.end());
  if (!isPermutation(input, rank))
    return op.error("dim_labels must name each input dimension exactly once");
  if (!isPermutation(kernel, rank))
    return op.error("dim_labels must name each kernel dimension exactly once");
  if (!isPermutation(output, rank))
    return op.error("dim_labels must name each output dimension exactly once");

  int64_t batch = lhs.dim(dn.inputBatchDimension);
  int64_t inputFeatures = lhs.dim(dn.inputFeatureDimension);
  int64_t kernelInputFeatures = rhs.dim(dn.kernelInputFeatureDimension);
  int64_t outputFeatures = rhs.dim(dn.kernelOutputFeatureDimension);
  if (outputFeatures % batchGroups != 0)
    return op.error("kernel output features (" + llvm::Twine(outputFeatures) +
                    ") must be a multiple of batch_group_count (" + llvm::Twine(batchGroups) + ")");
  if (inputFeatures % featureGroups != 0 || inputFeatures / featureGroups != kernelInputFeatures)
    return op.error("input features (" + llvm::Twine(inputFeatures) +
                    ") must equal feature_group_count (" + llvm::Twine(featureGroups) +
                    ") times the kernel input features (" + llvm::Twine(kernelInputFeatures) + ")");
  if (outputFeatures % featureGroups != 0)
    return op.error("kernel output features (" + llvm::Twine(outputFeatures) +
                    ") must be a multiple of feature_group_count (" + llvm::Twine(featureGroups) +
                    ")");
  if (batch % batchGroups != 0)
    return op.error("input batch (" + llvm::Twine(batch) +
                    ") must be a multiple of batch_group_count (" + llvm::Twine(batchGroups) + ")");
  DimVector baseDims;
  for (size_t i = 0; i < spatial; ++i) {
    int64_t kernelSize = rhs.dim(dn.kernelSpatialDimensions[i]);
    if (attrs.window[i].size != kernelSize)
      return op.error("window size " + llvm::Twine(attrs.window[i].size) +
                      " of spatial dimension " + llvm::Twine(i) + " does not match the kernel's " +
                      llvm::Twine(kernelSize));
    baseDims.push_back(lhs.dim(dn.inputSpatialDimensions[i]));
  }
  auto windowed = windowOutputShape(op, Shape::array(lhs.elementType(), baseDims), attrs.window,
                                    lhs.elementType());
  if (!windowed)
    return windowed.takeError();
  DimVector dims(rank, 0);
  dims[dn.outputBatchDimension] = batch / batchGroups;
  dims[dn.outputFeatureDimension] = outputFeatures;
  for (size_t i = 0; i < spatial; ++i)
    dims[dn.outputSpatialDimensions[i]] = windowed->dim(i);
  auto type = resultType(op, lhs, rhs);
  if (!type)
    return type.takeError();
  return Shape::array(*type, dims);
}

} // namespace

llvm::Expected<Shape> inferContraction(const OpContext &op) {
  if (op.instruction().opcode() == Opcode::Dot)
    return inferDot(op);
  return inferConvolution(op);
}

} // namespace mote::hlo::inference
