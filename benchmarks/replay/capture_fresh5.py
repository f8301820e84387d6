"""Record the real command output of the `fresh5` replay set: capture.py's runner, with cases of its own.

    PATH=VENV/bin:$PATH python3 benchmarks/replay/capture_fresh5.py > benchmarks/replay/fresh5.jsonl

The cases are failures (and a few successes) of one hydrology data package, `riffle`: a Python
package in a src/ layout that reads river-gauge logger CSV exports with pandas 3, turns water
level into discharge with numpy 2 rating curves, resamples the series and has a click CLI; a
small C despiking routine built by make with gcc into a shared library loaded through ctypes; a
sqlite3 station catalogue built from sql/stations.sql; pytest, ruff and mypy checks. VENV is a
Python 3.11 virtualenv with numpy, pandas, click, pytest, ruff and mypy. gcc, make, sqlite3 and
git are Debian's. Each case runs in a fresh folder as capture.py does; nothing here knows the
set's notes or labels (sets/fresh5.json).
"""

from __future__ import annotations

import getpass
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import capture

capture.VERSION.update(
    {
        "sqlite3": "sqlite3 --version",
        "ruff": "ruff --version",
    }
)

# ---- the repository's files -----------------------------------------------------------------------

README = """# riffle

River-gauge data for the hydrology group: read the loggers' monthly CSV exports, turn water level
(stage) into discharge with each station's rating curve, despike and resample the series.

    make ext        # build src/riffle/_despike.so (gcc)
    make test       # pytest
    make lint       # ruff check, ruff format --check, mypy
    make catalog    # data/stations.db from sql/stations.sql

    PYTHONPATH=src python -m riffle flow CH-2135 tests/data/CH-2135_2026-03.csv

Units: stage in metres, discharge in m3/s, times in UTC. See docs/units.md.
"""
PYPROJECT = """[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "riffle"
version = "0.4.0"
requires-python = ">=3.10"
dependencies = ["numpy>=2.0", "pandas>=3.0", "click>=8.1"]

[project.scripts]
riffle = "riffle.cli:main"

[tool.setuptools.package-data]
riffle = ["_despike.so"]

[tool.pytest.ini_options]
pythonpath = ["src"]
testpaths = ["tests"]
addopts = "--strict-markers -ra"
markers = [
    "slow: reads a whole year of logger files",
    "needs_ext: needs src/riffle/_despike.so (make ext)",
]
filterwarnings = ["error"]

[tool.ruff]
line-length = 100
target-version = "py310"
src = ["src", "tests"]

[tool.ruff.lint]
select = ["E", "F", "I", "B", "UP", "NPY", "PD"]

[tool.mypy]
strict = true
files = ["src/riffle"]

[[tool.mypy.overrides]]
module = ["pandas.*"]
ignore_missing_imports = true
"""
MAKEFILE = """PY ?= python3
CC ?= gcc
CFLAGS = -std=c99 -O2 -Wall -Wextra -Werror -fPIC

.PHONY: ext test lint catalog clean

ext: src/riffle/_despike.so

src/riffle/_despike.so: src/riffle/_despike.c
\t$(CC) $(CFLAGS) -shared -o $@ $< -lm

test: ext
\t$(PY) -m pytest -q

lint:
\truff check src tests
\truff format --check src tests
\t$(PY) -m mypy

catalog:
\tmkdir -p data
\tsqlite3 data/stations.db < sql/stations.sql

clean:
\trm -f src/riffle/_despike.so
"""
GITIGNORE = "data/\n*.so\n__pycache__/\n.pytest_cache/\n.mypy_cache/\n.ruff_cache/\n"
PRE_COMMIT = """repos:
  - repo: https://github.com/astral-sh/ruff-pre-commit
    rev: v0.6.9
    hooks:
      - id: ruff
      - id: ruff-format
  - repo: https://github.com/pre-commit/mirrors-mypy
    rev: v1.11.2
    hooks:
      - id: mypy
        additional_dependencies: ["numpy>=2.0"]
        files: ^src/
"""
INIT_PY = '''"""riffle: river-gauge logger data to discharge series."""

__version__ = "0.4.0"
'''
MAIN_PY = "from riffle.cli import main\n\nmain()\n"
IO_PY = '''"""Read the loggers' monthly CSV exports (one file per station and month)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

COLUMNS = {"Station": "station", "Zeit": "time", "Pegel [cm]": "stage_cm", "Temp [C]": "water_temp"}
LOGGER_TZ = "Etc/GMT-1"  # the loggers' clocks: UTC+1 all year


def read_logger_csv(path: str | Path) -> pd.DataFrame:
    """One export as columns station, time (UTC), water_temp and stage (metres), sorted by time."""
    raw = pd.read_csv(path, sep=";", decimal=",", encoding="latin-1")
    frame = raw.rename(columns=COLUMNS)[list(COLUMNS.values())]
    local = pd.to_datetime(frame["time"], format="%d.%m.%Y %H:%M")
    frame["time"] = local.dt.tz_localize(LOGGER_TZ).dt.tz_convert("UTC")
    frame["stage"] = frame.pop("stage_cm") / 100.0
    return frame.drop_duplicates("time").sort_values("time").reset_index(drop=True)


def read_many(paths: list[str | Path]) -> pd.DataFrame:
    """Several exports of one station as one frame (the offload repeats the last reading)."""
    frames = [read_logger_csv(path) for path in paths]
    joined = pd.concat(frames, ignore_index=True)
    return joined.drop_duplicates("time").sort_values("time").reset_index(drop=True)
'''
RATING_PY = '''"""Stage-discharge rating curves: Q = a * (h - h0) ** b, stage h in metres, Q in m3/s."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd


@dataclass(frozen=True)
class Rating:
    a: float
    h0: float
    b: float
    valid_from: str  # a station's curve is re-fitted after big floods

    def discharge(self, stage: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        depth = np.clip(stage - self.h0, 0.0, None)
        return self.a * depth**self.b


RATINGS: dict[str, list[Rating]] = {
    "CH-2135": [Rating(38.2, 0.42, 1.61, "2024-01-01"), Rating(36.9, 0.47, 1.64, "2025-07-15")],
    "CH-2044": [Rating(12.5, 0.18, 1.72, "2023-05-01")],
}


def apply_ratings(readings: pd.DataFrame, station: str) -> pd.DataFrame:
    """`readings` (sorted by time) with the discharge from the curve valid at each reading."""
    curves = pd.DataFrame(
        {
            "valid_from": pd.to_datetime([r.valid_from for r in RATINGS[station]], utc=True),
            "curve": range(len(RATINGS[station])),
        }
    )
    rated = pd.merge_asof(readings, curves, left_on="time", right_on="valid_from")
    discharge = np.full(len(rated), np.nan)
    for index, rating in enumerate(RATINGS[station]):
        rows = (rated["curve"] == index).to_numpy()
        discharge[rows] = rating.discharge(rated["stage"].to_numpy()[rows])
    rated["discharge"] = discharge
    return rated.drop(columns=["valid_from", "curve"])
'''
RESAMPLE_PY = '''"""Regular series from the loggers' 5-minute readings."""

from __future__ import annotations

import pandas as pd


def to_interval(frame: pd.DataFrame, rule: str = "15min") -> pd.DataFrame:
    """Means of the numeric columns over each `rule` interval, indexed by the interval's start."""
    return frame.set_index("time").resample(rule).mean(numeric_only=True)


def fill_gaps(series: pd.Series, limit: int = 3) -> pd.Series:
    """`series` on a full 5-minute index, gaps of up to `limit` readings interpolated."""
    full = pd.date_range(series.index.min(), series.index.max(), freq="5min")
    return series.reindex(full).interpolate(limit=limit, limit_area="inside")
'''
DESPIKE_PY = '''"""Single-sample spike removal, done in C (src/riffle/_despike.c, built by `make ext`)."""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import numpy.typing as npt
from numpy.ctypeslib import ndpointer

LIBRARY = Path(__file__).with_name("_despike.so")


def _library() -> ctypes.CDLL:
    lib = ctypes.CDLL(str(LIBRARY))
    lib.despike.argtypes = [
        ndpointer(np.float64, flags="C_CONTIGUOUS"),
        ctypes.c_size_t,
        ctypes.c_double,
    ]
    lib.despike.restype = ctypes.c_size_t
    return lib


def despike(stage: npt.NDArray[np.float64], threshold: float = 0.15) -> int:
    """Replace spikes in `stage` (metres) in place; the number replaced."""
    return int(_library().despike(stage, stage.size, threshold))
'''
DESPIKE_C = """#include <math.h>
#include <stddef.h>

/* Replace single-sample spikes in place: a reading more than `threshold` metres away from both
 * neighbours while the neighbours agree becomes their mean. Returns the number replaced. */
size_t despike(double *stage, size_t n, double threshold)
{
    size_t replaced = 0;
    for (size_t i = 1; i + 1 < n; i++) {
        double before = stage[i - 1], after = stage[i + 1];
        if (fabs(stage[i] - before) > threshold && fabs(stage[i] - after) > threshold
            && fabs(after - before) <= threshold) {
            stage[i] = 0.5 * (before + after);
            replaced++;
        }
    }
    return replaced;
}
"""
CATALOG_PY = '''"""The station catalogue, data/stations.db (built by `make catalog`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

DB = Path("data/stations.db")


def station(code: str, db: Path = DB) -> dict[str, object]:
    """The catalogue row of station `code` (like CH-2135)."""
    with sqlite3.connect(db) as connection:
        connection.row_factory = sqlite3.Row
        row = connection.execute("select * from stations where code = ?", (code,)).fetchone()
    if row is None:
        raise KeyError(code)
    return dict(row)
'''
CLI_PY = '''"""riffle's command line: `riffle flow STATION CSV` prints the discharge series."""

from __future__ import annotations

import re

import click

from riffle.despike import despike
from riffle.io import read_logger_csv
from riffle.rating import RATINGS, apply_ratings
from riffle.resample import to_interval

CODE = re.compile(r"^[A-Z]{2}-[0-9]{4}$")


def _station(ctx: click.Context, param: click.Parameter, value: str) -> str:
    if not CODE.match(value):
        raise click.BadParameter(f"{value!r}: expected a code like CH-2135")
    if value not in RATINGS:
        raise click.BadParameter(f"{value}: no rating curve for this station")
    return value


@click.group()
def main() -> None:
    """River-gauge logger data."""


@main.command()
@click.argument("station", callback=_station)
@click.argument("csv", type=click.Path(exists=True, dir_okay=False))
@click.option("--rule", default="15min", show_default=True, help="resampling interval")
@click.option("--despike/--no-despike", "remove_spikes", default=False)
def flow(station: str, csv: str, rule: str, remove_spikes: bool) -> None:
    """Discharge of STATION from one logger export CSV."""
    readings = read_logger_csv(csv)
    if remove_spikes:
        stage = readings["stage"].to_numpy(dtype="float64", copy=True)
        despike(stage)
        readings["stage"] = stage
    series = to_interval(apply_ratings(readings, station), rule)
    click.echo(series[["stage", "discharge"]].round(3).to_csv())
'''
CONFTEST_PY = """from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture
def march_csv() -> Path:
    return DATA / "CH-2135_2026-03.csv"
"""
TEST_IO_PY = """import pandas as pd

from riffle.io import read_logger_csv


def test_times_are_utc(march_csv):
    frame = read_logger_csv(march_csv)
    assert frame["time"].iloc[0] == pd.Timestamp("2026-03-01 22:30", tz="UTC")


def test_stage_in_metres(march_csv):
    frame = read_logger_csv(march_csv)
    assert 0.5 < frame["stage"].max() < 3.0


def test_boundary_duplicate_dropped(march_csv):
    frame = read_logger_csv(march_csv)
    assert frame["time"].is_unique
"""
TEST_RATING_PY = """import numpy as np

from riffle.rating import RATINGS, Rating


def test_zero_below_h0():
    rating = Rating(10.0, 0.5, 1.5, "2024-01-01")
    assert rating.discharge(np.array([0.2, 0.5]))[0] == 0.0


def test_known_value():
    rating = RATINGS["CH-2135"][1]
    assert np.isclose(rating.discharge(np.array([1.47]))[0], 36.9)
"""
TEST_RESAMPLE_PY = """from riffle.io import read_logger_csv
from riffle.resample import to_interval


def test_quarter_hours(march_csv):
    series = to_interval(read_logger_csv(march_csv))
    assert len(series) == 5
    assert series.index.freqstr == "15min"
"""
TEST_DESPIKE_PY = """import numpy as np
import pytest

from riffle.despike import despike

pytestmark = pytest.mark.needs_ext


def test_single_spike():
    stage = np.array([1.0, 1.01, 1.9, 1.02, 1.03])
    assert despike(stage) == 1
    assert stage[2] == pytest.approx(1.015)
"""


