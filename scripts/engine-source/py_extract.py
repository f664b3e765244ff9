#!/usr/bin/env python3
"""Log calls, raises and functions of a Python engine's source, parsed with `ast` (never imported).

extract(path, src) -> (rows, functions). rows: file, function (qualified: `Class.method`), kind (log|raise),
level or exception, template, line. Log calls: `<logger>.{info,warning,warn,error,exception,critical,fatal}`
(any receiver whose name ends in `logger`), `print`, `warnings.warn` (level pywarning). Templates: f-strings
keep `{expr}`; `%`-style strings are kept as written; `'…'.format(…)` keeps its `{}`; `+` joins literals, other
operands `{}`; a local name holding the message (`msg = …` earlier in the function) is resolved. Raises: the
class and the first argument; asserts with a message. functions: every qualified function name defined.
"""
import ast

LEVELS = {'info', 'warning', 'warn', 'error', 'exception', 'critical', 'fatal'}


def text(node, env):
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = ''
        for v in node.values:
            if isinstance(v, ast.Constant):
                out += str(v.value)
            elif isinstance(v, ast.FormattedValue):
                expr = ast.unparse(v.value)
                conv = {115: '!s', 114: '!r', 97: '!a'}.get(v.conversion, '')
                spec = ''
                if v.format_spec is not None:
                    spec = ':' + (text(v.format_spec, env) or '')
                out += '{' + expr + conv + spec + '}'
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return text(node.left, env)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = text(node.left, env), text(node.right, env)
        if left is None and right is None:
            return None
        return (left if left is not None else '{}') + (right if right is not None else '{}')
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == 'format':
        return text(node.func.value, env)
    if isinstance(node, ast.Name) and node.id in env:
        return env[node.id]
    return None


class Visitor(ast.NodeVisitor):
    def __init__(self, path):
        self.path = path
        self.stack = []
        self.rows = []
        self.functions = []
        self.envs = [{}]

    def qual(self):
        return '.'.join(self.stack)

    def visit_ClassDef(self, node):
        self.stack.append(node.name)
        self.generic_visit(node)
        self.stack.pop()

    def visit_FunctionDef(self, node):
        self.stack.append(node.name)
        self.functions.append(self.qual())
        self.envs.append({})
        self.generic_visit(node)
        self.envs.pop()
        self.stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Assign(self, node):
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            t = text(node.value, self.envs[-1])
            if t is not None:
                self.envs[-1][node.targets[0].id] = t
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        if isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add) and node.target.id in self.envs[-1]:
            t = text(node.value, self.envs[-1])
            self.envs[-1][node.target.id] += t if t is not None else '{}'
        self.generic_visit(node)

    def add(self, kind, level, template, node):
        if template is None or not template.strip():
            return
        self.rows.append(dict(file=self.path, function=self.qual(), kind=kind, level=level, template=template,
                              line=node.lineno))

    def visit_Call(self, node):
        f = node.func
        env = self.envs[-1]
        if isinstance(f, ast.Attribute) and f.attr in LEVELS:
            recv = ast.unparse(f.value)
            if recv.lower().endswith('logger') or recv in ('logging', 'log', '_log'):
                if node.args:
                    self.add('log', 'warning' if f.attr == 'warn' else f.attr, text(node.args[0], env), node)
        elif isinstance(f, ast.Attribute) and f.attr == 'log' and ast.unparse(f.value).lower().endswith('logger'):
            if len(node.args) > 1:
                self.add('log', 'info', text(node.args[1], env), node)
        elif isinstance(f, ast.Name) and f.id == 'print' and node.args:
            self.add('log', 'print', text(node.args[0], env), node)
        elif isinstance(f, ast.Attribute) and f.attr == 'warn' and ast.unparse(f.value) == 'warnings' and node.args:
            self.add('log', 'pywarning', text(node.args[0], env), node)
        self.generic_visit(node)

    def visit_Raise(self, node):
        exc = node.exc
        if isinstance(exc, ast.Call):
            name = ast.unparse(exc.func)
            if exc.args:
                self.add('raise', name, text(exc.args[0], self.envs[-1]), node)
        self.generic_visit(node)

    def visit_Assert(self, node):
        if node.msg is not None:
            self.add('raise', 'AssertionError', text(node.msg, self.envs[-1]), node)
        self.generic_visit(node)


def extract(path, src):
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return [], []
    v = Visitor(path)
    v.visit(tree)
    return v.rows, v.functions
