"""A study's report: JSON (every number and the positions), Markdown with PNG pictures
beside it, or one self-contained HTML file with the pictures inline as SVG.

Pictures are drawn by matplotlib on the Agg backend (no display needed): regret by k per
bot with 95% bands, the value's histogram per model, and the share of positions where the
choice matters by k. Every file is written atomically (``solver.base.fileio``).
"""
from __future__ import annotations

import html
import json
import math
import os
from collections.abc import Callable
from typing import Any

from ..solver.base.errors import NimmtError
from ..solver.base.fileio import atomic_write_text
from ..solver.base.pictures import (
    NO_PICTURES,
    figure_bytes,
    have_pictures,
    matplotlib_pyplot,
    write_beside,
)
from .study import Study, aggregate

__all__ = ["FORMATS", "STYLE", "check_format", "figures", "html_page", "markdown",
           "report_data", "write_report"]

FORMATS = (".html", ".md", ".json")
FIGURES = ("regret", "values", "matters")


def report_data(study: Study, command: str = "") -> dict:
    """The JSON of a study: settings, completeness, the figures per k, every position."""
    s = study.settings
    finished = {str(k): sum(r["k"] == k for r in study.records) for k in s.cards_left}
    data: dict[str, Any] = {"study": s.to_json(), "command": command,
                            "complete": study.complete}
    if not study.complete:
        data["note"] = (f"incomplete ({study.stopped}): {len(study.records)} of "
                        f"{s.positions * len(s.cards_left)} positions finished")
    data["run"] = {"seconds": round(study.seconds, 3), "workers": study.workers,
                   "backend": study.backend, "finished": finished}
    data["per_k"] = aggregate(s, study.records)
    data["positions"] = [{key: v for key, v in r.items() if key != "seconds"}
                         for r in study.records]
    return data


