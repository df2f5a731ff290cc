//===- Printer.cpp - HLO text printer -------------------------------------===//
//
// Prints modules in the style of current XLA dumps. Typed attributes are
// printed under exactly the conditions under which the parser reads them into
// typed fields (everything else was kept raw), so printing loses nothing.
//
//===----------------------------------------------------------------------===//

#include "hlo/Printer.h"

#include "hlo/Float8.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace mote::hlo {

namespace {

void printDims(llvm::raw_ostream &os, llvm::ArrayRef<int64_t> dims) {
  os << '{';
  llvm::interleave(dims, os, ",");
  os << '}';
}

void printQuoted(llvm::raw_ostream &os, llvm::StringRef text) {
  os << '"';
  for (unsigned char c : text) {
    if (c == '"' || c == '\\')
      os << '\\' << c;
    else if (c == '\n')
      os << "\\n";
    else if (c == '\t')
      os << "\\t";
    else if (c == '\r')
      os << "\\r";
    else if (c < 0x20 || c == 0x7f)
      os << "\\x" << llvm::hexdigit(c >> 4, true) << llvm::hexdigit(c & 15, true);
    else
      os << c;
  }
  os << '"';
}

/// Shortest "%g" text that reads back as the same float.
std::string formatShortestFloat(float value) {
  char buffer[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, double(value));
    if (floatBits(std::strtof(buffer, nullptr)) == floatBits(value))
      break;
  }
  return buffer;
}

std::string formatFloat8(PrimitiveType type, uint8_t bits) {
  Float8Format format = float8Format(type);
  double value = float8ToDouble(format, bits);
  if (std::isnan(value)) {
    if (format.kind == Float8Format::Kind::Ieee) {
      std::string text = (bits & 0x80) ? "-nan" : "nan";
      unsigned payload = bits & ((1u << format.mantissaBits) - 1);
      if (payload != (1u << (format.mantissaBits - 1)))
        text += "(0x" + llvm::utohexstr(payload, /*LowerCase=*/true) + ")";
      return text;
    }
    return format.kind == Float8Format::Kind::FiniteNan && (bits & 0x80) ? "-nan" : "nan";
  }
  if (std::isinf(value))
    return value < 0 ? "-inf" : "inf";
  char buffer[32];
  // Whole numbers read best without an exponent (448, not 4.5e+02).
  if (value == std::trunc(value) && std::fabs(value) < 1e15) {
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
    return buffer;
  }
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
    if (float8FromDouble(format, std::strtod(buffer, nullptr)) == bits)
      break;
  }
  return buffer;
}

void printFloat8Array(llvm::raw_ostream &os, const Literal &literal, int64_t dimension,
                      int64_t &linear) {
  const Shape &shape = literal.shape();
  if (dimension == shape.rank()) {
    os << formatFloat8(shape.elementType(), literal.bytes()[linear++]);
    return;
  }
  os << '{';
  for (int64_t i = 0; i < shape.dim(dimension); ++i) {
    if (i)
      os << ", ";
    printFloat8Array(os, literal, dimension + 1, linear);
  }
  os << '}';
}

/// Literal::valueToString(), except that f8 elements are printed as numbers
/// (Literal keeps them as raw bits).
void printLiteralValue(llvm::raw_ostream &os, const Literal &literal) {
  const Shape &shape = literal.shape();
  if (shape.isTuple()) {
    os << '(';
    for (size_t i = 0; i < literal.tupleSize(); ++i) {
      if (i)
        os << ", ";
      printLiteralValue(os, literal.element(i));
    }
    os << ')';
    return;
  }
  if (isF8(shape.elementType())) {
    int64_t linear = 0;
    printFloat8Array(os, literal, 0, linear);
    return;
  }
  os << literal.valueToString();
}

