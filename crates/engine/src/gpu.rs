//! Device setup and buffer helpers.

use std::sync::{Arc, Mutex};

use wgpu::util::DeviceExt;

/// What the app shows about the adapter in use.
#[derive(Debug, Clone, PartialEq)]
pub struct AdapterReport {
    pub name: String,
    pub backend: String,
    pub device_type: wgpu::DeviceType,
}

/// What the device was asked to do, counted as it is asked (`wgslate bench` prints it per token).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Cost {
    pub dispatches: u64,
    pub submissions: u64,
    /// Bytes written from the host: token ids, row maps, changed launch parameters.
    pub bytes_written: u64,
    /// Bytes copied back to the host.
    pub bytes_read: u64,
    /// Times the host waited for a readback (each one a round trip to the device).
    pub readbacks: u64,
    /// Bytes of weight matrices, biases and embedding rows the recorded kernels read.
    pub weight_bytes: u64,
    /// Decoder steps recorded, each over all the batch's rows. A chain's steps after its search
    /// ended count too: at batch 1 greedy, steps per output token above 1 are that waste.
    pub decoder_steps: u64,
}

impl std::ops::Sub for Cost {
    type Output = Cost;
    fn sub(self, o: Cost) -> Cost {
        Cost {
            dispatches: self.dispatches - o.dispatches,
            submissions: self.submissions - o.submissions,
            bytes_written: self.bytes_written - o.bytes_written,
            bytes_read: self.bytes_read - o.bytes_read,
            readbacks: self.readbacks - o.readbacks,
            weight_bytes: self.weight_bytes - o.weight_bytes,
            decoder_steps: self.decoder_steps - o.decoder_steps,
        }
    }
}

/// Device handles are cheap to clone: each engine keeps its own.
#[derive(Clone)]
pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub report: AdapterReport,
    /// The first uncaptured error or device loss, which makes every later readback fail (wgpu's
    /// default would panic, taking the page down instead of falling back to the CPU).
    fault: Arc<Mutex<Option<String>>>,
    cost: Arc<Mutex<Cost>>,
    /// Time the host spent in submissions and waiting for readbacks (natively; see [`Gpu::blocked`]).
    blocked: Arc<Mutex<std::time::Duration>>,
}

