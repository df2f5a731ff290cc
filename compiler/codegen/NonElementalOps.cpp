//===- NonElementalOps.cpp - Dispatch for ops emitted as whole loops ------===//
//
// Ops whose result element is not a function of operand elements at computed
// indices (sort, scatter, select-and-scatter, multi-result reductions, random
// bit generation, top-k, fft) each get an emitter of their own, as do the dots
// that are worth register-tiling; this file says which ones exist and routes
// to them, and holds the small loop helpers they share.
//
//===----------------------------------------------------------------------===//

#include "codegen/FunctionEmitter.h"

namespace mote::codegen {

namespace {

bool fail(std::string *why, const std::string &message) {
  if (why)
    *why = message;
  return false;
}

/// Whether `computation` can run as scalar code inside a loop (what
/// ElementalEmitter::emitScalarComputation handles).
bool isScalarCode(const hlo::Computation &computation, std::string *why) {
  for (const auto &owned : computation.instructions()) {
    const hlo::Instruction &instruction = *owned;
    switch (instruction.opcode()) {
    case Opcode::Parameter:
    case Opcode::Tuple:
    case Opcode::GetTupleElement:
      continue;
    case Opcode::Constant:
      if (instruction.shape().isScalar() && isCodegenElementType(instruction.shape().elementType()))
        continue;
      return fail(why, "only scalar constants are supported in " + computation.name().str());
    default:
      if (!instruction.shape().isScalar())
        return fail(why, "only scalar code is supported in " + computation.name().str());
      if (!isElemental(instruction, why))
        return false;
    }
  }
  return true;
}

bool calledIsScalarCode(const hlo::Instruction &instruction, std::string *why) {
  for (const hlo::Computation *called : instruction.calledComputations())
    if (!called || !isScalarCode(*called, why))
      return false;
  return true;
}

bool isTopKCall(const hlo::Instruction &instruction) {
  return instruction.opcode() == Opcode::TopK ||
         (instruction.opcode() == Opcode::CustomCall &&
          instruction.attributes().customCallTarget == "TopK");
}

/// State u64[2] (or u64[3] for Philox), bits of 8, 16, 32 or 64 bits.
bool isRngSupported(const hlo::Instruction &instruction, std::string *why) {
  const hlo::Shape &shape = instruction.shape();
  if (instruction.operandCount() != 1)
    return fail(why, "rng-bit-generator takes one operand");
  const hlo::Shape &state = instruction.operand(0)->shape();
  if (!shape.isTuple() || shape.tupleSize() != 2 || !shape.tupleElement(0).isArray() ||
      !shape.tupleElement(1).isArray() || state.elementType() != hlo::PrimitiveType::U64 ||
      state.rank() != 1 || shape.tupleElement(0).dims() != state.dims())
    return fail(why, "rng-bit-generator takes a u64[N] state and returns (state, bits)");
  const bool philox = instruction.attributes().rngAlgorithm != hlo::RandomAlgorithm::ThreeFry;
  const int64_t size = state.dim(0);
  if (philox ? (size != 2 && size != 3) : size != 2)
    return fail(why,
                philox ? "Philox needs a u64[2] or u64[3] state" : "Threefry needs a u64[2] state");
  hlo::PrimitiveType type = shape.tupleElement(1).elementType();
  const int bits = hlo::bitWidth(type);
  if (type == hlo::PrimitiveType::Pred || (bits != 8 && bits != 16 && bits != 32 && bits != 64))
    return fail(why, "rng-bit-generator cannot produce " + shape.tupleElement(1).toString(false));
  return true;
}

/// (values, s32 indices) of the operand's shape with the last dimension k <= n.
bool isTopKShape(const hlo::Instruction &instruction, std::string *why) {
  const hlo::Shape &shape = instruction.shape();
  if (instruction.operandCount() != 1)
    return fail(why, "topk takes one operand");
  const hlo::Shape &operand = instruction.operand(0)->shape();
  if (operand.rank() < 1 || !shape.isTuple() || shape.tupleSize() != 2)
    return fail(why, "topk takes an array of rank >= 1 and returns (values, indices)");
  const hlo::Shape &values = shape.tupleElement(0);
  const hlo::Shape &indices = shape.tupleElement(1);
  bool ok = values.isArray() && indices.isArray() && values.rank() == operand.rank() &&
            indices.dims() == values.dims() && values.elementType() == operand.elementType() &&
            indices.elementType() == hlo::PrimitiveType::S32 &&
            values.dims().back() <= operand.dims().back();
  for (int64_t d = 0; ok && d + 1 < operand.rank(); ++d)
    ok = values.dim(d) == operand.dim(d);
  if (!ok)
    return fail(why, "topk result must be (values, s32 indices) with the operand's shape but "
                     "k <= n in the last dimension");
  if (operand.dims().back() > INT32_MAX)
    return fail(why, "topk rows are too long for s32 indices");
  if (hlo::isComplex(operand.elementType()))
    return fail(why, "topk needs ordered values, and complex values have no order");
  return true;
}

} // namespace

bool isNonElementalSupported(const hlo::Instruction &instruction, std::string *why) {
  switch (instruction.opcode()) {
  case Opcode::Sort:
  case Opcode::Scatter:
  case Opcode::SelectAndScatter:
    return hasCodegenTypes(instruction, why) && calledIsScalarCode(instruction, why);
  case Opcode::Reduce:
  case Opcode::ReduceWindow:
    if (!instruction.shape().isTuple())
      return fail(why, "single-result reductions are elemental");
    return hasCodegenTypes(instruction, why) && calledIsScalarCode(instruction, why);
  case Opcode::RngBitGenerator:
    return hasCodegenTypes(instruction, why) && isRngSupported(instruction, why);
  case Opcode::TopK:
  case Opcode::CustomCall:
    if (!isTopKCall(instruction))
      return fail(why, "custom-call target '" + instruction.attributes().customCallTarget +
                           "' is not supported by code generation");
    return hasCodegenTypes(instruction, why) && isTopKShape(instruction, why);
  case Opcode::Dot:
    return isTiledDot(instruction, why);
  case Opcode::Convolution:
    return isTiledConvolution(instruction, why);
  case Opcode::Fft:
    return hasCodegenTypes(instruction, why) && isFftSupported(instruction, why);
  case Opcode::Cholesky:
  case Opcode::TriangularSolve:
    return hasCodegenTypes(instruction, why) && isLinearAlgebraSupported(instruction, why);
  default:
    return fail(why, "not a non-elemental op");
  }
}

bool FunctionEmitter::emitNonElemental(const hlo::Instruction &instruction) {
  if (!isNonElementalSupported(instruction, nullptr))
    return false;
  switch (instruction.opcode()) {
  case Opcode::Sort:
    emitSort(instruction);
    return true;
  case Opcode::Scatter:
    emitScatter(instruction);
    return true;
  case Opcode::Reduce:
    emitMultiOutputReduce(instruction);
    return true;
  case Opcode::ReduceWindow:
    emitMultiOutputReduceWindow(instruction);
    return true;
  case Opcode::SelectAndScatter:
    emitSelectAndScatter(instruction);
    return true;
  case Opcode::RngBitGenerator:
    emitRngBitGenerator(instruction);
    return true;
  case Opcode::TopK:
  case Opcode::CustomCall:
    emitTopK(instruction);
    return true;
  case Opcode::Dot:
    emitDot(instruction);
    return true;
  case Opcode::Convolution:
    emitConvolution(instruction);
    return true;
  case Opcode::Fft:
    emitFft(instruction);
    return true;
  case Opcode::Cholesky:
    emitCholesky(instruction);
    return true;
  case Opcode::TriangularSolve:
    emitTriangularSolve(instruction);
    return true;
  default:
    return false;
  }
}

llvm::Value *FunctionEmitter::elementAt(hlo::PrimitiveType type, llvm::Value *base,
                                        llvm::Value *linear) {
  return builder_.CreateInBoundsGEP(storageType(module_.getContext(), type), base, linear);
}

llvm::AllocaInst *FunctionEmitter::createLocal(llvm::Type *type, const llvm::Twine &name) {
  llvm::IRBuilder<> entry(&function_->getEntryBlock(), function_->getEntryBlock().begin());
  return entry.CreateAlloca(type, nullptr, name);
}

void FunctionEmitter::emitWhileLoop(llvm::function_ref<llvm::Value *()> condition,
                                    llvm::function_ref<void()> body, const llvm::Twine &name) {
  llvm::LLVMContext &context = module_.getContext();
  llvm::BasicBlock *header = llvm::BasicBlock::Create(context, name + ".cond", function_);
  llvm::BasicBlock *bodyBlock = llvm::BasicBlock::Create(context, name + ".body", function_);
  llvm::BasicBlock *exit = llvm::BasicBlock::Create(context, name + ".exit", function_);
  builder_.CreateBr(header);
  builder_.SetInsertPoint(header);
  builder_.CreateCondBr(condition(), bodyBlock, exit);
  builder_.SetInsertPoint(bodyBlock);
  body();
  builder_.CreateBr(header);
  builder_.SetInsertPoint(exit);
}

void FunctionEmitter::emitIf(llvm::Value *condition, llvm::function_ref<void()> then,
                             const llvm::Twine &name) {
  llvm::LLVMContext &context = module_.getContext();
  llvm::BasicBlock *thenBlock = llvm::BasicBlock::Create(context, name + ".then", function_);
  llvm::BasicBlock *merge = llvm::BasicBlock::Create(context, name + ".merge", function_);
  builder_.CreateCondBr(condition, thenBlock, merge);
  builder_.SetInsertPoint(thenBlock);
  then();
  builder_.CreateBr(merge);
  builder_.SetInsertPoint(merge);
}

} // namespace mote::codegen
