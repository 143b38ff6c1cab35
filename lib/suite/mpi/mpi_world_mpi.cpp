// MpiWorld with OpenMPI (FEDBENCH_WITH_MPI builds).
#include <mpi.h>

#include <cstdlib>

#include "suite/mpi_world.hpp"

namespace fedbench::suite {

MpiWorld::MpiWorld(int* argc, char*** argv) {
  // Only under mpirun (singleton MPI_Init is slow and noisy in containers), and only for the
  // world main() creates (argc given), never for the default single-process world.
  if (!argc) return;
  if (!std::getenv("OMPI_COMM_WORLD_SIZE") && !std::getenv("PMI_SIZE")) return;
  MPI_Init(argc, argv);
  active_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiWorld::~MpiWorld() {
  if (active_) MPI_Finalize();
}

void MpiWorld::barrier() const {
  if (active_) MPI_Barrier(MPI_COMM_WORLD);
}

long long MpiWorld::sum(long long value) const {
  if (!active_) return value;
  long long total = 0;
  MPI_Allreduce(&value, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

bool MpiWorld::built_with_mpi() { return true; }

}  // namespace fedbench::suite
