//===- NpyHeader.cpp - The dictionary in a .npy file's header -------------===//

#include "NpyHeader.h"

#include "llvm/ADT/StringExtras.h"

#include <cstdint>

namespace mote::tools {

namespace {

/// Recursive descent over the few Python literal forms a header holds.
class DictReader {
public:
  explicit DictReader(llvm::StringRef text) : text_(text) {}

  llvm::Expected<NpyHeader> read() {
    NpyHeader header;
    bool sawDescr = false, sawOrder = false, sawShape = false;
    if (!consume('{'))
      return fail("expected '{' at the start of the header");
    while (!consume('}')) {
      std::string key;
      if (llvm::Error error = readString(key))
        return std::move(error);
      if (!consume(':'))
        return fail("expected ':' after key '" + key + "'");
      if (key == "descr") {
        skipSpace();
        if (!text_.empty() && text_.front() == '[')
          return fail("structured dtypes (descr is a list) are not supported");
        if (llvm::Error error = readString(header.descr))
          return std::move(error);
        sawDescr = true;
      } else if (key == "fortran_order") {
        if (llvm::Error error = readBool(header.fortranOrder))
          return std::move(error);
        sawOrder = true;
      } else if (key == "shape") {
        if (llvm::Error error = readShape(header.shape))
          return std::move(error);
        sawShape = true;
      } else {
        return fail("unexpected key '" + key + "'");
      }
      if (!consume(',')) {
        if (!consume('}'))
          return fail("expected ',' or '}' after the value of '" + key + "'");
        break;
      }
    }
    skipSpace();
    if (!text_.empty())
      return fail("unexpected text after the closing '}'");
    if (!sawDescr || !sawOrder || !sawShape)
      return fail("the header must have 'descr', 'fortran_order' and 'shape'");
    return header;
  }

private:
  llvm::Error fail(const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "bad .npy header: " + message);
  }

  void skipSpace() { text_ = text_.ltrim(" \t\r\n"); }

  bool consume(char c) {
    skipSpace();
    if (text_.empty() || text_.front() != c)
      return false;
    text_ = text_.drop_front();
    return true;
  }

  llvm::Error readString(std::string &out) {
    skipSpace();
    if (text_.empty() || (text_.front() != '\'' && text_.front() != '"'))
      return fail("expected a quoted string");
    char quote = text_.front();
    size_t end = text_.find(quote, 1);
    if (end == llvm::StringRef::npos)
      return fail("unterminated string");
    out = text_.slice(1, end).str();
    text_ = text_.drop_front(end + 1);
    return llvm::Error::success();
  }

  llvm::Error readBool(bool &out) {
    skipSpace();
    if (text_.consume_front("True"))
      out = true;
    else if (text_.consume_front("False"))
      out = false;
    else
      return fail("expected True or False for 'fortran_order'");
    return llvm::Error::success();
  }

  llvm::Error readShape(llvm::SmallVectorImpl<int64_t> &dims) {
    if (!consume('('))
      return fail("expected '(' to start 'shape'");
    while (!consume(')')) {
      skipSpace();
      size_t digits = 0;
      while (digits < text_.size() && llvm::isDigit(text_[digits]))
        ++digits;
      uint64_t value = 0;
      if (digits == 0 || text_.take_front(digits).getAsInteger(10, value) ||
          value > uint64_t(INT64_MAX))
        return fail("expected a non-negative dimension in 'shape'");
      text_ = text_.drop_front(digits);
      text_.consume_front("L"); // Python 2 long suffix in old files
      dims.push_back(static_cast<int64_t>(value));
      if (!consume(',')) {
        if (!consume(')'))
          return fail("expected ',' or ')' in 'shape'");
        break;
      }
    }
    return llvm::Error::success();
  }

  llvm::StringRef text_;
};

} // namespace

llvm::Expected<NpyHeader> parseNpyHeaderDict(llvm::StringRef text) {
  return DictReader(text).read();
}

std::string formatNpyHeaderDict(const NpyHeader &header) {
  std::string text = "{'descr': '" + header.descr + "', 'fortran_order': ";
  text += header.fortranOrder ? "True" : "False";
  text += ", 'shape': (";
  for (size_t i = 0; i < header.shape.size(); ++i) {
    if (i)
      text += ", ";
    text += std::to_string(header.shape[i]);
  }
  if (header.shape.size() == 1)
    text += ","; // a Python 1-tuple
  text += "), }";
  return text;
}

} // namespace mote::tools
