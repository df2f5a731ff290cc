//===- HeaderWriter.cpp - The C/C++ header of a compiled model ------------===//
///
/// \file
/// For a model named `mlp` the header declares, for C:
///   int32_t mlp_entry(const mote_call *call);
///   extern const mote_model_desc mlp_model;
///   MLP_ARG_COUNT, MLP_RESULT_COUNT, MLP_SCRATCH_BYTES, MLP_SCRATCH_ALIGNMENT,
///   MLP_ARENA_BYTES (the memory a session needs, for a static array),
///   MLP_ARG_<NAME>_INDEX / _BYTES, MLP_RESULT_<NAME>_INDEX / _BYTES
/// and, for C++, `class mlp` (the class takes the model's name as it is; a
/// name that is a C++ keyword gets a trailing underscore): the runtime's
/// mote::Model and mote::Session (mote/mote.hpp) around this model, with an
/// accessor per argument and result named after it (set_x, set_result), typed
/// and checked as Session's are. The class owns no memory: the caller hands
/// it kArenaBytes to run in.
///
//===----------------------------------------------------------------------===//

#include "output/HeaderWriter.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

namespace mote::output {

using codegen::ModelSignature;
using codegen::TensorSignature;
using hlo::PrimitiveType;

namespace {

/// The C type of one stored element. pred is a byte holding 0 or 1; f16 and
/// bf16 are their raw bits; complex numbers are (real, imaginary) pairs.
llvm::StringRef cElementType(PrimitiveType type) {
  switch (type) {
  case PrimitiveType::Pred:
  case PrimitiveType::U2:
  case PrimitiveType::U4:
  case PrimitiveType::U8:
    return "uint8_t";
  case PrimitiveType::S2:
  case PrimitiveType::S4:
  case PrimitiveType::S8:
    return "int8_t";
  case PrimitiveType::S16:
    return "int16_t";
  case PrimitiveType::S32:
    return "int32_t";
  case PrimitiveType::S64:
    return "int64_t";
  case PrimitiveType::U16:
  case PrimitiveType::F16:
  case PrimitiveType::BF16:
    return "uint16_t";
  case PrimitiveType::U32:
    return "uint32_t";
  case PrimitiveType::U64:
    return "uint64_t";
  case PrimitiveType::F32:
  case PrimitiveType::C64:
    return "float";
  case PrimitiveType::F64:
  case PrimitiveType::C128:
    return "double";
  default:
    return "uint8_t"; // f8 types: raw bits
  }
}

/// The C++ element type the runtime checks a tensor against (mote/mote.hpp).
llvm::StringRef cxxElementType(PrimitiveType type) {
  switch (type) {
  case PrimitiveType::Pred:
    return "bool";
  case PrimitiveType::F16:
    return "mote::f16";
  case PrimitiveType::BF16:
    return "mote::bf16";
  case PrimitiveType::C64:
    return "mote::c64";
  case PrimitiveType::C128:
    return "mote::c128";
  default:
    return cElementType(type);
  }
}

bool isCxxKeyword(llvm::StringRef name) {
  static const char *const keywords[] = {"alignas",       "alignof",     "and",
                                         "and_eq",        "asm",         "auto",
                                         "bitand",        "bitor",       "bool",
                                         "break",         "case",        "catch",
                                         "char",          "char8_t",     "char16_t",
                                         "char32_t",      "class",       "compl",
                                         "concept",       "const",       "consteval",
                                         "constexpr",     "constinit",   "const_cast",
                                         "continue",      "co_await",    "co_return",
                                         "co_yield",      "decltype",    "default",
                                         "delete",        "do",          "double",
                                         "dynamic_cast",  "else",        "enum",
                                         "explicit",      "export",      "extern",
                                         "false",         "float",       "for",
                                         "friend",        "goto",        "if",
                                         "inline",        "int",         "long",
                                         "mutable",       "namespace",   "new",
                                         "noexcept",      "not",         "not_eq",
                                         "nullptr",       "operator",    "or",
                                         "or_eq",         "private",     "protected",
                                         "public",        "register",    "reinterpret_cast",
                                         "requires",      "return",      "short",
                                         "signed",        "sizeof",      "static",
                                         "static_assert", "static_cast", "struct",
                                         "switch",        "template",    "this",
                                         "thread_local",  "throw",       "true",
                                         "try",           "typedef",     "typeid",
                                         "typename",      "union",       "unsigned",
                                         "using",         "virtual",     "void",
                                         "volatile",      "wchar_t",     "while",
                                         "xor",           "xor_eq"};
  return llvm::is_contained(keywords, name);
}

std::string shapeText(const TensorSignature &tensor) {
  std::string text = hlo::primitiveTypeName(tensor.elementType).str() + "[";
  for (size_t i = 0; i < tensor.dims.size(); ++i)
    text += (i ? "," : "") + std::to_string(tensor.dims[i]);
  text += "]{";
  for (size_t i = 0; i < tensor.minorToMajor.size(); ++i)
    text += (i ? "," : "") + std::to_string(tensor.minorToMajor[i]);
  return text + "}";
}

int64_t elementCount(const TensorSignature &tensor) {
  int64_t count = 1;
  for (int64_t dim : tensor.dims)
    count *= dim;
  return count;
}

class Writer {
public:
  Writer(const ModelSignature &signature, llvm::raw_ostream &os)
      : s_(signature), os_(os), upper_(llvm::StringRef(signature.name).upper()),
        className_(isCxxKeyword(signature.name) ? signature.name + "_" : signature.name) {}

