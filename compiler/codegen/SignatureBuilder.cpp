//===- SignatureBuilder.cpp - A model signature from an entry computation -===//

#include "codegen/SignatureBuilder.h"

#include "codegen/ElementTypes.h"

#include "hlo/Diagnostics.h"
#include "hlo/InputOutputAlias.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

#include <cctype>

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

bool isPlainIdentifier(llvm::StringRef text) {
  return !text.empty() && !std::isdigit(static_cast<unsigned char>(text[0])) &&
         llvm::all_of(
             text, [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

/// A parameter's name as its author wrote it: JAX records the Python name in
/// metadata={op_name="pixels"}; otherwise the HLO name without the number
/// XLA appends to every instruction ("Arg_0.7" -> "arg_0").
std::string readableIdentifier(const hlo::Instruction &parameter) {
  if (const hlo::RawAttribute *metadata = parameter.attributes().findRaw("metadata")) {
    llvm::StringRef value = metadata->value;
    size_t at = value.find("op_name=\"");
    if (at != llvm::StringRef::npos) {
      llvm::StringRef opName = value.drop_front(at + 9).split('"').first;
      if (isPlainIdentifier(opName))
        return opName.str();
    }
  }
  llvm::StringRef name = parameter.name();
  size_t dot = name.rfind('.');
  if (dot != llvm::StringRef::npos && dot + 1 < name.size() &&
      llvm::all_of(name.drop_front(dot + 1), [](char c) { return std::isdigit(c); }))
    name = name.take_front(dot);
  return toIdentifier(name.lower());
}

/// Adds one tensor per array leaf of `shape` (whose layouts are the caller's).
llvm::Error addLeaves(const hlo::Shape &shape, const std::string &name, const std::string &readable,
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
    tensor.readableName = leaves.size() == 1 ? readable : readable + "_" + std::to_string(i);
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
            addLeaves(shape, toIdentifier(parameter->name()), readableIdentifier(*parameter),
                      *parameter, signature.args, argNames))
      return std::move(error);
  }
  const hlo::Shape &result = layout ? layout->result : entry.root()->shape();
  if (llvm::Error error =
          addLeaves(result, "result", "result", *entry.root(), signature.results, resultNames))
    return std::move(error);
  if (llvm::Error error = addAliases(module, result, signature))
    return std::move(error);
  return signature;
}

} // namespace mote::codegen
