"""Shared by the engine-source builders: the trees' metadata, failure classes from wording, the JSON written.

Failure classes follow firedup's (src/core/base/types.ts FAILURE_CLASSES) with rules in the order the SGLang/vLLM
catalogs used (research/engine-source README §2): killed, oom, port_in_use, timeout, cuda_error,
model_not_found, unsupported, nccl, config_error, then the engine's fallback.
"""
import json
import re
import subprocess

CLASS_RULES = [
    ('killed', r'\bkilled\b|SIGKILL|signal: killed|exit status 137|OOM killer'),
    ('oom', r'out of memory|OutOfMemory|\bOOM\b|not enough (?:GPU |system |device )?memory|insufficient (?:GPU |system )?memory|'
            r'failed to allocate|unable to allocate|cudaMalloc|requires more system memory|memory allocation of size|'
            r'ErrorOutOfDeviceMemory|no space left for the KV|failed to find free space in the KV cache|'
            r'model requires more|cannot be allocated|exceeds (?:the )?available (?:GPU |system )?memory|cache_max_entry_count'),
    ('port_in_use', r'bind|address already in use|port .* in use|EADDRINUSE'),
    ('timeout', r'timed out|timeout|deadline exceeded'),
    ('cuda_error', r'CUDA error|cuda(?:Get|Set|Malloc|Memcpy)\w*|CUBLAS|cuBLAS error|ROCm error|HIP error|Vulkan error|'
                   r'Metal error|SYCL error|no CUDA-capable|CUDA driver|nvidia-smi|NVML|cuda runtime|GPU has fallen off'),
    ('model_not_found', r"failed to open|No such file|file not found|does not exist|no such model|model .*not found|"
                        r"pull model manifest|file does not exist|failed to (?:load|read) (?:the )?model|"
                        r"error loading model|unable to load model|invalid model path|RepositoryNotFound|"
                        r"not a valid model|failed to download|could not find (?:the )?model|model '.*' not found"),
    ('unsupported', r'not supported|unsupported|Unsupported|unknown (?:model )?architecture|unknown pre-tokenizer|'
                    r'not implemented|NotImplemented|only supports?|does not support|requires a newer|'
                    r'newer version of Ollama|is not compatible|incompatible|no compatible GPUs'),
    ('nccl', r'NCCL|nccl'),
    ('config_error', r'invalid (?:argument|value|option|parameter|format|type|key|context|number|choice)|'
                     r'must be|should be|\bexpected|error while handling|unknown (?:argument|option|flag|key|value)|'
                     r'wrong|cannot be|can not be|out of range|not allowed|mismatch|too (?:large|small|long|many|few)|'
                     r'exceeds|missing|required|requires|please (?:set|use|specify)|invalid|Invalid|no \w+ specified'),
]


def classify(text, fallback):
    for cls, rx in CLASS_RULES:
        if re.search(rx, text, re.I if cls not in ('unsupported', 'config_error') else 0):
            return cls
    return fallback


def commit_info(git, ref):
    out = subprocess.run(['git', '-C', git, 'log', '-1', '--format=%H %cs', ref], capture_output=True, text=True,
                         check=True).stdout.split()
    return out[0], out[1]


def last_change(git, commit, path):
    out = subprocess.run(['git', '-C', git, 'log', '-1', '--format=%H %cs', commit, '--', path],
                         capture_output=True, text=True).stdout.split()
    return (out[0], out[1]) if out else (None, None)


def norm(t):
    return re.sub(r'\s+', ' ', re.sub(r'%[-+ #0]*\d*(?:\.\d+)?[a-zA-Z]+|\{[^{}]*\}', '{}', t)).strip()


def write(path, data):
    with open(path, 'w') as f:
        json.dump(data, f, indent=1, ensure_ascii=False)
        f.write('\n')