MARCH_LEVELS = [141.2, 141.0, 141.3, 141.1, 140.9, 141.4, 141.8, 142.0, 142.2, 142.1, 142.5, 142.4, 142.9, 143.0, 143.2]
MARCH_CSV = (
    "\n".join(
        ["Station;Zeit;Pegel [cm];Temp [C]"]
        + [
            f"Aare-Brugg;{'01' if i < 6 else '02'}.03.2026 {(23 if i < 6 else 0):02d}:"
            f"{(30 + 5 * i) % 60 if i < 6 else 5 * (i - 6):02d};{str(level).replace('.', ',')};6,4"
            for i, level in enumerate(MARCH_LEVELS)
        ]
        + ["Aare-Brugg;02.03.2026 00:40;143,2;6,4"]
    )
    + "\n"
)
OCTOBER_CSV = """Station;Zeit;Pegel [cm];Temp [C]
Glatt-Rheinsfelden;26.10.2025 02:20;61,2;9,1
Glatt-Rheinsfelden;26.10.2025 02:25;61,0;9,1
Glatt-Rheinsfelden;26.10.2025 02:30;60,9;9,0
Glatt-Rheinsfelden;26.10.2025 02:35;61,1;9,0
"""
STATIONS_SQL = """-- The station catalogue: `make catalog` builds data/stations.db from this file.
PRAGMA foreign_keys = ON;

CREATE TABLE stations (
    code TEXT PRIMARY KEY,          -- CH-2135: country and the federal gauge number
    river TEXT NOT NULL,
    site TEXT NOT NULL,
    lat REAL NOT NULL,
    lon REAL NOT NULL,
    datum_m REAL NOT NULL           -- gauge zero above sea level, metres
);

CREATE TABLE loggers (
    serial TEXT PRIMARY KEY,
    station TEXT NOT NULL REFERENCES stations (code),
    installed TEXT NOT NULL
);

INSERT INTO stations VALUES ('CH-2135', 'Aare', 'Brugg', 47.4836, 8.2006, 332.48);
INSERT INTO stations VALUES ('CH-2044', 'Glatt', 'Rheinsfelden', 47.5543, 8.4432, 336.40);
INSERT INTO loggers VALUES ('OTT-88213', 'CH-2135', '2024-01-01');
INSERT INTO loggers VALUES ('OTT-90417', 'CH-2044', '2023-05-01');
"""
UNITS_MD = """# Units and time

- **stage**: water level above gauge zero. The loggers write centimetres (`Pegel [cm]`);
  `riffle.io.read_logger_csv` divides by 100, so everything in riffle is metres.
- **discharge**: m3/s, from the station's rating curve (`riffle.rating`).
- **time**: the loggers' clocks run on UTC+1 the whole year (no summer time). riffle converts to
  UTC on reading; plots for the public site convert to Europe/Zurich at the very end.
- Rating curves change on re-fits (after floods); `valid_from` picks the curve per reading.
"""
CHANGELOG = """# Changelog

## 0.4.0
- Rating curves with `valid_from`, so re-fitted curves apply only from their date.
- `riffle flow --despike`.

## 0.3.0
- pandas 3 and numpy 2.
- Station catalogue in sqlite (`make catalog`).
"""

