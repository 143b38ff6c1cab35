// Basic numeric types shared by every part of fedbench.
#pragma once
#include <Eigen/Dense>
#include <cstdint>

namespace fedbench {

using Vec = Eigen::VectorXd;
using Mat = Eigen::MatrixXd;
using Index = Eigen::Index;

}  // namespace fedbench
