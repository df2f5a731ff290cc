//===- npy_header.cc - The dictionary in a .npy file's header -------------===//
//
// A header is a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// This reads the subset numpy.save writes (quoted strings, True/False and a
// tuple of non-negative integers) by recursive descent, and nothing else.
//
//===----------------------------------------------------------------------===//
#include "npy.h"

#include <cstdint>

namespace mote::npy {
namespace {

class DictReader {
public:
  DictReader(std::string_view text, std::string *error) : text_(text), error_(error) {}

  bool read(Header *header) {
    bool saw_descr = false, saw_order = false, saw_shape = false;
    if (!consume('{'))
      return fail("expected '{' at the start of the header");
    while (!consume('}')) {
      std::string key;
      if (!readString(&key))
        return false;
      if (!consume(':'))
        return fail("expected ':' after key '" + key + "'");
      bool *seen = key == "descr"           ? &saw_descr
                   : key == "fortran_order" ? &saw_order
                   : key == "shape"         ? &saw_shape
                                            : nullptr;
      if (!seen)
        return fail("unexpected key '" + key + "'");
      if (*seen)
        return fail("key '" + key + "' appears twice");
      *seen = true;
      bool ok = key == "descr"           ? readDescr(&header->descr)
                : key == "fortran_order" ? readBool(&header->fortran_order)
                                         : readShape(&header->shape);
      if (!ok)
        return false;
      if (!consume(',')) {
        if (!consume('}'))
          return fail("expected ',' or '}' after the value of '" + key + "'");
        break;
      }
    }
    skipSpace();
    if (!text_.empty())
      return fail("unexpected text after the closing '}'");
    if (!saw_descr || !saw_order || !saw_shape)
      return fail("the header must have 'descr', 'fortran_order' and 'shape'");
    return true;
  }

private:
  bool fail(const std::string &message) {
    *error_ = "bad .npy header: " + message;
    return false;
  }

  void skipSpace() {
    size_t n = 0;
    while (n < text_.size() &&
           (text_[n] == ' ' || text_[n] == '\t' || text_[n] == '\r' || text_[n] == '\n'))
      ++n;
    text_.remove_prefix(n);
  }

  bool consume(char c) {
    skipSpace();
    if (text_.empty() || text_.front() != c)
      return false;
    text_.remove_prefix(1);
    return true;
  }

  bool consumeWord(std::string_view word) {
    if (text_.substr(0, word.size()) != word)
      return false;
    text_.remove_prefix(word.size());
    return true;
  }

  bool readString(std::string *out) {
    skipSpace();
    if (text_.empty() || (text_.front() != '\'' && text_.front() != '"'))
      return fail("expected a quoted string");
    char quote = text_.front();
    size_t end = text_.find(quote, 1);
    if (end == std::string_view::npos)
      return fail("unterminated string");
    *out = std::string(text_.substr(1, end - 1));
    text_.remove_prefix(end + 1);
    return true;
  }

  bool readDescr(std::string *out) {
    skipSpace();
    if (!text_.empty() && text_.front() == '[')
      return fail("structured dtypes (descr is a list) are not supported");
    return readString(out);
  }

  bool readBool(bool *out) {
    skipSpace();
    if (consumeWord("True"))
      *out = true;
    else if (consumeWord("False"))
      *out = false;
    else
      return fail("expected True or False for 'fortran_order'");
    return true;
  }

  bool readShape(std::vector<int64_t> *dims) {
    if (!consume('('))
      return fail("expected '(' to start 'shape'");
    dims->clear();
    while (!consume(')')) {
      skipSpace();
      size_t digits = 0;
      uint64_t value = 0;
      while (digits < text_.size() && text_[digits] >= '0' && text_[digits] <= '9') {
        if (value > (uint64_t(INT64_MAX) - 9) / 10)
          return fail("a dimension in 'shape' is too large");
        value = value * 10 + uint64_t(text_[digits] - '0');
        ++digits;
      }
      if (digits == 0)
        return fail("expected a non-negative dimension in 'shape'");
      text_.remove_prefix(digits);
      consumeWord("L"); // the Python 2 long suffix of old files
      dims->push_back(int64_t(value));
      if (!consume(',')) {
        if (!consume(')'))
          return fail("expected ',' or ')' in 'shape'");
        break;
      }
    }
    return true;
  }

  std::string_view text_;
  std::string *error_;
};

} // namespace

bool parseHeader(std::string_view text, Header *out, std::string *error) {
  *out = Header();
  return DictReader(text, error).read(out);
}

std::string formatHeader(const Header &header) {
  std::string text = "{'descr': '" + header.descr + "', 'fortran_order': ";
  text += header.fortran_order ? "True" : "False";
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

} // namespace mote::npy
