//===- ParameterBinding.cpp - --params and --outputs for a command --------===//

#include "ParameterBinding.h"

#include "InputBinding.h"
#include "ModuleFile.h"
#include "Progress.h"
#include "WeightsFile.h"

#include "hlo/Diagnostics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

namespace mote::tools {

namespace {

llvm::Error bindingError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// "%a, %b, ... and 300 more": what a key could have named.
std::string parameterNames(const hlo::Computation &entry) {
  constexpr size_t kShown = 6;
  std::string text;
  for (size_t i = 0; i < entry.parameterCount() && i < kShown; ++i)
    if (const hlo::Instruction *parameter = entry.parameter(i))
      text += (text.empty() ? "%" : ", %") + parameter->name().str();
  if (entry.parameterCount() > kShown)
    text += " and " + std::to_string(entry.parameterCount() - kShown) + " more";
  return text.empty() ? "none" : text;
}

} // namespace

llvm::Expected<std::optional<std::vector<int64_t>>> parseOutputList(llvm::StringRef text) {
  if (text.trim().empty())
    return std::nullopt;
  std::vector<int64_t> outputs;
  llvm::SmallVector<llvm::StringRef, 8> items;
  text.split(items, ',');
  for (llvm::StringRef item : items) {
    int64_t index;
    if (item.trim().getAsInteger(10, index) || index < 0)
      return bindingError("--outputs takes result numbers such as 0,3, not '" + item.trim() +
                          "' (names are for StableHLO modules, whose results have them)");
    outputs.push_back(index);
  }
  return outputs;
}

llvm::Expected<std::vector<passes::BoundParameter>>
matchParameters(const hlo::Computation &entry, llvm::ArrayRef<std::string> paramsPaths) {
  llvm::StringMap<int64_t> byName;
  for (size_t i = 0; i < entry.parameterCount(); ++i)
    if (const hlo::Instruction *parameter = entry.parameter(i))
      byName[parameter->name()] = int64_t(i);
  // Where each bound parameter's array came from, to name both on a clash.
  std::vector<std::string> boundFrom(entry.parameterCount());
  std::vector<passes::BoundParameter> bindings;
  for (const std::string &path : paramsPaths) {
    auto arrays = readWeightsFile(path);
    if (!arrays)
      return arrays.takeError();
    for (NamedArray &array : *arrays) {
      llvm::StringRef key = array.key;
      std::string where = path + ": '" + array.key + "'";
      auto named = byName.find(key.starts_with("%") ? key.drop_front() : key);
      int64_t number = -1;
      if (named != byName.end())
        number = named->second;
      else if (!key.empty() && llvm::all_of(key, llvm::isDigit) && !key.getAsInteger(10, number) &&
               number >= int64_t(entry.parameterCount()))
        return bindingError(where + " names parameter " + llvm::Twine(number) +
                            " but the entry has " + llvm::Twine(entry.parameterCount()));
      if (number < 0 || !entry.parameter(number))
        return bindingError(where + " names no parameter of the entry (its parameters: " +
                            parameterNames(entry) + ")");
      const hlo::Instruction &parameter = *entry.parameter(number);
      if (!boundFrom[number].empty())
        return bindingError(where + " binds " + describeParameter(parameter) +
                            ", already bound by " + boundFrom[number]);
      boundFrom[number] = where;
      const hlo::Shape &want = parameter.shape();
      const hlo::Shape &have = array.value.shape();
      if (!want.isArray())
        return bindingError(where + " cannot bind " + describeParameter(parameter) +
                            ": only array parameters can be bound");
      if (have.elementType() != want.elementType() || have.dims() != want.dims())
        return bindingError(where + " holds " + have.toString(false) + ", which does not fit " +
                            describeParameter(parameter) +
                            " (type and dimensions must match exactly)");
      bindings.push_back({number, std::move(array.value)});
    }
  }
  return bindings;
}

LoadedModule loadModelWithInterface(llvm::StringRef path, const InterfaceFlags &flags,
                                    llvm::raw_ostream &errs, passes::InterfaceChanges *changes) {
  commandProgress().phase("parse", "");
  LoadedModule loaded = loadModuleFile(path, errs);
  if (!loaded.module)
    return loaded;
  auto fail = [&](ExitCode code) {
    loaded.module.reset();
    loaded.failure = code;
    return std::move(loaded);
  };
  auto outputs = parseOutputList(flags.outputs);
  if (!outputs) {
    errs << "error: " << llvm::toString(outputs.takeError()) << '\n';
    return fail(ExitBadCommandLine);
  }
  if (flags.paramsPaths.empty() && !*outputs)
    return loaded;
  hlo::Module &module = *loaded.module;
  passes::InterfaceOptions options;
  options.outputs = std::move(*outputs);
  if (!flags.paramsPaths.empty())
    commandProgress().phase("read weights", std::to_string(flags.paramsPaths.size()) + " file(s)");
  auto bindings = matchParameters(*module.entry(), flags.paramsPaths);
  if (!bindings) {
    errs << "error: " << llvm::toString(bindings.takeError()) << '\n';
    return fail(ExitInvalidInput);
  }
  options.bindings = std::move(*bindings);
  // Selection needs to know what binding did, whether or not the caller asks.
  passes::InterfaceChanges ownChanges;
  passes::Pipeline pipeline;
  passes::buildInterfacePipeline(pipeline, std::move(options), changes ? changes : &ownChanges);
  if (llvm::Error error = pipeline.run(module)) {
    hlo::printError(std::move(error), module.sourceManager().get(), errs);
    return fail(ExitInvalidInput);
  }
  return loaded;
}

void printInterfaceChanges(const passes::InterfaceChanges &changes, llvm::raw_ostream &out) {
  if (!changes.bound.empty()) {
    uint64_t bytes = 0;
    for (const passes::InterfaceChanges::Bound &bound : changes.bound)
      bytes += bound.bytes;
    out << "  bound:        " << changes.bound.size() << " parameter(s), " << bytes
        << " bytes of weights, now constants\n";
  }
  for (const passes::InterfaceChanges::DroppedResult &dropped : changes.droppedResults)
    out << "  note: result " << dropped.index << " " << dropped.reason
        << "; dropped (--outputs keeps it)\n";
}

void addInterfaceChanges(const passes::InterfaceChanges &changes, llvm::json::Object &report) {
  llvm::json::Array bound, dropped;
  for (const passes::InterfaceChanges::Bound &b : changes.bound)
    bound.push_back(
        llvm::json::Object{{"parameter", b.number}, {"name", b.name}, {"bytes", int64_t(b.bytes)}});
  for (const passes::InterfaceChanges::DroppedResult &d : changes.droppedResults)
    dropped.push_back(llvm::json::Object{{"result", d.index}, {"reason", d.reason}});
  report["bound_parameters"] = std::move(bound);
  report["dropped_results"] = std::move(dropped);
}

} // namespace mote::tools
