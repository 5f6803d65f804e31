// Structs and helpers shared by the stages; prepended to each stage's source. Rust twins:
// src/mesh/record.rs (TriRecord), src/octree/mod.rs (OctreeNode), src/gpu/layout.rs (the rest);
// sizes and offsets are checked against these by tests/layout.rs through naga.

// Vertices and sphere first: the 64 bytes the cull and narrow stages read share a cache line.
struct TriRecord {
    v: array<vec4<f32>, 3>,           // V0, V1, V2 (w = 0)
    sphere: vec4<f32>,                // centroid, w = radius
    normal: vec4<f32>,                // unit normal, w = n . V0
    e: array<vec4<f32>, 3>,           // E0 = V1-V0, E1 = V2-V1, E2 = V0-V2 (w = |E_i|)
    edge_normal: array<vec4<f32>, 3>, // (E_i/|E_i|) x n, outward; w = en_i . V_i
    bary: vec4<f32>,                  // E0.E0, E0.E2, E2.E2, w = 1/det (0: zero area)
}

// A node of the hierarchy rays and nearest points walk (bvh.rs): binary, depth-first.
struct BvhNode {
    min: vec3<f32>,
    index: u32,                       // inner: its first child (the second is next); leaf: its first slot
    max: vec3<f32>,
    count: u32,                       // a leaf's triangles; 0 for an inner node
}

// A node's oriented box in the record frame (layout::ObbNode; closest and poses read them): its
// centre, and three unit axes (xyz) with the half-extent along each (w), grown on the host to
// hold every point of the node although the axes are f32's.
struct ObbNode {
    center: vec4<f32>,
    axes: array<vec4<f32>, 3>,
}

// Up to CANDIDATES slots of the hierarchy a query keeps (closest: the triangles that may be
// nearest; rays, all hits: every triangle hit), or unsure.
struct SlotsOut {
    count: u32,
    unsure: u32,
    slots: array<u32, CANDIDATES>,
}

const CANDIDATES: u32 = 8u;

struct OctreeNode {
    min: vec3<f32>,
    first_child: u32,                 // 0xffffffff for a leaf
    max: vec3<f32>,
    child_count: u32,
    tri_start: u32,
    tri_count: u32,
    escape: u32,                      // next node of a depth-first walk after this subtree
    pad: u32,
}

struct Query {
    a: array<vec4<f32>, 3>,           // rows of [R_A | t_A] into the local frame
    b: array<vec4<f32>, 3>,
    tol: vec4<f32>,                   // d, cull pad, e_in, distance band
    chunk_start: u32,
    chunk_end: u32,
    capacity: u32,
    mode: u32,                        // 0 intersect, 1 clearance, 2 distance, 3 self, 4 self across parts
}

struct Hit {
    a: u32,
    b: u32,
    flag: u32,                        // CERTAIN, UNSURE (the CPU decides exactly), DISJOINT
    dist_bits: u32,
}

struct Counters {
    leaf_pairs: atomic<u32>,
    candidates: atomic<u32>,
    hits: atomic<u32>,
    min_dist_bits: atomic<u32>,
    walk_fault: atomic<u32>,          // FAULT_* bits: never set while the walks work as designed
    live_pairs: atomic<u32>,          // leaf pairs main takes: far's, or the last pass's deferred
    deferred: atomic<u32>,            // of those, the ones cull_pairs::main left for the next pass
    deferred_leaves: atomic<u32>,     // walks of cull_leaves left for the next pass
    paused_walks: atomic<u32>,        // walks that stopped at WALK_STEPS, to resume next pass
}

// walk_fault bits. A walk's loop has one way out, its end; leaving it otherwise means the
// driver cut the loop short (lavapipe does past 65535 iterations: WALK_STEPS below), and the
// walk's answer is incomplete: the host reports an error rather than a wrong answer.
const FAULT_STACK: u32 = 1u;
const FAULT_CUT_SHORT: u32 = 2u;

