// Closest stage: for each point, every triangle that may be the mesh's nearest to it (at most
// CANDIDATES), or unsure. A thread per point walks the mesh's hierarchy (bvh.rs; the nearer
// child first, a node passed over once its box is farther than the best upper bound) and takes
// each triangle's nearest point in f32 (Ericson's regions). That point gives an upper bound on
// the triangle's distance, and the direction to it a lower one: no point of the triangle lies
// nearer along that direction than its farthest corner, a bound that is the distance itself
// where the nearest point is right, and still a bound where rounding picked a wrong one. Both
// are widened by `err`, which covers every point moved by up to delta and the f32 evaluation.
// The candidates are the triangles whose lower bound is within the least upper bound: the host
// decides among them in f64, as the CPU does. CPU twin: gpu::twin::closest.

struct ClosestQuery {
    points: u32,
    delta: f32,
    err: f32,
    per_thread: u32,                  // consecutive points a thread takes
    kept: u32,                        // room for kept nodes, at most KEPT (the tests lower it)
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> cq: ClosestQuery;
@group(0) @binding(1) var<storage, read> bvh: array<BvhNode>;
@group(0) @binding(2) var<storage, read> corners: array<vec4<f32>>;   // three per slot
@group(0) @binding(3) var<storage, read> points: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> closest_out: array<SlotsOut>;
@group(0) @binding(5) var<storage, read> obbs: array<ObbNode>;

const NO_SLOT: u32 = 0xffffffffu;

// Ericson's nearest point of triangle abc to p, in f32; where rounding misses every region
// (a sliver), the nearest of its edges' clamped projections.
fn nearest_on(p: vec3<f32>, a: vec3<f32>, b: vec3<f32>, c: vec3<f32>) -> vec3<f32> {
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = dot(ab, ap);
    let d2 = dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        return a;
    }
    let bp = p - b;
    let d3 = dot(ab, bp);
    let d4 = dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 && d1 - d3 > 0.0) {
        return a + d1 / (d1 - d3) * ab;
    }
    let cp = p - c;
    let d5 = dot(ab, cp);
    let d6 = dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 && d2 - d6 > 0.0) {
        return a + d2 / (d2 - d6) * ac;
    }
    let va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 && (d4 - d3) + (d5 - d6) > 0.0) {
        return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b);
    }
    let denom = va + vb + vc;
    if (denom > 0.0) {
        let v = vb / denom;
        let w = vc / denom;
        if (v >= 0.0 && w >= 0.0 && v + w <= 1.0) {
            return a + ab * v + ac * w;
        }
    }
    let e0 = on_segment(p, a, b);
    let e1 = on_segment(p, b, c);
    let e2 = on_segment(p, c, a);
    var best = e0;
    if (dot(e1 - p, e1 - p) < dot(best - p, best - p)) {
        best = e1;
    }
    if (dot(e2 - p, e2 - p) < dot(best - p, best - p)) {
        best = e2;
    }
    return best;
}

fn on_segment(p: vec3<f32>, a: vec3<f32>, b: vec3<f32>) -> vec3<f32> {
    let ab = b - a;
    let l = dot(ab, ab);
    let s = select(0.0, clamp(dot(p - a, ab) / l, 0.0, 1.0), l > 0.0);
    return a + ab * s;
}

// The triangle's distance from p within (lower, upper) bounds. A sliver (sin² of its widest
// angle below 1e-8) gives no upper bound: the CPU's own nearest point on it, in f64, lies on it
// but can be off by eps / sin of its size (geom::closest, thin triangles), so it must not push
// the CPU's answer out of the candidates; it is still a candidate by its lower bound.
fn tri_bounds(p: vec3<f32>, a: vec3<f32>, b: vec3<f32>, c: vec3<f32>) -> vec2<f32> {
    let q = nearest_on(p, a, b, c);
    let d = length(p - q);
    var lower = 0.0;
    if (d > 0.0) {
        let u = (p - q) / d;
        lower = dot(u, p) - max(max(dot(u, a), dot(u, b)), dot(u, c));
    }
    let n = cross(b - a, c - a);
    let longest = max(max(dot(b - a, b - a), dot(c - a, c - a)), dot(c - b, c - b));
    var upper = d + cq.err;
    if (!(dot(n, n) >= 1e-8 * longest * longest)) {
        upper = INF;
    }
    return vec2<f32>(lower - cq.err, upper);
}

// A lower bound on the distance from p to anything in node n's oriented box grown by delta
// (a box turned to its patch is as thin as the patch is curved: a point far from the surface
// reaches few of them). Along each axis, how far p lies beyond the box, less delta and the
// f32 evaluation's error (2^-20 of the magnitudes involved, several times over); the three
// combined, shrunk by 2^-18 for the axes' departure from orthonormal (3 * 2^-23 at most) and
// the length's rounding.
fn box_lower(p: vec3<f32>, n: u32) -> f32 {
    let b = obbs[n];
    let dp = p - b.center.xyz;
    let scale = abs(p.x) + abs(p.y) + abs(p.z) + abs(b.center.x) + abs(b.center.y) + abs(b.center.z) + cq.delta;
    var out = vec3<f32>(0.0);
    for (var k = 0u; k < 3u; k++) {
        let a = b.axes[k];
        let e = (scale + a.w) * 0x1p-20;
        out[k] = max(abs(dot(dp, a.xyz)) - a.w - cq.delta - e, 0.0);
    }
    return length(out) * (1.0 - 0x1p-18);
}

