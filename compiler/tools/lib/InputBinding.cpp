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

static llvm::Error mismatch(const hlo::Instruction &parameter, llvm::StringRef source,
                            const llvm::Twine &problem) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "input '" + source + "' does not fit " +
                                     describeParameter(parameter) + ": " + problem);
}

static Literal roundToBFloat16(const Literal &value) {
  Literal rounded(Shape::array(PrimitiveType::BF16, value.shape().dims()));
  for (int64_t i = 0; i < value.elementCount(); ++i)
    rounded.set(i, hlo::BFloat16(value.get<float>(i)));
  return rounded;
}

llvm::Expected<Literal> bindInput(Literal value, const hlo::Instruction &parameter,
                                  llvm::StringRef source) {
  const Shape &expected = parameter.shape();
  if (!expected.isArray())
    return mismatch(parameter, source,
                    "only array parameters can be read from .npy files (this one is a " +
                        std::string(expected.isTuple() ? "tuple" : "token") + ")");
  PrimitiveType have = value.shape().elementType();
  PrimitiveType want = expected.elementType();
  if (expected.dims() != value.shape().dims())
    return mismatch(parameter, source, "the file holds " + value.shape().toString(false));
  if (want == PrimitiveType::BF16 && have == PrimitiveType::F32)
    value = roundToBFloat16(value);
  else if (want != have)
    return mismatch(parameter, source,
                    "the file holds " + value.shape().toString(false) +
                        (want == PrimitiveType::BF16 ? " (bf16 is read from float32 files)" : ""));
  value.setLayout(expected.layout());
  return value;
}

} // namespace mote::tools
