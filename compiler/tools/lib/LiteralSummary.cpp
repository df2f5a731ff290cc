//===- LiteralSummary.cpp - Print values, summarising large ones ----------===//

#include "LiteralSummary.h"

#include "llvm/Support/raw_ostream.h"

namespace mote::tools {

using hlo::Literal;

namespace {

class ArrayPrinter {
public:
  ArrayPrinter(const Literal &literal, llvm::raw_ostream &os, int64_t edgeItems, bool summarise)
      : literal_(literal), os_(os), edgeItems_(edgeItems), summarise_(summarise) {}

  void print() { printDim(0, 0); }

private:
  /// Prints the sub-array of dimension `dim` whose first element is `offset`.
  void printDim(int64_t dim, int64_t offset) {
    const hlo::Shape &shape = literal_.shape();
    if (dim == shape.rank()) {
      os_ << hlo::formatElement(literal_, offset);
      return;
    }
    int64_t size = shape.dim(dim);
    int64_t stride = 1;
    for (int64_t d = dim + 1; d < shape.rank(); ++d)
      stride *= shape.dim(d);
    bool elide = summarise_ && size > 2 * edgeItems_;
    os_ << '{';
    for (int64_t i = 0; i < size; ++i) {
      if (elide && i == edgeItems_) {
        os_ << ", ...";
        i = size - edgeItems_ - 1;
        continue;
      }
      if (i)
        os_ << ", ";
      printDim(dim + 1, offset + i * stride);
    }
    os_ << '}';
  }

  const Literal &literal_;
  llvm::raw_ostream &os_;
  int64_t edgeItems_;
  bool summarise_;
};

/// The value without the shape; `summarised` is set when anything was left out.
void printValue(const Literal &literal, const LiteralPrintOptions &options, llvm::raw_ostream &os,
                bool &summarised) {
  const hlo::Shape &shape = literal.shape();
  if (shape.isTuple()) {
    os << '(';
    for (size_t i = 0; i < literal.tupleSize(); ++i) {
      if (i)
        os << ", ";
      printValue(literal.element(i), options, os, summarised);
    }
    os << ')';
    return;
  }
  if (!shape.isArray()) {
    os << literal.valueToString();
    return;
  }
  bool summarise = !options.full && literal.elementCount() > options.threshold;
  ArrayPrinter(literal, os, options.edgeItems, summarise).print();
  if (summarise) {
    os << " /*" << literal.elementCount() << " elements*/";
    summarised = true;
  }
}

} // namespace

std::string formatLiteral(const Literal &literal, const LiteralPrintOptions &options) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << literal.shape().toString() << ' ';
  bool summarised = false;
  printValue(literal, options, os, summarised);
  return text;
}

} // namespace mote::tools
