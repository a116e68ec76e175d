"""Run configurations and matrices: what an experiment changes, as data, never as file edits.

A configuration switches validation layers, chart and answer modes (AskOptions), resources
(max_sql_attempts, row cap, ...), rules-only vs LLM, model parameters, prompt overrides,
added or disabled instructions and examples, and virtual topics that exist only for the run.
A matrix is a `base` configuration and the `configs` that each change it. The same schema is
accepted by `vitrina eval run --config/--matrix` and by POST /api/experiments.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from vitrina.ask import AskOptions
from vitrina.catalog.model import Dictionary, Example, Instruction, Metric, Relation, Table, Topic
from vitrina.eval.errors import EvalError
from vitrina.eval.prompt_template import MAX_TEMPLATE_CHARS, check_template

OPTION_NAMES = tuple(f.name for f in dataclasses.fields(AskOptions))


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Resources(_Strict):
    """Settings a run may change (None: as configured)."""

    max_sql_attempts: int | None = Field(default=None, ge=1, le=10)
    max_clarifications: int | None = Field(default=None, ge=0, le=10)
    row_cap: int | None = Field(default=None, ge=1)
    statement_timeout_s: float | None = Field(default=None, gt=0)
    table_preview_rows: int | None = Field(default=None, ge=1)


ADDRESS_KEYS = ("base_url", "url", "provider", "api_key", "host")


class ModelParams(_Strict):
    """Chat model parameters for this run (None: as configured).

    The endpoint is chosen by `endpoint`, a name from the server's ``[llm.endpoints]``, never
    by an address: a caller of the experiment API must not make the server send requests to
    a host it names (SSRF)."""

    endpoint: str | None = Field(default=None, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")
    model: str | None = Field(default=None, max_length=200)
    temperature: float | None = Field(default=None, ge=0, le=2)
    timeout_s: float | None = Field(default=None, gt=0, le=600)
    max_retries: int | None = Field(default=None, ge=0, le=5)

    @model_validator(mode="before")
    @classmethod
    def _no_addresses(cls, data: Any) -> Any:
        given = sorted(k for k in ADDRESS_KEYS if isinstance(data, dict) and k in data)
        if given:
            raise ValueError(
                f"{', '.join(given)} cannot be given in a run configuration: name an endpoint "
                "configured on the server instead (model.endpoint: NAME, from [llm.endpoints.NAME] "
                "in vitrina.toml)"
            )
        return data

    def settings(self, endpoints: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
        """Settings changes: the named endpoint's address and key, then the parameters."""
        out: dict[str, Any] = {}
        if self.endpoint is not None:
            known = endpoints or {}
            if self.endpoint not in known:
                names = ", ".join(sorted(known)) or "none configured"
                raise EvalError(
                    f"model.endpoint {self.endpoint!r} is not configured on this server; "
                    f"known: {names}",
                    message_ru=f"конечная точка модели {self.endpoint!r} не настроена на сервере",
                )
            out.update({f"llm_{k}": v for k, v in known[self.endpoint].items()})
        names = {
            "model": "llm_model",
            "temperature": "llm_temperature",
            "timeout_s": "llm_timeout_s",
            "max_retries": "llm_max_retries",
        }
        out.update(
            {names[k]: v for k, v in self.model_dump().items() if v is not None and k in names}
        )
        return out


class PromptOverride(_Strict):
    """A change to one model task's prompt: text appended, or a template in which
    ``{{ prompt }}`` is the original prompt (given inline or in a file). A template is plain
    text with that placeholder only (see `prompt_template`): no expressions, no tags."""

    append: str | None = Field(default=None, max_length=MAX_TEMPLATE_CHARS)
    template: str | None = None
    file: str | None = None

    @model_validator(mode="after")
    def _one(self) -> PromptOverride:
        if sum(v is not None for v in (self.append, self.template, self.file)) != 1:
            raise ValueError("give exactly one of append, template, file")
        if self.template is not None:
            check_template(self.template)
        return self


class Additions(_Strict):
    """Instructions or examples: `use` false hides them from the model; `only` keeps some
    (instruction ids, example questions); `add` supplies more for this run."""

    use: bool = True
    only: list[str] | None = None
    add: list[dict[str, Any]] = Field(default_factory=list)


