#!/usr/bin/env python3
"""Log calls and errors of Ollama's Go source, read as text (never built).

extract(path, src) -> rows: file, function (`Recv.Name` or `Name`), kind (log|raise), level or exception,
template, line. Log calls: slog.{Info,Warn,Error}[Context] (the message: a literal or a fmt.Sprintf format),
log.{Printf,Println,Print,Fatal,Fatalf,Panicf}, fmt.Fprintf(os.Stderr, …). Errors a user can see: fmt.Errorf,
errors.New, panic(literal|fmt.Sprintf). `%w`/`%v` stay as conversions; slog key-value pairs are not part of
the template (slog's text handler prints them after `msg=`).
"""
import re

CALL = re.compile(
    r'\b(slog\.(?:Info|Warn|Error|Debug|Log)(?:Context)?|log\.(?:Printf|Println|Print|Fatalf|Fatal|Fatalln|Panicf)|'
    r'fmt\.Fprintf|fmt\.Errorf|errors\.New|panic)\s*\(')
LEVEL = {'Info': 'info', 'Warn': 'warning', 'Error': 'error', 'Debug': 'debug'}


def strip_comments(src):
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith('//', i):
            j = src.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif src.startswith('/*', i):
            j = src.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', src[i:j]))
            i = j
        elif c == '`':
            j = src.find('`', i + 1)
            j = n if j < 0 else j
            out.append(src[i:j + 1])
            i = j + 1
        elif c in '"\'':
            j = i + 1
            while j < n and src[j] != c and src[j] != '\n':
                if src[j] == '\\':
                    j += 1
                j += 1
            out.append(src[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def call_args(src, i):
    depth, args, cur, j, n = 0, [], [], i, len(src)
    while j < n:
        c = src[j]
        if c in '"\'`':
            k = j + 1
            while k < n and src[k] != c:
                if src[k] == '\\' and c != '`':
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
                return args
            cur.append(c)
        elif c == ',' and depth == 1:
            args.append(''.join(cur).strip())
            cur = []
        else:
            cur.append(c)
        j += 1
    return args


def go_string(expr):
    """A literal (or literals joined with +) as text; other operands `%v`; None when no literal at all."""
    parts = split_plus(expr.strip())
    out, any_lit = '', False
    for p in parts:
        m = re.fullmatch(r'"((?:[^"\\]|\\.)*)"', p) or re.fullmatch(r'`([^`]*)`', p)
        if m:
            any_lit = True
            s = m.group(1)
            if p.startswith('"'):
                s = s.replace('\\n', '\n').replace('\\t', '\t').replace('\\"', '"').replace('\\\\', '\\')
            out += s
        else:
            sp = re.match(r'fmt\.Sprintf\s*\(', p)
            if sp:
                a = call_args(p, sp.end() - 1)
                inner = go_string(a[0]) if a else None
                if inner is not None:
                    out += inner
                    any_lit = True
                    continue
            out += '%v'
    return out if any_lit else None


def split_plus(expr):
    parts, cur, depth, i = [], [], 0, 0
    while i < len(expr):
        c = expr[i]
        if c in '"`':
            k = i + 1
            while k < len(expr) and expr[k] != c:
                if expr[k] == '\\' and c == '"':
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


FUNC = re.compile(r'^func\s+(?:\(\s*\w*\s*\*?(\w+)(?:\[[^\]]*\])?\s*\)\s*)?(\w+)', re.M)


def extract(path, src):
    src = strip_comments(src)
    funcs = [(m.start(), f'{m.group(1)}.{m.group(2)}' if m.group(1) else m.group(2)) for m in FUNC.finditer(src)]
    rows = []
    for m in CALL.finditer(src):
        if src[m.start() - 1:m.start()] in ('.', '_') and not m.group(1).startswith(('slog', 'log', 'fmt', 'errors')):
            continue
        if m.group(1) == 'panic' and src[m.start() - 1:m.start()].isalnum():
            continue
        if m.group(1).startswith('log.') and src[m.start() - 1:m.start()] in ('s', '.'):
            continue  # slog. handled by its own name; x.log.Printf is not the std logger
        name = m.group(1)
        args = call_args(src, m.end() - 1)
        func = ''
        for start, fn in funcs:
            if start < m.start():
                func = fn
            else:
                break
        line = src.count('\n', 0, m.start()) + 1
        if name == 'slog.Log':
            t = go_string(args[2]) if len(args) > 2 else None
            if t:
                rows.append(dict(file=path, function=func, kind='log', level='info', template=t, line=line))
            continue
        if name.startswith('slog.'):
            level = LEVEL[re.sub(r'Context$', '', name.split('.')[1])]
            if level == 'debug':
                continue
            a = args[1:] if name.endswith('Context') else args
            t = go_string(a[0]) if a else None
            if not t:
                continue
            rows.append(dict(file=path, function=func, kind='log', level=level, template=t, line=line))
        elif name.startswith('log.'):
            t = go_string(args[0]) if args else None
            if not t:
                continue
            level = 'fatal' if 'Fatal' in name or 'Panic' in name else 'print'
            rows.append(dict(file=path, function=func, kind='log', level=level, template=t, line=line))
        elif name == 'fmt.Fprintf':
            if not args or args[0] != 'os.Stderr':
                continue
            t = go_string(args[1]) if len(args) > 1 else None
            if t:
                rows.append(dict(file=path, function=func, kind='log', level='print', template=t, line=line))
        else:
            t = go_string(args[0]) if args else None
            if not t or re.fullmatch(r'(?:%[vsw]:? ?)+', t.strip()):
                continue
            exc = {'fmt.Errorf': 'error', 'errors.New': 'error', 'panic': 'panic'}[name]
            rows.append(dict(file=path, function=func, kind='raise', level=exc, template=t, line=line))
    return rows
