//===- ParseValues.cpp - HLO text parser: attribute values ----------------===//
//
// The value syntaxes of instruction attributes: integer lists, windows,
// dim_labels, paddings, slices, computation names, strings, and raw text.
//
//===----------------------------------------------------------------------===//

#include "hlo/ParserImpl.h"

#include "llvm/ADT/StringExtras.h"

namespace mote::hlo::detail {

/// Splits `3x3` / `0_1x1_0` style words; an empty word has no parts.
static llvm::SmallVector<llvm::StringRef, 4> splitWord(llvm::StringRef word, char separator) {
  llvm::SmallVector<llvm::StringRef, 4> parts;
  if (!word.empty())
    word.split(parts, separator);
  return parts;
}

// Small values -------------------------------------------------------------------

bool HloParser::parseDimList(DimVector &dims, llvm::StringRef key) {
  dims.clear();
  if (!expect(TokenKind::LBrace, "expected '{' to start the '" + key + "' list"))
    return false;
  if (consumeIf(TokenKind::RBrace))
    return true;
  while (true) {
    int64_t value;
    if (!parseInt64(value, "'" + key + "'"))
      return false;
    dims.push_back(value);
    if (consumeIf(TokenKind::Comma))
      continue;
    return expect(TokenKind::RBrace, "expected ',' or '}' in the '" + key + "' list");
  }
}

bool HloParser::parseBool(bool &value, llvm::StringRef key) {
  if (tok().isIdentifier("true") || tok().isIdentifier("false")) {
    value = tok().text == "true";
    consume();
    return true;
  }
  return failHere("expected 'true' or 'false' for '" + key + "'");
}

bool HloParser::parseCalleeReference(CalleeReference &reference, llvm::StringRef key) {
  if (!tok().is(TokenKind::PercentName) && !tok().is(TokenKind::Identifier))
    return failHere("expected a computation name for '" + key + "'");
  reference.name = tok().text.ltrim('%').str();
  reference.location = tok().location();
  consume();
  return true;
}

std::string HloParser::unescapeString(llvm::StringRef quoted) {
  llvm::StringRef body = quoted.drop_front().drop_back();
  std::string text;
  text.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 == body.size()) {
      text += c;
      continue;
    }
    char escaped = body[++i];
    switch (escaped) {
    case 'n':
      text += '\n';
      break;
    case 't':
      text += '\t';
      break;
    case 'r':
      text += '\r';
      break;
    case 'x':
      if (i + 2 < body.size() && llvm::isHexDigit(body[i + 1]) && llvm::isHexDigit(body[i + 2])) {
        text += char(llvm::hexFromNibbles(body[i + 1], body[i + 2]));
        i += 2;
      } else {
        text += escaped;
      }
      break;
    default:
      text += escaped; // \" \' \\ and anything else stand for themselves
      break;
    }
  }
  return text;
}

// Raw values ---------------------------------------------------------------------

bool HloParser::parseRawValue(llvm::StringRef key, std::string &value) {
  const char *start = nullptr, *end = nullptr;
  llvm::SmallVector<TokenKind, 8> closers;
  while (true) {
    const Token &token = tok();
    if (token.is(TokenKind::Error))
      return failHere("");
    if (token.is(TokenKind::Eof)) {
      if (!closers.empty())
        return failHere("expected " + tokenKindName(closers.back()) + " in the value of '" + key +
                        "' before the end of the file");
      break;
    }
    bool isCloser =
        token.is(TokenKind::RParen) || token.is(TokenKind::RBrace) || token.is(TokenKind::RSquare);
    if (closers.empty()) {
      if (!start && (token.is(TokenKind::Comma) || isCloser))
        return failHere("expected a value for '" + key + "'");
      if (start) {
        if (token.is(TokenKind::Comma) || isCloser || token.newlineBefore)
          break;
        // Another instruction on the same line ends the value.
        if ((token.is(TokenKind::Identifier) || token.is(TokenKind::PercentName)) &&
            (token.isIdentifier("ROOT") || lexer_.peek().is(TokenKind::Equal)))
          break;
      }
    }
    if (token.is(TokenKind::LParen) || token.is(TokenKind::LBrace) ||
        token.is(TokenKind::LSquare)) {
      if (closers.size() >= size_t(kMaxNesting))
        return failHere("the value of '" + key + "' is nested too deeply");
      closers.push_back(token.is(TokenKind::LParen)   ? TokenKind::RParen
                        : token.is(TokenKind::LBrace) ? TokenKind::RBrace
                                                      : TokenKind::RSquare);
    } else if (isCloser) {
      if (!token.is(closers.back()))
        return failHere("expected " + tokenKindName(closers.back()) + " in the value of '" + key +
                        "', found " + tokenKindName(token.kind));
      closers.pop_back();
    }
    if (!start)
      start = token.text.data();
    end = token.end();
    consume();
  }
  if (!start)
    return failHere("expected a value for '" + key + "'");
  value.assign(start, end);
  return true;
}

