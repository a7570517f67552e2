"""nimmt study: per-position numbers, statistics, determinism, reports, errors."""
from __future__ import annotations

import json
import math
import os
import sys

import pytest

from nimmt.puzzles import study as st
from nimmt.puzzles import studyreport
from nimmt.solver.base.errors import NimmtError
from nimmt.solver.base.pictures import NO_PICTURES
from nimmt.solver.positions.position import parse_position
from nimmt.solver.search.analysis import analyse

from cli_checks import assert_ok, assert_one_line_error, invoke

# nimmt runs in child processes here: the kernels compiled first (conftest)
pytestmark = pytest.mark.usefixtures("compiled_kernels")

SMALL = st.StudySettings("tactical", 2, (2, 3), 4, seed=7,
                         bots=("closest", "dumper", "expecti"))


@pytest.fixture(scope="module")
def small() -> st.Study:
    return st.run_study(SMALL)


def test_per_position_numbers_equal_analyse(small):
    assert small.complete and len(small.records) == 8
    for record in small.records:
        position = parse_position(record["position"])
        assert position == st.position_of(SMALL, record["k"], record["index"])
        assert position.cards_left == record["k"]
        for model in SMALL.models:
            result = analyse(position, opponents=model, method="exact")
            entry = record["models"][model]
            assert entry["values"] == {str(c.card): c.value for c in
                                       sorted(result.cards, key=lambda c: c.card)}
            assert entry["value"] == result.value
            low = min(c.value for c in result.cards)
            assert entry["best"] == sorted(c.card for c in result.cards
                                           if c.value - low <= 1e-9)


def record(k, index, values_r, values_w, bots, themes=(), tempting=None):
    return {"k": k, "index": index, "position": f"p{index}",
            "models": {"random": {"value": min(values_r.values()),
                                  "values": {str(c): v for c, v in values_r.items()},
                                  "best": st.best_cards(values_r)},
                       "worst": {"value": min(values_w.values()),
                                 "values": {str(c): v for c, v in values_w.items()},
                                 "best": st.best_cards(values_w)}},
            "bots": bots, "themes": list(themes), "tempting": tempting,
            "explanation": "x" if tempting else None}


def test_aggregate_against_a_hand_computation():
    settings = st.StudySettings("tactical", 2, (2,), 4, 0, models=("random", "worst"),
                                bots=("closest", "dumper"))
    records = [
        record(2, 0, {1: 0.0, 9: 2.0}, {1: 1.0, 9: 3.0}, {"closest": 1, "dumper": 9},
               ["dump-high"], 9),
        record(2, 1, {3: 1.0, 5: 1.0}, {3: 2.0, 5: 2.0}, {"closest": 3, "dumper": 5}),
        record(2, 2, {4: 0.5, 7: 0.0}, {4: 0.0, 7: 4.0}, {"closest": 4, "dumper": 4},
               ["duck-low", "dump-high"], 4),
        record(2, 3, {2: 3.0, 8: 0.0}, {2: 1.0, 8: 1.0}, {"closest": 8, "dumper": 2},
               ["dump-high"], 2),
    ]
    k = st.aggregate(settings, records)["2"]
    assert k["positions"] == 4
    r = k["models"]["random"]
    # spreads 2, 0, 0.5, 3: the choice matters in 3 of 4
    assert r["matters"]["count"] == 3 and r["matters"]["share"] == 0.75
    assert r["spread"]["mean"] == pytest.approx(5.5 / 4)
    assert r["spread"]["q50"]["value"] == 0.5   # nearest rank: the 2nd of 0, 0.5, 2, 3
    assert r["spread"]["q90"]["value"] == 3.0
    assert r["value"]["mean"] == pytest.approx(1.0 / 4)
    # closest: regrets 0, 0, 0.5, 0; dumper: 2, 0, 0.5, 3
    assert r["bots"]["closest"]["best"]["count"] == 3
    assert r["bots"]["closest"]["regret"]["mean"] == pytest.approx(0.125)
    assert r["bots"]["dumper"]["best"]["count"] == 1
    assert r["bots"]["dumper"]["regret"]["mean"] == pytest.approx(5.5 / 4)
    assert r["bots"]["dumper"]["regret"]["q90"]["value"] == 3.0
    sd = math.sqrt(sum((x - 1.375) ** 2 for x in (2, 0, 0.5, 3)) / 3)
    t3 = 3.182446305284263  # Student's t, 3 degrees of freedom, two-sided 95%
    assert r["bots"]["dumper"]["regret"]["ci95"] == pytest.approx(
        [max(0.0, 1.375 - t3 * sd / 2), 1.375 + t3 * sd / 2])
    w = k["models"]["worst"]
    assert w["matters"]["count"] == 2  # spreads 2, 0, 4, 0
    # best cards agree: {1}&{1}, {3,5}&{3,5}, {7}&{4}, {8}&{2,8}
    assert k["agreement"]["random-worst"]["count"] == 3
    assert k["themes"]["dump-high"]["count"] == 3
    assert k["themes"]["dump-high"]["cost"]["mean"] == pytest.approx((2 + 0.5 + 3) / 3)
    assert k["themes"]["duck-low"]["count"] == 1
    assert [x["index"] for x in k["instructive"]] == [3, 0, 2]
    assert k["instructive"][0]["bot"] == "dumper" and k["instructive"][0]["regret"] == 3.0


