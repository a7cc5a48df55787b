//! The `rkyv` decoder through its checking variant (`validate`): every model (first byte),
//! every depth, re-encoding. Validation proves a buffer safe to read, not that it is the
//! object once written, so the decoded value need not re-encode to the same bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    serbench_driver::fuzz::decoder("rkyv", "validate", false, data);
});
