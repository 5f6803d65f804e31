//! The round's state machine: a round over one pair of parts runs pass after pass until its
//! walks, leaf pairs and candidates are all done, and a chunk whose work cannot fit a pass is
//! split into smaller chunks of A's triangles.

use super::backend::{GpuBackend, Narrow, Scratch};
use super::layout::{Hit, Query};
use super::mesh::GpuPart;
use super::pass::Pass;
use crate::error::{Error, Result};

/// What a round over one pair of parts found, over all its passes.
#[derive(Debug)]
pub struct Found {
    pub hits: Vec<Hit>,
    /// Candidate pairs the narrow stage tested.
    pub candidates: u64,
    /// The smallest f32 distance the narrow (or nearest) stage computed: infinite for none.
    pub min_dist: f32,
}

impl Default for Found {
    fn default() -> Found {
        Found {
            hits: Vec::new(),
            candidates: 0,
            min_dist: f32::INFINITY,
        }
    }
}

/// How many passes a chunk may take before it is not converging (never seen; an error rather
/// than a hang): no leaf pair is listed twice, and a paused walk moves on.
struct Budget {
    node_pairs: u64,
    most_paused: u64,
    /// Hits past which the round stops ([`GpuBackend::rounds`]' `most`).
    most_hits: u64,
}

impl GpuBackend {
    /// Run a round over all of A's triangles, in as many passes as its leaf pairs, walks and
    /// candidates need: the hits of every pass, the total candidate count and smallest f32
    /// distance.
    /// Stops, early, once more than `most` hits are found, rather than hold them all: the
    /// caller's CPU search answers then (`gpu::query::too_many` says why).
    pub fn rounds(
        &self,
        a: &GpuPart,
        b: &GpuPart,
        query: &Query,
        narrow: Narrow,
        most: u64,
    ) -> Result<Found> {
        let mut scratch = self.take_turn();
        let mut todo = vec![(0u32, a.triangles)];
        let mut found = Found::default();
        let node_pairs = a.node_count as u64 * b.node_count as u64;
        let budget = Budget {
            node_pairs,
            most_paused: node_pairs * self.stages.nearest.walkers as u64,
            most_hits: most,
        };
        while let Some((start, end)) = todo.pop() {
            if found.hits.len() as u64 > most {
                break;
            }
            let q = Query {
                chunk_start: start,
                chunk_end: end,
                ..*query
            };
            let (kept, counted) = (found.hits.len(), found.candidates);
            let split = self.chunk(&mut scratch, (a, b), &q, narrow, &budget, &mut found)?;
            let Some(need) = split else {
                continue;
            };
            // A pass that listed or tested nothing (one workgroup's candidates alone exceed
            // the capacity), or the nearest stage's hits overflowed: the chunk starts over in
            // smaller ones, without what it found so far; as many as the hits need, with half
            // again for unevenness.
            if end - start < 2 {
                return Err(Error::Gpu(format!(
                    "the pairs of one triangle do not fit in a pass ({} pairs); raise the capacity",
                    self.capacity
                )));
            }
            found.hits.truncate(kept);
            found.candidates = counted;
            let k = (need + need / 2 + 1).clamp(2, (end - start) as u64) as u32;
            let bounds: Vec<u32> = (0..=k)
                .map(|x| start + ((end - start) as u64 * x as u64 / k as u64) as u32)
                .collect();
            todo.extend(bounds.windows(2).rev().map(|w| (w[0], w[1])));
        }
        Ok(found)
    }

    /// One chunk's passes, adding what they find to `found`: `None` once the chunk is done (or
    /// `found` holds more than `budget.most_hits`), `Some(n)` when it must start over as about
    /// `n` smaller chunks.
    fn chunk(
        &self,
        scratch: &mut Scratch,
        parts: (&GpuPart, &GpuPart),
        q: &Query,
        narrow: Narrow,
        budget: &Budget,
        found: &mut Found,
    ) -> Result<Option<u64>> {
        let (mut kind, mut walks_left) = (Pass::First, false);
        let (mut listed, mut paused) = (0u64, 0u64);
        loop {
            let (c, h) = self.pass(scratch, parts, q, narrow, kind, found.min_dist)?;
            if c.hits > self.capacity {
                return Ok(Some((c.hits as u64).div_ceil(self.capacity as u64)));
            }
            found.candidates += c.candidates as u64;
            found.min_dist = found.min_dist.min(f32::from_bits(c.min_dist_bits));
            found.hits.extend(h);
            // The whole mesh is one chunk at first: the limit is checked pass by pass (one
            // triangle repeated 50 000 times listed 18 GB of hits in one chunk before).
            if found.hits.len() as u64 > budget.most_hits {
                return Ok(None);
            }
            paused += c.paused_walks as u64;
            if paused > budget.most_paused {
                return Err(Error::Gpu("the walks' passes did not converge".into()));
            }
            if narrow == Narrow::Nearest {
                if c.paused_walks == 0 {
                    return Ok(None);
                }
                kind = Pass::Walks;
                continue;
            }
            if let Pass::Pairs { waiting, .. } = kind {
                if c.deferred >= waiting {
                    return Ok(Some(1));
                }
            } else {
                if c.leaf_pairs == 0 && c.deferred_leaves > 0 && c.paused_walks == 0 {
                    return Ok(Some(1));
                }
                walks_left = c.deferred_leaves > 0 || c.paused_walks > 0;
                listed += c.leaf_pairs.min(self.capacity) as u64;
                if listed > budget.node_pairs {
                    return Err(Error::Gpu("the leaf walks' passes did not converge".into()));
                }
            }
            kind = if c.deferred > 0 {
                // Main's deferrals go to the list it did not read.
                let read_leaf_list = matches!(
                    kind,
                    Pass::Pairs {
                        in_leaf_list: true,
                        ..
                    }
                );
                Pass::Pairs {
                    waiting: c.deferred,
                    in_leaf_list: !read_leaf_list,
                }
            } else if walks_left {
                Pass::Walks
            } else {
                return Ok(None);
            };
        }
    }
}
