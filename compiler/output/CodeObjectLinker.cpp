//===- CodeObjectLinker.cpp - A model object to a loadable code object ----===//
#include "output/CodeObjectLinker.h"

#include "output/ObjectEmitter.h"

#include "lld/Common/CommonLinkerContext.h"
#include "lld/Common/Driver.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/TargetParser/Triple.h"

namespace mote::output {
namespace {

llvm::Function *declareSupport(llvm::Module &module, llvm::StringRef name,
                               llvm::ArrayRef<llvm::Type *> params, llvm::Type *result) {
  auto *type = llvm::FunctionType::get(result, params, false);
  auto *function = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, module);
  // "no-builtins" stops LLVM from recognising the byte loops below as the
  // very memcpy/memset being defined and calling it (endless recursion).
  function->addFnAttr("no-builtins");
  function->addFnAttr(llvm::Attribute::NoUnwind);
  function->setVisibility(llvm::GlobalValue::HiddenVisibility);
  return function;
}

/// memcpy (forward), memmove (either direction) or memset as a byte loop.
void addByteLoop(llvm::Module &module, llvm::StringRef name, bool isCopy, bool mayOverlap) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *ptr = llvm::PointerType::get(context, 0);
  llvm::Type *size = module.getDataLayout().getIntPtrType(context);
  llvm::Type *second = isCopy ? ptr : llvm::Type::getInt32Ty(context);
  llvm::Function *function = declareSupport(module, name, {ptr, second, size}, ptr);
  llvm::Argument *dest = function->getArg(0), *source = function->getArg(1),
                 *count = function->getArg(2);
  auto *entry = llvm::BasicBlock::Create(context, "entry", function);
  auto *loop = llvm::BasicBlock::Create(context, "loop", function);
  auto *done = llvm::BasicBlock::Create(context, "done", function);
  llvm::IRBuilder<> b(entry);
  // A move copies backwards when the destination starts inside the source.
  llvm::Value *backwards = b.getFalse();
  if (mayOverlap)
    backwards = b.CreateICmpUGT(b.CreatePtrToInt(dest, size), b.CreatePtrToInt(source, size));
  b.CreateCondBr(b.CreateICmpEQ(count, llvm::ConstantInt::get(size, 0)), done, loop);
  b.SetInsertPoint(loop);
  llvm::PHINode *step = b.CreatePHI(size, 2);
  step->addIncoming(llvm::ConstantInt::get(size, 0), entry);
  llvm::Value *index = b.CreateSelect(
      backwards, b.CreateSub(b.CreateSub(count, llvm::ConstantInt::get(size, 1)), step), step);
  llvm::Type *byte = b.getInt8Ty();
  llvm::Value *value =
      isCopy ? b.CreateLoad(byte, b.CreateGEP(byte, source, index)) : b.CreateTrunc(source, byte);
  b.CreateStore(value, b.CreateGEP(byte, dest, index));
  llvm::Value *next = b.CreateAdd(step, llvm::ConstantInt::get(size, 1));
  step->addIncoming(next, loop);
  b.CreateCondBr(b.CreateICmpULT(next, count), loop, done);
  b.SetInsertPoint(done);
  b.CreateRet(dest);
}

/// The Arm EABI names LLVM calls instead of memcpy/memmove/memset on Arm
/// targets (the C library provides them in a static link; a code object has
/// no C library). Each forwards to the byte loops above.
void addArmEabiAliases(llvm::Module &module) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *ptr = llvm::PointerType::get(context, 0);
  llvm::Type *size = module.getDataLayout().getIntPtrType(context);
  llvm::Type *i32 = llvm::Type::getInt32Ty(context);
  llvm::Type *voidType = llvm::Type::getVoidTy(context);
  llvm::Function *memcpy = module.getFunction("memcpy");
  llvm::Function *memmove = module.getFunction("memmove");
  llvm::Function *memset = module.getFunction("memset");
  for (llvm::StringRef suffix : {"", "4", "8"}) {
    auto define = [&](llvm::StringRef base, llvm::ArrayRef<llvm::Type *> params, auto body) {
      llvm::Function *function =
          declareSupport(module, ("__aeabi_" + base + suffix).str(), params, voidType);
      llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", function));
      body(b, function);
      b.CreateRetVoid();
    };
    define("memcpy", {ptr, ptr, size}, [&](llvm::IRBuilder<> &b, llvm::Function *f) {
      b.CreateCall(memcpy, {f->getArg(0), f->getArg(1), f->getArg(2)});
    });
    define("memmove", {ptr, ptr, size}, [&](llvm::IRBuilder<> &b, llvm::Function *f) {
      b.CreateCall(memmove, {f->getArg(0), f->getArg(1), f->getArg(2)});
    });
    // __aeabi_memset takes (dest, n, c): not memset's order.
    define("memset", {ptr, size, i32}, [&](llvm::IRBuilder<> &b, llvm::Function *f) {
      b.CreateCall(memset, {f->getArg(0), f->getArg(2), f->getArg(1)});
    });
    define("memclr", {ptr, size}, [&](llvm::IRBuilder<> &b, llvm::Function *f) {
      b.CreateCall(memset, {f->getArg(0), b.getInt32(0), f->getArg(1)});
    });
  }
}

