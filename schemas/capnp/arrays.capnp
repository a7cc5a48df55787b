# Model `arrays`. Ordinals follow the canonical order; conventions in ../README.md.
@0xd9ed186928ba7498;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("serbench::cp");

struct Arrays {
  strings @0 :List(Text);
  ints @1 :List(Int32);
}