// Loop iterations one invocation of a walk may run in a pass; a walk stopped there records the
// node it stopped at and resumes from it in the round's next pass (nearest's sample just
// stops). Set per adapter and stage by the backend (gpu::WalkSteps::for_adapter): unbounded on
// a GPU. lavapipe ends every loop of an invocation once the loops of its SIMD group (8 lanes)
// have run 65535 iterations between them, with no error (Mesa's LP_MAX_TGSI_LOOP_ITERATIONS):
// without a budget, a long walk there silently misses part of B's tree.
override WALK_STEPS: u32 = 0xffffffffu;

struct DispatchArgs {
    x: u32,
    y: u32,
    z: u32,
}

const NO_CHILD: u32 = 0xffffffffu;
// Hit flags (gpu::layout::CERTAIN, UNSURE, DISJOINT); tri_tri's codes 1 and 2 are the first two.
const CERTAIN: u32 = 1u;
const UNSURE: u32 = 2u;
const DISJOINT: u32 = 3u;
const WG: u32 = 64u;
// Threads per leaf pair in cull_pairs: the octree's leaf size (octree::LEAF_SIZE, which every
// leaf keeps), one lane per triangle of A's leaf; and workgroups per dispatch row.
const LEAF_THREADS: u32 = 8u;
const ROW: u32 = 32768u;
// The thread's index in a dispatch of rows of at most ROW workgroups (GpuBackend::dispatch).
fn thread_index(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * WG;
}

// An indirect dispatch of `groups` workgroups in such rows (what thread_index numbers).
fn in_rows(groups: u32) -> DispatchArgs {
    return DispatchArgs(min(groups, ROW), (groups + ROW - 1u) / ROW, 1u);
}

// Traversal stack: seven siblings waiting at each level below the root, the root's one, for the
// octree's most levels (octree::MAX_LEVELS, 35: its splits by position and by index).
const STACK: u32 = 239u;

fn to_local(m: array<vec4<f32>, 3>, p: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(dot(m[0].xyz, p) + m[0].w, dot(m[1].xyz, p) + m[1].w, dot(m[2].xyz, p) + m[2].w);
}

const INF: f32 = 3.4028235e38;

const KEPT: u32 = 32u;
// Values a walk keeps for later (nodes, or their bounds' bits), the last kept in `a.x`: KEPT of
// them, in registers. A private array indexed by each lane's own depth is read and written lane
// by lane on a software adapter (lavapipe: every lane reading and writing back its element, a
// branch each); shifting eight vectors is a few SIMD moves and no memory (igea, 1M rays on
// lavapipe: 1.6 -> 1.3 s).
struct Kept {
    a: vec4<u32>,
    b: vec4<u32>,
    c: vec4<u32>,
    d: vec4<u32>,
    e: vec4<u32>,
    f: vec4<u32>,
    g: vec4<u32>,
    h: vec4<u32>,
}

// Keeps x on top of r (the bottom one falls off: the caller counts to KEPT).
fn push_kept(r: ptr<function, Kept>, x: u32) {
    (*r).h = vec4<u32>((*r).g.w, (*r).h.xyz);
    (*r).g = vec4<u32>((*r).f.w, (*r).g.xyz);
    (*r).f = vec4<u32>((*r).e.w, (*r).f.xyz);
    (*r).e = vec4<u32>((*r).d.w, (*r).e.xyz);
    (*r).d = vec4<u32>((*r).c.w, (*r).d.xyz);
    (*r).c = vec4<u32>((*r).b.w, (*r).c.xyz);
    (*r).b = vec4<u32>((*r).a.w, (*r).b.xyz);
    (*r).a = vec4<u32>(x, (*r).a.xyz);
}

// The top of r, taken off.
fn pop_kept(r: ptr<function, Kept>) -> u32 {
    let x = (*r).a.x;
    (*r).a = vec4<u32>((*r).a.yzw, (*r).b.x);
    (*r).b = vec4<u32>((*r).b.yzw, (*r).c.x);
    (*r).c = vec4<u32>((*r).c.yzw, (*r).d.x);
    (*r).d = vec4<u32>((*r).d.yzw, (*r).e.x);
    (*r).e = vec4<u32>((*r).e.yzw, (*r).f.x);
    (*r).f = vec4<u32>((*r).f.yzw, (*r).g.x);
    (*r).g = vec4<u32>((*r).g.yzw, (*r).h.x);
    (*r).h = vec4<u32>((*r).h.yzw, 0u);
    return x;
}

