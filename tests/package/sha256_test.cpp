//===- sha256_test.cpp - The package digest against FIPS 180 examples -----===//
#include "sha256.h"

#include <doctest/doctest.h>

#include <string>

namespace {

std::string hex_digest(const std::string &text, size_t chunk) {
  mote::Sha256 hash;
  for (size_t at = 0; at < text.size(); at += chunk)
    hash.update(text.data() + at, std::min(chunk, text.size() - at));
  uint8_t digest[mote::kSha256Size];
  hash.finish(digest);
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (uint8_t byte : digest)
    out += {kHex[byte >> 4], kHex[byte & 15]};
  return out;
}

} // namespace

TEST_CASE("SHA-256 matches the FIPS 180 examples, in any chunking") {
  for (size_t chunk : {1, 3, 63, 64, 65, 1000}) {
    CAPTURE(chunk);
    CHECK(hex_digest("abc", chunk) ==
          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(hex_digest("", chunk) ==
          "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(hex_digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", chunk) ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  }
  CHECK(hex_digest(std::string(1000000, 'a'), 4096) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
