//! The index and page reader, and `handcoded` or `raw` over every object it serves.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    serbench_driver::fuzz::paged(data);
});
