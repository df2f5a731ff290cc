//===- InputOutputAlias.cpp - A module's donated buffers ------------------===//

#include "hlo/InputOutputAlias.h"

#include "llvm/ADT/StringExtras.h"

namespace mote::hlo {

namespace {

constexpr llvm::StringLiteral kKey("input_output_alias");

/// A cursor over the attribute text; every expect* skips leading blanks.
class AliasText {
public:
  explicit AliasText(llvm::StringRef text) : rest_(text) {}

  bool consume(char c) {
    skipBlanks();
    if (rest_.empty() || rest_.front() != c)
      return false;
    rest_ = rest_.drop_front();
    return true;
  }
  bool consume(llvm::StringRef word) {
    skipBlanks();
    return rest_.consume_front(word);
  }
  bool peek(char c) {
    skipBlanks();
    return !rest_.empty() && rest_.front() == c;
  }
  bool integer(int64_t &value) {
    skipBlanks();
    size_t digits = 0;
    while (digits < rest_.size() && llvm::isDigit(rest_[digits]))
      ++digits;
    if (digits == 0 || rest_.take_front(digits).getAsInteger(10, value))
      return false;
    rest_ = rest_.drop_front(digits);
    return true;
  }
  /// `{}`, `{0}`, `{1, 2}`.
  bool shapeIndex(ShapeIndex &index) {
    if (!consume('{'))
      return false;
    if (consume('}'))
      return true;
    do {
      int64_t value;
      if (!integer(value))
        return false;
      index.push_back(value);
    } while (consume(','));
    return consume('}');
  }
  bool atEnd() {
    skipBlanks();
    return rest_.empty();
  }
  llvm::StringRef rest() const { return rest_; }

private:
  void skipBlanks() { rest_ = rest_.ltrim(); }
  llvm::StringRef rest_;
};

llvm::Error aliasError(const AliasText &text, llvm::StringRef expected) {
  llvm::StringRef near = text.rest().take_front(24);
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "input_output_alias: expected " + expected +
                                     (near.empty() ? " at the end" : " before '" + near + "'"));
}

std::string formatIndex(llvm::ArrayRef<int64_t> index) {
  std::string text = "{";
  for (size_t i = 0; i < index.size(); ++i)
    text += (i ? ", " : "") + std::to_string(index[i]);
  return text + "}";
}

} // namespace

llvm::Expected<std::vector<AliasEntry>> parseInputOutputAlias(llvm::StringRef value) {
  AliasText text(value);
  std::vector<AliasEntry> entries;
  if (!text.consume('{'))
    return aliasError(text, "'{'");
  if (text.consume('}')) {
    if (!text.atEnd())
      return aliasError(text, "nothing more");
    return entries;
  }
  do {
    AliasEntry entry;
    if (!text.shapeIndex(entry.output))
      return aliasError(text, "an output index such as {0}");
    if (!text.consume(':'))
      return aliasError(text, "':'");
    if (!text.consume('('))
      return aliasError(text, "'('");
    if (!text.integer(entry.parameter))
      return aliasError(text, "a parameter number");
    if (!text.consume(','))
      return aliasError(text, "','");
    if (!text.shapeIndex(entry.parameterIndex))
      return aliasError(text, "a parameter index such as {}");
    if (text.consume(',')) {
      if (text.consume("must-alias"))
        entry.mustAlias = true;
      else if (!text.consume("may-alias"))
        return aliasError(text, "may-alias or must-alias");
    }
    if (!text.consume(')'))
      return aliasError(text, "')'");
    entries.push_back(std::move(entry));
  } while (text.consume(','));
  if (!text.consume('}'))
    return aliasError(text, "'}' or ','");
  if (!text.atEnd())
    return aliasError(text, "nothing more");
  return entries;
}

std::string formatInputOutputAlias(llvm::ArrayRef<AliasEntry> entries) {
  std::string text = "{ ";
  for (size_t i = 0; i < entries.size(); ++i) {
    const AliasEntry &entry = entries[i];
    text += (i ? ", " : "") + formatIndex(entry.output) + ": (" + std::to_string(entry.parameter) +
            ", " + formatIndex(entry.parameterIndex) + ", " +
            (entry.mustAlias ? "must-alias" : "may-alias") + ")";
  }
  return text + " }";
}

llvm::Expected<std::vector<AliasEntry>> inputOutputAlias(const Module &module) {
  for (const RawAttribute &attribute : module.headerAttributes())
    if (attribute.key == kKey)
      return parseInputOutputAlias(attribute.value);
  return std::vector<AliasEntry>();
}

void setInputOutputAlias(Module &module, llvm::ArrayRef<AliasEntry> entries) {
  std::vector<RawAttribute> &attributes = module.mutableHeaderAttributes();
  auto existing = llvm::find_if(attributes, [](const RawAttribute &a) { return a.key == kKey; });
  if (entries.empty()) {
    if (existing != attributes.end())
      attributes.erase(existing);
    return;
  }
  std::string value = formatInputOutputAlias(entries);
  if (existing != attributes.end())
    existing->value = std::move(value);
  else
    attributes.push_back({kKey.str(), std::move(value)});
}

int64_t flatLeafIndex(const Shape &shape, llvm::ArrayRef<int64_t> index) {
  const Shape *at = &shape;
  int64_t before = 0;
  for (int64_t position : index) {
    if (!at->isTuple() || position < 0 || position >= int64_t(at->tupleSize()))
      return -1;
    for (int64_t i = 0; i < position; ++i) {
      llvm::SmallVector<const Shape *, 4> leaves;
      at->tupleElement(i).collectLeaves(leaves);
      before += int64_t(leaves.size());
    }
    at = &at->tupleElement(position);
  }
  return at->isTuple() ? -1 : before;
}

} // namespace mote::hlo
