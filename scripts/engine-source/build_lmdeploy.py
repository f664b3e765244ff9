#!/usr/bin/env python3
"""Builds test/fixtures/engine-source/lmdeploy.json from InternLM/lmdeploy trees (Python, plus TurboMind C++ logs).

usage: build_lmdeploy.py LMDEPLOY_GIT OUT.json

`lmdeploy serve api_server MODEL` (cli/serve.py) builds the pipeline's engine (TurboMind: converts/loads the
weights in turbomind/turbomind.py, sizes the KV blocks in C++ BlockManager/SequenceManager from
cache_max_entry_count; PyTorch: pytorch/engine/engine.py → executor → model_agent: build_model, load
weights, build_cache_engine, warmup, capture CUDA graphs), then runs uvicorn and prints
`HINT:    Please open http://…:23333 in a browser for detailed api usage!!!`.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from common import classify, commit_info, last_change, norm, write  # noqa: E402
import cpp_extract  # noqa: E402
import py_extract  # noqa: E402

GIT, OUT = sys.argv[1:3]
TREES = [
    ('newest', '1263d5cd889b7ad500e85b8eb20401327a4516ab'),
    ('v0.9.2', 'v0.9.2'),
    ('v0.4.2', 'v0.4.2'),
]
FILES = re.compile(
    r'^lmdeploy/(?:api|pipeline|utils|archs|messages|tokenizer)\.py$|^lmdeploy/cli/(?:cli|serve|utils|entrypoint)\.py$|'
    r'^lmdeploy/serve/(?:async_engine|vl_async_engine|utils)\.py$|^lmdeploy/serve/core/[^/]+\.py$|'
    r'^lmdeploy/serve/openai/(?:api_server|launch_server)\.py$|^lmdeploy/serve/utils/[^/]+\.py$|'
    r'^lmdeploy/turbomind/[^/]+\.py$|^lmdeploy/turbomind/deploy/(?:converter|target_model/base|source_model/base)\.py$|'
    r'^lmdeploy/pytorch/engine/(?:[^/]+/)?[^/]+\.py$|^lmdeploy/pytorch/(?:config|distributed|model_inputs)\.py$|'
    r'^lmdeploy/pytorch/check_env/[^/]+\.py$|^lmdeploy/pytorch/backends/(?:graph_runner|cuda/graph_runner)\.py$|'
    r'^lmdeploy/pytorch/weight_loader/model_weight_loader\.py$|^lmdeploy/pytorch/models/patch\.py$|'
    r'^lmdeploy/pytorch/devices/[^/]+\.py$|'
    r'^src/turbomind/models/llama/(?:BlockManager|SequenceManager|LlamaBatch)\.cc$|'
    r'^src/turbomind/triton_backend/llama/LlamaTritonModel\.cc$|^src/turbomind/turbomind\.cc$|'
    r'^src/turbomind/engine/engine\.cc$')

# Function rules, in order: (file regex, function regex, phase, why). The frames list is made of these.
FUNC_RULES = [
    (r'archs\.py$', r'.', 'args', 'the backend is chosen from the model architecture'),
    (r'pytorch/engine/executor/', r'_reserve_runtime_mem|_adjust_block_size|update_configs|get_free_mem|_get_state_numel', 'kv_cache',
     'the executor sizes the KV cache from the free memory'),
    (r'pytorch/engine/executor/', r'_maybe_disable|_update_env|_init_env|_check', 'args', 'executor settings'),
    (r'LlamaBatch\.cc$', r'^LlamaBatch$', 'kv_cache', 'LlamaBatch constructor: sessions fitted to the KV blocks'),
    (r'LlamaTritonModel\.cc$', r'createEngine', 'kv_cache', 'TurboMind engine creation (KV blocks, warmup)'),
    (r'cli/', r'.', 'args', 'the command line is parsed'),
    (r'check_env/', r'.', 'args', 'environment checks before the engine is built'),
    (r'api_server\.py$', r'^serve$|parse_args|^main$', 'args', 'api_server.serve: builds the engine, then uvicorn'),
    (r'(?:async_engine|pipeline|api)\.py$', r'__init__|_build_turbomind|_build_pytorch|_build_backend|pipeline$|build', 'loading_weights',
     'the engine is built (weights loaded) in the pipeline constructor'),
    (r'turbomind/turbomind\.py$', r'TurboMindInstance|mm_input_converter', 'serving', 'request path'),
    (r'turbomind\.cc$', r'WarmUp', 'warmup', 'TurboMind warm-up runs'),
    (r'turbomind\.cc$', r'CreateEngine|BlockManager|SequenceManager', 'kv_cache', 'TurboMind engine creation sizes the caches'),
    (r'turbomind\.cc$', r'HandleMissingParams', 'args', 'TurboMind fills in missing parameters'),
    (r'turbomind/turbomind\.py$', r'_create_weight|_load_weights|_from_hf|_from_workspace|_from_cli|__init__|_postprocess_config|get_model_source|_create_model|_load_model|_get_model_params', 'loading_weights',
     'TurboMind converts and loads the weights'),
    (r'turbomind/turbomind\.py$', r'_create_engine|create_engine|_create_comm|_tm_.*cache|_setup_', 'kv_cache',
     'TurboMind creates the engine: the KV blocks are sized from cache_max_entry_count'),
    (r'^lmdeploy/turbomind/(?:deploy/|converter\.py|loader\.py|model_loader\.py|checkpoint\.py)', r'.', 'loading_weights', 'weight conversion and loading'),
    (r'^lmdeploy/turbomind/', r'.', 'loading_weights', 'TurboMind setup'),
    (r'(?:BlockManager|SequenceManager)\.cc$', r'.', 'kv_cache', 'TurboMind KV block pool'),
    (r'(?:LlamaTritonModel|turbomind)\.cc$', r'.', 'loading_weights', 'TurboMind model creation'),
    (r'(?:LlamaBatch|engine)\.cc$', r'.', 'serving', 'TurboMind request loop'),
    (r'pytorch/engine/executor/', r'init_process_group|_init_dist|init_dist|dist_utils|setup_master|_init_workers|init_distributed|_start_workers|__init__|build_executor', 'dist_init',
     'the PyTorch engine starts its workers and process group'),
    (r'pytorch/engine/', r'_start_sub_process|_start_tp_process|_init_process_group|init_process_group', 'dist_init',
     'the tensor-parallel workers and their process group start'),
    (r'pytorch/engine/', r'build_model|_build_model|load_model_weights|_load_model|load_weights|build_patched_model|_build_model_agent|build_model_agent', 'loading_weights',
     'the PyTorch engine builds the model and loads its weights'),
    (r'pytorch/engine/', r'build_cache_engine|_update_cache_config|update_configs|cache_engine|CacheEngine\.|_allocate_cache|allocate_cache|get_free_mem|_get_free_mem|_get_available_mem|calculate_cache|get_cache_block_size|_adjust_block_size|update_cache_config|get_max_num_blocks', 'kv_cache',
     'the PyTorch engine sizes and allocates the KV cache'),
    (r'pytorch/engine/', r'build_graph_runner|capture|graph', 'cuda_graph', 'CUDA graphs are captured'),
    (r'pytorch/backends/.*graph_runner\.py$', r'capture|__init__|make_buffers', 'cuda_graph', 'CUDA graph capture'),
    (r'pytorch/engine/', r'warmup', 'warmup', 'warmup forward passes before serving'),
    (r'pytorch/engine/', r'^Engine\.__init__$|from_pretrained|_build_|check_env|check_adapters|_check_', 'args', 'engine configuration'),
    (r'pytorch/(?:config|distributed)\.py$', r'.', 'args', 'engine configuration'),
    (r'pytorch/weight_loader/', r'.', 'loading_weights', 'weights read from the checkpoint'),
    (r'pytorch/models/patch\.py$', r'.', 'loading_weights', 'the model class is patched and built'),
    (r'pytorch/devices/', r'.', 'args', 'device selection'),
    (r'serve/(?:core/|async_engine|vl_async_engine)', r'__init__|_build|build', 'loading_weights', 'the serving engine is built'),
    (r'api_server\.py$', r'.', 'serving', 'request handlers'),
]
KEY = [
    (r'Maybe cache is full', 'serving', 'no request can run: the KV cache is full'),
    (r'^turbomind engine config|^Build <\{distributed_executor_backend\}> executor|^Init (?:ray|distributed)|^MASTER_ADDR=', None,
     'engine construction milestones'),
    (r'^Warm-up finished|^Engine warmup completed|^Starting engine warmup|^Building GraphRunner and warmup ops', None,
     'warmup before serving'),
    (r'^Object cache budget|^\[BlockManager\]', None, 'the KV cache is sized'),
    (r'Please open .* in a browser for detailed api usage|HINT: +Please open', 'ready', 'the API server is up (printed just before uvicorn runs)'),
    (r'^Uvicorn running on', 'ready', 'uvicorn listens'),
    (r'input backend=|input backend_config=|^input chat_template_config', 'args', 'the resolved backend and its config'),
    (r'Build <\w+> model|Building (?:the )?model|build model|Loading model|load model|Loading weights|loading weights|convert|Convert', 'loading_weights', 'the model is built and its weights loaded'),
    (r'\[BlockManager\]|max_block_count|block_size|num_gpu_blocks|cache_max_entry_count|KV cache|kv cache|num_cpu_blocks|block num', 'kv_cache', 'the KV cache is sized'),
    (r'[Cc]apturing|[Cc]apture (?:cuda|CUDA|graph)', 'cuda_graph', 'CUDA graphs are captured'),
    (r'[Ww]arm ?up', 'warmup', 'warmup before serving'),
    (r'out of memory|OutOfMemory|No enough|not enough|insufficient', None, 'memory is short'),
    (r'is not supported|not supported|unsupported|Unsupported', None, 'something the engine does not support'),
    (r'Address already in use|already in use', None, 'the port is taken'),
]
KEY_RAISE = re.compile(r'memory|block|cache_max_entry_count|not supported|unsupported|not found|does not exist|'
                       r'tp|world_size|CUDA|cuda|port|timeout|timed out|model_path|weights?|checkpoint|dtype|'
                       r'backend|version|install', re.I)


def phase_of(path, func, t=None):
    if t is not None:
        for rx, ph, _ in KEY:
            if ph and re.search(rx, t):
                return ph, None
    for frx, fnrx, ph, why in FUNC_RULES:
        if re.search(frx, path) and re.search(fnrx, func.split('.')[-1] if fnrx.startswith('^') and '\\.' not in fnrx else func):
            return ph, why
    return 'serving', None


def main():
    rows, frames = {}, {}
    commits_read, versions = [], {}
    for label, ref in TREES:
        commit, date = commit_info(GIT, ref)
        versions[label] = {'ref': ref, 'commit': commit, 'date': date, 'repo': 'InternLM/lmdeploy'}
        files = [p for p in subprocess.run(['git', '-C', GIT, 'ls-tree', '-r', '--name-only', commit],
                                           capture_output=True, text=True).stdout.split('\n') if FILES.search(p)]
        for p in files:
            src = subprocess.run(['git', '-C', GIT, 'show', f'{commit}:{p}'], capture_output=True, text=True,
                                 errors='replace').stdout
            lc, ld = last_change(GIT, commit, p)
            commits_read.append({'path': p, 'tree': label, 'commit': commit, 'date': date,
                                 'last_change_commit': lc, 'last_change_date': ld})
            if p.endswith('.py'):
                found, funcs = py_extract.extract(p, src)
                for fn in funcs:
                    ph, why = phase_of(p, fn)
                    if why is None or ph == 'serving':
                        continue
                    # a rule for a whole file is one `*` row
                    rule = next(r for r in FUNC_RULES if re.search(r[0], p) and r[3] == why)
                    if rule[1] == '.':
                        fn = '*'
                    k = (p.split('/')[-1], fn)
                    if k in frames:
                        if label not in frames[k]['versions_seen']:
                            frames[k]['versions_seen'].append(label)
                        continue
                    frames[k] = {'file': '/'.join(p.split('/')[-2:]), 'function': fn, 'phase': ph, 'why': why,
                                 'versions_seen': [label]}
            else:
                found = cpp_extract.extract(p, src)
            for r in found:
                t = r['template'].strip('\n').rstrip()
                if not t.strip() or r['level'] in ('cont', 'stdout', 'GGML_ASSERT'):
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
            lv = {'stderr': 'print'}.get(r['level'], r['level'])
            phase, _ = phase_of(r['file'], r['function'], t)
            meaning, key = next(((m, True) for rx, _, m in KEY if re.search(rx, t)),
                                (f'{lv} during {phase} ({r["function"]})', False))
            if phase == 'serving' and not key and lv not in ('error', 'exception', 'critical', 'fatal'):
                continue
            e = {'file': r['file'], 'function': r['function'], 'level': lv, 'template': t, 'phase': phase,
                 'meaning': meaning, 'versions': r['versions'], 'key': key}
            if r['file'].startswith('src/'):
                e['format'] = 'turbomind'  # [TM][INFO] msg
            if phase == 'serving':
                e['phase_scope'] = 'any'
            log_lines.append(e)
        else:
            exc = r['level'].split('.')[-1]
            fallback = 'python_exception' if exc in ('AssertionError', 'RuntimeError', 'Exception') else 'config_error'
            cls = classify(t, fallback)
            if exc == 'NotImplementedError':
                cls = 'unsupported'
            phase, _ = phase_of(r['file'], r['function'])
            key = bool(KEY_RAISE.search(t)) and phase != 'serving' or cls not in ('config_error', 'unsupported', 'python_exception', 'other')
            raises.append({'file': r['file'], 'function': r['function'], 'exception': r['level'], 'template': t,
                           'failure_class': cls, 'phase': phase, 'versions': r['versions'], 'key': key})
    write(OUT, {
        'engine': 'lmdeploy',
        'program': 'lmdeploy',
        'repo': 'InternLM/lmdeploy',
        'versions': versions,
        'field_notes': {
            'log_lines': 'as sglang.json; logger lines print `%(asctime)s - lmdeploy - LEVEL - [file.py:N - ]msg` '
                         '(the file:line part from 2025); format turbomind: C++ `TM_LOG_*`, printed `[TM][INFO] msg` '
                         '(2026: `[TM][INFO][time][file:line] msg`)',
            'raises': 'as sglang.json; C++ FT_CHECK_WITH_INFO/TM_CHECK_WITH_INFO raise std::runtime_error',
            'frames': 'file: the last two path parts; function: qualified (`Class.method`), matched on the bare name',
        },
        'commits_read': commits_read,
        'log_lines': sorted(log_lines, key=lambda e: (e['file'], e['template'])),
        'raises': sorted(raises, key=lambda e: (e['file'], e['template'])),
        'frames': sorted(frames.values(), key=lambda e: (e['file'], e['function'])),
    })
    print(f'{len(log_lines)} log lines ({sum(e["key"] for e in log_lines)} key), {len(raises)} raises '
          f'({sum(e["key"] for e in raises)} key), {len(frames)} frames, {len(commits_read)} files', file=sys.stderr)


main()
