#!/usr/bin/env python3
"""Log calls and failure sites of llama.cpp's C/C++ source, read as text from a git tree (never built).

usage: cpp_extract.py GIT_DIR COMMIT PATH... > out.json

For each file: the enclosing function of every call (C++ `__func__`: the bare name, `operator()` inside a
lambda), the format string (adjacent literals joined, `PRId64`-style macros turned into their conversion,
`%s`/`%12.*s` fed `__func__` resolved to the function's name, since that is what the line prints), the
macro's prefix (`srv  %12.*s: `, `slot %12.*s: id %2d | task %d | `), and the level. Failure sites: `throw
std::*_error(...)` (message: literals kept, other operands `%s`), `GGML_ABORT(fmt)`, `GGML_ASSERT(cond)`
(printed `GGML_ASSERT(cond) failed`). Output rows: file, function, kind (log|raise), level or exception,
template, line.
"""
import json
import re
import subprocess
import sys

LOG_MACROS = {
    # src/llama-impl.h
    'LLAMA_LOG_INFO': 'info', 'LLAMA_LOG_WARN': 'warning', 'LLAMA_LOG_ERROR': 'error', 'LLAMA_LOG_CONT': 'cont',
    'LLAMA_LOG': 'info',
    # ggml/src/ggml-impl.h
    'GGML_LOG_INFO': 'info', 'GGML_LOG_WARN': 'warning', 'GGML_LOG_ERROR': 'error', 'GGML_LOG_CONT': 'cont',
    # common/log.h (2024-10 on)
    'LOG_INF': 'info', 'LOG_WRN': 'warning', 'LOG_ERR': 'error', 'LOG_CNT': 'cont', 'LOG': 'info',
    # common/log.h (before 2024-10): LOG_TEE prints to stderr and the log file
    'LOG_TEE': 'info',
    # examples/server/server.cpp / utils.hpp (before 2024-10): server_log(level, __func__, __LINE__, msg, json)
    'LOG_INFO': 'server_info', 'LOG_WARNING': 'server_warning', 'LOG_ERROR': 'server_error',
    # tools/server (2024-10 on): prefixed LOG_INF
    'SRV_INF': 'info', 'SRV_WRN': 'warning', 'SRV_ERR': 'error',
    'SLT_INF': 'info', 'SLT_WRN': 'warning', 'SLT_ERR': 'error',
    'QUE_INF': 'info', 'QUE_WRN': 'warning', 'QUE_ERR': 'error',
    'RES_INF': 'info', 'RES_WRN': 'warning', 'RES_ERR': 'error',
    # LMDeploy TurboMind (src/turbomind/utils/logger.h, core/logger.h): printed `[TM][INFO] msg` (older),
    # `[TM][INFO][MMDD hh:mm:ss.us][file:line] msg`-like (2026)
    'TM_LOG_INFO': 'info', 'TM_LOG_WARNING': 'warning', 'TM_LOG_WARN': 'warning', 'TM_LOG_ERROR': 'error',
    'fprintf': 'stderr', 'printf': 'stdout',
}
PREFIX = {
    'SRV': 'srv  %12.*s: ', 'SLT': 'slot %12.*s: id %2d | task %d | ', 'QUE': 'que  %12.*s: ',
    'RES': 'res  %12.*s: ',
}
PRI = {'PRId64': 'lld', 'PRIu64': 'llu', 'PRIx64': 'llx', 'PRId32': 'd', 'PRIu32': 'u', 'PRIi64': 'lld'}
KEYWORDS = {'if', 'for', 'while', 'switch', 'catch', 'return', 'sizeof', 'else', 'do', 'defined', 'decltype'}
SPEC = re.compile(r'%(?:%|[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfFgGcsp])')