  void write() {
    std::string guard = "MOTE_MODEL_" + upper_ + "_H";
    os_ << "/* " << s_.name << ".h - generated by motec; do not edit.\n"
        << " *\n"
        << " * Target: " << s_.triple << ", cpu " << s_.cpu
        << (s_.features.empty() ? "" : ", features " + s_.features) << ".\n"
        << " * Through a session (the class below, or mote/session.h) buffers are\n"
        << " * row-major. Called directly, the entry function takes caller-owned\n"
        << " * buffers in the compiled layouts listed below (minor-to-major\n"
        << " * dimension order, as in HLO) and scratch of " << upper_ << "_SCRATCH_BYTES\n"
        << " * bytes aligned to " << upper_ << "_SCRATCH_ALIGNMENT.\n";
    writeTensorList("Arguments", s_.args);
    writeTensorList("Results", s_.results);
    os_ << " */\n"
        << "#ifndef " << guard << "\n#define " << guard << "\n\n"
        << "#include <stdint.h>\n\n#include <mote/mote.h>\n\n";
    writeMacros();
    os_ << "#ifdef __cplusplus\n#include <mote/mote.hpp>\n\nextern \"C\" {\n#endif\n\n"
        << "/* Runs the model once; returns MOTE_CALL_OK on success. */\n"
        << "int32_t " << s_.name << "_entry(const mote_call *call);\n"
        << "/* The model descriptor (mote/abi.h). */\n"
        << "extern const mote_model_desc " << s_.name << "_model;\n\n"
        << "#ifdef __cplusplus\n} /* extern \"C\" */\n\n";
    writeClass();
    os_ << "#endif /* __cplusplus */\n\n#endif /* " << guard << " */\n";
  }

private:
  void writeTensorList(llvm::StringRef title, const std::vector<TensorSignature> &tensors) {
    os_ << " *\n * " << title << ":\n";
    if (tensors.empty())
      os_ << " *   (none)\n";
    for (size_t i = 0; i < tensors.size(); ++i)
      os_ << " *   " << i << ": " << tensors[i].name << " " << shapeText(tensors[i]) << ", "
          << tensors[i].byteSize << " bytes of " << cElementType(tensors[i].elementType) << "\n";
  }

  void writeMacros() {
    os_ << "#define " << upper_ << "_ARG_COUNT " << s_.args.size() << "\n"
        << "#define " << upper_ << "_RESULT_COUNT " << s_.results.size() << "\n"
        << "#define " << upper_ << "_SCRATCH_BYTES " << s_.scratchSize << "ull\n"
        << "#define " << upper_ << "_SCRATCH_ALIGNMENT " << s_.scratchAlignment << "u\n"
        << "/* Memory a session over this model needs (mote/session.h), e.g.\n"
        << " * static uint8_t memory[" << upper_
        << "_ARENA_BYTES] __attribute__((aligned(16))); */\n"
        << "#define " << upper_ << "_ARENA_BYTES MOTE_SESSION_ARENA_BYTES("
        << s_.args.size() + s_.results.size() << "u, " << tensorBytes() << "ull, " << s_.scratchSize
        << "ull, " << s_.scratchAlignment << "u, 16u)\n";
    writeTensorMacros("ARG", s_.args);
    writeTensorMacros("RESULT", s_.results);
    os_ << "\n";
  }

  uint64_t tensorBytes() const {
    uint64_t bytes = 0;
    for (const auto *tensors : {&s_.args, &s_.results})
      for (const TensorSignature &t : *tensors)
        bytes += t.byteSize;
    return bytes;
  }

