// The codelet view's colours, one place for its charts, its key and its names table.
#pragma once

#include <QColor>

#include <cstddef>

namespace topolens::gui::codelet_style {

inline const QColor kTunerColor(255, 190, 40);      // gold: the tuner's choice
inline const QColor kAuditColor(60, 170, 90);       // green: the audit's winner
inline const QColor kOtherColor(150, 180, 225);     // light blue: every other codelet
inline const QColor kOutlierColor(220, 30, 30);     // red: outliers the audit's filters found
inline const QColor kUnflaggedColor(120, 120, 120); // grey: outliers of the box plot only
inline const QColor kGlobalColor(230, 140, 0);      // orange: slow on most processes at once
inline const QColor kWorstColor(200, 0, 0);         // red dashed outline: the worst set
inline const QColor kVerifiedColor(110, 40, 160);   // purple: verification runs' range and mean
inline const QColor kChosenColor(200, 0, 200); // magenta: the chosen codelet (as the topology's)

// Line colours of the measurement series, by position (repeating after twelve).
inline QColor series_color(std::size_t position) {
    static const QColor colors[] = {
        QColor(31, 119, 180),  QColor(255, 127, 14), QColor(44, 160, 44),   QColor(214, 39, 40),
        QColor(148, 103, 189), QColor(140, 86, 75),  QColor(227, 119, 194), QColor(127, 127, 127),
        QColor(188, 189, 34),  QColor(23, 190, 207), QColor(0, 0, 128),     QColor(128, 128, 0)};
    return colors[position % (sizeof colors / sizeof colors[0])];
}

} // namespace topolens::gui::codelet_style