def _clean(x: Any) -> Any:
    """NaN (a figure of no positions) as null: JSON has no NaN."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_clean(v) for v in x]
    return x


# ---------------------------------------------------------------- pictures

def figures(data: dict, fmt: str) -> dict[str, bytes]:
    """The three pictures as ``fmt`` ('svg' or 'png') bytes, by name."""
    plt = matplotlib_pyplot()
    plt.rcParams["svg.hashsalt"] = "nimmt-study"  # the same ids every run
    plt.rcParams["svg.fonttype"] = "none"
    study, per_k = data["study"], data["per_k"]
    ks = [k for k in study["cards_left"] if per_k[str(k)]["positions"]]
    models = study["models"]
    out: dict[str, bytes] = {}

    def save(fig: Any, name: str) -> None:
        out[name] = figure_bytes(fig, fmt)
        plt.close(fig)

    fig, axes = plt.subplots(1, len(models), figsize=(4.2 * len(models), 3.4), squeeze=False)
    for ax, m in zip(axes[0], models):
        for bot in study["bots"]:
            means = [per_k[str(k)]["models"][m]["bots"][bot]["regret"]["mean"] for k in ks]
            lo = [per_k[str(k)]["models"][m]["bots"][bot]["regret"]["ci95"][0] for k in ks]
            hi = [per_k[str(k)]["models"][m]["bots"][bot]["regret"]["ci95"][1] for k in ks]
            ax.plot(ks, means, marker="o", label=bot)
            ax.fill_between(ks, lo, hi, alpha=0.2)
        ax.set_title(f"{m}: mean regret ({per_k[str(ks[0])]['models'][m]['unit']})"
                     if ks else m, fontsize=9)
        ax.set_xlabel("cards left")
        ax.set_xticks(ks)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("regret (95% band)")
    axes[0][-1].legend(fontsize=8)
    save(fig, "regret")

    fig, axes = plt.subplots(1, len(models), figsize=(4.2 * len(models), 3.4), squeeze=False)
    for ax, m in zip(axes[0], models):
        for k in ks:
            h = per_k[str(k)]["models"][m]["value"]["histogram"]
            total = max(1, sum(h["counts"]))
            ax.stairs([c / total for c in h["counts"]], h["edges"], label=f"k={k}")
        ax.set_title(f"{m}: value ({per_k[str(ks[0])]['models'][m]['unit']})" if ks else m,
                     fontsize=9)
        ax.set_xlabel("value")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("share of positions")
    axes[0][-1].legend(fontsize=8)
    save(fig, "values")

    fig, ax = plt.subplots(figsize=(5, 3.4))
    for m in models:
        shares = [per_k[str(k)]["models"][m]["matters"]["share"] for k in ks]
        lo = [per_k[str(k)]["models"][m]["matters"]["ci95"][0] for k in ks]
        hi = [per_k[str(k)]["models"][m]["matters"]["ci95"][1] for k in ks]
        ax.errorbar(ks, shares, yerr=[[s - a for s, a in zip(shares, lo)],
                                      [b - s for s, b in zip(shares, hi)]],
                    marker="o", capsize=3, label=m)
    ax.set_xlabel("cards left")
    ax.set_xticks(ks)
    ax.set_ylim(0, 1.02)
    ax.set_ylabel("share where the card matters")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, "matters")
    return out


# ---------------------------------------------------------------- text

def _f(x: Any, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    return f"{x:.{digits}f}"


def _pct(s: dict) -> str:
    if not s["of"]:
        return "–"
    lo, hi = s["ci95"]
    return f"{100 * s['share']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def _ci(d: dict) -> str:
    return f"{_f(d['mean'])} [{_f(d['ci95'][0])}, {_f(d['ci95'][1])}]"


def _q(d: dict) -> str:
    return f"{_f(d['value'])} [{_f(d['ci95'][0])}, {_f(d['ci95'][1])}]"


def tables(data: dict) -> list[tuple[str, list[str], list[list[str]]]]:
    """The report's tables: (title, header, rows), shared by Markdown and HTML."""
    study, per_k = data["study"], data["per_k"]
    ks = [str(k) for k in study["cards_left"]]
    out = []
    for m in study["models"]:
        unit = per_k[ks[0]]["models"][m]["unit"]
        rows = [[k, str(per_k[k]["positions"]), _pct(per_k[k]["models"][m]["matters"]),
                 _q(per_k[k]["models"][m]["spread"]["q50"]),
                 _q(per_k[k]["models"][m]["spread"]["q90"]),
                 _ci(per_k[k]["models"][m]["value"]),
                 _q(per_k[k]["models"][m]["value"]["q50"])] for k in ks]
        out.append((f"Model {m} ({unit}): does the card matter, and the value",
                    ["k", "positions", "choice matters", "spread median", "spread q90",
                     "value mean", "value median"], rows))
        rows = []
        for k in ks:
            for bot, b in per_k[k]["models"][m]["bots"].items():
                rows.append([k, bot, _pct(b["best"]), _ci(b["regret"]), _q(b["regret"]["q90"])])
        out.append((f"Model {m}: the bots (regret in {unit})",
                    ["k", "bot", "picks a best card", "mean regret", "regret q90"], rows))
    pairs = list(per_k[ks[0]]["agreement"])
    if pairs:
        header = ["k", *(f"best cards agree: {p}" for p in pairs)]
        rows = [[k, *(_pct(per_k[k]["agreement"][p]) for p in pairs)] for k in ks]
        if "nash_pure" in per_k[ks[0]]:
            header.append("nash equilibrium pure")
            for row, k in zip(rows, ks):
                row.append(_pct(per_k[k]["nash_pure"]))
        out.append(("Do the models agree?", header, rows))
    rows = []
    for k in ks:
        for theme, t in per_k[k]["themes"].items():
            rows.append([k, theme, _pct(t), _ci(t["cost"])])
    out.append((f"Themes of the misses (model {study['models'][0]}): how often, and the cost of "
                "the tempting card", ["k", "theme", "positions", "cost when missed"], rows))
    return out


def instructive_rows(data: dict) -> list[tuple[str, dict]]:
    return [(k, row) for k in map(str, data["study"]["cards_left"])
            for row in data["per_k"][k]["instructive"]]


def _heading(data: dict) -> tuple[str, str]:
    s = data["study"]
    title = (f"nimmt study: {s['variant']}, {s['players']} players, {s['placement']} "
             f"placement, {s['cards_left'][0]}..{s['cards_left'][-1]} cards left")
    sub = (f"{s['positions']} positions per k, seed {s['seed']}; models "
           f"{', '.join(s['models'])}; bots {', '.join(s['bots'])}; dealt by "
           f"{', '.join(s['dealt_by'])}. Intervals are 95%: shares Wilson, means normal "
           "(cut at 0 for what is never negative), quantiles (nearest rank) order-statistic.")
    return title, sub


