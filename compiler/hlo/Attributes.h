//===- Attributes.h - Typed attributes of HLO instructions ------*- C++ -*-===//
///
/// \file
/// The attributes that give an HLO op its meaning (dimension numbers, windows,
/// slices, comparison directions...), in typed form. Attributes that do not
/// change single-device semantics (metadata, sharding, frontend_attributes,
/// backend_config of ordinary ops...) are kept as raw text for printing.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_HLO_ATTRIBUTES_H
#define MOTE_HLO_ATTRIBUTES_H

#include "hlo/Literal.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>
#include <vector>

namespace mote::hlo {

using DimVector = llvm::SmallVector<int64_t, 4>;

/// One dimension of `window={size=3x3 stride=2x2 pad=0_1x0_1 lhs_dilate=1x1
/// rhs_dilate=1x1 rhs_reversal=0x0}`.
struct WindowDimension {
  int64_t size = 1;
  int64_t stride = 1;
  int64_t paddingLow = 0;
  int64_t paddingHigh = 0;
  int64_t baseDilation = 1;   ///< lhs_dilate
  int64_t windowDilation = 1; ///< rhs_dilate
  bool windowReversal = false;
};
using Window = llvm::SmallVector<WindowDimension, 4>;

/// `dim_labels=b01f_01io->b01f`: which dimension of each operand is batch,
/// feature and spatial.
struct ConvolutionDimensionNumbers {
  int64_t inputBatchDimension = 0;
  int64_t inputFeatureDimension = 0;
  DimVector inputSpatialDimensions;
  int64_t kernelInputFeatureDimension = 0;
  int64_t kernelOutputFeatureDimension = 0;
  DimVector kernelSpatialDimensions;
  int64_t outputBatchDimension = 0;
  int64_t outputFeatureDimension = 0;
  DimVector outputSpatialDimensions;
};

/// `lhs_batch_dims={0} lhs_contracting_dims={2} rhs_batch_dims={0} rhs_contracting_dims={1}`.
struct DotDimensionNumbers {
  DimVector lhsBatchDimensions;
  DimVector lhsContractingDimensions;
  DimVector rhsBatchDimensions;
  DimVector rhsContractingDimensions;
};

struct GatherDimensionNumbers {
  DimVector offsetDims;
  DimVector collapsedSliceDims;
  DimVector startIndexMap;
  int64_t indexVectorDim = 0;
  DimVector operandBatchingDims;
  DimVector startIndicesBatchingDims;
};

struct ScatterDimensionNumbers {
  DimVector updateWindowDims;
  DimVector insertedWindowDims;
  DimVector scatterDimsToOperandDims;
  int64_t indexVectorDim = 0;
  DimVector inputBatchingDims;
  DimVector scatterIndicesBatchingDims;
};

/// One dimension of `slice={[0:4:2], [1:3]}` (stride defaults to 1).
struct SliceDimension {
  int64_t start = 0;
  int64_t limit = 0;
  int64_t stride = 1;
};

/// One dimension of `padding=0_1_2x3_4`: low, high and interior padding.
struct PaddingDimension {
  int64_t low = 0;
  int64_t high = 0;
  int64_t interior = 0;
};

enum class ComparisonDirection : uint8_t { EQ, NE, GE, GT, LE, LT };
/// `type=` of compare; Default means "derived from the element type".
enum class ComparisonType : uint8_t { Default, Float, TotalOrder, Signed, Unsigned };

enum class RandomDistribution : uint8_t { Uniform, Normal };
enum class RandomAlgorithm : uint8_t { Default, ThreeFry, Philox };
enum class FftType : uint8_t { FFT, IFFT, RFFT, IRFFT };
enum class TriangularSolveTranspose : uint8_t { NoTranspose, Transpose, Adjoint };

/// An attribute kept as text: `key=value` exactly as written (value without
/// the key), printed back in the original order.
struct RawAttribute {
  std::string key;
  std::string value;
};

/// The union of what HLO ops carry. Each op uses the few fields its semantics
/// need (documented beside the field); the rest stay at their defaults.
struct InstructionAttributes {
  // parameter(N) / get-tuple-element index=N.
  int64_t parameterNumber = 0;
  int64_t tupleIndex = 0;

