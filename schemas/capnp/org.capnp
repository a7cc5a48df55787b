# Model `org`. Ordinals follow the canonical order; conventions in ../README.md.
@0xcb105d201071958c;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("serbench::cp");

# Enumerant ordinals are the model's ordinals (FOO, BAR, BAZ); capnp wants lower camelCase.
enum OrgType {
  foo @0;
  bar @1;
  baz @2;
}

struct Org {
  name @0 :Text;
  category @1 :Text;
  country @2 :Text;
  type @3 :OrgType;
  attributes @4 :List(Attr);
}

struct Attr {
  id @0 :Text;
  quantity @1 :Int8;
  amount @2 :Int8;
  active @3 :Bool;
  percent @4 :Float64;
  size @5 :Int16;
}
