//===- MathFmod.cpp - Exact floating-point remainder without libm --------===//
//
// fmod is exact: the result is representable, so it must be bit-for-bit the
// evaluator's std::fmod. LLVM's frem lowers to a libm call, which generated
// code may not make, and no fixed sequence of float operations is exact for
// large quotients. So this is the classic integer long division on the
// significands (as in musl's fmod): one conditional subtract and shift per
// bit of exponent difference, at most 277 steps for f32 and 2100 for f64.
//
// The loop lives in an internal helper function per type, created once per
// module, so callers stay straight-line code in their own loops.
//
//===----------------------------------------------------------------------===//

#include "codegen/MathEmitter.h"

#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

namespace mote::codegen::math {
namespace {

/// Builds `T name(T x, T y)` computing fmod(x, y) for T = float or double.
llvm::Function *buildFmodFunction(llvm::Module &module, llvm::Type *floatType,
                                  llvm::StringRef name) {
  llvm::LLVMContext &context = module.getContext();
  auto *type = llvm::FunctionType::get(floatType, {floatType, floatType}, false);
  llvm::Function *function =
      llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, name, module);
  function->addFnAttr(llvm::Attribute::NoUnwind);
  function->addFnAttr(llvm::Attribute::WillReturn);
  function->setDoesNotAccessMemory();

  const unsigned width = floatType->getPrimitiveSizeInBits();
  const unsigned mantissaBits = floatType->isFloatTy() ? 23 : 52;
  llvm::IntegerType *intType = llvm::IntegerType::get(context, width);
  auto constant = [&](uint64_t value) { return llvm::ConstantInt::get(intType, value); };
  const uint64_t signMask = uint64_t(1) << (width - 1);
  const uint64_t implicitBit = uint64_t(1) << mantissaBits;
  const uint64_t infinityBits = ((signMask - 1) >> mantissaBits) << mantissaBits;
  // A normalised significand has its implicit bit at mantissaBits; ctlz of it
  // is width - 1 - mantissaBits.
  const uint64_t normalLeadingZeros = width - 1 - mantissaBits;

  llvm::BasicBlock *entry = llvm::BasicBlock::Create(context, "entry", function);
  llvm::BasicBlock *special = llvm::BasicBlock::Create(context, "special", function);
  llvm::BasicBlock *divide = llvm::BasicBlock::Create(context, "divide", function);
  llvm::BasicBlock *loop = llvm::BasicBlock::Create(context, "loop", function);
  llvm::BasicBlock *done = llvm::BasicBlock::Create(context, "done", function);
  llvm::IRBuilder<> b(entry);

  llvm::Value *x = function->getArg(0), *y = function->getArg(1);
  llvm::Value *xBits = b.CreateBitCast(x, intType);
  llvm::Value *yBits = b.CreateBitCast(y, intType);
  llvm::Value *sign = b.CreateAnd(xBits, constant(signMask));
  llvm::Value *xAbs = b.CreateAnd(xBits, constant(signMask - 1));
  llvm::Value *yAbs = b.CreateAnd(yBits, constant(signMask - 1));
  // NaN for y = 0, y NaN, x infinite or NaN (x * y / (x * y) also carries a
  // NaN operand's payload through).
  llvm::Value *isSpecial = b.CreateOr(
      b.CreateOr(b.CreateICmpEQ(yAbs, constant(0)), b.CreateICmpUGT(yAbs, constant(infinityBits))),
      b.CreateICmpUGE(xAbs, constant(infinityBits)));
  // |x| < |y| returns x; |x| = |y| returns a zero with x's sign.
  llvm::Value *notLarger = b.CreateICmpULE(xAbs, yAbs);
  llvm::Value *trivial = b.CreateOr(isSpecial, notLarger);
  b.CreateCondBr(trivial, special, divide);

  b.SetInsertPoint(special);
  llvm::Value *product = b.CreateFMul(x, y);
  llvm::Value *nan = b.CreateFDiv(product, product);
  llvm::Value *equal = b.CreateBitCast(sign, floatType);
  b.CreateRet(b.CreateSelect(isSpecial, nan, b.CreateSelect(b.CreateICmpEQ(xAbs, yAbs), equal, x)));

