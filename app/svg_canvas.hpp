// The small SVG canvas of `ciosim plan --svg` (iec_svg.cpp, multiple_phase_svg.cpp): boxes and text on a
// white page, plain SVG written here (deterministic, no dependency).
#pragma once

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace ciosim::app::svg {

/// Light colours, one per rank (the tab10 palette's pale half, then repeated).
inline constexpr const char* kPalette[] = {"#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5",
                                           "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5"};

inline const char* rank_colour(int rank) {
  return kPalette[static_cast<std::size_t>(rank) % 10];
}

inline std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '&')
      o += "&amp;";
    else if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else
      o += c;
  }
  return o;
}

struct Canvas {
  std::ostringstream body;
  int cell = 22;
  int label_w = 40;
  int right = 0;  ///< the rightmost pixel any text may reach (estimated: 0.62 em per character)
  void text(int x, int y, const std::string& s, int size = 11, const char* anchor = "start",
            const char* weight = "normal") {
    if (std::string_view(anchor) == "start")
      right = std::max(
          right, x + static_cast<int>(static_cast<double>(s.size() * static_cast<std::size_t>(size)) * 0.62));
    body << "<text x=\"" << x << "\" y=\"" << y << "\" font-size=\"" << size << "\" text-anchor=\"" << anchor
         << "\" font-weight=\"" << weight << "\">" << esc(s) << "</text>\n";
  }
  /// Lines of small text from (x, y) down, 14 pixels apart; returns the y below the last.
  int notes(int x, int y, const std::vector<std::string>& lines) {
    for (const std::string& l : lines) {
      text(x, y, l, 10);
      y += 14;
    }
    return y;
  }
  /// A cell at (x, y): `fill`, outlined in red when `outlined`, showing `value` unless it is negative.
  void box(int x, int y, const char* fill, bool outlined, std::int64_t value) {
    body << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << cell << "\" height=\"" << cell
         << "\" fill=\"" << fill << "\" stroke=\"" << (outlined ? "#b00000" : "#888888")
         << "\" stroke-width=\"" << (outlined ? "2.5" : "0.6") << "\"/>\n";
    if (value >= 0)
      text(x + cell / 2, y + cell / 2 + 4, std::to_string(value), cell >= 20 ? 10 : 7, "middle");
  }
  /// The whole document, `width` (at least what the text reaches) by `height` pixels.
  std::string document(int width, int height, int margin) const {
    width = std::max(width, right) + margin;
    std::ostringstream svg;
    svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
        << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"DejaVu Sans, sans-serif\">\n"
        << "<rect x=\"0\" y=\"0\" width=\"" << width << "\" height=\"" << height << "\" fill=\"#ffffff\"/>\n"
        << body.str() << "</svg>\n";
    return svg.str();
  }
};

}  // namespace ciosim::app::svg
