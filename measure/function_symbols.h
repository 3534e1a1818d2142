// Names of the program's own functions from their code addresses, for compiler
// instrumentation (-finstrument-functions hands us addresses only): the ELF symbol tables
// of the executable and of every loaded shared object, demangled; source file and line
// from the objects' debug information where they have it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace topolens::measure {

struct FunctionSymbol {
    std::string mangled_name;     // as in the symbol table; empty when no symbol covers it
    std::string name;             // demangled (the mangled name when it is not a C++ name)
    std::string object;           // path of the executable or shared object holding the code
    uintptr_t object_address = 0; // the address as the object's file sees it (for addr2line)
};

// The function whose code starts at (or holds) `address` in this process. Symbol tables are
// read once per object (.symtab, else .dynsym). Unknown code gets the name "0x<address>".
FunctionSymbol resolve_function(const void* address);

// Every function symbol of a loaded object (names not demangled), e.g. to find the source
// files of all of them with one source_locations call.
std::vector<FunctionSymbol> functions_of(const std::string& object);

// abi::__cxa_demangle, or the name itself when it is not a mangled C++ name.
std::string demangle(const std::string& mangled);

// Source file and line of functions, from their objects' debug information, found by one
// run of binutils' addr2line per object (its path in `addr2line`, default "addr2line").
// Result i belongs to functions[i]; file empty and line 0 when the object does not know.
struct SourceLocation {
    std::string file;
    uint32_t line = 0;
};
std::vector<SourceLocation> source_locations(const std::vector<FunctionSymbol>& functions);

} // namespace topolens::measure
