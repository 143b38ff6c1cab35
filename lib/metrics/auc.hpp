// Exact area under the ROC curve: the fraction of (positive, negative) pairs ranked correctly,
// ties counted half (the Mann-Whitney U statistic with midranks), in O(n log n).
#pragma once
#include <span>

namespace fedbench::metrics {

//! labels > 0 are positive. Returns NaN without both classes; 0 if any score is not finite
//! (the convention of the code of J. Xie et al., arXiv 2105.14216, 2021, for a diverged model).
double exact_auc(std::span<const double> scores, std::span<const double> labels);

}  // namespace fedbench::metrics
