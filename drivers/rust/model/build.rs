//! Generates the model types, the registry and the methods' field lists from the model
//! definitions, the built-in ones and a user's (drivers/rust/codegen/generate_models.py,
//! standard-library Python).

use std::env;
use std::path::Path;
use std::process::Command;

// watch_definitions: the built-in definitions and a user's models folder
include!("../definitions.rs");

fn main() {
    let repo = Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap()).join("../../..");
    let generator = repo.join("drivers/rust/codegen/generate_models.py");
    watch_definitions(&repo);
    println!("cargo:rerun-if-changed={}", generator.display());
    let status = Command::new("python3")
        .arg("-B") // no bytecode beside the sources
        .arg(&generator)
        .arg(env::var("OUT_DIR").unwrap())
        .status()
        .expect("python3 runs the model generator");
    assert!(status.success(), "{} failed", generator.display());
}
