//! Recording dispatches without creating GPU objects per token.
//!
//! A decoder step issues the same sequence of dispatches every time, over the same buffers, with
//! launch parameters (rows, position) that change a few numbers. [`Sites`] remembers, for the n-th
//! dispatch of such a sequence, its slot of launch parameters and its bind groups; a later recording
//! reuses them. The slots lie in a few uniform buffers (chunks) with a copy on the host, and a
//! submission writes each chunk's changed words in one write: a write through the queue costs the
//! host about 4 µs on lavapipe, whatever its size, and a step changes a dozen sites' parameters.
//! [`Pool`] hands out scratch buffers by name and creates one only when no buffer of that name is
//! large enough, so buffers (and with them the bind groups) survive from one batch to the next.

use std::collections::HashMap;

use crate::gpu::Gpu;

/// Bind groups kept per site: ping-pong buffers (the GRU's hidden states) alternate between two.
const GROUPS_PER_SITE: usize = 4;

/// Sites per uniform chunk.
const SLOTS_PER_CHUNK: usize = 256;

/// The widest launch parameters a site takes, in words (decoder_layer.wgsl's are 36).
const MAX_DIMS: usize = 64;

struct Site {
    pipeline: wgpu::ComputePipeline,
    /// Words of launch parameters (its slot's binding size).
    words: usize,
    groups: Vec<(Vec<wgpu::Buffer>, wgpu::BindGroup)>,
}

/// A uniform buffer of SLOTS_PER_CHUNK slots, its contents on the host, and the words changed
/// since it was last written.
struct Chunk {
    buffer: wgpu::Buffer,
    words: Vec<u32>,
    dirty: Option<(usize, usize)>,
}

/// Site i's slot of launch parameters: its chunk, and the word in the chunk where the slot begins.
fn slot_of(i: usize, stride: usize) -> (usize, usize) {
    (i / SLOTS_PER_CHUNK, (i % SLOTS_PER_CHUNK) * stride)
}

/// The cached dispatch sites of one recorded sequence (a decoder step, a beam reordering, ...).
#[derive(Default)]
pub struct Sites {
    sites: Vec<Site>,
    chunks: Vec<Chunk>,
    /// Words from one slot to the next: the device's uniform offset alignment, at least MAX_DIMS.
    stride: usize,
    /// Uniform chunks and bind groups created so far (tests check it stops growing).
    pub objects_created: usize,
}

impl Sites {
    /// Puts `dims` in site i's slot on the host, marking the words that differ for the next write.
    fn set_dims(&mut self, gpu: &Gpu, i: usize, dims: &[u32]) {
        if self.stride == 0 {
            let align = gpu.device.limits().min_uniform_buffer_offset_alignment as usize / 4;
            self.stride = align.max(MAX_DIMS);
        }
        let (chunk, at) = slot_of(i, self.stride);
        while self.chunks.len() <= chunk {
            let words = vec![0u32; SLOTS_PER_CHUNK * self.stride];
            let buffer = gpu.uniform("launch parameters", &words);
            self.objects_created += 1;
            self.chunks.push(Chunk { buffer, words, dirty: None });
        }
        let c = &mut self.chunks[chunk];
        let slot = &mut c.words[at..at + dims.len()];
        let Some(first) = slot.iter().zip(dims).position(|(a, b)| a != b) else { return };
        let last = slot.iter().zip(dims).rposition(|(a, b)| a != b).unwrap_or(first);
        slot.copy_from_slice(dims);
        let (lo, hi) = (at + first, at + last + 1);
        c.dirty = Some(c.dirty.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))));
    }

    /// Writes each chunk's changed words (one write a chunk), before the commands that read them.
    fn flush(&mut self, gpu: &Gpu) {
        for c in &mut self.chunks {
            if let Some((lo, hi)) = c.dirty.take() {
                gpu.write_at(&c.buffer, lo as u64, &c.words[lo..hi]);
            }
        }
    }
}

/// Scratch buffers by name, grown (never shrunk) to the largest size asked for.
#[derive(Default)]
pub struct Pool {
    buffers: HashMap<String, wgpu::Buffer>,
    /// Buffers created so far (tests check it stops growing).
    pub created: usize,
}

impl Pool {
    /// A storage buffer of at least `bytes` under `name`; the contents are whatever was there.
    pub fn get(&mut self, gpu: &Gpu, name: &str, bytes: u64) -> wgpu::Buffer {
        let bytes = bytes.max(16).next_multiple_of(4);
        if let Some(b) = self.buffers.get(name) {
            if b.size() >= bytes {
                return b.clone();
            }
        }
        self.created += 1;
        let b = gpu.output(name, bytes);
        self.buffers.insert(name.to_string(), b.clone());
        b
    }

    /// Bytes of the buffers the pool holds.
    pub fn bytes(&self) -> u64 {
        self.buffers.values().map(wgpu::Buffer::size).sum()
    }

