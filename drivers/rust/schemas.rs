// The schema files every schema-compiled method compiles, written from the model definitions
// at build time: `include!`d by the build scripts of the driver and fbs crates.

/// The schema files of the built-in models (`schemas/` in OUT_DIR), written from their
/// definitions by the harness's generator (standard-library Python). A user's models are
/// left out: this driver's native types are not generated from the definitions yet.
fn generate_schemas(repo: &std::path::Path) -> std::path::PathBuf {
    let models = repo.join("harness/serbench/models");
    let generator = models.join("schemas.py");
    // the definitions and the code that reads them (not the folder: Python's caches are in it)
    for source in ["definitions", "definition.py", "__init__.py", "naming.py", "schemas.py"] {
        println!("cargo:rerun-if-changed={}", models.join(source).display());
    }
    let out = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("schemas");
    let status = std::process::Command::new("python3")
        .arg("-B") // no bytecode beside the harness's sources
        .arg(&generator)
        .arg(&out)
        .arg("--builtin")
        .status()
        .expect("python3 runs the schema generator");
    assert!(status.success(), "{} failed", generator.display());
    out
}

