// The schema files every schema-compiled method compiles, written from the model definitions
// at build time: `include!`d by the build scripts of the driver and fbs crates.

// watch_definitions: what the generated code depends on
include!("definitions.rs");

/// The schema files of every model, the built-in ones and a user's (`schemas/` in OUT_DIR),
/// written from their definitions by the harness's generator (standard-library Python).
fn generate_schemas(repo: &std::path::Path) -> std::path::PathBuf {
    watch_definitions(repo);
    let generator = repo.join("harness/serbench/models/schemas.py");
    let out = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("schemas");
    let status = std::process::Command::new("python3")
        .arg("-B") // no bytecode beside the harness's sources
        .arg(&generator)
        .arg(&out)
        .status()
        .expect("python3 runs the schema generator");
    assert!(status.success(), "{} failed", generator.display());
    out
}
