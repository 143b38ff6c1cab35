// The communication pattern of the single-loop federated bilevel methods with local steps
// (FedSVRBGD-FO, FedBiOAcc, LocalBSGVRM, AdaFBiO): every round the clients upload their model
// (x, y) and a list of state vectors (estimators, trackers, auxiliary variables), the server
// averages each in client-id order and broadcasts them back, and every client overwrites its
// copies. Round 0 broadcasts the model only: the clients' initial states come from their own
// first minibatch and are not averaged before the first round ends (Y. Zhang et al., IJCAI
// 2025, Algorithm 1 step 9: averaging only when mod(t+1, p) = 0, so none at t = 0).
#pragma once
#include <array>
#include <initializer_list>
#include <span>
#include <string_view>
#include <tuple>
#include <vector>

#include "engine/context.hpp"
#include "engine/state_visitor.hpp"

namespace fedbench::solvers {

struct StateAveraging {
  struct Down {
    Vec model;
    std::vector<Vec> state;  // empty in round 0
    auto fields() const { return std::tie(model, state); }
  };
  struct Up {
    Vec model;
    std::vector<Vec> state;
    auto fields() const { return std::tie(model, state); }
  };

  //! Client side: overwrite the local copies with the broadcast averages (none in round 0).
  static void take_state(const Down& d, std::initializer_list<Vec*> into) {
    if (d.state.empty()) return;
    std::size_t k = 0;
    for (Vec* v : into) *v = d.state[k++];
  }
  //! Client side: upload the local model and state vectors.
  static void put_state(Up& up, const Vec& model, std::initializer_list<const Vec*> from) {
    up.model = model;
    up.state.resize(from.size());
    std::size_t k = 0;
    for (const Vec* v : from) up.state[k++] = *v;
  }

  //! For traces: the state vectors under their names (in put_state's order), a client's or the
  //! server's averages (none before the first round ends).
  template <std::size_t N>
  static void visit_state(StateVisitor& v, const std::array<std::string_view, N>& names,
                          std::initializer_list<const Vec*> from) {
    std::size_t k = 0;
    for (const Vec* state : from) v.visit(names[k++], *state);
  }
  template <std::size_t N>
  void visit_averages(StateVisitor& v, const std::array<std::string_view, N>& names) const {
    for (std::size_t k = 0; k < state_.size() && k < N; ++k) v.visit(names[k], state_[k]);
  }

  void server_begin(ServerCtx& s, Down& d) const {
    d.model = s.model();
    d.state.resize(state_.size());
    for (std::size_t k = 0; k < state_.size(); ++k) d.state[k] = state_[k];
  }
  void server_end(ServerCtx& s, std::span<const Up> uploads) {
    mean_into(uploads, &Up::model, s.model());
    const std::size_t n = uploads.front().state.size();
    state_.resize(n);
    for (std::size_t k = 0; k < n; ++k) {  // client-id order, as mean_into
      state_[k] = uploads[0].state[k];
      for (std::size_t i = 1; i < uploads.size(); ++i) state_[k] += uploads[i].state[k];
      state_[k] /= static_cast<double>(uploads.size());
    }
  }

 private:
  std::vector<Vec> state_;
};

}  // namespace fedbench::solvers
