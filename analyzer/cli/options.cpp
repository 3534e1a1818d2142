#include "analyzer/cli/options.h"

#include "analyzer/cli/commands.h"

#include <iostream>

namespace topolens::cli {

int report_usage_error(const UsageError& error, const std::string& prefix,
                       void (*usage)(std::ostream&)) {
    if (!error.message.empty()) print_error(prefix + error.message);
    if (error.show_usage) usage(std::cerr);
    return kExitUsage;
}

OptionParser& OptionParser::flag(std::initializer_list<const char*> names,
                                 std::function<void()> action) {
    specs_.push_back({{names.begin(), names.end()}, false, {}, std::move(action), nullptr});
    return *this;
}

OptionParser& OptionParser::option(std::initializer_list<const char*> names, Action action,
                                   Value value) {
    specs_.push_back(
        {{names.begin(), names.end()}, true, std::move(value), nullptr, std::move(action)});
    return *this;
}

OptionParser& OptionParser::help() {
    help_ = true;
    return *this;
}

OptionParser& OptionParser::positional(Action action) {
    positional_ = std::move(action);
    return *this;
}

OptionParser& OptionParser::unknown(Action action) {
    unknown_ = std::move(action);
    return *this;
}

OptionParser& OptionParser::separator(std::function<void(const std::vector<std::string>&)> action) {
    separator_ = std::move(action);
    return *this;
}

bool OptionParser::parse(const std::vector<std::string>& args) const {
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (separator_ && a == "--") {
            separator_({args.begin() + static_cast<long>(i) + 1, args.end()});
            return false;
        }
        if (help_ && (a == "-h" || a == "--help")) return true;
        const Spec* found = nullptr;
        bool inline_value = false;
        for (const Spec& spec : specs_) {
            for (const std::string& name : spec.names) {
                if (a == name) {
                    found = &spec;
                } else if (spec.takes_value && spec.value.equals &&
                           a.compare(0, name.size() + 1, name + "=") == 0) {
                    found = &spec;
                    inline_value = true;
                }
                if (found) break;
            }
            if (found) break;
        }
        if (found && !found->takes_value) {
            found->on_flag();
        } else if (found && inline_value) {
            found->on_value(a.substr(a.find('=') + 1));
        } else if (found) {
            if (i + 1 >= args.size() || (separator_ && args[i + 1] == "--"))
                throw UsageError{found->value.missing.empty() ? a + " needs a value"
                                                              : found->value.missing,
                                 found->value.show_usage};
            found->on_value(args[++i]);
        } else if (!a.empty() && a[0] == '-') {
            if (!unknown_) throw UsageError{"unknown option '" + a + "'"};
            unknown_(a);
        } else {
            if (!positional_) throw UsageError{"unexpected argument '" + a + "'"};
            positional_(a);
        }
    }
    return false;
}

std::optional<int> OptionParser::run(const std::vector<std::string>& args,
                                     const std::string& prefix, void (*usage)(std::ostream&),
                                     const std::function<void()>& check) const {
    try {
        if (parse(args)) {
            usage(std::cout);
            return kExitOk;
        }
        if (check) check();
    } catch (const UsageError& e) {
        return report_usage_error(e, prefix, usage);
    }
    return std::nullopt;
}

OptionParser::Action OptionParser::single(std::string& target, const std::string& what,
                                          bool show_usage) {
    return [&target, what, show_usage](const std::string& a) {
        if (!target.empty())
            throw UsageError{"more than one " + what + " given ('" + target + "', '" + a + "')",
                             show_usage};
        target = a;
    };
}

} // namespace topolens::cli
