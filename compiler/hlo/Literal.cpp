//===- Literal.cpp - Host values of HLO shapes ----------------------------===//

#include "hlo/Literal.h"

#include "hlo/Float8.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace mote::hlo {

Literal::Literal(const Shape &shape) : shape_(shape) {
  if (shape.isTuple()) {
    for (const Shape &element : shape.tupleElements())
      elements_.emplace_back(element);
    return;
  }
  if (shape.isArray())
    bytes_.assign(static_cast<size_t>(shape.elementCount()) * storageBytes(shape.elementType()), 0);
}

Literal Literal::tuple(std::vector<Literal> elements) {
  std::vector<Shape> shapes;
  for (const Literal &element : elements)
    shapes.push_back(element.shape());
  Literal literal;
  literal.shape_ = Shape::tuple(std::move(shapes));
  literal.elements_ = std::move(elements);
  return literal;
}

int64_t Literal::linearIndex(llvm::ArrayRef<int64_t> index) const {
  int64_t linear = 0;
  for (int64_t i = 0; i < shape_.rank(); ++i)
    linear = linear * shape_.dim(i) + index[i];
  return linear;
}

double Literal::getAsDouble(int64_t linear) const {
  return visitElementType(
      shape_.elementType(),
      [&](auto tag) -> double {
        using T = typename decltype(tag)::type;
        T value = get<T>(linear);
        if constexpr (std::is_same_v<T, std::complex<float>> ||
                      std::is_same_v<T, std::complex<double>>)
          return static_cast<double>(value.real());
        else if constexpr (std::is_same_v<T, BFloat16> || std::is_same_v<T, Float16>)
          return static_cast<double>(static_cast<float>(value));
        else
          return static_cast<double>(value);
      },
      [&] {
        return isF8(shape_.elementType()) ? float8ToDouble(shape_.elementType(), bytes_[linear])
                                          : std::nan("");
      });
}

int64_t Literal::getAsInt64(int64_t linear) const {
  return visitElementType(
      shape_.elementType(),
      [&](auto tag) -> int64_t {
        using T = typename decltype(tag)::type;
        T value = get<T>(linear);
        if constexpr (std::is_integral_v<T>)
          return static_cast<int64_t>(value);
        else
          return static_cast<int64_t>(getAsDouble(linear));
      },
      [] { return int64_t(0); });
}

uint64_t Literal::getAsUint64(int64_t linear) const {
  return visitElementType(
      shape_.elementType(),
      [&](auto tag) -> uint64_t {
        using T = typename decltype(tag)::type;
        T value = get<T>(linear);
        if constexpr (std::is_integral_v<T>)
          return static_cast<uint64_t>(value);
        else
          return static_cast<uint64_t>(getAsDouble(linear));
      },
      [] { return uint64_t(0); });
}

void Literal::setFromDouble(int64_t linear, double value) {
  visitElementType(
      shape_.elementType(),
      [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, bool>)
          set<T>(linear, value != 0);
        else if constexpr (std::is_same_v<T, BFloat16> || std::is_same_v<T, Float16>)
          set<T>(linear, T(static_cast<float>(value)));
        else
          set<T>(linear, static_cast<T>(value));
      },
      [&] {
        if (isF8(shape_.elementType()))
          bytes_[linear] = float8FromDouble(shape_.elementType(), value);
      });
}

void Literal::setFromInt64(int64_t linear, int64_t value) {
  visitElementType(
      shape_.elementType(),
      [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, bool>)
          set<T>(linear, value != 0);
        else if constexpr (std::is_same_v<T, BFloat16> || std::is_same_v<T, Float16>)
          set<T>(linear, T(static_cast<float>(value)));
        else
          set<T>(linear, static_cast<T>(value));
      },
      [&] {
        if (isF8(shape_.elementType()))
          setFromDouble(linear, static_cast<double>(value));
      });
}

bool Literal::bitwiseEqual(const Literal &other) const {
  if (!shape_.compatible(other.shape_))
    return false;
  if (shape_.isTuple()) {
    for (size_t i = 0; i < elements_.size(); ++i)
      if (!elements_[i].bitwiseEqual(other.elements_[i]))
        return false;
    return true;
  }
  return bytes_ == other.bytes_;
}

