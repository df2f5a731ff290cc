//===- ParseAttributes.cpp - HLO text parser: instruction attributes ------===//
//
// Decides where each `key=value` of an instruction goes: a typed field of
// InstructionAttributes, a called computation, or the raw list.
//
//===----------------------------------------------------------------------===//

#include "hlo/ParserImpl.h"

#include "llvm/ADT/StringSwitch.h"

namespace mote::hlo::detail {

namespace {

/// The attributes parsed into typed fields (or called computations).
enum class Key {
  Raw,
  Dimensions,
  Index,
  IotaDimension,
  Slice,
  DynamicSliceSizes,
  Padding,
  Window,
  DimLabels,
  FeatureGroupCount,
  BatchGroupCount,
  LhsBatchDims,
  LhsContractingDims,
  RhsBatchDims,
  RhsContractingDims,
  OffsetDims,
  CollapsedSliceDims,
  StartIndexMap,
  OperandBatchingDims,
  StartIndicesBatchingDims,
  SliceSizes,
  IndexVectorDim,
  UpdateWindowDims,
  InsertedWindowDims,
  ScatterDimsToOperandDims,
  InputBatchingDims,
  ScatterIndicesBatchingDims,
  IndicesAreSorted,
  UniqueIndices,
  Direction,
  ComparisonType,
  ExponentBits,
  MantissaBits,
  IsStable,
  K,
  Largest,
  FusionKind,
  CustomCallTarget,
  Distribution,
  Algorithm,
  FftType,
  FftLength,
  Epsilon,
  FeatureIndex,
  LeftSide,
  Lower,
  UnitDiagonal,
  TransposeA,
  ToApply,
  Calls,
  Condition,
  Body,
  Select,
  Scatter,
  TrueComputation,
  FalseComputation,
  BranchComputations,
  CalledComputations,
};

Key keyFor(llvm::StringRef name) {
  return llvm::StringSwitch<Key>(name)
      .Case("dimensions", Key::Dimensions)
      .Case("index", Key::Index)
      .Case("iota_dimension", Key::IotaDimension)
      .Case("slice", Key::Slice)
      .Case("dynamic_slice_sizes", Key::DynamicSliceSizes)
      .Case("padding", Key::Padding)
      .Case("window", Key::Window)
      .Case("dim_labels", Key::DimLabels)
      .Case("feature_group_count", Key::FeatureGroupCount)
      .Case("batch_group_count", Key::BatchGroupCount)
      .Case("lhs_batch_dims", Key::LhsBatchDims)
      .Case("lhs_contracting_dims", Key::LhsContractingDims)
      .Case("rhs_batch_dims", Key::RhsBatchDims)
      .Case("rhs_contracting_dims", Key::RhsContractingDims)
      .Case("offset_dims", Key::OffsetDims)
      .Case("collapsed_slice_dims", Key::CollapsedSliceDims)
      .Case("start_index_map", Key::StartIndexMap)
      .Case("operand_batching_dims", Key::OperandBatchingDims)
      .Case("start_indices_batching_dims", Key::StartIndicesBatchingDims)
      .Case("slice_sizes", Key::SliceSizes)
      .Case("index_vector_dim", Key::IndexVectorDim)
      .Case("update_window_dims", Key::UpdateWindowDims)
      .Case("inserted_window_dims", Key::InsertedWindowDims)
      .Case("scatter_dims_to_operand_dims", Key::ScatterDimsToOperandDims)
      .Case("input_batching_dims", Key::InputBatchingDims)
      .Case("scatter_indices_batching_dims", Key::ScatterIndicesBatchingDims)
      .Case("indices_are_sorted", Key::IndicesAreSorted)
      .Case("unique_indices", Key::UniqueIndices)
      .Case("direction", Key::Direction)
      .Case("type", Key::ComparisonType)
      .Case("exponent_bits", Key::ExponentBits)
      .Case("mantissa_bits", Key::MantissaBits)
      .Case("is_stable", Key::IsStable)
      .Case("k", Key::K)
      .Case("largest", Key::Largest)
      .Case("kind", Key::FusionKind)
      .Case("custom_call_target", Key::CustomCallTarget)
      .Case("distribution", Key::Distribution)
      .Case("algorithm", Key::Algorithm)
      .Case("fft_type", Key::FftType)
      .Case("fft_length", Key::FftLength)
      .Case("epsilon", Key::Epsilon)
      .Case("feature_index", Key::FeatureIndex)
      .Case("left_side", Key::LeftSide)
      .Case("lower", Key::Lower)
      .Case("unit_diagonal", Key::UnitDiagonal)
      .Case("transpose_a", Key::TransposeA)
      .Case("to_apply", Key::ToApply)
      .Case("calls", Key::Calls)
      .Case("condition", Key::Condition)
      .Case("body", Key::Body)
      .Case("select", Key::Select)
      .Case("scatter", Key::Scatter)
      .Case("true_computation", Key::TrueComputation)
      .Case("false_computation", Key::FalseComputation)
      .Case("branch_computations", Key::BranchComputations)
      .Case("called_computations", Key::CalledComputations)
      .Default(Key::Raw);
}

bool isBatchNorm(Opcode opcode) {
  return opcode == Opcode::BatchNormGrad || opcode == Opcode::BatchNormInference ||
         opcode == Opcode::BatchNormTraining;
}

/// Whether `key` has a typed meaning for `opcode`. Anything else is kept raw
/// so that printing loses nothing; the printer prints typed fields under the
/// same conditions.
bool appliesTo(Key key, Opcode opcode) {
  switch (key) {
  case Key::Raw:
    return false;
  case Key::Dimensions:
  case Key::Window:
    return true; // tracked by hasDimensions / hasWindow
  case Key::Index:
    return opcode == Opcode::GetTupleElement;
  case Key::IotaDimension:
    return opcode == Opcode::Iota;
  case Key::Slice:
    return opcode == Opcode::Slice;
  case Key::DynamicSliceSizes:
    return opcode == Opcode::DynamicSlice;
  case Key::Padding:
    return opcode == Opcode::Pad;
  case Key::DimLabels:
  case Key::FeatureGroupCount:
  case Key::BatchGroupCount:
    return opcode == Opcode::Convolution;
  case Key::LhsBatchDims:
  case Key::LhsContractingDims:
  case Key::RhsBatchDims:
  case Key::RhsContractingDims:
    return opcode == Opcode::Dot;
  case Key::OffsetDims:
  case Key::CollapsedSliceDims:
  case Key::StartIndexMap:
  case Key::OperandBatchingDims:
  case Key::StartIndicesBatchingDims:
  case Key::SliceSizes:
    return opcode == Opcode::Gather;
  case Key::IndexVectorDim:
  case Key::IndicesAreSorted:
    return opcode == Opcode::Gather || opcode == Opcode::Scatter;
  case Key::UpdateWindowDims:
  case Key::InsertedWindowDims:
  case Key::ScatterDimsToOperandDims:
  case Key::InputBatchingDims:
  case Key::ScatterIndicesBatchingDims:
  case Key::UniqueIndices:
    return opcode == Opcode::Scatter;
  case Key::Direction:
  case Key::ComparisonType:
    return opcode == Opcode::Compare;
  case Key::ExponentBits:
  case Key::MantissaBits:
    return opcode == Opcode::ReducePrecision;
  case Key::IsStable:
    return opcode == Opcode::Sort;
  case Key::K:
  case Key::Largest:
    return opcode == Opcode::TopK;
  case Key::FusionKind:
    return opcode == Opcode::Fusion;
  case Key::CustomCallTarget:
    return opcode == Opcode::CustomCall;
  case Key::Distribution:
    return opcode == Opcode::Rng;
  case Key::Algorithm:
    return opcode == Opcode::RngBitGenerator;
  case Key::FftType:
  case Key::FftLength:
    return opcode == Opcode::Fft;
  case Key::Epsilon:
  case Key::FeatureIndex:
    return isBatchNorm(opcode);
  case Key::LeftSide:
  case Key::UnitDiagonal:
  case Key::TransposeA:
    return opcode == Opcode::TriangularSolve;
  case Key::Lower:
    return opcode == Opcode::TriangularSolve || opcode == Opcode::Cholesky;
  case Key::Condition:
  case Key::Body:
    return opcode == Opcode::While;
  case Key::Select:
  case Key::Scatter:
    return opcode == Opcode::SelectAndScatter;
  case Key::TrueComputation:
  case Key::FalseComputation:
  case Key::BranchComputations:
    return opcode == Opcode::Conditional;
  case Key::ToApply:
  case Key::Calls:
  case Key::CalledComputations:
    return opcode != Opcode::While && opcode != Opcode::SelectAndScatter &&
           opcode != Opcode::Conditional;
  }
  return false;
}

} // namespace

/// The identifier's position in `names`.
template <size_t N>
static std::optional<unsigned> matchName(llvm::StringRef text, const char *const (&names)[N]) {
  for (unsigned i = 0; i < N; ++i)
    if (text == names[i])
      return i;
  return std::nullopt;
}

namespace {
class AttributeParser {
public:
  AttributeParser(HloParser &parser, InstructionInProgress &progress)
      : p(parser), progress(progress), attributes(progress.instruction->mutableAttributes()) {}

