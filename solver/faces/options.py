"""``nimmt analyse``'s options, one value, checked once for both faces.

``AnalyseOptions`` holds every option of ``nimmt analyse`` (``queries.analyse_answer``'s
arguments); building one checks every field (``validate``). The command line builds it from
its click parameters, the engine protocol from a JSON request (``from_request``), so the
two faces share one set of checks and one wording: a bad value is one line, ``Invalid value
for 'NAME': REASON``, naming the parameter as its reader spells it (the command line its
flag, the engine the request's key). Options that do not go together (``both_sides``
without nash, a draft position's ``opponents``, ...) are refused by ``analyse_answer``.

Memory sizes (``parse_size``) are read here too: ``4G``, ``512M``, at most the machine's
RAM.
"""
from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from ..base.defaults import DEFAULT_MEMORY, DEFAULT_SAMPLES
from ..base.errors import NimmtError, param
from ..base.names import Method, Model, values
from ..base.rules import cut
from ..positions.draft import DraftPosition, load_any
from ..positions.position import Position

__all__ = ["OBJECTIVES", "AnalyseOptions", "BadValue", "default_memory",
           "parse_size", "physical_memory", "request_cards", "request_int", "request_seconds",
           "take_params"]

OBJECTIVES = ("cows", "margin", "win")
SIZE_UNITS = {"k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}

# The whole-number options and their ranges; the choices; the switches; the free texts
# (checked where they are read: bots, drafters, cards, a solution file).
WHOLE = {"samples": (2, 10**9), "max_nodes": (1, 10**13), "workers": (1, 64),
         "seed": (0, 2**63 - 1)}
CHOICES = {"method": values(Method), "objective": OBJECTIVES}
SWITCHES = ("both_sides", "verify")
TEXTS = ("opponents", "turn", "drafters", "round_bots", "solution")
# A request's other names for an option (the command line's short and long flags)
ALIASES = {"w": "workers", "round": "round_bots"}
POSITION_REQUIRED = ("position is required: the notation, a built-in example's name or a "
                     "position file, as a string")


class BadValue(ValueError):
    """An option's value is not one it takes; the message is the reason, without the
    option's name (each face names it its own way)."""


def physical_memory() -> int | None:
    """This machine's RAM in bytes (None where the system does not say)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def default_memory() -> int:
    """The memory a search gets when none is given: 8 GiB, or the machine's RAM if less."""
    ram = physical_memory()
    return min(DEFAULT_MEMORY, ram) if ram else DEFAULT_MEMORY


def _no_unit(value: Any, size: float) -> BadValue:
    """A size without its unit: suggest only the units that make it a size taken."""
    ram = physical_memory()
    fits = [f"{cut(str(value).strip())}{u}" for u in ("G", "M")
            if 2**20 <= size * SIZE_UNITS[u.lower()] <= (ram or math.inf)]
    return BadValue(f"{cut(value)!r} has no unit; write "
                    + (f"for example {' or '.join(fits)}" if fits else
                       "a size of at least 1M, for example 4G or 512M") + " (K, M, G, T)")


def parse_size(value: Any, default: bool = False) -> int:
    """A memory size with its unit, ``4G``, ``512M``, ``1.5GiB`` (K, M, G, T: powers of
    1024), in bytes: at least 1M and at most the machine's RAM (``default``: the value is
    the default, lowered to the RAM instead of refused). Raises ``BadValue``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value).strip().lower().removesuffix("ib").removesuffix("b")
    scale = SIZE_UNITS.get(text[-1:], None)
    try:
        size = float(text[:-1] if scale else text) * (scale or 1)
    except ValueError:
        size = math.nan
    if not math.isfinite(size):
        raise BadValue(f"{cut(value)!r} is not a size; write for example 4G or 512M")
    if scale is None:
        raise _no_unit(value, size)
    if size < 2**20:
        raise BadValue(f"{value!r} is too small; give at least 1M")
    ram = physical_memory()
    if ram and size > ram:
        if default:
            return ram
        raise BadValue(f"{value!r} is more than this machine's memory ({ram / 2**30:.1f} GiB); "
                       f"give at most {math.floor(ram / 2**30)}G")
    return int(size)


# ---------------------------------------------------------------- one value's checks

def _range_text(low: float | None, high: float | None) -> str:
    """A range as the command line's help writes it: ``2<=x<=1000000000``, ``x>0``."""
    return f"{low}<=x<={high}" if high is not None else f"x>{low}"


def _whole(name: str, value: Any) -> int:
    """A whole number in the option's range (a text is read as one)."""
    low, high = WHOLE[name]
    if isinstance(value, str):
        try:
            value = int(value)
        except ValueError:
            raise BadValue(f"{value!r} is not a whole number.") from None
    if type(value) is not int:
        raise BadValue(f"{value!r} is not a whole number.")
    if not low <= value <= high:
        raise BadValue(f"{value} is not in the range {_range_text(low, high)}.")
    return value


def _seconds(value: Any) -> float:
    """A number of seconds above 0, finite (a text is read as one)."""
    text = value
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise BadValue(f"{value!r} is not a number.") from None
    if type(value) not in (int, float):
        raise BadValue(f"{value!r} is not a number.")
    value = float(value)
    if value <= 0:
        raise BadValue(f"{value} is not in the range {_range_text(0, None)}.")
    if not math.isfinite(value):
        raise BadValue(f"{cut(text)!r} is not a finite number")
    return value


def _choice(name: str, value: Any) -> str:
    """One of the option's names."""
    if value not in CHOICES[name]:
        raise BadValue(f"{value!r} is not one of {', '.join(map(repr, CHOICES[name]))}.")
    return str(value)


def _switch(value: Any) -> bool:
    """True or false."""
    if not isinstance(value, bool):
        raise BadValue(f"{value!r} is not true or false.")
    return value


def _text(value: Any) -> str:
    """A text, read where it is used."""
    if not isinstance(value, str):
        raise BadValue(f"{value!r} is not a text.")
    return value


def _position(value: Any) -> Position | DraftPosition:
    """A position (or a draft position), or the text of one (the notation, an example's
    name, a position file)."""
    if isinstance(value, (Position, DraftPosition)):
        return value
    if not isinstance(value, str):
        raise BadValue(f"{cut(repr(value))} is not a position.")
    return load_any(value)  # NimmtError: the notation's own message


def check_value(name: str, value: Any) -> Any:
    """The value of option ``name`` as the search takes it (None: the option not set),
    or ``BadValue`` saying why it is not one."""
    if value is None and name not in ("position", "memory", *SWITCHES, *CHOICES):
        return None
    if name in WHOLE:
        return _whole(name, value)
    if name in CHOICES:
        return _choice(name, value)
    if name in SWITCHES:
        return _switch(value)
    if name in TEXTS:
        return _text(value)
    if name == "time_limit":
        return _seconds(value)
    if name == "memory":
        return parse_size(value)
    return _position(value)


def _clip_quotes(message: str) -> str:
    """Quotations of what the caller sent ('...' or (...)) cut to 40 characters."""
    message = re.sub(r"'([^']{40})[^']+'", r"'\1...'", message)
    return re.sub(r"\(([^()]{40})[^()]+\)", r"(\1...)", message)


def invalid(label: str, reason: str) -> NimmtError:
    """The one-line error for a bad value of the option named ``label``."""
    return NimmtError(_clip_quotes(f"Invalid value for '{label}': {reason}".replace("\n", " ")))


# ---------------------------------------------------------------- the options

@dataclass(frozen=True)
class AnalyseOptions:
    """Every option of ``nimmt analyse`` (``queries.analyse_answer``'s arguments), checked
    when built: a bad value raises ``NimmtError``, one line naming the option. ``given``:
    the options the caller set (a draft position refuses some of them even at their
    defaults' values)."""

    position: Position | DraftPosition
    opponents: str = Model.RANDOM.value
    method: str = Method.AUTO.value
    objective: str = "cows"
    samples: int = DEFAULT_SAMPLES
    time_limit: float | None = None
    max_nodes: int | None = None
    memory: int = field(default_factory=default_memory)
    workers: int | None = None
    both_sides: bool = False
    verify: bool = False
    turn: str | None = None
    drafters: str | None = None
    round_bots: str | None = None
    solution: str | None = None
    seed: int | None = None
    given: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Check every option once; a bad value raises ``NimmtError`` naming it."""
        for f in fields(self):
            if f.name == "given":
                continue
            try:
                check_value(f.name, getattr(self, f.name))
            except BadValue as e:
                raise invalid(param(f.name), str(e)) from None
        if not all(isinstance(name, str) for name in self.given):
            raise NimmtError("given names options, as strings")

    @classmethod
    def from_request(cls, params: Mapping[str, Any], method: str = "analyse"
                     ) -> AnalyseOptions:
        """The options of an engine request's ``params`` (a JSON object): names as the
        options' (``time_limit`` or ``time-limit``, ``workers`` or ``w``), values as JSON
        (a number, a string, true or false; cards as a list). Each value is read as the
        command line reads its text, in the order given (the position last), and a bad
        one is named as the request names it."""
        raw = _request_values(params, method)
        ordered = [name for name in raw if name != "position"]
        options: dict[str, Any] = {}
        for name in ordered + (["position"] if "position" in raw else []):
            key, value = raw[name]
            try:
                options[name] = check_value(name, value)
            except BadValue as e:
                raise invalid(key, str(e)) from None
        if "position" not in options:
            raise NimmtError(POSITION_REQUIRED)
        return cls(**options, given=tuple(options))

    def arguments(self) -> dict[str, Any]:
        """``queries.analyse_answer``'s keyword arguments (the position among them)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["given"] = list(self.given)
        return out


NAMES = tuple(f.name for f in fields(AnalyseOptions) if f.name != "given")


def _request_value(key: str, name: str, value: Any) -> Any:
    """A request's JSON value as the command line would have read its text: a switch is
    true or false; any other value a string, a number or a list of them (joined by
    commas)."""
    if name in SWITCHES:
        if not isinstance(value, bool):
            raise NimmtError(f"{key} is true or false; got {_json(value)}")
        return value
    if isinstance(value, (bool, dict)) or isinstance(value, list) and not all(
            isinstance(v, (int, str)) and not isinstance(v, bool) for v in value):
        raise NimmtError(f"{key} takes a value (a string or a number); got {_json(value)}")
    return ",".join(map(str, value)) if isinstance(value, list) else str(value)


def _json(value: Any) -> str:
    import json

    return json.dumps(value)[:40]


def _request_values(params: Mapping[str, Any], method: str) -> dict[str, tuple[str, Any]]:
    """The request's options by name, each with the key it came by and its value (as
    text; switches as true or false); unknown names refused, options not set (null,
    a switch false) left out."""
    out: dict[str, tuple[str, Any]] = {}
    for key, value in params.items():
        name = str(key).replace("-", "_")
        name = ALIASES.get(name, name)
        if name not in NAMES:
            raise NimmtError(f"{method} has no parameter {str(key)[:40]!r}; its "
                             f"parameters: {', '.join(sorted(NAMES))}")
        if value is None:
            continue
        value = _request_value(str(key), name, value)
        if value is not False:
            out[name] = (str(key), value)
    return out


# ---------------------------------------------------------------- other requests' params
# The engine protocol's and the board's readers of a JSON request's other params; ``error``:
# the NimmtError class a face answers bad params with (the protocol's: its -32602).

def take_params(params: Mapping[str, Any], allowed: tuple[str, ...], method: str,
                error: type[NimmtError] = NimmtError) -> dict[str, Any]:
    """The params by name (``time-limit`` and ``time_limit`` alike); unknown names refused."""
    out: dict[str, Any] = {}
    for key, value in params.items():
        name = str(key).replace("-", "_")
        if name not in allowed:
            raise error(f"{method} has no parameter {str(key)[:40]!r}; its parameters: "
                        f"{', '.join(allowed)}")
        out[name] = value
    return out


def request_int(params: Mapping[str, Any], name: str, low: int, high: int, default: Any,
                error: type[NimmtError] = NimmtError) -> Any:
    """``params[name]``, a whole number low..high, or ``default`` when it is absent."""
    value = params.get(name, default)
    if value is None or value is default:
        return value
    if type(value) is not int or not low <= value <= high:
        raise error(f"{name} must be a whole number {low}..{high:,}; got "
                    f"{_json(value)[:40]}")
    return value


def request_seconds(params: Mapping[str, Any], name: str = "time_limit",
                    error: type[NimmtError] = NimmtError) -> float | None:
    """``params[name]``, a number of seconds above 0, or None when it is absent."""
    value = params.get(name)
    if value is None:
        return None
    if type(value) not in (int, float) or not (0 < value < 10**9):
        raise error(f"{name} must be a number of seconds above 0; got {_json(value)[:40]}")
    return float(value)


def request_cards(params: Mapping[str, Any], name: str,
                  error: type[NimmtError] = NimmtError) -> list[int] | None:
    """``params[name]``: whole numbers, a JSON list or separated by commas; None when absent."""
    value = params.get(name)
    if value is None:
        return None
    if isinstance(value, str):
        items = value.split(",")
        if not all(i.isascii() and i.lstrip("-").isdigit() for i in items):
            raise error(f"{name} takes whole numbers, a list or separated by commas; got "
                        f"{value[:40]!r}")
        return [int(i) for i in items]
    if not isinstance(value, list) or not all(type(c) is int for c in value):
        raise error(f"{name} takes a list of whole numbers; got {_json(value)[:40]}")
    return value