/// memcpy, memmove and memset (and the Arm EABI names) for the target, as an object.
llvm::Expected<std::string> emitSupportObject(const CodeObjectInputs &inputs) {
  llvm::LLVMContext context;
  llvm::Module module("mote.support", context);
  module.setTargetTriple(inputs.modelModule->getTargetTriple());
  module.setDataLayout(inputs.machine->createDataLayout());
  if (llvm::Metadata *abi = inputs.modelModule->getModuleFlag("target-abi"))
    module.addModuleFlag(
        llvm::Module::Error, "target-abi",
        llvm::MDString::get(context, llvm::cast<llvm::MDString>(abi)->getString()));
  addByteLoop(module, "memcpy", /*isCopy=*/true, /*mayOverlap=*/false);
  addByteLoop(module, "memmove", /*isCopy=*/true, /*mayOverlap=*/true);
  addByteLoop(module, "memset", /*isCopy=*/false, /*mayOverlap=*/false);
  if (llvm::Triple(module.getTargetTriple()).isARM() ||
      llvm::Triple(module.getTargetTriple()).isThumb())
    addArmEabiAliases(module);
  // Optimised like the model (vectorised copy loops); "no-builtins" keeps
  // the loops from turning into calls to themselves.
  optimizeModule(module, *inputs.machine, /*optLevel=*/2);
  return emitModule(module, *inputs.machine, EmitKind::Object);
}

llvm::Error writeFile(const llvm::Twine &path, llvm::StringRef bytes) {
  std::error_code error;
  llvm::raw_fd_ostream os(path.str(), error, llvm::sys::fs::OF_None);
  if (error)
    return llvm::createStringError(error, "cannot write '%s'", path.str().c_str());
  os << bytes;
  return llvm::Error::success();
}

/// Removes the temporary folder on every path out.
struct TempDir {
  llvm::SmallString<128> path;
  ~TempDir() {
    if (!path.empty())
      llvm::sys::fs::remove_directories(path);
  }
};

llvm::Expected<CodeObject> findSymbols(std::string elf, llvm::StringRef prefix) {
  auto binary =
      llvm::object::ObjectFile::createELFObjectFile(llvm::MemoryBufferRef(elf, "code object"));
  if (!binary)
    return binary.takeError();
  CodeObject code;
  bool foundModel = false, foundEntry = false;
  bool isArm =
      (*binary)->getArch() == llvm::Triple::thumb || (*binary)->getArch() == llvm::Triple::arm;
  std::string model = (prefix + "_model").str(), entry = (prefix + "_entry").str();
  for (const llvm::object::SymbolRef &symbol : (*binary)->symbols()) {
    auto name = symbol.getName();
    auto address = symbol.getAddress();
    if (!name || !address) {
      llvm::consumeError(name.takeError());
      llvm::consumeError(address.takeError());
      continue;
    }
    if (*name == model) {
      code.descriptorOffset = *address;
      foundModel = true;
    } else if (*name == entry) {
      code.entryOffset = isArm ? *address & ~uint64_t(1) : *address;
      foundEntry = true;
    }
  }
  if (!foundModel || !foundEntry)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "linked code object lacks %s or %s", model.c_str(),
                                   entry.c_str());
  code.elf = std::move(elf);
  return code;
}

} // namespace

llvm::Expected<CodeObject> linkCodeObject(const CodeObjectInputs &inputs) {
  auto support = emitSupportObject(inputs);
  if (!support)
    return support.takeError();
  TempDir dir;
  if (std::error_code error = llvm::sys::fs::createUniqueDirectory("mote-link", dir.path))
    return llvm::createStringError(error, "cannot create a temporary folder");
  std::string modelPath = (dir.path + "/model.o").str();
  std::string supportPath = (dir.path + "/support.o").str();
  std::string outputPath = (dir.path + "/code.so").str();
  if (llvm::Error error = writeFile(modelPath, inputs.object))
    return std::move(error);
  if (llvm::Error error = writeFile(supportPath, *support))
    return std::move(error);

  // -shared -Bsymbolic: every reference binds inside the object, so only
  // relative relocations remain; --no-undefined: no imports. -z notext lets
  // the few absolute words in read-only data become relative relocations
  // instead of errors (the loader writes the image before protecting it).
  // Small pages keep the image compact for microcontrollers.
  std::vector<const char *> args = {"ld.lld",
                                    "-shared",
                                    "-Bsymbolic",
                                    "--no-undefined",
                                    "-z",
                                    "notext",
                                    "-z",
                                    "norelro",
                                    "-z",
                                    "noexecstack",
                                    "-z",
                                    "max-page-size=16",
                                    "-z",
                                    "common-page-size=16",
                                    "--no-rosegment",
                                    "--hash-style=sysv",
                                    "--build-id=none",
                                    "--gc-sections",
                                    "--strip-debug",
                                    "--discard-all",
                                    "-o",
                                    outputPath.c_str(),
                                    modelPath.c_str(),
                                    supportPath.c_str()};
  for (const std::string &archive : inputs.archives)
    args.push_back(archive.c_str());
  std::string messages;
  llvm::raw_string_ostream stream(messages);
  bool linked = lld::elf::link(args, stream, stream, /*exitEarly=*/false, /*disableOutput=*/false);
  lld::CommonLinkerContext::destroy();
  if (!linked)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "linking the code object: %s\n(a code object carries only the model, memcpy/memmove/"
        "memset and the target's libgcc: no C or math library)",
        llvm::StringRef(messages).trim().str().c_str());
  auto output = llvm::MemoryBuffer::getFile(outputPath);
  if (!output)
    return llvm::createStringError(output.getError(), "cannot read the linked code object");
  return findSymbols((*output)->getBuffer().str(), inputs.symbolPrefix);
}

} // namespace mote::output