// One search's state, per invocation: the least upper bound so far and the slot giving it, and
// the candidates kept (their slots and lower bounds' bits, in registers: common.wgsl's Eight).
var<private> upper: f32;
var<private> nearest: u32;
var<private> slots: Eight;
var<private> lows: Eight;
var<private> count: u32;

// Keep triangle slot s as a candidate for p, given the least upper bound so far (lowered by
// its own); false where more than CANDIDATES would have to be kept.
fn consider(p: vec3<f32>, s: u32) -> bool {
    let bounds = tri_bounds(p, corners[3u * s].xyz, corners[3u * s + 1u].xyz, corners[3u * s + 2u].xyz);
    if (bounds.y < upper) {
        upper = bounds.y;
        nearest = s;
    }
    // Not `<=`: a bound that is not a number keeps the triangle.
    if (bounds.x > upper) {
        return true;
    }
    if (count == CANDIDATES) {
        // Drop those the bound has passed since they were kept.
        var kept = 0u;
        var k = 0u;
        for (; k < CANDIDATES; k++) {
            let low = eight_at(lows, k);
            if (!(bitcast<f32>(low) > upper)) {
                slots = eight_with(slots, kept, eight_at(slots, k));
                lows = eight_with(lows, kept, low);
                kept++;
            }
        }
        if (k < CANDIDATES) {
            return false; // cut short: candidates lost
        }
        count = kept;
    }
    if (count == CANDIDATES) {
        return false;
    }
    slots = eight_with(slots, count, s);
    lows = eight_with(lows, count, bitcast<u32>(bounds.x));
    count += 1u;
    return true;
}

// Point i's candidates into closest_out[i], starting from slot `hint` (NO_SLOT: none): the
// triangle nearest the point before it, a tight bound from the start, as the CPU's batches
// have it. Returns the slot nearest this point, the next one's hint.
fn search(i: u32, hint: u32) -> u32 {
    let p = points[i].xyz;
    upper = INF;
    nearest = hint;
    count = 0u;
    var sure = true;
    if (hint != NO_SLOT) {
        sure = consider(p, hint);
    }
    // The node taken next and its lower bound, and the nodes kept for later (the farther child
    // of each node opened) with theirs.
    var next = 0u;
    var next_low = box_lower(p, 0u);
    var has_next = true;
    var kept: Kept;
    var kept_lows: Kept;
    var top = 0u;
    let room = min(cq.kept, KEPT);
    loop {
        if (!has_next) {
            if (top == 0u || !sure) {
                break;
            }
            top -= 1u;
            next = pop_kept(&kept);
            next_low = bitcast<f32>(pop_kept(&kept_lows));
        }
        has_next = false;
        if (next_low > upper) {
            continue;
        }
        let node = bvh[next];
        if (node.count > 0u) {
            var s = node.index;
            for (; s < node.index + node.count && sure; s++) {
                if (s != hint) {
                    sure = consider(p, s);
                }
            }
            // A software adapter may end a long loop early (lavapipe: 65535 iterations a SIMD
            // group, nested loops' added up): a walk or a leaf cut short is unsure, never an
            // answer. A point never reached keeps the host's "unsure".
            if (s < node.index + node.count) {
                sure = false;
            }
            continue;
        }
        if (top == room) {
            sure = false;
            break;
        }
        let a = node.index;
        let b = node.index + 1u;
        let la = box_lower(p, a);
        let lb = box_lower(p, b);
        // The nearer next, the other kept.
        if (la <= lb) {
            push_kept(&kept, b);
            push_kept(&kept_lows, bitcast<u32>(lb));
            next = a;
            next_low = la;
        } else {
            push_kept(&kept, a);
            push_kept(&kept_lows, bitcast<u32>(la));
            next = b;
            next_low = lb;
        }
        top += 1u;
        has_next = true;
    }
    if (top > 0u || has_next) {
        sure = false;
    }
    // Straight to the output: a private SlotsOut indexed by the lane's own count would be
    // written lane by lane.
    var n = 0u;
    var k = 0u;
    for (; k < count; k++) {
        if (!(bitcast<f32>(eight_at(lows, k)) > upper)) {
            closest_out[i].slots[n] = eight_at(slots, k);
            n++;
        }
    }
    closest_out[i].count = n;
    closest_out[i].unsure = select(1u, 0u, sure && k == count);
    return nearest;
}

// A thread takes cq.per_thread consecutive points (the host sends them in Morton order),
// each search starting from the one before's nearest triangle.
@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let per_thread = max(cq.per_thread, 1u);
    let first = thread_index(gid, nwg) * per_thread;
    var hint = NO_SLOT;
    for (var k = 0u; k < per_thread; k++) {
        if (first + k >= cq.points) {
            break;
        }
        hint = search(first + k, hint);
    }
}
