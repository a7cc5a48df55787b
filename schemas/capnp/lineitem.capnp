# Model `lineitem`: a LineItem embeds full copies of its Part and Supplier.
# Ordinals follow the canonical order; conventions in ../README.md.
@0xf05e08bbf1010403;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("serbench::cp");

using import "part.capnp".Part;

struct Supplier {
  suppkey @0 :Int32;
  name @1 :Text;
  address @2 :Text;
  nationkey @3 :Int32;
  phone @4 :Text;
  acctbal @5 :Float64;
  comment @6 :Text;
}

struct LineItem {
  orderkey @0 :Int32;
  part @1 :Part;
  supplier @2 :Supplier;
  linenumber @3 :Int32;
  quantity @4 :Float64;
  extendedprice @5 :Float64;
  discount @6 :Float64;
  tax @7 :Float64;
  returnflag @8 :Text;
  linestatus @9 :Text;
  shipdate @10 :Text;
  commitdate @11 :Text;
  receiptdate @12 :Text;
  shipinstruct @13 :Text;
  shipmode @14 :Text;
  comment @15 :Text;
}
