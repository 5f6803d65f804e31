// Cull, second half: candidate pairs. First far keeps the leaf pairs from cull_leaves.wgsl that
// leaf_far cannot settle, then main takes LEAF_THREADS threads per kept leaf pair;
// thread s takes the pair's A triangle s (a leaf holds at most LEAF_THREADS) and tests it against
// every triangle of the B leaf by Nathan's step 1 with tolerance d, padded by the f32 error bound:
// |C_j - C_i|^2 <= (R_i + R_j + d + pad)^2 (both centres in B's record frame).
// CPU twin: gpu::twin::cull_pairs.

@group(0) @binding(0) var<uniform> q: Query;
@group(0) @binding(1) var<storage, read> tris_a: array<TriRecord>;
@group(0) @binding(2) var<storage, read> tris_b: array<TriRecord>;
@group(0) @binding(5) var<storage, read> leaf_pairs: array<vec4<u32>>; // far's input
@group(0) @binding(6) var<storage, read_write> pairs: array<vec2<u32>>;
@group(0) @binding(7) var<storage, read_write> counters: Counters;
@group(0) @binding(8) var<storage, read_write> args: DispatchArgs; // narrow's indirect dispatch
@group(0) @binding(9) var<storage, read_write> live_pairs: array<vec4<u32>>; // far's output, main's input
@group(0) @binding(10) var<storage, read_write> args_main: DispatchArgs; // main's indirect dispatch
@group(0) @binding(11) var<storage, read_write> deferred_pairs: array<vec4<u32>>; // main's output: for the next pass

var<workgroup> wg_count: atomic<u32>;
var<workgroup> wg_base: u32;
var<workgroup> wg_deferred_base: u32;
var<workgroup> wg_pairs: atomic<u32>;
var<workgroup> wg_skipped: atomic<u32>;

// Triangle i of A in B's record frame: its sphere centre c and reach R_i + d + pad, its
// vertices and its plane, its edges from p[0] (dp) and their length (span), and its edges'
// normals within its plane (en), for the tests of its pairs.
struct Near {
    c: vec3<f32>,
    reach: f32,
    p: array<vec3<f32>, 3>,
    pl: Plane,
    dp: array<vec3<f32>, 2>,
    span: f32,
    en: array<vec3<f32>, 3>,
}

fn near_of(i: u32) -> Near {
    let p = array<vec3<f32>, 3>(
        from_local(q.b, to_local(q.a, tris_a[i].v[0].xyz)),
        from_local(q.b, to_local(q.a, tris_a[i].v[1].xyz)),
        from_local(q.b, to_local(q.a, tris_a[i].v[2].xyz)),
    );
    let s = tris_a[i].sphere;
    let pl = plane_of(p);
    let dp = array<vec3<f32>, 2>(p[1] - p[0], p[2] - p[0]);
    let en = array<vec3<f32>, 3>(
        unit_or_zero(cross(p[1] - p[0], pl.n)),
        unit_or_zero(cross(p[2] - p[1], pl.n)),
        unit_or_zero(cross(p[0] - p[2], pl.n)),
    );
    let span = sqrt(max(dot(dp[0], dp[0]), dot(dp[1], dp[1])));
    return Near(from_local(q.b, to_local(q.a, s.xyz)), s.w + q.tol.x + q.tol.y, p, pl, dp, span, en);
}

// Whether pair (i, j) passes: |C_j - c|^2 <= (reach + R_j)^2, and none of the plane, axis
// and frame bounds (common.wgsl) puts it certainly farther apart than d (the inputs' error is
// in pad). The bounds leave the narrow stage only the pairs it may have to report: where two
// surfaces face each other across a gap, a fraction of those the spheres let through. The
// frame bound, from A's triangle's plane and its edges' normals within it, settles most pairs
// side by side across the gap. B's frame too settled more (inside: 11 % fewer candidates, not
// 1 %) but cost more than it saved on lavapipe. A bound that is NaN settles nothing.
fn passes(i: u32, j: u32, a: Near) -> bool {
    if (q.mode == 3u && j <= i) {
        return false; // self: each unordered pair once
    }
    let sj = tris_b[j].sphere;
    let d = sj.xyz - a.c;
    let r = a.reach + sj.w;
    if (dot(d, d) > r * r) {
        return false;
    }
    let t = array<vec3<f32>, 3>(tris_b[j].v[0].xyz, tris_b[j].v[1].xyz, tris_b[j].v[2].xyz);
    let reach = q.tol.x + q.tol.y;
    if (max(plane_bound(a.p, a.pl, t), axis_bound(a.p, t)) > reach) {
        return false;
    }
    let dt = array<vec3<f32>, 3>(t[0] - a.p[0], t[1] - a.p[0], t[2] - a.p[0]);
    let span = max(a.span, sqrt(max(max(dot(dt[0], dt[0]), dot(dt[1], dt[1])), dot(dt[2], dt[2]))));
    return !(frame_bound(a.dp, dt, span, a.pl.n, a.en) > reach);
}

