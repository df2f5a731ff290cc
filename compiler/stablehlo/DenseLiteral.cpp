//===- DenseLiteral.cpp - dense<...> attributes as HLO literals -----------===//
///
/// \file
/// `dense<...>` in every spelling MLIR prints: a hex blob of the elements'
/// little-endian bytes (one element's worth is a splat; i1 takes a byte per
/// element), nested lists, a single splat value, `(re, im)` complex pairs,
/// floats written as their bit patterns (`0x7FC00000` is a NaN), and
/// `dense_resource<name>` blobs from the file's resource section.
///
//===----------------------------------------------------------------------===//

#include "stablehlo/Converter.h"

#include "hlo/Diagnostics.h"

#include <cstring>

namespace mote::stablehlo {

using hlo::Literal;
using hlo::PrimitiveType;
using Scalar = DenseBody::Scalar;

namespace {

/// A float stored from its bit pattern.
void setFloatBits(Literal &literal, int64_t index, PrimitiveType type, uint64_t bits) {
  int bytes = hlo::storageBytes(type);
  std::memcpy(literal.bytes().data() + index * bytes, &bits, bytes); // little-endian host
}

double scalarValue(const Scalar &scalar) {
  if (scalar.kind == Scalar::Kind::Integer || scalar.kind == Scalar::Kind::HexBits)
    return scalar.negative ? -static_cast<double>(scalar.magnitude)
                           : static_cast<double>(scalar.magnitude);
  return scalar.value;
}

llvm::Error setElement(Literal &literal, int64_t index, const Scalar &scalar, PrimitiveType type) {
  if (type == PrimitiveType::Pred) {
    if (scalar.kind != Scalar::Kind::Bool &&
        !(scalar.kind == Scalar::Kind::Integer && scalar.magnitude <= 1 && !scalar.negative))
      return hlo::errorAt(scalar.location, "expected true or false for an i1 element");
    literal.set<bool>(index, scalar.magnitude != 0 || scalar.value != 0);
    return llvm::Error::success();
  }
  if (hlo::isInteger(type)) {
    if (scalar.kind != Scalar::Kind::Integer && scalar.kind != Scalar::Kind::HexBits &&
        scalar.kind != Scalar::Kind::Bool)
      return hlo::errorAt(scalar.location, "expected an integer for an element of type " +
                                               hlo::primitiveTypeName(type));
    uint64_t bits = scalar.negative ? 0 - scalar.magnitude : scalar.magnitude;
    int width = hlo::bitWidth(type);
    if (width < 64) {
      // Values must fit the type, signed or unsigned as written.
      int64_t value = static_cast<int64_t>(bits);
      bool fits = hlo::isSignedInteger(type)
                      ? (scalar.negative ? value >= -(int64_t(1) << (width - 1))
                                         : scalar.magnitude < (uint64_t(1) << width))
                      : !scalar.negative && scalar.magnitude < (uint64_t(1) << width);
      if (!fits)
        return hlo::errorAt(scalar.location, "value does not fit " + hlo::primitiveTypeName(type));
      // Sign-extend so sub-byte signed values are stored as the evaluator keeps them.
      if (hlo::isSignedInteger(type)) {
        uint64_t sign = uint64_t(1) << (width - 1);
        bits &= (sign << 1) - 1;
        bits = (bits ^ sign) - sign;
      }
    }
    int bytes = hlo::storageBytes(type);
    std::memcpy(literal.bytes().data() + index * bytes, &bits, bytes);
    return llvm::Error::success();
  }
  if (hlo::isComplex(type)) {
    PrimitiveType part = hlo::complexComponentType(type);
    double real = scalar.kind == Scalar::Kind::Complex ? scalar.value : scalarValue(scalar);
    double imag = scalar.kind == Scalar::Kind::Complex ? scalar.imag : 0;
    if (part == PrimitiveType::F32) {
      float parts[2] = {static_cast<float>(real), static_cast<float>(imag)};
      if (scalar.realBits) {
        uint32_t b = static_cast<uint32_t>(*scalar.realBits);
        std::memcpy(&parts[0], &b, 4);
      }
      if (scalar.imagBits) {
        uint32_t b = static_cast<uint32_t>(*scalar.imagBits);
        std::memcpy(&parts[1], &b, 4);
      }
      std::memcpy(literal.bytes().data() + index * 8, parts, 8);
    } else {
      double parts[2] = {real, imag};
      if (scalar.realBits)
        std::memcpy(&parts[0], &*scalar.realBits, 8);
      if (scalar.imagBits)
        std::memcpy(&parts[1], &*scalar.imagBits, 8);
      std::memcpy(literal.bytes().data() + index * 16, parts, 16);
    }
    return llvm::Error::success();
  }
  if (hlo::isFloatingPoint(type)) {
    if (scalar.kind == Scalar::Kind::HexBits) {
      setFloatBits(literal, index, type, scalar.magnitude);
      return llvm::Error::success();
    }
    if (scalar.kind == Scalar::Kind::Complex)
      return hlo::errorAt(scalar.location, "a complex value for a real element");
    if (hlo::isF8(type))
      return llvm::make_error<UnsupportedError>(
          scalar.location, hlo::primitiveTypeName(type) + " elements written as decimals");
    literal.setFromDouble(index, scalarValue(scalar));
    return llvm::Error::success();
  }
  return hlo::errorAt(scalar.location, "unsupported element type");
}

llvm::Expected<Literal> fromBytes(llvm::StringRef bytes, const hlo::Shape &shape,
                                  llvm::SMLoc location) {
  Literal literal(shape);
  size_t elementBytes = static_cast<size_t>(hlo::storageBytes(shape.elementType()));
  size_t total = literal.bytes().size();
  if (bytes.size() == total) {
    std::memcpy(literal.bytes().data(), bytes.data(), total);
  } else if (bytes.size() == elementBytes) {
    for (size_t offset = 0; offset < total; offset += elementBytes)
      std::memcpy(literal.bytes().data() + offset, bytes.data(), elementBytes);
  } else {
    return hlo::errorAt(location, "the hex data has " + llvm::Twine(bytes.size()) + " bytes but " +
                                      shape.toString(false) + " needs " + llvm::Twine(total));
  }
  if (shape.elementType() == PrimitiveType::Pred)
    for (uint8_t &byte : literal.bytes())
      byte = byte != 0;
  return literal;
}

} // namespace

llvm::Expected<Literal> denseLiteral(const Attribute &attribute, const hlo::Shape &shape,
                                     const Converter &converter) {
  if (attribute.kind != Attribute::Kind::Dense || !attribute.dense)
    return hlo::errorAt(attribute.location, "expected a dense literal");
  if (!shape.isArray())
    return hlo::errorAt(attribute.location, "a dense literal needs a tensor type");
  if (shape.hasUnboundedDims() || shape.hasDynamicDims())
    return hlo::errorAt(attribute.location, "a dense literal needs a static shape");
  const DenseBody &body = *attribute.dense;
  if (body.resourceName) {
    const std::string *bytes = converter.resource(*body.resourceName);
    if (!bytes)
      return hlo::errorAt(attribute.location, "no resource '" + *body.resourceName +
                                                  "' in the file's dialect_resources");
    return fromBytes(*bytes, shape, attribute.location);
  }
  if (body.hexBytes)
    return fromBytes(*body.hexBytes, shape, attribute.location);
  Literal literal(shape);
  int64_t count = shape.elementCount();
  if (body.empty) {
    if (count != 0)
      return hlo::errorAt(attribute.location,
                          "'dense<>' for " + shape.toString(false) + ", which has elements");
    return literal;
  }
  PrimitiveType type = shape.elementType();
  if (body.nesting.empty() && body.scalars.size() == 1) {
    for (int64_t i = 0; i < count; ++i)
      if (llvm::Error error = setElement(literal, i, body.scalars.front(), type))
        return std::move(error);
    return literal;
  }
  bool nestingMatches = body.nesting.size() == static_cast<size_t>(shape.rank());
  for (size_t i = 0; nestingMatches && i < body.nesting.size(); ++i)
    nestingMatches = body.nesting[i] == shape.dim(static_cast<int64_t>(i));
  // An empty list stands for any shape with no elements.
  if (count == 0 && body.scalars.empty())
    return literal;
  if (!nestingMatches || static_cast<int64_t>(body.scalars.size()) != count)
    return hlo::errorAt(attribute.location,
                        "the literal's nesting does not match " + shape.toString(false));
  for (int64_t i = 0; i < count; ++i)
    if (llvm::Error error = setElement(literal, i, body.scalars[i], type))
      return std::move(error);
  return literal;
}

} // namespace mote::stablehlo
