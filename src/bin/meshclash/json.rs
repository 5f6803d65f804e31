//! The JSON each command prints (`--json`): the contract in `docs/cli.md`. The answers' own
//! fields are the library's ([`meshclash::json`]); the command line adds who answered and how
//! long each stage took.

use meshclash::json::timings as timings_json;
pub use meshclash::json::v3;
use meshclash::{Backend, CheckReport, SelfReport, SolidDistance, Timings};
use serde_json::{json, Value};

/// The adapter that answered, or `null` on the CPU.
fn adapter(backend: &Backend) -> Value {
    backend
        .adapter()
        .and_then(|a| serde_json::to_value(a).ok())
        .unwrap_or(Value::Null)
}

pub fn check_json(r: &CheckReport, with_pairs: bool, backend: &Backend) -> Value {
    let mut out = meshclash::json::check(r, with_pairs);
    out["backend"] = json!(backend.name());
    out["adapter"] = adapter(backend);
    out["timings_ms"] = timings_json(&r.timings);
    out
}

pub fn quick_json(r: &SolidDistance, timings: &Timings) -> Value {
    let mut out = meshclash::json::solid_distance(r);
    out["backend"] = json!("cpu");
    out["timings_ms"] = timings_json(timings);
    out
}

pub fn self_json(r: &SelfReport, with_pairs: bool, backend: &Backend) -> Value {
    let mut out = meshclash::json::self_intersections(r, with_pairs);
    out["backend"] = json!(backend.name());
    out["adapter"] = adapter(backend);
    out["timings_ms"] = timings_json(&r.timings);
    out
}
