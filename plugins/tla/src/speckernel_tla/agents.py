"""The three agents of SysMoBench §4: basic modeling, code translation and trace learning.

Each agent writes the first TLA+ model its own way; then all three finish alike, as SysMoBench
does. A separate call writes the TLC configuration for that model (upstream's phase-2 config
prompt). Another call concretises the task's invariant templates over the model's own names
(phase 3, ``invariants.json``). Up to ``rounds`` correction rounds follow: each runs the
benchmark's verifiers and feeds SANY's and TLC's diagnostics back, asking for the corrected model
and configuration as JSON (the agent-based correction loop of §4).

Model answers are read leniently (named fences, bare modules, JSON with prose around it or with
unescaped TLA+ backslashes): whatever can be read is kept and the verifiers judge it. Only
infrastructure failures raise.

Agent options (``--agent-option k=v``): ``rounds`` (correction rounds, default 3) and
``max_chars`` (the context budget of one source piece or of the trace digest, default 24000).
The prompts are the package's ``prompts/*.txt`` files (``string.Template`` placeholders).
"""

from __future__ import annotations

import abc
import importlib.resources
import json
import random
import re
import string
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs
from speckernel.agents import FENCE, extract_files
from speckernel.components import Agent, AgentContext, EvaluatorContext
from speckernel.errors import KernelError
from speckernel.lines import split_lines
from speckernel.model import Files, Message, Task, Verdict

ROUNDS = 3
MAX_CHARS = 24_000
INVARIANTS_FILE = "invariants.json"
TRACES_DIR = "traces/"


# --------------------------------------------------------------------------- the task


@attrs.frozen
class TlaTask:
    """What the agents read from a ``tla`` task.

    ``requirement`` is the task's modelling requirement followed, when the task has a trace
    mapping, by the state variables the trace checker reads by name: a model that uses those
    names needs no mapping of its own.
    """

    module: str
    requirement: str
    language: str
    system_type: str
    sources: Mapping[str, str]
    traces: Mapping[str, str]
    templates: tuple[Mapping[str, Any], ...]

    @classmethod
    def of(cls, task: Task) -> TlaTask:
        meta = task.metadata
        module = meta.get("module")
        if not isinstance(module, str) or not module:
            raise KernelError(f"task '{task.id}' names no TLA+ module (metadata 'module')")
        listed = meta.get("traces")
        trace_keys = set(listed) if isinstance(listed, list) else {
            path for path in task.files if path.startswith(TRACES_DIR)}
        templates = meta.get("invariants")
        return cls(
            module=module,
            requirement="\n\n".join(p for p in (task.prompt.strip(), _interface(meta)) if p),
            language=str(meta.get("language", "")),
            system_type=str(meta.get("system_type", "")),
            sources={k: v for k, v in task.files.items() if k not in trace_keys},
            traces={k: v for k, v in task.files.items() if k in trace_keys},
            templates=tuple(t for t in templates or () if isinstance(t, Mapping)),
        )


def _interface(meta: Mapping[str, Any]) -> str:
    mapping = meta.get("mapping")
    variables = mapping.get("variables") if isinstance(mapping, Mapping) else None
    if not isinstance(variables, Mapping) or not variables:
        return ""
    listed = "\n".join(f"- {name}: {meaning}" for name, meaning in variables.items())
    return render("interface", variables=listed)


@attrs.frozen
class Draft:
    """The artifact under construction: the model, its TLC configuration, its invariants."""

    module: str
    spec: str
    config: str = ""
    invariants: tuple[str, ...] = ()

    def files(self) -> dict[str, str]:
        return {
            f"{self.module}.tla": self.spec,
            f"{self.module}.cfg": self.config,
            INVARIANTS_FILE: json.dumps({"invariants": list(self.invariants)}, indent=2) + "\n",
        }


# --------------------------------------------------------------------------- prompts and options


PROMPTS = importlib.resources.files("speckernel_tla") / "prompts"


def render(prompt: str, /, **values: str) -> str:
    """The prompt ``prompts/<prompt>.txt`` with its ``$placeholders`` filled in."""
    text = (PROMPTS / f"{prompt}.txt").read_text(encoding="utf-8")
    return string.Template(text).substitute(values)