FILES = {
    "README.md": README,
    "CHANGELOG.md": CHANGELOG,
    "pyproject.toml": PYPROJECT,
    "Makefile": MAKEFILE,
    ".gitignore": GITIGNORE,
    ".pre-commit-config.yaml": PRE_COMMIT,
    "docs/units.md": UNITS_MD,
    "sql/stations.sql": STATIONS_SQL,
    "src/riffle/__init__.py": INIT_PY,
    "src/riffle/__main__.py": MAIN_PY,
    "src/riffle/io.py": IO_PY,
    "src/riffle/rating.py": RATING_PY,
    "src/riffle/resample.py": RESAMPLE_PY,
    "src/riffle/despike.py": DESPIKE_PY,
    "src/riffle/_despike.c": DESPIKE_C,
    "src/riffle/catalog.py": CATALOG_PY,
    "src/riffle/cli.py": CLI_PY,
    "tests/conftest.py": CONFTEST_PY,
    "tests/test_io.py": TEST_IO_PY,
    "tests/test_rating.py": TEST_RATING_PY,
    "tests/test_resample.py": TEST_RESAMPLE_PY,
    "tests/test_despike.py": TEST_DESPIKE_PY,
    "tests/data/CH-2135_2026-03.csv": MARCH_CSV,
    "tests/data/CH-2044_2025-10.csv": OCTOBER_CSV,
}


