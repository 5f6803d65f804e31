// Rays stage: for each ray (a segment from its origin to where the CPU's walk would end it), the
// triangle it meets first, certified, or unsure. A thread per ray walks the mesh's hierarchy
// (bvh.rs: binary, depth-first, the nearer child first, the farther kept in registers:
// common.wgsl's Kept), and decides each triangle by f32 orientations held to a bound that
// covers both their evaluation and every point moved by up to `delta` (the rounding between the
// CPU's f64 geometry and this f32 frame). A sure hit is through a triangle's inside, with its
// place along the ray known within an interval; the answer is sure where the nearest interval
// ends before any other hit's, and before any leaf holding a triangle in doubt is entered.
// Through an edge or a vertex is always in doubt: the CPU's exact predicates decide those
// (watertight). CPU twin: gpu::twin::rays.

struct RayQuery {
    rays: u32,
    delta: f32,
    mode: u32,
    kept: u32,                        // room for kept nodes, at most KEPT (the tests lower it)
}

struct RayOut {
    slot: u32,
    unsure: u32,
}

@group(0) @binding(0) var<uniform> rq: RayQuery;
@group(0) @binding(1) var<storage, read> bvh: array<BvhNode>;
@group(0) @binding(2) var<storage, read> corners: array<vec4<f32>>;   // three per slot
@group(0) @binding(3) var<storage, read> rays: array<vec4<f32>>;      // start, end per ray
@group(0) @binding(4) var<storage, read_write> ray_out: array<RayOut>;
// RAYS_ALL writes here instead: every triangle the ray meets, all through their insides.
@group(0) @binding(5) var<storage, read_write> ray_all: array<SlotsOut>;

const NO_HIT: u32 = 0xffffffffu;
const NO_NODE: u32 = 0xffffffffu;
const RAYS_ANY: u32 = 1u;
const RAYS_ALL: u32 = 2u;
const MISS: u32 = 0u;
const SURE_HIT: u32 = 1u;
const IN_DOUBT: u32 = 2u;
// 2^-24, the f32 unit roundoff (as narrow.wgsl).
const UR: f32 = 5.9604645e-8;

// The orientation of point d against the plane of a triangle, (a-d) . ((b-d) x (c-d)) pivoted
// on its corner a, given the triangle's edges ba, ca from a, their cross product n and their
// lengths; and a bound on its error: the f32 evaluation's, and that of every point moved by up
// to delta (each difference by up to 2 delta; the product of three differences is
// multilinear). The triangle's part is shared by both ends of a ray.
fn side(a: vec3<f32>, n: vec3<f32>, l1: f32, l2: f32, d: vec3<f32>) -> vec2<f32> {
    let da = d - a;
    let det = -dot(n, da);
    let e = 2.0 * rq.delta;
    let l3 = length(da);
    let moved = e * (l1 * l2 + l1 * l3 + l2 * l3) + e * e * (l1 + l2 + l3) + e * e * e;
    let bound = 64.0 * UR * (l1 + e) * (l2 + e) * (l3 + e) + 2.0 * moved + 1e-30;
    return vec2<f32>(det, bound);
}

// The orientation of segment pq against edge ab, (q-p) . ((a-p) x (b-a)), and its bound. The
// triple product is unchanged by taking any multiple of q-p from a-p: taking the projection
// leaves y, a's offset from the line, as short as the line passes by the edge, so that moving
// a point by delta is bounded by what it does there and not by how far away p is.
fn orient_edge(p: vec3<f32>, q: vec3<f32>, a: vec3<f32>, b: vec3<f32>) -> vec2<f32> {
    let x = q - p;
    let ap = a - p;
    let z = b - a;
    let xx = dot(x, x);
    let lam = select(0.0, clamp(dot(ap, x) / xx, 0.0, 1.0), xx > 0.0);
    let y = ap - lam * x;
    let det = dot(x, cross(y, z));
    let lx = length(x);
    let ly = length(y);
    let lz = length(z);
    // Each factor's error: every point moved by up to delta, and y's own rounding.
    let ex = 2.0 * rq.delta + UR * lx;
    let ey = 4.0 * rq.delta + 4.0 * UR * (length(ap) + lam * lx);
    let ez = 2.0 * rq.delta + UR * lz;
    let moved = ex * (ly + ey) * (lz + ez) + lx * ey * (lz + ez) + lx * ly * ez;
    let bound = 16.0 * UR * (lx + ex) * (ly + ey) * (lz + ez) + moved + 1e-30;
    return vec2<f32>(det, bound);
}