// Eight values of a lane (candidates, their bounds' bits) in registers, read and written at an
// index of the lane's own by selects, for the reason Kept gives.
struct Eight {
    a: vec4<u32>,
    b: vec4<u32>,
}

fn eight_at(v: Eight, k: u32) -> u32 {
    let lo = select(vec4<u32>(0u), v.a, vec4<u32>(k) == vec4<u32>(0u, 1u, 2u, 3u));
    let hi = select(vec4<u32>(0u), v.b, vec4<u32>(k) == vec4<u32>(4u, 5u, 6u, 7u));
    let t = lo | hi;
    return t.x | t.y | t.z | t.w;
}

// v with x at k.
fn eight_with(v: Eight, k: u32, x: u32) -> Eight {
    let a = select(v.a, vec4<u32>(x), vec4<u32>(k) == vec4<u32>(0u, 1u, 2u, 3u));
    let b = select(v.b, vec4<u32>(x), vec4<u32>(k) == vec4<u32>(4u, 5u, 6u, 7u));
    return Eight(a, b);
}

// A record frame from the local frame, by the inverse of the rows m = [R | t]: R^T (p - t).
fn from_local(m: array<vec4<f32>, 3>, p: vec3<f32>) -> vec3<f32> {
    let x = p - vec3<f32>(m[0].w, m[1].w, m[2].w);
    return vec3<f32>(
        m[0].x * x.x + m[1].x * x.y + m[2].x * x.z,
        m[0].y * x.x + m[1].y * x.y + m[2].y * x.z,
        m[0].z * x.x + m[1].z * x.y + m[2].z * x.z,
    );
}

// How far the point c lies outside the node's box, per axis (Ericson: point to AABB).
fn box_gap(node: OctreeNode, c: vec3<f32>) -> vec3<f32> {
    return max(node.min - c, vec3<f32>(0.0)) + max(c - node.max, vec3<f32>(0.0));
}

// The positions of a leaf's triangles within this round's chunk (empty for an inner node, or a
// leaf outside the chunk: x >= y).
fn leaf_range(node: OctreeNode, chunk_start: u32, chunk_end: u32) -> vec2<u32> {
    if (node.first_child != NO_CHILD) {
        return vec2<u32>(0u);
    }
    return vec2<u32>(max(node.tri_start, chunk_start), min(node.tri_start + node.tri_count, chunk_end));
}

// A node of A carried into B's record frame: its centre, and the half-extent of the box around
// the rotated box (|M| h with M = R_B^T R_A).
struct Box {
    c: vec3<f32>,
    h: vec3<f32>,
}

fn box_into_b(a: array<vec4<f32>, 3>, b: array<vec4<f32>, 3>, node: OctreeNode) -> Box {
    var m: array<vec3<f32>, 3>;
    for (var r = 0u; r < 3u; r = r + 1u) {
        m[r] = vec3<f32>(
            b[0][r] * a[0].x + b[1][r] * a[1].x + b[2][r] * a[2].x,
            b[0][r] * a[0].y + b[1][r] * a[1].y + b[2][r] * a[2].y,
            b[0][r] * a[0].z + b[1][r] * a[1].z + b[2][r] * a[2].z,
        );
    }
    let ha = 0.5 * (node.max - node.min);
    let c = from_local(b, to_local(a, 0.5 * (node.max + node.min)));
    return Box(c, vec3<f32>(dot(abs(m[0]), ha), dot(abs(m[1]), ha), dot(abs(m[2]), ha)));
}

// How far B's node box and a carried box of A lie apart, per axis.
fn box_box_gap(node: OctreeNode, bx: Box) -> vec3<f32> {
    return max(abs(0.5 * (node.max + node.min) - bx.c) - 0.5 * (node.max - node.min) - bx.h, vec3<f32>(0.0));
}


// Distance helpers shared by cull.wgsl (nearest) and narrow.wgsl. CPU twin: gpu::twin::common.

