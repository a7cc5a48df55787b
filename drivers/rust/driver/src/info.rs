//! `info`: the capability matrix and the versions of everything this binary was built with.

use serbench_model::ModelId;
use serde_json::{json, Map, Value};

use crate::evict::EVICTION;
use crate::net::NET_TASKS;
use crate::registry::{METHODS, TASKS};

/// The `info` object of PROTOCOL.md section 3.
pub fn info() -> Value {
    let linked = libraries();
    let models: Vec<&str> = ModelId::ALL.iter().map(|m| m.name()).collect();
    let methods: Map<String, Value> = METHODS
        .iter()
        .map(|m| {
            let depths: Vec<&str> = m.depths.iter().map(|d| d.id()).collect();
            let mut spec = json!({"depths": depths, "variants": m.offered_variants(),
                                  "models": models,
                                  "files": m.files, "settings": (m.settings)(),
                                  "libraries": method_libraries(m.libraries, &linked)});
            if !m.writes {
                // the raw floor is also the write floor (tasks/write.rs) and the sort floor
                // (tasks/sort_dedup/floor.rs): PROTOCOL.md 5 and 5.2.1
                spec["floors"] = json!(["write", "sort_dedup"]);
            }
            (m.id.to_string(), spec)
        })
        .collect();
    json!({
        "language": "rust",
        "driver_version": env!("CARGO_PKG_VERSION"),
        "toolchain": {
            "rustc": env!("SERBENCH_RUSTC").trim_start_matches("rustc "),
            "profile": env!("SERBENCH_PROFILE"),
            "flags": env!("SERBENCH_PROFILE_FLAGS"),
        },
        "libraries": linked,
        "models": models,
        "tasks": TASKS,
        "net_tasks": NET_TASKS,
        "methods": methods,
        "eviction": [EVICTION],
    })
}

/// name → version of each crate a method names (`name@major`: the linked version of that
/// major); a name that is not linked is a mistake the info test catches ("not linked").
fn method_libraries(names: &[&str], linked: &Map<String, Value>) -> Map<String, Value> {
    names
        .iter()
        .map(|name| {
            let (crate_name, major) = name.split_once('@').unwrap_or((name, ""));
            let versions = linked.get(crate_name).and_then(Value::as_str).unwrap_or("");
            let version = versions
                .split(", ")
                .find(|v| v.split('.').next() == Some(major) || major.is_empty())
                .filter(|v| !v.is_empty())
                .unwrap_or("not linked");
            (crate_name.to_string(), Value::from(version))
        })
        .collect()
}

/// name → version of every linked library, as build.rs found them in Cargo.lock.
fn libraries() -> Map<String, Value> {
    env!("SERBENCH_LIBRARIES")
        .split(';')
        .filter_map(|pair| pair.split_once('='))
        .map(|(name, version)| (name.to_string(), Value::from(version)))
        .collect()
}
