//===- MemoryPlanSvg.cpp - motec report --memory: the arena as a picture --===//
///
/// \file
/// An SVG of the memory plan (ReportPictures.h states what is drawn): one
/// bar per arena buffer over the schedule steps it is live, at its offset.
/// Each bar carries a tooltip (its values, offset, size and steps) and, when
/// it is wide and tall enough, the name of its first value.
///
//===----------------------------------------------------------------------===//

#include "ReportPictures.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace mote::tools {

namespace {

// Page geometry, in SVG units (pixels).
constexpr double kWidth = 1000, kPlotLeft = 90, kPlotRight = 190, kTop = 50, kPlotHeight = 460;
constexpr double kBottom = 60;

/// Text for SVG content: &, < and > escaped.
std::string escaped(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

/// A step on an axis of `count` steps such that about `ticks` ticks show.
uint64_t tickStep(uint64_t count, uint64_t ticks) {
  uint64_t step = 1;
  while (count / step > ticks)
    step *= step % 3 == 1 ? 2 : 5; // 1, 2, 10, 20, 100...
  return step;
}

// Bars cycle through colours that tell neighbours apart.
const char *const kColours[] = {"#6d9eeb", "#f6b26b", "#93c47d", "#e06666",
                                "#8e7cc3", "#76a5af", "#ffd966", "#c27ba0"};

} // namespace

std::string writeMemoryPlanSvg(const hlo::Module &module,
                               const passes::BufferAssignment &assignment) {
  const auto &buffers = assignment.buffers();
  uint32_t steps = 1;
  for (const passes::ArenaBuffer &buffer : buffers)
    steps = std::max(steps, buffer.end + 1);
  const uint64_t arena = assignment.arenaSize(), bound = assignment.lowerBound();
  const uint64_t top = std::max<uint64_t>({arena, bound, 1});
  const double plotWidth = kWidth - kPlotLeft - kPlotRight;
  const double height = kTop + kPlotHeight + kBottom;
  auto x = [&](double step) { return kPlotLeft + plotWidth * step / steps; };
  auto y = [&](double offset) { return kTop + kPlotHeight * (1 - offset / double(top)); };

  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                     "viewBox=\"0 0 %.0f %.0f\" font-family=\"Helvetica, Arial, sans-serif\" "
                     "font-size=\"11\">\n",
                     kWidth, height, kWidth, height)
     << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
     << llvm::format("<text x=\"%.0f\" y=\"22\" font-size=\"14\" font-weight=\"bold\">", kPlotLeft)
     << escaped(module.name()) << ": memory plan, " << buffers.size() << " buffers in a "
     << formatBytes(arena) << " arena (lower bound " << formatBytes(bound) << ")</text>\n"
     << llvm::format("<text x=\"%.0f\" y=\"38\" fill=\"#555\">", kPlotLeft)
     << "each bar: a buffer, from the step that writes it to the last that reads it, at its "
        "offset in the arena</text>\n";

  // Axes, ticks and grid.
  os << llvm::format("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fafafa\" "
                     "stroke=\"#999\"/>\n",
                     kPlotLeft, kTop, plotWidth, kPlotHeight);
  for (uint64_t step = 0, every = tickStep(steps, 12); step <= steps; step += every)
    os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                       "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%llu</text>\n",
                       x(step), kTop, x(step), kTop + kPlotHeight, x(step), kTop + kPlotHeight + 15,
                       (unsigned long long)step);
  uint64_t every = tickStep(top, 8);
  for (uint64_t offset = 0; offset <= top; offset += every)
    os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                       "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
                       kPlotLeft, y(offset), kPlotLeft + plotWidth, y(offset), kPlotLeft - 6,
                       y(offset) + 4)
       << formatBytes(offset) << "</text>\n";
  os << llvm::format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">schedule step (ops in "
                     "the order they run)</text>\n",
                     kPlotLeft + plotWidth / 2, kTop + kPlotHeight + 36)
     << llvm::format("<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\">"
                     "arena offset</text>\n",
                     kTop + kPlotHeight / 2);

  // One bar per buffer.
  for (size_t i = 0; i < buffers.size(); ++i) {
    const passes::ArenaBuffer &buffer = buffers[i];
    std::string values;
    for (const auto &[instruction, leaf] : buffer.values)
      values += (values.empty() ? "%" : ", %") + instruction->name().str() +
                (instruction->shape().isTuple() ? "#" + std::to_string(leaf) : "");
    double x0 = x(buffer.start), x1 = x(buffer.end + 1);
    double y0 = y(double(buffer.offset + buffer.size)), y1 = y(double(buffer.offset));
    os << llvm::format("<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" "
                       "fill-opacity=\"0.85\" stroke=\"#333\" stroke-width=\"0.6\">",
                       x0, y0, std::max(x1 - x0, 0.5), std::max(y1 - y0, 0.5),
                       kColours[i % (sizeof kColours / sizeof kColours[0])])
       << "<title>" << escaped(values) << "\noffset " << buffer.offset << ", " << buffer.size
       << " bytes, live at steps " << buffer.start << ".." << buffer.end << "</title></rect>\n";
    std::string label = buffer.values.empty() ? "" : buffer.values.front().first->name().str();
    if (buffer.values.size() > 1)
      label += " +" + std::to_string(buffer.values.size() - 1);
    if (x1 - x0 > 6.5 * label.size() && y1 - y0 > 13)
      os << llvm::format("<text x=\"%.2f\" y=\"%.2f\" font-size=\"10\">", x0 + 3, (y0 + y1) / 2 + 4)
         << escaped(label) << "</text>\n";
  }

  // The lower bound and the arena's end.
  auto level = [&](uint64_t offset, const char *colour, const char *dash, const std::string &what) {
    os << llvm::format("<line x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\" stroke=\"%s\" "
                       "stroke-width=\"1.5\" stroke-dasharray=\"%s\"/>"
                       "<text x=\"%.1f\" y=\"%.2f\" fill=\"%s\">",
                       kPlotLeft, y(offset), kPlotLeft + plotWidth + 4, y(offset), colour, dash,
                       kPlotLeft + plotWidth + 8, y(offset) + 4, colour)
       << escaped(what) << "</text>\n";
  };
  if (arena == bound) {
    level(bound, "#cc0000", "6,4", "arena = lower bound");
  } else {
    level(arena, "#333333", "none", "arena " + formatBytes(arena));
    level(bound, "#cc0000", "6,4", "lower bound " + formatBytes(bound));
  }
  os << "</svg>\n";
  return std::move(os.str());
}

} // namespace mote::tools
