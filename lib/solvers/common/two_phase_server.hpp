// The server side of two-phase rounds on one client set (SAGDA, CD-MAGE, Catalyst-Scaffold-S):
// a collection phase in which clients upload gradients at the server model and the server
// averages them into a global estimate (v_t, w_t), then an update phase in which the server
// broadcasts the model with that estimate, clients run corrected local steps and upload their
// local models, and the server moves to their average with its global rates.
// Uploads carry one vector named `payload` in both phases.
#pragma once
#include <span>

#include "engine/context.hpp"
#include "engine/message.hpp"
#include "solvers/common/server_rates.hpp"

namespace fedbench::solvers {

class TwoPhaseServer {
 public:
  //! Fills the broadcast: the model always, the estimate when `send_estimate`.
  void broadcast(const ServerCtx& s, bool send_estimate, Vec& model, OptionalVec& estimate) const {
    model = s.model();
    estimate.sent = send_estimate;
    if (send_estimate) estimate.value = estimate_;
  }

  //! Collection phase: estimate <- mean(uploads), or with `keep` (a momentum weight, used once
  //! an estimate exists) estimate <- keep * estimate + mean(uploads).
  template <class Up>
  void collect(std::span<const Up> uploads, std::optional<double> keep = std::nullopt) {
    if (!keep) {
      mean_into(uploads, &Up::payload, estimate_);
      return;
    }
    mean_into(uploads, &Up::payload, mean_);
    estimate_ = *keep * estimate_ + mean_;
  }

  //! Update phase: x <- (1 - eta_x) x + eta_x xbar and y likewise, from the mean of the
  //! uploaded local models (rates 1: the plain average, bit for bit).
  template <class Up>
  void update(ServerCtx& s, std::span<const Up> uploads, double eta_x, double eta_y) {
    mean_into(uploads, &Up::payload, mean_);
    apply_server_rates(s.model(), mean_, s.dim_x(), eta_x, eta_y);
  }

  const Vec& estimate() const { return estimate_; }

 private:
  Vec estimate_, mean_;
};

}  // namespace fedbench::solvers
