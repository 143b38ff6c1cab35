// The communication pattern shared by every "local steps, then average" method (Local SGDA,
// Local SEG, FedAvg-style methods): the server broadcasts its model, each sampled client
// uploads its local model, the server sets its model to the plain average (in client-id
// order). A solver inherits it and writes only client_round.
#pragma once
#include <span>
#include <tuple>

#include "engine/context.hpp"

namespace fedbench {

struct ModelAveraging {
  struct Down {
    Vec model;
    auto fields() const { return std::tie(model); }
  };
  struct Up {
    Vec model;
    auto fields() const { return std::tie(model); }
  };
  void server_begin(ServerCtx& s, Down& down) const { down.model = s.model(); }
  void server_end(ServerCtx& s, std::span<const Up> uploads) const {
    mean_into(uploads, &Up::model, s.model());
  }
};

}  // namespace fedbench
