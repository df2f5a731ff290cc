/*===- run_driver.c - Runs one compiled model on raw files for motec run ---===
 *
 * motec run compiles this file for the target, links it with the model's
 * object, and runs it natively, under qemu-user, or on a QEMU board with
 * semihosting (file I/O goes to the host). It reads each argument from
 * DIR/argN.bin into an aligned buffer, calls the entry function once, and
 * writes each result to DIR/resultN.bin, where DIR is argv[1] if given, else
 * MOTE_RUN_DIR (always MOTE_RUN_DIR with -DMOTE_RUN_IGNORE_ARGV: bare-metal
 * images get their command line in a libc-specific way, if at all).
 *
 * Build: cc -std=c99 -I<dir with mote/abi.h> -DMOTE_MODEL_PREFIX=<name>
 *           [-DMOTE_RUN_DIR='"dir"'] run_driver.c model.o
 *
 * Exit status: 0 ok; 1 file error; 2 the descriptor is not the expected ABI;
 * 3 the entry function returned an error status; 4 out of memory.
 *
 *===----------------------------------------------------------------------===*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mote/abi.h"

#ifndef MOTE_MODEL_PREFIX
#error "define MOTE_MODEL_PREFIX as the model's symbol prefix"
#endif
#ifndef MOTE_RUN_DIR
#define MOTE_RUN_DIR "."
#endif

#define MOTE_CONCAT_(a, b) a##b
#define MOTE_CONCAT(a, b) MOTE_CONCAT_(a, b)
#define MODEL_ENTRY MOTE_CONCAT(MOTE_MODEL_PREFIX, _entry)
#define MODEL_DESC MOTE_CONCAT(MOTE_MODEL_PREFIX, _model)

int32_t MODEL_ENTRY(const mote_call *call);
extern const mote_model_desc MODEL_DESC;

/* Buffers are at least this aligned, whatever the descriptor asks for. */
#define MIN_ALIGNMENT 64u

static const mote_tensor_desc *tensorAt(const mote_model_desc *model, uint32_t offset,
                                        uint32_t index) {
  return (const mote_tensor_desc *)((const char *)model + offset) + index;
}

/* Never freed: the process ends right after the call. One spare byte keeps
 * zero-sized buffers distinct and non-null. */
static void *allocateAligned(uint64_t size, uint32_t alignment) {
  uintptr_t address;
  unsigned char *block;
  if (alignment < MIN_ALIGNMENT)
    alignment = MIN_ALIGNMENT;
  if (size > (uint64_t)(size_t)-1 - alignment - 1)
    return NULL;
  block = (unsigned char *)malloc((size_t)size + alignment + 1);
  if (!block)
    return NULL;
  address = ((uintptr_t)block + alignment - 1) & ~(uintptr_t)(alignment - 1);
  return (void *)address;
}

static void pathOf(char *out, size_t capacity, const char *dir, const char *kind, uint32_t i) {
  snprintf(out, capacity, "%s/%s%lu.bin", dir, kind, (unsigned long)i);
}

static int readExactly(const char *path, void *buffer, uint64_t size) {
  FILE *file = fopen(path, "rb");
  size_t got;
  if (!file) {
    fprintf(stderr, "mote-run: cannot open %s\n", path);
    return 0;
  }
  got = size ? fread(buffer, 1, (size_t)size, file) : 0;
  if (got != size || fgetc(file) != EOF) {
    fprintf(stderr, "mote-run: %s does not hold exactly %llu bytes\n", path,
            (unsigned long long)size);
    fclose(file);
    return 0;
  }
  fclose(file);
  return 1;
}

static int writeAll(const char *path, const void *buffer, uint64_t size) {
  FILE *file = fopen(path, "wb");
  int ok;
  if (!file) {
    fprintf(stderr, "mote-run: cannot create %s\n", path);
    return 0;
  }
  ok = (size == 0 || fwrite(buffer, 1, (size_t)size, file) == size);
  ok = (fclose(file) == 0) && ok;
  if (!ok)
    fprintf(stderr, "mote-run: cannot write %s\n", path);
  return ok;
}

int main(int argc, char **argv) {
  const mote_model_desc *model = &MODEL_DESC;
#ifdef MOTE_RUN_IGNORE_ARGV
  const char *dir = MOTE_RUN_DIR;
  (void)argc;
  (void)argv;
#else
  const char *dir = argc > 1 ? argv[1] : MOTE_RUN_DIR;
#endif
  const void **args;
  void **results;
  void *scratch;
  mote_call call;
  char path[1024];
  int32_t status;
  uint32_t i;

  if (model->magic != MOTE_MODEL_MAGIC || model->abi_version != MOTE_ABI_VERSION) {
    fprintf(stderr, "mote-run: the model descriptor has magic 0x%lx, ABI version %lu\n",
            (unsigned long)model->magic, (unsigned long)model->abi_version);
    return 2;
  }
  args = (const void **)calloc(model->arg_count + 1, sizeof(void *));
  results = (void **)calloc(model->result_count + 1, sizeof(void *));
  scratch = allocateAligned(model->scratch_size, model->scratch_alignment);
  if (!args || !results || !scratch) {
    fprintf(stderr, "mote-run: out of memory\n");
    return 4;
  }
  for (i = 0; i < model->arg_count; ++i) {
    const mote_tensor_desc *tensor = tensorAt(model, model->args_offset, i);
    void *buffer = allocateAligned(tensor->byte_size, model->scratch_alignment);
    if (!buffer) {
      fprintf(stderr, "mote-run: out of memory for argument %lu\n", (unsigned long)i);
      return 4;
    }
    pathOf(path, sizeof path, dir, "arg", i);
    if (!readExactly(path, buffer, tensor->byte_size))
      return 1;
    args[i] = buffer;
  }
  for (i = 0; i < model->result_count; ++i) {
    const mote_tensor_desc *tensor = tensorAt(model, model->results_offset, i);
    void *buffer = allocateAligned(tensor->byte_size, model->scratch_alignment);
    if (!buffer) {
      fprintf(stderr, "mote-run: out of memory for result %lu\n", (unsigned long)i);
      return 4;
    }
    /* A result the model forgets to write shows up as 0xa5 bytes, not as
     * plausible zeros. */
    memset(buffer, 0xa5, (size_t)tensor->byte_size);
    results[i] = buffer;
  }
  /* Scratch is garbage to the model: make it visibly so. */
  memset(scratch, 0x5a, (size_t)model->scratch_size);
  /* An aliased result is its argument updated in place: one buffer. */
  for (i = 0; i < model->alias_count; ++i) {
    const mote_alias_desc *alias =
        (const mote_alias_desc *)((const char *)model + model->aliases_offset) + i;
    const mote_tensor_desc *tensor = tensorAt(model, model->args_offset, alias->arg);
    memcpy(results[alias->result], args[alias->arg], (size_t)tensor->byte_size);
  }

  call.args = args;
  call.results = results;
  call.scratch = scratch;
  call.env = NULL;
  call.weights = NULL; /* objects carry their constants */
  status = MODEL_ENTRY(&call);
  if (status != MOTE_CALL_OK) {
    fprintf(stderr, "mote-run: the entry function returned status %ld\n", (long)status);
    return 3;
  }
  for (i = 0; i < model->result_count; ++i) {
    const mote_tensor_desc *tensor = tensorAt(model, model->results_offset, i);
    pathOf(path, sizeof path, dir, "result", i);
    if (!writeAll(path, results[i], tensor->byte_size))
      return 1;
  }
  return 0;
}
