//===- ReadOnlyData.cpp - Constants in the code or in the weights blob ----===//
//
// Code compiled into an object keeps its constants as private globals in
// read-only data: flash on a microcontroller, never copied to RAM. Code for
// a package reads the large ones through mote_call.weights (WeightsBlob.h):
// the entry function stores that pointer in the scratch's first word, and
// every function that reads a weight loads it from there once, in its entry
// block, since op and task functions see only the scratch.
//
//===----------------------------------------------------------------------===//

#include "codegen/FunctionEmitter.h"

namespace mote::codegen {

FunctionEmitter::ReadOnlyData FunctionEmitter::readOnlyData(llvm::ArrayRef<uint8_t> bytes,
                                                            const llvm::Twine &name,
                                                            llvm::Align alignment) {
  ReadOnlyData data;
  if (weightsBlob_ && bytes.size() >= WeightsBlob::kMinBytes) {
    data.weightsOffset = weightsBlob_->add(bytes);
    return data;
  }
  llvm::Constant *initializer = llvm::ConstantDataArray::get(module_.getContext(), bytes);
  data.global = new llvm::GlobalVariable(module_, initializer->getType(), /*isConstant=*/true,
                                         llvm::GlobalValue::PrivateLinkage, initializer, name);
  data.global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  data.global->setAlignment(alignment);
  return data;
}

FunctionEmitter::ReadOnlyData FunctionEmitter::readOnlyData(std::vector<uint8_t> bytes,
                                                            const llvm::Twine &name,
                                                            llvm::Align alignment) {
  if (weightsBlob_ && bytes.size() >= WeightsBlob::kMinBytes) {
    ReadOnlyData data;
    data.weightsOffset = weightsBlob_->add(std::move(bytes));
    return data;
  }
  return readOnlyData(llvm::ArrayRef<uint8_t>(bytes), name, alignment);
}

llvm::Value *FunctionEmitter::addressOf(const ReadOnlyData &data) {
  if (data.global)
    return data.global;
  llvm::Value *&base = weightsBases_[function_];
  if (!base) {
    // Op and task functions: the word before their arena. scratch_ is an
    // argument of theirs, so the entry block's start is after it.
    llvm::BasicBlock &entry = function_->getEntryBlock();
    llvm::IRBuilder<> at(&entry, entry.getFirstInsertionPt());
    llvm::Value *slot =
        at.CreateConstGEP1_64(at.getInt8Ty(), scratch_, -int64_t(weightsReserve_), "weights.slot");
    base = at.CreateLoad(at.getPtrTy(), slot, "weights");
  }
  return builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), base, data.weightsOffset);
}

} // namespace mote::codegen