def test_statistics_helpers():
    assert st.quantile([5, 1, 3], 0.5) == 3
    assert st.wilson(0, 10)[0] == 0.0 and st.wilson(10, 10)[1] == 1.0
    lo, hi = st.wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    assert st.quantile_interval(list(range(1, 101)), 0.5) == [40, 61]


def test_reports_without_matplotlib_have_the_tables_and_say_so(small, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    data = studyreport.report_data(small, "nimmt study ...")
    for name in ("s.html", "s.md"):
        assert studyreport.write_report(data, str(tmp_path / name)) == [str(tmp_path / name)]
    assert sorted(os.listdir(tmp_path)) == ["s.html", "s.md"]
    page, text = (tmp_path / "s.html").read_text(), (tmp_path / "s.md").read_text()
    assert "<svg" not in page and "<table" in page and "matplotlib cannot be imported" in page
    assert NO_PICTURES in text and "\n## " in text and "\n| " in text


def test_same_study_whatever_the_workers(small):
    two = st.run_study(SMALL, workers=2)
    one = studyreport.report_data(small)
    other = studyreport.report_data(two)
    for key in ("per_k", "positions", "study", "complete"):
        assert one[key] == other[key]


def test_reports_written_atomically(small, tmp_path, monkeypatch):
    data = studyreport.report_data(small, "nimmt study ...")
    for name in ("s.json", "s.html", "s.md"):
        written = studyreport.write_report(data, str(tmp_path / name))
        assert all(os.path.getsize(f) > 0 for f in written)
    assert json.loads((tmp_path / "s.json").read_text())["per_k"]["2"]["positions"] == 4
    page = (tmp_path / "s.html").read_text()
    assert page.count("<svg") == 3 and "<img" not in page
    assert sorted(os.listdir(tmp_path)) == ["s-matters.png", "s-regret.png", "s-values.png",
                                            "s.html", "s.json", "s.md"]
    before = (tmp_path / "s.html").read_text()

    def broken(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(studyreport, "html_page", lambda *a: broken())
    with pytest.raises(KeyboardInterrupt):
        studyreport.write_report(data, str(tmp_path / "s.html"))
    assert (tmp_path / "s.html").read_text() == before  # never half a file
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".nimmt")]


def test_interrupted_study_leaves_a_valid_report(tmp_path):
    done = []

    def progress(step):
        done.append(step)
        if len(done) == 3:
            raise KeyboardInterrupt
    study = st.run_study(SMALL, progress=progress)
    assert not study.complete and study.stopped == "interrupted"
    assert len(study.records) == 3
    for name in ("i.json", "i.html"):
        studyreport.write_report(studyreport.report_data(study), str(tmp_path / name))
    data = json.loads((tmp_path / "i.json").read_text())
    assert data["complete"] is False and "incomplete" in data["note"]
    assert data["run"]["finished"] == {"2": 2, "3": 1}
    assert "incomplete" in (tmp_path / "i.html").read_text()


def test_cli_time_limit_marks_incomplete(runner, tmp_path):
    out = tmp_path / "t.json"
    result = invoke(runner, "study", "--players", 2, "--cards-left", "2..3", "--positions",
                    500, "--seed", 1, "--time-limit", 0.2, "--bots", "closest", "--output",
                    out)
    assert_ok(result)
    data = json.loads(out.read_text())
    assert data["complete"] is False and "time limit" in data["note"]
    assert "marked incomplete" in result.output


