//===- NarrowFloats.cpp - f4, f6 and f8 values to and from f32 ------------===//
//
// Code generation holds a narrow float (f4e2m1fn, the f6 and the f8 types)
// as its bits in a byte and computes in f32, rounding back after every op as
// the evaluator does (eval/NarrowFloats.cpp). Both conversions go through
// read-only tables the compiler fills with hlo/Float8.h, so generated code
// and the evaluator agree by construction:
//   - bits to f32: one load from the type's table of all its values;
//   - f32 or f64 to bits: a branch-free binary search of the value's
//     magnitude in the sorted table of the type's positive finite values
//     (followed by the value just past the largest, where overflow starts),
//     then a round to the nearer neighbour, ties to the even code -- the
//     search float8FromDouble does -- and the encoding's rules for signs,
//     NaN, infinity and overflow.
// A table is 4 bytes a code (1 KiB for an f8 type), emitted once per module
// and type.
//
//===----------------------------------------------------------------------===//

#include "codegen/ElementTypes.h"

#include "hlo/Float8.h"

#include "llvm/ADT/bit.h"
#include "llvm/IR/Module.h"

#include <cmath>
#include <vector>

namespace mote::codegen {

using hlo::Float8Format;
using hlo::PrimitiveType;

namespace {

using Kind = Float8Format::Kind;

/// A private constant array named `name` in the builder's module, created on
/// first use with `values`.
llvm::GlobalVariable *table(llvm::IRBuilderBase &b, const std::string &name, llvm::Type *element,
                            const std::vector<double> &values) {
  llvm::Module &module = *b.GetInsertBlock()->getModule();
  if (llvm::GlobalVariable *existing = module.getNamedGlobal(name))
    return existing;
  std::vector<llvm::Constant *> constants;
  for (double value : values)
    constants.push_back(llvm::ConstantFP::get(element, value));
  auto *type = llvm::ArrayType::get(element, values.size());
  auto *global =
      new llvm::GlobalVariable(module, type, /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
                               llvm::ConstantArray::get(type, constants), name);
  global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  return global;
}

llvm::Value *load(llvm::IRBuilderBase &b, llvm::GlobalVariable *global, llvm::Value *index) {
  llvm::Type *element = global->getValueType()->getArrayElementType();
  return b.CreateLoad(element, b.CreateInBoundsGEP(element, global, index));
}

/// Sorted magnitudes of codes 0..maxCode, then the first value past the
/// largest, then +inf up to a power of two (at least one +inf).
std::vector<double> searchValues(const Float8Format &format) {
  const unsigned maxCode = format.maxFiniteCode();
  std::vector<double> values;
  for (unsigned code = 0; code <= maxCode; ++code)
    values.push_back(hlo::float8ToDouble(format, uint8_t(code)));
  double maxValue = values.back();
  values.push_back(format.kind == Kind::PowerOfTwo
                       ? 2 * maxValue
                       : maxValue + std::ldexp(1.0, std::ilogb(maxValue) - format.mantissaBits));
  values.resize(llvm::bit_ceil(values.size() + 1), INFINITY);
  return values;
}

} // namespace

llvm::Value *emitNarrowToFloat(llvm::IRBuilderBase &b, PrimitiveType type, llvm::Value *bits) {
  const Float8Format format = hlo::float8Format(type);
  std::vector<double> values;
  for (unsigned code = 0; code < (1u << format.totalBits); ++code)
    values.push_back(hlo::float8ToDouble(format, uint8_t(code)));
  llvm::GlobalVariable *decode =
      table(b, "mote." + hlo::primitiveTypeName(type).str() + ".values", b.getFloatTy(), values);
  llvm::Value *index = b.CreateZExt(bits, b.getInt32Ty());
  return load(b, decode, b.CreateAnd(index, b.getInt32((1u << format.totalBits) - 1)));
}

llvm::Value *emitFloatToNarrow(llvm::IRBuilderBase &b, PrimitiveType type, llvm::Value *value) {
  const Float8Format format = hlo::float8Format(type);
  // f8e8m0fnu overflows from 2^128 on, which f32 cannot hold: its f32 values
  // round in f64, where the table's last entry is finite.
  if (format.kind == Kind::PowerOfTwo && value->getType()->isFloatTy())
    value = b.CreateFPExt(value, b.getDoubleTy());
  llvm::Type *floatType = value->getType();
  const bool f64 = floatType->isDoubleTy();
  const std::vector<double> values = searchValues(format);
  llvm::GlobalVariable *search =
      table(b, "mote." + hlo::primitiveTypeName(type).str() + (f64 ? ".search64" : ".search32"),
            floatType, values);
  auto code = [&](unsigned c) { return b.getInt32(c); };
  const unsigned maxCode = format.maxFiniteCode();

  llvm::Value *magnitude = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, value);
  // pos = how many table entries are <= magnitude (a NaN counts none).
  llvm::Value *pos = code(0);
  for (size_t step = values.size() / 2; step >= 1; step /= 2) {
    llvm::Value *probe = load(b, search, b.CreateAdd(pos, code(unsigned(step) - 1)));
    pos = b.CreateSelect(b.CreateFCmpOLE(probe, magnitude), b.CreateAdd(pos, code(step)), pos);
  }
  // The last code not above the magnitude and its successor; ties go to the
  // even code. Below the smallest value (f8e8m0fnu only) the code is 0.
  llvm::Value *low = b.CreateSub(pos, code(1));
  llvm::Value *lowSafe = b.CreateSelect(b.CreateICmpEQ(pos, code(0)), code(0), low);
  llvm::Value *below = load(b, search, lowSafe);
  // An infinite magnitude counts every entry; its successor index is clamped
  // (the result is overflow anyway).
  llvm::Value *next = b.CreateAdd(lowSafe, code(1));
  next = b.CreateSelect(b.CreateICmpULT(next, code(unsigned(values.size()))), next,
                        code(unsigned(values.size()) - 1));
  llvm::Value *above = load(b, search, next);
  llvm::Value *toBelow = b.CreateFSub(magnitude, below);
  llvm::Value *toAbove = b.CreateFSub(above, magnitude);
  llvm::Value *lowIsEven = b.CreateICmpEQ(b.CreateAnd(lowSafe, code(1)), code(0));
  llvm::Value *keepLow = b.CreateOr(b.CreateFCmpOLT(toBelow, toAbove),
                                    b.CreateAnd(b.CreateFCmpOEQ(toBelow, toAbove), lowIsEven));
  llvm::Value *rounded = b.CreateSelect(keepLow, lowSafe, b.CreateAdd(lowSafe, code(1)));
  rounded = b.CreateSelect(b.CreateICmpEQ(pos, code(0)), code(0), rounded);
  llvm::Value *isInf = b.CreateFCmpOEQ(magnitude, llvm::ConstantFP::getInfinity(floatType));
  rounded = b.CreateSelect(isInf, code(maxCode + 1), rounded);

