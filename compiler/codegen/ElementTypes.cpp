//===- ElementTypes.cpp - HLO element types as LLVM types -----------------===//

#include "codegen/ElementTypes.h"

#include "codegen/MathEmitter.h"

namespace mote::codegen {

using hlo::PrimitiveType;

bool isCodegenElementType(PrimitiveType type) {
  switch (type) {
  case PrimitiveType::Pred:
  case PrimitiveType::S8:
  case PrimitiveType::S16:
  case PrimitiveType::S32:
  case PrimitiveType::S64:
  case PrimitiveType::U8:
  case PrimitiveType::U16:
  case PrimitiveType::U32:
  case PrimitiveType::U64:
  case PrimitiveType::F16:
  case PrimitiveType::BF16:
  case PrimitiveType::F32:
  case PrimitiveType::F64:
    return true;
  default:
    return false;
  }
}

bool isHalfType(PrimitiveType type) {
  return type == PrimitiveType::F16 || type == PrimitiveType::BF16;
}

llvm::Type *storageType(llvm::LLVMContext &context, PrimitiveType type) {
  switch (type) {
  case PrimitiveType::F32:
    return llvm::Type::getFloatTy(context);
  case PrimitiveType::F64:
    return llvm::Type::getDoubleTy(context);
  default:
    return llvm::Type::getIntNTy(context, hlo::storageBytes(type) * 8);
  }
}

llvm::Type *valueType(llvm::LLVMContext &context, PrimitiveType type) {
  if (type == PrimitiveType::Pred)
    return llvm::Type::getInt1Ty(context);
  return storageType(context, type);
}

llvm::Type *computeType(llvm::LLVMContext &context, PrimitiveType type) {
  if (isHalfType(type))
    return llvm::Type::getFloatTy(context);
  return valueType(context, type);
}

llvm::Value *loadElement(llvm::IRBuilderBase &builder, PrimitiveType type, llvm::Value *address) {
  llvm::Value *stored = builder.CreateLoad(storageType(builder.getContext(), type), address);
  if (type == PrimitiveType::Pred)
    return builder.CreateICmpNE(stored, builder.getInt8(0));
  return stored;
}

void storeElement(llvm::IRBuilderBase &builder, PrimitiveType type, llvm::Value *value,
                  llvm::Value *address) {
  if (type == PrimitiveType::Pred)
    value = builder.CreateZExt(value, builder.getInt8Ty());
  builder.CreateStore(value, address);
}

llvm::Value *toCompute(llvm::IRBuilderBase &builder, PrimitiveType type, llvm::Value *value) {
  if (type == PrimitiveType::F16)
    return math::emitF16ToF32(builder, value);
  if (type == PrimitiveType::BF16)
    return math::emitBF16ToF32(builder, value);
  return value;
}

llvm::Value *fromCompute(llvm::IRBuilderBase &builder, PrimitiveType type, llvm::Value *value) {
  if (type == PrimitiveType::F16)
    return math::emitF32ToF16(builder, value);
  if (type == PrimitiveType::BF16)
    return math::emitF32ToBF16(builder, value);
  return value;
}

llvm::Value *zeroValue(llvm::IRBuilderBase &builder, PrimitiveType type) {
  return llvm::Constant::getNullValue(valueType(builder.getContext(), type));
}

} // namespace mote::codegen
