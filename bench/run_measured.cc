// run_measured COMMAND [ARGS...]: runs the command (its output to /dev/null) and prints
// "WALL_S CPU_S PEAK_RSS_BYTES EXIT_STATUS USER_S" on one line (CPU_S: user and system time;
// USER_S: user time alone, without the kernel's, such as zeroing the pages it hands out).
//
// The peak resident memory of a process counts the memory it held before it became the
// command: a child that Python forks to run it starts as large as the interpreter (tens of
// MB, more than a small command's own peak). Started from this small program, a command's
// peak is its own.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: run_measured COMMAND [ARGS...]\n");
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  const pid_t child = fork();
  if (child < 0) {
    std::perror("run_measured: fork");
    return 2;
  }
  if (child == 0) {
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, 1);
      dup2(null, 2);
    }
    execvp(argv[1], argv + 1);
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (wait4(child, &status, 0, &usage) < 0) {
    std::perror("run_measured: wait4");
    return 2;
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  const double user = seconds(usage.ru_utime);
  const double cpu = user + seconds(usage.ru_stime);
  const int exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::printf("%.6f %.6f %lld %d %.6f\n", wall, cpu,
              static_cast<long long>(usage.ru_maxrss) * 1024, exit_status, user);
  return 0;
}
