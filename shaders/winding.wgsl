// Winding stage: for each point, the signed crossings of a ray from it with one part's
// triangles and with the caps that close the mesh's boundary (query::winding says why the
// mesh plus its caps winds an integer). A thread per point walks the part's octree by the
// nodes' escapes, visiting the leaves the ray's segment meets, and decides each crossing by f32
// orientations held to their error bound. The point is marked unsure (the host answers it in
// f64) where any sign is within its bound, or where the point lies within `delta` of a
// triangle: `delta` covers the rounding of the points and vertices into this f32 frame, so a
// point farther than it from every triangle winds the same here as in f64.
// Crossings add up over a mesh's parts (one dispatch each; the caps go with the first).
// CPU twin: gpu::twin::winding.

struct WindingQuery {
    dir: vec4<f32>,                   // the rays' direction (unit), w = the longest length
    points: u32,
    caps: u32,                        // cap triangles in `caps` (three corners each)
    delta: f32,
    pad: u32,
}

struct WindingOut {
    crossings: i32,
    unsure: u32,
}

@group(0) @binding(0) var<uniform> wq: WindingQuery;
@group(0) @binding(1) var<storage, read> tris: array<TriRecord>;
@group(0) @binding(2) var<storage, read> nodes: array<OctreeNode>;
@group(0) @binding(3) var<storage, read> points: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> caps: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> out: array<WindingOut>;

// Sign of (a-d) . ((b-d) x (c-d)), or 0 when the f32 value is within its error bound. The
// inputs are exact f32 values here, so only the evaluation's error counts. Evaluated as
// -((b-a) x (c-a)) . (d-a), pivoting on `a`: the callers put a near point first, and the far
// end of a ray last, so that one factor only is long and the bound (the product of the three
// lengths) stays as tight as the determinant.
fn orient_w(a: vec3<f32>, b: vec3<f32>, c: vec3<f32>, d: vec3<f32>) -> i32 {
    let ba = b - a;
    let ca = c - a;
    let da = d - a;
    let det = -dot(cross(ba, ca), da);
    let bound = 64.0 * U * length(ba) * length(ca) * length(da) + 1e-30;
    if (det > bound) {
        return 1;
    }
    if (det < -bound) {
        return -1;
    }
    return 0;
}

// 2^-24, the f32 unit roundoff (as narrow.wgsl).
const U: f32 = 5.9604645e-8;
const UNSURE_CROSSING: i32 = 2;

// How segment pq crosses triangle t: 0 not at all, +-1 through its inside (+1 where p lies
// behind it, query::winding::crossing's sign), UNSURE_CROSSING where a sign is in doubt.
fn crossing(p: vec3<f32>, q: vec3<f32>, t0: vec3<f32>, t1: vec3<f32>, t2: vec3<f32>) -> i32 {
    let op = orient_w(t0, t1, t2, p);
    let oq = orient_w(t0, t1, t2, q);
    if (op != 0 && op == oq) {
        return 0;
    }
    if (op == 0 || oq == 0) {
        return UNSURE_CROSSING;
    }
    let s0 = orient_w(p, q, t0, t1);
    let s1 = orient_w(p, q, t1, t2);
    let s2 = orient_w(p, q, t2, t0);
    let pos = s0 > 0 || s1 > 0 || s2 > 0;
    let neg = s0 < 0 || s1 < 0 || s2 < 0;
    if (pos && neg) {
        return 0;
    }
    if (s0 == 0 || s1 == 0 || s2 == 0) {
        return UNSURE_CROSSING;
    }
    return op;
}

// Whether p may lie within delta of the triangle: inside its box grown by delta, and within
// twice delta of its plane (the plane distance's own rounding is far below delta).
fn near(p: vec3<f32>, t0: vec3<f32>, t1: vec3<f32>, t2: vec3<f32>) -> bool {
    let lo = min(min(t0, t1), t2) - vec3<f32>(wq.delta);
    let hi = max(max(t0, t1), t2) + vec3<f32>(wq.delta);
    if (any(p < lo) || any(p > hi)) {
        return false;
    }
    let n = cross(t1 - t0, t2 - t0);
    let len = length(n);
    return !(abs(dot(n, p - t0)) > 2.0 * wq.delta * len);
}

