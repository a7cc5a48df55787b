//! Generates the model types, the registry and the methods' field lists from the model
//! definitions (drivers/rust/codegen/generate_models.py, standard-library Python).

use std::env;
use std::path::Path;
use std::process::Command;

fn main() {
    let repo = Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap()).join("../../..");
    let models = repo.join("harness/serbench/models");
    let generator = repo.join("drivers/rust/codegen/generate_models.py");
    // the definitions and the code that reads them (not the folder: Python's caches are in it)
    for source in [
        "definitions",
        "definition.py",
        "__init__.py",
        "naming.py",
        "schemas.py",
    ] {
        println!("cargo:rerun-if-changed={}", models.join(source).display());
    }
    println!("cargo:rerun-if-changed={}", generator.display());
    let status = Command::new("python3")
        .arg("-B") // no bytecode beside the sources
        .arg(&generator)
        .arg(env::var("OUT_DIR").unwrap())
        .arg("--builtin")
        .status()
        .expect("python3 runs the model generator");
    assert!(status.success(), "{} failed", generator.display());
}
