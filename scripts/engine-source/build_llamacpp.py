#!/usr/bin/env python3
"""Builds test/fixtures/engine-source/llamacpp.json from llama.cpp trees read with cpp_extract.py.

usage: build_llamacpp.py KMBANDY_GIT UNSLOTH_GIT OUT.json
(kmbandy/llama.cpp carries the upstream bNNNN tags; unslothai/llama.cpp carries upstream master to 2026-08-17.)
"""
import json
import re
import subprocess
import sys
import os

sys.path.insert(0, os.path.dirname(__file__))
from common import classify, commit_info, last_change, norm, write  # noqa: E402
import cpp_extract  # noqa: E402

KM, UN, OUT = sys.argv[1:4]
TREES = [
    # label, git dir, ref
    ('newest', UN, 'fa88ae9368f7d2ce6669be3a7e6e25f9c426e6a6'),
    # upstream master between the b4000 and newest trees (b47xx): libllama's context made by llama_init_from_model in
    # src/llama.cpp, whose lines (`llama_init_from_model: n_ctx = …`) neither neighbour prints
    ('2025-02-15', UN, '68ff663a04ed92044a9937bcae353e9d9733f9cd'),
    ('b4000', KM, 'b4000'),
    ('b3498', KM, 'b3498'),
    ('b1448', KM, 'b1448'),
]
FILES = re.compile(
    r'^(?:tools|examples)/server/(?:server[^/]*\.cpp|utils\.hpp)$|^(?:src/)?llama\.cpp$|'
    r'^src/llama-(?:model-loader|model|context|kv-cache[^/]*|memory[^/]*|vocab|adapter|mmap|graph)\.cpp$|'
    r'^common/(?:arg|common|fit|download|log)\.cpp$|'
    r'^(?:ggml/src/)?(?:ggml-cuda/)?ggml-cuda\.cu$|^(?:ggml/src/)?ggml-backend(?:-reg)?\.c(?:pp)?$|^(?:ggml/src/)?ggml-alloc\.c$')
SERVER_SKIP = re.compile(r'server-(?:mcp|tools|chat|schema|cors|stream|models)\.cpp$')

# Message rules, checked first: (regex on the template, phase, meaning). These are the hand-checked milestones
# and failures (`key`), read in the trees' server.cpp main()/load_model(), common_init_from_params and the loader.
KEY_LOGS = [
    (r'^build(?: =|: )', 'args', 'build banner: the build number and commit (common.cpp print_build_info)'),
    (r'system info|system_info', 'args', 'CPU/GPU features of this build (system info)'),
    (r'^main: (?:n_threads|seed|build|HTTP server is listening|server is listening)', None, None),
    (r'found %d (?:CUDA|ROCm|MUSA) devices|ggml_cuda_init: found', 'args', 'GPUs the CUDA backend sees'),
    (r'load_backend: loaded', 'args', 'a ggml backend library was loaded'),
    (r'llama server listening at|HTTP server listening|server is listening on|listening on %s|main: server is listening',
     'ready', 'the HTTP server listens (the model is loaded unless it listens first, 2025+: then /health says 503)'),
    (r'all slots are idle', 'ready', 'the main loop started, or a request finished: nothing is running'),
    (r'^model loaded$|(?:main|llama_server): model loaded', 'warmup', 'the model and slots are ready; the server listens next'),
    (r'warming up the model', 'warmup', 'an empty run before serving (common_init_from_params)'),
    (r"loading model '%s'|main: loading model|^loading model$", 'loading_weights', 'the server starts loading the GGUF'),
    (r'loaded meta data with', 'loading_weights', 'GGUF header read (llama_model_loader)'),
    (r'KV self size|KV buffer size|kv self =|creating .*KV cache|creating .*compressor state|kv_size|^llama_(?:new_)?context: +n_ctx',
     'kv_cache', 'context and KV cache being created'),
    (r'compute buffer size|output buffer size|graph nodes|graph splits', 'kv_cache', 'compute buffers reserved for the context'),
    # load_tensors (llama-model.cpp; llm_load_tensors in src/llama.cpp before 2025) prints the buffer sizes once
    # the buffers are allocated, then load_all_data reads the weights into them (progress dots only): no line
    # says the weights are in; the context's lines (kv_cache) follow.
    (r'model buffer size|^(?:load_tensors|llm_load_tensors): .*buffer size|LoRA buffer size', 'loading_weights',
     'the weights\' backend buffers are allocated; the weights are read into them next'),
    (r'offloaded %d/%d layers to GPU|offloading %d repeating layers', 'loading_weights', 'layers offloaded to the GPU'),
    (r'initializing slots|initializing, n_slots|new slot|Available slots', 'kv_cache', 'server slots created on the context'),
    (r'^(?:main: |srv +init: )?(?:chat template|The chat template)', 'warmup', 'chat template chosen after the model loaded'),
    (r'failed to open GGUF file|failed to open %s|gguf_init_from_file', 'loading_weights', 'GGUF file cannot be opened'),
    (r'error loading model', 'loading_weights', 'the loader threw: the reason follows on the same line'),
    (r'failed to load model|unable to load model|exiting due to model loading error', 'loading_weights',
     'the load failed (the cause is the line above)'),
    (r"couldn't bind", 'args', 'the HTTP port is taken'),
    (r'exiting due to HTTP server error', 'args', 'the HTTP server did not start'),
    (r'failed to allocate|unable to allocate|out of memory|cudaMalloc failed', None, 'an allocation failed: out of memory'),
    (r'CUDA error', None, 'a CUDA call failed'),
    (r'cleaning up before exit|Received second interrupt|terminating', 'shutdown', 'Ctrl-C/SIGTERM: the server stops'),
    (r'prompt eval time|eval time|total time', 'serving', 'per-request timings (print_timings)'),
    (r'is processing|processing task|slot released|released \(', 'serving', 'a slot takes or releases a request'),
    (r'failed to create context|failed to create_context|failed to create MTP context', 'kv_cache',
     'the context (KV cache) could not be created'),
    (r'unknown model architecture|unknown pre-tokenizer', 'loading_weights', 'this build does not know the model'),
]
KEY_RAISES = re.compile(
    r'failed to open|unknown model architecture|unknown pre-tokenizer|tensor .*not found|wrong shape|'
    r'invalid magic|failed to (?:read|load|allocate|create)|out of memory|CUDA error|not enough|'
    r'unsupported|not supported|key not found|data is not within the file bounds|error loading|'
    r'invalid argument|unknown argument|file not found|No such file')


