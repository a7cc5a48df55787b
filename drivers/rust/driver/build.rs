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
