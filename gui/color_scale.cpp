#include "gui/color_scale.h"

#include <algorithm>
#include <cmath>

namespace topolens::gui {

Rgb scale_color(double fraction) {
    // Hue from 240° (blue) down to 0° (red) at full saturation and value: the classic
    // "rainbow" of CUBE's topology view, whose ends are pure blue and pure red.
    const double f = std::clamp(fraction, 0.0, 1.0);
    const double hue = (1.0 - f) * 4.0; // 4 = blue, 3 = cyan, 2 = green, 1 = yellow, 0 = red
    const int sector = std::min(3, static_cast<int>(std::floor(hue)));
    const double t = hue - sector; // 0..1 inside the sector
    switch (sector) {
    case 0:
        return {1.0, t, 0.0}; // red -> yellow
    case 1:
        return {1.0 - t, 1.0, 0.0}; // yellow -> green
    case 2:
        return {0.0, 1.0, t}; // green -> cyan
    default:
        return {0.0, 1.0 - t, 1.0}; // cyan -> blue
    }
}

ValueClass classify(double value, double scale_max) {
    if (value == 0.0) return ValueClass::Zero;
    if (scale_max > 0.0 && std::abs(value) < kNearZeroShare * scale_max)
        return ValueClass::NearZero;
    return ValueClass::OnScale;
}

double scale_fraction(double value, double low, double high) {
    if (!(high > low)) return 1.0;
    return std::clamp((value - low) / (high - low), 0.0, 1.0);
}

} // namespace topolens::gui
