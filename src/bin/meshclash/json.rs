//! The JSON each command prints (`--json`): the contract in `docs/cli.md`. The answers' own
//! fields are the library's ([`meshclash::json`]); the command line adds who answered and how
//! long each stage took.

pub use meshclash::json::v3;
use meshclash::json::{timings as timings_json, Listed};
use meshclash::{Backend, CheckReport, SelfReport, SolidDistance, Timings};
use serde_json::{json, Value};

/// The adapter that answered, or `null` on the CPU.
fn adapter(backend: &Backend) -> Value {
    backend
        .adapter()
        .and_then(|a| serde_json::to_value(a).ok())
        .unwrap_or(Value::Null)
}

pub fn check_json<'a>(r: &'a CheckReport, with_pairs: bool, backend: &Backend) -> Listed<'a> {
    answered(
        meshclash::json::check_listed(r, with_pairs),
        backend,
        &r.timings,
    )
}

/// `out` with who answered and when: `backend`, `adapter` and `timings_ms`.
fn answered<'a>(mut out: Listed<'a>, backend: &Backend, timings: &Timings) -> Listed<'a> {
    out.head.insert("backend".into(), json!(backend.name()));
    out.head.insert("adapter".into(), adapter(backend));
    out.head.insert("timings_ms".into(), timings_json(timings));
    out
}

pub fn quick_json(r: &SolidDistance, timings: &Timings) -> Value {
    let mut out = meshclash::json::solid_distance(r);
    out["backend"] = json!("cpu");
    out["timings_ms"] = timings_json(timings);
    out
}

pub fn self_json<'a>(r: &'a SelfReport, with_pairs: bool, backend: &Backend) -> Listed<'a> {
    answered(
        meshclash::json::self_listed(r, with_pairs),
        backend,
        &r.timings,
    )
}