// The sign of a side or an orient_edge, 0 when within its bound (or not a number).
fn sure_sign(o: vec2<f32>) -> i32 {
    if (o.x > o.y) {
        return 1;
    }
    if (o.x < -o.y) {
        return -1;
    }
    return 0;
}

// How segment pq meets the triangle: MISS, SURE_HIT through its inside (its place along pq
// within *span), or IN_DOUBT.
fn meet(p: vec3<f32>, q: vec3<f32>, t0: vec3<f32>, t1: vec3<f32>, t2: vec3<f32>, span: ptr<function, vec2<f32>>) -> u32 {
    let d = vec3<f32>(rq.delta);
    let lo = min(min(t0, t1), t2) - d;
    let hi = max(max(t0, t1), t2) + d;
    if (any(max(p, q) < lo) || any(min(p, q) > hi)) {
        return MISS;
    }
    let ba = t1 - t0;
    let ca = t2 - t0;
    let n = cross(ba, ca);
    let l1 = length(ba);
    let l2 = length(ca);
    let op = side(t0, n, l1, l2, p);
    let oq = side(t0, n, l1, l2, q);
    let sp = sure_sign(op);
    let sq = sure_sign(oq);
    if (sp != 0 && sp == sq) {
        return MISS;
    }
    let s0 = sure_sign(orient_edge(p, q, t0, t1));
    let s1 = sure_sign(orient_edge(p, q, t1, t2));
    let s2 = sure_sign(orient_edge(p, q, t2, t0));
    let pos = s0 > 0 || s1 > 0 || s2 > 0;
    let neg = s0 < 0 || s1 < 0 || s2 < 0;
    if (pos && neg) {
        return MISS;
    }
    if (sp == 0 || sq == 0 || s0 == 0 || s1 == 0 || s2 == 0) {
        return IN_DOUBT;
    }
    // The hit divides pq as |op| : |oq|; each within its bound.
    let a = abs(op.x);
    let b = abs(oq.x);
    let lo_t = (a - op.y) / (a + b + op.y + oq.y);
    let hi_t = (a + op.y) / (a + b - op.y - oq.y);
    // WGSL allows 2.5 ulp for a division: the sums, the division and this product within 16.
    *span = vec2<f32>(lo_t * (1.0 - 16.0 * UR), hi_t * (1.0 + 16.0 * UR));
    return SURE_HIT;
}