def test_cli_ctrl_c_writes_partial_and_exits_130(runner, tmp_path, monkeypatch):
    out = tmp_path / "c.json"
    out.write_text("{}")
    real = st.run_study

    def interrupted(settings, workers=1, time_limit=None, progress=None, batch=None):
        def stop(step):
            raise KeyboardInterrupt
        return real(settings, workers, time_limit, stop, batch)
    monkeypatch.setattr(st, "run_study", interrupted)
    result = invoke(runner, "study", "--players", 2, "--cards-left", "2", "--positions", 3,
                    "--seed", 1, "--bots", "closest", "--output", out)
    assert result.exit_code == 130
    assert out.read_text() == "{}"  # an existing file is never replaced by less
    data = json.loads((tmp_path / "c.partial.json").read_text())
    assert data["complete"] is False and len(data["positions"]) == 1


@pytest.mark.parametrize("args", [
    ["--players", 2, "--cards-left", "0..11"],
    ["--players", 2, "--cards-left", "2..7"],
    ["--players", 3, "--cards-left", "2..5", "--models", "random"],
    ["--players", 3, "--cards-left", "2..4"],              # nash: 2 players only
    ["--players", 5, "--cards-left", "2"],
    ["--players", 2, "--cards-left", "two"],
    ["--players", 2, "--cards-left", "2", "--models", "best"],
    ["--players", 2, "--cards-left", "2", "--bots", "nobody"],
    ["--players", 2, "--cards-left", "2", "--dealt-by", "expecti"],
    ["--players", 2, "--cards-left", "2", "--positions", 0],
])
def test_bad_ranges_one_line_exit_2(runner, tmp_path, args):
    line = assert_one_line_error(invoke(runner, "study", *args, "--output",
                                        tmp_path / "x.json"))
    assert "Traceback" not in line
    assert not os.listdir(tmp_path)


def test_bad_output_format_is_refused(runner, tmp_path):
    line = assert_one_line_error(invoke(runner, "study", "--players", 2, "--output",
                                        tmp_path / "x.txt"))
    assert ".html, .md or .json" in line


def test_library_errors_name_parameters():
    with pytest.raises(NimmtError) as e:
        st.check_study(st.StudySettings("tactical", 2, (0, 1), 5, 0))
    assert "cards_left" in str(e.value) and "--" not in str(e.value)


def chromium() -> str | None:
    import shutil

    return next((p for p in map(shutil.which, ("chromium", "chromium-browser",
                                               "google-chrome")) if p), None)


@pytest.mark.skipif(chromium() is None, reason="no headless Chromium on this machine")
def test_html_renders_in_headless_chromium(small, tmp_path):
    import subprocess

    page = tmp_path / "s.html"
    studyreport.write_report(studyreport.report_data(small), str(page))
    shot = tmp_path / "shot.png"
    subprocess.run([chromium(), "--headless=new", "--no-sandbox", "--disable-gpu",
                    "--window-size=1200,1600", f"--screenshot={shot}", page.as_uri()],
                   capture_output=True, timeout=120, check=True)
    assert shot.stat().st_size > 20_000  # drawn: pictures and tables, not a blank page
    dom = subprocess.run([chromium(), "--headless=new", "--no-sandbox", "--disable-gpu",
                          "--dump-dom", page.as_uri()], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert dom.count("<svg") == 3 and "Model random" in dom


def test_cli_markdown_report_with_pictures_beside(runner, tmp_path):
    out = tmp_path / "m.md"
    result = invoke(runner, "study", "--players", 2, "--cards-left", "2", "--positions", 3,
                    "--seed", 1, "--models", "worst,random", "--bots", "closest,dumper",
                    "--workers", 1, "--output", out)
    assert_ok(result)
    assert "wrote" in result.output and "seed 1" in result.output
    text = out.read_text()
    for name in ("regret", "values", "matters"):
        assert (tmp_path / f"m-{name}.png").read_bytes()[:4] == b"\x89PNG"
        assert f"(m-{name}.png)" in text
    assert "Model worst" in text and "incomplete" not in text
