//! One pass of a round: the stages encoded in order into one compute pass, one submission, one
//! readback of the counters, timestamps and first hits, and the faults decoded into errors.

use super::backend::{GpuBackend, Narrow, Scratch, REPORT_HITS, REPORT_TIME};
use super::layout::{Counters, Hit, Query, FAULT_CUT_SHORT, FAULT_STACK};
use super::mesh::GpuPart;
use super::stages::narrow;
use crate::error::{Error, Result};
use std::mem::size_of;
use std::sync::atomic::Ordering;

/// What one pass of a round runs.
#[derive(Clone, Copy, Debug)]
pub(super) enum Pass {
    /// The round's first: every stage, each walk from its start.
    First,
    /// The walks the last pass deferred, from where they stopped; then every later stage.
    Walks,
    /// Only the `waiting` leaf pairs the last pass's per-triangle cull deferred, then the
    /// narrow stage. Main writes its deferrals to the list it does not read: `in_leaf_list`
    /// when they are in the leaf-pair buffer.
    Pairs { waiting: u32, in_leaf_list: bool },
}

impl GpuBackend {
    /// One round over A's triangles `query.chunk_start .. chunk_end` (positions in A's octree
    /// order, so that a chunk is a run of leaves), in one pass: the counters, and the hits the
    /// narrow stage wrote. `Ok(None)` when the pass deferred work to another, or its hits
    /// overflowed (what [`Self::rounds`] handles).
    pub fn round(
        &self,
        a: &GpuPart,
        b: &GpuPart,
        query: &Query,
        narrow: Narrow,
    ) -> Result<Option<(Counters, Vec<Hit>)>> {
        let mut scratch = self.take_turn();
        let (c, hits) = self.pass(
            &mut scratch,
            (a, b),
            query,
            narrow,
            Pass::First,
            f32::INFINITY,
        )?;
        let whole = c.deferred == 0
            && c.deferred_leaves == 0
            && c.paused_walks == 0
            && c.hits <= self.capacity;
        Ok(whole.then_some((c, hits)))
    }

