//! The mesh queries on the GPU, answering in the CPU path's own types with the same values:
//! the GPU culls and decides what it can certify; the CPU re-decides the unsure pairs exactly
//! and recomputes in f64 every distance it reports, with the same tie-break.

use super::layout::{
    Hit, Query, CERTAIN, DISJOINT, MODE_CLEARANCE, MODE_DISTANCE, MODE_INTERSECT, MODE_SELF,
    MODE_SELF_CROSS,
};
use super::mesh::{LARGEST_PAIR_SCALE, SMALLEST_SCALE};
use super::GpuMesh;
use super::{Found, GpuBackend, Narrow};
use crate::error::{Error, Result};
use crate::geom::{tritri, DVec3};
use crate::mesh::{Pose, PreparedMesh};
use crate::query::check::check_with;
use crate::query::clearance;
use crate::query::distance::{apart_report, settled_on_one_thread};
use crate::query::intersect::classify_pairs;
use crate::query::self_intersect::pair_kind;
use crate::query::Listing;
use crate::query::{
    distance, CheckOptions, CheckReport, ClearancePair, ClearanceReport, DistanceReport,
    IntersectReport, Posed, SelfKind, SelfPair, SelfReport, Timings, GPU_BUSY,
};
use rayon::prelude::*;
use std::time::Instant;

const U: f64 = 1.0 / (1u64 << 24) as f64;