// Closest points of segments p1q1, p2q2 (Ericson 5.1.9, as geom::closest), squared distance.
fn seg_seg(p1: vec3<f32>, q1: vec3<f32>, p2: vec3<f32>, q2: vec3<f32>) -> f32 {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = dot(d1, d1);
    let e = dot(d2, d2);
    let f = dot(d2, r);
    var s = 0.0;
    var t = 0.0;
    if (a == 0.0 && e == 0.0) {
        s = 0.0;
        t = 0.0;
    } else if (a == 0.0) {
        t = clamp(f / e, 0.0, 1.0);
    } else {
        let c = dot(d1, r);
        if (e == 0.0) {
            s = clamp(-c / a, 0.0, 1.0);
        } else {
            let b = dot(d1, d2);
            // a e - b^2 and b f - c e by Lagrange's identity, |d1 x d2|^2 and
            // (d1 x d2) . (d2 x r): as differences of products they cancel for edges nearly
            // parallel, where s0 came out anywhere in [0, 1] and the distance up to
            // 2500 u of the frame's scale too large (a review found pairs past the band).
            let n = cross(d1, d2);
            let k = pow2_scale(n);
            let w = n * k;
            let den = dot(w, w);
            var s0 = 0.0;
            if (den > 0.0) {
                s0 = clamp(dot(w, cross(d2, r)) / den * k, 0.0, 1.0);
            }
            let t0 = (b * s0 + f) / e;
            if (t0 < 0.0) {
                t = 0.0;
                s = clamp(-c / a, 0.0, 1.0);
            } else if (t0 > 1.0) {
                t = 1.0;
                s = clamp((b - c) / a, 0.0, 1.0);
            } else {
                t = t0;
                s = s0;
            }
        }
    }
    let x = (p1 + d1 * s) - (p2 + d2 * t);
    return dot(x, x);
}

// Squared distance from p to the plane of t (unit normal n) when p projects inside t, else
// INF (the edges cover that case). Only called for well-shaped triangles.
fn vertex_face(p: vec3<f32>, t: array<vec3<f32>, 3>, n: vec3<f32>) -> f32 {
    let h = dot(p - t[0], n);
    let x = p - n * h;
    let c0 = dot(cross(t[1] - t[0], x - t[0]), n);
    let c1 = dot(cross(t[2] - t[1], x - t[1]), n);
    let c2 = dot(cross(t[0] - t[2], x - t[2]), n);
    if (c0 >= 0.0 && c1 >= 0.0 && c2 >= 0.0) {
        return h * h;
    }
    return INF;
}

fn longest(t: array<vec3<f32>, 3>) -> f32 {
    return max(max(length(t[1] - t[0]), length(t[2] - t[1])), length(t[0] - t[2]));
}

// The smallest squared distance from x's vertices to t's face, INF if none projects inside,
// or, for a sliver t, INF and its height in the slack: a sliver's face lies within its height
// of its edges; a well-shaped triangle has its smallest height at least 1e-2 of its longest
// edge.
struct FaceTerm {
    best: f32,
    slack: f32,
}

fn vertices_face(x: array<vec3<f32>, 3>, t: array<vec3<f32>, 3>) -> FaceTerm {
    let l = longest(t);
    let cr = cross(t[1] - t[0], t[2] - t[0]);
    let s = pow2_scale(cr);
    let w = cr * s;
    var h = 0.0;
    if (l != 0.0) {
        h = length(w) / s / l;
    }
    if (!(h >= 1e-2 * l)) {
        return FaceTerm(INF, h);
    }
    let n = normalize(w);
    return FaceTerm(min(min(vertex_face(x[0], t, n), vertex_face(x[1], t, n)), vertex_face(x[2], t, n)), 0.0);
}

// f32 distance of two disjoint triangles (Nathan (2015) step 3): vertex-face and edge-edge. For a
// sliver the vertex-face terms are dropped and its height subtracted, which keeps the value a
// lower bound; otherwise it is within the band q.tol.w of the true distance. Written out, not
// looped: lavapipe kept the loops' dynamically indexed arrays in memory.
fn tri_dist(p: array<vec3<f32>, 3>, r: array<vec3<f32>, 3>) -> f32 {
    let d = pair_dist(p, r);
    return max(d.x - d.y, 0.0);
}

