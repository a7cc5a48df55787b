// Where the model definitions are, for the build scripts that generate code from them:
// `include!`d by schemas.rs and the model crate's build script.

/// Asks Cargo to run the build script again when a model definition changes: the built-in
/// ones, the harness's code that reads them, and a user's models folder (`$SERBENCH_MODELS`,
/// else `$SERBENCH_HOME/models`, else `out/models` in the repository, as the harness reads it).
fn watch_definitions(repo: &std::path::Path) {
    let models = repo.join("harness/serbench/models");
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
    for variable in ["SERBENCH_MODELS", "SERBENCH_HOME"] {
        println!("cargo:rerun-if-env-changed={variable}");
    }
    let user = match (
        std::env::var_os("SERBENCH_MODELS"),
        std::env::var_os("SERBENCH_HOME"),
    ) {
        (Some(dir), _) if !dir.is_empty() => std::path::PathBuf::from(dir),
        (_, Some(home)) => std::path::PathBuf::from(home).join("models"),
        _ => repo.join("out/models"),
    };
    // watched only when it exists: Cargo would rerun for a missing path at every build (the
    // harness's `serbench build` creates it first)
    if user.is_dir() {
        println!("cargo:rerun-if-changed={}", user.display());
    }
}
