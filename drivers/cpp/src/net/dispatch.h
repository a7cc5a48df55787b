#pragma once
// Runs code generic over (method, model) for the names a setup gives, over every method of
// the registry: network code never names a method.

#include <optional>
#include <string>

#include "model/model_id.h"
#include "net/node.h"
#include "registry.h"

namespace serbench::net {

// Calls `f.template operator()<Meth, M>()` for the setup's method and model. Methods that do
// not write their own files (the raw floor) have no objects to serve: unsupported.
template <class F>
void with_method_model(const Setup& setup, F&& f) {
  bool method_found = false, done = false;
  for_each_type(Methods{}, [&](auto mt) {
    using Meth = typename decltype(mt)::type;
    if (done || Meth::id != setup.method) return;
    method_found = true;
    if constexpr (!Meth::writes || Meth::depths.empty()) {
      throw unsupported("method '" + setup.method + "' has no objects of its own to move");
    } else {
      for_each_type(ModelTypes{}, [&](auto m) {
        using M = typename decltype(m)::type;
        if (done || model_name<M>() != setup.model) return;
        done = true;
        f.template operator()<Meth, M>();
      });
    }
  });
  if (!method_found) throw bad_request("unknown method '" + setup.method + "'");
  if (!done) throw bad_request("unknown model '" + setup.model + "'");
}

}  // namespace serbench::net