// tri_dist's parts: the least distance among the terms it measures (x: a distance between
// points of the two triangles, so within the band above the true distance, sliver or not),
// and the slivers' heights it subtracts (y).
fn pair_dist(p: array<vec3<f32>, 3>, r: array<vec3<f32>, 3>) -> vec2<f32> {
    let e0 = min(min(seg_seg(p[0], p[1], r[0], r[1]), seg_seg(p[0], p[1], r[1], r[2])), seg_seg(p[0], p[1], r[2], r[0]));
    let e1 = min(min(seg_seg(p[1], p[2], r[0], r[1]), seg_seg(p[1], p[2], r[1], r[2])), seg_seg(p[1], p[2], r[2], r[0]));
    let e2 = min(min(seg_seg(p[2], p[0], r[0], r[1]), seg_seg(p[2], p[0], r[1], r[2])), seg_seg(p[2], p[0], r[2], r[0]));
    let fr = vertices_face(p, r);
    let fp = vertices_face(r, p);
    let best = min(min(min(e0, e1), e2), min(fr.best, fp.best));
    return vec2<f32>(sqrt(best), fr.slack + fp.slack);
}


// A's plane for plane_bound: unit normal n (0 when A has no area in f32), A's own thickness w
// along it (0 up to rounding; whatever direction rounding gave n, A lies within w of its plane,
// which keeps the bound valid for slivers too, if weak), and A's longest edge.
struct Plane {
    n: vec3<f32>,
    w: f32,
    l: f32,
}

fn plane_of(p: array<vec3<f32>, 3>) -> Plane {
    let n = unit_or_zero(cross(p[1] - p[0], p[2] - p[0]));
    if (!(dot(n, n) > 0.0)) {
        return Plane(vec3<f32>(0.0), INF, 0.0);
    }
    return Plane(n, max(abs(dot(p[1] - p[0], n)), abs(dot(p[2] - p[0], n))), longest(p));
}

// A lower bound on the distance between the f32 triangles p and t: the gap between their spans
// along the line joining their vertex sums (any axis bounds the distance from below; this one
// separates triangles side by side, which no plane does), less the rounding of the projections
// (16 u of the span, the largest distance from p[0] to a vertex of either); 0 or less when the
// spans overlap. Callers add the input error bound.
fn axis_bound(p: array<vec3<f32>, 3>, t: array<vec3<f32>, 3>) -> f32 {
    let ax = (t[0] + t[1] + t[2]) - (p[0] + p[1] + p[2]);
    let len = length(ax);
    if (!(len > 0.0)) {
        return 0.0;
    }
    let dp = array<vec3<f32>, 2>(p[1] - p[0], p[2] - p[0]);
    let dt = array<vec3<f32>, 3>(t[0] - p[0], t[1] - p[0], t[2] - p[0]);
    let span = sqrt(max(max(max(dot(dp[0], dp[0]), dot(dp[1], dp[1])), max(dot(dt[0], dt[0]), dot(dt[1], dt[1]))), dot(dt[2], dt[2])));
    return gap_on(dp, dt, ax / len) - 16.0 * 5.9604645e-8 * span;
}

// Spans along an axis, for the gap bounds of sets of triangles: s = (lowest projection, highest
// projection, largest distance from the reference point), grown by the point v (taken from the
// reference point). EMPTY_SPAN grows into any point's.
const EMPTY_SPAN: vec3<f32> = vec3<f32>(INF, -INF, 0.0);

fn span_with(s: vec3<f32>, v: vec3<f32>, axis: vec3<f32>) -> vec3<f32> {
    let x = dot(v, axis);
    return vec3<f32>(min(s.x, x), max(s.y, x), max(s.z, length(v)));
}

// The gap between two sets' spans, less the rounding of the projections (16 u of the largest
// distance from the reference point): a lower bound on the distance between any point of the one
// set and any of the other, before the inputs' own error (callers add it).
fn span_gap(a: vec3<f32>, b: vec3<f32>) -> f32 {
    return max(b.x - a.y, a.x - b.y) - 16.0 * 5.9604645e-8 * max(a.z, b.z);
}