def _no_pictures(data: dict) -> bool:
    """Whether the report has figures to draw but no matplotlib to draw them."""
    return any(v["positions"] for v in data["per_k"].values()) and not have_pictures()


def markdown(data: dict, pictures: dict[str, str]) -> str:
    """The Markdown report; ``pictures`` maps a figure's name to its file name."""
    title, sub = _heading(data)
    lines = [f"# {title}", "", sub, ""]
    if not data["complete"]:
        lines += [f"**{data['note']}**", ""]
    if data["command"]:
        lines += ["```", data["command"], "```", ""]
    if _no_pictures(data):
        lines += [f"*({NO_PICTURES})*", ""]
    for name, caption in zip(FIGURES, ("Regret by k per bot", "Value per model",
                                       "Share of positions where the card matters")):
        if name in pictures:
            lines += [f"![{caption}]({pictures[name]})", ""]
    for caption, header, rows in tables(data):
        lines += [f"## {caption}", "", "| " + " | ".join(header) + " |",
                  "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        lines.append("")
    lines += ["## The most instructive positions (largest bot regret)", ""]
    for k, row in instructive_rows(data):
        lines += [f"- k={k}, {row['bot']} plays {row['card']} (regret {_f(row['regret'])}): "
                  f"{row['explanation']}", f"  `{row['position']}`"]
    return "\n".join(lines) + "\n"


STYLE = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;"
         "color:#222}table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid"
         " #ccc;padding:.2em .5em;font-size:.9em;text-align:left}th{background:#f3f3f3}"
         "code{font-size:.85em;background:#f6f6f6}.warn{background:#fee;padding:.5em;"
         "border:1px solid #c66}pre{white-space:pre-wrap}figure{margin:1em 0}"
         "svg{max-width:100%;height:auto}")


def html_page(data: dict, svgs: dict[str, bytes]) -> str:
    """One self-contained HTML page: the tables, the pictures inline as SVG."""
    title, sub = _heading(data)
    e = html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{e(title)}</title><style>{STYLE}</style></head><body>",
             f"<h1>{e(title)}</h1>", f"<p>{e(sub)}</p>"]
    if not data["complete"]:
        parts.append(f'<p class="warn"><strong>{e(data["note"])}</strong></p>')
    if data["command"]:
        parts.append(f"<pre><code>{e(data['command'])}</code></pre>")
    if _no_pictures(data):
        parts.append(f"<p><em>({e(NO_PICTURES)})</em></p>")
    for name in FIGURES:
        if name in svgs:
            svg = svgs[name].decode("utf-8")
            svg = svg[svg.index("<svg"):]  # drop the XML prolog and doctype
            parts.append(f"<figure>{svg}</figure>")
    for caption, header, rows in tables(data):
        parts.append(f"<h2>{e(caption)}</h2><table><tr>"
                     + "".join(f"<th>{e(h)}</th>" for h in header) + "</tr>")
        parts += ["<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in rows]
        parts.append("</table>")
    parts.append("<h2>The most instructive positions (largest bot regret)</h2><ol>")
    for k, row in instructive_rows(data):
        parts.append(f"<li>k={k}, {e(row['bot'])} plays {row['card']} (regret "
                     f"{_f(row['regret'])}): {e(row['explanation'] or '')}<br>"
                     f"<code>{e(row['position'])}</code></li>")
    parts.append("</ol></body></html>")
    return "\n".join(parts) + "\n"


def check_format(path: str) -> str:
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in FORMATS:
        raise NimmtError(f"cannot tell the report's format from {path[-40:]!r}: name the output "
                         "file .html, .md or .json")
    return suffix


def write_report(data: dict, path: str,
                 write: Callable[[str, str], None] = atomic_write_text) -> list[str]:
    """Write the report to ``path`` (its suffix picks the format; Markdown puts
    NAME-regret.png, NAME-values.png and NAME-matters.png beside it); returns the files
    written. Every file is written atomically."""
    suffix = check_format(path)
    data = _clean(data)
    if suffix == ".json":
        write(path, json.dumps(data, indent=1) + "\n")
        return [path]
    has = any(v["positions"] for v in data["per_k"].values()) and have_pictures()
    if suffix == ".html":
        write(path, html_page(data, figures(data, "svg") if has else {}))
        return [path]
    names = write_beside(path, figures(data, "png") if has else {})
    written = [os.path.join(os.path.dirname(path), n) for n in names.values()]
    write(path, markdown(data, names))
    return [path, *written]