  void writeTensorMacros(llvm::StringRef kind, const std::vector<TensorSignature> &tensors) {
    for (size_t i = 0; i < tensors.size(); ++i) {
      std::string prefix =
          upper_ + "_" + kind.str() + "_" + llvm::StringRef(tensors[i].name).upper();
      os_ << "#define " << prefix << "_INDEX " << i << "\n"
          << "#define " << prefix << "_BYTES " << tensors[i].byteSize << "ull\n";
    }
  }

  void writeClass() {
    const std::string &c = className_;
    os_ << "/* The model with the runtime (mote/mote.hpp): it runs in memory the\n"
        << " * caller owns, and its accessors take arrays, containers or spans of the\n"
        << " * tensor's element type, row-major, checked against it (else\n"
        << " * MOTE_SHAPE_MISMATCH). The memory and every bound buffer must outlive\n"
        << " * the runs that use them. */\n"
        << "class " << c << " {\npublic:\n"
        << "  static constexpr uint64_t kScratchBytes = " << s_.scratchSize << "ull;\n"
        << "  static constexpr uint32_t kScratchAlignment = " << s_.scratchAlignment << "u;\n"
        << "  static constexpr uint32_t kArgCount = " << s_.args.size() << "u;\n"
        << "  static constexpr uint32_t kResultCount = " << s_.results.size() << "u;\n"
        << "  /* Bytes of memory the model runs in: scratch and the session's tables\n"
        << "   * and buffers, with any alignment up to 16. */\n"
        << "  static constexpr size_t kArenaBytes = " << upper_ << "_ARENA_BYTES;\n\n"
        << "  /* Ready to run in `memory` (kArenaBytes) unless status() says otherwise. */\n"
        << "  explicit " << c
        << "(mote::Span<unsigned char> memory, const mote_env *env = nullptr) {\n"
        << "    status_ = model_.init(" << s_.name << "_model, " << s_.name << "_entry);\n"
        << "    if (status_)\n"
        << "      status_ = session_.init(model_, memory, env);\n"
        << "  }\n"
        << "  " << c << "(const " << c << " &) = delete;\n"
        << "  " << c << " &operator=(const " << c << " &) = delete;\n"
        << "  mote::Status status() const { return status_; }\n\n";
    std::vector<std::string> names = accessorNames();
    for (size_t i = 0; i < s_.args.size(); ++i)
      writeAccessor(s_.args[i], names[i], "input", "const ", i);
    for (size_t i = 0; i < s_.results.size(); ++i)
      writeAccessor(s_.results[i], names[s_.args.size() + i], "output", "", i);
    os_ << "\n  /* Runs the model; the outputs then hold the results. */\n"
        << "  mote::Status run() { return status_ ? session_.run() : status_; }\n\n"
        << "  const mote::Model &model() const { return model_; }\n"
        << "  mote::Session &session() { return session_; }\n"
        << "  static const mote_model_desc &descriptor() { return " << s_.name << "_model; }\n\n"
        << "private:\n"
        << "  mote::Model model_;\n  mote::Session session_;\n  mote::Status status_;\n};\n\n";
  }

  /// set_<readable name> for each argument, then each result, unique.
  std::vector<std::string> accessorNames() const {
    std::vector<std::string> names;
    llvm::StringSet<> used;
    for (const auto *tensors : {&s_.args, &s_.results})
      for (const TensorSignature &t : *tensors) {
        std::string base = t.readableName.empty() ? t.name : t.readableName;
        std::string unique = base;
        for (int suffix = 2; !used.insert(unique).second; ++suffix)
          unique = base + "_" + std::to_string(suffix);
        names.push_back(unique);
      }
    return names;
  }

  void writeAccessor(const TensorSignature &t, llvm::StringRef name, llvm::StringRef kind,
                     llvm::StringRef constness, size_t index) {
    std::string type = cxxElementType(t.elementType).str();
    os_ << "  /* " << kind << " " << index << ", " << t.name << ": " << shapeText(t) << ", "
        << elementCount(t) << " elements */\n"
        << "  mote::Status set_" << name << "(mote::Span<" << constness << type << "> data) {\n"
        << "    return session_.set_" << kind << "(" << index << ", data);\n  }\n";
  }

  const ModelSignature &s_;
  llvm::raw_ostream &os_;
  std::string upper_;
  std::string className_;
};

} // namespace

std::string writeHeader(const ModelSignature &signature) {
  std::string text;
  llvm::raw_string_ostream os(text);
  Writer(signature, os).write();
  return std::move(os.str());
}

} // namespace mote::output
