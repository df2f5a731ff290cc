"""Delta debugging of a failing one-program module.

The entry computation is cut down while the failure persists, by two moves:
make an earlier instruction the result (dropping everything after it), and
replace an instruction by a parameter that receives the value the evaluator
computes for it (so what follows sees the same data, and the op that
produced it no longer needs to be compiled). Called computations are kept.
Each try costs one evaluation and one compiled run, so a program of twenty
instructions reduces in a minute or two.
"""
import re

import numpy as np

from cases import LINE, Case, evaluate_and_run, mismatches
from hlo_elementwise import TRANSCENDENTAL, ULP_BOUND


class Entry:
    """The entry computation as editable lines: parameters, then the ops."""

    def __init__(self, text):
        head, _, rest = text.partition("ENTRY main {\n")
        body, _, _ = rest.rpartition("}")
        self.head = head
        self.ops = []      # [name, shape, opcode, rest-of-line]
        self.params = []   # [name, shape]
        for line in body.splitlines():
            match = LINE.match(line)
            if not match:
                continue
            root, name, shape, opcode, tail = match.groups()
            if opcode == "parameter":
                self.params.append([name, shape])
            elif root:
                self.root = re.findall(r"[\w.\-]+", tail)[0]
            else:
                self.ops.append([name, shape, opcode, tail])

    def operands(self, op):
        return set(re.findall(r"[\w.\-]+", op[3]))

    def live(self):
        """Drops ops and parameters the root does not need."""
        needed = {self.root}
        for op in reversed(self.ops):
            if op[0] in needed:
                needed |= self.operands(op)
        self.ops = [op for op in self.ops if op[0] in needed]
        self.params = [p for p in self.params if p[0] in needed]

    def used_computations(self):
        """The head's computations the entry still calls, and what they call."""
        blocks = re.findall(r"^([\w.\-]+) \{\n.*?^\}\n", self.head, re.M | re.S)
        texts = {m.group(1): m.group(0) for m in
                 re.finditer(r"^([\w.\-]+) \{\n.*?^\}\n", self.head, re.M | re.S)}
        words = set(re.findall(r"[\w.\-]+", " ".join(op[3] for op in self.ops)))
        used, changed = set(), True
        while changed:
            changed = False
            for name in blocks:
                if name in words and name not in used:
                    used.add(name)
                    words |= set(re.findall(r"[\w.\-]+", texts[name]))
                    changed = True
        header = self.head.split("\n", 1)[0]
        return header + "\n\n" + "".join(texts[n] + "\n" for n in blocks if n in used)

    def text(self):
        root_shape = next(shape for name, shape in self.params + [o[:2] for o in self.ops]
                          if name == self.root)
        lines = [self.used_computations() + "ENTRY main {"]
        for number, (name, shape) in enumerate(self.params):
            lines.append(f"  {name} = {shape} parameter({number})")
        for name, shape, opcode, tail in self.ops:
            lines.append(f"  {name} = {shape} {opcode}({tail}")
        lines.append(f"  ROOT out = ({root_shape}) tuple({self.root})")
        return "\n".join(lines) + "\n}\n"

    def copy(self):
        other = Entry.__new__(Entry)
        other.head, other.root = self.head, self.root
        other.ops = [list(op) for op in self.ops]
        other.params = [list(p) for p in self.params]
        return other


def bound_of(entry):
    """The root's ulp bound: transcendentals have one, everything else is exact."""
    for name, shape, opcode, _ in entry.ops:
        if name == entry.root and opcode in TRANSCENDENTAL:
            return ULP_BOUND.get(shape.split("[")[0], 0)
    return 0


def to_case(entry, inputs):
    entry.live()
    params = []
    for name, shape in entry.params:
        dtype = shape.split("[")[0]
        dims = [int(d) for d in shape.split("[")[1].split("]")[0].split(",") if d]
        params.append((name, dtype, dims))
    root_shape = next(s for n, s in entry.params + [o[:2] for o in entry.ops] if n == entry.root)
    return Case(entry.text(), params, {n: inputs[n] for n, _, _ in params}, [bound_of(entry)],
                [root_shape.split("[")[0]])


def failure_kind(motec, case, target, work):
    """None when the case passes, else 'mismatch', 'run N' or 'eval N'."""
    expected, actual = evaluate_and_run(motec, case, target, work, "reduce")
    if expected.failed():
        return f"eval {expected.code}"
    if actual.failed():
        return None if actual.emulator_failed() else f"run {actual.code}"
    return "mismatch" if mismatches(case, expected, actual) else None


def value_of(motec, entry, inputs, name, target, work):
    """The evaluator's value of instruction `name` (its only result)."""
    probe = entry.copy()
    probe.root = name
    case = to_case(probe, inputs)
    expected, _ = evaluate_and_run(motec, case, target, work, "probe")
    return None if expected.failed() else expected.arrays[0]


def reduce(motec, text, inputs, target, work, log=print):
    """The smallest module (and its inputs) found that fails as `text` does."""
    entry = Entry(text)
    inputs = dict(inputs)
    goal = failure_kind(motec, to_case(entry.copy(), inputs), target, work)
    if goal is None:
        return None
    changed = True
    while changed:
        changed = False
        # An earlier result: everything after it goes.
        for op in list(entry.ops):
            if op[0] == entry.root or op[1].startswith("("):
                continue
            trial = entry.copy()
            trial.root = op[0]
            if failure_kind(motec, to_case(trial.copy(), inputs), target, work) == goal:
                entry, changed = trial, True
                entry.live()
                log(f"  root -> {op[0]} ({len(entry.ops)} ops)")
                break
        # An op replaced by its value, fed in as a parameter.
        for op in reversed(list(entry.ops)):
            current = {o[0] for o in entry.ops}  # earlier moves may have dropped it
            if op[0] not in current or op[0] == entry.root or op[1].startswith("(") or \
                    op[2] == "constant":
                continue
            value = value_of(motec, entry, inputs, op[0], target, work)
            if value is None:
                continue
            trial = entry.copy()
            trial.ops = [o for o in trial.ops if o[0] != op[0]]
            trial.params.append([op[0], op[1].split("{")[0]])
            trial_inputs = dict(inputs, **{op[0]: np.asarray(value)})
            if failure_kind(motec, to_case(trial.copy(), trial_inputs), target, work) == goal:
                entry, inputs, changed = trial, trial_inputs, True
                entry.live()
                log(f"  {op[0]} -> parameter ({len(entry.ops)} ops)")
    entry.live()
    return to_case(entry, inputs), goal
