//===- RngEmitter.cpp - rng and rng-get-and-update-state ------------------===//
//
// XLA leaves rng's values unspecified; the reference evaluator
// (eval/Random.cpp) draws them from Philox-4x32-10 under the key
// EvaluatorOptions::rngSeed with a 64-bit counter that starts at 0 when the
// model runs and advances by the blocks each rng uses (one block gives two
// 64-bit draws), and rng-get-and-update-state reads and advances the same
// counter. Compiled code keeps that counter in a stack slot of the entry
// function, zeroed on entry, and the schedule runs these ops in definition
// order (passes/Schedule.cpp), so both draw the same numbers:
//  - integers: a + bits mod (b - a), or a when b <= a;
//  - uniform floats: a + u (b - a) in double with u the top 24 (53 for f64)
//    bits over 2^24 (2^53), rounded to the type (bf16/f16 through f32), and
//    moved just below b when it rounded up to b;
//  - normal floats: Box-Muller in double, a + b sqrt(-2 log u1) cos(2 pi u2)
//    with u1 = 1 - u and u2 the low 32 bits over 2^32. log and cos are the
//    inline ones (MathEmitter.h, within 1 ulp): f32 results match unless the
//    double lands within that of a rounding boundary; f64 results are
//    within a few ulps.
//
//===----------------------------------------------------------------------===//

#include "codegen/FunctionEmitter.h"
#include "codegen/MathEmitter.h"
#include "codegen/RandomBits.h"

#include "eval/Evaluator.h"

#include "llvm/IR/Intrinsics.h"

#include <cmath>

