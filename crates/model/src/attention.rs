//! Attention maps of one translation for visualisation: the chosen output is fed back step by step
//! (forced decoding) and every step's attention is kept.

use candle_core::Device;
use wgslate_decode::StepModel;

use crate::step::{pad_batch, CpuStepper};
use crate::{Model, Net};

/// maps[layer][head][target][source]; the GRU has one layer and one head.
pub type Maps = Vec<Vec<Vec<Vec<f32>>>>;

#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
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

/// A heatmap reduced to at most `max_side` × `max_side` cells for drawing: consecutive rows and
/// columns are grouped evenly; a cell holds its columns' sum averaged over its rows, so each row
/// of cells still sums to what the rows did (1 for attention).
#[derive(Debug, Clone, PartialEq)]
pub struct Pooled {
    pub cells: Vec<Vec<f32>>,
    /// Each cell row's original rows, and each cell column's original columns (start..end).
    pub row_groups: Vec<std::ops::Range<usize>>,
    pub col_groups: Vec<std::ops::Range<usize>>,
}

/// Longer maps are drawn as blocks, at most this many per side (4 096 cells), so a long input
/// never builds a huge heatmap (nor sends one from the engine worker to the page).
pub const MAX_SIDE: usize = 64;

/// `n` consecutive indices split evenly into at most `max` groups.
pub fn groups(n: usize, max: usize) -> Vec<std::ops::Range<usize>> {
    let size = n.div_ceil(max.max(1)).max(1);
    (0..n).step_by(size).map(|s| s..(s + size).min(n)).collect()
}

impl AttentionMaps {
    /// Every map pooled as [`pool_cells`] does (the groups follow from the token counts alone).
    /// Pooling is linear, so the mean of pooled maps over layers or heads is the pooled mean.
    pub fn pooled(&self, max_side: usize) -> AttentionMaps {
        let pool = |m: &Maps| -> Maps {
            m.iter().map(|layer| layer.iter().map(|head| pool_cells(head, max_side).cells).collect()).collect()
        };
        AttentionMaps {
            cross: pool(&self.cross),
            encoder_self: pool(&self.encoder_self),
            decoder_self: pool(&self.decoder_self),
        }
    }
}

pub fn pool_cells(rows: &[Vec<f32>], max_side: usize) -> Pooled {
    let cols = rows.first().map_or(0, Vec::len);
    let (row_groups, col_groups) = (groups(rows.len(), max_side), groups(cols, max_side));
    let cells = row_groups
        .iter()
        .map(|rg| {
            col_groups
                .iter()
                .map(|cg| {
                    let sum: f32 = rows[rg.clone()].iter().map(|r| r[cg.clone()].iter().sum::<f32>()).sum();
                    sum / rg.len() as f32
                })
                .collect()
        })
        .collect();
    Pooled { cells, row_groups, col_groups }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mean_of_pooled_maps_is_the_pooled_mean() {
        let map = |seed: usize| -> Vec<Vec<f32>> {
            (0..150).map(|r| (0..130).map(|c| ((r * 31 + c * 17 + seed * 7) % 23) as f32).collect()).collect()
        };
        let maps = AttentionMaps { cross: vec![vec![map(1), map(2)]], ..Default::default() };
        let pooled = maps.pooled(64);
        let mean: Vec<Vec<f32>> =
            map(1).iter().zip(map(2)).map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x + y) / 2.0).collect()).collect();
        let want = pool_cells(&mean, 64).cells;
        let got = &pooled.cross[0];
        assert_eq!((got[0].len(), got[0][0].len()), (want.len(), want[0].len()));
        for (r, row) in want.iter().enumerate() {
            for (c, w) in row.iter().enumerate() {
                assert!(((got[0][r][c] + got[1][r][c]) / 2.0 - w).abs() < 1e-3 * w.abs().max(1.0));
            }
        }
    }

    #[test]
    fn small_maps_are_drawn_as_they_are() {
        let rows = vec![vec![0.25, 0.75], vec![1.0, 0.0]];
        let p = pool_cells(&rows, 64);
        assert_eq!(p.cells, rows);
        assert_eq!(p.row_groups, vec![0..1, 1..2]);
    }

    #[test]
    fn a_256_by_256_map_becomes_64_by_64_with_rows_still_summing_to_one() {
        let n = 256;
        // Row r puts its mass on columns r and (r * 7) % n.
        let rows: Vec<Vec<f32>> = (0..n)
            .map(|r| {
                let mut row = vec![0f32; n];
                row[r] += 0.5;
                row[(r * 7) % n] += 0.5;
                row
            })
            .collect();
        let p = pool_cells(&rows, 64);
        assert_eq!((p.cells.len(), p.cells[0].len()), (64, 64));
        assert_eq!(p.row_groups[1], 4..8);
        for row in &p.cells {
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
        // The diagonal's half of the mass stays on the diagonal of blocks.
        assert!(p.cells.iter().enumerate().all(|(i, r)| r[i] >= 0.5 - 1e-6));
    }

    #[test]
    fn uneven_sizes_keep_every_row_and_column() {
        let rows = vec![vec![1.0 / 70.0; 70]; 130];
        let p = pool_cells(&rows, 64);
        assert_eq!(p.row_groups.last().unwrap().end, 130);
        assert_eq!(p.col_groups.last().unwrap().end, 70);
        assert!(p.cells.len() <= 64 && p.cells[0].len() <= 64);
        assert!(p.cells.iter().all(|r| (r.iter().sum::<f32>() - 1.0).abs() < 1e-5));
    }
}
