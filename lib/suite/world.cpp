#include "suite/mpi_world.hpp"

namespace fedbench::suite {

namespace {
const MpiWorld*& current() {
  static const MpiWorld* w = nullptr;
  return w;
}
}  // namespace

const MpiWorld& world() {
  static MpiWorld single(nullptr, nullptr);
  return current() ? *current() : single;
}

void set_world(const MpiWorld* w) { current() = w; }

}  // namespace fedbench::suite
