// The snapshot's spill file (issue 25, SnapshotSpill): the rows come back
// in the order added with every cell kind as it was, in chunks of the size
// asked for; a second snapshot forgets the first.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "sluice/pipeline/snapshot_spill.hpp"

namespace sluice::pipeline {
namespace {

using V = SourceValue;

std::string text(const SourceValue& v) {
    switch (v.kind) {
        case V::Kind::null: return "NULL";
        case V::Kind::signed_integer: return "i" + std::to_string(v.i);
        case V::Kind::unsigned_integer: return "u" + std::to_string(v.u);
        case V::Kind::floating: return "d" + std::to_string(v.d);
        case V::Kind::text: return "'" + std::string(v.text) + "'";
    }
    return "?";
}

std::string text(const SourceChange& c) {
    std::string s;
    for (const SourceValue& v : *c.after) s += text(v) + " ";
    return s;
}

// Rows with every kind of cell, texts of every length from empty on.
std::vector<std::string> add_rows(SnapshotSpill& spill, int n, const std::string& tag) {
    std::vector<std::string> added;
    std::vector<std::string> texts;  // the cells' bytes, alive while added
    texts.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        texts.push_back(tag + std::string(static_cast<std::size_t>(i % 37), 'x'));
        RowImage row = {i % 5 == 0 ? V::of_unsigned(std::numeric_limits<std::uint64_t>::max() - static_cast<std::uint64_t>(i))
                                   : V::of_signed(-i),
                        i % 7 == 0 ? V::of_text("") : V::of_text(texts.back()), i % 11 == 0 ? V::null_value() : V::of_signed(i),
                        V::of_double(i * 0.25)};
        const SourceChange c{SourceChange::Op::insert, std::nullopt, row};
        spill.add(c);
        added.push_back(text(c));
    }
    return added;
}

TEST(SnapshotSpill, RowsComeBackInOrderWithEveryCellAsAddedInChunksOfTheSizeAsked) {
    SnapshotSpill spill;
    spill.begin();
    const std::vector<std::string> added = add_rows(spill, 1000, "k");
    EXPECT_EQ(spill.rows(), 1000U);
    for (std::size_t chunk : {1U, 7U, 999U, 1000U, 5000U}) {
        SCOPED_TRACE("chunks of " + std::to_string(chunk));
        std::vector<std::string> back;
        std::size_t chunks = 0;
        spill.read_back(chunk, [&](std::span<const SourceChange> rows) {
            EXPECT_LE(rows.size(), chunk);
            for (const SourceChange& c : rows) back.push_back(text(c));
            ++chunks;
        });
        EXPECT_EQ(back, added);
        EXPECT_EQ(chunks, (1000 + chunk - 1) / chunk);
    }
}

TEST(SnapshotSpill, ASecondSnapshotForgetsTheFirstAndAnEmptyOneReadsNothing) {
    SnapshotSpill spill;
    spill.read_back(10, [](std::span<const SourceChange>) { FAIL() << "no snapshot began"; });
    spill.begin();
    (void)add_rows(spill, 300, "first");
    spill.begin();
    spill.read_back(10, [](std::span<const SourceChange>) { FAIL() << "the second snapshot has no rows"; });
    const std::vector<std::string> added = add_rows(spill, 20, "second");
    std::vector<std::string> back;
    spill.read_back(8, [&](std::span<const SourceChange> rows) {
        for (const SourceChange& c : rows) back.push_back(text(c));
    });
    EXPECT_EQ(back, added);
}

TEST(SnapshotSpill, OnlyInsertsAreSnapshotRows) {
    SnapshotSpill spill;
    spill.begin();
    const RowImage row = {V::of_signed(1), V::of_text("k"), V::of_signed(1), V::of_double(1)};
    EXPECT_THROW(spill.add(SourceChange{SourceChange::Op::remove, row, std::nullopt}), std::logic_error);
}

}  // namespace
}  // namespace sluice::pipeline
