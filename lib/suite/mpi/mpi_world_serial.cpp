// MpiWorld without MPI: always one process.
#include "suite/mpi_world.hpp"

namespace fedbench::suite {

MpiWorld::MpiWorld(int*, char***) {}
MpiWorld::~MpiWorld() = default;
void MpiWorld::barrier() const {}
long long MpiWorld::sum(long long value) const { return value; }
bool MpiWorld::built_with_mpi() { return false; }

}  // namespace fedbench::suite
