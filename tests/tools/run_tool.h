// Runs a built tool (zsbench, zsctl) as a user would, in a shell, and
// captures what it printed and how it exited. Every run is bounded by
// `timeout`, so a tool that would run forever fails its test instead.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace zonestack::tools_test {

struct ToolRun {
  int exit_code = -1;  // 124: killed by timeout; 128+N: killed by signal N
  std::string out, err;
};

// `s` single-quoted for the shell: URIs carry '&' and '?'.
inline std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline std::string ReadAll(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `binary args` (args already quoted where needed) for at most
// `seconds`.
inline ToolRun RunTool(const std::string& binary, const std::string& args, int seconds = 20) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                    ("tool_run_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string cmd = "timeout -k 2 " + std::to_string(seconds) + " " + Quote(binary) +
                          " " + args + " >" + Quote((dir / "out").string()) + " 2>" +
                          Quote((dir / "err").string());
  const int status = std::system(cmd.c_str());
  ToolRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadAll(dir / "out");
  r.err = ReadAll(dir / "err");
  return r;
}

inline std::string Describe(const ToolRun& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

}  // namespace zonestack::tools_test