async def ask(ctx: AgentContext | EvaluatorContext, prompt: str) -> str:
    """The answer to ``prompt`` in a fresh conversation with the agents' shared system prompt,
    or, asked by the benchmark's evaluator, the evaluator's own: the model it is shown is the
    candidate's word, data to judge and not instructions (a model may name its operators or
    strings to address its judge).

    Every call stands alone, as upstream's do, so a long correction loop never carries earlier
    drafts in its context. No ``GenerateParams`` are passed: they would replace the run's own
    (temperature, token limit), and the kernel already keys each call by its sample, so the
    samples of ``-n`` are drawn independently.
    """
    system = render("evaluator_system" if isinstance(ctx, EvaluatorContext) else "system")
    messages = [Message("system", system), Message("user", prompt)]
    return (await ctx.generate(messages)).text


def int_option(ctx: AgentContext, name: str, default: int, minimum: int = 0) -> int:
    value = ctx.options.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise KernelError(f"agent option {name} must be an integer >= {minimum}, not {value!r}")
    return value


# --------------------------------------------------------------------------- reading answers


_HEADER = re.compile(r"^[ \t]*-{4,}[ \t]*MODULE[ \t]+(\w+)[ \t]*-{4,}", re.MULTILINE)
_FOOTER = re.compile(r"^[ \t]*={4,}[ \t]*$", re.MULTILINE)
_CFG_KEYWORDS = (r"(?:SPECIFICATION|INIT|NEXT|CONSTANTS?|INVARIANTS?|PROPERTY|PROPERTIES"
                 r"|SYMMETRY|CONSTRAINTS?|ACTION_CONSTRAINTS?|VIEW|ALIAS|CHECK_DEADLOCK)\b")
_CFG_START = re.compile(r"^[ \t]*" + _CFG_KEYWORDS, re.MULTILINE)
_CFG_LINE = re.compile(r"[ \t]|\\\*|\(\*|$|" + _CFG_KEYWORDS + r"|\w+\s*(?:=|<-)")
_DEFINITION = re.compile(r"^[A-Za-z_]\w*[ \t]*==[^\n]*(?:\n[ \t]+\S[^\n]*)*", re.MULTILINE)
_BACKSLASH = re.compile(r'\\(["\\]|u[0-9a-fA-F]{4}|n(?!otin)|t(?!imes)|r)?')


def fenced_blocks(text: str) -> list[str]:
    return [body for _, body in FENCE.findall(text)]


def find_module(text: str, module: str) -> str | None:
    """The TLA+ module in an answer: the block named ``<module>.tla``, else the module (the one
    called ``module`` if several) in a fenced block or in the bare text, from its header to its
    closing line (or the end of its block)."""
    named = extract_files(text, ()).get(f"{module}.tla")
    if named is not None:
        return named
    found = [(header, block) for block in [*fenced_blocks(text), text]
             for header in _HEADER.finditer(block)]
    if not found:
        return None
    header, block = next((f for f in found if f[0][1] == module), found[0])
    footer = _FOOTER.search(block, header.end())
    return block[header.start():footer.end() if footer else len(block)].strip() + "\n"


def find_config(text: str, module: str) -> str | None:
    """The TLC configuration in an answer: the block named ``<module>.cfg``, else a fenced block
    that starts with a configuration keyword, else the configuration lines of the bare text
    outside the module (from the first keyword to the first line of prose)."""
    named = extract_files(text, ()).get(f"{module}.cfg")
    if named is not None:
        return named
    for block in fenced_blocks(text):
        if _CFG_START.match(block.lstrip()):
            return block
    bare = text.replace(spec.strip(), "") if (spec := find_module(text, module)) else text
    start = _CFG_START.search(bare)
    if start is None:
        return None
    lines: list[str] = []
    for line in bare[start.start():].splitlines():
        if line.startswith("```") or not _CFG_LINE.match(line):
            break
        lines.append(line)
    return "\n".join(lines).strip() + "\n"


def json_object(text: str, key: str) -> dict[str, Any] | None:
    """The first JSON object in ``text`` that has ``key``: fenced or bare, with prose around it,
    and also when the model pasted TLA+ into its strings without escaping the backslashes."""
    decoder = json.JSONDecoder(strict=False)
    for variant in (text, escape_lone_backslashes(text)):
        for brace in re.finditer(r"\{", variant):
            try:
                value, _ = decoder.raw_decode(variant, brace.start())
            except (ValueError, RecursionError):  # nested past the interpreter's limit
                continue
            if isinstance(value, dict) and key in value:
                return value
    return None


