// Narrow stage: one thread per candidate pair from cull.wgsl.
//
// The triangle-triangle decision uses orientation signs, each certified in f32 by a bound on
// its error that covers the f32 arithmetic AND the rounding of the inputs from the CPU's f64
// posed coordinates (e_in = q.tol.z per coordinate). A sign beyond the bound is the sign the
// CPU's exact predicate gives; one within it (touching, coplanar, zero-area, a vertex on the
// other's plane) makes the pair UNSURE, and the CPU re-decides it exactly. So the GPU never
// decides a pair differently from the CPU.
//
// Entry points: main (intersect, clearance, self), distance (f32 distances, workgroup then
// global minimum), band (pairs whose f32 distance is within a threshold).
// CPU twin: gpu::twin::narrow (the same functions, line by line, in f32).

@group(0) @binding(0) var<uniform> q: Query;
@group(0) @binding(1) var<storage, read> tris_a: array<TriRecord>;
@group(0) @binding(2) var<storage, read> tris_b: array<TriRecord>;
@group(0) @binding(3) var<storage, read> pairs: array<vec2<u32>>;
@group(0) @binding(4) var<storage, read_write> counters: Counters;
@group(0) @binding(5) var<storage, read_write> hits: array<Hit>;
@group(0) @binding(6) var<storage, read_write> dists: array<f32>;
@group(0) @binding(7) var<storage, read> vidx_a: array<u32>;
@group(0) @binding(8) var<storage, read> vidx_b: array<u32>;

const U: f32 = 5.9604645e-8; // 2^-24, the f32 unit roundoff

// Sign of (a-d) . ((b-d) x (c-d)) (robust::orient3d's convention), or 0 when the f32 value is
// within its error bound. Bound: each difference is off by at most 2 e_in from the exact one,
// so the determinant moves by at most 2 e_in (|b||c| + |a||c| + |a||b|) with norms inflated by
// 2 e_in (second order); f32 evaluation of the triple product adds at most 32 u |a||b||c|.
// Doubled for the rounding of the bound itself.
fn orient(a: vec3<f32>, b: vec3<f32>, c: vec3<f32>, d: vec3<f32>) -> i32 {
    let ad = a - d;
    let bd = b - d;
    let cd = c - d;
    let det = dot(ad, cross(bd, cd));
    let e2 = 2.0 * q.tol.z;
    let la = length(ad) + e2;
    let lb = length(bd) + e2;
    let lc = length(cd) + e2;
    let bound = 2.0 * (e2 * (lb * lc + la * lc + la * lb) + 32.0 * U * la * lb * lc) + 1e-30;
    if (det > bound) {
        return 1;
    }
    if (det < -bound) {
        return -1;
    }
    return 0;
}

// 0: certainly disjoint; 1: certainly intersecting; 2: unsure (a sign within its bound).
// In general position two triangles meet exactly when an edge of one crosses the other's
// interior: the edge's ends lie strictly on both sides of the plane and the edge passes on the
// same side of all three edges of the other triangle.
// Written out, with constant indices only. As loops over small arrays, this function and
// neighbours made every invocation of main cost about 0.2 us on one lavapipe thread, one that
// returned at once too (lavapipe seems to set up the loops' arrays at each invocation's start,
// whether it reaches them or not): some 180 of the stage's 240 ms at 100k near miss. Written
// out, an invocation that returns at once costs what none does, within the noise.
fn tri_tri(p: array<vec3<f32>, 3>, r: array<vec3<f32>, 3>) -> u32 {
    // p strictly on one side of r's plane settles most pairs with three signs of the six.
    let op = vec3<i32>(orient(r[0], r[1], r[2], p[0]), orient(r[0], r[1], r[2], p[1]), orient(r[0], r[1], r[2], p[2]));
    if (op.x != 0 && op.x == op.y && op.y == op.z) {
        return 0u;
    }
    let or = vec3<i32>(orient(p[0], p[1], p[2], r[0]), orient(p[0], p[1], p[2], r[1]), orient(p[0], p[1], p[2], r[2]));
    if (any(op == vec3<i32>(0)) || any(or == vec3<i32>(0))) {
        return 2u;
    }
    if (or.x == or.y && or.y == or.z) {
        return 0u;
    }
    // Each edge whose ends lie on both sides, in the order i = 0, 1, 2 (edge i to i + 1), p's
    // edge before r's: the first that settles the pair decides.
    var code = 0u;
    if (op.x != op.y) {
        code = edge_through(p[0], p[1], r);
    }
    if (code == 0u && or.x != or.y) {
        code = edge_through(r[0], r[1], p);
    }
    if (code == 0u && op.y != op.z) {
        code = edge_through(p[1], p[2], r);
    }
    if (code == 0u && or.y != or.z) {
        code = edge_through(r[1], r[2], p);
    }
    if (code == 0u && op.z != op.x) {
        code = edge_through(p[2], p[0], r);
    }
    if (code == 0u && or.z != or.x) {
        code = edge_through(r[2], r[0], p);
    }
    return code;
}

