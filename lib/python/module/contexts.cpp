// Bindings of the views in contexts.hpp. Oracle calls go through the engine's ClientOracle /
// BilevelOracle, so they are counted exactly as a C++ solver's; the vectors are copied in and
// out (a solver may keep what an oracle returns).
#include "contexts.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <string>

#include "arrays.hpp"
#include "bindings.hpp"

namespace fedbench::python {

namespace {

constexpr const char* kDetached =
    "a client or server view was used after its hook returned; keep what must last in `state` or on the solver";

// The client's context, when the solver's family offers the oracles asked for.
ClientCtx& checked(const ClientView& c, ProblemKind want) {
  ClientCtx& ctx = c.get();
  if (c.kind != want)
    throw py::type_error(want == ProblemKind::minimax
                             ? "client.oracle is for minimax solvers; a bilevel solver uses client.bilevel"
                             : "client.bilevel is for bilevel solvers; a minimax solver uses client.oracle");
  return ctx;
}

struct OracleView {
  ClientView* client;
  ClientOracle& get() const { return checked(*client, ProblemKind::minimax).oracle(); }
};

struct BilevelView {
  ClientView* client;
  BilevelOracle& get() const { return checked(*client, ProblemKind::bilevel).bilevel(); }
};

py::array_t<long long> indices(std::span<const Index> s) {
  py::array_t<long long> a(static_cast<py::ssize_t>(s.size()));
  for (std::size_t k = 0; k < s.size(); ++k) a.mutable_data()[k] = static_cast<long long>(s[k]);
  return a;
}

// A gradient-like call on (samples, z): out = f(samples, z).
template <class Call>
py::array_t<double> vector_call(ClientView& c, py::handle samples, py::handle z, Call call) {
  to_indices(samples, c.samples);
  to_vec(z, c.z, "z");
  call(std::span<const Index>(c.samples), c.z, c.out);
  return copy_of(c.out);
}

void bind_oracle(py::module_& m) {
  py::class_<OracleView> oracle_class(m, "ClientOracle", "counted minimax oracles of one client (client.oracle)");
  oracle_class.def_property_readonly("num_samples", [](const OracleView& o) { return o.get().num_samples(); })
      .def("op", [](OracleView& o, py::handle z, int batch) {
             ClientOracle& oracle = o.get();
             to_vec(z, o.client->z, "z");
             oracle.op(o.client->z, o.client->out, batch);
             return copy_of(o.client->out);
           }, py::arg("z"), py::arg("batch") = 0,
           "(grad_x f_i, -grad_y f_i) at z on a fresh minibatch of `batch` samples (0: all)")
      .def("draw", [](OracleView& o, int batch) { return indices(o.get().draw(batch)); }, py::arg("batch"),
           "a fresh minibatch of component indices (0: the full batch, an empty array)")
      .def("next_reshuffled", [](OracleView& o, int batch) { return indices(o.get().next_reshuffled(batch)); },
           py::arg("batch"), "the next minibatch by random reshuffling")
      .def("value_on", [](OracleView& o, py::handle s, py::handle z) {
             ClientOracle& oracle = o.get();
             to_indices(s, o.client->samples);
             to_vec(z, o.client->z, "z");
             return oracle.value_on(o.client->samples, o.client->z);
           }, py::arg("samples"), py::arg("z"));
  using Grad = void (ClientOracle::*)(std::span<const Index>, const Vec&, Vec&);
  const std::pair<const char*, Grad> grads[] = {
      {"op_on", &ClientOracle::op_on}, {"grad_x_on", &ClientOracle::grad_x_on}, {"grad_y_on", &ClientOracle::grad_y_on}};
  for (const auto& [name, method] : grads)
    oracle_class.def(name, [method](OracleView& v, py::handle s, py::handle z) {
          ClientOracle& oracle = v.get();
          return vector_call(*v.client, s, z, [&](auto sp, const Vec& x, Vec& out) { (oracle.*method)(sp, x, out); });
        }, py::arg("samples"), py::arg("z"));
}

// The bilevel oracles that take (samples, z) and return a vector.
using BilevelGrad = void (BilevelOracle::*)(std::span<const Index>, const Vec&, Vec&);
using BilevelProduct = void (BilevelOracle::*)(std::span<const Index>, const Vec&, const Vec&, Vec&);
using BilevelValue = double (BilevelOracle::*)(std::span<const Index>, const Vec&);

void bind_bilevel(py::module_& m) {
  py::class_<BilevelView> b(m, "BilevelOracle", "counted bilevel oracles of one client (client.bilevel)");
  b.def_property_readonly("num_upper_samples", [](const BilevelView& o) { return o.get().num_upper_samples(); })
      .def_property_readonly("num_lower_samples", [](const BilevelView& o) { return o.get().num_lower_samples(); })
      .def("draw_upper", [](BilevelView& o, int batch) { return indices(o.get().draw_upper(batch)); }, py::arg("batch"))
      .def("draw_lower", [](BilevelView& o, int batch) { return indices(o.get().draw_lower(batch)); }, py::arg("batch"));
  const std::pair<const char*, BilevelGrad> grads[] = {{"upper_grad_x", &BilevelOracle::upper_grad_x},
                                                      {"upper_grad_y", &BilevelOracle::upper_grad_y},
                                                      {"lower_grad_x", &BilevelOracle::lower_grad_x},
                                                      {"lower_grad_y", &BilevelOracle::lower_grad_y}};
  for (const auto& [name, method] : grads)
    b.def(name, [method](BilevelView& o, py::handle s, py::handle z) {
          BilevelOracle& oracle = o.get();
          return vector_call(*o.client, s, z, [&](auto sp, const Vec& x, Vec& out) { (oracle.*method)(sp, x, out); });
        }, py::arg("samples"), py::arg("z"));
  const std::pair<const char*, BilevelProduct> products[] = {{"lower_hvp", &BilevelOracle::lower_hvp},
                                                            {"lower_jvp", &BilevelOracle::lower_jvp}};
  for (const auto& [name, method] : products)
    b.def(name, [method](BilevelView& o, py::handle s, py::handle z, py::handle v) {
          BilevelOracle& oracle = o.get();
          to_vec(v, o.client->v, "v");
          return vector_call(*o.client, s, z, [&](auto sp, const Vec& x, Vec& out) { (oracle.*method)(sp, x, o.client->v, out); });
        }, py::arg("samples"), py::arg("z"), py::arg("v"));
  const std::pair<const char*, BilevelValue> values[] = {{"upper_value", &BilevelOracle::upper_value},
                                                        {"lower_value", &BilevelOracle::lower_value}};
  for (const auto& [name, method] : values)
    b.def(name, [method](BilevelView& o, py::handle s, py::handle z) {
          BilevelOracle& oracle = o.get();
          to_indices(s, o.client->samples);
          to_vec(z, o.client->z, "z");
          return (oracle.*method)(o.client->samples, o.client->z);
        }, py::arg("samples"), py::arg("z"));
}

// What client and server views share: sizes, streams, projection.
template <class View, class Class>
void bind_common(Class& c) {
  c.def_property_readonly("round", [](const View& v) { return v.get().round(); })
      .def_property_readonly("phase", [](const View& v) { return v.get().phase(); })
      .def_property_readonly("num_clients", [](const View& v) { return v.get().num_clients(); })
      .def_property_readonly("dim", [](const View& v) { return v.get().dim(); })
      .def_property_readonly("dim_x", [](const View& v) { return v.get().dim_x(); })
      .def_property_readonly("dim_y", [](const View& v) { return v.get().dim_y(); })
      .def("stream", [](const View& v, const std::string& purpose, std::int64_t step) { return v.get().stream(purpose, step); },
           py::arg("purpose"), py::arg("step") = 0)
      .def("project", [](const View& v, py::handle z) {
             Vec x;
             to_vec(z, x, "z");
             v.get().project(x);
             return copy_of(x);
           }, py::arg("z"), "the projection of z onto the feasible set (a new array)");
}

}  // namespace

ClientCtx& ClientView::get() const {
  if (!ctx) throw py::value_error(kDetached);
  return *ctx;
}

ServerCtx& ServerView::get() const {
  if (!ctx) throw py::value_error(kDetached);
  return *ctx;
}

py::object client_view(ClientCtx& ctx, ProblemKind kind) {
  auto view = std::make_unique<ClientView>();
  view->ctx = &ctx;
  view->kind = kind;
  return py::cast(std::move(view));
}

py::object server_view(ServerCtx& ctx) {
  auto view = std::make_unique<ServerView>();
  view->ctx = &ctx;
  return py::cast(std::move(view));
}

void detach(py::handle view) {
  if (py::isinstance<ClientView>(view)) view.cast<ClientView&>().ctx = nullptr;
  else view.cast<ServerView&>().ctx = nullptr;
}

void bind_contexts(py::module_& m) {
  bind_oracle(m);
  bind_bilevel(m);
  py::class_<ClientView> client(m, "ClientContext", "one client's view during a hook");
  bind_common<ClientView>(client);
  client.def_property_readonly("id", [](const ClientView& v) { return v.get().id(); })
      .def_property_readonly("oracle", [](ClientView& v) { return OracleView{&v}; }, py::keep_alive<0, 1>())
      .def_property_readonly("bilevel", [](ClientView& v) { return BilevelView{&v}; }, py::keep_alive<0, 1>())
      .def("shared_stream", [](const ClientView& v, const std::string& purpose, std::int64_t step) {
             return v.get().shared_stream(purpose, step);
           }, py::arg("purpose"), py::arg("step") = 0, "public coins: the server's stream of this purpose and step")
      .def("initial_point", [](const ClientView& v) { return copy_of(v.get().initial_point()); });
  py::class_<ServerView> server(m, "ServerContext", "the server's view during a hook");
  bind_common<ServerView>(server);
  server.def_property_readonly("model", [](py::object self) {
          return view_of(self.cast<ServerView&>().get().model(), self, true);
        }, "the server iterate z = (x, y), writable in place (valid during the hook)")
      .def_property_readonly("sampled", [](const ServerView& v) {
          const auto s = v.get().sampled();
          return std::vector<int>(s.begin(), s.end());
        }, "the clients of this round, sorted: the order of the uploads");
}

}  // namespace fedbench::python
