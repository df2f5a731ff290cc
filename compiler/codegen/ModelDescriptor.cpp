//===- ModelDescriptor.cpp - The mote_model_desc of a compiled model ------===//
//
// The blob is laid out as abi.h declares it: the mote_model_desc header
// (72 bytes), the argument then result mote_tensor_desc records (24 bytes
// each), the mote_alias_desc records (12 bytes each), the int64 dims arrays,
// the uint8 layouts, then NUL-terminated strings. All our targets are little-endian.
//
//===----------------------------------------------------------------------===//

#include "codegen/ModelDescriptor.h"

#include "mote/abi.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/Support/Endian.h"

#include <cstddef>

namespace mote::codegen {

namespace {

static_assert(sizeof(mote_model_desc) == 72, "descriptor header layout changed");
static_assert(sizeof(mote_alias_desc) == 12, "alias descriptor layout changed");
static_assert(sizeof(mote_tensor_desc) == 24, "tensor descriptor layout changed");

class BlobWriter {
public:
  size_t size() const { return bytes_.size(); }
  void align(size_t alignment) {
    while (bytes_.size() % alignment)
      bytes_.push_back(0);
  }
  size_t reserve(size_t count) {
    size_t at = bytes_.size();
    bytes_.resize(at + count, 0);
    return at;
  }
  template <typename T> void put(size_t at, T value) {
    llvm::support::endian::write<T, llvm::support::little, 1>(&bytes_[at], value);
  }
  size_t appendString(llvm::StringRef text) {
    size_t at = bytes_.size();
    bytes_.append(text.begin(), text.end());
    bytes_.push_back(0);
    return at;
  }
  std::string take() { return std::move(bytes_); }

private:
  std::string bytes_;
};

} // namespace

std::string encodeModelDescriptor(const ModelSignature &signature) {
  BlobWriter blob;
  const size_t header = blob.reserve(sizeof(mote_model_desc));
  const size_t argsAt = blob.reserve(sizeof(mote_tensor_desc) * signature.args.size());
  const size_t resultsAt = blob.reserve(sizeof(mote_tensor_desc) * signature.results.size());
  const size_t aliasesAt = blob.reserve(sizeof(mote_alias_desc) * signature.aliases.size());
  for (size_t i = 0; i < signature.aliases.size(); ++i) {
    const size_t at = aliasesAt + i * sizeof(mote_alias_desc);
    blob.put<uint32_t>(at + offsetof(mote_alias_desc, result), signature.aliases[i].result);
    blob.put<uint32_t>(at + offsetof(mote_alias_desc, arg), signature.aliases[i].arg);
    blob.put<uint32_t>(at + offsetof(mote_alias_desc, flags),
                       signature.aliases[i].mustAlias ? MOTE_ALIAS_MUST : 0);
  }

  auto writeTensor = [&](size_t at, const TensorSignature &tensor) {
    blob.align(8);
    size_t dims = blob.reserve(8 * tensor.dims.size());
    for (size_t d = 0; d < tensor.dims.size(); ++d)
      blob.put<int64_t>(dims + 8 * d, tensor.dims[d]);
    size_t layout = blob.reserve(tensor.minorToMajor.size());
    for (size_t d = 0; d < tensor.minorToMajor.size(); ++d)
      blob.put<uint8_t>(layout + d, static_cast<uint8_t>(tensor.minorToMajor[d]));
    size_t name = blob.appendString(tensor.name);
    blob.put<uint32_t>(at + offsetof(mote_tensor_desc, name_offset), name);
    blob.put<uint32_t>(at + offsetof(mote_tensor_desc, dims_offset), dims);
    blob.put<uint32_t>(at + offsetof(mote_tensor_desc, layout_offset), layout);
    blob.put<uint8_t>(at + offsetof(mote_tensor_desc, element_type),
                      abiElementType(tensor.elementType));
    blob.put<uint8_t>(at + offsetof(mote_tensor_desc, rank),
                      static_cast<uint8_t>(tensor.dims.size()));
    blob.put<uint64_t>(at + offsetof(mote_tensor_desc, byte_size), tensor.byteSize);
  };
  for (size_t i = 0; i < signature.args.size(); ++i)
    writeTensor(argsAt + i * sizeof(mote_tensor_desc), signature.args[i]);
  for (size_t i = 0; i < signature.results.size(); ++i)
    writeTensor(resultsAt + i * sizeof(mote_tensor_desc), signature.results[i]);

  size_t name = blob.appendString(signature.name);
  size_t triple = blob.appendString(signature.triple);
  size_t features = blob.appendString(signature.features);
  blob.align(8);

  blob.put<uint32_t>(header + offsetof(mote_model_desc, magic), MOTE_MODEL_MAGIC);
  blob.put<uint32_t>(header + offsetof(mote_model_desc, abi_version), MOTE_ABI_VERSION);
  blob.put<uint32_t>(header + offsetof(mote_model_desc, total_size), blob.size());
  blob.put<uint32_t>(header + offsetof(mote_model_desc, name_offset), name);
  blob.put<uint32_t>(header + offsetof(mote_model_desc, triple_offset), triple);
  blob.put<uint32_t>(header + offsetof(mote_model_desc, cpu_features_offset), features);
  blob.put<uint32_t>(header + offsetof(mote_model_desc, arg_count), signature.args.size());
  blob.put<uint32_t>(header + offsetof(mote_model_desc, result_count), signature.results.size());
  blob.put<uint32_t>(header + offsetof(mote_model_desc, args_offset), argsAt);
  blob.put<uint32_t>(header + offsetof(mote_model_desc, results_offset), resultsAt);
  blob.put<uint64_t>(header + offsetof(mote_model_desc, scratch_size), signature.scratchSize);
  blob.put<uint32_t>(header + offsetof(mote_model_desc, scratch_alignment),
                     signature.scratchAlignment);
  blob.put<uint32_t>(header + offsetof(mote_model_desc, alias_count), signature.aliases.size());
  blob.put<uint32_t>(header + offsetof(mote_model_desc, aliases_offset), aliasesAt);
  blob.put<uint64_t>(header + offsetof(mote_model_desc, weights_size), signature.weightsSize);
  blob.put<uint32_t>(header + offsetof(mote_model_desc, weights_alignment),
                     signature.weightsAlignment);
  return blob.take();
}

void emitModelDescriptor(const ModelSignature &signature, llvm::Module &module) {
  std::string bytes = encodeModelDescriptor(signature);
  llvm::Constant *data =
      llvm::ConstantDataArray::getString(module.getContext(), bytes, /*AddNull=*/false);
  auto *global =
      new llvm::GlobalVariable(module, data->getType(), /*isConstant=*/true,
                               llvm::GlobalValue::ExternalLinkage, data, signature.name + "_model");
  global->setAlignment(llvm::Align(8));
}

} // namespace mote::codegen