// A lower bound on the distance between the f32 triangles p and t: t's nearest vertex height
// over p's plane when all three lie on one side, less p's thickness and the rounding of the
// dot products (16 u of the span, the largest distance from p[0] to a vertex of either);
// 0 or less otherwise. Callers add the input error bound.
fn plane_bound(p: array<vec3<f32>, 3>, pl: Plane, t: array<vec3<f32>, 3>) -> f32 {
    let d0 = t[0] - p[0];
    let d1 = t[1] - p[0];
    let d2 = t[2] - p[0];
    let h = vec3<f32>(dot(d0, pl.n), dot(d1, pl.n), dot(d2, pl.n));
    var g = 0.0;
    if (all(h > vec3<f32>(0.0))) {
        g = min(min(h.x, h.y), h.z);
    } else if (all(h < vec3<f32>(0.0))) {
        g = -max(max(h.x, h.y), h.z);
    }
    let span = max(sqrt(max(max(dot(d0, d0), dot(d1, d1)), dot(d2, d2))), pl.l);
    return g - pl.w - 16.0 * 5.9604645e-8 * span;
}

// A lower bound on the distance between p and t from an orthonormal frame: n, and u0..u2 in
// the plane normal to n. Any displacement v has |v|^2 >= (v.n)^2 + (v.u)^2 for unit u normal to
// n, so the gap along n and the largest gap along the u_k add as a hypotenuse. With n a
// triangle's normal and the u_k its edges' normals within its plane, a pair side by side across
// a thin gap (which the gap along n alone leaves to the narrow stage) is bounded by nearly its
// distance. dp: p[1] - p[0], p[2] - p[0]; dt: t's vertices less p[0]; span: the largest of
// their lengths. Each gap is less the rounding of its projections (16 u of the span, as
// axis_bound); the frame is orthonormal to within a few u, which 1 - 1e-5 covers many times.
fn frame_bound(dp: array<vec3<f32>, 2>, dt: array<vec3<f32>, 3>, span: f32, n: vec3<f32>, u: array<vec3<f32>, 3>) -> f32 {
    let m = 16.0 * 5.9604645e-8 * span;
    let gn = max(gap_on(dp, dt, n) - m, 0.0);
    let gu = max(max(max(gap_on(dp, dt, u[0]), gap_on(dp, dt, u[1])), gap_on(dp, dt, u[2])) - m, 0.0);
    return sqrt(gn * gn + gu * gu) * (1.0 - 1e-5);
}

// The gap between the projections of p (p[0] at 0, then dp) and t (dt) on u, either way along
// it; not positive when they overlap.
fn gap_on(dp: array<vec3<f32>, 2>, dt: array<vec3<f32>, 3>, u: vec3<f32>) -> f32 {
    let xp = vec3<f32>(0.0, dot(dp[0], u), dot(dp[1], u));
    let xt = vec3<f32>(dot(dt[0], u), dot(dt[1], u), dot(dt[2], u));
    return max(min(min(xt.x, xt.y), xt.z) - max(max(xp.x, xp.y), xp.z), min(min(xp.x, xp.y), xp.z) - max(max(xt.x, xt.y), xt.z));
}

// v / |v|, or 0 where v has no direction (a zero-area triangle's normal).
fn unit_or_zero(v: vec3<f32>) -> vec3<f32> {
    let w = v * pow2_scale(v);
    let l = length(w);
    if (l > 0.0) {
        return w / l;
    }
    return vec3<f32>(0.0);
}

// The power of two that takes v's largest component into [1/2, 1) (within f32's normal
// exponents). Scaling a short vector up by it is exact, and keeps the squares of its
// components normal: a triangle a few units in the last place across has an edge cross
// product near 1e-19, whose squares drivers that flush subnormals to zero would drop (a
// normal came out zero, or a few per cent long). Where nothing was subnormal, nothing changes
// (but for seg_seg's s0 within 2^-126 k of 0, now 0).
fn pow2_scale(v: vec3<f32>) -> f32 {
    let a = abs(v);
    let m = max(max(a.x, a.y), a.z);
    let e = i32((bitcast<u32>(m) >> 23u) & 0xffu);
    return bitcast<f32>(u32(max(253 - e, 1)) << 23u);
}