namespace {

/// Shortest "%.Ng" text for which `roundTrips` holds, with N up to `maxDigits`.
/// Where that text needs an exponent but `plainDigits` digits do not (10 rather
/// than 1e+01), the plain form wins: it reads back the same, being closer.
template <typename Check>
std::string shortestDecimal(double value, int plainDigits, int maxDigits, Check roundTrips) {
  char buffer[64];
  int digits = 1;
  for (; digits < maxDigits; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
    if (roundTrips(buffer))
      break;
  }
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  std::string shortest = buffer;
  if (shortest.find('e') == std::string::npos || digits >= plainDigits)
    return shortest;
  std::snprintf(buffer, sizeof buffer, "%.*g", plainDigits, value);
  std::string plain = buffer;
  return plain.find('e') == std::string::npos ? plain : shortest;
}

/// nan, -nan, nan(0x...) for a non-default payload; inf, -inf.
std::string formatSpecial(bool negative, bool isNan, uint64_t payload, uint64_t defaultPayload) {
  std::string text = negative ? "-" : "";
  if (!isNan)
    return text + "inf";
  text += "nan";
  if (payload != defaultPayload) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "(0x%llx)", static_cast<unsigned long long>(payload));
    text += buffer;
  }
  return text;
}

std::string formatFloat(float value) {
  uint32_t bits = floatBits(value);
  if (!std::isfinite(value))
    return formatSpecial(bits >> 31, std::isnan(value), bits & 0x7fffffu, 0x400000u);
  return shortestDecimal(value, 6, 9, [&](const char *text) {
    return floatBits(std::strtof(text, nullptr)) == bits;
  });
}

std::string formatDouble(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if (!std::isfinite(value))
    return formatSpecial(bits >> 63, std::isnan(value), bits & ((uint64_t(1) << 52) - 1),
                         uint64_t(1) << 51);
  return shortestDecimal(value, 15, 17, [&](const char *text) {
    double parsed = std::strtod(text, nullptr);
    return std::memcmp(&parsed, &value, sizeof value) == 0;
  });
}

template <typename Half> std::string formatHalf(Half value, int mantissaBits) {
  float wide = static_cast<float>(value);
  uint16_t bits = value.bits;
  if (!std::isfinite(wide))
    return formatSpecial(bits >> 15, std::isnan(wide), bits & ((1u << mantissaBits) - 1),
                         1u << (mantissaBits - 1));
  return shortestDecimal(wide, 6, 9, [&](const char *text) {
    return Half(std::strtof(text, nullptr)).bits == bits;
  });
}

} // namespace

std::string formatElement(const Literal &literal, int64_t linear) {
  return visitElementType(
      literal.shape().elementType(),
      [&](auto tag) -> std::string {
        using T = typename decltype(tag)::type;
        T value = literal.get<T>(linear);
        if constexpr (std::is_same_v<T, bool>)
          return value ? "true" : "false";
        else if constexpr (std::is_same_v<T, BFloat16>)
          return formatHalf(value, 7);
        else if constexpr (std::is_same_v<T, Float16>)
          return formatHalf(value, 10);
        else if constexpr (std::is_same_v<T, float>)
          return formatFloat(value);
        else if constexpr (std::is_same_v<T, double>)
          return formatDouble(value);
        else if constexpr (std::is_same_v<T, std::complex<float>>)
          return "(" + formatFloat(value.real()) + ", " + formatFloat(value.imag()) + ")";
        else if constexpr (std::is_same_v<T, std::complex<double>>)
          return "(" + formatDouble(value.real()) + ", " + formatDouble(value.imag()) + ")";
        else if constexpr (std::is_signed_v<T>)
          return std::to_string(static_cast<long long>(value));
        else
          return std::to_string(static_cast<unsigned long long>(value));
      },
      [&]() -> std::string {
        // f8 and other raw-bit types: print the bits; the parser reads them back.
        return std::to_string(literal.bytes()[linear]);
      });
}

static void printArray(llvm::raw_ostream &os, const Literal &literal, int64_t dim,
                       int64_t &linear) {
  const Shape &shape = literal.shape();
  if (dim == shape.rank()) {
    os << formatElement(literal, linear++);
    return;
  }
  os << '{';
  for (int64_t i = 0; i < shape.dim(dim); ++i) {
    if (i)
      os << ", ";
    printArray(os, literal, dim + 1, linear);
  }
  os << '}';
}

std::string Literal::valueToString() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (shape_.isTuple()) {
    os << '(';
    for (size_t i = 0; i < elements_.size(); ++i) {
      if (i)
        os << ", ";
      os << elements_[i].valueToString();
    }
    os << ')';
  } else if (shape_.isToken()) {
    os << "token";
  } else {
    int64_t linear = 0;
    printArray(os, *this, 0, linear);
  }
  return text;
}

std::string Literal::toString() const { return shape_.toString() + " " + valueToString(); }

} // namespace mote::hlo
