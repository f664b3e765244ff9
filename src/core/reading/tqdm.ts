/** tqdm progress bars: SGLang/vLLM's `NN% Completed | a/b [..]` format and tqdm's default `NN%|███| a/b [..]`. */

import type { Phase } from '../base/types.js';
import type { ProgressReading } from '../engines/types.js';

const BAR =
  /^(.*?):\s+(\d{1,3})%\s*(?:Completed \||\|[^|]*\|)\s*(\d+)\/(\d+)(?:\s*\[([\d:]+)(?:<([\d:?]+))?(?:,\s*([\d.?]+)\s*(it\/s|s\/it))?)?/;

function clock(s: string | undefined): number | null {
  if (!s || s.includes('?')) return null;
  let t = 0;
  for (const part of s.split(':')) t = t * 60 + Number(part);
  return Number.isFinite(t) ? t : null;
}

export function parseBar(msg: string): ProgressReading | null {
  const m = BAR.exec(msg);
  if (!m) return null;
  const done = Number(m[3]);
  const total = Number(m[4]);
  if (!(total > 0) || done > total) return null;
  let rate: number | null = null;
  if (m[7] && m[7] !== '?') {
    const r = Number(m[7]);
    rate = m[8] === 's/it' ? (r > 0 ? 1 / r : null) : r;
  }
  return { desc: m[1]!.trim(), done, total, elapsed: clock(m[5]), remaining: clock(m[6]), rate };
}

/**
 * Which phase a bar belongs to, from its description. Not huggingface_hub's `Fetching N files` (snapshot_download):
 * vLLM downloads weights with it silenced (model_loader/weight_utils.py download_weights_from_hf,
 * `tqdm_class=DisabledTqdm`; SGLang's copy does the same), so a visible one is a config or tokenizer lookup
 * (transformers_utils/config.py, tokenizers/registry.py) made while the arguments are resolved, or the user's own.
 */
export function barPhase(desc: string): Phase | null {
  if (
    /checkpoint shards|safetensors|Loading weights|loading shards|Loading model|Multi-thread loading|Runai|Fastsafetensor|np_cache|\.safetensors|\.bin$|\.gguf$|Loading \w+ weights/i.test(
      desc,
    )
  )
    return 'loading_weights';
  if (/Capturing|cuda graph|CUDA graph|graph shapes|Compiling num tokens/i.test(desc)) return 'cuda_graph';
  // Kernel warmups run once the KV cache is sized, before the graphs are captured: vLLM
  // model_executor/warmup/deep_gemm_warmup.py (`DeepGEMM warmup`, from kernel_warmup in the worker's
  // compile_or_warm_up_model) and SGLang deep_gemm_wrapper/compile_utils.py (same description)
  if (/DeepGEMM warmup|autotun/i.test(desc)) return 'autotune';
  if (/DeepGEMM|JIT/i.test(desc)) return 'compile';
  return null;
}
