//! Records what `info` must report as facts, not hopes: every library linked into the driver
//! with the version Cargo resolved for this build, the rustc that compiles this crate and the
//! profile settings it is built with.

use std::collections::{BTreeMap, BTreeSet};
use std::env;
use std::fs;
use std::path::Path;
use std::process::Command;

// generate_schemas: the schema files of every model, shared with the fbs crate's build
include!("../schemas.rs");

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
    let repo = workspace.join("../..");
    let schemas = generate_schemas(&repo);
    generate_protobuf(&schemas.join("proto"));
    generate_capnp(&schemas.join("capnp"), &native_fields(&repo));

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
        .expect("the proto schemas were written")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "proto"))
        .collect();
    protos.sort();
    prost_build::Config::new()
        .compile_protos(&protos, &[schemas])
        .expect("protoc compiles the proto schemas");
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

/// capnpc code for every model's structs (`capnp/<file>_capnp.rs` in OUT_DIR, compiled by
/// Debian's capnp 0.9.2), placed under `crate::methods::capnp::generated` where their imports
/// point, and `capnp/fields.rs`: one `capnp_records!` line per struct naming its generated
/// accessors field by field, so the codec's glue follows the schemas instead of restating them.
fn generate_capnp(schemas: &Path, natives: &Natives) {
    println!("cargo:rerun-if-changed={}", schemas.display());
    let out = Path::new(&env::var("OUT_DIR").unwrap()).join("capnp");
    fs::create_dir_all(&out).unwrap();
    let mut files: Vec<_> = fs::read_dir(schemas)
        .expect("the capnp schemas were written")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "capnp"))
        .collect();
    files.sort();
    let mut command = capnpc::CompilerCommand::new();
    command
        .src_prefix(schemas)
        .output_path(&out)
        .default_parent_module(["methods", "capnp", "generated"].map(String::from).to_vec());
    for file in &files {
        command.file(file);
    }
    command
        .run()
        .expect("capnp (Debian's 0.9.2) compiles the capnp schemas");

    let mut modules = String::new();
    let mut records = String::from("capnp_records! {\n");
    for file in &files {
        let module = format!("{}_capnp", file.file_stem().unwrap().to_string_lossy());
        let path = out.join(format!("{module}.rs"));
        modules.push_str(&format!(
            "#[allow(clippy::all, unused, unused_qualifications)]\npub mod {module} {{ include!({:?}); }}\n",
            path.display().to_string()
        ));
        let schema = fs::read_to_string(file).unwrap();
        records.push_str(&capnp_records(&module, &schema, natives));
    }
    records.push_str("}\n");
    fs::write(out.join("modules.rs"), modules).unwrap();
    fs::write(out.join("fields.rs"), records).unwrap();
}

/// `Native in module::snake { field: kind presence (accessors), … }` for every struct of one
/// schema file (docs/schemas.md: one field per line, optional pointers marked
/// `# optional`, optional scalars as `name :union { absent @n :Void; value @m :T; }`).
fn capnp_records(module: &str, schema: &str, natives: &Natives) -> String {
    let enums: BTreeSet<&str> = schema
        .lines()
        .filter_map(|l| l.trim().strip_prefix("enum "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let mut out = String::new();
    let mut record: Option<(&str, String)> = None;
    for line in schema.lines().map(str::trim) {
        if let Some(name) = line
            .strip_prefix("struct ")
            .and_then(|l| l.strip_suffix(" {"))
        {
            out.push_str(&format!("    {name} in {module}::{} {{\n", snake(name)));
            record = Some((name, snake(name)));
        } else if line == "}" {
            if record.take().is_some() {
                out.push_str("    }\n");
            }
        } else if let (Some((native, record)), Some((name, rest))) = (&record, line.split_once(' '))
        {
            if name.starts_with('#') {
                continue;
            }
            let field = &natives[&(native.to_string(), name.to_string())];
            out.push_str(&format!(
                "        {}\n",
                capnp_field(module, record, &enums, field, name, rest)
            ));
        }
    }
    out
}

/// `native: kind (accessors),` of one field line of struct `record`.
fn capnp_field(
    module: &str,
    record: &str,
    enums: &BTreeSet<&str>,
    native: &str,
    name: &str,
    rest: &str,
) -> String {
    let field = snake(name);
    let get = format!("get_{field}");
    let has = format!("has_{field}");
    let presence = if rest.contains("# optional") {
        "optional"
    } else {
        "required"
    };
    let ty = rest
        .split_once(':')
        .and_then(|(_, t)| t.split(';').next())
        .unwrap_or_else(|| panic!("{record}.{name}: a field has a type"))
        .trim();
    let kind = if ty.starts_with("union") {
        format!("union ({get}, {module}::{record}::{field})")
    } else if ty == "Text" {
        format!("text {presence} ({get}, {has}, set_{field})")
    } else if ty.starts_with("List(") {
        format!("list {presence} ({get}, {has}, init_{field})")
    } else if is_primitive(ty) || enums.contains(ty) {
        format!("scalar ({get}, set_{field})")
    } else {
        format!("record {presence} ({get}, {has}, init_{field})")
    };
    format!("{native}: {kind},")
}

/// `(struct, capnp field) -> native field`: the Rust name of each field of the schemas.
type Natives = BTreeMap<(String, String), String>;

/// Every model's fields as the model crate names them and as the capnp schemas do, from the
/// model generator (a JSON key's capnp name is camelCase, its Rust name is not).
fn native_fields(repo: &Path) -> Natives {
    let generator = repo.join("drivers/rust/codegen/generate_models.py");
    println!("cargo:rerun-if-changed={}", generator.display());
    let out = Command::new("python3")
        .arg("-B") // no bytecode beside the sources
        .arg(&generator)
        .arg("--capnp-names")
        .output()
        .expect("python3 runs the model generator");
    assert!(out.status.success(), "{} failed", generator.display());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let [name, capnp, native] = line.split(' ').collect::<Vec<_>>()[..] else {
                panic!("a line of three names: {line}");
            };
            ((name.to_string(), capnp.to_string()), native.to_string())
        })
        .collect()
}

fn is_primitive(ty: &str) -> bool {
    matches!(
        ty,
        "Bool"
            | "Int8"
            | "Int16"
            | "Int32"
            | "Int64"
            | "UInt8"
            | "UInt16"
            | "UInt32"
            | "UInt64"
            | "Float32"
            | "Float64"
    )
}

/// capnp's lowerCamelCase / UpperCamelCase name as capnpc's Rust snake_case.
fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}
