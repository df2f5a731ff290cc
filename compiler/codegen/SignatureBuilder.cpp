//===- SignatureBuilder.cpp - A model signature from an entry computation -===//

#include "codegen/SignatureBuilder.h"

#include "codegen/ElementTypes.h"

#include "hlo/Diagnostics.h"
#include "hlo/InputOutputAlias.h"

#include "llvm/ADT/StringSet.h"

namespace mote::codegen {

std::string toIdentifier(llvm::StringRef text) {
  std::string result;
  for (char c : text)
    result.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  if (result.empty() || std::isdigit(static_cast<unsigned char>(result[0])))
    result.insert(result.begin(), '_');
  return result;
}

namespace {

/// Adds one tensor per array leaf of `shape` (whose layouts are the caller's).
llvm::Error addLeaves(const hlo::Shape &shape, const std::string &name,
                      const hlo::Instruction &where, std::vector<TensorSignature> &out,
                      llvm::StringSet<> &used) {
  llvm::SmallVector<const hlo::Shape *, 4> leaves;
  shape.collectLeaves(leaves);
  for (size_t i = 0; i < leaves.size(); ++i) {
    const hlo::Shape &leaf = *leaves[i];
    if (!leaf.isArray() || !isCodegenElementType(leaf.elementType()))
      return hlo::errorAt(where, "cannot pass " + leaf.toString(false) +
                                     " across the model interface (element type not supported)");
    if (leaf.hasDynamicDims())
      return hlo::errorAt(where, "dynamic dimensions in " + leaf.toString(false) +
                                     " are not supported by code generation");
    TensorSignature tensor;
    std::string base = leaves.size() == 1 ? name : name + "_" + std::to_string(i);
    std::string unique = base;
    for (int suffix = 1; !used.insert(unique).second; ++suffix)
      unique = base + "_" + std::to_string(suffix);
    tensor.name = unique;
    tensor.elementType = leaf.elementType();
    tensor.dims.assign(leaf.dims().begin(), leaf.dims().end());
    hlo::Layout layout = leaf.layoutOrDefault();
    tensor.minorToMajor.assign(layout.minorToMajor.begin(), layout.minorToMajor.end());
    tensor.byteSize =
        static_cast<uint64_t>(leaf.elementCount()) * hlo::storageBytes(leaf.elementType());
    out.push_back(std::move(tensor));
  }
  return llvm::Error::success();
}

/// input_output_alias as pairs of flattened result and argument leaves.
llvm::Error addAliases(const hlo::Module &module, const hlo::Shape &result,
                       ModelSignature &signature) {
  auto entries = hlo::inputOutputAlias(module);
  if (!entries)
    return entries.takeError();
  const hlo::Computation &entry = *module.entry();
  for (const hlo::AliasEntry &alias : *entries) {
    int64_t arg = -1;
    if (alias.parameter >= 0 && size_t(alias.parameter) < entry.parameterCount()) {
      int64_t before = 0;
      for (int64_t p = 0; p < alias.parameter; ++p) {
        llvm::SmallVector<const hlo::Shape *, 4> leaves;
        entry.parameter(p)->shape().collectLeaves(leaves);
        before += int64_t(leaves.size());
      }
      int64_t leaf =
          hlo::flatLeafIndex(entry.parameter(alias.parameter)->shape(), alias.parameterIndex);
      arg = leaf < 0 ? -1 : before + leaf;
    }
    int64_t out = hlo::flatLeafIndex(result, alias.output);
    if (arg < 0 || out < 0 || size_t(arg) >= signature.args.size() ||
        size_t(out) >= signature.results.size() ||
        signature.args[arg].byteSize != signature.results[out].byteSize)
      return hlo::errorAt(*entry.root(), "input_output_alias pairs a result and a parameter "
                                         "that are not arrays of the same size: " +
                                             hlo::formatInputOutputAlias({alias}));
    signature.aliases.push_back({uint32_t(out), uint32_t(arg), alias.mustAlias});
  }
  return llvm::Error::success();
}

} // namespace

llvm::Expected<ModelSignature> buildSignature(const hlo::Module &module, llvm::StringRef name) {
  ModelSignature signature;
  signature.name = name.str();
  const hlo::Computation &entry = *module.entry();
  const auto &layout = module.entryComputationLayout();
  llvm::StringSet<> argNames, resultNames;
  for (size_t i = 0; i < entry.parameterCount(); ++i) {
    const hlo::Instruction *parameter = entry.parameter(i);
    const hlo::Shape &shape =
        layout && i < layout->parameters.size() ? layout->parameters[i] : parameter->shape();
    if (llvm::Error error =
            addLeaves(shape, toIdentifier(parameter->name()), *parameter, signature.args, argNames))
      return std::move(error);
  }
  const hlo::Shape &result = layout ? layout->result : entry.root()->shape();
  if (llvm::Error error =
          addLeaves(result, "result", *entry.root(), signature.results, resultNames))
    return std::move(error);
  if (llvm::Error error = addAliases(module, result, signature))
    return std::move(error);
  return signature;
}

} // namespace mote::codegen
