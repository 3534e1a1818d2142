// The one parser of the subcommands' arguments: flags, options with a value ("--name VALUE",
// and "--name=VALUE" where the option allows it), positional arguments, and "--" before a
// program's own arguments. Bad usage is a UsageError, which each command reports with
// report_usage_error (exit status kExitUsage).
#pragma once

#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace topolens::cli {

// Bad usage. `message` (none: only the usage text) goes to stderr as an error; the command's
// usage text follows it when `show_usage`.
struct UsageError {
    std::string message;
    bool show_usage = true;
};

// Prints `error` as "topolens: error: <prefix><message>", then, when the error asks for it,
// `usage` to stderr; returns kExitUsage.
int report_usage_error(const UsageError& error, const std::string& prefix,
                       void (*usage)(std::ostream&));

// What an option with a value accepts, and says when its value is missing.
struct OptionValue {
    bool equals = false;    // "--name=VALUE" too
    std::string missing;    // the message; default "<name> needs a value"
    bool show_usage = true; // whether the usage text follows that message
};

class OptionParser {
  public:
    using Action = std::function<void(const std::string&)>;

    using Value = OptionValue;

    // An option without a value.
    OptionParser& flag(std::initializer_list<const char*> names, std::function<void()> action);
    // An option with a value: the next argument (or, with Value::equals, the text after '=').
    OptionParser& option(std::initializer_list<const char*> names, Action action, Value value = {});
    // -h and --help: parse stops and returns true.
    OptionParser& help();
    // Every argument that is not an option (default: UsageError "unexpected argument").
    OptionParser& positional(Action action);
    // Arguments that start with '-' but are no option (default: UsageError "unknown option").
    OptionParser& unknown(Action action);
    // "--" ends the options; `action` receives the arguments after it. An option's value may
    // not be "--" then.
    OptionParser& separator(std::function<void(const std::vector<std::string>&)> action);

    // Throws UsageError. True when help was asked for (the rest is not parsed).
    bool parse(const std::vector<std::string>& args) const;

    // A command's parse: `args`, then `check` (may throw UsageError). nullopt to go on, else
    // the exit status: kExitOk after printing `usage` to stdout when help was asked for,
    // kExitUsage after report_usage_error(error, prefix, usage).
    std::optional<int> run(const std::vector<std::string>& args, const std::string& prefix,
                           void (*usage)(std::ostream&),
                           const std::function<void()>& check = {}) const;

    // A positional action that keeps the first argument in `target` and refuses a second one:
    // "more than one <what> given ('<first>', '<second>')".
    static Action single(std::string& target, const std::string& what, bool show_usage);

  private:
    struct Spec {
        std::vector<std::string> names;
        bool takes_value = false;
        Value value;
        std::function<void()> on_flag;
        Action on_value;
    };
    std::vector<Spec> specs_;
    bool help_ = false;
    Action positional_, unknown_;
    std::function<void(const std::vector<std::string>&)> separator_;
};

} // namespace topolens::cli
