//! Generates the FlatBuffers tables of every model with flatc at build time.

use std::env;
use std::fs;
use std::path::Path;
use std::process::Command;

// generate_schemas: the schema files of every model, shared with the driver crate's build
include!("../schemas.rs");

fn main() {
    let manifest_dir = env::var("CARGO_MANIFEST_DIR").unwrap();
    let schemas = generate_schemas(&Path::new(&manifest_dir).join("../../.."));
    generate_flatbuffers(&schemas.join("fbs"));
}

/// flatc 2.0.8 Rust code for every model's tables (`fbs/mod.rs` in OUT_DIR). flatc's Rust
/// output only compiles when generated from one file including every schema (docs/schemas.md);
/// its `mod.rs` names the per-table files by module path, rewritten here to absolute paths so
/// that this crate can `include!` it.
fn generate_flatbuffers(schemas: &Path) {
    println!("cargo:rerun-if-changed={}", schemas.display());
    let out = Path::new(&env::var("OUT_DIR").unwrap()).join("fbs");
    fs::create_dir_all(&out).unwrap();
    let mut names: Vec<String> = fs::read_dir(schemas)
        .expect("the fbs schemas were written")
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".fbs"))
        .collect();
    names.sort();
    let all = out.join("all.fbs");
    let includes: String = names
        .iter()
        .map(|n| format!("include \"{n}\";\n"))
        .collect();
    fs::write(&all, includes).unwrap();
    let status = Command::new("flatc")
        .args(["--rust", "--rust-module-root-file", "--gen-all", "-I"])
        .arg(schemas)
        .arg("-o")
        .arg(&out)
        .arg(&all)
        .status()
        .expect("flatc (Debian's 2.0.8) is installed");
    assert!(status.success(), "flatc failed on the fbs schemas");
    let root = out.join("mod.rs");
    let generated = out.join("serbench").join("fb");
    let rewritten: String = fs::read_to_string(&root)
        .unwrap()
        .lines()
        .map(|line| {
            match line
                .trim()
                .strip_prefix("mod ")
                .and_then(|m| m.strip_suffix(';'))
            {
                Some(module) => {
                    let file = generated.join(format!("{module}.rs"));
                    format!("#[path = {:?}] mod {module};\n", file.display().to_string())
                }
                None => format!("{line}\n"),
            }
        })
        .collect();
    fs::write(&root, rewritten).unwrap();
    write_roots(schemas, &names, &out.join("roots.rs"));
}

/// `roots!(Root, ...)`: the root table of every schema file (`root_type Name;`), so that a
/// verifier is compiled here for each.
fn write_roots(schemas: &Path, names: &[String], out: &Path) {
    let roots: Vec<String> = names
        .iter()
        .flat_map(|name| {
            let text = fs::read_to_string(schemas.join(name)).unwrap();
            let roots: Vec<String> = text
                .lines()
                .filter_map(|l| l.trim().strip_prefix("root_type "))
                .map(|r| r.trim_end_matches(';').to_string())
                .collect();
            roots
        })
        .collect();
    fs::write(out, format!("roots!({});\n", roots.join(", "))).unwrap();
}
