//! Records what `info` must report as facts, not hopes: every library linked into the driver
//! with the version Cargo resolved for this build, the rustc that compiles this crate and the
//! profile settings it is built with.

use std::collections::{BTreeMap, BTreeSet};
use std::env;
use std::fs;
use std::path::Path;
use std::process::Command;

fn main() {
    let manifest_dir = env::var("CARGO_MANIFEST_DIR").unwrap();
    let workspace = Path::new(&manifest_dir).join("..");
    let manifest = workspace.join("Cargo.toml");
    for file in [
        workspace.join("Cargo.lock"),
        manifest.clone(),
        Path::new(&manifest_dir).join("Cargo.toml"),
        workspace.join("model/Cargo.toml"),
    ] {
        println!("cargo:rerun-if-changed={}", file.display());
    }
    generate_protobuf(&workspace.join("../../schemas/proto"));
    generate_flatbuffers(&workspace.join("../../schemas/fbs"));

    println!("cargo:rustc-env=SERBENCH_LIBRARIES={}", linked_libraries());

    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .unwrap_or_default();
    println!("cargo:rustc-env=SERBENCH_RUSTC={version}");

    let profile = env::var("PROFILE").unwrap();
    let manifest = fs::read_to_string(manifest).expect("the workspace has a Cargo.toml");
    println!("cargo:rustc-env=SERBENCH_PROFILE={profile}");
    println!(
        "cargo:rustc-env=SERBENCH_PROFILE_FLAGS={}",
        profile_flags(&manifest, &profile)
    );
}

/// `name=version;…` of every package linked into the driver: what `cargo tree` resolves for
/// this package and target (offline, from Cargo.lock) along normal dependencies, so the
/// crates of build scripts and proc macros (run at compile time, not linked) stay out. This
/// project's own crates are left out; a name linked at two versions lists both.
fn linked_libraries() -> String {
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap()).join("Cargo.toml");
    let out = Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "--locked",
            "--edges",
            "normal,no-proc-macro",
        ])
        .args(["--target", &env::var("TARGET").unwrap()])
        .args(["--prefix", "none", "--format", "{p}", "--package"])
        .arg(env::var("CARGO_PKG_NAME").unwrap())
        .arg("--manifest-path")
        .arg(manifest)
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut versions: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let package = line.trim_end_matches(" (*)");
        // `name vX.Y.Z`; path packages (this workspace) add ` (/their/path)`
        if let (Some((name, version)), false) = (package.split_once(" v"), package.contains(" (")) {
            versions
                .entry(name.to_string())
                .or_default()
                .insert(version.to_string());
        }
    }
    versions
        .into_iter()
        .map(|(name, v)| format!("{name}={}", Vec::from_iter(v).join(", ")))
        .collect::<Vec<_>>()
        .join(";")
}

/// `opt-level=3 lto=fat codegen-units=1`: the real opt level, then the other settings of the
/// workspace's `[profile.<profile>]` section.
fn profile_flags(manifest: &str, profile: &str) -> String {
    let mut flags = vec![format!(
        "opt-level={}",
        env::var("OPT_LEVEL").unwrap_or_default()
    )];
    let section = format!("[profile.{profile}]");
    let mut inside = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == section;
        } else if let (true, Some((key, value))) = (inside, line.split_once('=')) {
            let key = key.trim();
            if key != "opt-level" {
                flags.push(format!("{key}={}", value.trim().trim_matches('"')));
            }
        }
    }
    if let Ok(rustflags) = env::var("CARGO_ENCODED_RUSTFLAGS") {
        flags.extend(
            rustflags
                .split('\x1f')
                .filter(|f| !f.is_empty())
                .map(String::from),
        );
    }
    flags.join(" ")
}

/// prost code for every model's messages (`serbench.pb.rs` in OUT_DIR), from the one schema
/// set every language shares, compiled by the system protoc (Debian's 3.21.12).
///
/// prost 0.14 drops a proto3 `double` of -0.0 (it compares with `!= 0.0`, tokio-rs/prost#1177)
/// where protoc's C++ and Java write every value whose bits are not zero. The singular doubles
/// are therefore declared `optional` to prost (the same wire format): the codec sets them
/// exactly when their bits are not zero.
fn generate_protobuf(schemas: &Path) {
    println!("cargo:rerun-if-changed={}", schemas.display());
    let mut protos: Vec<_> = fs::read_dir(schemas)
        .expect("schemas/proto exists")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "proto"))
        .collect();
    protos.sort();
    prost_build::Config::new()
        .compile_protos(&protos, &[schemas])
        .expect("protoc compiles schemas/proto");
    let generated = Path::new(&env::var("OUT_DIR").unwrap()).join("serbench.pb.rs");
    let code = fs::read_to_string(&generated).unwrap();
    let mut out = String::with_capacity(code.len());
    let mut singular_double = false;
    for line in code.lines() {
        let line = if line.trim_start().starts_with("#[prost(double, tag = ") {
            singular_double = true;
            line.replacen("#[prost(double, tag", "#[prost(double, optional, tag", 1)
        } else if std::mem::take(&mut singular_double) {
            assert!(line.ends_with(": f64,"), "a singular double field: {line}");
            line.replacen(": f64,", ": ::core::option::Option<f64>,", 1)
        } else {
            line.to_string()
        };
        out.push_str(&line);
        out.push('\n');
    }
    fs::write(&generated, out).unwrap();
}

/// flatc 2.0.8 Rust code for every model's tables (`fbs/mod.rs` in OUT_DIR). flatc's Rust
/// output only compiles when generated from one file including every schema (schemas/README.md);
/// its `mod.rs` names the per-table files by module path, rewritten here to absolute paths so
/// that the driver can `include!` it.
fn generate_flatbuffers(schemas: &Path) {
    println!("cargo:rerun-if-changed={}", schemas.display());
    let out = Path::new(&env::var("OUT_DIR").unwrap()).join("fbs");
    fs::create_dir_all(&out).unwrap();
    let mut names: Vec<String> = fs::read_dir(schemas)
        .expect("schemas/fbs exists")
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
    assert!(status.success(), "flatc failed on schemas/fbs");
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
}
