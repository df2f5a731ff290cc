//===- SharedConstants.cpp - A package's weights, stored once -------------===//

#include "codegen/SharedConstants.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"

namespace mote::codegen {

SharedConstants::SharedConstants(llvm::Module &module, llvm::StringRef symbol)
    : module_(module), symbol_(symbol.str()) {}

llvm::Constant *SharedConstants::add(llvm::ArrayRef<uint8_t> bytes) {
  llvm::LLVMContext &context = module_.getContext();
  if (!placeholder_)
    placeholder_ =
        new llvm::GlobalVariable(module_, llvm::Type::getInt8Ty(context),
                                 /*isConstant=*/false, llvm::GlobalValue::ExternalLinkage, nullptr,
                                 symbol_ + ".placeholder");
  const uint64_t offset = llvm::alignTo(bytes_.size(), kAlignment);
  bytes_.resize(offset, 0);
  bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
  return llvm::ConstantExpr::getGetElementPtr(
      llvm::Type::getInt8Ty(context), placeholder_,
      llvm::ConstantInt::get(llvm::Type::getInt64Ty(context), offset));
}

std::vector<uint8_t> SharedConstants::finish() {
  if (!placeholder_)
    return {};
  bytes_.resize(llvm::alignTo(bytes_.size(), kAlignment), 0);
  // Read-only to the code (so Cortex-M's ROPI addresses it relative to the
  // code, as the other constants), externally initialised (LLVM must not
  // take its zeros for its contents: the loader writes them), in a .bss
  // section (it takes no room in the ELF), and a global symbol the linker
  // keeps, so the package writer finds its address.
  auto *type = llvm::ArrayType::get(llvm::Type::getInt8Ty(module_.getContext()), bytes_.size());
  auto *region = new llvm::GlobalVariable(
      module_, type, /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantAggregateZero::get(type), symbol_, nullptr, llvm::GlobalValue::NotThreadLocal,
      std::nullopt, /*isExternallyInitialized=*/true);
  region->setSection(".bss." + symbol_);
  region->setAlignment(llvm::Align(kAlignment));
  placeholder_->replaceAllUsesWith(region);
  placeholder_->eraseFromParent();
  placeholder_ = nullptr;
  return std::move(bytes_);
}

} // namespace mote::codegen