class VirtualTopic(_Strict):
    """A subject area supplied with the run, added to an in-memory copy of the catalog."""

    topic: Topic
    tables: list[Table] = Field(default_factory=list)
    relations: list[Relation] = Field(default_factory=list)
    metrics: list[Metric] = Field(default_factory=list)
    dictionaries: list[Dictionary] = Field(default_factory=list)
    instructions: list[Instruction] = Field(default_factory=list)
    examples: list[Example] = Field(default_factory=list)


class RunConfig(_Strict):
    """One configuration of an experiment."""

    name: str = "default"
    mode: Literal["auto", "rules", "llm"] = "auto"  # auto: the model when one is configured
    options: dict[str, Any] = Field(default_factory=dict)  # AskOptions switches
    resources: Resources = Field(default_factory=Resources)
    model: ModelParams = Field(default_factory=ModelParams)
    prompts: dict[str, PromptOverride] = Field(default_factory=dict)  # model task -> override
    instructions: Additions = Field(default_factory=Additions)
    examples: Additions = Field(default_factory=Additions)
    virtual_topics: list[VirtualTopic] = Field(default_factory=list)
    judge: bool = True  # ask the LLM judge about disputed cases when a model is available

    @field_validator("options")
    @classmethod
    def _options(cls, value: dict[str, Any]) -> dict[str, Any]:
        if "guard" in value or "sql_guard" in value:
            raise ValueError("the SQL guard cannot be switched off")
        unknown = sorted(set(value) - set(OPTION_NAMES))
        if unknown:
            raise ValueError(f"unknown options {unknown}; known: {', '.join(OPTION_NAMES)}")
        if value.get("chart") is False:  # YAML reads a bare `off` as false
            value = {**value, "chart": "off"}
        from pydantic import TypeAdapter

        TypeAdapter(AskOptions).validate_python(value)
        return value

    @model_validator(mode="before")
    @classmethod
    def _single_topic(cls, data: Any) -> Any:
        if isinstance(data, dict) and "virtual_topic" in data:
            data = dict(data)
            data["virtual_topics"] = [*data.get("virtual_topics", []), data.pop("virtual_topic")]
        return data

    def ask_options(self) -> AskOptions:
        options = dict(self.options)
        if not self.instructions.use:
            options["instructions"] = False
        if not self.examples.use:
            options["examples"] = False
        return AskOptions(**options)


class Matrix(_Strict):
    """One suite under several configurations: each of `configs` changes `base`."""

    name: str = "matrix"
    suite: str | None = None
    base: dict[str, Any] = Field(default_factory=dict)
    configs: list[dict[str, Any]] = Field(min_length=1)

    def expand(self) -> list[RunConfig]:
        """The configurations, each merged over the base, with unique names; every one is
        validated here, before any runs, and a bad one raises `MatrixProblem` naming its
        YAML key path (configs.N.key, or base.key when the base is at fault)."""
        out = []
        for n, change in enumerate(self.configs):
            merged = merge(self.base, change)
            merged.setdefault("name", f"config{n + 1}")
            try:
                out.append(RunConfig.model_validate(merged))
            except ValidationError as exc:
                first = exc.errors()[0]
                loc = [str(p) for p in first["loc"]]
                keys = ["configs", n, *loc] if not loc or loc[0] in change else ["base", *loc]
                raise MatrixProblem(first["msg"], keys, str(merged["name"])) from exc
        names = [c.name for c in out]
        if len(set(names)) != len(names):
            raise ValueError(f"configuration names must be unique: {names}")
        return out


class MatrixProblem(ValueError):
    """A bad configuration of a matrix: the message and the YAML key path at fault."""

    def __init__(self, message: str, keys: list[str | int], name: str) -> None:
        super().__init__(message)
        self.message = message
        self.keys = keys
        self.name = name

    @property
    def where(self) -> str:
        return ".".join(str(k) for k in self.keys) + f" ({self.name})"


def yaml_line(text: str, keys: list[str | int]) -> int | None:
    r"""The 1-based line of the deepest node of `keys` found in the YAML `text` (None when the
    text does not parse or the first key is absent).

    >>> yaml_line("base: {}\nconfigs:\n  - name: a\n  - name: b\n    mode: x\n", ["configs", 1, "mode"])
    5
    """  # noqa: E501
    try:
        node = yaml.compose(text)
    except yaml.YAMLError:
        return None
    line = None
    for key in keys:
        child = _child(node, key)
        if child is None:
            break
        node, line = child[1], child[0]
    return line


