// The process group a suite runs on: one process, or the ranks of `mpirun -np N`. Built with
// OpenMPI when CMake finds it (FEDBENCH_WITH_MPI); MPI is initialised only when the process
// was started by mpirun, so a plain `fedbench` never pays for it.
#pragma once

namespace fedbench::suite {

class MpiWorld {
 public:
  //! Initialises MPI if launched by mpirun (and built with MPI); finalises on destruction.
  MpiWorld(int* argc, char*** argv);
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  void barrier() const;
  //! Sum of `value` over all ranks (every rank gets it).
  long long sum(long long value) const;
  static bool built_with_mpi();

 private:
  int rank_ = 0, size_ = 1;
  bool active_ = false;
};

//! The world of this process (set by main; a single-process world by default).
const MpiWorld& world();
void set_world(const MpiWorld* w);

}  // namespace fedbench::suite