def escape_lone_backslashes(text: str) -> str:
    r"""``text`` with every backslash that starts no JSON escape doubled, since models paste
    TLA+ (``/\``, ``\in``, ``\A``) into JSON strings unescaped. ``\n``, ``\t`` and ``\r`` stay
    escapes, except at the start of ``\notin`` and ``\times``."""
    return _BACKSLASH.sub(lambda m: m[0] if m[1] else "\\\\", text)


def json_text(found: Mapping[str, Any], key: str) -> str | None:
    value = found.get(key)
    return value if isinstance(value, str) and value.strip() else None


def parse_invariants(text: str) -> tuple[str, ...]:
    """The definitions of an invariant answer: the JSON list, else every ``Name == ...``
    definition in the text (upstream falls back to lines with `` == `` likewise)."""
    items = (json_object(text, "invariants") or {}).get("invariants")
    if isinstance(items, list):
        return tuple(i.strip() for i in items if isinstance(i, str) and i.strip())
    return tuple(m[0].strip() for m in _DEFINITION.finditer(text))


# --------------------------------------------------------------------------- shared steps


async def write_config(draft: Draft, ctx: AgentContext) -> Draft:
    """Upstream's phase-2 config call: small constants, ``SPECIFICATION Spec``, no checks."""
    answer = await ask(ctx, render("config", module=draft.module, specification=draft.spec))
    return attrs.evolve(draft, config=find_config(answer, draft.module) or answer.strip())


async def concretise_invariants(draft: Draft, task: TlaTask, ctx: AgentContext) -> Draft:
    """Upstream's phase-3 call: the templates written over the model's own names."""
    if not task.templates:
        return draft
    return attrs.evolve(draft, invariants=await invariant_definitions(
        ctx, draft.module, draft.spec, task.templates))


