#!/usr/bin/env python3
"""Builds test/fixtures/engine-source/ollama.json from ollama/ollama trees (Go, plus the v0.1.x C++ ext_server).

usage: build_ollama.py OLLAMA_GIT OUT.json

Ollama is a daemon: it starts (args: config, GPU discovery), listens (`Listening on …`: the daemon is ready),
and loads a model only when a request needs one (scheduler, then a runner subprocess: the v0.1.x C++
ext_server, the Go runner of 0.2-0.5, the llama/ollama runners of 0.6+, llama-server in 2026). The model's
load lines therefore follow the daemon's ready line; their phase is the model load's.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import classify, commit_info, last_change, norm, write  # noqa: E402
import cpp_extract  # noqa: E402
import go_extract  # noqa: E402

GIT, OUT = sys.argv[1:3]
TREES = [
    ('newest', 'fb30760996871fa9460115c753afd2c60d4ab0f7'),
    ('v0.12.0', 'v0.12.0'),
    ('v0.5.7', 'v0.5.7'),
    ('v0.1.32', 'v0.1.32'),
]
FILES = re.compile(
    r'^(?:server|llm|discover|gpu|envconfig|kvcache)/[^/]+\.go$|^(?:runner|llama/runner)/(?:[^/]+/)?[^/]+\.go$|'
    r'^ml/[^/]+\.go$|^ml/backend/ggml/ggml\.go$|^cmd/cmd\.go$|^llm/ext_server/(?:server\.cpp|utils\.hpp)$')

# (regex, phase, meaning): the hand-checked milestones and failures (`key`).
KEY = [
    (r'^server config$', 'args', 'the daemon\'s settings (OLLAMA_* environment)'),
    (r'^Listening on ', 'ready', 'the daemon listens; a model loads only when a request asks for it (lines after this)'),
    (r'^inference compute$|^looking for compatible GPUs$|^discovering available GPUs|^Dynamic LLM libraries|'
     r'^no compatible GPUs were discovered|^total blobs|^total unused blobs removed', 'args', 'daemon startup: blobs and GPU discovery'),
    (r'^new model will fit|^offload to |^model fits alongside|^llama-server model fits|^loading model via|'
     r'^starting llama server|^starting llama-server|^using llama-server for model|^loading model$|'
     r'^starting go runner|^starting ollama engine|^waiting for llama runner to start responding|'
     r'^waiting for llama-server to start responding|^waiting for server to become available|'
     r'^waiting for llama-server to become available|^llama_model_loader|^load_backend|^system info|'
     r'^offloading|^offloaded|^load_tensors', 'loading_weights', 'a model load: scheduler, runner start, weights'),
    (r'^model weights$', 'weights_loaded', 'the runner placed the weights (device, size)'),
    (r'^kv cache$|^compute graph$|^total memory$|^llama_new_context|^llama_context|^new slot', 'kv_cache',
     'the runner sizes the KV cache and compute graph'),
    (r'^llama runner started in|^llama-server started in', 'ready', 'the model is loaded: the runner answers'),
    (r'model requires more system memory|model is too large for system memory|requires more memory|'
     r'insufficient memory|out of memory|not enough|cannot be allocated|does not fit|did not fit', None, 'the model does not fit in memory'),
    (r'error loading model|unable to load model|error loading llama server|llama runner process has terminated|'
     r'llama runner process no longer running|llama-server terminated|llama-server process no longer running|'
     r'timed out waiting for llama runner|timed out waiting for llama-server|Load failed', None,
     'the model load failed (the runner\'s last error follows)'),
    (r'CUDA error|cudaMalloc|no CUDA-capable|unable to allocate|failed to allocate', None, 'a GPU error or allocation failure'),
    (r'^pull model manifest|file does not exist|model .*not found', None, 'the model is not there'),
    (r'address already in use|bind', 'args', 'the daemon\'s port is taken'),
]
KEY_RAISE = re.compile(r'memory|llama runner|llama-server|error loading model|timed out|CUDA|GPU|not found|'
                       r'does not exist|unsupported|not supported|bind|address already|newer version|pull model')


def phase_of(path, func, t):
    for rx, ph, _ in KEY:
        if ph and re.search(rx, t):
            return ph
    base = path.split('/')[-1]
    if path.startswith(('envconfig/', 'discover/', 'gpu/', 'cmd/')):
        return 'args'
    if base == 'routes.go':
        if func == 'load':  # v0.1.x routes.go load(): the model load a request triggers, before the scheduler
            return 'loading_weights'
        return 'args' if re.search(r'Serve|GenerateRoutes|init', func) else 'serving'
    if base in ('images.go', 'download.go', 'upload.go', 'create.go', 'manifest.go', 'manifests.go', 'model.go',
                'modelpath.go', 'layer.go', 'layers.go', 'fixblobs.go', 'prompt.go', 'auth.go'):
        return 'args' if re.search(r'PruneLayers|PruneDirectory|deleteUnused|fixBlobs', func) else 'serving'
    if base == 'sched.go':
        return 'loading_weights' if re.search(r'load|Load|pickBest|newServer|updateFreeSpace|Placement|Mmap|GPU', func) else 'serving'
    if path.startswith('llm/') or path.startswith('ml/'):
        if re.search(r'Completion|Embed|Chat|Tokenize|Detokenize|Close|Ping|completion', func):
            return 'serving'
        if re.search(r'kv|KV|Cache|Reserve|reserve|graph', func):
            return 'kv_cache'
        return 'loading_weights'
    if path.startswith('kvcache/'):
        return 'kv_cache' if re.search(r'Init|New', func) else 'serving'
    if 'runner' in path:
        if re.search(r'^(?:Execute|main|Main)$|flag', func):
            return 'args'
        if re.search(r'load|Load|init|Init|reserve|allocModel|New', func):
            return 'loading_weights'
        return 'serving'
    if base in ('server.cpp', 'utils.hpp'):
        return 'serving'
    return 'serving'


def meaning_of(t, phase, func, level):
    for rx, _, m in KEY:
        if re.search(rx, t):
            return m, True
    return f'{level} during {phase} ({func})', False


def main():
    rows = {}
    commits_read, versions = [], {}
    for label, ref in TREES:
        commit, date = commit_info(GIT, ref)
        versions[label] = {'ref': ref, 'commit': commit, 'date': date, 'repo': 'ollama/ollama'}
        files = [p for p in subprocess.run(['git', '-C', GIT, 'ls-tree', '-r', '--name-only', commit],
                                           capture_output=True, text=True).stdout.split('\n')
                 if FILES.search(p) and '_test' not in p]
        for p in files:
            src = subprocess.run(['git', '-C', GIT, 'show', f'{commit}:{p}'], capture_output=True, text=True,
                                 errors='replace').stdout
            lc, ld = last_change(GIT, commit, p)
            commits_read.append({'path': p, 'tree': label, 'commit': commit, 'date': date,
                                 'last_change_commit': lc, 'last_change_date': ld})
            found = cpp_extract.extract(p, src) if p.endswith(('.cpp', '.hpp')) else go_extract.extract(p, src)
            for r in found:
                if p.startswith('cmd/') and not re.search(r'RunServer|initializeKeypair|checkServerHeartbeat', r['function']):
                    continue
                t = r['template'].strip('\n').rstrip()
                if not t.strip() or r['level'] in ('cont', 'stdout'):
                    continue
                r['template'] = t
                k = (p.split('/')[-1], r['kind'], r['level'], norm(t))
                if k in rows:
                    if label not in rows[k]['versions']:
                        rows[k]['versions'].append(label)
                    continue
                r['versions'] = [label]
                rows[k] = r
    log_lines, raises = [], []
    for r in rows.values():
        t = r['template']
        if r['kind'] == 'log':
            lv = {'server_info': 'info', 'server_warning': 'warning', 'server_error': 'error', 'stderr': 'print'}.get(
                r['level'], r['level'])
            phase = phase_of(r['file'], r['function'], t)
            meaning, key = meaning_of(t, phase, r['function'], lv)
            if phase == 'serving' and not key and lv not in ('error', 'fatal'):
                continue
            e = {'file': r['file'], 'function': r['function'], 'level': lv, 'template': t, 'phase': phase,
                 'meaning': meaning, 'versions': r['versions'], 'key': key}
            if r['file'].endswith(('.cpp', '.hpp')):
                e['format'] = 'server_log' if r['level'].startswith('server_') else 'stderr'
            elif lv in ('info', 'warning', 'error'):
                e['format'] = 'slog'  # time=… level=INFO source=file.go:N msg="<template>" key=value …
            if phase == 'serving' and lv in ('error', 'fatal'):
                e['phase_scope'] = 'any'
            log_lines.append(e)
        else:
            exc = r['level']
            cls = classify(t, 'other')
            phase = phase_of(r['file'], r['function'], t)
            key = bool(KEY_RAISE.search(t)) or cls not in ('config_error', 'unsupported', 'other')
            raises.append({'file': r['file'], 'function': r['function'], 'exception': exc, 'template': t,
                           'failure_class': cls, 'phase': phase, 'versions': r['versions'], 'key': key})
    write(OUT, {
        'engine': 'ollama',
        'program': 'ollama',
        'relays': ['llamacpp'],
        'repo': 'ollama/ollama',
        'versions': versions,
        'field_notes': {
            'log_lines': 'template: the slog message (a literal or a fmt.Sprintf format; key=value pairs follow it '
                         'in the printed line and are not part of it); format slog: printed `time=… level=INFO '
                         'source=file.go:N msg="…" k=v`; format server_log: the v0.1.x C++ ext_server\'s JSON lines '
                         '(`{"function":…,"level":…,"msg":…}`); level print: log.Printf / fmt.Fprintf(os.Stderr)',
            'raises': 'exception: error (fmt.Errorf / errors.New: a Go error value, printed where it is logged, '
                      'e.g. `error="…"` or in the HTTP answer) or panic',
            'relays': 'the runner subprocess prints llama.cpp\'s own lines (src/llama*.cpp, ggml): look them up in '
                      'the llamacpp catalog',
        },
        'commits_read': commits_read,
        'log_lines': sorted(log_lines, key=lambda e: (e['file'], e['template'])),
        'raises': sorted(raises, key=lambda e: (e['file'], e['template'])),
        'frames': [],
    })
    print(f'{len(log_lines)} log lines ({sum(e["key"] for e in log_lines)} key), {len(raises)} raises '
          f'({sum(e["key"] for e in raises)} key), {len(commits_read)} files', file=sys.stderr)


main()
