// ===- runtime/core/status.cc - Short messages for status codes -----------===
#include "mote/status.h"
#include "mote/config.h"

extern "C" const char *mote_status_message(mote_status status) {
#if MOTE_STATUS_MESSAGES
  switch (status) {
  case MOTE_OK:
    return "ok";
  case MOTE_INVALID_ARGUMENT:
    return "invalid argument";
  case MOTE_BUFFER_TOO_SMALL:
    return "buffer too small";
  case MOTE_MISALIGNED:
    return "buffer misaligned";
  case MOTE_SHAPE_MISMATCH:
    return "shape mismatch";
  case MOTE_BAD_DESCRIPTOR:
    return "bad model descriptor";
  case MOTE_ABI_MISMATCH:
    return "model ABI version mismatch";
  case MOTE_PACKAGE_TRUNCATED:
    return "package truncated";
  case MOTE_PACKAGE_MALFORMED:
    return "package malformed";
  case MOTE_PACKAGE_DIGEST:
    return "package digest mismatch";
  case MOTE_PACKAGE_VERSION:
    return "package version not supported";
  case MOTE_NO_MATCHING_CODE:
    return "no code object for this machine";
  case MOTE_CODE_MALFORMED:
    return "code object malformed";
  case MOTE_CODE_RELOCATION:
    return "bad relocation in code object";
  case MOTE_CODE_IMPORTS:
    return "code object has imports";
  case MOTE_MODEL_FAILED:
    return "model failed";
  case MOTE_DEVICE_ERROR:
    return "device error";
  case MOTE_UNSUPPORTED:
    return "unsupported";
  case MOTE_FILE_ERROR:
    return "cannot read the file";
  case MOTE_WEIGHTS_MISSING:
    return "the model's weights were not given";
  case MOTE_WEIGHTS_MISMATCH:
    return "weights do not match the package";
  }
  return "unknown status";
#else
  (void)status;
  return "";
#endif
}
