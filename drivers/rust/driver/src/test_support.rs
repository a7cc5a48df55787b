//! Helpers shared by the unit tests: the repository's golden vectors and scratch folders.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use crate::paged::RunStamp;

/// The run stamp of the tests' own files: a codec that trusts its bytes reads only these.
pub const TEST_RUN: RunStamp = *b"serbench-test-rn";

/// The one skip policy (README, Testing): whether the test's prerequisite is present. A test
/// without it returns early, saying why on stderr (libtest has no skip), or fails under
/// CI=true, where `make test` has set everything up and a skip would hide a break.
pub fn require(present: bool, reason: &str) -> bool {
    if !present {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "missing prerequisite under CI=true: {reason}"
        );
        eprintln!("skipped: {reason}");
    }
    present
}

/// The repository's `vectors/` folder.
pub fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../vectors")
}

/// A fresh, empty folder under the system's temporary folder, removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new() -> Scratch {
        Scratch::new_in(&std::env::temp_dir())
    }

    /// A scratch folder under `parent` (e.g. on a filesystem a test needs).
    pub fn new_in(parent: &Path) -> Scratch {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = parent.join(format!("serbench-driver-test-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Scratch(path)
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
