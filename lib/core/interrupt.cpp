#include "core/interrupt.hpp"

#include <signal.h>

#include <atomic>

namespace fedbench {

namespace {

std::atomic<int> received{0};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler stores into it");

extern "C" void on_signal(int signal) { received.store(signal, std::memory_order_relaxed); }

void install(int signal) {
  struct sigaction old {};
  if (sigaction(signal, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) return;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  // SA_RESETHAND: a second Ctrl-C kills at once. SA_RESTART: reads and writes in progress
  // continue; blocking waits that must notice the signal check for EINTR themselves.
  action.sa_flags = SA_RESETHAND | SA_RESTART;
  sigaction(signal, &action, nullptr);
}

}  // namespace

void install_interrupt_handlers() {
  install(SIGINT);
  install(SIGTERM);
}

int interrupt_signal() { return received.load(std::memory_order_relaxed); }

const char* interrupt_word() { return interrupt_signal() == SIGTERM ? "terminated" : "interrupted"; }

void throw_if_interrupted() {
  if (interrupt_signal()) throw Interrupted(interrupt_word());
}

int interrupt_exit_code() {
  const int signal = interrupt_signal();
  return 128 + (signal ? signal : SIGINT);
}

}  // namespace fedbench
