//! Attention maps of one translation for visualisation: the chosen output is fed back step by step
//! (forced decoding) and every step's attention is kept.

use candle_core::Device;
use wgslate_decode::StepModel;

use crate::step::{pad_batch, CpuStepper};
use crate::{Model, Net};

/// maps[layer][head][target][source]; the GRU has one layer and one head.
pub type Maps = Vec<Vec<Vec<Vec<f32>>>>;

#[derive(Debug, Clone, Default)]
pub struct AttentionMaps {
    /// Decoder → encoder attention, one row per output token (EOS last).
    pub cross: Maps,
    /// Encoder self-attention (Transformer only; empty for the GRU).
    pub encoder_self: Maps,
    /// Decoder self-attention: one row per output token over the decoder inputs (BOS and the
    /// output so far); causal, so row i covers inputs 0..=i (Transformer only).
    pub decoder_self: Maps,
}

fn stack_maps(maps: &[candle_core::Tensor]) -> Result<Maps, String> {
    let stacked = candle_core::Tensor::stack(
        &maps.iter().map(|m| m.squeeze(0)).collect::<Result<Vec<_>, _>>().map_err(|e| e.to_string())?,
        0,
    )
    .map_err(|e| e.to_string())?;
    to_maps(&stacked.to_device(&Device::Cpu).map_err(|e| e.to_string())?)
}

fn to_maps(t: &candle_core::Tensor) -> Result<Maps, String> {
    // (layers, heads, rows, cols)
    let dims = t.dims().to_vec();
    let flat = t.flatten_all().and_then(|f| f.to_vec1::<f32>()).map_err(|e| e.to_string())?;
    let (l, h, r, c) = (dims[0], dims[1], dims[2], dims[3]);
    let row =
        |li: usize, hi: usize, ri: usize| flat[((li * h + hi) * r + ri) * c..((li * h + hi) * r + ri + 1) * c].to_vec();
    Ok((0..l).map(|li| (0..h).map(|hi| (0..r).map(|ri| row(li, hi, ri)).collect()).collect()).collect())
}

/// Attention while producing `output` (tokens without EOS; EOS is fed as the last step's target).
pub fn attention_maps(model: &Model, source_ids: &[u32], output: &[u32]) -> Result<AttentionMaps, String> {
    let mut stepper = CpuStepper::new(&model.net, &model.config);
    stepper.start(&[source_ids.to_vec()])?;
    let mut inputs = vec![stepper.bos()];
    inputs.extend_from_slice(output);
    // rows[step] = (layers, heads, S)
    let mut steps: Vec<Vec<Vec<Vec<f32>>>> = Vec::new();
    for &t in &inputs {
        stepper.step(&[t], true)?;
        let full = stepper.last_attention_full.take().ok_or("no attention captured")?;
        let per_row = full.squeeze(0).and_then(|f| f.to_vec3::<f32>()).map_err(|e| e.to_string())?;
        steps.push(per_row);
    }
    let (layers, heads) = (steps[0].len(), steps[0][0].len());
    let cross =
        (0..layers).map(|l| (0..heads).map(|h| steps.iter().map(|s| s[l][h].clone()).collect()).collect()).collect();
    let (encoder_self, decoder_self) = match &model.net {
        Net::Transformer(t) => {
            let (src, mask) = pad_batch(&[source_ids.to_vec()]).map_err(|e| e.to_string())?;
            let (memory, maps) = t.encode_with_attention(&src, &mask, false, true).map_err(|e| e.to_string())?;
            let tgt_in = candle_core::Tensor::new(inputs.as_slice(), &Device::Cpu)
                .and_then(|x| x.unsqueeze(0))
                .map_err(|e| e.to_string())?;
            let (_, dec) = t.decode_with_attention(&memory, &mask, &tgt_in, false, true).map_err(|e| e.to_string())?;
            (stack_maps(&maps)?, stack_maps(&dec)?)
        }
        Net::Gru(_) => (vec![], vec![]),
    };
    Ok(AttentionMaps { cross, encoder_self, decoder_self })
}
