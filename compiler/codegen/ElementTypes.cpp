//===- ElementTypes.cpp - HLO element types as LLVM types -----------------===//

#include "codegen/ElementTypes.h"

#include "codegen/MathEmitter.h"

#include "llvm/Analysis/ConstantFolding.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MathExtras.h"

namespace mote::codegen {

using hlo::PrimitiveType;

bool isCodegenElementType(PrimitiveType type) {
  switch (type) {
  case PrimitiveType::Pred:
  case PrimitiveType::S2:
  case PrimitiveType::S4:
  case PrimitiveType::S8:
  case PrimitiveType::S16:
  case PrimitiveType::S32:
  case PrimitiveType::S64:
  case PrimitiveType::U2:
  case PrimitiveType::U4:
  case PrimitiveType::U8:
  case PrimitiveType::U16:
  case PrimitiveType::U32:
  case PrimitiveType::U64:
  case PrimitiveType::F16:
  case PrimitiveType::BF16:
  case PrimitiveType::F32:
  case PrimitiveType::F64:
  case PrimitiveType::C64:
  case PrimitiveType::C128:
    return true;
  default:
    return hlo::isF8(type);
  }
}

bool isHalfType(PrimitiveType type) {
  return type == PrimitiveType::F16 || type == PrimitiveType::BF16;
}

bool computesInF32(PrimitiveType type) { return isHalfType(type) || hlo::isF8(type); }

bool isSubByteInteger(PrimitiveType type) {
  return hlo::isInteger(type) && hlo::bitWidth(type) < 8;
}

llvm::Type *storageType(llvm::LLVMContext &context, PrimitiveType type) {
  switch (type) {
  case PrimitiveType::F32:
    return llvm::Type::getFloatTy(context);
  case PrimitiveType::F64:
    return llvm::Type::getDoubleTy(context);
  case PrimitiveType::C64:
  case PrimitiveType::C128: {
    llvm::Type *part = storageType(context, hlo::complexComponentType(type));
    return llvm::StructType::get(context, {part, part});
  }
  default:
    return llvm::Type::getIntNTy(context, hlo::storageBytes(type) * 8);
  }
}

llvm::Type *valueType(llvm::LLVMContext &context, PrimitiveType type) {
  if (type == PrimitiveType::Pred || isSubByteInteger(type))
    return llvm::Type::getIntNTy(context, hlo::bitWidth(type));
  return storageType(context, type);
}

llvm::Type *computeType(llvm::LLVMContext &context, PrimitiveType type) {
  if (computesInF32(type))
    return llvm::Type::getFloatTy(context);
  return valueType(context, type);
}

llvm::Value *loadElement(llvm::IRBuilderBase &builder, PrimitiveType type, llvm::Value *address) {
  llvm::Value *stored = builder.CreateLoad(storageType(builder.getContext(), type), address);
  if (type == PrimitiveType::Pred)
    return builder.CreateICmpNE(stored, builder.getInt8(0));
  if (isSubByteInteger(type)) // the byte holds the value extended
    return builder.CreateTrunc(stored, valueType(builder.getContext(), type));
  return stored;
}

void storeElement(llvm::IRBuilderBase &builder, PrimitiveType type, llvm::Value *value,
                  llvm::Value *address) {
  if (type == PrimitiveType::Pred)
    value = builder.CreateZExt(value, builder.getInt8Ty());
  else if (isSubByteInteger(type))
    value = builder.CreateIntCast(value, builder.getInt8Ty(), hlo::isSignedInteger(type));
  builder.CreateStore(value, address);
}

namespace {

constexpr const char *kHardwareF16Flag = "mote.f16-conversions";

/// Marks bf16 bits that hold no signalling NaN: what rounding to bf16 gives
/// (it quiets NaNs), so selecting among such values needs no quieting.
constexpr const char *kQuietBF16Kind = "mote.bf16-quiet";

llvm::Value *markQuietBF16(llvm::Value *bits) {
  if (auto *instruction = llvm::dyn_cast<llvm::Instruction>(bits))
    instruction->setMetadata(kQuietBF16Kind, llvm::MDNode::get(bits->getContext(), {}));
  return bits;
}

/// Whether bf16 `bits` (scalar or vector) are known to hold no signalling
/// NaN: marked by markQuietBF16, or constants whose NaNs are quiet.
bool holdsNoSignallingBF16(llvm::Value *bits) {
  bits = foldConstantLoad(bits); // a constant operand, read from its global
  if (auto *instruction = llvm::dyn_cast<llvm::Instruction>(bits))
    return instruction->getMetadata(kQuietBF16Kind) != nullptr;
  auto *constant = llvm::dyn_cast<llvm::Constant>(bits);
  if (!constant)
    return false;
  auto quiet = [](llvm::Constant *element) {
    auto *value = llvm::dyn_cast_or_null<llvm::ConstantInt>(element);
    if (!value)
      return false;
    const uint64_t b = value->getZExtValue();
    const bool nan = (b & 0x7f80) == 0x7f80 && (b & 0x7f) != 0;
    return !nan || (b & 0x40) != 0;
  };
  return allConstantElements(constant, quiet);
}

/// Marks half bits narrowed without rounding from an f32 value (a maximum,
/// minimum or clamp's result is one of its widened operands), so widening
/// them again gives that value back: the bits are a cast of it (f16's
/// fptrunc, bf16's top half), reached through first operands.
constexpr const char *kExactNarrowingKind = "mote.exact-narrowing";

llvm::Value *markExactNarrowing(llvm::Value *bits) {
  if (auto *instruction = llvm::dyn_cast<llvm::Instruction>(bits))
    instruction->setMetadata(kExactNarrowingKind, llvm::MDNode::get(bits->getContext(), {}));
  return bits;
}

/// The f32 value `bits` were narrowed from by markExactNarrowing's casts, or
/// null.
llvm::Value *exactlyNarrowedFrom(llvm::Value *bits) {
  auto *instruction = llvm::dyn_cast<llvm::Instruction>(bits);
  if (!instruction || !instruction->getMetadata(kExactNarrowingKind))
    return nullptr;
  llvm::Value *source = instruction;
  while (!source->getType()->getScalarType()->isFloatTy()) {
    auto *cast = llvm::dyn_cast<llvm::Instruction>(source);
    if (!cast || cast->getNumOperands() == 0)
      return nullptr;
    source = cast->getOperand(0);
  }
  return source;
}

/// `like`'s shape (scalar or vector) with elements of `element`.
llvm::Type *shapedLike(llvm::Type *like, llvm::Type *element) {
  if (auto *vector = llvm::dyn_cast<llvm::VectorType>(like))
    return llvm::VectorType::get(element, vector->getElementCount());
  return element;
}

} // namespace

void markHardwareF16Conversions(llvm::Module &module) {
  module.addModuleFlag(llvm::Module::Warning, kHardwareF16Flag, 1);
}

llvm::Value *widenF16(llvm::IRBuilderBase &builder, llvm::Value *bits, bool hardware) {
  if (!hardware)
    return math::emitF16ToF32(builder, bits);
  llvm::Type *type = bits->getType();
  llvm::Value *half = builder.CreateBitCast(bits, shapedLike(type, builder.getHalfTy()));
  return builder.CreateFPExt(half, shapedLike(type, builder.getFloatTy()));
}

llvm::Value *narrowToF16(llvm::IRBuilderBase &builder, llvm::Value *value, bool hardware) {
  if (!hardware)
    return math::emitF32ToF16(builder, value);
  llvm::Type *type = value->getType();
  llvm::Type *bitsType = shapedLike(type, builder.getInt16Ty());
  auto *copysign = llvm::dyn_cast<llvm::IntrinsicInst>(value);
  if (copysign && copysign->getIntrinsicID() == llvm::Intrinsic::copysign &&
      type->getScalarType()->isFloatTy()) {
    // A result that ends in copysign (tanh, sinh): LLVM 16 folds
    // the rounding of copysign(m, s) into copysign(round(m), s) with an f32
    // s, which x86-64 without AVX512-FP16 splits lane by lane (about nine
    // scalar instructions a lane). Rounding is symmetric in the sign, so
    // the rounded magnitude with s's sign bit set in integer code is the
    // same bits.
    llvm::Value *magnitude =
        builder.CreateAnd(narrowToF16(builder, copysign->getArgOperand(0), hardware),
                          llvm::ConstantInt::get(bitsType, 0x7fff));
    llvm::Type *wordsType = shapedLike(type, builder.getInt32Ty());
    llvm::Value *sign = builder.CreateTrunc(
        builder.CreateLShr(builder.CreateBitCast(copysign->getArgOperand(1), wordsType),
                           llvm::ConstantInt::get(wordsType, 16)),
        bitsType);
    return builder.CreateOr(magnitude,
                            builder.CreateAnd(sign, llvm::ConstantInt::get(bitsType, 0x8000)));
  }
  llvm::Value *half = builder.CreateFPTrunc(value, shapedLike(type, builder.getHalfTy()));
  return builder.CreateBitCast(half, bitsType);
}

llvm::Value *toCompute(llvm::IRBuilderBase &builder, PrimitiveType type, llvm::Value *value) {
  if (llvm::Value *exact = exactlyNarrowedFrom(value))
    return exact; // relu6's minimum reads its maximum's f32 result
  if (type == PrimitiveType::F16)
    return widenF16(builder, value, convertsF16WithInstructions(builder));
  if (type == PrimitiveType::BF16)
    return math::emitBF16ToF32(builder, value);
  if (hlo::isF8(type))
    return emitNarrowToFloat(builder, type, value);
  return value;
}

llvm::Value *fromCompute(llvm::IRBuilderBase &builder, PrimitiveType type, llvm::Value *value) {
  if (type == PrimitiveType::F16)
    return narrowToF16(builder, value, convertsF16WithInstructions(builder));
  if (type == PrimitiveType::BF16)
    return markQuietBF16(math::emitF32ToBF16(builder, value));
  if (hlo::isF8(type))
    return emitFloatToNarrow(builder, type, value);
  return value;
}

llvm::Value *fromComputeSelected(llvm::IRBuilderBase &builder, PrimitiveType type,
                                 llvm::Value *value, llvm::ArrayRef<llvm::Value *> operands) {
  if (type == PrimitiveType::F16) {
    llvm::Value *bits = fromCompute(builder, type, value);
    auto *cast = llvm::dyn_cast<llvm::BitCastInst>(bits);
    if (cast && llvm::isa<llvm::FPTruncInst>(cast->getOperand(0)))
      return markExactNarrowing(bits); // the target's conversion, not integer code
    return bits;
  }
  if (type != PrimitiveType::BF16)
    return fromCompute(builder, type, value);
  llvm::Type *bitsType = shapedLike(value->getType(), builder.getInt32Ty());
  llvm::Value *top = builder.CreateLShr(builder.CreateBitCast(value, bitsType),
                                        llvm::ConstantInt::get(bitsType, 16));
  // math::emitF32ToBF16 sets a NaN's quiet bit (0x40 of the bf16); operands
  // that were just rounded (a layer's bias add before its relu) have it.
  const bool quiet = !operands.empty() && llvm::all_of(operands, holdsNoSignallingBF16);
  if (!quiet) {
    llvm::Value *quieted = builder.CreateOr(top, llvm::ConstantInt::get(bitsType, 0x40));
    top = builder.CreateSelect(builder.CreateFCmpUNO(value, value), quieted, top);
  }
  llvm::Value *bits =
      markQuietBF16(builder.CreateTrunc(top, shapedLike(value->getType(), builder.getInt16Ty())));
  return quiet ? markExactNarrowing(bits) : bits;
}

llvm::Value *foldConstantLoad(llvm::Value *value) {
  if (auto *load = llvm::dyn_cast<llvm::LoadInst>(value))
    if (auto *global = llvm::dyn_cast<llvm::GlobalVariable>(load->getPointerOperand()))
      if (global->isConstant() && global->hasDefinitiveInitializer())
        if (llvm::Constant *folded = llvm::ConstantFoldLoadFromConstPtr(
                global, load->getType(), global->getParent()->getDataLayout()))
          return folded;
  return value;
}

bool allConstantElements(llvm::Constant *constant,
                         llvm::function_ref<bool(llvm::Constant *)> predicate) {
  auto *vector = llvm::dyn_cast<llvm::FixedVectorType>(constant->getType());
  if (!vector)
    return predicate(constant);
  for (unsigned i = 0; i < vector->getNumElements(); ++i)
    if (!predicate(constant->getAggregateElement(i)))
      return false;
  return true;
}

bool convertsF16WithInstructions(llvm::IRBuilderBase &builder) {
  llvm::BasicBlock *block = builder.GetInsertBlock();
  return block && block->getModule() && convertsF16WithInstructions(*block->getModule());
}

bool convertsF16WithInstructions(const llvm::Module &module) {
  return module.getModuleFlag(kHardwareF16Flag) != nullptr;
}

llvm::Value *exactF16Bits(llvm::IRBuilderBase &builder, llvm::Value *value) {
  return markExactNarrowing(narrowToF16(builder, value, /*hardware=*/true));
}

llvm::Value *exactHalfBits(llvm::IRBuilderBase &builder, PrimitiveType type, llvm::Value *value) {
  if (type == PrimitiveType::F16)
    return exactF16Bits(builder, value);
  llvm::Type *words = shapedLike(value->getType(), builder.getInt32Ty());
  llvm::Value *top =
      builder.CreateLShr(builder.CreateBitCast(value, words), llvm::ConstantInt::get(words, 16));
  return markExactNarrowing(
      builder.CreateTrunc(top, shapedLike(value->getType(), builder.getInt16Ty())));
}

llvm::Value *zeroValue(llvm::IRBuilderBase &builder, PrimitiveType type) {
  return llvm::Constant::getNullValue(valueType(builder.getContext(), type));
}

llvm::Constant *constantElement(llvm::LLVMContext &context, PrimitiveType type,
                                llvm::ArrayRef<uint8_t> bytes) {
  if (hlo::isComplex(type)) {
    PrimitiveType part = hlo::complexComponentType(type);
    const size_t half = bytes.size() / 2;
    return llvm::ConstantStruct::getAnon(context,
                                         {constantElement(context, part, bytes.take_front(half)),
                                          constantElement(context, part, bytes.drop_front(half))});
  }
  uint64_t raw = 0;
  for (size_t i = bytes.size(); i-- > 0;)
    raw = (raw << 8) | bytes[i];
  llvm::Type *value = valueType(context, type);
  if (value->isIntegerTy()) // pred and sub-byte values keep their low bits
    return llvm::ConstantInt::get(
        value, raw & llvm::maskTrailingOnes<uint64_t>(value->getIntegerBitWidth()));
  llvm::Constant *asInteger =
      llvm::ConstantInt::get(llvm::Type::getIntNTy(context, bytes.size() * 8), raw);
  return llvm::ConstantExpr::getBitCast(asInteger, value);
}

} // namespace mote::codegen
