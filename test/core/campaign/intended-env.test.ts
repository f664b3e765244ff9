/** What of the environment and the command line a launch record keeps, and that secrets never get in. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactArgv, selectEnv } from '../../../src/core/campaign/intended-env.js';

describe('selectEnv', () => {
  it('keeps the variables that shape a launch, redacts credentials, drops the rest', () => {
    const env = selectEnv({
      CUDA_VISIBLE_DEVICES: '0,1,2,3',
      NCCL_DEBUG: 'INFO',
      NCCL_IB_HCA: 'mlx5',
      SGLANG_ENABLE_JIT_DEEPGEMM: '0',
      VLLM_USE_V1: '1',
      TORCH_CUDA_ARCH_LIST: '9.0',
      HF_HOME: '/data/hf',
      HF_TOKEN: 'hf_abcdefghijklmnopqrstuvwxyz0123456789',
      HUGGING_FACE_HUB_TOKEN: 'abc',
      VLLM_API_KEY: 'abc',
      SGLANG_SECRET_THING: 'abc',
      NCCL_PASSWORD: 'abc',
      HF_HUB_OFFLINE: '1',
      VLLM_EMPTY_TOKEN: '',
      HOME: '/root',
      AWS_SECRET_ACCESS_KEY: 'nope',
      PATH: '/usr/bin',
    });
    assert.deepEqual(env, {
      CUDA_VISIBLE_DEVICES: '0,1,2,3',
      HF_HOME: '/data/hf',
      HF_HUB_OFFLINE: '1',
      HF_TOKEN: '<redacted>',
      HUGGING_FACE_HUB_TOKEN: '<redacted>',
      NCCL_DEBUG: 'INFO',
      NCCL_IB_HCA: 'mlx5',
      NCCL_PASSWORD: '<redacted>',
      SGLANG_ENABLE_JIT_DEEPGEMM: '0',
      SGLANG_SECRET_THING: '<redacted>',
      TORCH_CUDA_ARCH_LIST: '9.0',
      VLLM_API_KEY: '<redacted>',
      VLLM_EMPTY_TOKEN: '',
      VLLM_USE_V1: '1',
    });
  });
});

describe('redactArgv', () => {
  it('redacts secret flags in both forms, assignments and token-shaped words', () => {
    assert.deepEqual(
      redactArgv([
        'env',
        'HF_TOKEN=abc',
        'CUDA_VISIBLE_DEVICES=0',
        'vllm',
        'serve',
        'm',
        '--api-key',
        'hunter2',
        '--hf-token=xyz',
        '--port',
        '8000',
        '--note',
        'hf_abcdefghijklmnopqrstuvwxyz0123456789',
      ]),
      [
        'env',
        'HF_TOKEN=<redacted>',
        'CUDA_VISIBLE_DEVICES=0',
        'vllm',
        'serve',
        'm',
        '--api-key',
        '<redacted>',
        '--hf-token=<redacted>',
        '--port',
        '8000',
        '--note',
        '<redacted>',
      ],
    );
  });
});
