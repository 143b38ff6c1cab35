// A solver's lasting state, shown state by state: control variates, trackers, momentum and
// STORM estimates, anchors, Neumann vectors, adaptive-matrix accumulators. The optional hooks
// server_states / client_states (engine/solver_contract.hpp) name each one and hand it to a
// StateVisitor; the round loop (engine/round_loop.hpp) visits them at a recorded row when a sink
// asks for them (TrajectorySink::wants_states: `fedbench run --trace-iterates`), so that a
// second implementation can compare every state round by round, not only the server iterate.
// Runs whose sinks do not ask never visit anything.
#pragma once
#include <span>
#include <string>
#include <string_view>

#include "core/types.hpp"

namespace fedbench {

//! What a solver's state hooks receive.
class StateVisitor {
 public:
  virtual ~StateVisitor() = default;
  //! A vector state; an empty one is a state not set yet (before its first round) and is not
  //! reported.
  void visit(std::string_view name, const Vec& value) {
    if (value.size() > 0) take(name, std::span<const double>(value.data(), static_cast<std::size_t>(value.size())));
  }
  //! A scalar state.
  void visit(std::string_view name, double value) { take(name, std::span<const double>(&value, 1)); }

 protected:
  virtual void take(std::string_view name, std::span<const double> value) = 0;
};

//! Where the states of a recorded row go, each with its owner: the server, or a client by id
//! (a client's names carry the prefix "c/").
class StateSink {
 public:
  static constexpr int kServer = -1;
  virtual ~StateSink() = default;
  virtual void state(std::string_view name, int client, std::span<const double> value) = 0;
};

//! What holds the states of a run (the round loop): visits them all, the server's first, then
//! every set-up client's in id order.
class SolverStates {
 public:
  virtual ~SolverStates() = default;
  virtual void visit_states(StateSink& out) const = 0;
};

//! Forwards one owner's states to a StateSink, prefixing a client's names with "c/".
class OwnedStates final : public StateVisitor {
 public:
  explicit OwnedStates(StateSink& out) : out_(out) {}
  void own(int client) { client_ = client; }

 private:
  void take(std::string_view name, std::span<const double> value) override {
    if (client_ == StateSink::kServer) {
      out_.state(name, client_, value);
      return;
    }
    name_.assign("c/").append(name);
    out_.state(name_, client_, value);
  }

  StateSink& out_;
  int client_ = StateSink::kServer;
  std::string name_;  // reused: "c/" + the solver's name
};

}  // namespace fedbench
