/*===- mote/status.h - One-word status codes for the runtime -----------------===
 *
 * Every runtime call returns a mote_status: zero is success, anything else
 * names what went wrong precisely enough for a test to expect it. The short
 * message for a code comes from mote_status_message(); firmware that cannot
 * spare the strings builds with MOTE_STATUS_MESSAGES=0 (see mote/config.h)
 * and gets "" instead.
 *
 * Codes are stable wire values: append new ones, never renumber.
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_STATUS_H
#define MOTE_STATUS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mote_status_code {
  MOTE_OK = 0,
  /* Caller errors. */
  MOTE_INVALID_ARGUMENT = 1, /* null pointer, index out of range, bad count */
  MOTE_BUFFER_TOO_SMALL = 2, /* a caller buffer or arena is smaller than needed */
  MOTE_MISALIGNED = 3,       /* a caller buffer is not aligned as required */
  MOTE_SHAPE_MISMATCH = 4,   /* element type, rank or dims differ from the model's */
  /* Model descriptor (static or loaded). */
  MOTE_BAD_DESCRIPTOR = 10, /* magic, offsets or sizes of a mote_model_desc are wrong */
  MOTE_ABI_MISMATCH = 11,   /* descriptor ABI version differs from MOTE_ABI_VERSION */
  /* Packages (.mote) and their code objects. */
  MOTE_PACKAGE_TRUNCATED = 20, /* fewer bytes than the package header says */
  MOTE_PACKAGE_MALFORMED = 21, /* flatbuffer, offsets or sizes fail verification */
  MOTE_PACKAGE_DIGEST = 22,    /* integrity digest does not match the contents */
  MOTE_PACKAGE_VERSION = 23,   /* package format version not supported */
  MOTE_NO_MATCHING_CODE = 24,  /* no code object for this triple / CPU features */
  MOTE_CODE_MALFORMED = 25,    /* code object (ELF) header, segments or tables are wrong */
  MOTE_CODE_RELOCATION = 26,   /* a relocation of an unsupported kind or out of bounds */
  MOTE_CODE_IMPORTS = 27,      /* the code object needs symbols from outside */
  /* Running. */
  MOTE_MODEL_FAILED = 30, /* the entry function returned a non-zero status */
  MOTE_DEVICE_ERROR = 31, /* a port's device or transfer reported a failure */
  MOTE_UNSUPPORTED = 32,  /* the port cannot do what was asked (e.g. executable memory) */
  MOTE_FILE_ERROR = 33,   /* a file cannot be opened or read (ports with files) */
  MOTE_WEIGHTS_MISSING = 34, /* the model reads weights it was not given (mote_model_set_weights) */
  MOTE_WEIGHTS_MISMATCH = 35, /* a weights file's size or digest is not the package's */
} mote_status_code;

/* int32_t rather than the enum so the ABI does not depend on enum sizing. */
typedef int32_t mote_status;

/* A short, static, NUL-terminated description of `status` ("" when messages
 * are compiled out). Never returns null. */
const char *mote_status_message(mote_status status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MOTE_STATUS_H */