def _child(node: Any, key: str | int) -> tuple[int, Any] | None:
    """(line, node) of `key` under a mapping or sequence node."""
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if str(k.value) == str(key):
                return k.start_mark.line + 1, v
    if isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
        item = node.value[key]
        return item.start_mark.line + 1, item
    return None


def merge(base: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """`change` over `base`, mappings merged key by key, everything else replaced."""
    out = dict(base)
    for key, value in change.items():
        out[key] = (
            merge(out[key], value)
            if isinstance(value, dict) and isinstance(out.get(key), dict)
            else value
        )
    return out


def _read(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise EvalError("file not found", file=path, message_ru="файл не найден")
    try:
        data = yaml.safe_load(_text(path)) or {}
    except yaml.YAMLError as exc:
        raise EvalError(f"invalid YAML: {exc}", file=path, message_ru="неверный YAML") from exc
    if not isinstance(data, dict):
        raise EvalError(
            "top level must be a mapping",
            file=path,
            message_ru="верхний уровень должен быть словарём",
        )
    return data


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _problem(exc: ValidationError) -> str:
    first = exc.errors()[0]
    loc = ".".join(str(p) for p in first["loc"])
    return f"{loc + ': ' if loc else ''}{first['msg']}"


def parse_config(data: dict[str, Any], *, file: Path | None = None) -> RunConfig:
    try:
        return RunConfig.model_validate(data)
    except ValidationError as exc:
        raise EvalError(
            _problem(exc), file=file, message_ru="неверная конфигурация запуска"
        ) from exc


def _at_line(file: Path | None, text: str | None, keys: list[str | int]) -> str | None:
    """`file:line` of the key path when the text is known, else the file."""
    if file is None:
        return None
    line = yaml_line(text, keys) if text is not None else None
    return f"{file}:{line}" if line else str(file)


def parse_matrix(
    data: dict[str, Any], *, file: Path | None = None, text: str | None = None
) -> tuple[Matrix, list[RunConfig]]:
    """The matrix and every configuration, all validated before anything runs; a problem
    names the file and line (when `text` is the file's YAML) and the key path."""
    ru = "неверная матрица экспериментов"
    try:
        matrix = Matrix.model_validate(data)
        return matrix, matrix.expand()
    except ValidationError as exc:
        first = exc.errors()[0]
        keys: list[str | int] = list(first["loc"])
        raise EvalError(_problem(exc), file=_at_line(file, text, keys), message_ru=ru) from exc
    except MatrixProblem as exc:
        raise EvalError(
            exc.message, file=_at_line(file, text, exc.keys), where=exc.where, message_ru=ru
        ) from exc
    except ValueError as exc:
        raise EvalError(str(exc), file=file, message_ru=ru) from exc


def load_config(path: Path) -> RunConfig:
    config = parse_config(_read(path), file=path)
    return _resolve_files(config, path.parent)


def load_matrix(path: Path) -> tuple[Matrix, list[RunConfig]]:
    matrix, configs = parse_matrix(_read(path), file=path, text=_text(path))
    out = []
    for n, config in enumerate(configs):
        try:
            out.append(_resolve_files(config, path.parent))
        except EvalError as exc:
            keys: list[str | int] = ["configs", n, "prompts"]
            raise EvalError(
                exc.detail,
                file=_at_line(path, _text(path), keys),
                where=f"configs.{n}.{exc.where} ({config.name})",
                message_ru=exc.message_ru,
            ) from exc
    return matrix, out


def config_line(path: Path, index: int) -> str:
    """`file:line` of the matrix's configuration `index` (0-based)."""
    return _at_line(path, _text(path), ["configs", index]) or str(path)


def _resolve_files(config: RunConfig, folder: Path) -> RunConfig:
    """Prompt template files read now (relative to the config file); files are never written."""
    prompts = {}
    for task, override in config.prompts.items():
        if override.file is not None:
            file = (
                Path(override.file) if Path(override.file).is_absolute() else folder / override.file
            )
            if not file.is_file():
                raise EvalError(
                    "prompt file not found",
                    file=file,
                    where=f"prompts.{task}",
                    message_ru="файл промпта не найден",
                )
            override = PromptOverride(template=file.read_text(encoding="utf-8"))
        prompts[task] = override
    return config.model_copy(update={"prompts": prompts})
