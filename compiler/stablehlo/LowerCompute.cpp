//===- LowerCompute.cpp - Contractions, linear algebra and random numbers -===//

#include "stablehlo/Converter.h"
#include "stablehlo/Quantized.h"

#include "hlo/Diagnostics.h"

#include "llvm/ADT/StringExtras.h"

namespace mote::stablehlo {

using hlo::DimVector;
using hlo::Instruction;
using hlo::Opcode;
using hlo::PrimitiveType;
using hlo::Shape;

namespace {

llvm::Error singleResult(OpContext &context, llvm::Expected<Instruction *> result) {
  if (!result)
    return result.takeError();
  context.results = {*result};
  return llvm::Error::success();
}

/// The element type of the result, the preferred type of a contraction.
Shape preferredShape(const OpContext &context) {
  Shape shape;
  if (!context.op.resultTypes.empty())
    shape = Shape::scalar(context.op.resultTypes.front().element);
  return shape;
}

/// Operands of a contraction of mixed element types meet in the result's.
void unifyOperandTypes(OpContext &context) {
  PrimitiveType lhs = context.operands[0]->shape().elementType();
  PrimitiveType rhs = context.operands[1]->shape().elementType();
  if (lhs == rhs || context.op.resultTypes.empty())
    return;
  PrimitiveType result = context.op.resultTypes.front().element;
  context.operands[0] = context.convert(context.operands[0], result);
  context.operands[1] = context.convert(context.operands[1], result);
}

} // namespace

llvm::Error readDotDimensions(const Attribute &numbers, hlo::DotDimensionNumbers &dot) {
  for (auto [key, field] :
       {std::pair<llvm::StringRef, DimVector *>{"lhs_batching_dimensions", &dot.lhsBatchDimensions},
        {"rhs_batching_dimensions", &dot.rhsBatchDimensions},
        {"lhs_contracting_dimensions", &dot.lhsContractingDimensions},
        {"rhs_contracting_dimensions", &dot.rhsContractingDimensions}})
    if (const Attribute *value = numbers.field(key))
      if (!integersOf(*value, *field))
        return hlo::errorAt(value->location, "expected integers for '" + key + "'");
  return llvm::Error::success();
}

llvm::Expected<hlo::DotDimensionNumbers> dotDimensions(const OpContext &context) {
  hlo::DotDimensionNumbers dot;
  const Attribute *numbers = context.attribute("dot_dimension_numbers");
  if (!numbers || numbers->kind != Attribute::Kind::Struct)
    return context.error("expected dot_dimension_numbers");
  if (llvm::Error error = readDotDimensions(*numbers, dot))
    return std::move(error);
  return dot;
}

/// `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]` or the `raw` struct form.
llvm::Expected<hlo::ConvolutionDimensionNumbers> convolutionDimensions(const OpContext &context) {
  hlo::ConvolutionDimensionNumbers numbers;
  const Attribute *attribute = context.attribute("dimension_numbers");
  if (!attribute)
    return context.error("expected dimension_numbers");
  if (attribute->kind == Attribute::Kind::Struct) {
    auto get = [&](llvm::StringRef key, int64_t &out) {
      const Attribute *value = attribute->field(key);
      if (value && value->kind == Attribute::Kind::Integer)
        out = value->integer;
    };
    auto getList = [&](llvm::StringRef key, DimVector &out) {
      if (const Attribute *value = attribute->field(key))
        integersOf(*value, out);
    };
    get("input_batch_dimension", numbers.inputBatchDimension);
    get("input_feature_dimension", numbers.inputFeatureDimension);
    getList("input_spatial_dimensions", numbers.inputSpatialDimensions);
    get("kernel_input_feature_dimension", numbers.kernelInputFeatureDimension);
    get("kernel_output_feature_dimension", numbers.kernelOutputFeatureDimension);
    getList("kernel_spatial_dimensions", numbers.kernelSpatialDimensions);
    get("output_batch_dimension", numbers.outputBatchDimension);
    get("output_feature_dimension", numbers.outputFeatureDimension);
    getList("output_spatial_dimensions", numbers.outputSpatialDimensions);
    return numbers;
  }
  if (attribute->kind != Attribute::Kind::ConvDims)
    return context.error("expected dimension_numbers like [b, 0, f]x[0, i, o]->[b, 0, f]");
  llvm::StringRef text = attribute->text;
  llvm::SmallVector<llvm::SmallVector<std::string, 6>, 3> groups;
  size_t position = 0;
  while ((position = text.find('[', position)) != llvm::StringRef::npos) {
    size_t close = text.find(']', position);
    if (close == llvm::StringRef::npos)
      break;
    llvm::SmallVector<llvm::StringRef, 6> parts;
    text.slice(position + 1, close).split(parts, ',');
    groups.emplace_back();
    for (llvm::StringRef part : parts)
      groups.back().push_back(part.trim().str());
    position = close + 1;
  }
  if (groups.size() != 3)
    return hlo::errorAt(attribute->location, "expected three groups [..]x[..]->[..]");
  auto spatial = [&](const llvm::SmallVector<std::string, 6> &group, DimVector &out,
                     llvm::StringRef letterA, int64_t &a, llvm::StringRef letterB,
                     int64_t &b) -> bool {
    std::vector<std::pair<int64_t, int64_t>> ordered; // (spatial index, position)
    for (size_t i = 0; i < group.size(); ++i) {
      if (group[i] == letterA)
        a = static_cast<int64_t>(i);
      else if (group[i] == letterB)
        b = static_cast<int64_t>(i);
      else {
        int64_t index;
        if (llvm::StringRef(group[i]).getAsInteger(10, index))
          return false;
        ordered.emplace_back(index, static_cast<int64_t>(i));
      }
    }
    std::sort(ordered.begin(), ordered.end());
    for (auto [index, position] : ordered)
      out.push_back(position);
    return true;
  };
  if (!spatial(groups[0], numbers.inputSpatialDimensions, "b", numbers.inputBatchDimension, "f",
               numbers.inputFeatureDimension) ||
      !spatial(groups[1], numbers.kernelSpatialDimensions, "i", numbers.kernelInputFeatureDimension,
               "o", numbers.kernelOutputFeatureDimension) ||
      !spatial(groups[2], numbers.outputSpatialDimensions, "b", numbers.outputBatchDimension, "f",
               numbers.outputFeatureDimension))
    return hlo::errorAt(attribute->location, "unexpected letter in the dimension numbers");
  return numbers;
}

namespace {

bool anyQuantizedOperand(const OpContext &context) {
  for (const Type &type : context.op.operandTypes)
    if (type.isQuantized())
      return true;
  return false;
}

llvm::Error lowerDotGeneral(OpContext &context) {
  if (anyQuantizedOperand(context))
    return lowerQuantizedContraction(context);
  if (llvm::Error error = context.expectCounts(2, 1))
    return error;
  auto dot = dotDimensions(context);
  if (!dot)
    return dot.takeError();
  unifyOperandTypes(context);
  return context.setResult(context.addInferred(
      Opcode::Dot, context.operands,
      [&](Instruction &instruction) { instruction.mutableAttributes().dotDimensions = *dot; },
      preferredShape(context)));
}

llvm::Error lowerDot(OpContext &context) {
  if (llvm::Error error = context.expectCounts(2, 1))
    return error;
  hlo::DotDimensionNumbers dot;
  int64_t lhsRank = context.operands[0]->shape().rank();
  dot.lhsContractingDimensions = {lhsRank - 1};
  dot.rhsContractingDimensions = {0};
  unifyOperandTypes(context);
  return context.setResult(context.addInferred(
      Opcode::Dot, context.operands,
      [&](Instruction &instruction) { instruction.mutableAttributes().dotDimensions = dot; },
      preferredShape(context)));
}

} // namespace

llvm::Expected<Instruction *> convolution(OpContext &context, Instruction *lhs, Instruction *rhs,
                                          Shape preferred) {
  auto numbers = convolutionDimensions(context);
  if (!numbers)
    return numbers.takeError();
  auto window = windowAttributes(context, numbers->inputSpatialDimensions.size(), "",
                                 "lhs_dilation", "rhs_dilation");
  if (!window)
    return window.takeError();
  // The window's size is the kernel's spatial extent.
  for (size_t i = 0; i < window->size(); ++i)
    (*window)[i].size = rhs->shape().dim(numbers->kernelSpatialDimensions[i]);
  int64_t featureGroups = context.optionalInteger("feature_group_count").value_or(1);
  int64_t batchGroups = context.optionalInteger("batch_group_count").value_or(1);
  return context.addInferred(
      Opcode::Convolution, {lhs, rhs},
      [&](Instruction &instruction) {
        auto &attributes = instruction.mutableAttributes();
        attributes.convolutionDimensions = *numbers;
        attributes.window = *window;
        attributes.hasWindow = true;
        attributes.featureGroupCount = featureGroups;
        attributes.batchGroupCount = batchGroups;
      },
      std::move(preferred));
}

namespace {

llvm::Error lowerConvolution(OpContext &context) {
  if (anyQuantizedOperand(context))
    return lowerQuantizedContraction(context);
  if (llvm::Error error = context.expectCounts(2, 1))
    return error;
  unifyOperandTypes(context);
  return context.setResult(
      convolution(context, context.operands[0], context.operands[1], preferredShape(context)));
}

/// dynamic_conv with a constant padding is convolution.
llvm::Error lowerDynamicConv(OpContext &context) {
  if (llvm::Error error = context.expectCounts(3, 1))
    return error;
  llvm::SmallVector<int64_t, 8> padding;
  if (!constantIntegers(context.operands[2], padding))
    return context.unsupported("a padding that is not a constant");
  Operation rewritten = context.op;
  rewritten.attributes.push_back(
      {"padding", Attribute::integerList(Attribute::Kind::Array, padding)});
  OpContext inner(context.converter, rewritten, context.scope,
                  {context.operands[0], context.operands[1]});
  unifyOperandTypes(inner);
  if (llvm::Error error = inner.setResult(
          convolution(inner, inner.operands[0], inner.operands[1], preferredShape(inner))))
    return error;
  context.results = inner.results;
  return llvm::Error::success();
}

llvm::Error lowerFft(OpContext &context) {
  if (llvm::Error error = context.expectCounts(1, 1))
    return error;
  std::string type = context.enumValue("fft_type");
  hlo::FftType fftType;
  if (type == "FFT")
    fftType = hlo::FftType::FFT;
  else if (type == "IFFT")
    fftType = hlo::FftType::IFFT;
  else if (type == "RFFT")
    fftType = hlo::FftType::RFFT;
  else if (type == "IRFFT")
    fftType = hlo::FftType::IRFFT;
  else
    return context.error("expected fft_type FFT, IFFT, RFFT or IRFFT");
  DimVector length;
  if (llvm::Error error = context.integers("fft_length", length))
    return error;
  return singleResult(
      context, context.addInferred(Opcode::Fft, context.operands, [&](Instruction &instruction) {
        instruction.mutableAttributes().fftType = fftType;
        instruction.mutableAttributes().fftLength = length;
      }));
}

llvm::Error lowerCholesky(OpContext &context) {
  if (llvm::Error error = context.expectCounts(1, 1))
    return error;
  bool lower = context.flag("lower");
  return context.setResult(
      context.addInferred(Opcode::Cholesky, context.operands, [&](Instruction &instruction) {
        instruction.mutableAttributes().lower = lower;
      }));
}

llvm::Error lowerTriangularSolve(OpContext &context) {
  if (llvm::Error error = context.expectCounts(2, 1))
    return error;
  std::string transpose = context.enumValue("transpose_a");
  hlo::TriangularSolveTranspose transposeA = hlo::TriangularSolveTranspose::NoTranspose;
  if (transpose == "TRANSPOSE")
    transposeA = hlo::TriangularSolveTranspose::Transpose;
  else if (transpose == "ADJOINT")
    transposeA = hlo::TriangularSolveTranspose::Adjoint;
  else if (!transpose.empty() && transpose != "NO_TRANSPOSE")
    return context.error("unknown transpose_a '" + transpose + "'");
  return singleResult(
      context,
      context.addInferred(Opcode::TriangularSolve, context.operands, [&](Instruction &instruction) {
        auto &attributes = instruction.mutableAttributes();
        attributes.leftSide = context.flag("left_side");
        attributes.lower = context.flag("lower");
        attributes.unitDiagonal = context.flag("unit_diagonal");
        attributes.transposeA = transposeA;
      }));
}

llvm::Error lowerBatchNorm(OpContext &context) {
  Opcode opcode = context.op.name == "stablehlo.batch_norm_inference"  ? Opcode::BatchNormInference
                  : context.op.name == "stablehlo.batch_norm_training" ? Opcode::BatchNormTraining
                                                                       : Opcode::BatchNormGrad;
  const Attribute *epsilon = context.attribute("epsilon");
  auto feature = context.integer("feature_index");
  if (!feature)
    return feature.takeError();
  auto result = context.addInferred(opcode, context.operands, [&](Instruction &instruction) {
    instruction.mutableAttributes().epsilon = epsilon ? static_cast<float>(epsilon->number) : 0.0f;
    instruction.mutableAttributes().featureIndex = *feature;
  });
  if (!result)
    return result.takeError();
  if ((*result)->shape().isTuple()) {
    for (size_t i = 0; i < (*result)->shape().tupleSize(); ++i)
      context.results.push_back(context.getTupleElement(*result, static_cast<int64_t>(i)));
  } else {
    context.results = {*result};
  }
  return llvm::Error::success();
}

llvm::Error lowerRngBitGenerator(OpContext &context) {
  if (llvm::Error error = context.expectCounts(1, 2))
    return error;
  std::string algorithm = context.enumValue("rng_algorithm");
  hlo::RandomAlgorithm random = hlo::RandomAlgorithm::Default;
  if (algorithm == "THREE_FRY")
    random = hlo::RandomAlgorithm::ThreeFry;
  else if (algorithm == "PHILOX")
    random = hlo::RandomAlgorithm::Philox;
  Shape shape = Shape::tuple({context.resultShape(0), context.resultShape(1)});
  Instruction *generator = context.add(Opcode::RngBitGenerator, shape, context.operands);
  generator->mutableAttributes().rngAlgorithm = random;
  context.results = {context.getTupleElement(generator, 0), context.getTupleElement(generator, 1)};
  return llvm::Error::success();
}

llvm::Error lowerRng(OpContext &context) {
  if (llvm::Error error = context.expectCounts(3, 1))
    return error;
  Shape shape = context.resultShape(0);
  if (shape.hasUnboundedDims())
    return context.unsupported("dynamic result shape");
  Instruction *rng = context.add(Opcode::Rng, shape, {context.operands[0], context.operands[1]});
  rng->mutableAttributes().distribution = context.enumValue("rng_distribution") == "NORMAL"
                                              ? hlo::RandomDistribution::Normal
                                              : hlo::RandomDistribution::Uniform;
  context.results = {rng};
  return llvm::Error::success();
}

/// partition_id and replica_id: 0 on a single device.
llvm::Error lowerDeviceId(OpContext &context) {
  if (llvm::Error error = context.expectCounts(0, 1))
    return error;
  Opcode opcode =
      context.op.name == "stablehlo.partition_id" ? Opcode::PartitionId : Opcode::ReplicaId;
  context.results = {context.add(opcode, context.resultShape(0), {})};
  return llvm::Error::success();
}

} // namespace

void registerComputeLowerings(llvm::StringMap<OpLowering> &table) {
  table["stablehlo.dot_general"] = lowerDotGeneral;
  table["stablehlo.dot"] = lowerDot;
  table["stablehlo.convolution"] = lowerConvolution;
  table["stablehlo.dynamic_conv"] = lowerDynamicConv;
  table["stablehlo.fft"] = lowerFft;
  table["stablehlo.cholesky"] = lowerCholesky;
  table["stablehlo.triangular_solve"] = lowerTriangularSolve;
  table["stablehlo.batch_norm_inference"] = lowerBatchNorm;
  table["stablehlo.batch_norm_training"] = lowerBatchNorm;
  table["stablehlo.batch_norm_grad"] = lowerBatchNorm;
  table["stablehlo.rng_bit_generator"] = lowerRngBitGenerator;
  table["stablehlo.rng"] = lowerRng;
  table["stablehlo.partition_id"] = lowerDeviceId;
  table["stablehlo.replica_id"] = lowerDeviceId;
  registerReductionLowerings(table);
}

} // namespace mote::stablehlo