void printWindow(llvm::raw_ostream &os, const Window &window) {
  auto field = [&](llvm::StringRef name, auto get, auto isDefault) {
    bool all = true;
    for (const WindowDimension &dimension : window)
      all &= isDefault(dimension);
    if (all && name != "size")
      return;
    if (name != "size")
      os << ' ';
    os << name << '=';
    for (size_t i = 0; i < window.size(); ++i) {
      if (i)
        os << 'x';
      get(window[i]);
    }
  };
  os << '{';
  if (!window.empty()) {
    field(
        "size", [&](const WindowDimension &d) { os << d.size; }, [](auto &) { return false; });
    field(
        "stride", [&](const WindowDimension &d) { os << d.stride; },
        [](const WindowDimension &d) { return d.stride == 1; });
    field(
        "pad", [&](const WindowDimension &d) { os << d.paddingLow << '_' << d.paddingHigh; },
        [](const WindowDimension &d) { return d.paddingLow == 0 && d.paddingHigh == 0; });
    field(
        "lhs_dilate", [&](const WindowDimension &d) { os << d.baseDilation; },
        [](const WindowDimension &d) { return d.baseDilation == 1; });
    field(
        "rhs_dilate", [&](const WindowDimension &d) { os << d.windowDilation; },
        [](const WindowDimension &d) { return d.windowDilation == 1; });
    field(
        "rhs_reversal", [&](const WindowDimension &d) { os << (d.windowReversal ? 1 : 0); },
        [](const WindowDimension &d) { return !d.windowReversal; });
  }
  os << '}';
}

std::string dimLabels(size_t rank, char first, int64_t firstDim, char second, int64_t secondDim,
                      llvm::ArrayRef<int64_t> spatial) {
  std::string labels(rank, '?');
  auto put = [&](int64_t position, char c) {
    if (position >= 0 && size_t(position) < rank)
      labels[position] = c;
  };
  put(firstDim, first);
  put(secondDim, second);
  for (size_t i = 0; i < spatial.size(); ++i)
    put(spatial[i], char('0' + i));
  return labels;
}

void printDimLabels(llvm::raw_ostream &os, const ConvolutionDimensionNumbers &n) {
  os << dimLabels(n.inputSpatialDimensions.size() + 2, 'b', n.inputBatchDimension, 'f',
                  n.inputFeatureDimension, n.inputSpatialDimensions)
     << '_'
     << dimLabels(n.kernelSpatialDimensions.size() + 2, 'i', n.kernelInputFeatureDimension, 'o',
                  n.kernelOutputFeatureDimension, n.kernelSpatialDimensions)
     << "->"
     << dimLabels(n.outputSpatialDimensions.size() + 2, 'b', n.outputBatchDimension, 'f',
                  n.outputFeatureDimension, n.outputSpatialDimensions);
}

bool isBatchNorm(Opcode opcode) {
  return opcode == Opcode::BatchNormGrad || opcode == Opcode::BatchNormInference ||
         opcode == Opcode::BatchNormTraining;
}

void printCallees(llvm::raw_ostream &os, const Instruction &instruction) {
  llvm::ArrayRef<Computation *> callees = instruction.calledComputations();
  if (callees.empty())
    return;
  auto name = [](const Computation *computation) {
    return "%" + (computation ? computation->name().str() : std::string("<null>"));
  };
  auto named = [&](std::initializer_list<const char *> keys) {
    size_t i = 0;
    for (const char *key : keys)
      if (i < callees.size())
        os << ", " << key << '=' << name(callees[i++]);
  };
  auto list = [&](const char *key) {
    os << ", " << key << "={";
    llvm::interleave(
        callees, os, [&](const Computation *c) { os << name(c); }, ", ");
    os << '}';
  };
  switch (instruction.opcode()) {
  case Opcode::While:
    return named({"condition", "body"});
  case Opcode::SelectAndScatter:
    return named({"select", "scatter"});
  case Opcode::Conditional: {
    const Instruction *selector = instruction.operandCount() ? instruction.operand(0) : nullptr;
    if (callees.size() == 2 && selector && selector->shape().isScalar() &&
        selector->shape().elementType() == PrimitiveType::Pred)
      return named({"true_computation", "false_computation"});
    return list("branch_computations");
  }
  case Opcode::Fusion:
  case Opcode::AsyncStart:
  case Opcode::AsyncUpdate:
  case Opcode::AsyncDone:
    if (callees.size() == 1)
      return named({"calls"});
    return list("called_computations");
  default:
    if (callees.size() == 1)
      return named({"to_apply"});
    return list("called_computations");
  }
}

