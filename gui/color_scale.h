// The colour scale shared by the tree panes' colour squares, the topology cells and the
// topology legend: blue (low end of the range) through cyan, green and yellow to red (high
// end). Zero is not on the scale: it shows the background (cell not filled), so that a
// process that never waited disappears; a value that is not zero but too small to tell
// from zero on the scale (near zero) shows dark grey, so that it is not mistaken for zero.
#pragma once

namespace topolens::gui {

struct Rgb {
    double r = 0.0, g = 0.0, b = 0.0; // 0..1
};

// Colour of `fraction` (clamped to 0..1) of the scale: 0 = blue, 1 = red.
Rgb scale_color(double fraction);

// White: the topology's background, which is also the colour of zero.
inline constexpr Rgb kBackground{1.0, 1.0, 1.0};
inline constexpr Rgb kNearZero{0.25, 0.25, 0.25};
// Root-cause arrows: violet, on no part of the scale and apart from white, the dark grey of
// near-zero cells and the magenta of the highlight.
inline constexpr Rgb kWaitArrow{0.55, 0.2, 0.95};

// A value is "near zero" when it is not zero but below this share of the scale's largest
// absolute value (0.5%: one step of a 200-colour scale).
inline constexpr double kNearZeroShare = 0.005;

enum class ValueClass { Zero, NearZero, OnScale };
// `scale_max`: the largest absolute value of the scale in use (the upper end of the range).
ValueClass classify(double value, double scale_max);

// Where `value` lies in [low, high] (0..1, clamped); 1 when the range is empty.
double scale_fraction(double value, double low, double high);

} // namespace topolens::gui
