//===- LexerTest.cpp - Tokens of HLO text ---------------------------------===//

#include "hlo/Lexer.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace mote::hlo;

namespace {
/// "kind:text" for every token up to the end.
std::vector<std::string> tokens(llvm::StringRef text) {
  Lexer lexer(text);
  std::vector<std::string> out;
  for (Token token = lexer.current(); !token.is(TokenKind::Eof); token = lexer.next()) {
    out.push_back(tokenKindName(token.kind).str() + ":" + token.text.str());
    if (token.is(TokenKind::Error))
      break;
  }
  return out;
}
using Tokens = std::vector<std::string>;
} // namespace

TEST_CASE("lexer: names, numbers and punctuation") {
  CHECK(tokens("%get-tuple-element.3 = f32[<=4]{0} get-tuple-element(x), index=0") ==
        Tokens{"name:%get-tuple-element.3", "'=':=", "identifier:f32", "'[':[",
               "'<=':<=", "integer:4", "']':]", "'{':{", "integer:0", "'}':}",
               "identifier:get-tuple-element", "'(':(", "identifier:x", "')':)", "',':,",
               "identifier:index", "'=':=", "integer:0"});
  CHECK(tokens("-1 2.5 .5 1e-3 -inf inf nan -nan nan(0x7f) 7") ==
        Tokens{"integer:-1", "number:2.5", "number:.5", "number:1e-3", "number:-inf",
               "identifier:inf", "identifier:nan", "number:-nan", "number:nan(0x7f)", "integer:7"});
  // An identifier never swallows the '-' of an arrow.
  CHECK(tokens("(a: f32[])->b01f_01io->b0") ==
        Tokens{"'(':(", "identifier:a", "':'::", "identifier:f32", "'[':[", "']':]", "')':)",
               "'->':->", "identifier:b01f_01io", "'->':->", "identifier:b0"});
  CHECK(tokens("{...} # @") ==
        Tokens{"'{':{", "'...':...", "'}':}", "punctuation:#", "punctuation:@"});
}

TEST_CASE("lexer: strings, comments and line breaks") {
  CHECK(tokens(R"("a \"q\" b" 'single')") == Tokens{R"(string:"a \"q\" b")", "string:'single'"});
  Lexer lexer("a /*index=5*/ b // rest of line\n c /* two\nlines */ d");
  CHECK(lexer.current().text == "a");
  CHECK(lexer.next().text == "b");
  CHECK_FALSE(lexer.current().newlineBefore);
  CHECK(lexer.next().text == "c");
  CHECK(lexer.current().newlineBefore);
  CHECK(lexer.next().text == "d");
  CHECK(lexer.current().newlineBefore);

  Lexer unterminated("x \"abc");
  CHECK(unterminated.next().is(TokenKind::Error));
  CHECK(unterminated.errorMessage() == "unterminated string");
  Lexer comment("x /* abc");
  CHECK(comment.next().is(TokenKind::Error));
  CHECK(comment.errorMessage() == "unterminated '/*' comment");
}

TEST_CASE("lexer: words and layout suffixes are re-read on demand") {
  Lexer window("size=3x3 pad=-1_2x0_0, dim_labels=b01f_01io->b01f}");
  window.next();
  window.next(); // at 3
  CHECK(window.relexWord().text == "3x3");
  window.next();
  window.next();
  window.next(); // at -1
  CHECK(window.relexWord().text == "-1_2x0_0");
  CHECK(window.next().is(TokenKind::Comma));
  window.next();
  window.next();
  window.next();
  CHECK(window.relexWord().text == "b01f_01io->b01f");
  CHECK(window.next().is(TokenKind::RBrace));

  Lexer layout("{1,0:T(8,128)(2,1)S(1)} x");
  layout.next();
  layout.next();
  layout.next();
  layout.next(); // at ':'
  REQUIRE(layout.current().is(TokenKind::Colon));
  CHECK(layout.lexLayoutSuffix() == "T(8,128)(2,1)S(1)");
  CHECK(layout.current().is(TokenKind::RBrace));
  CHECK(layout.next().text == "x");
}