// Structured values --------------------------------------------------------------

static bool parseWordInts(llvm::StringRef text, DimVector &values) {
  values.clear();
  for (llvm::StringRef part : splitWord(text, 'x')) {
    int64_t value;
    if (part.getAsInteger(10, value))
      return false;
    values.push_back(value);
  }
  return true;
}

bool HloParser::parseWindow(Window &window) {
  if (!expect(TokenKind::LBrace, "expected '{' to start the window"))
    return false;
  DimVector size, stride, lhsDilate, rhsDilate, reversal;
  std::vector<std::pair<int64_t, int64_t>> pad;
  bool sawSize = false, sawPad = false, sawStride = false, sawLhs = false, sawRhs = false,
       sawReversal = false;
  llvm::SMLoc start = tok().location();
  while (!tok().is(TokenKind::RBrace)) {
    if (!tok().is(TokenKind::Identifier))
      return failHere("expected a window field (size, stride, pad, lhs_dilate, rhs_dilate, "
                      "rhs_reversal) or '}'");
    Token field = tok();
    consume();
    if (!expect(TokenKind::Equal, "expected '=' after window field '" + field.text + "'"))
      return false;
    const Token &word = lexer_.relexWord();
    llvm::StringRef text = word.text;
    llvm::SMLoc location = word.location();
    consume();
    auto ints = [&](DimVector &values, bool &seen) {
      if (seen)
        return fail(field.location(), "window field '" + field.text + "' is given twice");
      seen = true;
      if (text.empty() || !parseWordInts(text, values))
        return fail(location, "expected numbers like 3x3 for window field '" + field.text + "'");
      return true;
    };
    bool ok;
    if (field.text == "size")
      ok = ints(size, sawSize);
    else if (field.text == "stride")
      ok = ints(stride, sawStride);
    else if (field.text == "lhs_dilate")
      ok = ints(lhsDilate, sawLhs);
    else if (field.text == "rhs_dilate")
      ok = ints(rhsDilate, sawRhs);
    else if (field.text == "rhs_reversal")
      ok = ints(reversal, sawReversal);
    else if (field.text == "pad") {
      if (sawPad)
        return fail(field.location(), "window field 'pad' is given twice");
      sawPad = true;
      ok = !text.empty();
      for (llvm::StringRef part : splitWord(text, 'x')) {
        auto [low, high] = part.split('_');
        int64_t lowValue, highValue;
        if (high.empty() || low.getAsInteger(10, lowValue) || high.getAsInteger(10, highValue)) {
          ok = false;
          break;
        }
        pad.emplace_back(lowValue, highValue);
      }
      if (!ok)
        return fail(location, "expected padding like 0_1x1_0 for window field 'pad'");
    } else {
      return fail(field.location(), "unknown window field '" + field.text + "'");
    }
    if (!ok)
      return false;
  }
  consume(); // '}'

  size_t rank = size.size();
  if (!sawSize && (sawPad || sawStride || sawLhs || sawRhs || sawReversal))
    return fail(start, "the window has no 'size' field");
  auto checkRank = [&](size_t count, bool seen, llvm::StringRef field) {
    if (seen && count != rank)
      return fail(start, "window field '" + field + "' has " + llvm::Twine(count) +
                             " dimensions but 'size' has " + llvm::Twine(rank));
    return true;
  };
  if (!checkRank(stride.size(), sawStride, "stride") || !checkRank(pad.size(), sawPad, "pad") ||
      !checkRank(lhsDilate.size(), sawLhs, "lhs_dilate") ||
      !checkRank(rhsDilate.size(), sawRhs, "rhs_dilate") ||
      !checkRank(reversal.size(), sawReversal, "rhs_reversal"))
    return false;
  window.clear();
  for (size_t i = 0; i < rank; ++i) {
    WindowDimension dimension;
    dimension.size = size[i];
    if (sawStride)
      dimension.stride = stride[i];
    if (sawPad) {
      dimension.paddingLow = pad[i].first;
      dimension.paddingHigh = pad[i].second;
    }
    if (sawLhs)
      dimension.baseDilation = lhsDilate[i];
    if (sawRhs)
      dimension.windowDilation = rhsDilate[i];
    if (sawReversal)
      dimension.windowReversal = reversal[i] != 0;
    window.push_back(dimension);
  }
  return true;
}

