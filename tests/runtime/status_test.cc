// ===- tests/runtime/status_test.cc - Status messages and the arena -------===
#include <doctest/doctest.h>

#include <stdint.h>
#include <string.h>

#include <string>

#include "mote/mote.hpp"

TEST_CASE("every status has a message") {
  const mote_status codes[] = {MOTE_OK,
                               MOTE_INVALID_ARGUMENT,
                               MOTE_BUFFER_TOO_SMALL,
                               MOTE_MISALIGNED,
                               MOTE_SHAPE_MISMATCH,
                               MOTE_BAD_DESCRIPTOR,
                               MOTE_ABI_MISMATCH,
                               MOTE_PACKAGE_TRUNCATED,
                               MOTE_PACKAGE_MALFORMED,
                               MOTE_PACKAGE_DIGEST,
                               MOTE_PACKAGE_VERSION,
                               MOTE_NO_MATCHING_CODE,
                               MOTE_CODE_MALFORMED,
                               MOTE_CODE_RELOCATION,
                               MOTE_CODE_IMPORTS,
                               MOTE_MODEL_FAILED,
                               MOTE_DEVICE_ERROR,
                               MOTE_UNSUPPORTED,
                               MOTE_FILE_ERROR};
  for (mote_status code : codes) {
    CAPTURE(code);
    const char *message = mote_status_message(code);
    REQUIRE(message != nullptr);
#if MOTE_STATUS_MESSAGES
    CHECK(strlen(message) > 0);
    CHECK(std::string(message) != "unknown status");
#endif
  }
#if MOTE_STATUS_MESSAGES
  CHECK(std::string(mote_status_message(MOTE_BAD_DESCRIPTOR)) == "bad model descriptor");
  CHECK(std::string(mote_status_message(12345)) == "unknown status");
#else
  CHECK(std::string(mote_status_message(MOTE_BAD_DESCRIPTOR)) == "");
#endif
}

TEST_CASE("mote::Status wraps a code") {
  mote::Status ok;
  CHECK(ok.ok());
  mote::Status bad(MOTE_MISALIGNED);
  CHECK_FALSE(bad.ok());
  CHECK(bad.code() == MOTE_MISALIGNED);
  CHECK(bad == mote::Status(MOTE_MISALIGNED));
#if MOTE_STATUS_MESSAGES
  CHECK(std::string(bad.message()) == "buffer misaligned");
#endif
}

TEST_CASE("arena carves aligned blocks and refuses what does not fit") {
  alignas(64) uint8_t memory[100];
  mote_arena arena;
  mote_arena_init(&arena, memory + 1, 99); // start deliberately misaligned
  void *a = nullptr, *b = nullptr, *c = nullptr;
  REQUIRE(mote_arena_allocate(&arena, 10, 16, &a) == MOTE_OK);
  CHECK(reinterpret_cast<uintptr_t>(a) % 16 == 0);
  CHECK(a == memory + 16);
  REQUIRE(mote_arena_allocate(&arena, 3, 1, &b) == MOTE_OK);
  CHECK(b == memory + 26);
  size_t used = mote_arena_used(&arena);
  CHECK(used == 28);
  CHECK(mote_arena_allocate(&arena, 80, 8, &c) == MOTE_BUFFER_TOO_SMALL);
  CHECK(mote_arena_used(&arena) == used); // a failed allocation takes nothing
  CHECK(mote_arena_allocate(&arena, 1, 3, &c) == MOTE_INVALID_ARGUMENT);
  REQUIRE(mote_arena_allocate(&arena, 0, 64, &c) == MOTE_OK);
  CHECK(c == memory + 64);
  mote_arena_reset(&arena);
  CHECK(mote_arena_used(&arena) == 0);
  mote_arena empty;
  mote_arena_init(&empty, nullptr, 1000);
  CHECK(mote_arena_allocate(&empty, 0, 1, &c) == MOTE_BUFFER_TOO_SMALL);
}
