//===- NpyHeader.cpp - The dictionary in a .npy file's header -------------===//
//
// The dict is read and written by runtime/tools/npy.h, shared with mote-run.
//
//===----------------------------------------------------------------------===//

#include "NpyHeader.h"

#include "npy.h"

namespace mote::tools {

llvm::Expected<NpyHeader> parseNpyHeaderDict(llvm::StringRef text) {
  npy::Header header;
  std::string error;
  if (!npy::parseHeader(std::string_view(text.data(), text.size()), &header, &error))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), error);
  NpyHeader result;
  result.descr = std::move(header.descr);
  result.fortranOrder = header.fortran_order;
  result.shape.assign(header.shape.begin(), header.shape.end());
  return result;
}

std::string formatNpyHeaderDict(const NpyHeader &header) {
  npy::Header plain;
  plain.descr = header.descr;
  plain.fortran_order = header.fortranOrder;
  plain.shape.assign(header.shape.begin(), header.shape.end());
  return npy::formatHeader(plain);
}

} // namespace mote::tools
