# Model `trade`. Ordinals follow the canonical order; conventions in ../README.md.
@0x94ee772d18223891;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("serbench::cp");

struct Trade {
  sourceId @0 :Int64;
  special @1 :Bool;
  orderCode @2 :Int32;
  priority @3 :Int32;
  prices @4 :List(Float64);
  quantities @5 :List(Int64);
}