  // Significand and exponent with the implicit bit made explicit; subnormals
  // are normalised so both look alike.
  b.SetInsertPoint(divide);
  llvm::Function *ctlz = llvm::Intrinsic::getDeclaration(&module, llvm::Intrinsic::ctlz, {intType});
  auto unpack = [&](llvm::Value *bits, llvm::Value *&significand, llvm::Value *&exponent) {
    llvm::Value *biased = b.CreateLShr(bits, constant(mantissaBits));
    llvm::Value *isSubnormal = b.CreateICmpEQ(biased, constant(0));
    llvm::Value *shift =
        b.CreateSub(b.CreateCall(ctlz, {bits, b.getTrue()}), constant(normalLeadingZeros));
    llvm::Value *normal =
        b.CreateOr(b.CreateAnd(bits, constant(implicitBit - 1)), constant(implicitBit));
    significand = b.CreateSelect(isSubnormal, b.CreateShl(bits, shift), normal);
    exponent = b.CreateSelect(isSubnormal, b.CreateSub(constant(1), shift), biased);
  };
  llvm::Value *xSignificand, *xExponent, *ySignificand, *yExponent;
  unpack(xAbs, xSignificand, xExponent);
  unpack(yAbs, ySignificand, yExponent);
  // |x| > |y| so the exponent difference is at least zero.
  llvm::Value *steps = b.CreateSub(xExponent, yExponent);
  b.CreateBr(loop);

  // steps times: subtract y when it fits, then shift; a final subtract.
  b.SetInsertPoint(loop);
  llvm::PHINode *remaining = b.CreatePHI(intType, 2, "remaining");
  llvm::PHINode *partial = b.CreatePHI(intType, 2, "partial");
  remaining->addIncoming(steps, divide);
  partial->addIncoming(xSignificand, divide);
  auto reduce = [&](llvm::Value *value) {
    return b.CreateSelect(b.CreateICmpUGE(value, ySignificand), b.CreateSub(value, ySignificand),
                          value);
  };
  llvm::Value *reduced = reduce(partial);
  llvm::Value *more = b.CreateICmpNE(remaining, constant(0));
  llvm::Value *shifted = b.CreateShl(reduced, constant(1));
  remaining->addIncoming(b.CreateSub(remaining, constant(1)), loop);
  partial->addIncoming(shifted, loop);
  b.CreateCondBr(more, loop, done);

  // Renormalise and repack; the result is exact, so a subnormal result only
  // drops zero bits when shifted right.
  b.SetInsertPoint(done);
  llvm::Value *shift =
      b.CreateSub(b.CreateCall(ctlz, {reduced, b.getFalse()}), constant(normalLeadingZeros));
  llvm::Value *significand = b.CreateShl(reduced, shift);
  llvm::Value *exponent = b.CreateSub(yExponent, shift);
  llvm::Value *isNormal = b.CreateICmpSGT(exponent, constant(0));
  llvm::Value *normal = b.CreateOr(b.CreateSub(significand, constant(implicitBit)),
                                   b.CreateShl(exponent, constant(mantissaBits)));
  llvm::Value *subnormal = b.CreateLShr(significand, b.CreateSub(constant(1), exponent));
  llvm::Value *magnitude = b.CreateSelect(isNormal, normal, subnormal);
  magnitude = b.CreateSelect(b.CreateICmpEQ(reduced, constant(0)), constant(0), magnitude);
  b.CreateRet(b.CreateBitCast(b.CreateOr(magnitude, sign), floatType));
  return function;
}

llvm::Value *emitScalarFmod(llvm::IRBuilderBase &b, llvm::Value *x, llvm::Value *y) {
  llvm::Module &module = *b.GetInsertBlock()->getModule();
  llvm::Type *type = x->getType();
  const char *name = type->isFloatTy() ? "mote.fmod.f32" : "mote.fmod.f64";
  llvm::Function *function = module.getFunction(name);
  if (!function)
    function = buildFmodFunction(module, type, name);
  return b.CreateCall(function, {x, y});
}

} // namespace

llvm::Value *emitFmod(llvm::IRBuilderBase &b, llvm::Value *x, llvm::Value *y) {
  auto *vectorType = llvm::dyn_cast<llvm::FixedVectorType>(x->getType());
  if (!vectorType)
    return emitScalarFmod(b, x, y);
  llvm::Value *result = llvm::PoisonValue::get(vectorType);
  for (unsigned lane = 0; lane < vectorType->getNumElements(); ++lane)
    result = b.CreateInsertElement(
        result, emitScalarFmod(b, b.CreateExtractElement(x, lane), b.CreateExtractElement(y, lane)),
        lane);
  return result;
}

} // namespace mote::codegen::math
