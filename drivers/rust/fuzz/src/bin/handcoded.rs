//! The `handcoded` decoder: every model (first byte), every depth, re-encoding.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    serbench_driver::fuzz::decoder("handcoded", "", true, data);
});