    /// One pass of a round: the counters, and the hits the narrow stage wrote. `bound` is the
    /// smallest f32 distance the round's earlier passes found: resumed nearest walks prune by it.
    pub(super) fn pass(
        &self,
        scratch: &mut Scratch,
        parts: (&GpuPart, &GpuPart),
        query: &Query,
        narrow: Narrow,
        kind: Pass,
        bound: f32,
    ) -> Result<(Counters, Vec<Hit>)> {
        let ctx = &self.ctx;
        let live = match kind {
            Pass::Pairs { waiting, .. } => waiting,
            _ => 0,
        };
        ctx.queue
            .write_buffer(&self.bufs.uniform, 0, bytemuck::bytes_of(query));
        let init = Counters {
            leaf_pairs: 0,
            candidates: 0,
            hits: 0,
            min_dist_bits: bound.to_bits(),
            walk_fault: 0,
            live_pairs: live,
            deferred: 0,
            deferred_leaves: 0,
            paused_walks: 0,
        };
        ctx.queue
            .write_buffer(&self.bufs.counters, 0, bytemuck::bytes_of(&init));
        let scope = ctx.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        self.encode(&mut enc, scratch, parts, narrow, kind);
        let report = self.read_report(enc)?;
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!("dispatch: {e:?}")));
        }
        ctx.take_error()?;
        self.decode(&report)
    }

    /// The pass's stages, in order, into one compute pass (timed where the adapter can).
    fn encode(
        &self,
        enc: &mut wgpu::CommandEncoder,
        scratch: &mut Scratch,
        (a, b): (&GpuPart, &GpuPart),
        narrow: Narrow,
        kind: Pass,
    ) {
        let (ctx, s, f) = (&self.ctx, &self.stages, &self.bufs);
        let walks = !matches!(kind, Pass::Pairs { .. });
        // The walks' progress, from nothing in a round's first pass: one per node of A for the
        // leaf walks, one per walker for the nearest.
        let walkers = if narrow == Narrow::Nearest {
            s.nearest.walkers
        } else {
            1
        };
        let progress = walks.then(|| {
            let buf = scratch.progress(ctx, a.node_count * walkers);
            if matches!(kind, Pass::First) {
                enc.clear_buffer(buf, 0, None);
            }
            buf
        });
        let timestamp_writes = f
            .timer
            .as_ref()
            .map(|set| wgpu::ComputePassTimestampWrites {
                query_set: set,
                beginning_of_pass_write_index: Some(0),
                end_of_pass_write_index: Some(1),
            });
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("round"),
            timestamp_writes,
        });
        let Some(mode) = narrow.mode() else {
            let progress = progress.expect("nearest passes walk");
            let bufs = [
                &f.uniform,
                &a.tris,
                &b.tris,
                &a.nodes,
                &b.nodes,
                progress,
                &f.counters,
                &f.hits,
            ];
            let first = matches!(kind, Pass::First);
            s.nearest.encode(ctx, &mut pass, bufs, a.node_count, first);
            return;
        };
        self.encode_cull_and_narrow(&mut pass, (a, b), progress, kind, mode);
    }

    /// The cull's stages (the walks' only in a pass that walks) and then the narrow stage's.
    fn encode_cull_and_narrow(
        &self,
        pass: &mut wgpu::ComputePass,
        (a, b): (&GpuPart, &GpuPart),
        progress: Option<&wgpu::Buffer>,
        kind: Pass,
        mode: narrow::Mode,
    ) {
        let (ctx, s, f) = (&self.ctx, &self.stages, &self.bufs);
        // A pass that does not walk finds its live pairs, and main's dispatch, where the last
        // pass's main left them.
        if let Some(progress) = progress {
            let leaves = [
                &f.uniform,
                &a.nodes,
                &b.nodes,
                &f.leaf_pairs,
                &f.counters,
                &f.args_far,
                progress,
            ];
            s.cull_leaves.encode(ctx, pass, leaves, a.node_count);
            let far = [
                &f.uniform,
                &a.tris,
                &b.tris,
                &f.leaf_pairs,
                &f.counters,
                &f.live_pairs,
                &f.args_pairs,
            ];
            s.cull_pairs.encode_far(ctx, pass, far, &f.args_far);
        }
        // Main's live pairs: far's list in a pass that walks, the last pass's deferrals
        // otherwise; its deferrals go to the other list.
        let (main_in, main_out) = match kind {
            Pass::Pairs {
                in_leaf_list: true, ..
            } => (&f.leaf_pairs, &f.live_pairs),
            _ => (&f.live_pairs, &f.leaf_pairs),
        };
        let main = [
            &f.uniform,
            &a.tris,
            &b.tris,
            &f.pairs,
            &f.counters,
            &f.args_narrow,
            main_in,
            main_out,
        ];
        s.cull_pairs.encode_main(ctx, pass, main, &f.args_pairs);
        let narrow_bufs = [
            &f.uniform,
            &a.tris,
            &b.tris,
            &f.pairs,
            &f.counters,
            &f.hits,
            &f.dists,
            &a.vidx,
            &b.vidx,
        ];
        s.narrow
            .encode(ctx, pass, narrow_bufs, &f.args_narrow, mode);
    }

    /// Submit and wait once: the counters, the timestamps and the first hits.
    fn read_report(&self, mut enc: wgpu::CommandEncoder) -> Result<Vec<u8>> {
        let f = &self.bufs;
        let hit_size = size_of::<Hit>() as u64;
        let prefix = (f.report.size() - REPORT_HITS) / hit_size;
        let c_size = size_of::<Counters>() as u64;
        enc.copy_buffer_to_buffer(&f.counters, 0, &f.report, 0, c_size);
        enc.copy_buffer_to_buffer(&f.hits, 0, &f.report, REPORT_HITS, prefix * hit_size);
        if let Some(set) = &f.timer {
            enc.resolve_query_set(set, 0..2, &f.report, REPORT_TIME);
        }
        let size = f.report.size() as usize;
        self.ctx
            .read_via(enc, &f.report, size, Some(&f.report_staging))
    }

    /// The counters and hits of a report, its GPU time added up; faults as errors.
    fn decode(&self, report: &[u8]) -> Result<(Counters, Vec<Hit>)> {
        self.rounds_run.fetch_add(1, Ordering::Relaxed);
        if let Some(period) = self.ctx.timestamp_period {
            let t = REPORT_TIME as usize;
            let [begin, end]: [u64; 2] = bytemuck::pod_read_unaligned(&report[t..t + 16]);
            let ticks = end.saturating_sub(begin);
            self.gpu_ns
                .fetch_add((ticks as f64 * period) as u64, Ordering::Relaxed);
        }
        let c: Counters = bytemuck::pod_read_unaligned(&report[..size_of::<Counters>()]);
        check_faults(&c, self.capacity)?;
        if c.hits > self.capacity {
            return Ok((c, Vec::new()));
        }
        let hit_size = size_of::<Hit>();
        let prefix = (report.len() - REPORT_HITS as usize) / hit_size;
        let n = c.hits as usize;
        let hits = if n <= prefix {
            let at = REPORT_HITS as usize;
            bytemuck::pod_collect_to_vec(&report[at..at + n * hit_size])
        } else {
            let enc = self.ctx.device.create_command_encoder(&Default::default());
            let staging = Some(&self.bufs.hits_staging);
            self.ctx.read_via(enc, &self.bufs.hits, n, staging)?
        };
        Ok((c, hits))
    }
}

/// A walk's fault, or more candidates than a pass holds: an error, never an answer.
fn check_faults(c: &Counters, capacity: u32) -> Result<()> {
    if c.walk_fault & FAULT_STACK != 0 {
        return Err(Error::Gpu("octree traversal stack overflowed".into()));
    }
    if c.walk_fault & FAULT_CUT_SHORT != 0 {
        return Err(Error::Gpu(
            "the GPU driver ended a shader loop before its octree walk was done (a limit on \
             loop iterations); its answer would be incomplete: use --backend cpu"
                .into(),
        ));
    }
    // Main reserves only what fits, and narrow writes at most one hit per candidate; the
    // nearest stage's hits may overflow (the caller splits the round then).
    if c.candidates > capacity {
        return Err(Error::Gpu(format!(
            "a pass overflowed its capacity ({} candidates, capacity {capacity})",
            c.candidates
        )));
    }
    Ok(())
}