impl Gpu {
    /// Requests an adapter and a device with the adapter's own limits. No adapter is an error the
    /// caller shows (and then falls back to the CPU engine), never a panic.
    pub async fn new() -> Result<Self, String> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                ..Default::default()
            })
            .await
            .map_err(|e| format!("no GPU adapter: {e}"))?;
        let info = adapter.get_info();
        // shader-f16 lets weights stay f16 on the device (half the memory and bandwidth).
        let required_features = adapter.features() & wgpu::Features::SHADER_F16;
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("wgslate"),
                required_features,
                required_limits: adapter.limits(),
                ..Default::default()
            })
            .await
            .map_err(|e| format!("the GPU adapter {} refused a device: {e}", info.name))?;
        let fault: Arc<Mutex<Option<String>>> = Default::default();
        let f = fault.clone();
        device.on_uncaptured_error(Arc::new(move |e| {
            f.lock().unwrap().get_or_insert_with(|| format!("GPU error: {e}"));
        }));
        let f = fault.clone();
        device.set_device_lost_callback(move |reason, message| {
            f.lock().unwrap().get_or_insert_with(|| format!("the GPU device was lost ({reason:?}) {message}"));
        });
        Ok(Self {
            device,
            queue,
            report: AdapterReport {
                name: info.name,
                backend: format!("{:?}", info.backend),
                device_type: info.device_type,
            },
            fault,
            cost: Default::default(),
            blocked: Default::default(),
        })
    }

    /// Everything asked of the device so far (all clones of this handle together).
    pub fn cost(&self) -> Cost {
        *self.cost.lock().unwrap()
    }

    /// Time spent so far in queue submissions and waiting for readbacks: the device's share of a
    /// decode as the host sees it (lavapipe runs the work inside the submission), the rest being
    /// the host's own (recording, the search). Always zero on the web, where the event loop waits.
    pub fn blocked(&self) -> std::time::Duration {
        *self.blocked.lock().unwrap()
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn timed<T>(&self, f: impl FnOnce() -> T) -> T {
        let t0 = std::time::Instant::now();
        let v = f();
        *self.blocked.lock().unwrap() += t0.elapsed();
        v
    }

    #[cfg(target_arch = "wasm32")]
    fn timed<T>(&self, f: impl FnOnce() -> T) -> T {
        f()
    }

    pub(crate) fn count(&self, f: impl FnOnce(&mut Cost)) {
        f(&mut self.cost.lock().unwrap());
    }

    /// Writes `words` at the start of `buffer` through the queue (counted).
    pub fn write(&self, buffer: &wgpu::Buffer, words: &[u32]) {
        self.write_at(buffer, 0, words);
    }

    /// Writes `words` from word `at` of `buffer` on (counted).
    pub fn write_at(&self, buffer: &wgpu::Buffer, at: u64, words: &[u32]) {
        self.count(|c| c.bytes_written += 4 * words.len() as u64);
        self.queue.write_buffer(buffer, 4 * at, bytemuck::cast_slice(words));
    }

    /// Submits one command buffer (counted).
    pub fn submit(&self, commands: wgpu::CommandBuffer) {
        self.count(|c| c.submissions += 1);
        self.timed(|| self.queue.submit([commands]));
    }

    /// Err with the reason once the device reported an error or was lost.
    pub fn check(&self) -> Result<(), String> {
        match self.fault.lock().unwrap().as_ref() {
            Some(reason) => Err(reason.clone()),
            None => Ok(()),
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    pub fn new_blocking() -> Result<Self, String> {
        pollster::block_on(Self::new())
    }

    /// Whether the device runs WGSL with `enable f16`.
    pub fn has_f16(&self) -> bool {
        self.device.features().contains(wgpu::Features::SHADER_F16)
    }

    /// A weight buffer holding `data` as f16 (padded to whole words).
    pub fn storage_f16(&self, label: &str, data: &[f32]) -> wgpu::Buffer {
        let mut halves: Vec<u16> = data.iter().map(|&v| half::f16::from_f32(v).to_bits()).collect();
        if halves.len() % 2 == 1 {
            halves.push(0);
        }
        self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::cast_slice(&halves),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        })
    }

    pub fn storage(&self, label: &str, data: &[f32]) -> wgpu::Buffer {
        self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::cast_slice(data),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        })
    }

    pub fn output(&self, label: &str, bytes: u64) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes.max(4),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    pub fn storage_u32(&self, label: &str, data: &[u32]) -> wgpu::Buffer {
        self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::cast_slice(if data.is_empty() { &[0u32] } else { data }),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        })
    }

    pub fn uniform(&self, label: &str, words: &[u32]) -> wgpu::Buffer {
        self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::cast_slice(words),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        })
    }

    /// Copies a buffer back to the host (waits for the GPU).
    pub async fn read(&self, buffer: &wgpu::Buffer) -> Result<Vec<u8>, String> {
        self.read_prefix(&mut None, buffer, buffer.size()).await
    }

    /// Copies the first `bytes` of a buffer back through `staging`, which is created (or grown)
    /// only when it is missing or too small, so steady decoding maps the same buffer every step.
    pub async fn read_prefix(
        &self,
        staging: &mut Option<wgpu::Buffer>,
        buffer: &wgpu::Buffer,
        bytes: u64,
    ) -> Result<Vec<u8>, String> {
        self.check()?;
        let mut enc = self.device.create_command_encoder(&Default::default());
        let size = self.stage(staging, &mut enc, buffer, bytes);
        self.submit(enc.finish());
        self.read_staged(staging, size).await
    }

    /// Records on `enc` the copy of the first `bytes` of `buffer` into `staging` (created or grown
    /// only when too small) and returns the bytes copied; [`Gpu::read_staged`] maps them once the
    /// commands are submitted, so a readback can ride in the submission that computed it.
    pub fn stage(
        &self,
        staging: &mut Option<wgpu::Buffer>,
        enc: &mut wgpu::CommandEncoder,
        buffer: &wgpu::Buffer,
        bytes: u64,
    ) -> u64 {
        let size = bytes.min(buffer.size()).next_multiple_of(4);
        if staging.as_ref().is_none_or(|s| s.size() < size) {
            *staging = Some(self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("readback"),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        enc.copy_buffer_to_buffer(buffer, 0, staging.as_ref().unwrap(), 0, size);
        self.count(|c| c.bytes_read += size);
        size
    }

    /// The first `size` bytes of `staging` once the submitted copy into it is done.
    pub async fn read_staged(&self, staging: &Option<wgpu::Buffer>, size: u64) -> Result<Vec<u8>, String> {
        let staging = staging.as_ref().ok_or("nothing was staged for reading")?;
        self.count(|c| c.readbacks += 1);
        let (tx, rx) = futures_channel();
        staging.slice(..size).map_async(wgpu::MapMode::Read, move |r| tx.send(r));
        #[cfg(not(target_arch = "wasm32"))]
        self.timed(|| self.device.poll(wgpu::PollType::wait_indefinitely()))
            .map_err(|e| format!("GPU poll failed: {e}"))?;
        rx.await.map_err(|e| format!("reading back from the GPU failed: {e}"))?;
        let bytes = staging
            .slice(..size)
            .get_mapped_range()
            .map_err(|e| format!("mapping the readback buffer failed: {e:?}"))?
            .to_vec();
        staging.unmap();
        self.check()?;
        Ok(bytes)
    }

    pub async fn read_f32(&self, buffer: &wgpu::Buffer) -> Result<Vec<f32>, String> {
        Ok(bytemuck::cast_slice(&self.read(buffer).await?).to_vec())
    }

    /// The first `n` (index, value) pairs topk.wgsl wrote, through a reused staging buffer.
    pub async fn read_candidates(
        &self,
        staging: &mut Option<wgpu::Buffer>,
        buffer: &wgpu::Buffer,
        n: usize,
    ) -> Result<Vec<(u32, f32)>, String> {
        let bytes = self.read_prefix(staging, buffer, (n * 8) as u64).await?;
        let words: &[u32] = bytemuck::cast_slice(&bytes);
        Ok((0..n).map(|i| (words[2 * i], f32::from_bits(words[2 * i + 1]))).collect())
    }

    /// The first `n` floats of a buffer, through a reused staging buffer.
    pub async fn read_f32_prefix(
        &self,
        staging: &mut Option<wgpu::Buffer>,
        buffer: &wgpu::Buffer,
        n: usize,
    ) -> Result<Vec<f32>, String> {
        let bytes = self.read_prefix(staging, buffer, (n * 4) as u64).await?;
        Ok(bytemuck::cast_slice(&bytes)[..n].to_vec())
    }
}

type MapResult = Result<(), wgpu::BufferAsyncError>;
type Slot = std::sync::Arc<std::sync::Mutex<(Option<MapResult>, Option<std::task::Waker>)>>;

/// A one-shot channel for the map callback: the receiver sleeps until the callback wakes it, so
/// on the web the browser's event loop keeps running meanwhile.
fn futures_channel() -> (OneShotSender, OneShotReceiver) {
    let slot: Slot = Default::default();
    (OneShotSender(slot.clone()), OneShotReceiver(slot))
}

struct OneShotSender(Slot);
struct OneShotReceiver(Slot);

impl OneShotSender {
    fn send(self, r: MapResult) {
        let waker = {
            let mut g = self.0.lock().unwrap();
            g.0 = Some(r);
            g.1.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }
}

impl std::future::Future for OneShotReceiver {
    type Output = MapResult;
    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<MapResult> {
        let mut g = self.0.lock().unwrap();
        match g.0.take() {
            Some(r) => std::task::Poll::Ready(r),
            None => {
                g.1 = Some(cx.waker().clone());
                std::task::Poll::Pending
            }
        }
    }
}