// Whether the segment from p along the rays' direction meets the box grown by delta (slabs;
// the growth covers their rounding).
fn segment_meets(p: vec3<f32>, inv: vec3<f32>, len: f32, bmin: vec3<f32>, bmax: vec3<f32>) -> bool {
    let t0 = (bmin - vec3<f32>(wq.delta) - p) * inv;
    let t1 = (bmax + vec3<f32>(wq.delta) - p) * inv;
    let near_t = min(t0, t1);
    let far_t = max(t0, t1);
    let enter = max(max(near_t.x, near_t.y), max(near_t.z, 0.0));
    let leave = min(min(far_t.x, far_t.y), min(far_t.z, len));
    return enter <= leave;
}

// The crossings of pq with one triangle added to `sum`; false where in doubt. A triangle
// whose box (grown by delta) the segment misses is passed over before its orientations: a
// sliver of a cap over a pole, 1e-16 across, has determinants below any bound.
fn add_crossing(p: vec3<f32>, q: vec3<f32>, inv: vec3<f32>, len: f32, t0: vec3<f32>, t1: vec3<f32>, t2: vec3<f32>, sum: ptr<function, i32>) -> bool {
    if (near(p, t0, t1, t2)) {
        return false;
    }
    if (!segment_meets(p, inv, len, min(min(t0, t1), t2), max(max(t0, t1), t2))) {
        return true;
    }
    let c = crossing(p, q, t0, t1, t2);
    if (c == UNSURE_CROSSING) {
        return false;
    }
    *sum += c;
    return true;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_index(gid, nwg);
    if (i >= wq.points) {
        return;
    }
    let p = points[i].xyz;
    // The row's w is the ray's length, negative where it goes against `wq.dir`: the host
    // picks the shorter way out of the mesh's box. A crossing counts the side of the triangle
    // the point is on, so either way gives the same winding number.
    let way = points[i].w;
    let d = select(wq.dir.xyz, -wq.dir.xyz, way < 0.0);
    let len = abs(way);
    let q = p + d * len;
    let inv = 1.0 / d;
    var sum = 0i;
    var sure = true;
    // Stackless by the escapes; at most one visit per node, so a walk that ends by the bound
    // was cut short and is unsure.
    var n = 0u;
    let count = arrayLength(&nodes);
    for (var steps = 0u; steps < count && n != NO_CHILD && sure; steps++) {
        let node = nodes[n];
        if (!segment_meets(p, inv, len, node.min, node.max)) {
            n = node.escape;
            continue;
        }
        if (node.first_child != NO_CHILD) {
            n = node.first_child;
            continue;
        }
        var k = node.tri_start;
        for (; k < node.tri_start + node.tri_count && sure; k++) {
            let t = tris[k];
            sure = add_crossing(p, q, inv, len, t.v[0].xyz, t.v[1].xyz, t.v[2].xyz, &sum);
        }
        // A software adapter may end a long loop early (lavapipe: 65535 iterations a SIMD
        // group, nested loops' added up): crossings skipped make the point unsure.
        if (k < node.tri_start + node.tri_count) {
            sure = false;
        }
        n = node.escape;
    }
    if (n != NO_CHILD) {
        sure = false;
    }
    var k = 0u;
    for (; k < wq.caps && sure; k++) {
        sure = add_crossing(p, q, inv, len, caps[3u * k].xyz, caps[3u * k + 1u].xyz, caps[3u * k + 2u].xyz, &sum);
    }
    if (k < wq.caps) {
        sure = false;
    }
    out[i].crossings += sum;
    if (!sure) {
        out[i].unsure = 1u;
    }
}
