//! `info`: the capability matrix and the versions of everything this binary was built with.

use serbench_model::ModelId;
use serde_json::{json, Map, Value};

use crate::evict::EVICTION;
use crate::net::NET_TASKS;
use crate::registry::{METHODS, TASKS};

/// The `info` object of PROTOCOL.md section 3.
pub fn info() -> Value {
    let models: Vec<&str> = ModelId::ALL.iter().map(|m| m.name()).collect();
    let methods: Map<String, Value> = METHODS
        .iter()
        .map(|m| {
            let depths: Vec<&str> = m.depths.iter().map(|d| d.id()).collect();
            let mut spec = json!({"depths": depths, "variants": m.variants, "models": models,
                                  "files": m.files, "settings": (m.settings)()});
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
        "libraries": libraries(),
        "models": models,
        "tasks": TASKS,
        "net_tasks": NET_TASKS,
        "methods": methods,
        "eviction": [EVICTION],
    })
}

/// name → version of every linked library, as build.rs found them in Cargo.lock.
fn libraries() -> Map<String, Value> {
    env!("SERBENCH_LIBRARIES")
        .split(';')
        .filter_map(|pair| pair.split_once('='))
        .map(|(name, version)| (name.to_string(), Value::from(version)))
        .collect()
}
