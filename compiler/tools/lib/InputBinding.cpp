//===- InputBinding.cpp - Match user arrays to entry parameters -----------===//

#include "InputBinding.h"

namespace mote::tools {

using hlo::Literal;
using hlo::PrimitiveType;
using hlo::Shape;

std::string describeParameter(const hlo::Instruction &parameter) {
  return "parameter " + std::to_string(parameter.attributes().parameterNumber) + " (%" +
         parameter.name().str() + ", " + parameter.shape().toString(false) + ")";
}

static llvm::Error doesNotFit(llvm::StringRef description, llvm::StringRef source,
                              const llvm::Twine &problem) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "input '" + source +
                                                                     "' does not fit " +
                                                                     description + ": " + problem);
}

static Literal roundToBFloat16(const Literal &value) {
  Literal rounded(Shape::array(PrimitiveType::BF16, value.shape().dims()));
  for (int64_t i = 0; i < value.elementCount(); ++i)
    rounded.set(i, hlo::BFloat16(value.get<float>(i)));
  return rounded;
}

/// Sub-byte integers come one a byte (int8 for s2/s4, uint8 for u2/u4, as
/// `motec eval` writes them), each value within the type's range.
static llvm::Expected<Literal> narrowToSubByte(const Literal &value, PrimitiveType type,
                                               llvm::StringRef parameter, llvm::StringRef source) {
  const int bits = hlo::bitWidth(type);
  const bool isSigned = hlo::isSignedInteger(type);
  const int64_t low = isSigned ? -(int64_t(1) << (bits - 1)) : 0;
  const int64_t high = isSigned ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
  Literal narrowed(Shape::array(type, value.shape().dims()));
  for (int64_t i = 0; i < value.elementCount(); ++i) {
    uint8_t byte = value.bytes()[i];
    int64_t element = isSigned ? int64_t(int8_t(byte)) : int64_t(byte);
    if (element < low || element > high)
      return doesNotFit(parameter, source,
                        "element " + llvm::Twine(i) + " is " + llvm::Twine(element) +
                            ", outside [" + llvm::Twine(low) + ", " + llvm::Twine(high) + "]");
    narrowed.bytes()[i] = byte;
  }
  return narrowed;
}

llvm::Expected<Literal> bindInput(Literal value, const hlo::Instruction &parameter,
                                  llvm::StringRef source) {
  return bindInput(std::move(value), parameter.shape(), describeParameter(parameter), source);
}

llvm::Expected<Literal> bindInput(Literal value, const Shape &expected, llvm::StringRef parameter,
                                  llvm::StringRef source) {
  if (!expected.isArray())
    return doesNotFit(parameter, source,
                      "only array parameters can be read from .npy files (this one is a " +
                          std::string(expected.isTuple() ? "tuple" : "token") + ")");
  PrimitiveType have = value.shape().elementType();
  PrimitiveType want = expected.elementType();
  if (expected.dims() != value.shape().dims())
    return doesNotFit(parameter, source, "the file holds " + value.shape().toString(false));
  const bool subByte = hlo::isInteger(want) && hlo::bitWidth(want) < 8;
  if (want == PrimitiveType::BF16 && have == PrimitiveType::F32) {
    value = roundToBFloat16(value);
  } else if (subByte &&
             have == (hlo::isSignedInteger(want) ? PrimitiveType::S8 : PrimitiveType::U8)) {
    auto narrowed = narrowToSubByte(value, want, parameter, source);
    if (!narrowed)
      return narrowed.takeError();
    value = std::move(*narrowed);
  } else if (want != have)
    return doesNotFit(parameter, source,
                      "the file holds " + value.shape().toString(false) +
                          (want == PrimitiveType::BF16 ? " (bf16 is read from float32 files)"
                           : subByte ? (hlo::isSignedInteger(want) ? " (read from int8 files)"
                                                                   : " (read from uint8 files)")
                                     : ""));
  value.setLayout(expected.layout());
  return value;
}

} // namespace mote::tools