def strip_comments(src):
    """Comments become spaces (line numbers and offsets kept); strings and chars are left as they are."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c == '/' and src.startswith('//', i):
            j = src.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif c == '/' and src.startswith('/*', i):
            j = src.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', src[i:j]))
            i = j
        elif c == 'R' and src.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', src[i:])
            if m:
                end = src.find(')' + m.group(1) + '"', i)
                j = n if end < 0 else end + len(m.group(1)) + 2
                out.append(re.sub(r'[^\n]', ' ', src[i:j]))
                i = j
            else:
                out.append(c)
                i += 1
        elif c in '"\'':
            j = i + 1
            while j < n and src[j] != c:
                if src[j] == '\\':
                    j += 1
                if src[j] == '\n':
                    break
                j += 1
            out.append(src[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def functions(src):
    """For each offset of `{`, the function it opens (or None for other blocks): a list of (start, end, name)."""
    spans = []
    stack = []
    last = 0  # start of the current statement text
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c in '"\'':
            j = i + 1
            while j < n and src[j] != c:
                if src[j] == '\\':
                    j += 1
                j += 1
            i = j + 1
            continue
        if c == '#' and (i == 0 or src[i - 1] == '\n' or src[last:i].strip() == ''):
            j = src.find('\n', i)
            while j > 0 and src[j - 1] == '\\':
                j = src.find('\n', j + 1)
            i = n if j < 0 else j
            last = i
            continue
        if c == '{':
            head = src[last:i].strip()
            name = None
            lam = re.search(r'\]\s*(?:\([^()]*(?:\([^()]*\)[^()]*)*\))?\s*(?:mutable\s*)?(?:->\s*[\w:<>&*\s]+)?$', head)
            if lam and '[' in head:
                name = 'operator()'
            else:
                h = re.sub(r'\)\s*:\s*[^{}]*$', ')', head, flags=re.S)  # constructor initializer list
                m = re.search(r'([~\w:]+)\s*\((?:[^()]|\([^()]*\))*\)\s*(?:const\s*)?(?:noexcept\s*)?(?:override\s*)?(?:->\s*[\w:<>&*\s]+)?$', h, re.S)
                if m and m.group(1).split('::')[-1] not in KEYWORDS and not re.search(r'=\s*$', h[:m.start()]):
                    name = m.group(1).split('::')[-1]
            stack.append((i, name))
            last = i + 1
        elif c == '}':
            if stack:
                start, name = stack.pop()
                spans.append((start, i, name))
            last = i + 1
        elif c == ';':
            last = i + 1
        i += 1
    return spans


def enclosing(spans, pos):
    best = None
    for s, e, name in spans:
        if s < pos < e and name and (best is None or s > best[0]):
            best = (s, name)
    return best[1] if best else ''


def call_args(src, i):
    """Top-level arguments of the call whose `(` is at i, and the end offset."""
    depth = 0
    args, cur = [], []
    j = i
    n = len(src)
    while j < n:
        c = src[j]
        if c in '"\'':
            k = j + 1
            while k < n and src[k] != c:
                if src[k] == '\\':
                    k += 1
                k += 1
            cur.append(src[j:k + 1])
            j = k + 1
            continue
        if c in '([{':
            depth += 1
            if depth > 1:
                cur.append(c)
        elif c in ')]}':
            depth -= 1
            if depth == 0:
                args.append(''.join(cur).strip())
                return args, j
            cur.append(c)
        elif c == ',' and depth == 1:
            args.append(''.join(cur).strip())
            cur = []
        else:
            cur.append(c)
        j += 1
    return args, n


def unescape(s):
    return (s.replace('\\n', '\n').replace('\\t', '\t').replace('\\"', '"').replace("\\'", "'")
            .replace('\\\\', '\\'))


def literal(expr):
    """The format string of an argument made of adjacent literals and PRI macros, or None."""
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"|\b(PRI\w+)\b|(\S)', expr)
    if not parts or not any(p[0] or p[1] for p in parts):
        return None
    out = ''
    for lit, pri, other in parts:
        if other:
            return None
        out += unescape(lit) if not pri else PRI.get(pri, 'd')
    return out


def flatten(expr):
    """A message built with `+` or format(): literals kept, every other operand a `%s`."""
    expr = expr.strip()
    m = re.match(r'^(?:string_)?format\s*\(', expr) or re.match(r'^std::string\s*\(', expr)
    if m:
        args, _ = call_args(expr, m.end() - 1)
        if args:
            lit = literal(args[0])
            if lit is not None:
                return lit
    parts = split_plus(expr)
    out = ''
    for p in parts:
        lit = literal(p)
        if lit is not None:
            out += lit
        else:
            inner = re.match(r'^(?:std::string\s*\(|format\s*\()', p)
            out += flatten(p[p.index('(') + 1:-1]) if inner and p.endswith(')') else '%s'
    return out


def split_plus(expr):
    parts, cur, depth, i = [], [], 0, 0
    while i < len(expr):
        c = expr[i]
        if c == '"':
            k = i + 1
            while k < len(expr) and expr[k] != '"':
                if expr[k] == '\\':
                    k += 1
                k += 1
            cur.append(expr[i:k + 1])
            i = k + 1
            continue
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
        if c == '+' and depth == 0:
            parts.append(''.join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    parts.append(''.join(cur).strip())
    return [p for p in parts if p]


def resolve(fmt, args, func):
    """Fill the conversions fed `__func__` (or a `__func__`-like literal) with the function's name."""
    out, k, pos = '', 0, 0
    for m in SPEC.finditer(fmt):
        out += fmt[pos:m.start()]
        pos = m.end()
        spec = m.group(0)
        if spec == '%%':
            out += spec
            continue
        stars = spec.count('*')
        feed = args[k + stars] if k + stars < len(args) else None
        width = args[k] if stars and k < len(args) else None
        k += 1 + stars
        if spec.endswith('s') and feed == '__func__':
            name = func
            if '.*' in spec and width and width.isdigit():
                name = name[:int(width)]
            w = re.match(r'%-?(\d+)', spec)
            if w:
                name = name.ljust(int(w.group(1))) if '-' in spec else name.rjust(int(w.group(1)))
            out += name
        elif spec.endswith('s') and feed and feed.startswith('"') and literal(feed) is not None:
            out += literal(feed)
        else:
            out += spec
    return out + fmt[pos:]


