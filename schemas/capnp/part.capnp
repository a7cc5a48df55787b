# Model `part`. Ordinals follow the canonical order; conventions in ../README.md.
@0xc04762c11a636961;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("serbench::cp");

struct Part {
  partkey @0 :Int32;
  name @1 :Text;
  mfgr @2 :Text;
  brand @3 :Text;
  type @4 :Text;
  size @5 :Int32;
  container @6 :Text;
  retailprice @7 :Float64;
  comment @8 :Text;
}
