//===- Shape.h - HLO shapes and layouts -------------------------*- C++ -*-===//
///
/// \file
/// Array, tuple and token shapes as HLO text writes them: `f32[2,3]{1,0}`,
/// `(s32[], f32[4])`, `token[]`. A layout lists dimensions minor to major.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_HLO_SHAPE_H
#define MOTE_HLO_SHAPE_H

#include "hlo/PrimitiveType.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>
#include <vector>

namespace mote::hlo {

/// The physical order of an array's dimensions. `minorToMajor` is the list in
/// braces; anything after a ':' (tiles, element size, memory space) does not
/// change single-device semantics and is kept verbatim so printing round-trips.
struct Layout {
  llvm::SmallVector<int64_t, 4> minorToMajor;
  std::string suffix; ///< text after ':' without the ':', e.g. "T(8,128)S(1)"

  bool operator==(const Layout &other) const {
    return minorToMajor == other.minorToMajor && suffix == other.suffix;
  }
  bool operator!=(const Layout &other) const { return !(*this == other); }
};

/// The row-major layout of a rank-N array: {N-1, ..., 1, 0}.
Layout defaultLayout(int64_t rank);

class Shape {
public:
  Shape() = default;

  static Shape array(PrimitiveType type, llvm::ArrayRef<int64_t> dims);
  static Shape scalar(PrimitiveType type) { return array(type, {}); }
  static Shape tuple(std::vector<Shape> elements);
  static Shape token();

  PrimitiveType elementType() const { return type_; }
  void setElementType(PrimitiveType type) { type_ = type; }

  bool isValid() const { return type_ != PrimitiveType::Invalid; }
  bool isTuple() const { return type_ == PrimitiveType::Tuple; }
  bool isToken() const { return type_ == PrimitiveType::Token; }
  bool isArray() const { return isArrayElementType(type_); }
  bool isScalar() const { return isArray() && dims_.empty(); }

  // Arrays.
  int64_t rank() const { return static_cast<int64_t>(dims_.size()); }
  llvm::ArrayRef<int64_t> dims() const { return dims_; }
  int64_t dim(int64_t i) const { return dims_[i]; }
  void setDim(int64_t i, int64_t size) { dims_[i] = size; }
  void setDims(llvm::ArrayRef<int64_t> dims);
  static constexpr int64_t kUnboundedSize = -1;
  bool hasUnboundedDims() const;

  /// Product of the dimensions (1 for a scalar, 0 if any dimension is 0 or
  /// unbounded).
  int64_t elementCount() const;
  /// Dynamic (`<=N`) dimensions: N is their bound, kept in dims(). An
  /// unbounded dynamic dimension (`?`) has size kUnboundedSize; such shapes
  /// parse and verify, but nothing can allocate or run them.
  bool isDynamicDim(int64_t i) const { return !dynamic_.empty() && dynamic_[i]; }
  void setDynamicDim(int64_t i, bool dynamic);
  bool hasDynamicDims() const;

  /// The explicit layout if the text had one.
  const std::optional<Layout> &layout() const { return layout_; }
  void setLayout(std::optional<Layout> layout) { layout_ = std::move(layout); }
  /// The layout to use: the explicit one, else the default row-major one.
  Layout layoutOrDefault() const;
  /// True when the physical order is row-major (no layout or {N-1..0}).
  bool hasDefaultLayout() const;

  // Tuples.
  llvm::ArrayRef<Shape> tupleElements() const { return elements_; }
  std::vector<Shape> &mutableTupleElements() { return elements_; }
  const Shape &tupleElement(size_t i) const { return elements_[i]; }
  size_t tupleSize() const { return elements_.size(); }

  /// Leaves of a (possibly nested) tuple in flattened order; an array is its own leaf.
  void collectLeaves(llvm::SmallVectorImpl<const Shape *> &leaves) const;

  /// Same kind, element type and dimensions (recursively), ignoring layouts.
  bool compatible(const Shape &other) const;
  /// compatible() and the same layouts where both have one.
  bool operator==(const Shape &other) const;
  bool operator!=(const Shape &other) const { return !(*this == other); }

  /// HLO text, e.g. "f32[2,3]{1,0}"; layouts only where explicitly present
  /// and `withLayout` is set.
  std::string toString(bool withLayout = true) const;

private:
  PrimitiveType type_ = PrimitiveType::Invalid;
  llvm::SmallVector<int64_t, 4> dims_;
  llvm::SmallVector<bool, 4> dynamic_; ///< empty when no dimension is dynamic
  std::optional<Layout> layout_;
  std::vector<Shape> elements_;
};

/// `(f32[2], s32[]) -> f32[2]`: a computation's signature, as in
/// `entry_computation_layout` and computation headers.
struct ProgramShape {
  std::vector<Shape> parameters;
  std::vector<std::string> parameterNames; ///< may be empty or shorter than parameters
  Shape result;

  std::string toString(bool withLayout = true) const;
};

} // namespace mote::hlo

#endif // MOTE_HLO_SHAPE_H