  // The sign, overflow and NaN rules of the encoding (float8FromDouble's).
  llvm::Type *intType = b.getIntNTy(floatType->getPrimitiveSizeInBits());
  llvm::Value *negative =
      b.CreateICmpSLT(b.CreateBitCast(value, intType), llvm::ConstantInt::get(intType, 0));
  llvm::Value *sign = b.CreateSelect(negative, code(format.signBit()), code(0));
  llvm::Value *signedCode = b.CreateOr(sign, rounded);
  if (format.kind == Kind::PowerOfTwo)
    signedCode = rounded;
  if (format.kind == Kind::Unsigned0x80Nan) // no -0
    signedCode = b.CreateSelect(b.CreateICmpEQ(rounded, code(0)), code(0), signedCode);
  llvm::Value *overflow;
  switch (format.kind) {
  case Kind::FiniteOnly:
    overflow = b.CreateOr(sign, code(maxCode));
    break;
  case Kind::Ieee:
    overflow = b.CreateOr(sign, code(((1u << format.exponentBits) - 1) << format.mantissaBits));
    break;
  default:
    overflow =
        b.CreateSelect(negative, code(format.defaultNan(true)), code(format.defaultNan(false)));
    break;
  }
  llvm::Value *result =
      b.CreateSelect(b.CreateICmpUGT(rounded, code(maxCode)), overflow, signedCode);
  if (format.kind == Kind::PowerOfTwo) {
    llvm::Value *negativeNonZero =
        b.CreateAnd(negative, b.CreateFCmpONE(magnitude, llvm::ConstantFP::get(floatType, 0.0)));
    result = b.CreateSelect(negativeNonZero, code(format.defaultNan(false)), result);
  }
  llvm::Value *nan =
      b.CreateSelect(negative, code(format.defaultNan(true)), code(format.defaultNan(false)));
  result = b.CreateSelect(b.CreateFCmpUNO(value, value), nan, result);
  return b.CreateTrunc(result, b.getInt8Ty());
}

} // namespace mote::codegen
