// One beam-search step chosen on the device, one workgroup per sentence (`slot`: rows
// slot·beam .. slot·beam + beam), as crates/decode's beam search chooses on the host:
//   - every row's k candidates (topk.wgsl's (token, log-prob) pairs from `cand_off`), scored by the
//     row's cumulative log-prob plus their own, non-finite ones left out;
//   - ranked best first, ties to the lower row and then the lower token; the 2·beam best written to
//     the ranked section of `log` for the host (token 0xffffffff where there are fewer);
//   - the `beam` best that are not EOS become the next step's rows, in rank order: their (parent,
//     token, log-prob, cumulative) in the rows section of `log` at step + 1 and the parent in `index`
//     (the reorder's gather reads it; the next embedding reads the token).
//
// `log` (u32 words, floats as bits): the ranked section first, 4 words (row within the sentence,
// token, log-prob, cumulative) per entry at ((step·slots + slot)·2·beam + rank)·4; then the rows
// section from `rows_at`, 4 words (parent, token, log-prob, cumulative) per row at
// rows_at + (step·rows + row)·4, step 0 written by the host.

struct Dims { rows: u32, beam: u32, k: u32, eos: u32, step: u32, slots: u32, cand_off: u32, rows_at: u32 }

@group(0) @binding(0) var<storage, read> cands: array<u32>;
@group(0) @binding(1) var<storage, read_write> log: array<u32>;
@group(0) @binding(2) var<storage, read_write> index: array<u32>;
@group(0) @binding(3) var<uniform> dims: Dims;

// The most candidates of a sentence: beam ≤ 16 rows of k ≤ 32 (kernels.rs checks).
var<private> taken: array<u32, 16>;

fn row_entry(step: u32, row: u32) -> u32 {
    return dims.rows_at + (step * dims.rows + row) * 4u;
}

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
    let slot = wid.x;
    let beam = dims.beam;
    let first = slot * beam;
    for (var w = 0u; w < 16u; w++) {
        taken[w] = 0u;
    }
    var live = 0u;
    for (var rank = 0u; rank < 2u * beam; rank++) {
        var found = false;
        var best_i = 0u;
        var best_c = 0u;
        var best_tok = 0u;
        var best_lp = 0.0;
        var best_cum = 0.0;
        for (var i = 0u; i < beam; i++) {
            let cum_i = bitcast<f32>(log[row_entry(dims.step, first + i) + 3u]);
            for (var c = 0u; c < dims.k; c++) {
                let n = i * dims.k + c;
                if ((taken[n / 32u] & (1u << (n % 32u))) != 0u) {
                    continue;
                }
                let pair = dims.cand_off + (first + i) * dims.k + c;
                let tok = cands[2u * pair];
                let lp = bitcast<f32>(cands[2u * pair + 1u]);
                // Finite only: an exponent of all ones is ±∞ or NaN.
                if ((bitcast<u32>(lp) & 0x7f800000u) == 0x7f800000u) {
                    continue;
                }
                let cum = cum_i + lp;
                // Candidates are visited by row, then token rank: a tie keeps the earlier row, and
                // within a row the lower token.
                let better = !found || cum > best_cum || (cum == best_cum && i == best_i && tok < best_tok);
                if (better) {
                    found = true;
                    best_i = i;
                    best_c = n;
                    best_tok = tok;
                    best_lp = lp;
                    best_cum = cum;
                }
            }
        }
        let at = ((dims.step * dims.slots + slot) * 2u * beam + rank) * 4u;
        if (!found) {
            log[at + 1u] = 0xffffffffu;
            continue;
        }
        taken[best_c / 32u] |= 1u << (best_c % 32u);
        log[at] = best_i;
        log[at + 1u] = best_tok;
        log[at + 2u] = bitcast<u32>(best_lp);
        log[at + 3u] = bitcast<u32>(best_cum);
        if (best_tok != dims.eos && live < beam) {
            let next = row_entry(dims.step + 1u, first + live);
            log[next] = first + best_i;
            log[next + 1u] = best_tok;
            log[next + 2u] = bitcast<u32>(best_lp);
            log[next + 3u] = bitcast<u32>(best_cum);
            index[first + live] = first + best_i;
            live++;
        }
    }
    // Fewer than `beam` finite candidates that are not EOS (non-finite log-probabilities): the rows
    // left continue the first row, and the host, which keeps fewer hypotheses, ends the search with
    // an error (the page then runs it on the CPU engine).
    for (; live < beam; live++) {
        let next = row_entry(dims.step + 1u, first + live);
        log[next] = first;
        log[next + 1u] = dims.eos;
        // The lowest finite f32.
        log[next + 2u] = 0xff7fffffu;
        log[next + 3u] = 0xff7fffffu;
        index[first + live] = first;
    }
}
