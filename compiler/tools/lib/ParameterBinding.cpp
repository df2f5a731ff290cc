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

/// An exporter's name for an argument or result as a '/'-separated path, as
/// Flax's flatten_dict(sep='/') keys a weights file: `params['dense']['kernel']`
/// is `params/dense/kernel`, `args[0]` is `args/0`. Empty when `name` is not
/// such an expression.
std::string slashPath(llvm::StringRef name) {
  std::string path;
  size_t bracket = name.find('[');
  path = name.take_front(bracket).str();
  llvm::StringRef rest = name.substr(std::min(bracket, name.size()));
  while (!rest.empty()) {
    size_t close = rest.find(']');
    if (!rest.consume_front("[") || close == llvm::StringRef::npos)
      return "";
    llvm::StringRef part = rest.take_front(close - 1);
    rest = rest.drop_front(close);
    if (part.size() >= 2 && (part.front() == '\'' || part.front() == '"') &&
        part.back() == part.front())
      part = part.drop_front().drop_back();
    path += (path.empty() ? "" : "/") + part.str();
  }
  return path;
}

/// Each name of `names` (an exporter's) and its slashPath, to its position.
llvm::StringMap<int64_t> exporterNames(llvm::ArrayRef<std::string> names) {
  llvm::StringMap<int64_t> positions;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty())
      continue;
    positions.try_emplace(names[i], int64_t(i));
    std::string path = slashPath(names[i]);
    if (!path.empty())
      positions.try_emplace(path, int64_t(i));
  }
  return positions;
}

} // namespace

llvm::Expected<std::optional<std::vector<int64_t>>>
parseOutputList(llvm::StringRef text, llvm::ArrayRef<std::string> resultNames) {
  if (text.trim().empty())
    return std::nullopt;
  llvm::StringMap<int64_t> byName = exporterNames(resultNames);
  std::vector<int64_t> outputs;
  llvm::SmallVector<llvm::StringRef, 8> items;
  text.split(items, ',');
  for (llvm::StringRef item : items) {
    int64_t index;
    item = item.trim();
    if (auto named = byName.find(item); named != byName.end())
      index = named->second;
    else if (item.getAsInteger(10, index) || index < 0)
      return bindingError("--outputs takes result numbers such as 0,3, not '" + item + "'" +
                          (byName.empty() ? " (names are for StableHLO modules whose results "
                                            "have them)"
                                          : " (nor does a result have that name)"));
    outputs.push_back(index);
  }
  return outputs;
}

llvm::Expected<std::vector<passes::BoundParameter>>
matchParameters(const hlo::Computation &entry, llvm::ArrayRef<std::string> paramsPaths,
                llvm::ArrayRef<std::string> argumentNames) {
  // The module's own names first, then the exporter's where they differ.
  llvm::StringMap<int64_t> byName;
  for (size_t i = 0; i < entry.parameterCount(); ++i)
    if (const hlo::Instruction *parameter = entry.parameter(i))
      byName[parameter->name()] = int64_t(i);
  if (argumentNames.size() == entry.parameterCount())
    for (auto &[name, number] : exporterNames(argumentNames))
      byName.try_emplace(name, number);
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
  auto outputs = parseOutputList(flags.outputs, loaded.resultNames);
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
  auto bindings = matchParameters(*module.entry(), flags.paramsPaths, loaded.argumentNames);
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