/// `b01f_01io->b01f`: each letter or digit names what the dimension at its
/// position is; digits number the spatial dimensions.
static bool decodeLabels(llvm::StringRef labels, char first, char second, int64_t &firstDim,
                         int64_t &secondDim, DimVector &spatial) {
  int64_t spatialCount = int64_t(labels.size()) - 2;
  if (spatialCount < 0 || spatialCount > 10)
    return false;
  firstDim = secondDim = -1;
  spatial.assign(spatialCount, -1);
  for (size_t position = 0; position < labels.size(); ++position) {
    char c = labels[position];
    int64_t *slot = nullptr;
    if (c == first)
      slot = &firstDim;
    else if (c == second)
      slot = &secondDim;
    else if (llvm::isDigit(c) && c - '0' < spatialCount)
      slot = &spatial[c - '0'];
    if (!slot || *slot != -1)
      return false;
    *slot = int64_t(position);
  }
  return true;
}

bool HloParser::parseDimLabels(ConvolutionDimensionNumbers &numbers) {
  const Token &word = lexer_.relexWord();
  llvm::StringRef text = word.text;
  llvm::SMLoc location = word.location();
  consume();
  auto [operands, output] = text.split("->");
  auto [input, kernel] = operands.split('_');
  bool ok = decodeLabels(input, 'b', 'f', numbers.inputBatchDimension,
                         numbers.inputFeatureDimension, numbers.inputSpatialDimensions) &&
            decodeLabels(kernel, 'i', 'o', numbers.kernelInputFeatureDimension,
                         numbers.kernelOutputFeatureDimension, numbers.kernelSpatialDimensions) &&
            decodeLabels(output, 'b', 'f', numbers.outputBatchDimension,
                         numbers.outputFeatureDimension, numbers.outputSpatialDimensions);
  if (!ok || input.size() != kernel.size() || input.size() != output.size())
    return fail(location, "malformed dim_labels '" + text +
                              "': expected e.g. b01f_01io->b01f (one b and f, one i and o, "
                              "spatial dimensions 0..N-1 once each, same rank everywhere)");
  return true;
}

bool HloParser::parsePadding(std::vector<PaddingDimension> &padding) {
  const Token &word = lexer_.relexWord();
  llvm::StringRef text = word.text;
  llvm::SMLoc location = word.location();
  consume();
  padding.clear();
  for (llvm::StringRef part : splitWord(text, 'x')) {
    llvm::SmallVector<llvm::StringRef, 3> numbers;
    part.split(numbers, '_');
    PaddingDimension dimension;
    if ((numbers.size() != 2 && numbers.size() != 3) ||
        numbers[0].getAsInteger(10, dimension.low) || numbers[1].getAsInteger(10, dimension.high) ||
        (numbers.size() == 3 && numbers[2].getAsInteger(10, dimension.interior)))
      return fail(location, "expected padding like 0_1x2_3_1 (low_high[_interior] per "
                            "dimension), found '" +
                                text + "'");
    padding.push_back(dimension);
  }
  return true;
}

bool HloParser::parseSlice(std::vector<SliceDimension> &slice) {
  slice.clear();
  if (!expect(TokenKind::LBrace, "expected '{' to start the slice"))
    return false;
  if (consumeIf(TokenKind::RBrace))
    return true;
  while (true) {
    SliceDimension dimension;
    if (!expect(TokenKind::LSquare, "expected '[' to start a slice dimension like [0:4:1]") ||
        !parseInt64(dimension.start, "slice start") ||
        !expect(TokenKind::Colon, "expected ':' after the slice start") ||
        !parseInt64(dimension.limit, "slice limit"))
      return false;
    if (consumeIf(TokenKind::Colon) && !parseInt64(dimension.stride, "slice stride"))
      return false;
    if (!expect(TokenKind::RSquare, "expected ']' after a slice dimension"))
      return false;
    slice.push_back(dimension);
    if (consumeIf(TokenKind::Comma))
      continue;
    return expect(TokenKind::RBrace, "expected ',' or '}' in the slice");
  }
}

} // namespace mote::hlo::detail