// For the edge a-b, whose ends lie strictly on both sides of t's plane: 1 if it passes on the
// same side of t's three edges (through t's interior), 2 if a sign is unsure, 0 otherwise.
fn edge_through(a: vec3<f32>, b: vec3<f32>, t: array<vec3<f32>, 3>) -> u32 {
    let s0 = orient(a, b, t[0], t[1]);
    let s1 = orient(a, b, t[1], t[2]);
    let s2 = orient(a, b, t[2], t[0]);
    if (s0 == 0 || s1 == 0 || s2 == 0) {
        return 2u;
    }
    if (s0 == s1 && s1 == s2) {
        return 1u;
    }
    return 0u;
}

// Neighbours in one mesh (CGAL's convention, as query::self_intersections): certain "no" where
// the signs allow, else unsure for the CPU. Sharing one vertex v: if the other two vertices of
// either triangle lie strictly on one side of the other's plane, the triangles meet only at v.
// Sharing an edge: not coplanar means they meet only along it. Three shared: a duplicate face.
// Written out, as tri_tri: as loops over its flag arrays it cost each invocation of main,
// every mode's, whether it ran or not.
fn neighbours(p: array<vec3<f32>, 3>, r: array<vec3<f32>, 3>, ia: vec3<u32>, ib: vec3<u32>) -> u32 {
    // Which of A's vertices equal B's first, second and third.
    let m0 = ia == vec3<u32>(ib.x);
    let m1 = ia == vec3<u32>(ib.y);
    let m2 = ia == vec3<u32>(ib.z);
    let ones = vec3<u32>(1u);
    let zeros = vec3<u32>(0u);
    let common_count = dot(select(zeros, ones, m0) + select(zeros, ones, m1) + select(zeros, ones, m2), ones);
    let sa = m0 | m1 | m2;
    let sb = vec3<bool>(any(m0), any(m1), any(m2));
    if (common_count == 0u) {
        return tri_tri(p, r);
    }
    if (common_count >= 3u) {
        return 1u;
    }
    if (common_count == 2u) {
        // The last vertex of each that the other does not share.
        let pa = last_unshared(sa);
        let pb = last_unshared(sb);
        let u = pick(p, (pa + 1u) % 3u);
        let w = pick(p, (pa + 2u) % 3u);
        if (orient(u, w, pick(p, pa), pick(r, pb)) != 0) {
            return 0u;
        }
        return 2u;
    }
    // The unshared vertices' signs against the other's plane (0 for the shared one).
    let oa = select(vec3<i32>(orient(r[0], r[1], r[2], p[0]), orient(r[0], r[1], r[2], p[1]), orient(r[0], r[1], r[2], p[2])), vec3<i32>(0), sa);
    let ob = select(vec3<i32>(orient(p[0], p[1], p[2], r[0]), orient(p[0], p[1], p[2], r[1]), orient(p[0], p[1], p[2], r[2])), vec3<i32>(0), sb);
    let na = oa.x + oa.y + oa.z;
    let nb = ob.x + ob.y + ob.z;
    // Two certain signs that agree sum to +-2.
    if (na == 2 || na == -2 || nb == 2 || nb == -2) {
        return 0u;
    }
    return 2u;
}

// The last of the three flags that is false (0 if none is).
fn last_unshared(s: vec3<bool>) -> u32 {
    return select(select(select(0u, 0u, !s.x), 1u, !s.y), 2u, !s.z);
}

