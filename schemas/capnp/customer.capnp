# Model `customer`: Customer -> [Order] -> [LineItem].
# Ordinals follow the canonical order; conventions in ../README.md.
@0x8fea21f88b60c56c;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("serbench::cp");

using import "lineitem.capnp".LineItem;

struct Order {
  orderkey @0 :Int32;
  custkey @1 :Int32;
  orderstatus @2 :Text;
  totalprice @3 :Float64;
  orderdate @4 :Text;
  orderpriority @5 :Text;
  clerk @6 :Text;
  shippriority @7 :Int32;
  comment @8 :Text;
  lineitems @9 :List(LineItem);
}

struct Customer {
  custkey @0 :Int32;
  name @1 :Text;
  address @2 :Text;
  nationkey @3 :Int32;
  phone @4 :Text;
  acctbal @5 :Float64;
  mktsegment @6 :Text;
  comment @7 :Text;
  orders @8 :List(Order);
}
