#include "problem/evaluation_threads.hpp"

namespace fedbench {

namespace {
thread_local ThreadPool* evaluation_pool = nullptr;
thread_local double evaluation_share_above = kEvaluationPartWorthSharing;
thread_local EvaluationThreads::Sharing evaluation_sharing = EvaluationThreads::Sharing::unknown;
}  // namespace

EvaluationThreads::EvaluationThreads(ThreadPool* pool, double share_above)
    : previous_{evaluation_pool, evaluation_share_above, evaluation_sharing} {
  evaluation_pool = pool;
  evaluation_share_above = share_above;
  evaluation_sharing = Sharing::unknown;
}

EvaluationThreads::~EvaluationThreads() {
  evaluation_pool = previous_.pool;
  evaluation_share_above = previous_.share_above;
  evaluation_sharing = previous_.sharing;
}

ThreadPool* EvaluationThreads::current() { return evaluation_pool; }

double EvaluationThreads::current_share_above() { return evaluation_share_above; }

EvaluationThreads::Sharing EvaluationThreads::sharing() { return evaluation_sharing; }

void EvaluationThreads::measured(double first_part_seconds) {
  evaluation_sharing = first_part_seconds >= evaluation_share_above ? Sharing::yes : Sharing::no;
}

}  // namespace fedbench
