use crate::error::{Error, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use wgpu::util::DeviceExt;

/// Which adapter answered, for logs and JSON.
#[derive(Clone, Debug, serde::Serialize)]
pub struct GpuInfo {
    pub name: String,
    pub backend: String,
    pub device_type: String,
    pub driver: String,
}

/// Device and queue with the adapter's real limits. Build once, reuse for every query. A clone
/// shares the device.
#[derive(Clone)]
pub struct GpuContext {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: GpuInfo,
    pub limits: wgpu::Limits,
    /// A software rasteriser's adapter (lavapipe, WARP): its "threads" are SIMD lanes of a few
    /// CPU cores, which changes what is fast.
    pub software: bool,
    /// Nanoseconds per timestamp tick, where the adapter has timestamp queries: the GPU's own
    /// time per round is then measured, apart from submission and readback.
    pub timestamp_period: Option<f64>,
    /// The first GPU error no error scope caught (wgpu's default handler would panic), for
    /// this context and its clones.
    uncaptured: Slot,
    /// What every context on the device shares.
    shared: Arc<DeviceState>,
}

/// A context's first uncaptured error.
type Slot = Arc<Mutex<Option<String>>>;

/// What the contexts on one device share: each one's slot, which every error no scope caught
/// reaches (the device's handler is one; a device-wide error, a lost device or memory run
/// out in a submission, is each context's to report), and whether the device was lost.
#[derive(Default)]
struct DeviceState {
    slots: Mutex<Vec<Weak<Mutex<Option<String>>>>>,
    lost: AtomicBool,
}

impl DeviceState {
    /// A new slot that every later error reaches (slots of dropped contexts let go).
    fn slot(&self) -> Slot {
        let slot = Slot::default();
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        slots.retain(|s| s.strong_count() > 0);
        slots.push(Arc::downgrade(&slot));
        slot
    }

    fn report(&self, e: &str) {
        let slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        for slot in slots.iter().filter_map(Weak::upgrade) {
            let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
            slot.get_or_insert_with(|| e.to_string());
        }
    }
}

impl GpuContext {
    /// Pick an adapter the way wgpu's tools do: `WGPU_BACKEND` chooses backends,
    /// `WGPU_ADAPTER_NAME` a substring of the adapter's name, `WGPU_POWER_PREF` the preference
    /// (default: high performance). Fails with [`Error::NoAdapter`] when none is found.
    ///
    /// The process's one device, made at the first call that finds an adapter (the variables
    /// are read then) and shared by every context after it (a new one where it was lost): each
    /// backend's buffers are its own, each context's uncaptured errors its own to take, and no
    /// device is ever dropped. NVIDIA's Linux Vulkan driver crashes when instances are created
    /// on several threads at once (wgpu issue 5930) and when devices are created and dropped
    /// together (issue 10010): on an H200, tests each making and dropping a context segfaulted
    /// (2 runs of 4) and hung, also with the makings one at a time.
    pub fn new() -> Result<GpuContext> {
        static SHARED: crate::once::Owned<GpuContext> = Mutex::new(None);
        let usable = |c: &GpuContext| !c.shared.lost.load(Ordering::Relaxed);
        let base = crate::once::ours_while(&SHARED, usable, || Self::made(None))?;
        Ok(base.with_own_slot())
    }

    /// A device of its own with deliberately chosen limits instead of the adapter's (tests
    /// provoke the small-buffer paths with tiny ones). Never dropped either: a clone is kept.
    pub fn with_limits(limits: wgpu::Limits) -> Result<GpuContext> {
        static KEPT: Mutex<Vec<GpuContext>> = Mutex::new(Vec::new());
        let ctx = Self::made(Some(limits))?;
        let mut kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
        kept.push(ctx.clone());
        Ok(ctx.with_own_slot())
    }

    /// This context on its device with an uncaptured-error slot of its own.
    fn with_own_slot(&self) -> GpuContext {
        GpuContext {
            uncaptured: self.shared.slot(),
            ..self.clone()
        }
    }

    /// One device made at a time in the process (see [`GpuContext::new`]). The lock is this
    /// process's: a forked child's copy may be held by a thread the child does not have.
    fn made(want: Option<wgpu::Limits>) -> Result<GpuContext> {
        static ONE_AT_A_TIME: crate::once::Owned<Mutex<()>> = Mutex::new(None);
        let made = crate::once::ours(&ONE_AT_A_TIME, || {
            Ok::<_, std::convert::Infallible>(Mutex::new(()))
        });
        let lock = made.unwrap_or_else(|never| match never {});
        let _turn = lock.lock().unwrap_or_else(PoisonError::into_inner);
        pollster::block_on(Self::new_async(want))
    }

    async fn new_async(want: Option<wgpu::Limits>) -> Result<GpuContext> {
        let desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        let backends = desc.backends;
        let instance = wgpu::Instance::new(desc);
        let adapter = match std::env::var("WGPU_ADAPTER_NAME") {
            Ok(want) => {
                let want = want.to_lowercase();
                let all = instance.enumerate_adapters(backends).await;
                let names: Vec<String> = all.iter().map(|a| a.get_info().name).collect();
                all.into_iter()
                    .find(|a| a.get_info().name.to_lowercase().contains(&want))
                    .ok_or_else(|| {
                        Error::NoAdapter(format!(
                            ": WGPU_ADAPTER_NAME={want:?} matches none of {names:?}"
                        ))
                    })?
            }
            Err(_) => {
                let power_preference = wgpu::PowerPreference::from_env()
                    .unwrap_or(wgpu::PowerPreference::HighPerformance);
                instance
                    .request_adapter(&wgpu::RequestAdapterOptions {
                        power_preference,
                        force_fallback_adapter: false,
                        compatible_surface: None,
                        ..Default::default()
                    })
                    .await
                    .map_err(|e| Error::NoAdapter(format!(" ({e})")))?
            }
        };
        let ai = adapter.get_info();
        let info = GpuInfo {
            name: ai.name.clone(),
            backend: format!("{:?}", ai.backend),
            device_type: format!("{:?}", ai.device_type),
            driver: format!("{} {}", ai.driver, ai.driver_info)
                .trim()
                .to_string(),
        };
        // wgpu's defaults cap storage buffers at 128 MiB; meshes of millions of triangles need
        // what the hardware really offers.
        let limits = want.unwrap_or_else(|| adapter.limits());
        let features = adapter.features() & wgpu::Features::TIMESTAMP_QUERY;
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("meshclash"),
                required_features: features,
                required_limits: limits.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| Error::Gpu(format!("request_device on {}: {e}", info.name)))?;
        let shared = Arc::new(DeviceState::default());
        let uncaptured = shared.slot();
        let sink = shared.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| sink.report(&e.to_string())));
        let sink = shared.clone();
        device.set_device_lost_callback(move |_, _| sink.lost.store(true, Ordering::Relaxed));
        let timestamp_period = features
            .contains(wgpu::Features::TIMESTAMP_QUERY)
            .then(|| queue.get_timestamp_period() as f64);
        Ok(GpuContext {
            device,
            queue,
            software: ai.device_type == wgpu::DeviceType::Cpu,
            info,
            limits,
            timestamp_period,
            uncaptured,
            shared,
        })
    }

    /// Whether `other` is this context's device (a clone, or another [`GpuContext::new`]).
    pub fn same_device(&self, other: &GpuContext) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// A GPU error that no scope caught since the last call (device lost, out of memory in a
    /// submission, ...), as a typed error.
    pub fn take_error(&self) -> Result<()> {
        let taken = self.uncaptured.lock().ok().and_then(|mut e| e.take());
        match taken {
            Some(e) => Err(Error::Gpu(e)),
            None => Ok(()),
        }
    }

    /// Compile a stage's WGSL file once (`common.wgsl` prepended); validation errors are
    /// returned, not panicked on.
    pub fn shader_module(&self, label: &str, source: &str) -> Result<wgpu::ShaderModule> {
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = self
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(
                    format!("{}\n{}", super::shaders::COMMON, source).into(),
                ),
            });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!("stage {label}: {e}")));
        }
        Ok(module)
    }

    /// One entry point of a compiled stage as a pipeline over `layout`.
    pub fn compute_pipeline(
        &self,
        label: &str,
        module: &wgpu::ShaderModule,
        entry: &str,
        layout: &wgpu::BindGroupLayout,
    ) -> Result<wgpu::ComputePipeline> {
        self.compute_pipeline_with(label, module, entry, layout, &[])
    }

    /// [`Self::compute_pipeline`] with values for the stage's `override` constants.
    pub fn compute_pipeline_with(
        &self,
        label: &str,
        module: &wgpu::ShaderModule,
        entry: &str,
        layout: &wgpu::BindGroupLayout,
        constants: &[(&str, f64)],
    ) -> Result<wgpu::ComputePipeline> {
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let pl = self
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: &[Some(layout)],
                immediate_size: 0,
            });
        let pipeline = self
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: Some(&pl),
                module,
                entry_point: Some(entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants,
                    ..Default::default()
                },
                cache: None,
            });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!("stage {label}::{entry}: {e}")));
        }
        Ok(pipeline)
    }

    /// Copy `len` items of `src` into a mapped staging buffer, wait once, copy out.
    pub fn read_buffer<T: bytemuck::Pod>(&self, src: &wgpu::Buffer, len: usize) -> Result<Vec<T>> {
        let enc = self.device.create_command_encoder(&Default::default());
        self.read_via(enc, src, len, None)
    }

    /// A buffer holding `bytes`: a batch stage's query, inputs and outputs.
    pub fn buffer_with(
        &self,
        label: &str,
        bytes: &[u8],
        usage: wgpu::BufferUsages,
    ) -> wgpu::Buffer {
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytes,
                usage,
            })
    }

    /// A buffer that readbacks of up to `size` bytes can reuse (allocating host-visible memory
    /// per round costs more than the round on a real GPU).
    pub fn staging_buffer(&self, size: u64) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: size.max(4),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// The one readback path: submit `enc` (work already recorded) followed by the copy of `len`
    /// items of `src`, and read them back with one wait, so that stages and their readback share
    /// one submission; through `staging` when given and large enough, else a fresh buffer.
    pub fn read_via<T: bytemuck::Pod>(
        &self,
        mut enc: wgpu::CommandEncoder,
        src: &wgpu::Buffer,
        len: usize,
        staging: Option<&wgpu::Buffer>,
    ) -> Result<Vec<T>> {
        let size = (len * std::mem::size_of::<T>()) as u64;
        if size == 0 {
            self.queue.submit([enc.finish()]);
            return Ok(Vec::new());
        }
        let fresh;
        let staging = match staging {
            Some(s) if s.size() >= size => s,
            _ => {
                fresh = self.staging_buffer(size);
                &fresh
            }
        };
        enc.copy_buffer_to_buffer(src, 0, staging, 0, size);
        self.queue.submit([enc.finish()]);
        let (tx, rx) = futures_intrusive::channel::shared::oneshot_channel();
        let tx = Arc::new(tx);
        staging.map_async(wgpu::MapMode::Read, ..size, move |r| {
            let _ = tx.send(r);
        });
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Gpu(format!("poll: {e}")))?;
        match pollster::block_on(rx.receive()) {
            Some(Ok(())) => {}
            Some(Err(e)) => return Err(Error::Gpu(format!("map: {e}"))),
            None => return Err(Error::Gpu("map: callback dropped".into())),
        }
        let out = {
            let view = staging
                .slice(..size)
                .get_mapped_range()
                .map_err(|e| Error::Gpu(format!("mapped range: {e}")))?;
            bytemuck::cast_slice::<u8, T>(&view).to_vec()
        };
        staging.unmap();
        Ok(out)
    }
}