// Where pq enters the node's box grown by delta, as a fraction of pq; 2 when it misses. An
// axis pq runs parallel to constrains nothing where p lies within its slab (no 0 * inf).
fn enter(p: vec3<f32>, dir: vec3<f32>, inv: vec3<f32>, node: BvhNode) -> f32 {
    let d = vec3<f32>(rq.delta);
    let lo = node.min - d;
    let hi = node.max + d;
    let flat = dir == vec3<f32>(0.0);
    if (any(flat & ((p < lo) | (p > hi)))) {
        return 2.0;
    }
    let t0 = (lo - p) * inv;
    let t1 = (hi - p) * inv;
    let near_t = select(min(t0, t1), vec3<f32>(-INF), flat);
    let far_t = select(max(t0, t1), vec3<f32>(INF), flat);
    let a = max(max(near_t.x, near_t.y), max(near_t.z, 0.0));
    let b = min(min(far_t.x, far_t.y), min(far_t.z, 1.0));
    return select(2.0, a, a <= b);
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_index(gid, nwg);
    if (i >= rq.rays) {
        return;
    }
    let p = rays[2u * i].xyz;
    let q = rays[2u * i + 1u].xyz;
    let dir = q - p;
    let inv = 1.0 / dir;
    var best = NO_HIT;
    var best_span = vec2<f32>(INF, INF);
    // RAYS_ALL's slots go straight to the output: a private array indexed by a lane's own count
    // is written lane by lane on a software adapter, every lane reading and writing back its
    // element where the write is not its own, even where the mode takes no lane there.
    var all_count = 0u;
    // The nearest any other hit, or a leaf with a triangle in doubt, may lie.
    var rival = INF;
    var sure = true;
    // The node taken next and where the ray enters it, and the nodes kept for later (the
    // farther child where the ray enters both; its entry found again from its box when taken).
    var next = NO_NODE;
    var next_e = enter(p, dir, inv, bvh[0]);
    if (next_e <= 1.0) {
        next = 0u;
    }
    var kept: Kept;
    var top = 0u;
    let room = min(rq.kept, KEPT);
    // Down to the next leaf, then its triangles: on SIMD lanes the inner loop runs until every
    // lane holds a leaf or is done, and the triangles are tested together (Aila and Laine's
    // while-while), where one loop would test them whenever any lane stood at a leaf. Each
    // lane's walk is the same either way.
    loop {
        var leaf = NO_NODE;
        var e = 0.0;
        loop {
            if (next == NO_NODE) {
                if (top == 0u) {
                    break;
                }
                top -= 1u;
                next = pop_kept(&kept);
                next_e = enter(p, dir, inv, bvh[next]);
            }
            let n = next;
            e = next_e;
            next = NO_NODE;
            // Anything in a node entered past the best hit's end lies past it too.
            if (e > best_span.y) {
                continue;
            }
            let node = bvh[n];
            if (node.count > 0u) {
                leaf = n;
                break;
            }
            let a = node.index;
            let b = node.index + 1u;
            let ea = enter(p, dir, inv, bvh[a]);
            let eb = enter(p, dir, inv, bvh[b]);
            // The nearer next, the other kept.
            var near = a;
            var far = b;
            if (eb <= 1.0 && (ea > 1.0 || eb < ea)) {
                near = b;
                far = a;
            }
            if (max(ea, eb) <= 1.0) {
                if (top == room) {
                    sure = false;
                    break;
                }
                push_kept(&kept, far);
                top += 1u;
            }
            if (min(ea, eb) <= 1.0) {
                next = near;
                next_e = min(ea, eb);
            }
        }
        if (leaf == NO_NODE || !sure) {
            break;
        }
        let node = bvh[leaf];
        var s = node.index;
        for (; s < node.index + node.count; s++) {
            var span = vec2<f32>(0.0);
            let c = meet(p, q, corners[3u * s].xyz, corners[3u * s + 1u].xyz, corners[3u * s + 2u].xyz, &span);
            if (c == MISS) {
                continue;
            }
            if (rq.mode == RAYS_ANY) {
                sure = false; // a hit, or maybe: the CPU names it
                break;
            }
            if (rq.mode == RAYS_ALL) {
                if (c == IN_DOUBT || all_count == CANDIDATES) {
                    sure = false;
                    break;
                }
                ray_all[i].slots[all_count] = s;
                all_count++;
                continue;
            }
            if (c == IN_DOUBT) {
                rival = min(rival, e);
            } else if (span.x < best_span.x) {
                rival = min(rival, best_span.x);
                best = s;
                best_span = span;
            } else {
                rival = min(rival, span.x);
            }
        }
        // A software adapter may end a long loop early (lavapipe: 65535 iterations a SIMD
        // group): a walk or a leaf cut short is unsure, never an answer.
        if (s < node.index + node.count) {
            sure = false;
        }
        if (!sure) {
            break;
        }
    }
    if (top > 0u || next != NO_NODE) {
        sure = false;
    }
    if (rq.mode == RAYS_ALL) {
        ray_all[i].count = all_count;
        ray_all[i].unsure = select(1u, 0u, sure);
        return;
    }
    if (best == NO_HIT) {
        sure = sure && rival == INF;
    } else {
        sure = sure && best_span.y < rival;
    }
    ray_out[i] = RayOut(best, select(1u, 0u, sure));
}