CALL = re.compile(r'\b(' + '|'.join(sorted(LOG_MACROS, key=len, reverse=True)) + r'|throw\s+(?:std::)?\w+|GGML_ABORT|GGML_ASSERT|FT_CHECK_WITH_INFO|TM_CHECK_WITH_INFO)\s*\(')


def extract(path, src):
    src = strip_comments(src)
    spans = functions(src)
    rows = []
    for m in CALL.finditer(src):
        name = m.group(1)
        if src[m.start() - 1:m.start()] in ('#', '_') or re.match(r'\s*define\b', src[src.rfind('\n', 0, m.start()) + 1:m.start()].replace('#', ' ')):
            continue
        line_start = src.rfind('\n', 0, m.start()) + 1
        if src[line_start:m.start()].lstrip().startswith('#'):
            continue
        args, _ = call_args(src, m.end() - 1)
        func = enclosing(spans, m.start())
        line = src.count('\n', 0, m.start()) + 1
        if name.startswith('throw'):
            exc = re.sub(r'^throw\s+', '', name)
            msg = flatten(args[0]) if args and args[0] else ''
            if not msg or msg == '%s':
                continue
            rows.append(dict(file=path, function=func, kind='raise', level=exc, template=msg, line=line))
            continue
        if name == 'GGML_ASSERT':
            cond = ' '.join(args[0].split()) if args else ''
            rows.append(dict(file=path, function=func, kind='raise', level='GGML_ASSERT',
                             template=f'GGML_ASSERT({cond}) failed', line=line))
            continue
        if name in ('FT_CHECK_WITH_INFO', 'TM_CHECK_WITH_INFO'):
            fmt = flatten(args[1]) if len(args) > 1 else None
            if fmt and fmt != '%s':
                rows.append(dict(file=path, function=func, kind='raise', level='std::runtime_error',
                                 template=fmt, line=line))
            continue
        if name == 'GGML_ABORT':
            fmt = literal(args[0]) if args else None
            if fmt is None:
                continue
            rows.append(dict(file=path, function=func, kind='raise', level='GGML_ABORT',
                             template=resolve(fmt, args[1:], func), line=line))
            continue
        level = LOG_MACROS[name]
        rest = args
        if name in ('fprintf',):
            if not args or args[0] != 'stderr':
                continue
            rest = args[1:]
        if name == 'LLAMA_LOG' or name == 'LOG' and False:
            pass
        if not rest:
            continue
        fmt = literal(rest[0])
        if fmt is None:
            continue
        fargs = rest[1:]
        tag = name.split('_')[0]
        if tag in PREFIX:
            pre = PREFIX[tag]
            fmt = pre + fmt
            fargs = ['12', '__func__'] + (['slot.id', 'task'] if tag == 'SLT' else []) + fargs
        fmt = resolve(fmt, fargs, func)
        if not fmt.strip():
            continue
        rows.append(dict(file=path, function=func, kind='log', level=level, template=fmt, line=line))
    return rows


def main():
    git, commit, *paths = sys.argv[1:]
    out = []
    for p in paths:
        try:
            src = subprocess.run(['git', '-C', git, 'show', f'{commit}:{p}'], capture_output=True, check=True,
                                 text=True, errors='replace').stdout
        except subprocess.CalledProcessError:
            continue
        out.extend(extract(p, src))
    json.dump(out, sys.stdout, indent=0)


if __name__ == '__main__':
    main()