  // constant: the value, or nothing when the dump elided it as `{...}`.
  std::optional<Literal> literal;
  bool literalElided = false;

  /// dimensions={...}: broadcast, transpose, reduce, reverse, concatenate, sort,
  /// map, reduce over. For concatenate and sort this holds one element.
  DimVector dimensions;
  bool hasDimensions = false;

  int64_t iotaDimension = 0;          ///< iota
  std::vector<SliceDimension> slice;  ///< slice
  DimVector dynamicSliceSizes;        ///< dynamic-slice
  std::vector<PaddingDimension> padding; ///< pad

  Window window; ///< convolution, reduce-window, select-and-scatter
  bool hasWindow = false;
  ConvolutionDimensionNumbers convolutionDimensions; ///< convolution
  int64_t featureGroupCount = 1;                     ///< convolution
  int64_t batchGroupCount = 1;                       ///< convolution
  DotDimensionNumbers dotDimensions;                 ///< dot
  GatherDimensionNumbers gatherDimensions;           ///< gather
  DimVector gatherSliceSizes;                        ///< gather
  ScatterDimensionNumbers scatterDimensions;         ///< scatter
  bool indicesAreSorted = false;                     ///< gather, scatter
  bool uniqueIndices = false;                        ///< scatter

  ComparisonDirection comparisonDirection = ComparisonDirection::EQ; ///< compare
  ComparisonType comparisonType = ComparisonType::Default;            ///< compare

  int64_t exponentBits = 0; ///< reduce-precision
  int64_t mantissaBits = 0; ///< reduce-precision

  bool isStable = false; ///< sort
  int64_t k = 0;         ///< topk
  bool largest = true;   ///< topk

  std::string fusionKind;       ///< fusion: kLoop, kInput, kOutput, kCustom
  std::string customCallTarget; ///< custom-call
  /// custom-call only: its backend_config / opaque payload may matter (kept raw too).
  std::string customCallBackendConfig;

  RandomDistribution distribution = RandomDistribution::Uniform; ///< rng
  RandomAlgorithm rngAlgorithm = RandomAlgorithm::Default;       ///< rng-bit-generator

  FftType fftType = FftType::FFT; ///< fft
  DimVector fftLength;            ///< fft

  float epsilon = 0;        ///< batch-norm-*
  int64_t featureIndex = 0; ///< batch-norm-*

  bool leftSide = false;    ///< triangular-solve
  bool lower = false;       ///< triangular-solve, cholesky
  bool unitDiagonal = false; ///< triangular-solve
  TriangularSolveTranspose transposeA = TriangularSolveTranspose::NoTranspose;

  /// Everything else, verbatim and in order: metadata, sharding,
  /// frontend_attributes, backend_config, operand_precision, channel_id...
  std::vector<RawAttribute> raw;

  /// The raw attribute with this key, or nullptr.
  const RawAttribute *findRaw(llvm::StringRef key) const {
    for (const RawAttribute &attribute : raw)
      if (attribute.key == key)
        return &attribute;
    return nullptr;
  }
};

llvm::StringRef comparisonDirectionName(ComparisonDirection direction);
llvm::StringRef comparisonTypeName(ComparisonType type);
llvm::StringRef randomDistributionName(RandomDistribution distribution);
llvm::StringRef randomAlgorithmName(RandomAlgorithm algorithm);
llvm::StringRef fftTypeName(FftType type);
llvm::StringRef triangularSolveTransposeName(TriangularSolveTranspose transpose);

} // namespace mote::hlo

#endif // MOTE_HLO_ATTRIBUTES_H