// A lower bound on the distance between the A and B triangles of the leaf pair pr, from a frame
// as common.wgsl::frame_bound's: n, the normal of B's first triangle, and u, the direction from
// B's first sphere centre to A's, less its part along n (twice: where the direction is nearly
// n, one pass leaves mostly rounding). For unit n and u with |n . u| = c, every v has
// (v.n)^2 + (v.u)^2 <= (1 + c) |v|^2: the gaps between the two sets' spans along n and along u
// add as a hypotenuse, each less the rounding of its projections (16 u of the largest distance
// from the reference point), times 1 - 1e-5 for c up to 1e-6 and the f32 units' lengths. A u
// further off (the direction was rounding alone) is dropped, leaving the gap along n. The
// inputs' own error is the caller's (in pad, with d).
// Where two surfaces face each other across a gap, the gap along n alone settles the leaf
// pairs that are not above one another; the one along u settles those side by side (near
// miss: 29 % fewer leaf pairs for main).
fn leaf_bound(pr: vec4<u32>) -> f32 {
    let n = tris_b[pr.z].normal.xyz;
    let origin = tris_b[pr.z].v[0].xyz;
    let dc = from_local(q.b, to_local(q.a, tris_a[pr.x].sphere.xyz)) - tris_b[pr.z].sphere.xyz;
    let u1 = unit_or_zero(dc - dot(dc, n) * n);
    let u2 = unit_or_zero(u1 - dot(u1, n) * n);
    let u = select(vec3<f32>(0.0), u2, abs(dot(u2, n)) <= 1e-6);
    var sa = EMPTY_SPAN;
    var sb = EMPTY_SPAN;
    var ta = EMPTY_SPAN;
    var tb = EMPTY_SPAN;
    for (var s = 0u; s < pr.y; s = s + 1u) {
        let i = pr.x + s;
        for (var k = 0u; k < 3u; k = k + 1u) {
            let v = from_local(q.b, to_local(q.a, tris_a[i].v[k].xyz)) - origin;
            sa = span_with(sa, v, n);
            ta = span_with(ta, v, u);
        }
    }
    for (var s = 0u; s < pr.w; s = s + 1u) {
        let j = pr.z + s;
        for (var k = 0u; k < 3u; k = k + 1u) {
            let v = tris_b[j].v[k].xyz - origin;
            sb = span_with(sb, v, n);
            tb = span_with(tb, v, u);
        }
    }
    if (!(dot(n, n) > 0.0)) {
        return 0.0; // B's first triangle has no area: no frame
    }
    let gn = max(span_gap(sa, sb), 0.0);
    let gu = max(span_gap(ta, tb), 0.0);
    return sqrt(gn * gn + gu * gu) * (1.0 - 1e-5);
}

// Whether the leaf pair pr is certainly farther apart than d (leaf_bound). Settled here, a leaf
// pair costs main nothing: its 64 sphere tests and their bounds.
fn leaf_far(pr: vec4<u32>) -> bool {
    return pr.w != 0u && leaf_bound(pr) > q.tol.x + q.tol.y;
}

var<workgroup> wg_live: atomic<u32>;
var<workgroup> wg_live_base: u32;

// Before main, one thread per leaf pair: the leaf pairs leaf_far cannot settle are copied to
// live_pairs (slots reserved per workgroup, as in main), and only those get main's lanes. A
// stage of its own rather than main's eight lanes sharing the projections: their barrier and
// exchange cost lavapipe more than the projections themselves, and a settled leaf pair now
// costs main nothing.
@compute @workgroup_size(64)
fn far(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
) {
    let lp = thread_index(gid, nwg);
    var pr = vec4<u32>(0u);
    var live = false;
    if (lp < min(atomicLoad(&counters.leaf_pairs), q.capacity)) {
        pr = leaf_pairs[lp];
        live = !leaf_far(pr);
    }
    var offset = 0u;
    if (live) {
        offset = atomicAdd(&wg_live, 1u);
    }
    workgroupBarrier();
    if (li == 0u) {
        wg_live_base = atomicAdd(&counters.live_pairs, atomicLoad(&wg_live));
    }
    workgroupBarrier();
    if (live) {
        live_pairs[wg_live_base + offset] = pr; // at most one per leaf pair: within capacity
    }
}