def project(changes: dict[str, str] | None = None) -> dict[str, str]:
    """The repository's files with some replaced or added."""
    return {**FILES, **(changes or {})}


def edit(name: str, old: str, new: str) -> dict[str, str]:
    """One file of the repository with `old` replaced by `new` (which must be there)."""
    text = FILES[name]
    assert old in text, (name, old)
    return {name: text.replace(old, new, 1)}


# ---- a developer's edits in progress --------------------------------------------------------------

PYTEST = "python3 -m pytest -q -p no:cacheprovider "
RIFFLE = "PYTHONPATH=src python3 -m riffle "
GIT_BASE = ["git init -q -b main", "git add -A", "git commit -qm 'riffle 0.4.0'"]
EXT = "make -s ext"
MARCH = "tests/data/CH-2135_2026-03.csv"

APRIL_LATIN1 = (
    "python3 -c \"open('data/raw/CH-2044_2026-04.csv', 'wb').write("
    "'Station;Zeit;Pegel [cm];Temp [C]\\n'.encode() + "
    "'Glatt-R\\u00fcmlang;01.04.2026 00:00;58,1;7,2\\n'.encode('latin-1'))\""
)
COMBINE_PY = """import pandas as pd

from riffle.io import read_logger_csv
from riffle.rating import apply_ratings

files = ["tests/data/CH-2135_2026-03.csv", "data/raw/CH-2135_2026-02.csv"]
readings = pd.concat([read_logger_csv(path) for path in files], ignore_index=True)
print(apply_ratings(readings, "CH-2135").tail())
"""
GAPS_PY = """import pandas as pd

from riffle.io import read_logger_csv
from riffle.resample import fill_gaps

files = ["data/raw/CH-2135_2026-02.csv", "tests/data/CH-2135_2026-03.csv"]
readings = pd.concat([read_logger_csv(path) for path in files], ignore_index=True)
print(fill_gaps(readings.set_index("time")["stage"]).describe())
"""
FEBRUARY = "mkdir -p data/raw && sed 's/0[12]\\.03\\.2026/28.02.2026/' " + MARCH + " > data/raw/CH-2135_2026-02.csv"
FEBRUARY_END = (
    "mkdir -p data/raw && printf 'Station;Zeit;Pegel [cm];Temp [C]\\n"
    "Aare-Brugg;01.03.2026 23:20;141,0;6,4\\nAare-Brugg;01.03.2026 23:25;141,1;6,4\\n"
    "Aare-Brugg;01.03.2026 23:30;141,2;6,4\\n' > data/raw/CH-2135_2026-02.csv"
)
SPIKES_F32_PY = """import numpy as np

from riffle.despike import despike
from riffle.io import read_logger_csv

stage = read_logger_csv("tests/data/CH-2135_2026-03.csv")["stage"].to_numpy(dtype=np.float32)
print(despike(stage), "spikes")
"""
SPIKES_STEP_PY = """from riffle.despike import despike
from riffle.io import read_logger_csv

stage = read_logger_csv("tests/data/CH-2135_2026-03.csv")["stage"].to_numpy()
print(despike(stage[::3]), "spikes in the quarter-hour readings")
"""
TEST_MARKER = TEST_RATING_PY.replace("import numpy as np\n", "import numpy as np\nimport pytest\n") + (
    '\n\n@pytest.mark.network\ndef test_curve_matches_foen_service():\n    assert RATINGS["CH-2044"]\n'
)
TEST_STR_DTYPE = TEST_IO_PY + (
    "\n\ndef test_station_column_is_text(march_csv):\n"
    '    assert read_logger_csv(march_csv)["station"].dtype == object\n'
)
TEST_FLOAT_ = TEST_RATING_PY + (
    '\n\ndef test_dtype():\n    assert RATINGS["CH-2044"][0].discharge(np.ones(3)).dtype == np.float_\n'
)
TEST_RAW_CM = TEST_RATING_PY.replace("import numpy as np\n", "import numpy as np\nimport pandas as pd\n") + (
    "\n\ndef test_march_flow_is_plausible(march_csv):\n"
    '    raw = pd.read_csv(march_csv, sep=";", decimal=",")\n'
    '    flow = RATINGS["CH-2135"][1].discharge(raw["Pegel [cm]"].to_numpy())\n'
    "    assert flow.max() < 500\n"
)
TEST_SEED = TEST_RATING_PY + (
    "\n\ndef test_noisy_stage_stays_positive():\n    np.random.seed(7)\n"
    "    stage = 1.2 + np.random.normal(0, 0.05, 100)\n"
    '    assert (RATINGS["CH-2135"][1].discharge(stage) > 0).all()\n'
)
TEST_UNUSED = TEST_RATING_PY + (
    "\n\ndef test_curves_sorted():\n    curves = RATINGS['CH-2135']\n    first = curves[0]\n"
    "    assert [c.valid_from for c in curves] == sorted(c.valid_from for c in curves)\n"
)
TEST_INDENT = TEST_RATING_PY.replace("    assert rating.discharge", "  assert rating.discharge")
TEST_COUNT = TEST_RESAMPLE_PY.replace("== 5", "== 4")
DESPIKE_C_UNUSED = DESPIKE_C.replace(
    "    size_t replaced = 0;\n", "    size_t replaced = 0;\n    double largest = 0.0;\n"
)
DESPIKE_C_PI = DESPIKE_C.replace(
    "size_t despike(",
    "/* Phase of the diurnal snow-melt cycle, 0 at midnight. */\n"
    "double melt_phase(double hours)\n{\n    return 2.0 * M_PI * fmod(hours, 24.0) / 24.0;\n}\n\nsize_t despike(",
)
DESPIKE_C_SEMICOLON = DESPIKE_C.replace("replaced++;", "replaced++")
CLI_SYNTAX = CLI_PY.replace(
    "def flow(station: str, csv: str, rule: str, remove_spikes: bool) -> None:",
    "def flow(station: str, csv: str, rule: str, remove_spikes: bool) -> None",
)