/// Typed attributes, in a fixed order, each printed only for the opcodes the
/// parser reads it for.
void printTypedAttributes(llvm::raw_ostream &os, const Instruction &instruction) {
  const InstructionAttributes &a = instruction.attributes();
  Opcode opcode = instruction.opcode();
  auto dims = [&](const char *key, llvm::ArrayRef<int64_t> values) {
    os << ", " << key << '=';
    printDims(os, values);
  };
  auto flag = [&](const char *key, bool value) {
    if (value)
      os << ", " << key << "=true";
  };

  if (opcode == Opcode::Fusion && !a.fusionKind.empty())
    os << ", kind=" << a.fusionKind;
  if (opcode == Opcode::GetTupleElement)
    os << ", index=" << a.tupleIndex;
  if (a.hasDimensions)
    dims("dimensions", a.dimensions);
  if (opcode == Opcode::Iota)
    os << ", iota_dimension=" << a.iotaDimension;
  if (opcode == Opcode::Slice) {
    os << ", slice={";
    llvm::interleave(
        a.slice, os,
        [&](const SliceDimension &d) {
          os << '[' << d.start << ':' << d.limit;
          if (d.stride != 1)
            os << ':' << d.stride;
          os << ']';
        },
        ", ");
    os << '}';
  }
  if (opcode == Opcode::DynamicSlice)
    dims("dynamic_slice_sizes", a.dynamicSliceSizes);
  if (opcode == Opcode::Pad) {
    os << ", padding=";
    llvm::interleave(
        a.padding, os,
        [&](const PaddingDimension &d) {
          os << d.low << '_' << d.high;
          if (d.interior != 0)
            os << '_' << d.interior;
        },
        "x");
  }
  if (a.hasWindow) {
    os << ", window=";
    printWindow(os, a.window);
  }
  if (opcode == Opcode::Convolution) {
    os << ", dim_labels=";
    printDimLabels(os, a.convolutionDimensions);
    if (a.featureGroupCount != 1)
      os << ", feature_group_count=" << a.featureGroupCount;
    if (a.batchGroupCount != 1)
      os << ", batch_group_count=" << a.batchGroupCount;
  }
  if (opcode == Opcode::Dot) {
    const DotDimensionNumbers &d = a.dotDimensions;
    if (!d.lhsBatchDimensions.empty())
      dims("lhs_batch_dims", d.lhsBatchDimensions);
    if (!d.lhsContractingDimensions.empty())
      dims("lhs_contracting_dims", d.lhsContractingDimensions);
    if (!d.rhsBatchDimensions.empty())
      dims("rhs_batch_dims", d.rhsBatchDimensions);
    if (!d.rhsContractingDimensions.empty())
      dims("rhs_contracting_dims", d.rhsContractingDimensions);
  }
  if (opcode == Opcode::Gather) {
    const GatherDimensionNumbers &g = a.gatherDimensions;
    dims("offset_dims", g.offsetDims);
    dims("collapsed_slice_dims", g.collapsedSliceDims);
    dims("start_index_map", g.startIndexMap);
    if (!g.operandBatchingDims.empty())
      dims("operand_batching_dims", g.operandBatchingDims);
    if (!g.startIndicesBatchingDims.empty())
      dims("start_indices_batching_dims", g.startIndicesBatchingDims);
    os << ", index_vector_dim=" << g.indexVectorDim;
    dims("slice_sizes", a.gatherSliceSizes);
    flag("indices_are_sorted", a.indicesAreSorted);
  }
  if (opcode == Opcode::Scatter) {
    const ScatterDimensionNumbers &s = a.scatterDimensions;
    dims("update_window_dims", s.updateWindowDims);
    dims("inserted_window_dims", s.insertedWindowDims);
    dims("scatter_dims_to_operand_dims", s.scatterDimsToOperandDims);
    if (!s.inputBatchingDims.empty())
      dims("input_batching_dims", s.inputBatchingDims);
    if (!s.scatterIndicesBatchingDims.empty())
      dims("scatter_indices_batching_dims", s.scatterIndicesBatchingDims);
    os << ", index_vector_dim=" << s.indexVectorDim;
    flag("indices_are_sorted", a.indicesAreSorted);
    flag("unique_indices", a.uniqueIndices);
  }
  if (opcode == Opcode::Compare) {
    os << ", direction=" << comparisonDirectionName(a.comparisonDirection);
    if (a.comparisonType != ComparisonType::Default)
      os << ", type=" << comparisonTypeName(a.comparisonType);
  }
  if (opcode == Opcode::ReducePrecision)
    os << ", exponent_bits=" << a.exponentBits << ", mantissa_bits=" << a.mantissaBits;
  if (opcode == Opcode::Sort)
    flag("is_stable", a.isStable);
  if (opcode == Opcode::TopK)
    os << ", k=" << a.k << ", largest=" << (a.largest ? "true" : "false");
  if (opcode == Opcode::CustomCall) {
    os << ", custom_call_target=";
    printQuoted(os, a.customCallTarget);
  }
  if (opcode == Opcode::Rng)
    os << ", distribution=" << randomDistributionName(a.distribution);
  if (opcode == Opcode::RngBitGenerator)
    os << ", algorithm=" << randomAlgorithmName(a.rngAlgorithm);
  if (opcode == Opcode::Fft) {
    os << ", fft_type=" << fftTypeName(a.fftType);
    dims("fft_length", a.fftLength);
  }
  if (isBatchNorm(opcode))
    os << ", epsilon=" << formatShortestFloat(a.epsilon) << ", feature_index=" << a.featureIndex;
  if (opcode == Opcode::TriangularSolve) {
    flag("left_side", a.leftSide);
    flag("lower", a.lower);
    flag("unit_diagonal", a.unitDiagonal);
    os << ", transpose_a=" << triangularSolveTransposeName(a.transposeA);
  }
  if (opcode == Opcode::Cholesky)
    flag("lower", a.lower);
  printCallees(os, instruction);
}

