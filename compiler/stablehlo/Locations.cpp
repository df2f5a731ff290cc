//===- Locations.cpp - MLIR `loc(...)` for diagnostics --------------------===//

#include "stablehlo/Locations.h"

#include "stablehlo/StableHlo.h"

#include "llvm/ADT/StringExtras.h"

namespace mote::stablehlo {

/// Alias definitions one location's search reads at most.
constexpr unsigned kMaxAliasExpansions = 256;

/// `"file":line:col` at the start of `text`, as file:line:col.
static bool fileLineColumn(llvm::StringRef text, std::string &out) {
  if (!text.consume_front("\""))
    return false;
  size_t quote = text.find('"');
  if (quote == llvm::StringRef::npos)
    return false;
  llvm::StringRef file = text.take_front(quote);
  llvm::StringRef rest = text.drop_front(quote + 1);
  if (!rest.consume_front(":"))
    return false;
  llvm::StringRef line = rest.take_while(llvm::isDigit);
  rest = rest.drop_front(line.size());
  if (line.empty() || !rest.consume_front(":"))
    return false;
  llvm::StringRef column = rest.take_while(llvm::isDigit);
  if (column.empty())
    return false;
  out = (file + ":" + line + ":" + column).str();
  return true;
}

/// An alias may name several others (a fused location of fused locations),
/// so a chain of aliases that each name the next twice would be read 2^depth
/// times: `expansions` counts the alias definitions read in all, bounded by
/// kMaxAliasExpansions.
static std::string resolve(llvm::StringRef text,
                           const std::vector<std::pair<std::string, std::string>> &aliases,
                           int depth, unsigned &expansions) {
  if (depth > 32)
    return {};
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '"') {
      std::string found;
      if (fileLineColumn(text.drop_front(i), found))
        return found;
      size_t close = text.find('"', i + 1);
      if (close == llvm::StringRef::npos)
        return {};
      i = close;
      continue;
    }
    if (text[i] == '#') {
      llvm::StringRef name = text.drop_front(i + 1).take_while(
          [](char c) { return llvm::isAlnum(c) || c == '_' || c == '.' || c == '$'; });
      for (const auto &[alias, definition] : aliases)
        if (alias == name) {
          if (++expansions > kMaxAliasExpansions)
            return {};
          std::string found = resolve(definition, aliases, depth + 1, expansions);
          if (!found.empty())
            return found;
        }
      i += name.size();
    }
  }
  return {};
}

std::string sourceFileLocation(llvm::StringRef location,
                               const std::vector<std::pair<std::string, std::string>> &aliases) {
  unsigned expansions = 0;
  return resolve(location, aliases, 0, expansions);
}

llvm::Error withSourceLocation(llvm::Error error, llvm::StringRef location,
                               const std::vector<std::pair<std::string, std::string>> &aliases) {
  if (!error || location.empty())
    return error;
  std::string source = sourceFileLocation(location, aliases);
  if (source.empty())
    return error;
  return llvm::handleErrors(
      std::move(error),
      [&](const UnsupportedError &located) -> llvm::Error {
        return llvm::make_error<UnsupportedError>(located.location(),
                                                  located.text() + " (from " + source + ")");
      },
      [&](const hlo::LocatedError &located) -> llvm::Error {
        return hlo::errorAt(located.location(), located.text() + " (from " + source + ")");
      });
}

} // namespace mote::stablehlo
