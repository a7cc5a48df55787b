# Model `sparse`. Ordinals follow the canonical order; conventions in ../README.md.
@0xfcc7227b64c06fc4;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("serbench::cp");

struct SparseVector {
  dimension @0 :Int64;
  entries @1 :List(Entry);
}

struct Entry {
  position @0 :Int64;
  value @1 :Float64;
}
