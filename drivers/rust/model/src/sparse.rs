//! Sparse vectors (dataset `sparse`), entries strictly increasing by position.

model_struct! {
    pub struct SparseVector {
        pub dimension: i64,
        pub entries: Vec<Entry>,
    }
}

model_struct! {
    pub struct Entry {
        pub position: i64,
        pub value: f64,
    }
}
