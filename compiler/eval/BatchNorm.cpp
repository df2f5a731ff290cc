//===- BatchNorm.cpp - batch-norm-training, -inference, -grad -------------===//
//
// The formulas of XLA's BatchNormExpander, evaluated per feature in double
// and rounded once to the element type (epsilon is first rounded to the
// element type, as the expander does). With N the elements per feature:
//   training:  mean = sum(x) / N, var = sum(x^2) / N - mean^2,
//              y = (x - mean) * rsqrt(var + eps) * scale + offset
//   inference: y = (x - mean) * rsqrt(var + eps) * scale + offset
//   grad:      grad_offset = sum(dy), grad_scale = sum(dy * (x - mean)) *
//              rsqrt(var + eps), dx = scale * rsqrt(var + eps) / N *
//              (N * dy - grad_offset - (x - mean) * sum(dy * (x - mean)) / (var + eps))
//
//===----------------------------------------------------------------------===//

#include "eval/OpEvaluators.h"
#include "eval/OperandChecks.h"

#include "hlo/Diagnostics.h"

#include <cmath>
#include <type_traits>
#include <vector>

namespace mote::eval {

using hlo::errorAt;
using hlo::Literal;
using hlo::Opcode;

namespace {

/// The elements of a floating-point literal as doubles.
std::vector<double> load(const Literal &literal) {
  std::vector<double> values(static_cast<size_t>(literal.elementCount()));
  hlo::visitElementType(
      literal.shape().elementType(),
      [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          const T *data = literal.data<T>();
          for (size_t i = 0; i < values.size(); ++i)
            values[i] = data[i];
        } else if constexpr (std::is_same_v<T, hlo::BFloat16> || std::is_same_v<T, hlo::Float16>) {
          const T *data = literal.data<T>();
          for (size_t i = 0; i < values.size(); ++i)
            values[i] = static_cast<float>(data[i]);
        }
      },
      [] {});
  return values;
}

/// A literal of `shape` (floating point) holding `values` rounded to it.
Literal store(const std::vector<double> &values, const hlo::Shape &shape) {
  Literal literal(shape);
  hlo::visitElementType(
      shape.elementType(),
      [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          T *data = literal.data<T>();
          for (size_t i = 0; i < values.size(); ++i)
            data[i] = static_cast<T>(values[i]);
        } else if constexpr (std::is_same_v<T, hlo::BFloat16> || std::is_same_v<T, hlo::Float16>) {
          T *data = literal.data<T>();
          for (size_t i = 0; i < values.size(); ++i)
            data[i] = T(static_cast<float>(values[i]));
        }
      },
      [] {});
  return literal;
}

/// The operand as [outer][features][inner]: element i has feature
/// (i / inner) % features.
struct FeatureLayout {
  int64_t outer, features, inner;

  /// Calls fn(linear index, feature) for every element, in order.
  template <typename Fn> void forEach(Fn &&fn) const {
    int64_t i = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t f = 0; f < features; ++f)
        for (int64_t k = 0; k < inner; ++k)
          fn(i++, f);
  }
};

template <typename T> double widen(T value) {
  if constexpr (std::is_same_v<T, hlo::BFloat16> || std::is_same_v<T, hlo::Float16>)
    return static_cast<float>(value);
  else
    return static_cast<double>(value);
}

template <typename T> T narrow(double value) {
  if constexpr (std::is_same_v<T, hlo::BFloat16> || std::is_same_v<T, hlo::Float16>)
    return T(static_cast<float>(value));
  else
    return static_cast<T>(value);
}

/// y = (x - mean) * factor + offset, per feature.
template <typename T>
Literal normalize(const Literal &operand, const FeatureLayout &layout,
                  const std::vector<double> &mean, const std::vector<double> &factor,
                  const std::vector<double> &offset, const hlo::Shape &shape) {
  Literal result(shape);
  const T *x = operand.data<T>();
  T *y = result.data<T>();
  layout.forEach([&](int64_t i, int64_t f) {
    y[i] = narrow<T>((widen(x[i]) - mean[f]) * factor[f] + offset[f]);
  });
  return result;
}