// Main's indirect dispatch over `n` leaf pairs: LEAF_THREADS threads each, in rows.
fn main_dispatch(n: u32) -> DispatchArgs {
    return in_rows((n * LEAF_THREADS + WG - 1u) / WG);
}

// One thread: main's dispatch over the leaf pairs far kept.
@compute @workgroup_size(1)
fn far_finish() {
    args_main = main_dispatch(atomicLoad(&counters.live_pairs));
}

// A workgroup's reservation that did not fit: its leaf pairs wait for the next pass.
const DEFERRED: u32 = 0xffffffffu;

// Count, reserve the workgroup's slots with one global compare and swap, then write: one global
// atomic per candidate made every thread queue on one address. Each lane takes one triangle of
// A's leaf (no leaf holds more than LEAF_THREADS: octree::LEAF_SIZE) against the B leaf's, at
// most as many, and keeps its answers as bits for the write. Written without a loop over A's
// triangles, and without the second pass that repeated the tests for larger leaves: lavapipe
// charges every invocation for an entry point's code, run or not (near-miss round at 100k on
// one thread, median of six: 654 -> 555 ms).
// A pass never holds more candidates than its capacity, and never part of a leaf pair's: a
// workgroup reserves its slots only if all of them fit (compare and swap). One that does not
// fit copies its leaf pairs to deferred_pairs, the next pass's live pairs: that pass runs main
// and narrow again on them alone (GpuBackend::rounds). Once one workgroup has deferred, the
// later ones of the pass defer without testing. An overflowing pass keeps what it found.
@compute @workgroup_size(64)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) li: u32,
) {
    let t = thread_index(gid, nwg);
    let lp = t / LEAF_THREADS;
    let lane = t % LEAF_THREADS;
    var pr = vec4<u32>(0u);
    var nth = 0u; // this leaf pair's place among the workgroup's
    let has_pair = lp < atomicLoad(&counters.live_pairs);
    if (has_pair) {
        pr = live_pairs[lp];
        if (lane == 0u) {
            nth = atomicAdd(&wg_pairs, 1u);
        }
    }
    let whole = pr;
    if (has_pair && atomicLoad(&counters.deferred) != 0u) {
        atomicStore(&wg_skipped, 1u);
        pr.y = 0u;
    }
    let i = pr.x + lane;
    var bits = 0u;
    var n = 0u;
    if (lane < pr.y) {
        let a = near_of(i);
        for (var k = 0u; k < pr.w; k = k + 1u) {
            if (passes(i, pr.z + k, a)) {
                n = n + 1u;
                bits = bits | (1u << k);
            }
        }
    }
    let offset = atomicAdd(&wg_count, n);
    workgroupBarrier();
    if (li == 0u) {
        let total = atomicLoad(&wg_count);
        var base = DEFERRED;
        if (atomicLoad(&wg_skipped) == 0u) {
            var old = atomicLoad(&counters.candidates);
            loop {
                if (total > q.capacity - old) {
                    break;
                }
                let r = atomicCompareExchangeWeak(&counters.candidates, old, old + total);
                if (r.exchanged) {
                    base = old;
                    break;
                }
                old = r.old_value;
            }
        }
        if (base == DEFERRED) {
            wg_deferred_base = atomicAdd(&counters.deferred, atomicLoad(&wg_pairs));
        }
        wg_base = base;
    }
    workgroupBarrier();
    if (wg_base == DEFERRED) {
        if (has_pair && lane == 0u) {
            deferred_pairs[wg_deferred_base + nth] = whole; // at most the live pairs: within capacity
        }
        return;
    }
    var slot = wg_base + offset;
    for (var k = 0u; k < pr.w && n > 0u; k = k + 1u) {
        if ((bits & (1u << k)) != 0u) {
            pairs[slot] = vec2<u32>(i, pr.z + k);
            slot = slot + 1u;
        }
    }
}

// One thread: the narrow phase's indirect dispatch size, so that no readback separates them;
// and main's for the next pass, over the leaf pairs this one deferred.
@compute @workgroup_size(1)
fn finish() {
    args_main = main_dispatch(atomicLoad(&counters.deferred));
    args.x = (atomicLoad(&counters.candidates) + WG - 1u) / WG;
    args.y = 1u;
    args.z = 1u;
}
