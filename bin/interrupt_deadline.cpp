#include "interrupt_deadline.hpp"

#include <signal.h>
#include <unistd.h>

#include <thread>

#include "core/interrupt.hpp"

namespace fedbench::cli {

void start_interrupt_deadline(std::chrono::milliseconds grace) {
  std::thread([grace] {
    constexpr auto kLook = std::chrono::milliseconds(100);
    int signal = 0;
    while ((signal = interrupt_signal()) == 0) std::this_thread::sleep_for(kLook);
    std::this_thread::sleep_for(grace);  // the command, still running: it did not notice
    static const char kLine[] = "fedbench: still running after the signal's grace period; stopping now\n";
    [[maybe_unused]] const auto written = ::write(STDERR_FILENO, kLine, sizeof kLine - 1);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(signal, &dfl, nullptr);
    ::kill(::getpid(), signal);  // the process, not this thread: it ends as the signal's default does
  }).detach();
}

}  // namespace fedbench::cli
