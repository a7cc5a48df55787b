//! Every method's reader (checking variant where it has one), every model, every depth,
//! re-encoding: `[method byte][model byte][object bytes]`, seeds from every method's
//! encodings of the golden vectors.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    serbench_driver::fuzz::any_reader(data);
});