IO_DRY_NAN = (
    FILES["src/riffle/io.py"]
    .replace("import pandas as pd\n", "import numpy as np\nimport pandas as pd\n")
    .replace(
        '    frame["stage"] = frame.pop("stage_cm") / 100.0\n',
        '    frame["stage"] = (frame.pop("stage_cm") / 100.0).where(lambda s: s >= 0, np.NaN)  # dry logger\n',
    )
)
RATING_UNTYPED = (
    FILES["src/riffle/rating.py"].replace(
        "        depth = np.clip(stage - self.h0, 0.0, None)\n",
        "        depth = _depth(stage, self.h0)\n",
    )
    + "\n\ndef _depth(stage, h0):\n    return np.clip(stage - h0, 0.0, None)\n"
)

CASES: dict[str, tuple[str, dict[str, str], list[str], str]] = {
    # pandas 3, numpy 2
    "fresh5-resample-15T": (
        "pytest",
        project(edit("src/riffle/resample.py", 'rule: str = "15min"', 'rule: str = "15T"')),
        [],
        PYTEST + "tests/test_resample.py",
    ),
    "fresh5-cli-rule-H": ("python", project(), [], RIFFLE + "flow CH-2135 " + MARCH + " --rule H"),
    "fresh5-numpy-NaN": (
        "pytest",
        project({"src/riffle/io.py": IO_DRY_NAN}),
        [],
        PYTEST + "tests/test_io.py tests/test_rating.py tests/test_resample.py",
    ),
    "fresh5-cli-numpy-NaN": (
        "python",
        project(edit("src/riffle/rating.py", "np.full(len(rated), np.nan)", "np.full(len(rated), np.NaN)")),
        [],
        RIFFLE + "flow CH-2135 " + MARCH,
    ),
    "fresh5-numpy-float_": (
        "pytest",
        project({"tests/test_rating.py": TEST_FLOAT_}),
        [],
        PYTEST + "tests/test_rating.py",
    ),
    "fresh5-chained-assignment": (
        "pytest",
        project(
            edit(
                "src/riffle/io.py",
                '    frame["stage"] = frame.pop("stage_cm") / 100.0\n',
                '    frame["stage"] = frame.pop("stage_cm") / 100.0\n'
                '    frame["stage"][frame["stage"] < 0] = float("nan")  # logger dry-running\n',
            )
        ),
        [],
        PYTEST + "tests/test_io.py",
    ),
    "fresh5-str-dtype": ("pytest", project({"tests/test_io.py": TEST_STR_DTYPE}), [], PYTEST + "tests/test_io.py"),
    # the loggers' CSV and clocks
    "fresh5-month-first": (
        "pytest",
        project(
            edit(
                "src/riffle/io.py",
                'pd.to_datetime(frame["time"], format="%d.%m.%Y %H:%M")',
                'pd.to_datetime(frame["time"])',
            )
        ),
        [],
        PYTEST + "tests/test_io.py",
    ),
    "fresh5-tz-berlin": (
        "python",
        project(edit("src/riffle/io.py", 'LOGGER_TZ = "Etc/GMT-1"', 'LOGGER_TZ = "Europe/Berlin"')),
        [],
        RIFFLE + "flow CH-2044 tests/data/CH-2044_2025-10.csv",
    ),
    "fresh5-csv-latin1": (
        "python",
        project(),
        ["mkdir -p data/raw", APRIL_LATIN1],
        "python3 -c \"import pandas as pd; print(pd.read_csv('data/raw/CH-2044_2026-04.csv', sep=';'))\"",
    ),
    "fresh5-csv-default-sep": (
        "python",
        project(),
        [],
        "python3 -c \"import pandas as pd; df = pd.read_csv('" + MARCH + "'); print(df['Pegel [cm]'].max())\"",
    ),
    "fresh5-raw-centimetres": (
        "pytest",
        project({"tests/test_rating.py": TEST_RAW_CM}),
        [],
        PYTEST + "tests/test_rating.py",
    ),
    "fresh5-concat-unsorted": (
        "python",
        project({"combine_months.py": COMBINE_PY}),
        [FEBRUARY],
        "PYTHONPATH=src python3 combine_months.py",
    ),
    "fresh5-concat-duplicates": (
        "python",
        project({"gaps.py": GAPS_PY}),
        [FEBRUARY_END],
        "PYTHONPATH=src python3 gaps.py",
    ),
    # rating curves and the CLI
    "fresh5-power-below-h0": (
        "pytest",
        project(edit("src/riffle/rating.py", "np.clip(stage - self.h0, 0.0, None)", "stage - self.h0")),
        [],
        PYTEST + "tests/test_rating.py",
    ),
    "fresh5-station-bare-number": ("python", project(), [], RIFFLE + "flow 2135 " + MARCH),
    "fresh5-src-layout-import": (
        "python",
        project(),
        [],
        'python3 -c "from riffle.rating import RATINGS; print(RATINGS)"',
    ),
    "fresh5-src-layout-module": ("python", project(), [], "python3 -m riffle flow CH-2135 " + MARCH),
    # the C despiker
    "fresh5-despike-not-built": ("pytest", project(), [], PYTEST + "tests/test_despike.py"),
    "fresh5-cli-despike-not-built": ("python", project(), [], RIFFLE + "flow CH-2135 " + MARCH + " --despike"),
    "fresh5-gcc-unused": ("make", project({"src/riffle/_despike.c": DESPIKE_C_UNUSED}), [], "make ext"),
    "fresh5-gcc-m-pi": ("make", project({"src/riffle/_despike.c": DESPIKE_C_PI}), [], "make ext"),
    "fresh5-despike-float32": (
        "python",
        project({"spikes.py": SPIKES_F32_PY}),
        [EXT],
        "PYTHONPATH=src python3 spikes.py",
    ),
    "fresh5-despike-strided": (
        "python",
        project({"spikes.py": SPIKES_STEP_PY}),
        [EXT],
        "PYTHONPATH=src python3 spikes.py",
    ),
    # pytest, ruff and mypy settings
    "fresh5-unknown-marker": (
        "pytest",
        project({"tests/test_rating.py": TEST_MARKER}),
        [],
        PYTEST + "tests/test_rating.py",
    ),
    "fresh5-mypy-untyped-helper": (
        "mypy",
        project({"src/riffle/rating.py": RATING_UNTYPED}),
        [],
        "python3 -m mypy --no-incremental",
    ),
    "fresh5-ruff-legacy-seed": (
        "ruff",
        project({"tests/test_rating.py": TEST_SEED}),
        [],
        "ruff check --no-cache src tests",
    ),
    "fresh5-ruff-values": (
        "ruff",
        project(edit("src/riffle/rating.py", 'rated["stage"].to_numpy()[rows]', 'rated["stage"].values[rows]')),
        [],
        "ruff check --no-cache src tests",
    ),
    "fresh5-ruff-format": (
        "ruff",
        project(edit("src/riffle/catalog.py", 'DB = Path("data/stations.db")', "DB = Path('data/stations.db')")),
        [],
        "make -s lint",
    ),
    # the station catalogue
    "fresh5-catalog-twice": ("sqlite3", project(), ["make -s catalog"], "make catalog"),
    "fresh5-catalog-id-column": (
        "sqlite3",
        project(),
        ["make -s catalog"],
        'sqlite3 data/stations.db "select id, river from stations"',
    ),
    "fresh5-git-add-db": ("git", project(), [*GIT_BASE, "make -s catalog"], "git add data/stations.db"),
    # ordinary failures
    "fresh5-git-merge-conflict": (
        "git",
        project(),
        [
            *GIT_BASE,
            "git checkout -qb refit-2026 && sed -i 's/36.9, 0.47, 1.64/37.4, 0.46, 1.63/' src/riffle/rating.py"
            " && git commit -qam 'rating: CH-2135 refit'",
            "git checkout -q main && sed -i 's/36.9, 0.47, 1.64/36.8, 0.47, 1.65/' src/riffle/rating.py"
            " && git commit -qam 'rating: CH-2135 correction'",
        ],
        "git merge refit-2026",
    ),
    "fresh5-git-no-branch": ("git", project(), GIT_BASE, "git checkout feature/rating-fit"),
    "fresh5-git-nothing": ("git", project(), GIT_BASE, "git commit -m 'resample: 15 minute default'"),
    "fresh5-git-stash-empty": ("git", project(), GIT_BASE, "git stash pop"),
    "fresh5-git-branch-unmerged": (
        "git",
        project(),
        [
            *GIT_BASE,
            "git checkout -qb plots && echo '# plots' > docs/plots.md && git add -A && git commit -qm plots",
            "git checkout -q main",
        ],
        "git branch -d plots",
    ),
    "fresh5-git-push-no-remote": ("git", project(), GIT_BASE, "git push"),
    "fresh5-make-no-rule": ("make", project(), [], "make install"),
    "fresh5-cli-syntax": ("python", project({"src/riffle/cli.py": CLI_SYNTAX}), [], RIFFLE + "flow CH-2135 " + MARCH),
    "fresh5-resample-nameerror": (
        "pytest",
        project(edit("src/riffle/resample.py", 'frame.set_index("time")', 'frme.set_index("time")')),
        [],
        PYTEST + "tests/test_resample.py",
    ),
    "fresh5-pytest-no-match": ("pytest", project(), [], PYTEST + "-k hysteresis"),
    "fresh5-cli-missing-file": ("python", project(), [], RIFFLE + "flow CH-2135 data/raw/CH-2135_2026-05.csv"),
    "fresh5-sqlite-typo": (
        "sqlite3",
        project(),
        ["make -s catalog"],
        'sqlite3 data/stations.db "selct code from stations"',
    ),
    "fresh5-numpy-broadcast": (
        "python",
        project(),
        [],
        'python3 -c "import numpy as np; a = np.arange(12.0).reshape(3, 4); print(a - np.arange(3.0))"',
    ),
    "fresh5-pandas-keyerror": (
        "python",
        project(),
        [],
        'PYTHONPATH=src python3 -c "from riffle.io import read_logger_csv; '
        "print(read_logger_csv('" + MARCH + "')['temperature'].mean())\"",
    ),
    "fresh5-gcc-semicolon": ("make", project({"src/riffle/_despike.c": DESPIKE_C_SEMICOLON}), [], "make ext"),
    "fresh5-pytest-indent": (
        "pytest",
        project({"tests/test_rating.py": TEST_INDENT}),
        [],
        PYTEST + "tests/test_rating.py",
    ),
    "fresh5-grep-no-match": ("sh", project(), [], "grep -rn 'hysteresis' src"),
    "fresh5-ls-missing": ("sh", project(), [], "ls notebooks/"),
    "fresh5-cat-missing": ("sh", project(), [], "cat docs/rating-curves.md"),
    "fresh5-discharge-args": (
        "python",
        project(),
        [],
        'PYTHONPATH=src python3 -c "from riffle.rating import RATINGS; '
        "print(RATINGS['CH-2135'][1].discharge(1.2, 0.4))\"",
    ),
    "fresh5-import-missing-name": (
        "python",
        project(),
        [],
        'PYTHONPATH=src python3 -c "from riffle.rating import fit_rating"',
    ),
    "fresh5-pytest-count": (
        "pytest",
        project({"tests/test_resample.py": TEST_COUNT}),
        [],
        PYTEST + "tests/test_resample.py",
    ),
    "fresh5-ruff-unused-variable": (
        "ruff",
        project({"tests/test_rating.py": TEST_UNUSED}),
        [],
        "ruff check --no-cache src tests",
    ),
    "fresh5-zero-division": (
        "python",
        project(),
        [],
        'python3 -c "levels = []; print(sum(levels) / len(levels))"',
    ),
    # commands that succeed
    "fresh5-ok-make-test": ("pytest", project(), [], "make -s test"),
    "fresh5-ok-ruff": ("ruff", project(), [], "ruff check --no-cache src tests"),
    "fresh5-ok-mypy": ("mypy", project(), [], "python3 -m mypy --no-incremental"),
    "fresh5-ok-flow": ("python", project(), [], RIFFLE + "flow CH-2135 " + MARCH),
    "fresh5-ok-catalog": (
        "sqlite3",
        project(),
        [],
        "make -s catalog && sqlite3 data/stations.db 'select code, river, site from stations'",
    ),
    "fresh5-ok-git-status": (
        "git",
        project(),
        [*GIT_BASE, "echo '- despike threshold per station' >> CHANGELOG.md"],
        "git status --short",
    ),
    "fresh5-ok-git-log": ("git", project(), GIT_BASE, "git log --oneline"),
    "fresh5-ok-make-ext": ("make", project(), [], "make ext && ls src/riffle"),
}

HOME = os.path.expanduser("~")


def main(argv: list[str] | None = None) -> int:
    os.environ["TZ"] = "UTC"
    os.environ["COLUMNS"] = "160"  # pytest's summary lines whole, so the project's path is rewritten
    shown = {HOME + "/": "/home/dev/"}  # this machine's home, as a developer's
    venv = os.path.dirname(os.path.dirname(shutil.which("python3") or "/usr/bin/python3"))
    if os.path.dirname(venv) == tempfile.gettempdir():  # pytest names it relative to the project
        shown = {"../../" + os.path.basename(venv) + "/": "/home/dev/.venv/", **shown}
    pytest_tmp = os.path.join(tempfile.gettempdir(), f"pytest-of-{getpass.getuser()}")
    shown = {pytest_tmp + "/": "/tmp/pytest-of-dev/", **shown}  # pytest's tmp_path folders, as a developer's
    return capture.main(argv, CASES, shown)


if __name__ == "__main__":
    raise SystemExit(main())