    /// A buffer under `name` holding `words` (written through the queue, no new buffer if one fits).
    pub fn u32s(&mut self, gpu: &Gpu, name: &str, words: &[u32]) -> wgpu::Buffer {
        let b = self.get(gpu, name, (words.len() * 4) as u64);
        if !words.is_empty() {
            gpu.write(&b, words);
        }
        b
    }
}

/// One command encoder's worth of dispatches, all in one compute pass where possible.
pub struct Recorder<'a> {
    gpu: &'a Gpu,
    sites: &'a mut Sites,
    next: usize,
    pass: Option<wgpu::ComputePass<'static>>,
    enc: wgpu::CommandEncoder,
}

impl<'a> Recorder<'a> {
    pub fn new(gpu: &'a Gpu, sites: &'a mut Sites) -> Self {
        let enc = gpu.device.create_command_encoder(&Default::default());
        Self { gpu, sites, next: 0, pass: None, enc }
    }

    /// The encoder, for copies and clears between dispatches (ends the current compute pass).
    pub fn encoder(&mut self) -> &mut wgpu::CommandEncoder {
        self.pass = None;
        &mut self.enc
    }

    /// Records `pipeline` over `buffers` (bindings 0..n) plus a uniform holding `dims` (binding n).
    pub fn dispatch(
        &mut self,
        pipeline: &wgpu::ComputePipeline,
        buffers: &[&wgpu::Buffer],
        dims: &[u32],
        groups: [u32; 2],
    ) {
        self.dispatch_uniform_at(pipeline, buffers, buffers.len() as u32, dims, groups)
    }

    /// `dispatch` with the launch parameters at binding `uniform_at` and the buffers bound in order
    /// around it (a kernel whose shared prelude fixes that binding and adds buffers after it).
    pub fn dispatch_uniform_at(
        &mut self,
        pipeline: &wgpu::ComputePipeline,
        buffers: &[&wgpu::Buffer],
        uniform_at: u32,
        dims: &[u32],
        groups: [u32; 2],
    ) {
        assert!((1..=MAX_DIMS).contains(&dims.len()), "launch parameters of {} words (1 to {MAX_DIMS})", dims.len());
        let i = self.next;
        self.next += 1;
        let gpu = self.gpu;
        let sites = &mut *self.sites;
        let fits = sites.sites.get(i).is_some_and(|s| s.pipeline == *pipeline && s.words == dims.len());
        if !fits {
            let site = Site { pipeline: pipeline.clone(), words: dims.len(), groups: Vec::new() };
            if i < sites.sites.len() {
                sites.sites[i] = site;
            } else {
                sites.sites.push(site);
            }
        }
        sites.set_dims(gpu, i, dims);
        let Sites { sites: list, chunks, stride, objects_created } = sites;
        let site = &mut list[i];
        let found = site
            .groups
            .iter()
            .position(|(bs, _)| bs.len() == buffers.len() && bs.iter().zip(buffers).all(|(a, b)| a == *b));
        let g = match found {
            Some(g) => g,
            None => {
                let mut entries: Vec<wgpu::BindGroupEntry> = buffers
                    .iter()
                    .enumerate()
                    .map(|(i, b)| {
                        let binding = if (i as u32) < uniform_at { i as u32 } else { i as u32 + 1 };
                        wgpu::BindGroupEntry { binding, resource: b.as_entire_binding() }
                    })
                    .collect();
                let (chunk, at) = slot_of(i, *stride);
                let (buffer, offset) = (&chunks[chunk].buffer, (at * 4) as u64);
                let size = std::num::NonZeroU64::new(4 * dims.len() as u64);
                let slot = wgpu::BufferBinding { buffer, offset, size };
                entries
                    .push(wgpu::BindGroupEntry { binding: uniform_at, resource: wgpu::BindingResource::Buffer(slot) });
                let group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: None,
                    layout: &pipeline.get_bind_group_layout(0),
                    entries: &entries,
                });
                *objects_created += 1;
                if site.groups.len() == GROUPS_PER_SITE {
                    site.groups.remove(0);
                }
                site.groups.push((buffers.iter().map(|b| (*b).clone()).collect(), group));
                site.groups.len() - 1
            }
        };
        let pass = self.pass.get_or_insert_with(|| {
            self.enc
                .begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes: None })
                .forget_lifetime()
        });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &site.groups[g].1, &[]);
        pass.dispatch_workgroups(groups[0], groups[1], 1);
        gpu.count(|c| c.dispatches += 1);
    }

    /// Counts the weight bytes a recorded kernel reads (see [`crate::gpu::Cost`]).
    pub fn weights_read(&mut self, bytes: u64) {
        self.gpu.count(|c| c.weight_bytes += bytes);
    }

    /// Ends the pass, writes the launch parameters that changed, and submits everything recorded.
    pub fn submit(mut self) {
        self.pass = None;
        self.sites.flush(self.gpu);
        self.gpu.submit(self.enc.finish());
    }
}
