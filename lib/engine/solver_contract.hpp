// The solver contract: what a solver struct must provide, which optional hooks the engine
// calls, and the signature each hook must have. A hook is found by its name; once found, its
// call is checked, so a hook written with a wrong signature is a compile error that names the
// hook and the expected signature instead of a hook skipped without a word.
// Hooks must not be overloaded or templates (they are detected by taking their address).
// docs/adding-a-solver.md walks through a solver file; lib/solvers/minimax/local_seg.cpp is
// the shortest example.
#pragma once
#include <concepts>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/params.hpp"
#include "engine/context.hpp"
#include "engine/message.hpp"
#include "engine/run_config.hpp"
#include "engine/solver_diagnostics.hpp"
#include "engine/state_visitor.hpp"
#include "problem/constant_names.hpp"
#include "problem/problem.hpp"

namespace fedbench {

//! What a solver's optional resolve() / supports() hooks receive.
struct SolverSetup {
  const Problem& problem;
  const RunConfig& config;
  std::string who;  //!< "solver local-sgda", for messages
  std::vector<Constant>* read = nullptr;  //!< where the constants asked for are noted

  //! A problem constant for a theory formula; throws UserError if the problem lacks it.
  double constant(Constant name) const {
    if (read) read->push_back(name);
    return problem.constants().get(name, who + " (theory step sizes)");
  }
  [[noreturn]] void reject(const std::string& why) const { throw UserError(who + ": " + why); }
};

namespace contract {

// ---- required parts: a solver is a plain struct with these members.
template <class S>
concept has_params = requires { typename S::Params; };
template <class S>
concept has_declare = requires(Schema<typename S::Params>& schema) { S::declare(schema); };
template <class S>
concept has_messages = requires(const typename S::Down& down, const typename S::Up& up) {
  message_size(down);
  message_size(up);
};
template <class S>
concept has_client_state = std::default_initializable<typename S::Client>;
template <class S>
concept has_params_member = requires(S& s) { { s.p } -> std::same_as<typename S::Params&>; };
template <class S>
concept has_server_begin = requires(S& s, ServerCtx& server, typename S::Down& down) {
  s.server_begin(server, down);
};
template <class S>
concept has_client_round = requires(const S& s, ClientCtx& c, typename S::Client& st,
                                    const typename S::Down& down, typename S::Up& up) {
  s.client_round(c, st, down, up);
};
template <class S>
concept has_server_end = requires(S& s, ServerCtx& server, std::span<const typename S::Up> ups) {
  s.server_end(server, ups);
};

// ---- optional hooks: detected by name, then their call is checked.
template <class S>
concept declares_init = requires { &S::init; };
template <class S>
concept init_ok = requires(S& s, ServerCtx& server) { s.init(server); };

template <class S>
concept declares_init_client = requires { &S::init_client; };
template <class S>
concept init_client_ok = requires(S& s, ClientCtx& c, typename S::Client& st) {
  s.init_client(c, st);
};

template <class S>
concept declares_phases = requires { &S::phases; };
template <class S>
concept phases_ok = requires(const S& s) { { s.phases() } -> std::same_as<int>; };

template <class S>
concept declares_same_clients = requires { &S::same_clients_every_phase; };
template <class S>
concept same_clients_ok = requires(const S& s) {
  { s.same_clients_every_phase() } -> std::same_as<bool>;
};

template <class S>
concept declares_same_candidates = requires { &S::same_candidates_every_phase; };
template <class S>
concept same_candidates_ok = requires(const S& s) {
  { s.same_candidates_every_phase() } -> std::same_as<bool>;
};

template <class S>
concept declares_supports = requires { &S::supports; };
template <class S>
concept supports_ok = requires(const typename S::Params& p, const SolverSetup& setup) {
  S::supports(p, setup);
};

template <class S>
concept declares_resolve = requires { &S::resolve; };
template <class S>
concept resolve_ok = requires(typename S::Params& p, const SolverSetup& setup) {
  S::resolve(p, setup);
};

template <class S>
concept declares_diagnostics = requires { &S::diagnostics; };
template <class S>
concept diagnostics_ok = requires(const typename S::Params& p) {
  { S::diagnostics(p) } -> std::same_as<SolverDiagnostics>;
};

template <class S>
concept declares_server_states = requires { &S::server_states; };
template <class S>
concept server_states_ok = requires(const S& s, StateVisitor& v) { s.server_states(v); };

template <class S>
concept declares_client_states = requires { &S::client_states; };
template <class S>
concept client_states_ok = requires(const S& s, const typename S::Client& st, StateVisitor& v) {
  s.client_states(st, v);
};

template <class S>
concept declares_problem_kind = requires { S::kProblemKind; };
template <class S>
concept problem_kind_ok = std::same_as<std::remove_cv_t<decltype(S::kProblemKind)>, ProblemKind>;

template <class S>
concept declares_scratch_client = requires { S::kScratchClient; };
template <class S>
concept scratch_client_ok = std::same_as<std::remove_cv_t<decltype(S::kScratchClient)>, bool>;

template <class S>
concept declares_version = requires { S::version; };
template <class S>
concept version_ok = std::same_as<std::remove_cv_t<decltype(S::version)>, int>;

}  // namespace contract

//! A type the engine can run: the required parts of the contract. Optional hooks are checked
//! by check_solver_contract.
template <class S>
concept FederatedSolver =
    contract::has_params<S> && contract::has_declare<S> && contract::has_messages<S> &&
    contract::has_client_state<S> && contract::has_params_member<S> &&
    contract::has_server_begin<S> && contract::has_client_round<S> && contract::has_server_end<S>;

//! Compile-time check of a solver struct, one message per broken part. Called by the
//! registration macro and by the round loop.
template <class S>
constexpr bool check_solver_contract() {
  using namespace contract;
  static_assert(has_params<S>, "solver: needs a nested `struct Params` of plain fields");
  if constexpr (has_params<S>) {
    static_assert(has_declare<S>, "solver: needs `static void declare(Schema<Params>& s)`");
    static_assert(has_params_member<S>, "solver: needs a member `Params p;`");
    if constexpr (declares_supports<S>)
      static_assert(supports_ok<S>, "solver hook supports: expected "
                                    "`static void supports(const Params&, const SolverSetup&)`");
    if constexpr (declares_resolve<S>)
      static_assert(resolve_ok<S>, "solver hook resolve: expected "
                                   "`static void resolve(Params&, const SolverSetup&)`");
    if constexpr (declares_diagnostics<S>)
      static_assert(diagnostics_ok<S>, "solver hook diagnostics: expected "
                                       "`static SolverDiagnostics diagnostics(const Params&)`");
  }
  static_assert(has_messages<S>, "solver: needs `struct Down` and `struct Up`, each with "
                                 "`auto fields() const { return std::tie(...); }`");
  static_assert(has_client_state<S>, "solver: needs a default-constructible `struct Client`");
  if constexpr (has_messages<S> && has_client_state<S>) {
    static_assert(has_server_begin<S>, "solver: needs `void server_begin(ServerCtx&, Down&)`");
    static_assert(has_client_round<S>, "solver: needs `void client_round(ClientCtx&, Client&, "
                                       "const Down&, Up&) const`");
    static_assert(has_server_end<S>, "solver: needs `void server_end(ServerCtx&, "
                                     "std::span<const Up>)`");
    if constexpr (declares_init_client<S>)
      static_assert(init_client_ok<S>, "solver hook init_client: expected "
                                       "`void init_client(ClientCtx&, Client&)`");
    if constexpr (declares_client_states<S>)
      static_assert(client_states_ok<S>, "solver hook client_states: expected "
                                         "`void client_states(const Client&, StateVisitor&) const`");
  }
  if constexpr (declares_server_states<S>)
    static_assert(server_states_ok<S>, "solver hook server_states: expected "
                                       "`void server_states(StateVisitor&) const`");
  if constexpr (declares_init<S>)
    static_assert(init_ok<S>, "solver hook init: expected `void init(ServerCtx&)`");
  if constexpr (declares_phases<S>)
    static_assert(phases_ok<S>, "solver hook phases: expected `int phases() const`");
  if constexpr (declares_same_clients<S>)
    static_assert(same_clients_ok<S>, "solver hook same_clients_every_phase: expected "
                                      "`bool same_clients_every_phase() const`");
  if constexpr (declares_same_candidates<S>)
    static_assert(same_candidates_ok<S>, "solver hook same_candidates_every_phase: expected "
                                         "`bool same_candidates_every_phase() const`");
  if constexpr (declares_problem_kind<S>)
    static_assert(problem_kind_ok<S>, "solver hook kProblemKind: expected "
                                      "`static constexpr ProblemKind kProblemKind = ...;`");
  if constexpr (declares_version<S>)
    static_assert(version_ok<S>, "solver hook version: expected `static constexpr int version = N;`");
  if constexpr (declares_scratch_client<S>) {
    static_assert(scratch_client_ok<S>, "solver hook kScratchClient: expected "
                                        "`static constexpr bool kScratchClient = true;`");
    static_assert(!declares_init_client<S>, "solver: kScratchClient says the Client struct lives one "
                                            "turn, but init_client sets up state that must last");
    static_assert(!declares_client_states<S>, "solver: kScratchClient says the Client struct lives one "
                                              "turn, but client_states shows state that lasts");
  }
  return FederatedSolver<S>;
}

//! Whether a solver's Client struct is scratch: `static constexpr bool kScratchClient = true`
//! says client_round writes every field before reading it, in every phase, so nothing in it
//! outlives the client's turn. The engine then keeps one per client running at a time, not one
//! per client (a round over 10^5 clients touches no cold solver state).
template <class S>
constexpr bool solver_client_is_scratch() {
  if constexpr (contract::declares_scratch_client<S>) return S::kScratchClient;
  return false;
}

//! The problem family a solver runs on: `static constexpr ProblemKind kProblemKind` in the
//! solver struct, minimax when absent.
template <class S>
constexpr ProblemKind solver_problem_kind() {
  if constexpr (contract::declares_problem_kind<S>) return S::kProblemKind;
  return ProblemKind::minimax;
}

}  // namespace fedbench