void printProgramShape(llvm::raw_ostream &os, const ProgramShape &programShape) {
  os << '(';
  for (size_t i = 0; i < programShape.parameters.size(); ++i) {
    if (i)
      os << ", ";
    if (i < programShape.parameterNames.size() && !programShape.parameterNames[i].empty())
      os << programShape.parameterNames[i] << ": ";
    os << programShape.parameters[i].toString();
  }
  os << ")->" << programShape.result.toString();
}

void printInstructionTo(llvm::raw_ostream &os, const Instruction &instruction) {
  const Computation *parent = instruction.parent();
  if (parent && parent->root() == &instruction)
    os << "ROOT ";
  os << '%' << instruction.name() << " = ";
  // An instruction without a valid shape prints in the shape-less form.
  if (instruction.shape().isValid())
    os << instruction.shape().toString() << ' ';
  os << opcodeName(instruction.opcode()) << '(';
  const InstructionAttributes &attributes = instruction.attributes();
  if (instruction.opcode() == Opcode::Parameter) {
    os << attributes.parameterNumber;
  } else if (instruction.opcode() == Opcode::Constant) {
    if (attributes.literal && !attributes.literalElided)
      printLiteralValue(os, *attributes.literal);
    else
      os << "{...}";
  } else {
    llvm::interleave(
        instruction.operands(), os,
        [&](const Instruction *operand) {
          os << '%' << (operand ? operand->name() : llvm::StringRef("<null>"));
        },
        ", ");
  }
  os << ')';
  printTypedAttributes(os, instruction);
  for (const RawAttribute &attribute : attributes.raw)
    os << ", " << attribute.key << '=' << attribute.value;
}

void printComputation(llvm::raw_ostream &os, const Computation &computation, bool isEntry) {
  if (isEntry)
    os << "ENTRY ";
  os << '%' << computation.name() << " (";
  bool first = true;
  for (const Instruction *parameter : computation.parameters()) {
    if (!parameter)
      continue;
    if (!first)
      os << ", ";
    first = false;
    os << parameter->name() << ": " << parameter->shape().toString();
  }
  os << ") -> ";
  if (const Instruction *root = computation.root())
    os << root->shape().toString();
  else
    os << "()";
  os << " {\n";
  for (const auto &instruction : computation.instructions()) {
    os << "  ";
    printInstructionTo(os, *instruction);
    os << '\n';
  }
  os << "}\n";
}

} // namespace

void printModule(const Module &module, llvm::raw_ostream &os) {
  os << "HloModule " << module.name();
  if (const std::optional<ProgramShape> &layout = module.entryComputationLayout()) {
    os << ", entry_computation_layout={";
    printProgramShape(os, *layout);
    os << '}';
  }
  for (const RawAttribute &attribute : module.headerAttributes())
    os << ", " << attribute.key << '=' << attribute.value;
  os << '\n';
  for (const auto &computation : module.computations()) {
    os << '\n';
    printComputation(os, *computation, computation.get() == module.entry());
  }
}

std::string printModule(const Module &module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printModule(module, os);
  return text;
}

std::string printInstruction(const Instruction &instruction) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printInstructionTo(os, instruction);
  return text;
}

} // namespace mote::hlo
