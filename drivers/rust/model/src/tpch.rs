//! TPC-H nested objects: foreign keys become embedded copies (dataset `tpch`).

model_struct! {
    pub struct Part key(partkey) {
        pub partkey: i32,
        pub name: String,
        pub mfgr: String,
        pub brand: String,
        pub r#type: String,
        pub size: i32,
        pub container: String,
        pub retailprice: f64,
        pub comment: String,
    }
}

model_struct! {
    pub struct Supplier {
        pub suppkey: i32,
        pub name: String,
        pub address: String,
        pub nationkey: i32,
        pub phone: String,
        pub acctbal: f64,
        pub comment: String,
    }
}

model_struct! {
    /// A line item with full copies of its part and supplier.
    pub struct LineItem key(orderkey, linenumber) {
        pub orderkey: i32,
        pub part: Part,
        pub supplier: Supplier,
        pub linenumber: i32,
        pub quantity: f64,
        pub extendedprice: f64,
        pub discount: f64,
        pub tax: f64,
        pub returnflag: String,
        pub linestatus: String,
        pub shipdate: String,
        pub commitdate: String,
        pub receiptdate: String,
        pub shipinstruct: String,
        pub shipmode: String,
        pub comment: String,
    }
}

model_struct! {
    pub struct Order {
        pub orderkey: i32,
        pub custkey: i32,
        pub orderstatus: String,
        pub totalprice: f64,
        pub orderdate: String,
        pub orderpriority: String,
        pub clerk: String,
        pub shippriority: i32,
        pub comment: String,
        pub lineitems: Vec<LineItem>,
    }
}

model_struct! {
    /// A customer with all its orders (empty when it has none).
    pub struct Customer key(custkey) {
        pub custkey: i32,
        pub name: String,
        pub address: String,
        pub nationkey: i32,
        pub phone: String,
        pub acctbal: f64,
        pub mktsegment: String,
        pub comment: String,
        pub orders: Vec<Order>,
    }
}
