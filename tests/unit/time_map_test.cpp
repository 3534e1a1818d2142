// The root-cause analysis's time per call path (patterns/time_map.h): a sorted array whose
// first entries live in the map itself. Kept sorted whatever order call paths come in, across
// the move from its own room to the heap; copied and moved in both states; as bytes and back.
#include "patterns/time_map.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include <utility>
#include <vector>

using topolens::patterns::TimeMap;

namespace {

std::vector<std::pair<uint32_t, double>> entries(const TimeMap& map) {
    std::vector<std::pair<uint32_t, double>> out;
    for (const auto& [cp, ticks] : map) out.emplace_back(cp, ticks);
    return out;
}

// Call paths 0, 2, 4, ... 2(n-1) with ticks 10 * call path, added in a scrambled order.
TimeMap scrambled(uint32_t n) {
    TimeMap map;
    for (uint32_t k = 0; k < n; ++k) {
        const uint32_t cp = 2 * ((k * 7) % n);
        map[cp] += 10.0 * cp;
    }
    return map;
}

std::vector<std::pair<uint32_t, double>> expected(uint32_t n) {
    std::vector<std::pair<uint32_t, double>> out;
    for (uint32_t cp = 0; cp < 2 * n; cp += 2) out.emplace_back(cp, 10.0 * cp);
    return out;
}

} // namespace

TEST(TimeMap, SortedWhateverTheOrderInItsOwnRoomAndBeyond) {
    for (uint32_t n : {1u, 5u, 8u, 9u, 13u, 40u}) {
        SCOPED_TRACE(n);
        const TimeMap map = scrambled(n); // n and 7 have no common divisor for these
        EXPECT_EQ(entries(map), expected(n));
        EXPECT_EQ(map.size(), n);
        EXPECT_EQ(map.at(2 * (n - 1)), 20.0 * (n - 1));
        EXPECT_EQ(map.at(1), 0.0);
        EXPECT_EQ(map.find(3), map.end());
    }
    TimeMap map;
    map[5] += 1;
    map[5] += 2; // the last one again
    map[3] += 4; // before it
    map[9] += 8; // after it
    map[3] += 16;
    EXPECT_EQ(entries(map), (std::vector<std::pair<uint32_t, double>>{{3, 20}, {5, 3}, {9, 8}}));
    EXPECT_EQ(map.sum(), 31.0);
}

TEST(TimeMap, CopiedAndMovedInItsOwnRoomAndOnTheHeap) {
    for (uint32_t n : {3u, 8u, 20u}) {
        SCOPED_TRACE(n);
        TimeMap original = scrambled(n);
        TimeMap copy(original);
        EXPECT_EQ(entries(copy), expected(n));
        copy[1] += 1; // the copy is its own
        EXPECT_EQ(entries(original), expected(n));
        TimeMap moved(std::move(original));
        EXPECT_EQ(entries(moved), expected(n));
        EXPECT_TRUE(original.empty()); // NOLINT(bugprone-use-after-move): left empty
        original[4] += 1;              // and usable
        EXPECT_EQ(original.size(), 1u);

        TimeMap assigned = scrambled(30); // on the heap before
        assigned = moved;
        EXPECT_EQ(entries(assigned), expected(n));
        TimeMap& same = assigned;
        assigned = same;
        EXPECT_EQ(entries(assigned), expected(n));
        TimeMap taken = scrambled(2);
        taken = std::move(assigned);
        EXPECT_EQ(entries(taken), expected(n));
        EXPECT_TRUE(taken == moved);
        taken[100] += 1;
        EXPECT_FALSE(taken == moved);
    }
}

TEST(TimeMap, AsBytesAndBackBitForBit) {
    for (uint32_t n : {0u, 4u, 17u}) {
        SCOPED_TRACE(n);
        TimeMap map = scrambled(n);
        if (n > 0) map[0] += 0.1; // a value with no short binary form
        topolens::trace::Bytes bytes;
        topolens::trace::ByteWriter out(bytes);
        map.write(out);
        topolens::trace::ByteReader in(bytes, "a time map");
        const TimeMap back = TimeMap::read(in);
        EXPECT_TRUE(in.done());
        EXPECT_EQ(entries(back), entries(map));
        // The layout is a count, then 4 + 8 bytes per entry, packed.
        EXPECT_EQ(bytes.size(), 4 + 12 * size_t{n});
        if (n == 0) continue;
        // Cut short by one byte: refused by the buffer's name, not read past its end.
        bytes.pop_back();
        topolens::trace::ByteReader cut(bytes, "a time map");
        try {
            TimeMap::read(cut);
            ADD_FAILURE() << "a cut time map was read";
        } catch (const std::logic_error& e) {
            EXPECT_NE(std::string(e.what()).find("a time map"), std::string::npos) << e.what();
        }
    }
}
