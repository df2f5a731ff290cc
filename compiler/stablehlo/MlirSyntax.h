//===- MlirSyntax.h - StableHLO MLIR text as read, before conversion -*- C++ -*-===//
///
/// \file
/// What the MLIR parser hands the converter: every operation in the generic
/// shape MLIR itself uses (name, operands, results, attributes, regions),
/// whichever of the pretty or generic forms the text used. A pretty form's
/// keywords become the attributes its generic form would carry
/// (`dims = [0]` of broadcast_in_dim is `broadcast_dimensions`), so the
/// converter reads one spelling of each op.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_STABLEHLO_MLIRSYNTAX_H
#define MOTE_STABLEHLO_MLIRSYNTAX_H

#include "hlo/PrimitiveType.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mote::stablehlo {

/// `!quant.uniform<i8:f32, 0.5:-3>` or per axis `!quant.uniform<i8:f32:1, {0.5:1, 0.25:2}>`.
struct QuantizedType {
  hlo::PrimitiveType storage = hlo::PrimitiveType::S8;
  hlo::PrimitiveType expressed = hlo::PrimitiveType::F32;
  int64_t storageMin = -128;
  int64_t storageMax = 127;
  std::optional<int64_t> axis; ///< per-axis quantization: the quantized dimension
  std::vector<double> scales;  ///< one, or one per index of `axis`
  std::vector<int64_t> zeroPoints;
};

/// A type as MLIR writes it. Tensors of quantized elements keep the
/// parameters beside the storage type.
struct Type {
  enum class Kind : uint8_t { Tensor, Tuple, Token, Function, Scalar, Other };
  Kind kind = Kind::Other;
  hlo::PrimitiveType element = hlo::PrimitiveType::Invalid; ///< Tensor, Scalar (storage type)
  llvm::SmallVector<int64_t, 4> dims;                       ///< Tensor; kDynamic for `?`
  llvm::SmallVector<int64_t, 4> bounds; ///< `#stablehlo.bounds<...>` (kDynamic: none)
  std::shared_ptr<const QuantizedType> quantized;
  std::vector<Type> elements; ///< Tuple elements; Function inputs
  std::vector<Type> results;  ///< Function results
  std::string spelling;       ///< Other: the text, for messages

  static constexpr int64_t kDynamic = -1;

  bool isTensor() const { return kind == Kind::Tensor; }
  bool isQuantized() const { return quantized != nullptr; }
  bool hasDynamicDims() const;
  int64_t elementCount() const;
};

/// The literal of a `dense<...>` before its type is known: a hex blob, or
/// scalars in row-major order with the nesting of the brackets.
struct DenseBody {
  struct Scalar {
    enum class Kind : uint8_t { Integer, Float, Bool, HexBits, Complex };
    Kind kind = Kind::Integer;
    bool negative = false;
    uint64_t magnitude = 0;                     ///< Integer, HexBits
    double value = 0;                           ///< Float (the sign applied), Bool (0 or 1)
    double imag = 0;                            ///< Complex: `value` is the real part
    std::optional<uint64_t> realBits, imagBits; ///< Complex parts written as hex bits
    llvm::SMLoc location;
  };
  std::optional<std::string> hexBytes; ///< decoded bytes of `"0x..."`
  std::vector<Scalar> scalars;
  llvm::SmallVector<int64_t, 4> nesting;   ///< list lengths outermost first; empty: a splat
  bool empty = false;                      ///< `dense<>`
  std::optional<std::string> resourceName; ///< `dense_resource<name>`
};

struct Attribute;
struct NamedAttribute;
using AttributeList = std::vector<NamedAttribute>;

/// An attribute as MLIR writes it.
struct Attribute {
  enum class Kind : uint8_t {
    Unit,       ///< `unit`, or a key given without value
    Bool,       ///< true / false
    Integer,    ///< 3 : i64 (a value without type too)
    Float,      ///< 1.5 : f32
    String,     ///< "text"
    Symbol,     ///< @name
    TypeValue,  ///< a type used as an attribute
    Array,      ///< [a, b]
    DenseArray, ///< array<i64: 1, 2>
    Dense,      ///< dense<...> : type, dense_resource<...> : type
    Dictionary, ///< {k = v}
    Enum,       ///< #stablehlo<comparison_direction LT>: `name` the kind, `text` the value
    Struct,     ///< #stablehlo.scatter<k = v, ...>: `name` the mnemonic, `fields`
    ConvDims,   ///< #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>: `text` the spelling
    Opaque,     ///< anything else (dialect attributes, locations): `text` as written
  };
  Kind kind = Kind::Unit;
  bool boolean = false;
  int64_t integer = 0; ///< also the bits of values above INT64_MAX
  double number = 0;
  std::string name;
  std::string text;
  std::shared_ptr<Type> type; ///< the `: type` of integers, floats, dense, TypeValue
  std::vector<Attribute> elements;
  std::shared_ptr<AttributeList> fields; ///< Dictionary, Struct
  std::shared_ptr<DenseBody> dense;
  llvm::SMLoc location;

  /// The field `key` of a Dictionary or Struct, or null.
  const Attribute *field(llvm::StringRef key) const;
  /// Integers of an Array, DenseArray or Dense attribute (one dimension).
  bool integers(llvm::SmallVectorImpl<int64_t> &out) const;
  /// An Array or DenseArray attribute of `values`, for attributes the
  /// front end writes itself.
  static Attribute integerList(Kind kind, llvm::ArrayRef<int64_t> values);
};

struct NamedAttribute {
  std::string name;
  Attribute value;
};

/// `%name` or `%name#3`: result `index` of the value group `name`.
struct ValueUse {
  std::string name;
  unsigned index = 0;
  llvm::SMLoc location;
};

struct Operation;

struct BlockArgument {
  std::string name;
  Type type;
  llvm::SMLoc location;
};

struct Block {
  std::vector<BlockArgument> arguments;
  std::vector<Operation> operations;
};

struct Region {
  std::vector<Block> blocks;
  llvm::SMLoc location;
};

/// One operation: `%a, %b:2 = "dialect.op"(%x, %y) <{props}> ({regions}) {attrs} : (T, U) -> (V,
/// W)`.
struct Operation {
  std::string name;
  llvm::SMLoc location;
  /// Result groups in order (`%a, %b:2`): name and how many results it names.
  std::vector<std::pair<std::string, unsigned>> results;
  std::vector<ValueUse> operands;
  std::vector<Type>
      operandTypes; ///< may be empty when the form gave none (filled by the converter)
  std::vector<Type> resultTypes;
  AttributeList attributes; ///< properties and the attribute dictionary together
  std::vector<Region> regions;
  /// `loc(...)` after the op: an alias name (`#loc3`) or the location written inline.
  std::string sourceLocation;

  const Attribute *attribute(llvm::StringRef key) const;
  unsigned resultCount() const;
};

/// A whole file: its top-level operations (module, or functions directly),
/// the `#loc` aliases and the `{-# dialect_resources #-}` blobs.
struct ModuleSyntax {
  std::vector<Operation> operations;
  /// `#loc3 = loc(...)`: alias name (without '#') to its definition text.
  std::vector<std::pair<std::string, std::string>> locationAliases;
  /// `dialect_resources: { builtin: { name: "0x..." } }`: name to the hex blob's bytes
  /// (alignment prefix removed).
  std::vector<std::pair<std::string, std::string>> resources;
};

} // namespace mote::stablehlo

#endif // MOTE_STABLEHLO_MLIRSYNTAX_H