def phase_of(path, func, template, level):
    t = template
    for rx, ph, _ in KEY_LOGS:
        if ph and re.search(rx, t):
            return ph
    base = path.split('/')[-1]
    if base in ('arg.cpp', 'log.cpp'):
        return 'args'
    if base == 'fit.cpp':
        return 'loading_weights'
    if base == 'download.cpp':
        return 'loading_weights'
    if base == 'common.cpp':
        if re.search(r'context|lora|control_vector|cvec|warmup|adapter|init_from_params', func) and 'model' not in func:
            return 'kv_cache' if 'context' in func else 'loading_weights'
        if func in ('common_init_from_params', 'llama_init_from_gpt_params'):
            return 'loading_weights'
        return 'args'
    if base in ('ggml-cuda.cu',):
        return 'args' if func in ('ggml_cuda_init', 'ggml_init_cublas') else 'serving'
    if base.startswith('ggml-backend') or base == 'ggml-alloc.c':
        return 'kv_cache'
    if base in ('llama-model-loader.cpp', 'llama-model.cpp', 'llama-vocab.cpp', 'llama-adapter.cpp', 'llama-mmap.cpp'):
        return 'loading_weights'
    if base.startswith('llama-kv-cache') or base.startswith('llama-memory') or base == 'llama-graph.cpp':
        return 'serving' if re.search(r'decode|apply|update|find_slot|seq_|prepare', func) else 'kv_cache'
    if base == 'llama-context.cpp':
        if re.search(r'^(?:decode|encode|opt_|state_|graph_compute|process_ubatch|output_reserve)', func):
            return 'serving'
        return 'kv_cache'
    if base == 'llama.cpp':
        if re.search(r'kv_cache|new_context|context_params|init_from_model|llama_context|graph_reserve|sched', func):
            return 'kv_cache'
        if re.search(r'decode|encode|eval|sample|grammar|state|session|token_to_piece|tokenize|perf|print_timings', func):
            return 'serving'
        return 'loading_weights'
    if base in ('server.cpp', 'server-context.cpp', 'server-common.cpp', 'server-http.cpp', 'server-queue.cpp',
                'server-task.cpp', 'utils.hpp'):
        if func in ('main', 'llama_server'):
            return 'args'
        if func in ('load_model',):
            return 'loading_weights'
        if func in ('init',) and base != 'server-http.cpp':
            return 'warmup'
        if func in ('start', 'init') and base == 'server-http.cpp':
            return 'args'
        if re.search(r'parse|params|usage|print_usage|server_params', func):
            return 'args'
        return 'serving'
    return 'serving'


def meaning_of(template, phase, func, level):
    for rx, _, m in KEY_LOGS:
        if m and re.search(rx, template):
            return m, True
    return f'{level} during {phase} ({func})', False


