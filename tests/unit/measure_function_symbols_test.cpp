// measure/function_symbols.h: code addresses to demangled names, objects and source lines,
// as the compiler instrumentation hooks see them; and the region's line through the
// definitions' serialization.
#include "definitions.h"
#include "function_symbols.h"

#include <gtest/gtest.h>

#include <exception>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace probe {

// On one line: whether the entry address maps to the declarator or to the body's first line
// depends on the optimisation.
// clang-format off
constexpr uint32_t kTwiceLine = __LINE__ + 1;
__attribute__((noinline)) int twice(int x) { return 2 * x; }
// clang-format on

namespace {
// A static function: in .symtab only.
__attribute__((noinline)) int hidden_helper(int x) {
    return x + 1;
}
} // namespace

} // namespace probe

namespace {

using namespace topolens::measure;

std::string this_executable() {
    return std::filesystem::read_symlink("/proc/self/exe").string();
}

TEST(FunctionSymbols, NamesAFunctionOfTheExecutableDemangled) {
    const FunctionSymbol f = resolve_function(reinterpret_cast<const void*>(&probe::twice));
    EXPECT_EQ(f.mangled_name, "_ZN5probe5twiceEi");
    EXPECT_EQ(f.name, "probe::twice(int)");
    EXPECT_EQ(f.object, this_executable());
    // An address inside the function names it too (a caller's return address would).
    const FunctionSymbol inside =
        resolve_function(reinterpret_cast<const char*>(&probe::twice) + 1);
    EXPECT_EQ(inside.name, "probe::twice(int)");
    EXPECT_EQ(inside.object_address, f.object_address + 1);
}

TEST(FunctionSymbols, NamesStaticFunctionsFromTheFullSymbolTable) {
    const FunctionSymbol f = resolve_function(reinterpret_cast<const void*>(&probe::hidden_helper));
    EXPECT_EQ(f.name, "probe::(anonymous namespace)::hidden_helper(int)");
}

TEST(FunctionSymbols, NamesAFunctionOfASharedLibrary) {
    void (*terminate)() = &std::terminate;
    const FunctionSymbol f = resolve_function(reinterpret_cast<const void*>(terminate));
    EXPECT_EQ(f.name, "std::terminate()");
    EXPECT_NE(f.object.find("libstdc++"), std::string::npos) << f.object;
}

TEST(FunctionSymbols, UnknownCodeIsNamedByItsAddress) {
    const FunctionSymbol f = resolve_function(reinterpret_cast<const void*>(0x10));
    EXPECT_EQ(f.mangled_name, "");
    EXPECT_EQ(f.name, "0x10");
    EXPECT_EQ(f.object, "");
}

TEST(FunctionSymbols, DemanglesCxxNamesOnly) {
    EXPECT_EQ(demangle("_ZN5probe5twiceEi"), "probe::twice(int)");
    EXPECT_EQ(demangle("compute"), "compute");
    EXPECT_EQ(demangle("__work_MOD_compute"), "__work_MOD_compute");
    EXPECT_EQ(demangle("_Znot_a_name"), "_Znot_a_name");
}

TEST(FunctionSymbols, SourceFileAndLineFromDebugInformation) {
    const std::vector<SourceLocation> where =
        source_locations({resolve_function(reinterpret_cast<const void*>(&probe::twice)),
                          resolve_function(reinterpret_cast<const void*>(0x10))});
    ASSERT_EQ(where.size(), 2u);
    EXPECT_EQ(std::filesystem::path(where[0].file).filename(), "measure_function_symbols_test.cpp")
        << where[0].file;
    EXPECT_EQ(where[0].line, probe::kTwiceLine);
    EXPECT_EQ(where[1].file, ""); // unknown code: nothing to ask
    EXPECT_EQ(where[1].line, 0u);
}

TEST(FunctionSymbols, EveryFunctionOfAnObject) {
    const std::vector<FunctionSymbol> all = functions_of(this_executable());
    bool found = false;
    for (const FunctionSymbol& f : all) found |= f.mangled_name == "_ZN5probe5twiceEi";
    EXPECT_TRUE(found);
}

TEST(FunctionRegions, SourceAndLineSurviveSerialization) {
    LocalDefinitions definitions;
    RegionDefinition region;
    region.name = "probe::twice(int)";
    region.canonical_name = "_ZN5probe5twiceEi";
    region.role = OTF2_REGION_ROLE_FUNCTION;
    region.paradigm = OTF2_PARADIGM_COMPILER;
    // Two functions of one name stay two regions until their files are known.
    const uint32_t first = definitions.new_region(region);
    const uint32_t second = definitions.new_region(region);
    EXPECT_NE(first, second);
    definitions.set_source(second, "/src/probe.cpp", 42);
    ProcessContribution mine;
    mine.regions = definitions.regions();
    const std::vector<char> bytes = serialize(mine);
    const ProcessContribution back = deserialize(bytes.data(), bytes.size());
    ASSERT_EQ(back.regions.size(), 2u);
    EXPECT_EQ(back.regions[second].source_file, "/src/probe.cpp");
    EXPECT_EQ(back.regions[second].begin_line, 42u);
    EXPECT_EQ(back.regions[first].begin_line, 0u);
    EXPECT_NE(back.regions[first].key(), back.regions[second].key());
}

} // namespace
