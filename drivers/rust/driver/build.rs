//! Records what `info` must report as facts, not hopes: the versions of the linked libraries
//! (from the workspace's Cargo.lock, which `--locked` builds follow), the rustc that compiles
//! this crate and the profile settings it is built with.

use std::env;
use std::fs;
use std::path::Path;
use std::process::Command;

/// Every library linked into the driver (`cargo tree -e normal`, proc macros left out),
/// reported in `info.libraries`. A library that leaves Cargo.lock fails the build, so the list
/// cannot claim one that is gone.
const LIBRARIES: &[&str] = &[
    "serde",
    "serde_core",
    "serde_json",
    "serde_path_to_error",
    "itoa",
    "memchr",
    "zmij",
    "bincode",
    "flate2",
    "miniz_oxide",
    "adler2",
    "simd-adler32",
    "crc32fast",
    "cfg-if",
    "libc",
    "mimalloc",
    "libmimalloc-sys",
    "rkyv",
    "rend",
    "bytecheck",
    "rancor",
    "ptr_meta",
    "munge",
    "simdutf8",
];

fn main() {
    let workspace = Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap()).join("..");
    let lock = workspace.join("Cargo.lock");
    let manifest = workspace.join("Cargo.toml");
    println!("cargo:rerun-if-changed={}", lock.display());
    println!("cargo:rerun-if-changed={}", manifest.display());

    let lock = fs::read_to_string(lock).expect("the workspace has a Cargo.lock");
    let versions: Vec<String> = LIBRARIES
        .iter()
        .map(|name| format!("{name}={}", locked_version(&lock, name)))
        .collect();
    println!("cargo:rustc-env=SERBENCH_LIBRARIES={}", versions.join(";"));

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

/// The version of `name` in Cargo.lock (`[[package]]` blocks of `name = ` then `version = `).
fn locked_version(lock: &str, name: &str) -> String {
    let wanted = format!("name = \"{name}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == wanted {
            if let Some(version) = lines
                .next()
                .and_then(|l| l.trim().strip_prefix("version = "))
            {
                return version.trim_matches('"').to_string();
            }
        }
    }
    panic!("{name} is not in Cargo.lock");
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
