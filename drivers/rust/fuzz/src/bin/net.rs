//! The network node's untrusted input: frame headers, hellos, and a pages frame's entries
//! with every object they admit decoded.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    serbench_driver::fuzz::net(data);
});
