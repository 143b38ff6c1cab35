// Refuses an instance that cannot fit before anything is allocated: the message names the
// parameters that set its size and the memory it would need.
#pragma once
#include <string>
#include <unistd.h>

#include "core/error.hpp"
#include "core/text.hpp"

namespace fedbench::problems {

//! Physical memory of this machine in bytes (0 when unknown).
inline double physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
}

//! Throws when `doubles` numbers (counted as doubles) exceed the machine's memory.
inline void check_fits(const std::string& owner, const std::string& sizes, double doubles) {
  const double bytes = 8 * doubles, have = physical_memory();
  if (have > 0 && bytes > have)
    throw UserError(owner + ": " + sizes + " need " + format_real(bytes) + " bytes of memory, this machine has " +
                    format_real(have) + "; use smaller sizes");
}

}  // namespace fedbench::problems
