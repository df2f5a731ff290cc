//===- InputGenerator.cpp - Seeded inputs for entry parameters ------------===//

#include "InputGenerator.h"

#include <type_traits>

namespace mote::tools {

using hlo::Literal;
using hlo::PrimitiveType;
using hlo::Shape;

namespace {

/// SplitMix64: tiny, fast, and the same sequence everywhere.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t state) : state_(state) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  /// Uniform in [-1, 1) with 24 random bits: exact in float.
  float nextFloat() { return float(next() >> 40) * 0x1p-23f - 1.0f; }
  /// Uniform in [-1, 1) with 53 random bits: exact in double.
  double nextDouble() { return double(next() >> 11) * 0x1p-52 - 1.0; }

private:
  uint64_t state_;
};

/// Integers are drawn from [0, bound): 8, or fewer where the type is narrower.
uint64_t integerBound(PrimitiveType type) {
  switch (type) {
  case PrimitiveType::S2:
    return 2;
  case PrimitiveType::U2:
    return 4;
  default:
    return 8;
  }
}

llvm::Error fillArray(Literal &literal, SplitMix64 &random) {
  PrimitiveType type = literal.shape().elementType();
  int64_t count = literal.elementCount();
  return hlo::visitElementType(
      type,
      [&](auto tag) -> llvm::Error {
        using T = typename decltype(tag)::type;
        for (int64_t i = 0; i < count; ++i) {
          if constexpr (std::is_same_v<T, bool>)
            literal.set<T>(i, (random.next() >> 63) != 0);
          else if constexpr (std::is_same_v<T, double>)
            literal.set<T>(i, random.nextDouble());
          else if constexpr (std::is_same_v<T, std::complex<double>>) {
            double re = random.nextDouble();
            literal.set<T>(i, T(re, random.nextDouble()));
          } else if constexpr (std::is_same_v<T, std::complex<float>>) {
            float re = random.nextFloat();
            literal.set<T>(i, T(re, random.nextFloat()));
          } else if constexpr (std::is_integral_v<T>)
            literal.set<T>(i, static_cast<T>(random.next() % integerBound(type)));
          else // float, BFloat16, Float16
            literal.set<T>(i, T(random.nextFloat()));
        }
        return llvm::Error::success();
      },
      [&]() -> llvm::Error {
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "cannot generate values of element type " +
                                           hlo::primitiveTypeName(type));
      });
}

llvm::Error fill(Literal &literal, SplitMix64 &random) {
  const Shape &shape = literal.shape();
  if (shape.isTuple()) {
    for (Literal &element : literal.elements())
      if (llvm::Error error = fill(element, random))
        return error;
    return llvm::Error::success();
  }
  if (shape.isToken())
    return llvm::Error::success();
  return fillArray(literal, random);
}

} // namespace

llvm::Expected<Literal> generateInput(const Shape &shape, uint64_t seed, uint64_t parameterNumber) {
  // Two rounds of mixing decorrelate neighbouring (seed, parameter) pairs.
  SplitMix64 streamSeed(seed);
  uint64_t base = streamSeed.next();
  SplitMix64 random(base ^ (parameterNumber * 0xd1b54a32d192ed03ull));
  random.next();
  Literal literal(shape);
  if (llvm::Error error = fill(literal, random))
    return std::move(error);
  return literal;
}

} // namespace mote::tools