async def invariant_definitions(ctx: AgentContext | EvaluatorContext, module: str, spec: str,
                                templates: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """The phase-3 prompt's answer for model ``spec``: one ``Name == expr`` per template, as
    far as the answer can be read. Asked by an agent of its own draft, or by the benchmark's
    evaluator of a candidate (:mod:`speckernel_tla.evaluator`)."""
    listed = "\n\n".join(_template(t) for t in templates)
    answer = await ask(ctx, render("invariants", module=module, specification=spec,
                                   templates=listed))
    return parse_invariants(answer)


def _template(template: Mapping[str, Any]) -> str:
    fields = ("name", "natural_language", "formal_description")
    return render("invariant_template", kind=str(template.get("type", "")),
                  example=str(template.get("tla_example", "")).strip(),
                  **{f: str(template.get(f, "")).strip() for f in fields})


async def refine(draft: Draft, ctx: AgentContext) -> Draft:
    """Up to ``rounds`` rounds of: verify, stop if every verdict passed, else ask for a
    corrected model and configuration given the failing verdicts' diagnostics."""
    rounds = int_option(ctx, "rounds", ROUNDS)
    limit = int_option(ctx, "max_chars", MAX_CHARS, minimum=1)
    for attempt in range(1, rounds + 1):
        failed = [v for v in await ctx.verify(draft.files()) if not v.passed]
        ctx.log(f"correction round {attempt}: "
                + (", ".join(v.verifier for v in failed) + " failed" if failed else "all passed"))
        if not failed:
            break
        answer = await ask(ctx, render(
            "correct", module=draft.module, attempt=str(attempt), rounds=str(rounds),
            diagnostics=feedback(failed, limit), specification=draft.spec,
            configuration=draft.config, invariants="\n".join(draft.invariants) or "(none)"))
        draft = apply_correction(draft, answer)
    return draft


def feedback(failed: Sequence[Verdict], limit: int) -> str:
    """The failing verdicts' summaries, cut to ``limit`` characters."""
    text = "\n\n".join(v.summary() for v in failed)
    return text if len(text) <= limit else text[:limit] + "\n[... cut]"


def apply_correction(draft: Draft, answer: str) -> Draft:
    """The draft with what a correction answer provides: the JSON's ``specification`` and
    ``configuration`` (without the fences or prose a model may wrap them in), else a module and
    a configuration written out plainly. What the answer lacks stays as it was."""
    found = json_object(answer, "specification") or json_object(answer, "configuration")
    if found is None:
        return attrs.evolve(draft, spec=find_module(answer, draft.module) or draft.spec,
                            config=find_config(answer, draft.module) or draft.config)
    spec = json_text(found, "specification")
    config = json_text(found, "configuration")
    return attrs.evolve(
        draft,
        spec=(find_module(spec, draft.module) or spec) if spec else draft.spec,
        config=next(iter(fenced_blocks(config)), config) if config else draft.config)


# --------------------------------------------------------------------------- the agents


class ModelingAgent(Agent):
    """What the SysMoBench agents share: after ``draft``, the config, invariant and correction
    steps of §4."""

    benchmarks = ("tla",)

    @abc.abstractmethod
    async def draft(self, task: TlaTask, ctx: AgentContext) -> str:
        """The answer holding the first model (read with :func:`find_module`)."""

    async def solve(self, task: Task, ctx: AgentContext) -> Files:
        view = TlaTask.of(task)
        answer = await self.draft(view, ctx)
        draft = Draft(view.module, find_module(answer, view.module) or answer.strip())
        ctx.log(f"{self.name}: drafted {view.module}.tla ({len(draft.spec)} chars)")
        draft = await write_config(draft, ctx)
        draft = await concretise_invariants(draft, view, ctx)
        return (await refine(draft, ctx)).files()


class BasicAgent(ModelingAgent):
    """SysMoBench's basic modeling agent (§4): requirement plus source code, one prompt."""

    name = "basic"
    description = ("SysMoBench basic modeling: code to TLA+ in one prompt, then config, "
                   "invariants and correction rounds")

    async def draft(self, task: TlaTask, ctx: AgentContext) -> str:
        sources = "\n\n".join(f"File {path}:\n```\n{text}\n```"
                              for path, text in sorted(task.sources.items()))
        return await ask(ctx, render(
            "basic", requirement=task.requirement, module=task.module, language=task.language,
            system_type=task.system_type, sources=sources))


class TranslateAgent(ModelingAgent):
    """SysMoBench's code translation agent (§4, Specula-style): each source piece translated
    statement by statement into TLA+ operators, then one call assembles the control flow into
    the actions of one module.

    Pieces are whole files when they fit ``max_chars``, else runs of whole top-level items
    (functions, types). They are translated one after another, not concurrently: the kernel's
    model cache keys each call by its rank in the sample.
    """

    name = "translate"
    description = ("SysMoBench code translation: statement-by-statement translation, "
                   "assembly, then config, invariants and correction rounds")

    async def draft(self, task: TlaTask, ctx: AgentContext) -> str:
        limit = int_option(ctx, "max_chars", MAX_CHARS, minimum=1)
        translations: list[str] = []
        for path, source in sorted(task.sources.items()):
            pieces = split_source(source, limit)
            for number, piece in enumerate(pieces, 1):
                part = f"{number} of {len(pieces)}"
                answer = await ask(ctx, render(
                    "translate", requirement=task.requirement, language=task.language,
                    path=path, part=part, code=piece))
                operators = "\n".join(fenced_blocks(answer)) or answer
                translations.append(f"\\* {path}, piece {part}\n{operators.strip()}")
        return await ask(ctx, render("assemble", requirement=task.requirement,
                                     module=task.module, translations="\n\n".join(translations)))


def split_source(text: str, limit: int) -> list[str]:
    """``text`` in pieces of at most ``limit`` characters: whole top-level items (a new one
    starts after a blank line, at column 0) packed greedily; an item longer than the limit is
    cut between lines, and a line longer than it, anywhere."""
    items = re.split(r"(?<=\n\n)(?=[^\s)\]}])", text)
    units = [piece for item in items for piece in _lines_if_long(item, limit)]
    pieces: list[str] = []
    for unit in units:
        if pieces and len(pieces[-1]) + len(unit) <= limit:
            pieces[-1] += unit
        else:
            pieces.append(unit)
    return pieces


def _lines_if_long(item: str, limit: int) -> list[str]:
    if len(item) <= limit:
        return [item]
    return [line[i:i + limit] for line in item.splitlines(keepends=True)
            for i in range(0, len(line), limit)]


class TraceAgent(ModelingAgent):
    """SysMoBench's trace learning agent (§4): the model inferred from execution traces alone,
    given as compact tables (:func:`compress_traces`); the sample's seed picks the traces when
    they do not all fit."""

    name = "trace"
    description = ("SysMoBench trace learning: TLA+ from traces only, then config, "
                   "invariants and correction rounds")

    async def draft(self, task: TlaTask, ctx: AgentContext) -> str:
        limit = int_option(ctx, "max_chars", MAX_CHARS, minimum=1)
        digest = compress_traces(task.traces, limit, random.Random(ctx.seed))
        ctx.log(f"trace: {len(digest)} chars of traces")
        return await ask(ctx, render("trace", requirement=task.requirement, module=task.module,
                                     system_type=task.system_type, traces=digest))


# --------------------------------------------------------------------------- trace digests


EVENT = "event"
_PLAIN = re.compile(r"[A-Za-z_][\w.:-]*")
_JSON_WORDS = frozenset({"true", "false", "null", "NaN", "Infinity"})


def compress_traces(traces: Mapping[str, str], limit: int, rng: random.Random) -> str:
    """NDJSON traces as one TSV table each, after a legend of abbreviated event names.

    Upstream converts NDJSON traces to TSV too; abbreviating the events and dropping empty
    trailing cells makes the tables a third to two fifths of the NDJSON's size (bundled
    traces). They are lossless: the legend gives each event back, a header names each column,
    an empty cell is a missing field and every other cell is JSON, plain words unquoted. Traces
    are taken in ``rng``'s order while they fit in ``limit`` characters, and printed in name
    order; when not even one fits whole, the first is cut after the rows that fit. The legend
    and that table's header are always kept.
    """
    logs = {name.removeprefix(TRACES_DIR): _records(name, text) for name, text in traces.items()}
    legend = abbreviations(r[EVENT] for log in logs.values() for r in log
                           if isinstance(r.get(EVENT), str))
    head = "legend:\n" + "".join(f"{short}\t{event}\n" for event, short in legend.items())
    names = sorted(logs)
    rng.shuffle(names)
    room = limit - len(head)
    tables: dict[str, str] = {}
    for name in names:
        table = _table(name, logs[name], legend, None)
        if len(table) + 1 <= room:
            tables[name] = table
            room -= len(table) + 1
    if not tables and names:
        tables[names[0]] = _table(names[0], logs[names[0]], legend, room - 1)
    return head + "".join(f"\n{tables[n]}" for n in sorted(tables))


def abbreviations(events: Iterable[str]) -> dict[str, str]:
    """Event name -> its initials (``TryLockFail`` -> ``TLF``), numbered when two clash."""
    short: dict[str, str] = {}
    for event in dict.fromkeys(events):
        base = "".join(w[0].upper() for w in re.findall(r"[A-Za-z][a-z0-9]*", event)) or "E"
        candidate, n = base, 1
        while candidate in short.values():
            n += 1
            candidate = f"{base}{n}"
        short[event] = candidate
    return short


def _records(name: str, text: str) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in split_lines(text) if line.strip()]
    if not all(isinstance(r, dict) for r in records):
        raise KernelError(f"trace {name}: every line must be a JSON object")
    return records


def _table(name: str, records: list[dict[str, Any]], legend: Mapping[str, str],
           room: int | None) -> str:
    """One trace as TSV; with ``room``, only the rows that fit in it, and a line saying how
    many were left out."""
    columns = list(dict.fromkeys(k for r in records for k in r if k != EVENT))
    head = f"{name}: {len(records)} records\n" + "\t".join([EVENT, *columns]) + "\n"
    rows = ["\t".join([_event_cell(r, legend)] + [_cell(r, c) for c in columns]).rstrip("\t")
            + "\n" for r in records]
    if room is None:
        return head + "".join(rows)
    shown = head
    for count, row in enumerate(rows):
        note = f"[{len(rows) - count} more records not shown]\n"
        if len(shown) + len(row) + len(note) > room:
            return shown + note
        shown += row
    return shown


def _event_cell(record: Mapping[str, Any], legend: Mapping[str, str]) -> str:
    event = record.get(EVENT)
    return legend[event] if isinstance(event, str) else _cell(record, EVENT)


def _cell(record: Mapping[str, Any], column: str) -> str:
    if column not in record:
        return ""
    value = record[column]
    if isinstance(value, str) and _PLAIN.fullmatch(value) and value not in _JSON_WORDS:
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