namespace mote::codegen {

namespace {

using hlo::PrimitiveType;

bool fail(std::string *why, const std::string &message) {
  if (why)
    *why = message;
  return false;
}

/// The largest value of the float type below `bound`, on its bits
/// (nextafter toward -inf; the evaluator's below()).
llvm::Value *emitBelow(llvm::IRBuilderBase &b, PrimitiveType type, llvm::Value *bound) {
  llvm::Type *bitsType = b.getIntNTy(hlo::bitWidth(type));
  llvm::Value *bits = b.CreateBitCast(bound, bitsType); // halves are already bits
  const unsigned width = bitsType->getIntegerBitWidth();
  llvm::Value *magnitude =
      b.CreateAnd(bits, llvm::ConstantInt::get(bitsType, llvm::APInt::getSignedMaxValue(width)));
  llvm::Value *isZero = b.CreateICmpEQ(magnitude, llvm::ConstantInt::get(bitsType, 0));
  llvm::Value *negative = b.CreateICmpSLT(bits, llvm::ConstantInt::get(bitsType, 0));
  llvm::Value *one = llvm::ConstantInt::get(bitsType, 1);
  llvm::Value *smallestNegative =
      llvm::ConstantInt::get(bitsType, llvm::APInt::getSignMask(width) | llvm::APInt(width, 1));
  llvm::Value *next =
      b.CreateSelect(isZero, smallestNegative,
                     b.CreateSelect(negative, b.CreateAdd(bits, one), b.CreateSub(bits, one)));
  return b.CreateBitCast(next, bound->getType());
}

/// One element of an rng result from 64 random bits.
llvm::Value *emitRandomValue(llvm::IRBuilderBase &b, PrimitiveType type,
                             hlo::RandomDistribution distribution, llvm::Value *a, llvm::Value *c,
                             llvm::Value *bits) {
  llvm::Type *f64 = b.getDoubleTy();
  if (hlo::isInteger(type)) {
    // (b <= a || range == 0) ? a : a + bits % range, range = b - a unsigned.
    const bool isSigned = hlo::isSignedInteger(type);
    llvm::Value *range = b.CreateZExt(b.CreateSub(c, a), b.getInt64Ty());
    llvm::Value *empty = b.CreateOr(isSigned ? b.CreateICmpSLE(c, a) : b.CreateICmpULE(c, a),
                                    b.CreateICmpEQ(range, b.getInt64(0)));
    llvm::Value *safeRange = b.CreateSelect(empty, b.getInt64(1), range);
    llvm::Value *offset = b.CreateTrunc(b.CreateURem(bits, safeRange), a->getType());
    return b.CreateSelect(empty, a, b.CreateAdd(a, offset));
  }
  const bool isDouble = type == PrimitiveType::F64;
  auto widen = [&](llvm::Value *v) { // T -> C -> double
    llvm::Value *x = toCompute(b, type, v);
    return isDouble ? x : b.CreateFPExt(x, f64);
  };
  auto narrow = [&](llvm::Value *v) { // double -> C -> T
    return fromCompute(b, type, isDouble ? v : b.CreateFPTrunc(v, b.getFloatTy()));
  };
  const int mantissa = isDouble ? 53 : 24;
  auto unit = [&](llvm::Value *x) {
    llvm::Value *top = b.CreateLShr(x, 64 - mantissa);
    return b.CreateFMul(b.CreateUIToFP(top, f64),
                        llvm::ConstantFP::get(f64, std::ldexp(1.0, -mantissa)));
  };
  llvm::Value *low = widen(a), *high = widen(c);
  if (distribution == hlo::RandomDistribution::Uniform) {
    llvm::Value *value =
        narrow(b.CreateFAdd(low, b.CreateFMul(unit(bits), b.CreateFSub(high, low))));
    llvm::Value *roundedUp =
        b.CreateAnd(b.CreateFCmpOLT(low, high), b.CreateFCmpOGE(widen(value), high));
    return b.CreateSelect(roundedUp, emitBelow(b, type, c), value);
  }
  llvm::Value *u1 = b.CreateFSub(llvm::ConstantFP::get(f64, 1.0), unit(bits));
  llvm::Value *lowWord = b.CreateAnd(bits, b.getInt64(0xffffffffu));
  llvm::Value *u2 = b.CreateFMul(b.CreateUIToFP(lowWord, f64), llvm::ConstantFP::get(f64, 0x1p-32));
  llvm::Value *radius = b.CreateUnaryIntrinsic(
      llvm::Intrinsic::sqrt, b.CreateFMul(llvm::ConstantFP::get(f64, -2.0), math::emitLog(b, u1)));
  llvm::Value *angle = b.CreateFMul(llvm::ConstantFP::get(f64, 2.0 * M_PI), u2);
  llvm::Value *z = b.CreateFMul(radius, math::emitCos(b, angle));
  return narrow(b.CreateFAdd(low, b.CreateFMul(high, z)));
}

} // namespace

bool isStatefulRngSupported(const hlo::Instruction &instruction, std::string *why) {
  const hlo::Shape &shape = instruction.shape();
  if (instruction.opcode() == hlo::Opcode::RngGetAndUpdateState) {
    const hlo::RawAttribute *delta = instruction.attributes().findRaw("delta");
    int64_t step = 0;
    if (!shape.isArray() || shape.elementType() != PrimitiveType::U64 ||
        shape.dims() != llvm::ArrayRef<int64_t>{2})
      return fail(why, "rng-get-and-update-state produces u64[2]");
    if (!delta || llvm::StringRef(delta->value).trim().getAsInteger(10, step))
      return fail(why, "rng-get-and-update-state needs an integer delta=");
    return true;
  }
  if (!shape.isArray() || instruction.operandCount() != 2)
    return fail(why, "rng takes two scalars and returns an array");
  const PrimitiveType type = shape.elementType();
  for (const hlo::Instruction *operand : instruction.operands())
    if (!operand->shape().isScalar() || operand->shape().elementType() != type)
      return fail(why, "rng takes two scalars of its result's element type");
  const bool isFloat = type == PrimitiveType::F16 || type == PrimitiveType::BF16 ||
                       type == PrimitiveType::F32 || type == PrimitiveType::F64;
  if (!isFloat && !hlo::isInteger(type))
    return fail(why, "rng cannot produce " + shape.toString(false));
  if (!isFloat && instruction.attributes().distribution != hlo::RandomDistribution::Uniform)
    return fail(why, "rng_normal needs a floating-point result");
  return true;
}

llvm::Value *FunctionEmitter::rngCounter() {
  if (!rngCounter_) {
    // Zeroed at the very start of the entry function, before any draw.
    llvm::BasicBlock &entry = entryFunction_->getEntryBlock();
    llvm::IRBuilder<> front(&entry, entry.begin());
    rngCounter_ = front.CreateAlloca(front.getInt64Ty(), nullptr, "rng.counter");
    front.CreateStore(front.getInt64(0), rngCounter_);
  }
  return rngCounter_;
}

void FunctionEmitter::emitRng(const hlo::Instruction &instruction) {
  // Inline in the entry function (not outlined): the counter lives there.
  llvm::IRBuilderBase &b = builder_;
  llvm::Type *i64 = b.getInt64Ty(), *i32 = b.getInt32Ty();
  llvm::Value *counterSlot = rngCounter();
  llvm::Value *counter = b.CreateLoad(i64, counterSlot);
  if (instruction.opcode() == hlo::Opcode::RngGetAndUpdateState) {
    int64_t delta = 0;
    llvm::StringRef(instruction.attributes().findRaw("delta")->value)
        .trim()
        .getAsInteger(10, delta);
    llvm::Value *out = address(assignment_.slice(&instruction));
    b.CreateStore(counter, out);
    b.CreateStore(b.getInt64(0), b.CreateConstInBoundsGEP1_64(i64, out, 1));
    b.CreateStore(b.CreateAdd(counter, b.getInt64(delta)), counterSlot);
    return;
  }
  const hlo::Shape &shape = instruction.shape();
  const PrimitiveType type = shape.elementType();
  const int64_t count = shape.elementCount();
  const int64_t blocks = (2 * count + 3) / 4;
  const hlo::RandomDistribution distribution = instruction.attributes().distribution;
  const uint64_t seed = eval::EvaluatorOptions().rngSeed;
  random::Words2 key = {b.getInt32(uint32_t(seed)), b.getInt32(uint32_t(seed >> 32))};
  llvm::Value *a = readElement(*instruction.operand(0), {});
  llvm::Value *c = readElement(*instruction.operand(1), {});
  const BufferSlice &out = assignment_.slice(&instruction);
  if (count > 0 && out.kind != BufferSlice::Kind::Empty) {
    llvm::Value *base = address(out);
    auto constant = [&](int64_t value) { return llvm::ConstantInt::get(indexType_, value); };
    emitCountedLoop(
        b, constant(blocks),
        [&](llvm::Value *i) {
          // The 128-bit counter (state + i, carry): four words for Philox.
          llvm::Value *low = b.CreateAdd(counter, b.CreateZExtOrTrunc(i, i64));
          llvm::Value *carry = b.CreateZExt(b.CreateICmpULT(low, counter), i32);
          random::Words4 words =
              random::emitPhilox(b, key,
                                 {b.CreateTrunc(low, i32),
                                  b.CreateTrunc(b.CreateLShr(low, 32), i32), carry, b.getInt32(0)});
          for (int j = 0; j < 2; ++j) {
            llvm::Value *bits = b.CreateOr(b.CreateZExt(words[2 * j], i64),
                                           b.CreateShl(b.CreateZExt(words[2 * j + 1], i64), 32));
            llvm::Value *linear = b.CreateAdd(b.CreateMul(i, constant(2)), constant(j));
            auto store = [&] {
              llvm::Value *value = emitRandomValue(b, type, distribution, a, c, bits);
              storeElement(b, type, value, elementAt(type, base, linear));
            };
            if (j == 1 && count % 2 != 0) // the last block's second draw is unused
              emitIf(b.CreateICmpULT(linear, constant(count)), store, "rng.inside");
            else
              store();
          }
        },
        "rng.block");
  }
  b.CreateStore(b.CreateAdd(counter, b.getInt64(blocks)), counterSlot);
}

} // namespace mote::codegen
