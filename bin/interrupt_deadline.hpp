// The first Ctrl-C or SIGTERM asks a command to stop: the loops that can stop cleanly (a
// suite between rounds, a wait on the screen) notice it, remove what they had begun and say how
// to resume. A loop that cannot notice it (a plug-in's hook that never returns, a long
// computation between checks) would make that first signal a no-op; past a grace period the
// process therefore dies by the signal, as without a handler. Nothing is lost: every file
// fedbench writes survives a SIGKILL at any moment (a .part is cleared by the next command).
#pragma once
#include <chrono>

namespace fedbench::cli {

//! The grace a command has to end on its own after the first signal.
inline constexpr std::chrono::seconds kInterruptGrace{5};

//! Starts the watcher (a detached thread that sleeps between looks at the pending signal).
void start_interrupt_deadline(std::chrono::milliseconds grace = kInterruptGrace);

}  // namespace fedbench::cli