/// A posed mesh with its resident GPU copy.
type Side<'a, 'm> = (&'a Posed<'m>, &'a GpuMesh);

/// The f32 frame of one query: both poses into coordinates relative to an origin near where the
/// parts meet, and the error bounds the shaders certify against (see `narrow.wgsl`).
pub struct Frame {
    pub query: Query,
    /// Bound on a local f32 coordinate's distance from the CPU's f64 coordinate (less origin).
    pub e_in: f64,
    /// Bound on an f32 distance's error (or the slack of its lower bound).
    pub band: f64,
}

fn rows(pose: &Pose, c: DVec3, origin: DVec3) -> ([[f32; 4]; 3], f64) {
    let t = pose.apply(c) - origin; // R c + t − O
    let r = pose.rotation;
    let rows =
        std::array::from_fn(|i| [r[i][0] as f32, r[i][1] as f32, r[i][2] as f32, t[i] as f32]);
    (rows, t.abs().max_element())
}

/// Where a pair's frame is centred: midway between the root boxes' points nearest each other,
/// where contact, if any, happens.
fn frame_origin(a: &Posed, b: &Posed) -> DVec3 {
    let (ba, bb) = (a.node_box(0), b.node_box(0));
    (bb.center().clamp(ba.min, ba.max) + ba.center().clamp(bb.min, bb.max)) * 0.5
}

/// Whether the pair's frame is within what the pair stages certify: its scale (as
/// [`frame_from`] takes it) above [`SMALLEST_SCALE`] and below [`LARGEST_PAIR_SCALE`]. Parts
/// outside are the CPU's, as parts far apart are.
fn certifiable(a: &Posed, ga: &GpuMesh, b: &Posed, gb: &GpuMesh) -> bool {
    let origin = frame_origin(a, b);
    let reach = |p: &Posed, g: &GpuMesh| rows(&p.pose, g.center, origin).1 + g.radius;
    let m = reach(a, ga).max(reach(b, gb));
    SMALLEST_SCALE < m && m < LARGEST_PAIR_SCALE
}

/// The frame for `a` against `b` with cull tolerance `d`.
pub fn frame(a: &Posed, ga: &GpuMesh, b: &Posed, gb: &GpuMesh, d: f64, mode: u32) -> Result<Frame> {
    frame_from(a, ga.center, ga.radius, b, gb.center, gb.radius, d, mode)
}

/// [`frame`] from the meshes' record centres and radii.
#[allow(clippy::too_many_arguments)]
pub fn frame_from(
    a: &Posed,
    ca: DVec3,
    rad_a: f64,
    b: &Posed,
    cb: DVec3,
    rad_b: f64,
    d: f64,
    mode: u32,
) -> Result<Frame> {
    let origin = frame_origin(a, b);
    let (ra, ta) = rows(&a.pose, ca, origin);
    let (rb, tb) = rows(&b.pose, cb, origin);
    let m = (ta + rad_a).max(tb + rad_b);
    // The CPU's own coordinates are rounded once in f64 when posed.
    let far = |p: &Posed, c: DVec3, r: f64| c.length() + r + p.pose.translation.abs().max_element();
    let e_in = 16.0 * U * m + 1e-15 * far(a, ca, rad_a).max(far(b, cb, rad_b));
    if !(m.is_finite() && m < LARGEST_PAIR_SCALE && d.is_finite()) {
        return Err(Error::Gpu(format!(
            "coordinates of magnitude {m:e} are beyond what f32 certifies here (powers of \
             lengths would overflow it); use --backend cpu"
        )));
    }
    if m <= SMALLEST_SCALE {
        return Err(Error::Gpu(format!(
            "parts of size {m:e} are below what f32 certifies (their squares fall below its \
             normal range); use --backend cpu"
        )));
    }
    let band = 8.0 * e_in + 64.0 * U * m;
    let pad = 16.0 * e_in + 8.0 * U * d;
    Ok(Frame {
        query: Query {
            a: ra,
            b: rb,
            tol: [d as f32, pad as f32, e_in as f32, band as f32],
            chunk_start: 0,
            chunk_end: 0,
            capacity: 0,
            mode,
        },
        e_in,
        band,
    })
}

/// The pair of `hits` nearest in f64, as `(distance², a, b)`: the CPU path's order, so its
/// tie-break.
fn closest_in_f64(a: &Posed, b: &Posed, hits: &[Hit]) -> Option<(f64, u32, u32)> {
    verts_for(a, b, hits);
    hits.par_iter()
        .map(|h| {
            let dd = tritri::separated_distance(&a.tri(h.a), &b.tri(h.b)).distance;
            (dd * dd, h.a, h.b)
        })
        .min_by(|p, q| p.partial_cmp(q).unwrap_or(std::cmp::Ordering::Equal))
}

/// Pose the meshes' vertices as a whole when `hits` will read many of them.
fn verts_for(a: &Posed, b: &Posed, hits: &[Hit]) {
    a.verts_for(hits.len());
    b.verts_for(hits.len());
}

/// A list of `n` pairs where at most `most` may be held: refused beyond
/// ([`crate::query::TooMany`]).
///
/// The stages' hits are pairs that may be, and stop at a limit above the pairs' (twice it, or
/// 64 a triangle more). Past it, the hits are not the answer's size: most can be pairs f32
/// cannot decide (20 000 triangles 1e-8 across, in a part 2 across that the frame holds whole,
/// were refused as more than 2^27 pairs where there are 209 490; a review's helper). The CPU's
/// exact search answers those queries then, refusing only past the pairs' own limit.
fn too_many(n: usize, most: u64, what: Listing) -> Result<()> {
    match n as u64 > most {
        true => Err(crate::query::TooMany { what, most }.into()),
        false => Ok(()),
    }
}

/// Whether the parts' root boxes are more than `reach` apart: nothing for a GPU cull to find
/// (and, far from the origin, a frame f32 could not hold).
fn apart(a: &Posed, b: &Posed, reach: f64) -> bool {
    a.node_box(0).distance(&b.node_box(0)) > reach
}

impl GpuBackend {
    /// The GPU's own time since `since` (a [`GpuBackend::stats`]), where the adapter measures it.
    fn add_busy(&self, timings: &mut Timings, since: (u64, f64)) {
        if self.ctx.timestamp_period.is_some() {
            timings
                .0
                .push((GPU_BUSY.to_string(), self.stats().1 - since.1));
        }
    }

    /// Every pair of parts that can come within the query's tolerance, in rounds; hits with
    /// global triangle indices (self: `a < b`). Stops once more than `most` are found.
    fn run_query(
        &self,
        (a, ga): Side,
        (b, gb): Side,
        query: &Query,
        narrow: Narrow,
        most: u64,
    ) -> Result<Found> {
        let self_query = query.mode == MODE_SELF;
        // The nearest search has no tolerance: every pair of parts may hold the minimum.
        let reach = if narrow == Narrow::Nearest {
            f64::INFINITY
        } else {
            (query.tol[0] + query.tol[1]) as f64
        };
        let world = |pose: &Pose, bx: &crate::geom::Aabb| {
            let (c, h) = (
                pose.apply(bx.center()),
                pose.rotate_extent(bx.half_extent()),
            );
            crate::geom::Aabb {
                min: c - h,
                max: c + h,
            }
        };
        let mut all = Found::default();
        for (i, pa) in ga.parts.iter().enumerate() {
            for (j, pb) in gb.parts.iter().enumerate() {
                if self_query && j < i || all.hits.len() as u64 > most {
                    continue;
                }
                let (wa, wb) = (world(&a.pose, &pa.bounds), world(&b.pose, &pb.bounds));
                let slack =
                    1e-9 * (wa.diagonal() + wb.diagonal() + wa.center().abs().max_element());
                if wa.distance_squared(&wb).sqrt() > reach + slack {
                    continue;
                }
                let mode = if self_query && i != j {
                    MODE_SELF_CROSS
                } else {
                    query.mode
                };
                let f = self.rounds(pa, pb, &Query { mode, ..*query }, narrow, most)?;
                all.candidates += f.candidates;
                all.min_dist = all.min_dist.min(f.min_dist);
                all.hits.extend(f.hits.into_iter().map(|h| {
                    let (x, y) = (pa.ids[h.a as usize], pb.ids[h.b as usize]);
                    let (x, y) = if self_query {
                        (x.min(y), x.max(y))
                    } else {
                        (x, y)
                    };
                    Hit { a: x, b: y, ..h }
                }));
            }
        }
        Ok(all)
    }

    fn run(
        &self,
        (a, ga): Side,
        (b, gb): Side,
        d: f64,
        mode: u32,
        narrow: Narrow,
    ) -> Result<(Found, Frame)> {
        self.run_at_most((a, ga), (b, gb), d, (mode, narrow), u64::MAX)
    }

    /// [`GpuBackend::run`], stopped once more than `most` hits are found.
    fn run_at_most(
        &self,
        (a, ga): Side,
        (b, gb): Side,
        d: f64,
        (mode, narrow): (u32, Narrow),
        most: u64,
    ) -> Result<(Found, Frame)> {
        let mut f = frame(a, ga, b, gb, d, mode)?;
        f.query.capacity = self.capacity;
        let found = self.run_query((a, ga), (b, gb), &f.query, narrow, most)?;
        Ok((found, f))
    }

    /// [`crate::query::intersect_at_most`] [`GpuBackend::max_pairs`] on the GPU: the same pairs,
    /// classified the same way, and refused past the same number (the stages stop at twice
    /// that in hits, which the exact test may yet decide apart).
    pub fn intersect(
        &self,
        a: &Posed,
        ga: &GpuMesh,
        b: &Posed,
        gb: &GpuMesh,
    ) -> Result<IntersectReport> {
        if apart(a, b, 0.0) {
            // Nothing to cull: the roots are apart.
            return Ok(crate::query::intersect_at_most(a, b, self.max_pairs)?);
        }
        let mut timings = Timings::default();
        let since = self.stats();
        let t = Instant::now();
        let hits_most = self.max_pairs.saturating_mul(2);
        let Found {
            hits, candidates, ..
        } = self
            .run_at_most(
                (a, ga),
                (b, gb),
                0.0,
                (MODE_INTERSECT, Narrow::Main),
                hits_most,
            )?
            .0;
        if hits.len() as u64 > hits_most {
            // Past the hits' limit, where pairs may be but f32 could not say (see [`too_many`]).
            return Ok(crate::query::intersect_at_most(a, b, self.max_pairs)?);
        }
        timings.add("gpu_cull_narrow", t);
        let t = Instant::now();
        verts_for(a, b, &hits);
        let mut pairs: Vec<(u32, u32)> = hits
            .par_iter()
            .filter(|h| h.flag == CERTAIN || tritri::intersect(&a.tri(h.a), &b.tri(h.b)))
            .map(|h| (h.a, h.b))
            .collect();
        too_many(pairs.len(), self.max_pairs, Listing::Intersecting)?;
        pairs.par_sort_unstable();
        timings.add("resolve_unsure", t);
        let t = Instant::now();
        let pairs = classify_pairs(a, b, &pairs);
        timings.add("classify", t);
        self.add_busy(&mut timings, since);
        Ok(IntersectReport {
            pairs,
            candidates,
            timings,
        })
    }

    /// [`crate::query::clearance_at_most`] on the GPU. The stages stop at twice `most` hits
    /// (those within `d` and the f32 filter's error bound beyond it): more pairs than `most`
    /// are refused, as on the CPU, and far more hits than that are not held either.
    pub fn clearance(
        &self,
        (a, ga): (&Posed, &GpuMesh),
        (b, gb): (&Posed, &GpuMesh),
        d: f64,
        most: u64,
    ) -> Result<ClearanceReport> {
        // The stages keep pairs within `reach` (d and the rounding of f64 distances): the
        // host decides which are closer than d, exactly, as the CPU does. No pair is farther
        // apart than both roots' boxes' diagonal: a larger d keeps every pair at twice that
        // (a d near f64's largest made `reach` infinite, refused as coordinates beyond f32,
        // a review's helper).
        let span = 2.0 * a.node_box(0).union(&b.node_box(0)).diagonal();
        let reach = clearance::reach(a, b, d.min(span));
        if d.is_nan() || d <= 0.0 || apart(a, b, reach) {
            // Nothing is closer than 0, or the roots are farther apart than d.
            return Ok(crate::query::clearance_at_most(a, b, d, most)?);
        }
        let mut timings = Timings::default();
        let since = self.stats();
        let t = Instant::now();
        let Found {
            mut hits,
            candidates,
            ..
        } = self
            .run_at_most(
                (a, ga),
                (b, gb),
                reach,
                (MODE_CLEARANCE, Narrow::Main),
                most.saturating_mul(2),
            )?
            .0;
        if hits.len() as u64 > most.saturating_mul(2) {
            // See [`too_many`].
            return Ok(crate::query::clearance_at_most(a, b, d, most)?);
        }
        timings.add("gpu_clearance", t);
        let t = Instant::now();
        verts_for(a, b, &hits);
        // The hits sorted into the report's order, not the pairs: the meshes are then read in
        // order, and an order-keeping map writes each pair straight to its slot, where a filter
        // gathers pieces and copies them again (11.7M pairs: 3.0 s became 2.0–2.6 s, two cores).
        hits.par_sort_unstable_by_key(|h| (h.a, h.b));
        // The f32 filter keeps pairs up to its error bound beyond `reach`; `decide` says which
        // are closer than d.
        let pairs: Vec<ClearancePair> = hits
            .par_iter()
            .filter_map(|h| {
                let (ta, tb) = (a.tri(h.a), b.tri(h.b));
                let meets = match h.flag {
                    CERTAIN => true,
                    DISJOINT => false,
                    _ => tritri::intersect(&ta, &tb),
                };
                let (distance, intersects) = clearance::decide(&ta, &tb, meets, d)?;
                Some(ClearancePair {
                    a: h.a,
                    b: h.b,
                    distance,
                    intersects,
                })
            })
            .collect();
        too_many(pairs.len(), most, Listing::Clearance(d))?;
        timings.add("resolve_f64", t);
        self.add_busy(&mut timings, since);
        Ok(ClearanceReport {
            clearance: d,
            pairs,
            candidates,
            timings,
        })
    }

    /// [`crate::query::distance`] on the GPU: f32 distances find the band that holds the minimum,
    /// the CPU recomputes that band in f64 and picks the smallest `(distance², a, b)`.
    pub fn distance(
        &self,
        a: &Posed,
        ga: &GpuMesh,
        b: &Posed,
        gb: &GpuMesh,
        hits: &IntersectReport,
    ) -> Result<DistanceReport> {
        if hits.intersects() {
            return Ok(distance(a, b, hits)); // 0 at a common point: nothing to search
        }
        // Parts apart by more than their size: few pairs can be nearest, and a shared f32 frame
        // would hold both at the gap's magnitude, where its bands take in every pair.
        if apart(a, b, a.node_box(0).diagonal() + b.node_box(0).diagonal()) {
            return Ok(distance(a, b, hits));
        }
        // Parts far apart: the CPU's search settles it in less than a round's fixed cost.
        if let Some(r) = self
            .settle_on_cpu
            .then(|| settled_on_one_thread(a, b))
            .flatten()
        {
            return Ok(r);
        }
        let mut timings = Timings::default();
        let since = self.stats();
        let t = Instant::now();
        // The smallest f32 distance m, and every pair evaluated within 3 bands of the bound at
        // the time (`nearest.wgsl` says why no pair that could be the minimum is missing).
        let (near, f0) = self.run((a, ga), (b, gb), 0.0, MODE_DISTANCE, Narrow::Nearest)?;
        let (emitted, nearest) = (&near.hits, near.min_dist);
        timings.add("gpu_nearest", t);
        let t = Instant::now();
        let best = closest_in_f64(a, b, emitted);
        timings.add("resolve_f64", t);
        // Pairs not emitted are farther than m + band; so is no pair closer than the best
        // emitted one, unless that one is itself beyond m + band (m from a sliver's lower bound).
        if let Some((_, i, j)) = best.filter(|b| b.0.sqrt() <= nearest as f64 + f0.band) {
            self.add_busy(&mut timings, since);
            return Ok(apart_report(a, b, (i, j), emitted.len() as u64, timings));
        }
        self.distance_by_culling((a, ga), (b, gb), (nearest, &f0), timings, since)
    }

    /// The distance when the nearest stage's best pair lies beyond its band (`m` from a
    /// sliver's lower bound): cull with a bound from `nearest`, f32 distances of every
    /// candidate, the band in f64, widening until the best pair is within the cull.
    fn distance_by_culling(
        &self,
        (a, ga): Side,
        (b, gb): Side,
        (nearest, f0): (f32, &Frame),
        mut timings: Timings,
        since: (u64, f64),
    ) -> Result<DistanceReport> {
        let t = Instant::now();
        let mut d = if nearest.is_finite() {
            nearest as f64 + 2.0 * f0.band + 4.0 * f0.e_in
        } else {
            let (ba, bb) = (a.node_box(0), b.node_box(0));
            ba.distance_squared(&bb).sqrt() + 1e-3 * (ba.diagonal() + bb.diagonal())
        } + f64::MIN_POSITIVE;
        let mut candidates = 0;
        for _ in 0..200 {
            let (cull, f) = self.run((a, ga), (b, gb), d, MODE_DISTANCE, Narrow::Distance)?;
            let min32 = cull.min_dist;
            candidates += cull.candidates;
            if !min32.is_finite() {
                d *= 2.0;
                continue;
            }
            // Every pair whose true distance could be the minimum has an f32 value ≤ min + band.
            let mut threshold = min32 as f64 + 2.0 * f.band;
            let mut best: Option<(f64, u32, u32)> = None;
            loop {
                // The same frame and tolerance; `tol.w` carries the band's threshold.
                let mut qb = f.query;
                qb.tol[3] = (threshold as f32).next_up();
                let band_hits = self
                    .run_query((a, ga), (b, gb), &qb, Narrow::Band, u64::MAX)?
                    .hits;
                best = closest_in_f64(a, b, &band_hits)
                    .into_iter()
                    .chain(best)
                    .min_by(|p, q| p.partial_cmp(q).unwrap_or(std::cmp::Ordering::Equal));
                let m = best.map_or(f64::INFINITY, |b| b.0.sqrt());
                // Excluded pairs have true distance > threshold − band; done when that is ≥ m.
                if m + f.band <= threshold {
                    break;
                }
                threshold = m + f.band;
            }
            let Some((d2, i, j)) = best else {
                d *= 2.0;
                continue;
            };
            if d2.sqrt() > d {
                // Pairs beyond the cull tolerance could still be closer: widen and repeat.
                d = d2.sqrt() * (1.0 + 1e-9) + f.e_in * 4.0;
                continue;
            }
            timings.add("gpu_distance", t);
            self.add_busy(&mut timings, since);
            return Ok(apart_report(a, b, (i, j), candidates, timings));
        }
        Err(Error::Gpu("distance search did not converge".into()))
    }

    /// [`crate::query::self_intersections_at_most`] [`GpuBackend::max_pairs`] on the GPU. The stages
    /// report every pair of neighbours too (the host decides them), so they stop at the limit
    /// and 64 a triangle more.
    pub fn self_intersections(&self, m: &PreparedMesh, g: &GpuMesh) -> Result<SelfReport> {
        let mut timings = Timings::default();
        let since = self.stats();
        let posed = Posed::new(m, Pose::IDENTITY);
        if !certifiable(&posed, g, &posed, g) {
            return Ok(crate::query::self_intersections_at_most(m, self.max_pairs)?);
        }
        let t = Instant::now();
        let hits_most = self
            .max_pairs
            .saturating_add(64 * m.mesh.triangles.len() as u64);
        let Found {
            hits, candidates, ..
        } = self
            .run_at_most(
                (&posed, g),
                (&posed, g),
                0.0,
                (MODE_SELF, Narrow::Main),
                hits_most,
            )?
            .0;
        if hits.len() as u64 > hits_most {
            // See [`too_many`].
            return Ok(crate::query::self_intersections_at_most(m, self.max_pairs)?);
        }
        timings.add("gpu_self", t);
        let t = Instant::now();
        posed.verts_for(hits.len());
        let tris = &m.mesh.triangles;
        let mut pairs: Vec<SelfPair> = hits
            .par_iter()
            .filter(|h| !(m.zero_area[h.a as usize] || m.zero_area[h.b as usize]))
            .filter_map(|h| {
                let (ia, ib) = (tris[h.a as usize], tris[h.b as usize]);
                let disjoint = !ia.iter().any(|v| ib.contains(v));
                let kind = if h.flag == CERTAIN && disjoint {
                    Some(SelfKind::DisjointVertices)
                } else {
                    pair_kind(ia, ib, &posed.tri(h.a), &posed.tri(h.b))
                };
                kind.map(|kind| SelfPair {
                    a: h.a,
                    b: h.b,
                    kind,
                })
            })
            .collect();
        too_many(pairs.len(), self.max_pairs, Listing::SelfIntersecting)?;
        pairs.par_sort_unstable_by_key(|p| (p.a, p.b));
        timings.add("resolve_unsure", t);
        self.add_busy(&mut timings, since);
        Ok(SelfReport {
            pairs,
            zero_area_triangles: m.zero_area.iter().filter(|&&z| z).count(),
            candidates,
            timings,
        })
    }

    /// [`crate::query::check_at_most`] [`GpuBackend::max_pairs`] with the GPU stages; parts
    /// beyond what they certify on the CPU ([`certifiable`]).
    #[allow(clippy::too_many_arguments)]
    pub fn check(
        &self,
        a: &PreparedMesh,
        ga: &GpuMesh,
        pose_a: Pose,
        b: &PreparedMesh,
        gb: &GpuMesh,
        pose_b: Pose,
        opts: &CheckOptions,
    ) -> Result<CheckReport> {
        let (pa, pb) = (Posed::new(a, pose_a), Posed::new(b, pose_b));
        if !certifiable(&pa, ga, &pb, gb) {
            return Ok(crate::query::check_at_most(
                a,
                pose_a,
                b,
                pose_b,
                opts,
                self.max_pairs,
            )?);
        }
        check_with(
            (a, pose_a),
            (b, pose_b),
            opts,
            |x, y| self.intersect(x, ga, y, gb),
            |x, y| self.containment(x, ga, y, gb),
            |x, y, hits| self.distance(x, ga, y, gb, hits),
            |x, y, d| self.clearance((x, ga), (y, gb), d, self.max_pairs),
        )
    }
}