  bool parse(Key key, llvm::StringRef name);

private:
  bool parseCallee(std::optional<CalleeReference> &slot, llvm::StringRef name);
  bool parseCalleeList(std::optional<std::vector<CalleeReference>> &slot, llvm::StringRef name);
  template <size_t N, typename Enum>
  bool parseEnum(Enum &value, const char *const (&names)[N], llvm::StringRef name,
                 unsigned offset = 0);

  HloParser &p;
  InstructionInProgress &progress;
  InstructionAttributes &attributes;
};
} // namespace

template <size_t N, typename Enum>
bool AttributeParser::parseEnum(Enum &value, const char *const (&names)[N], llvm::StringRef name,
                                unsigned offset) {
  std::optional<unsigned> index;
  if (p.tok().is(TokenKind::Identifier))
    index = matchName(p.tok().text, names);
  if (!index) {
    std::string choices;
    for (const char *choice : names)
      choices += (choices.empty() ? "" : ", ") + std::string(choice);
    return p.failHere("expected one of " + choices + " for '" + name + "'");
  }
  value = static_cast<Enum>(*index + offset);
  p.consume();
  return true;
}

bool AttributeParser::parseCallee(std::optional<CalleeReference> &slot, llvm::StringRef name) {
  slot.emplace();
  return p.parseCalleeReference(*slot, name);
}

bool AttributeParser::parseCalleeList(std::optional<std::vector<CalleeReference>> &slot,
                                      llvm::StringRef name) {
  slot.emplace();
  if (!p.expect(TokenKind::LBrace, "expected '{' to start the '" + name + "' list"))
    return false;
  if (p.consumeIf(TokenKind::RBrace))
    return true;
  while (true) {
    slot->emplace_back();
    if (!p.parseCalleeReference(slot->back(), name))
      return false;
    if (p.consumeIf(TokenKind::Comma))
      continue;
    return p.expect(TokenKind::RBrace, "expected ',' or '}' in the '" + name + "' list");
  }
}

bool AttributeParser::parse(Key key, llvm::StringRef name) {
  InstructionAttributes &a = attributes;
  CalleeAttributes &c = progress.callees;
  static const char *const directions[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
  static const char *const comparisonTypes[] = {"FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"};
  static const char *const distributions[] = {"rng_uniform", "rng_normal"};
  static const char *const algorithms[] = {"rng_default", "rng_three_fry", "rng_philox"};
  static const char *const fftTypes[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
  static const char *const transposes[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
  GatherDimensionNumbers &g = a.gatherDimensions;
  ScatterDimensionNumbers &s = a.scatterDimensions;
  DotDimensionNumbers &d = a.dotDimensions;
  switch (key) {
  case Key::Raw:
    return false;
  case Key::Dimensions:
    a.hasDimensions = true;
    return p.parseDimList(a.dimensions, name);
  case Key::Index:
    return p.parseInt64(a.tupleIndex, "'index'");
  case Key::IotaDimension:
    return p.parseInt64(a.iotaDimension, "'iota_dimension'");
  case Key::Slice:
    return p.parseSlice(a.slice);
  case Key::DynamicSliceSizes:
    return p.parseDimList(a.dynamicSliceSizes, name);
  case Key::Padding:
    return p.parsePadding(a.padding);
  case Key::Window:
    a.hasWindow = true;
    return p.parseWindow(a.window);
  case Key::DimLabels:
    return p.parseDimLabels(a.convolutionDimensions);
  case Key::FeatureGroupCount:
    return p.parseInt64(a.featureGroupCount, "'feature_group_count'");
  case Key::BatchGroupCount:
    return p.parseInt64(a.batchGroupCount, "'batch_group_count'");
  case Key::LhsBatchDims:
    return p.parseDimList(d.lhsBatchDimensions, name);
  case Key::LhsContractingDims:
    return p.parseDimList(d.lhsContractingDimensions, name);
  case Key::RhsBatchDims:
    return p.parseDimList(d.rhsBatchDimensions, name);
  case Key::RhsContractingDims:
    return p.parseDimList(d.rhsContractingDimensions, name);
  case Key::OffsetDims:
    return p.parseDimList(g.offsetDims, name);
  case Key::CollapsedSliceDims:
    return p.parseDimList(g.collapsedSliceDims, name);
  case Key::StartIndexMap:
    return p.parseDimList(g.startIndexMap, name);
  case Key::OperandBatchingDims:
    return p.parseDimList(g.operandBatchingDims, name);
  case Key::StartIndicesBatchingDims:
    return p.parseDimList(g.startIndicesBatchingDims, name);
  case Key::SliceSizes:
    return p.parseDimList(a.gatherSliceSizes, name);
  case Key::IndexVectorDim: {
    int64_t value;
    if (!p.parseInt64(value, "'index_vector_dim'"))
      return false;
    g.indexVectorDim = s.indexVectorDim = value;
    return true;
  }
  case Key::UpdateWindowDims:
    return p.parseDimList(s.updateWindowDims, name);
  case Key::InsertedWindowDims:
    return p.parseDimList(s.insertedWindowDims, name);
  case Key::ScatterDimsToOperandDims:
    return p.parseDimList(s.scatterDimsToOperandDims, name);
  case Key::InputBatchingDims:
    return p.parseDimList(s.inputBatchingDims, name);
  case Key::ScatterIndicesBatchingDims:
    return p.parseDimList(s.scatterIndicesBatchingDims, name);
  case Key::IndicesAreSorted:
    return p.parseBool(a.indicesAreSorted, name);
  case Key::UniqueIndices:
    return p.parseBool(a.uniqueIndices, name);
  case Key::Direction:
    return parseEnum(a.comparisonDirection, directions, name);
  case Key::ComparisonType:
    return parseEnum(a.comparisonType, comparisonTypes, name, /*offset=*/1);
  case Key::ExponentBits:
    return p.parseInt64(a.exponentBits, "'exponent_bits'");
  case Key::MantissaBits:
    return p.parseInt64(a.mantissaBits, "'mantissa_bits'");
  case Key::IsStable:
    return p.parseBool(a.isStable, name);
  case Key::K:
    return p.parseInt64(a.k, "'k'");
  case Key::Largest:
    return p.parseBool(a.largest, name);
  case Key::FusionKind:
    if (!p.tok().is(TokenKind::Identifier))
      return p.failHere("expected a fusion kind such as kLoop for 'kind'");
    a.fusionKind = p.tok().text.str();
    p.consume();
    return true;
  case Key::CustomCallTarget:
    if (!p.tok().is(TokenKind::String))
      return p.failHere("expected a string for 'custom_call_target'");
    a.customCallTarget = HloParser::unescapeString(p.tok().text);
    p.consume();
    return true;
  case Key::Distribution:
    return parseEnum(a.distribution, distributions, name);
  case Key::Algorithm:
    return parseEnum(a.rngAlgorithm, algorithms, name);
  case Key::FftType:
    return parseEnum(a.fftType, fftTypes, name);
  case Key::FftLength:
    return p.parseDimList(a.fftLength, name);
  case Key::Epsilon: {
    double value;
    if (!p.parseDouble(value, "'epsilon'"))
      return false;
    a.epsilon = static_cast<float>(value);
    return true;
  }
  case Key::FeatureIndex:
    return p.parseInt64(a.featureIndex, "'feature_index'");
  case Key::LeftSide:
    return p.parseBool(a.leftSide, name);
  case Key::Lower:
    return p.parseBool(a.lower, name);
  case Key::UnitDiagonal:
    return p.parseBool(a.unitDiagonal, name);
  case Key::TransposeA:
    return parseEnum(a.transposeA, transposes, name);
  case Key::ToApply:
    return parseCallee(c.toApply, name);
  case Key::Calls:
    return parseCallee(c.calls, name);
  case Key::Condition:
    return parseCallee(c.condition, name);
  case Key::Body:
    return parseCallee(c.body, name);
  case Key::Select:
    return parseCallee(c.select, name);
  case Key::Scatter:
    return parseCallee(c.scatter, name);
  case Key::TrueComputation:
    return parseCallee(c.trueComputation, name);
  case Key::FalseComputation:
    return parseCallee(c.falseComputation, name);
  case Key::BranchComputations:
    return parseCalleeList(c.branches, name);
  case Key::CalledComputations:
    return parseCalleeList(c.called, name);
  }
  return false;
}

bool HloParser::parseInstructionAttribute(InstructionInProgress &progress) {
  if (!tok().is(TokenKind::Identifier))
    return failHere("expected an attribute name after ','");
  Token name = tok();
  consume();
  if (!expect(TokenKind::Equal, "expected '=' after attribute name '" + name.text + "'"))
    return false;
  Instruction &instruction = *progress.instruction;
  Key key = keyFor(name.text);
  if (appliesTo(key, instruction.opcode())) {
    if (!progress.typedKeys.insert(name.text).second)
      return fail(name.location(), "attribute '" + name.text + "' is given twice");
    return AttributeParser(*this, progress).parse(key, name.text);
  }
  RawAttribute attribute{name.text.str(), {}};
  if (!parseRawValue(name.text, attribute.value))
    return false;
  InstructionAttributes &attributes = instruction.mutableAttributes();
  if (name.text == "backend_config" && instruction.opcode() == Opcode::CustomCall) {
    // A custom call's payload may matter to its implementation: keep it
    // unquoted as well.
    Lexer lexer(attribute.value);
    const Token &first = lexer.current();
    if (first.is(TokenKind::String) &&
        first.end() == attribute.value.data() + attribute.value.size())
      attributes.customCallBackendConfig = unescapeString(first.text);
    else
      attributes.customCallBackendConfig = attribute.value;
  }
  attributes.raw.push_back(std::move(attribute));
  return true;
}

} // namespace mote::hlo::detail
