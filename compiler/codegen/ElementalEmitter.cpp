//===- ElementalEmitter.cpp - Dispatch and data movement generators -------===//

#include "codegen/ElementalEmitter.h"

#include "codegen/ComplexOps.h"
#include "codegen/ElementTypes.h"
#include "codegen/LoopNest.h"

#include "hlo/Computation.h"

#include "llvm/ADT/DenseMap.h"

namespace mote::codegen {

using hlo::Opcode;
using hlo::PrimitiveType;

namespace {

bool isUnaryElementwise(Opcode opcode) {
  switch (opcode) {
  case Opcode::Abs:
  case Opcode::Acos:
  case Opcode::Acosh:
  case Opcode::Asin:
  case Opcode::Asinh:
  case Opcode::Atan:
  case Opcode::Atanh:
  case Opcode::Cbrt:
  case Opcode::Ceil:
  case Opcode::Clz:
  case Opcode::Cos:
  case Opcode::Cosh:
  case Opcode::Erf:
  case Opcode::Exp:
  case Opcode::Expm1:
  case Opcode::Floor:
  case Opcode::IsFinite:
  case Opcode::Log:
  case Opcode::Log1p:
  case Opcode::Logistic:
  case Opcode::Negate:
  case Opcode::Not:
  case Opcode::PopCount:
  case Opcode::RoundNearestAfz:
  case Opcode::RoundNearestEven:
  case Opcode::Rsqrt:
  case Opcode::Sign:
  case Opcode::Sin:
  case Opcode::Sinh:
  case Opcode::Sqrt:
  case Opcode::Tan:
  case Opcode::Tanh:
    return true;
  default:
    return false;
  }
}

bool isBinaryElementwise(Opcode opcode) {
  switch (opcode) {
  case Opcode::Add:
  case Opcode::And:
  case Opcode::Atan2:
  case Opcode::Divide:
  case Opcode::Maximum:
  case Opcode::Minimum:
  case Opcode::Multiply:
  case Opcode::Or:
  case Opcode::Power:
  case Opcode::Remainder:
  case Opcode::ShiftLeft:
  case Opcode::ShiftRightArithmetic:
  case Opcode::ShiftRightLogical:
  case Opcode::Subtract:
  case Opcode::Xor:
    return true;
  default:
    return false;
  }
}

bool isFloatOnly(Opcode opcode) {
  switch (opcode) {
  case Opcode::Abs:
  case Opcode::Negate:
  case Opcode::Sign:
  case Opcode::Not:
  case Opcode::PopCount:
  case Opcode::Clz:
    return false;
  default:
    return isUnaryElementwise(opcode) || opcode == Opcode::Atan2;
  }
}

bool isSimpleScalarComputation(const hlo::Computation &computation, std::string *why) {
  for (const auto &instruction : computation.instructions()) {
    switch (instruction->opcode()) {
    case Opcode::Parameter:
    case Opcode::Tuple:
    case Opcode::GetTupleElement:
      continue;
    case Opcode::Constant:
      if (instruction->shape().isScalar() &&
          isCodegenElementType(instruction->shape().elementType()))
        continue;
      if (why)
        *why = "only scalar constants are supported in " + computation.name().str();
      return false;
    default:
      if (!instruction->shape().isScalar() || !isElemental(*instruction, why))
        return false;
    }
  }
  return true;
}

} // namespace

bool hasCodegenTypes(const hlo::Instruction &instruction, std::string *why) {
  auto check = [&](const hlo::Shape &shape) {
    llvm::SmallVector<const hlo::Shape *, 4> leaves;
    shape.collectLeaves(leaves);
    for (const hlo::Shape *leaf : leaves)
      if (!leaf->isArray() || !isCodegenElementType(leaf->elementType())) {
        if (why)
          *why = "code generation does not support values of type " + shape.toString(false);
        return false;
      }
    return true;
  };
  if (!check(instruction.shape()))
    return false;
  for (const hlo::Instruction *operand : instruction.operands())
    if (!check(operand->shape()))
      return false;
  return true;
}

bool isElemental(const hlo::Instruction &instruction, std::string *why) {
  Opcode opcode = instruction.opcode();
  auto fail = [&](const std::string &message) {
    if (why)
      *why = message;
    return false;
  };
  switch (opcode) {
  case Opcode::Parameter:
  case Opcode::Constant:
  case Opcode::Tuple:
  case Opcode::GetTupleElement:
    return fail("not an elemental op");
  default:
    break;
  }
  if (!hasCodegenTypes(instruction, why))
    return false;
  PrimitiveType type = instruction.operandCount() ? instruction.operand(0)->shape().elementType()
                                                  : instruction.shape().elementType();
  const bool isFloat = hlo::isFloatingPoint(type);
  const std::string name(hlo::opcodeName(opcode));
  if (hlo::isComplex(type)) {
    if (isUnaryElementwise(opcode) || isBinaryElementwise(opcode))
      return isComplexElementwise(opcode) ||
             fail(name + " on complex values is not supported by code generation yet");
    switch (opcode) {
    case Opcode::Compare: {
      hlo::ComparisonDirection direction = instruction.attributes().comparisonDirection;
      return direction == hlo::ComparisonDirection::EQ ||
             direction == hlo::ComparisonDirection::NE ||
             fail("complex values compare only with EQ or NE");
    }
    case Opcode::Clamp:
      return fail("clamp is not defined on complex values");
    case Opcode::Convert:
      return hlo::isComplex(instruction.shape().elementType()) ||
             fail("convert from complex to a real type is not defined (use real or imag)");
    case Opcode::Complex:
      return fail("complex takes real operands");
    case Opcode::BitcastConvert:
      return fail("bitcast-convert of complex values is not defined");
    default:
      break;
    }
  }
  if (isUnaryElementwise(opcode) || isBinaryElementwise(opcode)) {
    if (isFloatOnly(opcode) && !isFloat)
      return fail(std::string(hlo::opcodeName(opcode)) + " needs a floating-point operand");
    if ((opcode == Opcode::Not || opcode == Opcode::And || opcode == Opcode::Or ||
         opcode == Opcode::Xor || opcode == Opcode::PopCount || opcode == Opcode::Clz ||
         opcode == Opcode::ShiftLeft || opcode == Opcode::ShiftRightArithmetic ||
         opcode == Opcode::ShiftRightLogical) &&
        isFloat)
      return fail(std::string(hlo::opcodeName(opcode)) + " needs an integer operand");
    return true;
  }
  switch (opcode) {
  case Opcode::Real:
  case Opcode::Imag:
    return hlo::isComplex(type) || isFloat || fail(name + " needs a complex or float operand");
  case Opcode::Complex:
    return type == PrimitiveType::F32 || type == PrimitiveType::F64 ||
           fail("complex takes f32 or f64 parts");
  case Opcode::Compare:
  case Opcode::Convert:
  case Opcode::Select:
  case Opcode::Clamp:
  case Opcode::Broadcast:
  case Opcode::Reshape:
  case Opcode::Transpose:
  case Opcode::Copy:
  case Opcode::Slice:
  case Opcode::Reverse:
  case Opcode::Pad:
  case Opcode::Concatenate:
  case Opcode::Iota:
  case Opcode::DynamicSlice:
  case Opcode::Dot:
  case Opcode::Convolution:
  case Opcode::Gather:
    return true;
  case Opcode::Bitcast:
    return instruction.shape().elementType() == type ||
           fail("bitcast between element types is not supported");
  case Opcode::BitcastConvert: {
    // Between widths the narrow side has one extra minor dimension of
    // wide / narrow pieces (the verifier checked the shapes); pred has no
    // bit layout to split.
    const int fromWidth = bitcastWidth(type);
    const int toWidth = bitcastWidth(instruction.shape().elementType());
    if (fromWidth != toWidth && (type == PrimitiveType::Pred ||
                                 instruction.shape().elementType() == PrimitiveType::Pred))
      return fail("bitcast-convert of pred between widths is not supported");
    return true;
  }
  case Opcode::Reduce:
  case Opcode::ReduceWindow:
    if (instruction.shape().isTuple())
      return fail("variadic " + std::string(hlo::opcodeName(opcode)) +
                  " is not supported by code generation yet");
    return isSimpleScalarComputation(*instruction.calledComputation(0), why);
  case Opcode::Map:
    return isSimpleScalarComputation(*instruction.calledComputation(0), why);
  case Opcode::ReducePrecision: {
    // Bit counts at or above the type's own leave that part as it is.
    const auto &a = instruction.attributes();
    if (!isFloat || hlo::isComplex(type) || hlo::isF8(type) || a.exponentBits < 1 ||
        a.mantissaBits < 0)
      return fail("reduce-precision needs an f16, bf16, f32 or f64 value and positive bit counts");
    return true;
  }
  default:
    return fail(std::string(hlo::opcodeName(opcode)) + " is not supported by code generation yet");
  }
}

llvm::Value *ElementalEmitter::emit(const hlo::Instruction &instruction, IndexRef index) {
  Opcode opcode = instruction.opcode();
  if (isUnaryElementwise(opcode))
    return emitUnary(instruction, index);
  if (isBinaryElementwise(opcode))
    return emitBinary(instruction, index);
  switch (opcode) {
  case Opcode::Compare:
    return emitCompare(instruction, index);
  case Opcode::Real:
  case Opcode::Imag:
  case Opcode::Complex:
    return emitComplexParts(instruction, index);
  case Opcode::Convert:
    return emitConvert(instruction, index);
  case Opcode::BitcastConvert:
    return emitBitcastConvert(instruction, index);
  case Opcode::ReducePrecision:
    return emitReducePrecision(instruction, index);
  case Opcode::Select:
  case Opcode::Clamp:
    return emitSelectOrClamp(instruction, index);
  case Opcode::Pad:
    return emitPad(instruction, index);
  case Opcode::Concatenate:
    return emitConcatenate(instruction, index);
  case Opcode::DynamicSlice:
    return emitDynamicSlice(instruction, index);
  case Opcode::Iota:
    return emitIota(instruction, index);
  case Opcode::Gather:
    return emitGather(instruction, index);
  case Opcode::Dot:
    return emitDot(instruction, index);
  case Opcode::Reduce:
    return emitReduce(instruction, index);
  case Opcode::ReduceWindow:
    return emitReduceWindow(instruction, index);
  case Opcode::Convolution:
    return emitConvolution(instruction, index);
  case Opcode::Map:
    return emitMap(instruction, index);
  default:
    return emitDataMovement(instruction, index);
  }
}

llvm::Value *ElementalEmitter::emitDataMovement(const hlo::Instruction &instruction,
                                                IndexRef index) {
  const hlo::Instruction &operand = *instruction.operand(0);
  const hlo::InstructionAttributes &attributes = instruction.attributes();
  llvm::SmallVector<llvm::Value *, 4> source;
  switch (instruction.opcode()) {
  case Opcode::Copy:
    return read_(operand, index);
  case Opcode::Broadcast:
    for (int64_t dim : attributes.dimensions)
      source.push_back(index[dim]);
    return read_(operand, source);
  case Opcode::Reshape:
  case Opcode::Bitcast: {
    llvm::Value *linear = emitLinearIndex(builder_, indexType_, instruction.shape().dims(), index);
    return read_(operand, emitDelinearize(builder_, indexType_, operand.shape().dims(), linear));
  }
  case Opcode::Transpose:
    source.resize(index.size());
    for (size_t i = 0; i < index.size(); ++i)
      source[attributes.dimensions[i]] = index[i];
    return read_(operand, source);
  case Opcode::Slice:
    for (size_t d = 0; d < index.size(); ++d) {
      const hlo::SliceDimension &slice = attributes.slice[d];
      source.push_back(
          builder_.CreateNUWAdd(builder_.CreateNUWMul(index[d], indexConstant(slice.stride)),
                                indexConstant(slice.start)));
    }
    return read_(operand, source);
  case Opcode::Reverse: {
    source.assign(index.begin(), index.end());
    for (int64_t dim : attributes.dimensions)
      source[dim] = builder_.CreateSub(indexConstant(operand.shape().dim(dim) - 1), index[dim]);
    return read_(operand, source);
  }
  default:
    return nullptr;
  }
}

llvm::Value *ElementalEmitter::emitPad(const hlo::Instruction &instruction, IndexRef index) {
  const hlo::Instruction &operand = *instruction.operand(0);
  llvm::Value *padding = read_(*instruction.operand(1), {});
  if (operand.shape().elementCount() == 0)
    return padding;
  // Read the operand at a clamped (always valid) index and select the padding
  // value where the output index does not map onto an operand element.
  llvm::Value *inside = builder_.getTrue();
  llvm::SmallVector<llvm::Value *, 4> source;
  for (size_t d = 0; d < index.size(); ++d) {
    const hlo::PaddingDimension &pad = instruction.attributes().padding[d];
    const int64_t size = operand.shape().dim(d);
    const int64_t step = pad.interior + 1;
    // Signed: with negative low padding the position is still >= 0, with
    // positive low padding it may be negative.
    llvm::Value *position = builder_.CreateSub(index[d], indexConstant(pad.low));
    llvm::Value *zero = indexConstant(0);
    llvm::Value *nonNegative = builder_.CreateICmpSGE(position, zero);
    llvm::Value *safePosition = builder_.CreateSelect(nonNegative, position, zero);
    llvm::Value *element = safePosition;
    if (step != 1) {
      llvm::Value *stepValue = indexConstant(step);
      inside = builder_.CreateAnd(
          inside, builder_.CreateICmpEQ(builder_.CreateURem(safePosition, stepValue), zero));
      element = builder_.CreateUDiv(safePosition, stepValue);
    }
    llvm::Value *limit = indexConstant(size);
    llvm::Value *inRange = builder_.CreateICmpULT(element, limit);
    inside = builder_.CreateAnd(inside, builder_.CreateAnd(nonNegative, inRange));
    source.push_back(builder_.CreateSelect(inRange, element, indexConstant(size - 1)));
  }
  llvm::Value *value = read_(operand, source);
  return builder_.CreateSelect(inside, value, padding);
}

llvm::Value *ElementalEmitter::emitConcatenate(const hlo::Instruction &instruction,
                                               IndexRef index) {
  const int64_t dim = instruction.attributes().dimensions[0];
  llvm::Function *function = builder_.GetInsertBlock()->getParent();
  llvm::LLVMContext &context = builder_.getContext();
  llvm::BasicBlock *merge = llvm::BasicBlock::Create(context, "concat.merge", function);
  llvm::SmallVector<std::pair<llvm::Value *, llvm::BasicBlock *>, 4> incoming;
  int64_t offset = 0;
  const size_t count = instruction.operandCount();
  for (size_t i = 0; i < count; ++i) {
    const hlo::Instruction &operand = *instruction.operand(i);
    const int64_t size = operand.shape().dim(dim);
    if (size == 0)
      continue;
    llvm::SmallVector<llvm::Value *, 4> source(index.begin(), index.end());
    source[dim] = builder_.CreateSub(index[dim], indexConstant(offset));
    offset += size;
    bool last = offset == instruction.shape().dim(dim);
    if (last) {
      incoming.push_back({read_(operand, source), builder_.GetInsertBlock()});
      builder_.CreateBr(merge);
      break;
    }
    llvm::BasicBlock *take = llvm::BasicBlock::Create(context, "concat.take", function);
    llvm::BasicBlock *next = llvm::BasicBlock::Create(context, "concat.next", function);
    builder_.CreateCondBr(builder_.CreateICmpULT(index[dim], indexConstant(offset)), take, next);
    builder_.SetInsertPoint(take);
    llvm::Value *value = read_(operand, source);
    incoming.push_back({value, builder_.GetInsertBlock()});
    builder_.CreateBr(merge);
    builder_.SetInsertPoint(next);
  }
  builder_.SetInsertPoint(merge);
  llvm::PHINode *phi =
      builder_.CreatePHI(valueType(context, instruction.shape().elementType()), incoming.size());
  for (auto &[value, block] : incoming)
    phi->addIncoming(value, block);
  return phi;
}

llvm::Value *ElementalEmitter::clampedStart(const hlo::Instruction &indexOperand,
                                            llvm::Value *limit) {
  llvm::Value *start = read_(indexOperand, {});
  const bool isSigned = hlo::isSignedInteger(indexOperand.shape().elementType());
  // Compare in 64 bits so no start value wraps into range.
  llvm::Type *wide = builder_.getInt64Ty();
  start = builder_.CreateIntCast(start, wide, isSigned);
  llvm::Value *wideLimit = builder_.CreateZExt(limit, wide);
  llvm::Value *zero = llvm::ConstantInt::get(wide, 0);
  start = builder_.CreateSelect(builder_.CreateICmpSLT(start, zero), zero, start);
  start = builder_.CreateSelect(builder_.CreateICmpSGT(start, wideLimit), wideLimit, start);
  return builder_.CreateTrunc(start, indexType_);
}

llvm::Value *ElementalEmitter::emitDynamicSlice(const hlo::Instruction &instruction,
                                                IndexRef index) {
  const hlo::Instruction &operand = *instruction.operand(0);
  llvm::SmallVector<llvm::Value *, 4> source;
  for (size_t d = 0; d < index.size(); ++d) {
    llvm::Value *limit = indexConstant(operand.shape().dim(d) - instruction.shape().dim(d));
    llvm::Value *start = clampedStart(*instruction.operand(1 + d), limit);
    source.push_back(builder_.CreateNUWAdd(start, index[d]));
  }
  return read_(operand, source);
}

llvm::Value *ElementalEmitter::emitIota(const hlo::Instruction &instruction, IndexRef index) {
  llvm::Value *position = index[instruction.attributes().iotaDimension];
  // The position is an unsigned index; converting from a wide unsigned
  // integer is exact for every array that fits in memory.
  return emitConvertOp(builder_, PrimitiveType::U64, instruction.shape().elementType(),
                       builder_.CreateZExt(position, builder_.getInt64Ty()));
}

ValueList ElementalEmitter::emitScalarComputation(const hlo::Computation &computation,
                                                  llvm::ArrayRef<llvm::Value *> arguments) {
  llvm::DenseMap<const hlo::Instruction *, ValueList> values;
  size_t nextArgument = 0;
  for (const hlo::Instruction *parameter : computation.parameters()) {
    llvm::SmallVector<const hlo::Shape *, 4> leaves;
    parameter->shape().collectLeaves(leaves);
    ValueList &list = values[parameter];
    for (size_t i = 0; i < leaves.size(); ++i)
      list.push_back(arguments[nextArgument++]);
  }
  auto reader = [&](const hlo::Instruction &operand, IndexRef) -> llvm::Value * {
    return values[&operand][0];
  };
  ElementalEmitter scalar(builder_, indexType_, reader, contraction_);
  for (const auto &owned : computation.instructions()) {
    const hlo::Instruction &instruction = *owned;
    switch (instruction.opcode()) {
    case Opcode::Parameter:
      break;
    case Opcode::Constant: {
      const hlo::Literal &literal = *instruction.attributes().literal;
      values[&instruction].push_back(constantElement(
          builder_.getContext(), instruction.shape().elementType(), literal.bytes()));
      break;
    }
    case Opcode::Tuple: {
      ValueList &list = values[&instruction];
      for (const hlo::Instruction *operand : instruction.operands())
        list.append(values[operand].begin(), values[operand].end());
      break;
    }
    case Opcode::GetTupleElement: {
      // Leaves before the selected element, in flattened order.
      const hlo::Shape &tupleShape = instruction.operand(0)->shape();
      size_t first = 0;
      for (int64_t i = 0; i < instruction.attributes().tupleIndex; ++i) {
        llvm::SmallVector<const hlo::Shape *, 4> leaves;
        tupleShape.tupleElement(i).collectLeaves(leaves);
        first += leaves.size();
      }
      llvm::SmallVector<const hlo::Shape *, 4> leaves;
      instruction.shape().collectLeaves(leaves);
      ValueList &source = values[instruction.operand(0)];
      values[&instruction].append(source.begin() + first, source.begin() + first + leaves.size());
      break;
    }
    default:
      values[&instruction].push_back(scalar.emit(instruction, {}));
      break;
    }
  }
  return values[computation.root()];
}

} // namespace mote::codegen
