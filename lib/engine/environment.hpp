// The machine and build a run ran on (CPU, cores, threads, ranks, library versions), recorded
// with every run so that timings are read with their context.
#pragma once
#include "engine/trajectory.hpp"

namespace fedbench {

//! This process's environment for a run with `threads` threads and `mpi_ranks` ranks. The
//! HDF5 version is left to the file writer, the only layer that links HDF5.
RunEnvironment current_environment(int threads, int mpi_ranks);

}  // namespace fedbench
