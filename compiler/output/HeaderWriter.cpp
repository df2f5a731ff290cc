//===- HeaderWriter.cpp - The C/C++ header of a compiled model ------------===//
///
/// \file
/// For a model named `mlp` the header declares, for C:
///   int32_t mlp_entry(const mote_call *call);
///   extern const mote_model_desc mlp_model;
///   MLP_ARG_COUNT, MLP_RESULT_COUNT, MLP_SCRATCH_BYTES, MLP_SCRATCH_ALIGNMENT,
///   MLP_ARG_<NAME>_INDEX / _BYTES, MLP_RESULT_<NAME>_INDEX / _BYTES
/// and, for C++, `class mlp` (the class takes the model's name as it is; a
/// name that is a C++ keyword gets a trailing underscore). The class owns no
/// memory: the caller hands it the scratch arena and sets one pointer per
/// argument and result, all in the compiled layouts, then calls run().
///
//===----------------------------------------------------------------------===//

#include "output/HeaderWriter.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
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
        << " * Buffers are caller-owned and in the compiled layouts listed below\n"
        << " * (minor-to-major dimension order, as in HLO); scratch must hold\n"
        << " * " << upper_ << "_SCRATCH_BYTES bytes aligned to " << upper_
        << "_SCRATCH_ALIGNMENT.\n";
    writeTensorList("Arguments", s_.args);
    writeTensorList("Results", s_.results);
    os_ << " */\n"
        << "#ifndef " << guard << "\n#define " << guard << "\n\n"
        << "#include <stdint.h>\n\n#include <mote/abi.h>\n\n";
    writeMacros();
    os_ << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
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
        << "#define " << upper_ << "_SCRATCH_ALIGNMENT " << s_.scratchAlignment << "u\n";
    writeTensorMacros("ARG", s_.args);
    writeTensorMacros("RESULT", s_.results);
    os_ << "\n";
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
    os_ << "/* Ownership of every buffer stays with the caller: scratch, arguments\n"
        << " * and results must outlive each run(). */\n"
        << "class " << c << " {\npublic:\n"
        << "  static constexpr uint64_t kScratchBytes = " << s_.scratchSize << "ull;\n"
        << "  static constexpr uint32_t kScratchAlignment = " << s_.scratchAlignment << "u;\n"
        << "  static constexpr uint32_t kArgCount = " << s_.args.size() << "u;\n"
        << "  static constexpr uint32_t kResultCount = " << s_.results.size() << "u;\n\n"
        << "  /* `scratch`: kScratchBytes bytes aligned to kScratchAlignment. */\n"
        << "  explicit " << c << "(void *scratch, const mote_env *env = nullptr)\n"
        << "      : scratch_(scratch), env_(env) {}\n\n"
        << "  void set_scratch(void *scratch) { scratch_ = scratch; }\n"
        << "  void set_env(const mote_env *env) { env_ = env; }\n\n";
    for (size_t i = 0; i < s_.args.size(); ++i) {
      const TensorSignature &t = s_.args[i];
      llvm::StringRef type = cElementType(t.elementType);
      os_ << "  /* " << shapeText(t) << " */\n"
          << "  static constexpr uint64_t arg_" << t.name << "_bytes = " << t.byteSize << "ull;\n"
          << "  static constexpr int64_t arg_" << t.name << "_elements = " << elementCount(t)
          << ";\n"
          << "  void set_arg_" << t.name << "(const " << type << " *data) { args_[" << i
          << "] = data; }\n"
          << "  const " << type << " *arg_" << t.name << "() const { return static_cast<const "
          << type << " *>(args_[" << i << "]); }\n";
    }
    for (size_t i = 0; i < s_.results.size(); ++i) {
      const TensorSignature &t = s_.results[i];
      llvm::StringRef type = cElementType(t.elementType);
      os_ << "  /* " << shapeText(t) << " */\n"
          << "  static constexpr uint64_t result_" << t.name << "_bytes = " << t.byteSize
          << "ull;\n"
          << "  static constexpr int64_t result_" << t.name << "_elements = " << elementCount(t)
          << ";\n"
          << "  void set_result_" << t.name << "(" << type << " *data) { results_[" << i
          << "] = data; }\n"
          << "  " << type << " *result_" << t.name << "() const { return static_cast<" << type
          << " *>(results_[" << i << "]); }\n";
    }
    os_ << "\n  /* Runs the model; returns MOTE_CALL_OK (0) on success. */\n"
        << "  int32_t run() const {\n";
    // An aliased result is its argument updated in place: the code reads
    // the argument from the result's buffer (give both the same buffer to
    // skip the copy).
    for (const ModelSignature::Alias &alias : s_.aliases)
      os_ << "    if (results_[" << alias.result << "] != args_[" << alias.arg << "])\n"
          << "      __builtin_memcpy(results_[" << alias.result << "], args_[" << alias.arg << "], "
          << s_.args[alias.arg].byteSize << "u);\n";
    // Objects carry their constants: no weights pointer.
    os_ << "    mote_call call = {args_, results_, scratch_, env_, nullptr};\n"
        << "    return " << s_.name << "_entry(&call);\n  }\n\n"
        << "  static const mote_model_desc &descriptor() { return " << s_.name << "_model; }\n\n"
        << "private:\n"
        // Arrays of at least one element: C++ has no zero-length arrays.
        << "  const void *args_[kArgCount ? kArgCount : 1] = {};\n"
        << "  void *results_[kResultCount ? kResultCount : 1] = {};\n"
        << "  void *scratch_;\n  const mote_env *env_;\n};\n\n";
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
