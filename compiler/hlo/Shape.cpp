//===- Shape.cpp - HLO shapes and layouts ---------------------------------===//

#include "hlo/Shape.h"

#include "llvm/Support/raw_ostream.h"

namespace mote::hlo {

Layout defaultLayout(int64_t rank) {
  Layout layout;
  for (int64_t i = rank - 1; i >= 0; --i)
    layout.minorToMajor.push_back(i);
  return layout;
}

Shape Shape::array(PrimitiveType type, llvm::ArrayRef<int64_t> dims) {
  Shape shape;
  shape.type_ = type;
  shape.dims_.assign(dims.begin(), dims.end());
  return shape;
}

Shape Shape::tuple(std::vector<Shape> elements) {
  Shape shape;
  shape.type_ = PrimitiveType::Tuple;
  shape.elements_ = std::move(elements);
  return shape;
}

Shape Shape::token() {
  Shape shape;
  shape.type_ = PrimitiveType::Token;
  return shape;
}

void Shape::setDims(llvm::ArrayRef<int64_t> dims) {
  dims_.assign(dims.begin(), dims.end());
  dynamic_.clear();
}

int64_t Shape::elementCount() const {
  int64_t count = 1;
  for (int64_t d : dims_)
    count *= d < 0 ? 0 : d;
  return count;
}

bool Shape::hasUnboundedDims() const {
  for (int64_t d : dims_)
    if (d == kUnboundedSize)
      return true;
  return false;
}

void Shape::setDynamicDim(int64_t i, bool dynamic) {
  if (dynamic_.empty()) {
    if (!dynamic)
      return;
    dynamic_.assign(dims_.size(), false);
  }
  dynamic_[i] = dynamic;
}

bool Shape::hasDynamicDims() const {
  for (bool d : dynamic_)
    if (d)
      return true;
  return false;
}

Layout Shape::layoutOrDefault() const { return layout_ ? *layout_ : defaultLayout(rank()); }

bool Shape::hasDefaultLayout() const {
  if (!layout_)
    return true;
  return layout_->minorToMajor == defaultLayout(rank()).minorToMajor;
}

void Shape::collectLeaves(llvm::SmallVectorImpl<const Shape *> &leaves) const {
  if (!isTuple()) {
    leaves.push_back(this);
    return;
  }
  for (const Shape &element : elements_)
    element.collectLeaves(leaves);
}

bool Shape::compatible(const Shape &other) const {
  if (type_ != other.type_)
    return false;
  if (isTuple()) {
    if (elements_.size() != other.elements_.size())
      return false;
    for (size_t i = 0; i < elements_.size(); ++i)
      if (!elements_[i].compatible(other.elements_[i]))
        return false;
    return true;
  }
  return dims_ == other.dims_;
}

bool Shape::operator==(const Shape &other) const {
  if (!compatible(other))
    return false;
  if (isTuple()) {
    for (size_t i = 0; i < elements_.size(); ++i)
      if (elements_[i] != other.elements_[i])
        return false;
    return true;
  }
  if (layout_ && other.layout_ && *layout_ != *other.layout_)
    return false;
  return true;
}

static void printShape(llvm::raw_ostream &os, const Shape &shape, bool withLayout) {
  if (shape.isTuple()) {
    os << '(';
    for (size_t i = 0; i < shape.tupleSize(); ++i) {
      if (i)
        os << ", ";
      printShape(os, shape.tupleElement(i), withLayout);
    }
    os << ')';
    return;
  }
  os << primitiveTypeName(shape.elementType()) << '[';
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (i)
      os << ',';
    if (shape.dim(i) == Shape::kUnboundedSize) {
      os << '?';
      continue;
    }
    if (shape.isDynamicDim(i))
      os << "<=";
    os << shape.dim(i);
  }
  os << ']';
  if (withLayout && shape.layout() && shape.isArray()) {
    os << '{';
    const Layout &layout = *shape.layout();
    for (size_t i = 0; i < layout.minorToMajor.size(); ++i) {
      if (i)
        os << ',';
      os << layout.minorToMajor[i];
    }
    if (!layout.suffix.empty())
      os << ':' << layout.suffix;
    os << '}';
  }
}

std::string Shape::toString(bool withLayout) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  printShape(os, *this, withLayout);
  return text;
}

std::string ProgramShape::toString(bool withLayout) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '(';
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (i)
      os << ", ";
    if (i < parameterNames.size() && !parameterNames[i].empty())
      os << parameterNames[i] << ": ";
    os << parameters[i].toString(withLayout);
  }
  os << ") -> " << result.toString(withLayout);
  return text;
}

} // namespace mote::hlo