template <typename T>
Result batchNormTyped(const hlo::Instruction &instruction, Operands operands,
                      const FeatureLayout &layout, double epsilon) {
  const Opcode opcode = instruction.opcode();
  const hlo::Shape &resultShape = instruction.shape();
  const Literal &operand = *operands[0];
  const T *x = operand.data<T>();
  const int64_t features = layout.features;
  const double count = double(layout.outer * layout.inner);
  const std::vector<double> scale = load(*operands[1]);
  std::vector<double> factor(features);

  if (opcode == Opcode::BatchNormInference) {
    const std::vector<double> offset = load(*operands[2]);
    const std::vector<double> mean = load(*operands[3]);
    const std::vector<double> variance = load(*operands[4]);
    for (int64_t f = 0; f < features; ++f)
      factor[f] = scale[f] / std::sqrt(variance[f] + epsilon);
    return normalize<T>(operand, layout, mean, factor, offset, resultShape);
  }

  std::vector<Literal> elements;
  if (opcode == Opcode::BatchNormTraining) {
    const std::vector<double> offset = load(*operands[2]);
    std::vector<double> mean(features, 0.0), variance(features, 0.0);
    layout.forEach([&](int64_t i, int64_t f) {
      const double value = widen(x[i]);
      mean[f] += value;
      variance[f] += value * value;
    });
    for (int64_t f = 0; f < features; ++f) {
      mean[f] /= count;
      variance[f] = variance[f] / count - mean[f] * mean[f];
      factor[f] = scale[f] / std::sqrt(variance[f] + epsilon);
    }
    elements.push_back(
        normalize<T>(operand, layout, mean, factor, offset, resultShape.tupleElement(0)));
    elements.push_back(store(mean, resultShape.tupleElement(1)));
    elements.push_back(store(variance, resultShape.tupleElement(2)));
    return Literal::tuple(std::move(elements));
  }

  // batch-norm-grad(operand, scale, mean, variance, grad_output).
  const std::vector<double> mean = load(*operands[2]);
  const std::vector<double> variance = load(*operands[3]);
  const T *dy = operands[4]->data<T>();
  std::vector<double> sumDy(features, 0.0), sumDyCentered(features, 0.0);
  layout.forEach([&](int64_t i, int64_t f) {
    sumDy[f] += widen(dy[i]);
    sumDyCentered[f] += widen(dy[i]) * (widen(x[i]) - mean[f]);
  });
  // dx = scale / sqrt(var + eps) / N * (N dy - sum(dy) - (x - mean) *
  //      sum(dy (x - mean)) / (var + eps)).
  std::vector<double> gradScale(features), centeredFactor(features);
  for (int64_t f = 0; f < features; ++f) {
    const double varianceEpsilon = variance[f] + epsilon;
    gradScale[f] = sumDyCentered[f] / std::sqrt(varianceEpsilon);
    factor[f] = scale[f] / std::sqrt(varianceEpsilon) / count;
    centeredFactor[f] = sumDyCentered[f] / varianceEpsilon;
  }
  Literal gradOperand(resultShape.tupleElement(0));
  T *dx = gradOperand.data<T>();
  layout.forEach([&](int64_t i, int64_t f) {
    dx[i] = narrow<T>(factor[f] * (count * widen(dy[i]) - sumDy[f] -
                                   (widen(x[i]) - mean[f]) * centeredFactor[f]));
  });
  elements.push_back(std::move(gradOperand));
  elements.push_back(store(gradScale, resultShape.tupleElement(1)));
  elements.push_back(store(sumDy, resultShape.tupleElement(2)));
  return Literal::tuple(std::move(elements));
}

} // namespace

Result evaluateBatchNorm(const hlo::Instruction &instruction, Operands operands) {
  const Opcode opcode = instruction.opcode();
  const size_t expected = opcode == Opcode::BatchNormTraining ? 3 : 5;
  if (llvm::Error error = expectArrayOperands(instruction, operands, expected))
    return std::move(error);
  const Literal &operand = *operands[0];
  const hlo::Shape &shape = operand.shape();
  const hlo::PrimitiveType type = shape.elementType();
  if (!hlo::isFloatingPoint(type) || hlo::isF8(type))
    return unsupportedElementType(instruction, type);
  const int64_t feature = instruction.attributes().featureIndex;
  if (feature < 0 || feature >= shape.rank())
    return errorAt(instruction, "feature_index " + llvm::Twine(feature) + " is out of range");
  const int64_t features = shape.dim(feature);
  const hlo::Shape featureShape = hlo::Shape::array(type, {features});
  // operands 1..4 are per-feature vectors, except grad's operand 4 (dy).
  for (size_t i = 1; i < expected; ++i) {
    const hlo::Shape &expectedShape =
        (opcode == Opcode::BatchNormGrad && i == 4) ? shape : featureShape;
    if (!operands[i]->shape().compatible(expectedShape))
      return errorAt(instruction, "operand " + llvm::Twine(i) + " must be " +
                                      expectedShape.toString(false) + ", got " +
                                      operands[i]->shape().toString(false));
  }
  const hlo::Shape &resultShape = instruction.shape();
  const bool tupleResult = opcode != Opcode::BatchNormInference;
  if (tupleResult ? (!resultShape.isTuple() || resultShape.tupleSize() != 3 ||
                     !resultShape.tupleElement(0).compatible(shape) ||
                     !resultShape.tupleElement(1).compatible(featureShape) ||
                     !resultShape.tupleElement(2).compatible(featureShape))
                  : !resultShape.compatible(shape))
    return errorAt(instruction, "result shape " + resultShape.toString(false) +
                                    " does not match the batch norm of " + shape.toString(false));

  FeatureLayout layout{1, features, 1};
  for (int64_t d = 0; d < feature; ++d)
    layout.outer *= shape.dim(d);
  for (int64_t d = feature + 1; d < shape.rank(); ++d)
    layout.inner *= shape.dim(d);
  Literal epsilonLiteral(hlo::Shape::scalar(type));
  epsilonLiteral.setFromDouble(0, instruction.attributes().epsilon);
  const double epsilon = epsilonLiteral.getAsDouble(0);
  return hlo::visitElementType(
      type,
      [&](auto tag) -> Result {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                      std::is_same_v<T, hlo::BFloat16> || std::is_same_v<T, hlo::Float16>)
          return batchNormTyped<T>(instruction, operands, layout, epsilon);
        else
          return unsupportedElementType(instruction, type);
      },
      [&]() -> Result { return unsupportedElementType(instruction, type); });
}

} // namespace mote::eval
