// Checks on command-line values that every subcommand shares, run by CLI11 while it parses (before any
// command starts).
#include <CLI/CLI.hpp>

#include "app/commands.hpp"

namespace ciosim::app {

CLI::Option* nonempty(CLI::Option* opt, const std::string& valid) {
  const std::string name = opt->get_name();
  // A ParseError, not the string a validator returns: CLI11 would prefix that with "NAME: ", and main prints
  // a ParseError as the one line it holds.
  opt->check(CLI::Validator(
      [name, valid](std::string& value) {
        if (value.empty())
          throw CLI::ParseError(name + " is empty; give " + valid, CLI::ExitCodes::ValidationError);
        return std::string();
      },
      ""));
  return opt;
}

}  // namespace ciosim::app