// t[k] by constant indices.
fn pick(t: array<vec3<f32>, 3>, k: u32) -> vec3<f32> {
    return select(select(t[2], t[1], k == 1u), t[0], k == 0u);
}

// Field by field: loading a whole 192-byte record to use its first 48 bytes quadruples the
// memory traffic of the narrow loop.
fn load_a(i: u32) -> array<vec3<f32>, 3> {
    return array<vec3<f32>, 3>(to_local(q.a, tris_a[i].v[0].xyz), to_local(q.a, tris_a[i].v[1].xyz), to_local(q.a, tris_a[i].v[2].xyz));
}

fn load_b(j: u32) -> array<vec3<f32>, 3> {
    return array<vec3<f32>, 3>(to_local(q.b, tris_b[j].v[0].xyz), to_local(q.b, tris_b[j].v[1].xyz), to_local(q.b, tris_b[j].v[2].xyz));
}

fn emit(a: u32, b: u32, flag: u32, dist: f32) {
    let slot = atomicAdd(&counters.hits, 1u);
    if (slot < q.capacity) {
        hits[slot] = Hit(a, b, flag, bitcast<u32>(dist));
    }
}

fn candidates() -> u32 {
    return min(atomicLoad(&counters.candidates), q.capacity);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    if (k >= candidates()) {
        return;
    }
    let pr = pairs[k];
    let p = load_a(pr.x);
    let r = load_b(pr.y);
    if (q.mode == 3u || q.mode == 4u) {
        let ia = vec3<u32>(vidx_a[3u * pr.x], vidx_a[3u * pr.x + 1u], vidx_a[3u * pr.x + 2u]);
        let ib = vec3<u32>(vidx_b[3u * pr.y], vidx_b[3u * pr.y + 1u], vidx_b[3u * pr.y + 2u]);
        let code = neighbours(p, r, ia, ib);
        if (code != 0u) {
            emit(pr.x, pr.y, code, 0.0);
        }
        return;
    }
    // Pairs certainly farther than d apart by the plane or the axis bound never get here:
    // cull_pairs.wgsl drops them.
    let code = tri_tri(p, r);
    if (q.mode == 0u) {
        if (code != 0u) {
            emit(pr.x, pr.y, code, 0.0);
        }
        return;
    }
    // Clearance d: intersecting pairs are at distance 0 (certain ones need no CPU work);
    // disjoint ones go to the CPU unless their f32 distance is certainly at least d, flagged
    // DISJOINT so that the CPU computes their distance without re-deciding.
    if (code != 0u) {
        emit(pr.x, pr.y, code, 0.0);
        return;
    }
    let dist = tri_dist(p, r);
    if (dist - q.tol.w < q.tol.x) {
        emit(pr.x, pr.y, DISJOINT, dist);
    }
}

var<workgroup> wmin: array<f32, 64>;

// Distance mode (the surfaces are known not to meet): each pair's f32 distance is kept for
// `band`, reduced to the workgroup's minimum in shared memory, then to the global minimum by
// one atomic per workgroup (non-negative f32 order as their bits).
@compute @workgroup_size(64)
fn distance(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let k = gid.x;
    var dist = INF;
    if (k < candidates()) {
        let pr = pairs[k];
        dist = tri_dist(load_a(pr.x), load_b(pr.y));
        dists[k] = dist;
    }
    wmin[li] = dist;
    workgroupBarrier();
    for (var step = 32u; step > 0u; step = step >> 1u) {
        if (li < step) {
            wmin[li] = min(wmin[li], wmin[li + step]);
        }
        workgroupBarrier();
    }
    if (li == 0u) {
        atomicMin(&counters.min_dist_bits, bitcast<u32>(wmin[0]));
    }
}

// Pairs whose f32 distance is at most the threshold q.tol.w, for the CPU to recompute in f64.
@compute @workgroup_size(64)
fn band(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = gid.x;
    if (k >= candidates()) {
        return;
    }
    if (dists[k] <= q.tol.w) {
        let pr = pairs[k];
        emit(pr.x, pr.y, UNSURE, dists[k]);
    }
}