def main():
    rows_by_key = {}
    commits_read = []
    versions = {}
    for label, git, ref in TREES:
        commit, date = commit_info(git, ref)
        versions[label] = {'ref': ref, 'commit': commit, 'date': date,
                           'repo': 'unslothai/llama.cpp' if git == UN else 'kmbandy/llama.cpp'}
        files = [p for p in subprocess.run(['git', '-C', git, 'ls-tree', '-r', '--name-only', commit],
                                           capture_output=True, text=True).stdout.split('\n')
                 if FILES.search(p) and not SERVER_SKIP.search(p)]
        for p in files:
            src = subprocess.run(['git', '-C', git, 'show', f'{commit}:{p}'], capture_output=True, text=True,
                                 errors='replace').stdout
            lc, ld = last_change(git, commit, p)
            commits_read.append({'path': p, 'tree': label, 'commit': commit, 'date': date,
                                 'last_change_commit': lc, 'last_change_date': ld})
            for r in cpp_extract.extract(p, src):
                t = r['template'].strip('\n').rstrip()
                if not t.strip() or r['level'] == 'cont':
                    continue
                r['template'] = t
                k = (p.split('/')[-1], r['kind'], r['level'], norm(t))
                if k in rows_by_key:
                    if label not in rows_by_key[k]['versions']:
                        rows_by_key[k]['versions'].append(label)
                    continue
                r['versions'] = [label]
                rows_by_key[k] = r
    log_lines, raises = [], []
    for r in rows_by_key.values():
        base = r['file'].split('/')[-1]
        if r['kind'] == 'log':
            level = r['level']
            # printf/fprintf outside the server and common are tools' own output, not the server's
            if level in ('stdout', 'stderr') and not re.search(r'server|common\.cpp|arg\.cpp|ggml-cuda', r['file']):
                continue
            if level == 'stdout' and base == 'arg.cpp':
                continue  # --help, --version text
            lv = {'server_info': 'info', 'server_warning': 'warning', 'server_error': 'error',
                  'stdout': 'print', 'stderr': 'print'}.get(level, level)
            phase = phase_of(r['file'], r['function'], r['template'], lv)
            meaning, key = meaning_of(r['template'], phase, r['function'], lv)
            if phase == 'serving' and not key and lv not in ('error',):
                continue  # serving-path chatter (README §2: only stats, failures and errors kept)
            e = {'file': r['file'], 'function': r['function'], 'level': lv, 'template': r['template'],
                 'phase': phase, 'meaning': meaning, 'versions': r['versions'], 'key': key}
            if level.startswith('server_'):
                e['format'] = 'server_log'  # printed as JSON ("msg"/"message") or `LEVEL [func] msg | k=v`
            if re.search(r'failed to allocate|CUDA error|out of memory|cudaMalloc', r['template']):
                e['phase_scope'] = 'any'
            if phase == 'serving' and lv == 'error':
                e['phase_scope'] = 'any'
            log_lines.append(e)
        else:
            exc = r['level']
            t = r['template']
            # A std::runtime_error whose text names no cause is mostly the loader refusing the GGUF (corrupt or
            # cut-short file, missing tensor, wrong shape): not a flag the user got wrong, so `other` (the synthetic
            # label of a truncated download, synthetic-ll19, says the same); invalid_argument is a bad value.
            fallback = 'config_error' if exc == 'std::invalid_argument' else 'other'
            # src/llama.cpp llama_model_load rethrows what load_arch/load_hparams/load_vocab threw with the step in
            # front (`error loading model vocabulary: %s`): the step names no cause, the filled-in what() does
            # (catalog-match.ts classifyRaise reads it), so the site's own class is the fallback
            cls = fallback if re.match(r'^error loading model \w+: %s$', t) else classify(t, fallback)
            if exc == 'std::invalid_argument' and cls in ('other',):
                cls = 'config_error'
            # common/arg.cpp: a throw while parsing an argument is a bad argument (common_params_parse prints
            # `error while handling argument "--x": <what()>`), unless it names a file that is not there
            if (r['file'].endswith('arg.cpp') or re.search(r'params_(?:find_arg|parse)', r['function'])) and cls != 'model_not_found':
                cls = 'config_error'
            phase = phase_of(r['file'], r['function'], t, 'raise')
            key = bool(KEY_RAISES.search(t)) or cls not in ('config_error', 'unsupported', 'other')
            raises.append({'file': r['file'], 'function': r['function'], 'exception': exc, 'template': t,
                           'failure_class': cls, 'phase': phase, 'versions': r['versions'], 'key': key})
    write(OUT, {
        'engine': 'llamacpp',
        'repo': 'ggml-org/llama.cpp (read from forks that carry its history: kmbandy/llama.cpp tags, unslothai/llama.cpp master)',
        'versions': versions,
        'field_notes': {
            'log_lines': 'template is what the line prints: `%s` fed __func__ resolved to the function name, the '
                         'server macros\' prefix (`srv  %12.*s: `, `slot %12.*s: id %2d | task %d | `) resolved the '
                         'same way; level print = printf/fprintf; format server_log = printed as JSON or '
                         '`LEVEL [ func] msg | k=v` (server before 2024-10)',
            'raises': 'exception: the C++ type thrown (what() is printed by the catcher, e.g. `llama_model_load: '
                      'error loading model: <what>`), GGML_ASSERT (printed `file:line: GGML_ASSERT(cond) failed`), '
                      'GGML_ABORT (printed `file:line: <message>`)',
        },
        'commits_read': commits_read,
        'log_lines': sorted(log_lines, key=lambda e: (e['file'], e['template'])),
        'raises': sorted(raises, key=lambda e: (e['file'], e['template'])),
        'frames': [],
    })
    print(f'{len(log_lines)} log lines ({sum(e["key"] for e in log_lines)} key), {len(raises)} raises '
          f'({sum(e["key"] for e in raises)} key), {len(commits_read)} files', file=sys.stderr)


main()
