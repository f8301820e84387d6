"""Record the real command output of the `fresh3` replay set: capture.py's runner, with cases of its own.

    PATH=VENV/bin:$PATH FRESH3_NODE_MODULES=DIR/node_modules \\
        python3 benchmarks/replay/capture_fresh3.py > benchmarks/replay/fresh3.jsonl

The cases are failures (and a few successes) of one C++ library, `tessera` (image tiling and
filters): a C++17 core built with CMake and Ninja (include/, src/cpp/, tests/cpp/), Python
bindings written with pybind11 (python/bindings.cpp, the package in src/tessera/, pytest tests
in tests/python/), a documentation site built by small Node scripts (docs/), and shell release
scripts (scripts/). VENV is a Python 3.11 virtualenv with `pybind11 numpy pytest mypy` from
PyPI; DIR holds `npm install marked@12`. CMake 3.25, GCC 12, Ninja, Node 20, jq and sqlite3 are
Debian's; GoogleTest is not installed and the machine has no network but its package indexes.
Each case runs in a fresh folder as capture.py does; nothing here knows the set's notes or
labels (sets/fresh3.json).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import capture

capture.VERSION.update(
    {
        "cmake": "cmake --version",
        "ninja": "ninja --version",
        "ctest": "ctest --version",
        "g++": "g++ --version",
        "bash": "bash --version",
        "jq": "jq --version",
        "sqlite3": "sqlite3 --version",
    }
)

# ---- the C++ core ------------------------------------------------------------------------------

CMAKE = """cmake_minimum_required(VERSION 3.22)
project(tessera VERSION 0.4.0 LANGUAGES CXX)

set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)

option(TESSERA_PYTHON "Build the Python module" ON)
option(TESSERA_TESTS "Build the C++ tests" ON)
option(TESSERA_GTEST "Build the GoogleTest suite" OFF)
option(TESSERA_WERROR "Treat warnings as errors (CI)" OFF)
option(TESSERA_BENCH "Build the benchmarks" OFF)

add_library(tessera
  src/cpp/tile.cpp
  src/cpp/blur.cpp
@EXTRA_SOURCES@)
target_include_directories(tessera PUBLIC include)
target_compile_options(tessera PRIVATE -Wall -Wextra)
if(TESSERA_WERROR)
  target_compile_options(tessera PRIVATE -Werror)
endif()

if(TESSERA_TESTS)
  enable_testing()
  add_executable(test_tile tests/cpp/test_tile.cpp)
  target_link_libraries(test_tile PRIVATE tessera)
  add_test(NAME tile_split COMMAND test_tile)
endif()

if(TESSERA_GTEST)
  find_package(GTest REQUIRED)
  add_executable(gtest_all tests/cpp/gtest_blur.cpp)
  target_link_libraries(gtest_all PRIVATE tessera GTest::gtest_main)
endif()

if(TESSERA_BENCH)
  include(FetchContent)
  FetchContent_Declare(benchmark
    GIT_REPOSITORY https://github.com/google/benchmark.git
    GIT_TAG v1.8.3)
  set(BENCHMARK_ENABLE_TESTING OFF)
  FetchContent_MakeAvailable(benchmark)
endif()

if(TESSERA_PYTHON)
  find_package(Python 3.10 REQUIRED COMPONENTS Interpreter Development.Module)
  find_package(pybind11 CONFIG REQUIRED)
  pybind11_add_module(_core python/bindings.cpp)
  target_link_libraries(_core PRIVATE tessera)
  install(TARGETS _core DESTINATION tessera)
endif()
"""
PRESETS = {
    "version": 3,
    "configurePresets": [
        {
            "name": "dev",
            "generator": "Ninja",
            "binaryDir": "build",
            "cacheVariables": {"CMAKE_BUILD_TYPE": "Debug", "TESSERA_PYTHON": "OFF"},
        },
        {
            "name": "asan",
            "inherits": "dev",
            "binaryDir": "build-asan",
            "cacheVariables": {"CMAKE_CXX_FLAGS": "-fsanitize=address,undefined -fno-omit-frame-pointer"},
        },
        {
            "name": "ci",
            "inherits": "dev",
            "binaryDir": "build-ci",
            "cacheVariables": {"CMAKE_BUILD_TYPE": "RelWithDebInfo", "TESSERA_WERROR": "ON"},
        },
    ],
    "buildPresets": [{"name": "dev", "configurePreset": "dev"}, {"name": "ci", "configurePreset": "ci"}],
}
TILE_HPP = """#pragma once
#include <cstddef>
#include <vector>

namespace tessera {

struct Tile {
    std::size_t x, y, width, height;
};

// Split a width x height image into tiles of at most `size` pixels a side, row by row.
std::vector<Tile> split(std::size_t width, std::size_t height, std::size_t size);

}  // namespace tessera
"""
TILE_CPP = """#include "tessera/tile.hpp"

#include <algorithm>

namespace tessera {

std::vector<Tile> split(std::size_t width, std::size_t height, std::size_t size) {
    std::vector<Tile> tiles;
    for (std::size_t y = 0; y < height; y += size) {
        for (std::size_t x = 0; x < width; x += size) {
            tiles.push_back({x, y, std::min(size, width - x), std::min(size, height - y)});
        }
    }
    return tiles;
}

}  // namespace tessera
"""
TILE_CPP_FLOOR = TILE_CPP.replace(
    "    for (std::size_t y = 0; y < height; y += size) {\n        for (std::size_t x = 0; x < width; x += size) {",
    "    for (std::size_t row = 0; row < height / size; ++row) {\n"
    "        for (std::size_t col = 0; col < width / size; ++col) {\n"
    "            std::size_t x = col * size, y = row * size;",
)
BLUR_HPP = """#pragma once
#include <cstddef>
#include <vector>

namespace tessera {

// Box blur of a row-major float image, radius pixels each side, edges clamped.
std::vector<float> box_blur(const float* pixels, std::size_t width, std::size_t height, int radius);

}  // namespace tessera
"""
BLUR_CPP = """#include "tessera/blur.hpp"

#include <algorithm>

namespace tessera {

std::vector<float> box_blur(const float* pixels, std::size_t width, std::size_t height, int radius) {
    std::vector<float> out(width * height);
    const long w = static_cast<long>(width), h = static_cast<long>(height);
    for (long y = 0; y < h; ++y) {
        for (long x = 0; x < w; ++x) {
            float sum = 0.0f;
            int count = 0;
            for (long dx = -radius; dx <= radius; ++dx) {
                long sx = std::clamp(x + dx, 0L, w - 1);
                sum += pixels[y * w + sx];
                ++count;
            }
            out[y * w + x] = sum / count;
        }
    }
    return out;
}

}  // namespace tessera
"""
BLUR_CPP_UNCLAMPED = BLUR_CPP.replace("std::clamp(x + dx, 0L, w - 1)", "std::max(x + dx, 0L)")
BLUR_CPP_UNUSED = BLUR_CPP.replace(
    "    std::vector<float> out", "    const float scale = 1.0f / (2 * radius + 1);\n    std::vector<float> out"
)
BLUR_CPP_SIGN = BLUR_CPP.replace(
    "    for (long y = 0; y < h; ++y) {", "    for (int y = 0; y < height; ++y) {"
).replace(
    "const long w = static_cast<long>(width), h = static_cast<long>(height);",
    "const long w = static_cast<long>(width);",
)
TEST_TILE = """#include <cstdio>

#include "tessera/tile.hpp"

int main() {
    auto tiles = tessera::split(300, 200, 128);
    if (tiles.size() != 6) {
        std::printf("split(300, 200, 128): expected 6 tiles, got %zu\\n", tiles.size());
        return 1;
    }
    if (tiles.back().width != 44 || tiles.back().height != 72) {
        std::printf("last tile is %zux%zu, expected 44x72\\n", tiles.back().width, tiles.back().height);
        return 1;
    }
    return 0;
}
"""
TEST_BLUR_ASAN = """#include <cstdio>
#include <vector>

#include "tessera/blur.hpp"

int main() {
    std::vector<float> image(7 * 3, 1.0f);
    auto out = tessera::box_blur(image.data(), 7, 3, 2);
    std::printf("%f\\n", out.back());
    return 0;
}
"""
GTEST_BLUR = "#include <gtest/gtest.h>\n\nTEST(Blur, Flat) { EXPECT_EQ(1, 1); }\n"
SPAN_HPP = """#pragma once
#include <cstddef>
#include <span>
#include <vector>

namespace tessera {

// Histogram of 8-bit pixel values, 256 bins.
std::vector<std::size_t> histogram(std::span<const unsigned char> pixels);

}  // namespace tessera
"""
SPAN_CPP = """#include "tessera/histogram.hpp"

namespace tessera {

std::vector<std::size_t> histogram(std::span<const unsigned char> pixels) {
    std::vector<std::size_t> bins(256);
    for (auto p : pixels) ++bins[p];
    return bins;
}

}  // namespace tessera
"""
RESAMPLE_HPP = """#pragma once
#include <cstddef>
#include <vector>

namespace tessera {

std::vector<float> resample(const std::vector<float>& pixels, std::size_t width, std::size_t height, double scale);

}  // namespace tessera
"""
RESAMPLE_CPP = """#include "tessera/resample.hpp"

namespace tessera {

std::vector<float> resample(const std::vector<float>& pixels, std::size_t width, std::size_t height, double scale) {
    std::size_t w = static_cast<std::size_t>(width * scale), h = static_cast<std::size_t>(height * scale);
    std::vector<float> out(w * h);
    for (std::size_t y = 0; y < h; ++y)
        for (std::size_t x = 0; x < w; ++x)
            out[y * w + x] = pixels[static_cast<std::size_t>(y / scale) * width + static_cast<std::size_t>(x / scale)];
    return out;
}

}  // namespace tessera
"""
TEST_RESAMPLE = """#include <cstdio>
#include <vector>

#include "tessera/resample.hpp"
#include "tessera/tile.hpp"

int main() {
    std::vector<float> image(16, 1.0f);
    auto out = tessera::resample(image, 4, 4, 0.5);
    std::printf("%zu %zu\\n", out.size(), tessera::split(4, 4, 2).size());
    return out.size() == 4 ? 0 : 1;
}
"""
CLAMP_HPP = """#pragma once

namespace tessera {

unsigned char clamp_u8(float value) {
    return value < 0.0f ? 0 : value > 255.0f ? 255 : static_cast<unsigned char>(value + 0.5f);
}

}  // namespace tessera
"""
USES_CLAMP = (
    '#include "tessera/clamp.hpp"\n\nnamespace tessera {\nunsigned char NAME(float v) { return clamp_u8(v); }\n}\n'
)
BAD_SEMICOLON = TILE_CPP.replace("    return tiles;", "    return tiles\n")
BAD_MEMBER = TEST_TILE.replace("tiles.back().width != 44", "tiles.back().widht != 44")
BAD_NARROWING = """#include <vector>

std::vector<unsigned char> lut(int level) {
    return {level, level, level};
}
"""

# ---- the Python package ------------------------------------------------------------------------

BINDINGS = """#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "tessera/blur.hpp"

namespace py = pybind11;

static py::array_t<float> box_blur(py::array_t<float, py::array::c_style> image, int radius) {
    if (image.ndim() != 2) throw py::value_error("box_blur expects a 2-D image");
    auto h = static_cast<std::size_t>(image.shape(0)), w = static_cast<std::size_t>(image.shape(1));
    auto out = tessera::box_blur(image.data(), w, h, radius);
    py::array_t<float> result({h, w});
    std::copy(out.begin(), out.end(), result.mutable_data());
    return result;
}

PYBIND11_MODULE(_core, m) {
    m.doc() = "tessera's C++ core";
    m.def("box_blur", &box_blur, py::arg("image"), py::arg("radius") = 1);
}
"""
PKG_INIT = (
    '"""Image tiling and filters."""\n\nfrom tessera._core import box_blur\n\n'
    '__all__ = ["box_blur"]\n__version__ = "0.4.0"\n'
)
PKG_FILTERS = """import numpy as np

from tessera import _core


def blur(image: np.ndarray, radius: int = 1) -> np.ndarray:
    return _core.box_blur(image, radius)
"""
PYPROJECT = """[build-system]
requires = ["scikit-build-core>=0.9", "pybind11>=2.12"]
build-backend = "scikit_build_core.build"

[project]
name = "tessera"
version = "0.4.0"
requires-python = ">=3.10"
dependencies = ["numpy>=1.24"]

[tool.scikit-build]
wheel.packages = ["src/tessera"]
cmake.define = {TESSERA_TESTS = "OFF"}

[tool.pytest.ini_options]
testpaths = ["tests/python"]
addopts = "--strict-markers"
markers = ["slow: runs over large images"]

[tool.mypy]
files = ["src/tessera"]
strict = true
"""
CONFTEST = """import numpy as np
import pytest


@pytest.fixture
def flat():
    return np.ones((8, 8), dtype=np.float32)
"""
TEST_BLUR_PY = """import numpy as np

from tessera import box_blur


def test_flat_image_stays_flat(flat):
    assert np.allclose(box_blur(flat, 2), 1.0)
"""
TEST_BLUR_FLOAT64 = """import numpy as np

from tessera import box_blur


def test_gradient_is_smoothed():
    image = np.linspace(0, 1, 64).reshape(8, 8)
    out = box_blur(image, 1)
    assert out.shape == (8, 8)
"""
TEST_BLUR_STRIDED = """import numpy as np

from tessera import box_blur


def test_every_other_column():
    image = np.arange(128, dtype=np.float32).reshape(8, 16)
    out = box_blur(image[:, ::2], 1)
    assert out.shape == (8, 8)
"""
TEST_BLUR_EXACT = """import numpy as np

from tessera import box_blur


def reference(image, radius):
    padded = np.pad(image.astype(np.float64), ((0, 0), (radius, radius)), mode="edge")
    return np.stack([padded[:, i : i + image.shape[1]] for i in range(2 * radius + 1)]).mean(axis=0)


def test_matches_reference():
    rng = np.random.default_rng(7)
    image = rng.random((16, 16), dtype=np.float32)
    np.testing.assert_allclose(box_blur(image, 2), reference(image, 2))
"""
TEST_MARKER = """import numpy as np
import pytest

from tessera import box_blur


@pytest.mark.bench
def test_large_image():
    assert box_blur(np.zeros((512, 512), dtype=np.float32), 3).shape == (512, 512)
"""
TEST_UTILS = "def test_roundtrip():\n    assert True\n"
TEST_HISTO = """import numpy as np


def bins(values, count):
    return np.histogram(values, bins=count, range=(0, 256))[0]


def test_histogram_bins():
    assert len(bins(np.arange(256), 16)) == 32
"""
CORE_CALL = "from tessera import _core\n\n\ndef version() -> str:\n    return str(_core.__doc__)\n"

BUILD_CORE = (
    "c++ -O1 -shared -fPIC -std=c++17 -Iinclude $(python -m pybind11 --includes) python/bindings.cpp src/cpp/blur.cpp "
    "-o src/tessera/_core$(python -c \"import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))\")"
)

# ---- the docs site and scripts -----------------------------------------------------------------

DOCS_PACKAGE = {
    "name": "tessera-docs",
    "private": True,
    "type": "module",
    "scripts": {"build": "node build.mjs", "check": "node check-links.mjs", "test": "node --test"},
    "dependencies": {"marked": "^12.0.0"},
}
DOCS_BUILD = """import { readFileSync, writeFileSync, mkdirSync, readdirSync } from "node:fs";
import { marked } from "marked";

mkdirSync("_site", { recursive: true });
for (const name of readdirSync("guide")) {
  const html = marked.parse(readFileSync(`guide/${name}`, "utf8"));
  writeFileSync(`_site/${name.replace(/\\.md$/, ".html")}`, html);
}
console.log("built", readdirSync("_site").length, "pages");
"""
DOCS_CHECK = """import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";

let broken = 0;
for (const name of readdirSync("guide")) {
  const text = readFileSync(join("guide", name), "utf8");
  for (const [, target] of text.matchAll(/\\]\\(([^)#]+\\.md)\\)/g)) {
    if (!existsSync(join("guide", dirname(name), target))) {
      console.error(`broken link in guide/${name}: ${target}`);
      broken++;
    }
  }
}
if (broken) {
  console.error(`${broken} broken link(s); fix them or list the page in redirects.json`);
  process.exit(1);
}
console.log("links ok");
"""
DOCS_TOC = """const { readdirSync } = require("node:fs");

for (const name of readdirSync("guide")) console.log(`- [${name}](${name})`);
"""
DOCS_NAV = """import test from "node:test";
import assert from "node:assert";

const nav = ["index.md", "tiles.md", "filters.md"];

test("nav lists the api page", () => {
  assert.ok(nav.includes("api.md"), "api.md missing from nav");
});
"""
DOCS_SEARCH = """import { readFileSync } from "node:fs";

const pages = JSON.parse(readFileSync("search-index.json", "utf8"));
console.log(pages.lenght.toFixed(0), "pages indexed");
console.log(pageCount);
"""
GUIDE_INDEX = "# tessera\n\nSee [tiles](tiles.md) and [filters](filters.md).\n"
GUIDE_TILES = "# Tiles\n\nTiles are split row by row. Resampling is described in [resample](api/resample.md).\n"
GUIDE_FILTERS = "# Filters\n\n`box_blur(image, radius)` takes a float32 image.\n"


def docs(files: dict[str, str] | None = None) -> dict[str, str]:
    base = {
        "docs/package.json": json.dumps(DOCS_PACKAGE, indent=2) + "\n",
        "docs/build.mjs": DOCS_BUILD,
        "docs/check-links.mjs": DOCS_CHECK,
        "docs/guide/index.md": GUIDE_INDEX,
        "docs/guide/tiles.md": "# Tiles\n\nTiles are split row by row.\n",
        "docs/guide/filters.md": GUIDE_FILTERS,
    }
    return {**base, **(files or {})}


RELEASE = """#!/usr/bin/env bash
# Tag a release: VERSION=0.4.1 scripts/release.sh
set -euo pipefail

cd "$(dirname "$0")/.."
py_version=$(sed -n 's/^version = "\\(.*\\)"/\\1/p' pyproject.toml)
cmake_version=$(sed -n 's/^project(tessera VERSION \\([0-9.]*\\).*/\\1/p' CMakeLists.txt)
if [ "$VERSION" != "$py_version" ] || [ "$VERSION" != "$cmake_version" ]; then
  echo "version mismatch: VERSION=$VERSION, pyproject.toml $py_version, CMakeLists.txt $cmake_version" >&2
  exit 1
fi
git diff --quiet || { echo "working tree not clean" >&2; exit 1; }
git tag -a "v$VERSION" -m "tessera $VERSION"
echo "tagged v$VERSION; push with: git push origin v$VERSION"
"""
GEN_SH = '#!/bin/sh\necho "generating test images"\n'
MAKEFILE = """.PHONY: build test docs

build:
\tcmake --build --preset dev

test: build
\tctest --test-dir build --output-on-failure

docs:
\tcd docs && npm run build
"""
LOADER = """import json


def load(path):
    with open(path) as handle:
        config = json.load(handle)
    return config["tiles"]["size"], config["filters"]["radius"]


print(load("tessera.json"))
"""
SCALE = """def scale_factor(width, target):
    return target / width


print(scale_factor(0, 256))
"""
BAD_SYNTAX = "def tiles(n:\n    return n\n"
MAP_KEY = """#include <map>
#include <string>

struct TileKey {
    int x, y;
};

std::map<TileKey, std::string> names;

void remember(int x, int y) { names[{x, y}] = "tile"; }
"""
PLOT = "import matplotlib.pyplot as plt\n\nplt.plot([1, 2, 3])\nplt.savefig('bench/blur.png')\n"
NONE_ATTR = """import re

match = re.match(r"v(\\d+)\\.(\\d+)", "release-0.4")
print(match.group(1))
"""


def core(files: dict[str, str] | None = None, extra: str = "") -> dict[str, str]:
    """The C++ core: CMake project, headers, sources and the C++ test."""
    base = {
        "CMakeLists.txt": CMAKE.replace("@EXTRA_SOURCES@", extra),
        "CMakePresets.json": json.dumps(PRESETS, indent=2) + "\n",
        "include/tessera/tile.hpp": TILE_HPP,
        "include/tessera/blur.hpp": BLUR_HPP,
        "src/cpp/tile.cpp": TILE_CPP,
        "src/cpp/blur.cpp": BLUR_CPP,
        "tests/cpp/test_tile.cpp": TEST_TILE,
        "python/bindings.cpp": BINDINGS,
    }
    return {**base, **(files or {})}


def package(files: dict[str, str] | None = None) -> dict[str, str]:
    """The core with the Python package and its tests."""
    base = {
        "pyproject.toml": PYPROJECT,
        "src/tessera/__init__.py": PKG_INIT,
        "src/tessera/filters.py": PKG_FILTERS,
        "tests/python/conftest.py": CONFTEST,
        "tests/python/test_blur.py": TEST_BLUR_PY,
    }
    return core({**base, **(files or {})})


NO_PY = " -DTESSERA_PYTHON=OFF"
CONF = "cmake -S . -B build -G Ninja"
PYTEST = "PYTHONPATH=src python -m pytest -q -p no:cacheprovider "
LINK_NODE = 'ln -s "$FRESH3_NODE_MODULES" docs/node_modules'
GIT_BASE = ["git init -q -b main", "git add -A", "git commit -qm base"]

# id: (tool, files, setup commands, command)
CASES: dict[str, tuple[str, dict[str, str], list[str], str]] = {
    # CMake configure and build
    "fresh3-cmake-no-pybind11": ("cmake", core(), [], CONF),
    "fresh3-cmake-no-gtest": (
        "cmake",
        core({"tests/cpp/gtest_blur.cpp": GTEST_BLUR}),
        [],
        CONF + NO_PY + " -DTESSERA_GTEST=ON",
    ),
    "fresh3-cmake-generator-mismatch": ("cmake", core(), ["cmake -S . -B build" + NO_PY], CONF + NO_PY),
    "fresh3-cmake-cache-moved": (
        "cmake",
        core(),
        ["mkdir ../old && cp -r . ../old/tessera && cmake -S ../old/tessera -B build -G Ninja" + NO_PY],
        CONF + NO_PY,
    ),
    "fresh3-cmake-fetch-offline": (
        "cmake",
        core(),
        [],
        CONF + NO_PY + " -DTESSERA_BENCH=ON",
    ),
    "fresh3-cmake-no-preset": ("cmake", core(), [], "cmake --preset release"),
    "fresh3-cmake-unknown-command": (
        "cmake",
        core({"CMakeLists.txt": CMAKE.replace("@EXTRA_SOURCES@", "").replace("add_library(", "add_libary(")}),
        [],
        CONF + NO_PY,
    ),
    "fresh3-ninja-unconfigured": ("ninja", core(), [], "ninja -C build"),
    "fresh3-ninja-unknown-target": (
        "ninja",
        core(),
        ["cmake --preset dev"],
        "cmake --build build --target docs_html",
    ),
    "fresh3-span-cxx17": (
        "cmake",
        core(
            {"include/tessera/histogram.hpp": SPAN_HPP, "src/cpp/histogram.cpp": SPAN_CPP}, "  src/cpp/histogram.cpp\n"
        ),
        ["cmake --preset dev"],
        "cmake --build --preset dev",
    ),
    "fresh3-undefined-resample": (
        "cmake",
        core(
            {
                "include/tessera/resample.hpp": RESAMPLE_HPP,
                "src/cpp/resample.cpp": RESAMPLE_CPP,
                "tests/cpp/test_tile.cpp": TEST_RESAMPLE,
            }
        ),
        ["cmake --preset dev"],
        "cmake --build --preset dev",
    ),
    "fresh3-multiple-definition": (
        "cmake",
        core(
            {
                "include/tessera/clamp.hpp": CLAMP_HPP,
                "src/cpp/to_gray.cpp": USES_CLAMP.replace("NAME", "to_gray"),
                "src/cpp/to_u8.cpp": USES_CLAMP.replace("NAME", "to_u8"),
            },
            "  src/cpp/to_gray.cpp\n  src/cpp/to_u8.cpp\n",
        ),
        ["cmake --preset dev", "cmake -S . -B build -DBUILD_SHARED_LIBS=ON"],
        "cmake --build --preset dev",
    ),
    "fresh3-werror-unused": (
        "cmake",
        core({"src/cpp/blur.cpp": BLUR_CPP_UNUSED}),
        ["cmake --preset ci"],
        "cmake --build --preset ci",
    ),
    "fresh3-werror-sign-compare": (
        "cmake",
        core({"src/cpp/blur.cpp": BLUR_CPP_SIGN}),
        ["cmake --preset ci"],
        "cmake --build --preset ci",
    ),
    "fresh3-ctest-tile-split": (
        "ctest",
        core({"src/cpp/tile.cpp": TILE_CPP_FLOOR}),
        ["cmake --preset dev", "cmake --build --preset dev"],
        "ctest --test-dir build --output-on-failure",
    ),
    "fresh3-ctest-no-tests": (
        "ctest",
        core(),
        ["cmake --preset dev", "cmake --build --preset dev"],
        "ctest --no-tests=error",
    ),
    "fresh3-asan-blur-edge": (
        "g++",
        core({"src/cpp/blur.cpp": BLUR_CPP_UNCLAMPED, "tests/cpp/test_blur.cpp": TEST_BLUR_ASAN}),
        [],
        "g++ -std=c++17 -g -fsanitize=address -Iinclude src/cpp/blur.cpp tests/cpp/test_blur.cpp -o test_blur"
        " && ./test_blur",
    ),
    "fresh3-gxx-semicolon": (
        "cmake",
        core({"src/cpp/tile.cpp": BAD_SEMICOLON}),
        ["cmake --preset dev"],
        "cmake --build --preset dev",
    ),
    "fresh3-gxx-no-member": (
        "cmake",
        core({"tests/cpp/test_tile.cpp": BAD_MEMBER}),
        ["cmake --preset dev"],
        "cmake --build --preset dev",
    ),
    "fresh3-gxx-narrowing": (
        "g++",
        {"src/cpp/lut.cpp": BAD_NARROWING},
        [],
        "g++ -std=c++17 -c src/cpp/lut.cpp -o /dev/null",
    ),
    # the Python package
    "fresh3-pytest-no-core": ("pytest", package(), [], PYTEST),
    "fresh3-pytest-float64": (
        "pytest",
        package({"tests/python/test_gradient.py": TEST_BLUR_FLOAT64}),
        [BUILD_CORE],
        PYTEST + "tests/python/test_gradient.py",
    ),
    "fresh3-pytest-strided": (
        "pytest",
        package({"tests/python/test_strided.py": TEST_BLUR_STRIDED}),
        [BUILD_CORE],
        PYTEST + "tests/python/test_strided.py",
    ),
    "fresh3-pytest-allclose": (
        "pytest",
        package({"tests/python/test_reference.py": TEST_BLUR_EXACT}),
        [BUILD_CORE],
        PYTEST + "tests/python/test_reference.py",
    ),
    "fresh3-pytest-marker": (
        "pytest",
        package({"tests/python/test_large.py": TEST_MARKER}),
        [BUILD_CORE],
        PYTEST + "tests/python",
    ),
    "fresh3-pytest-import-mismatch": (
        "pytest",
        package({"tests/python/io/test_utils.py": TEST_UTILS, "tests/python/core/test_utils.py": TEST_UTILS}),
        [BUILD_CORE],
        PYTEST + "tests/python",
    ),
    "fresh3-pytest-histogram": (
        "pytest",
        package({"tests/python/test_histogram.py": TEST_HISTO}),
        [],
        PYTEST + "tests/python/test_histogram.py",
    ),
    "fresh3-mypy-core": ("mypy-cli", package({"src/tessera/info.py": CORE_CALL}), [], "mypy"),
    "fresh3-python-keyerror": (
        "python",
        {"scripts/load_config.py": LOADER, "tessera.json": '{"tiles": {"size": 256}, "filter": {"radius": 2}}\n'},
        [],
        "python scripts/load_config.py",
    ),
    "fresh3-python-zerodivision": ("python", {"scripts/scale.py": SCALE}, [], "python scripts/scale.py"),
    "fresh3-python-syntax": ("python", {"scripts/tiles.py": BAD_SYNTAX}, [], "python scripts/tiles.py"),
    "fresh3-python-none-group": ("python", {"scripts/tag_version.py": NONE_ATTR}, [], "python scripts/tag_version.py"),
    "fresh3-python-json-decode": (
        "python",
        {"bench/results.json": '{"blur": [1.2, 1.3,]}\n'},
        [],
        "python -c 'import json; print(json.load(open(\"bench/results.json\")))'",
    ),
    # the docs site
    "fresh3-docs-no-marked": ("node", docs(), [], "cd docs && node build.mjs"),
    "fresh3-docs-npm-ci-root": ("npm", docs(), [], "npm ci"),
    "fresh3-docs-require-esm": ("node", docs({"docs/toc.js": DOCS_TOC}), [], "cd docs && node toc.js"),
    "fresh3-docs-broken-link": ("node", docs({"docs/guide/tiles.md": GUIDE_TILES}), [], "cd docs && npm run check"),
    "fresh3-docs-missing-script": ("npm", docs(), [], "cd docs && npm run serve"),
    "fresh3-docs-test-nav": ("node", docs({"docs/nav.test.mjs": DOCS_NAV}), [], "cd docs && node --test"),
    "fresh3-docs-typo": (
        "node",
        docs({"docs/search.mjs": DOCS_SEARCH, "docs/search-index.json": '[{"page": "index"}]\n'}),
        [],
        "cd docs && node search.mjs",
    ),
    # release scripts, git and the shell
    "fresh3-release-no-version": (
        "bash",
        {**package(), "scripts/release.sh": RELEASE},
        [*GIT_BASE],
        "bash scripts/release.sh",
    ),
    "fresh3-release-mismatch": (
        "bash",
        {**package(), "pyproject.toml": PYPROJECT.replace('"0.4.0"', '"0.4.1"'), "scripts/release.sh": RELEASE},
        [*GIT_BASE],
        "VERSION=0.4.1 bash scripts/release.sh",
    ),
    "fresh3-release-tag-exists": (
        "git",
        {**package(), "scripts/release.sh": RELEASE},
        [*GIT_BASE, "git tag -a v0.4.0 -m 'tessera 0.4.0'"],
        "VERSION=0.4.0 bash scripts/release.sh",
    ),
    "fresh3-git-merge-conflict": (
        "git",
        {"README.md": "# tessera\n\nImage tiles.\n"},
        [
            *GIT_BASE,
            "git checkout -qb resample && echo 'Image tiles and resampling.' > README.md && git commit -qam resample",
            "git checkout -q main && echo 'Image tiles and filters.' > README.md && git commit -qam filters",
        ],
        "git merge resample",
    ),
    "fresh3-git-checkout-dirty": (
        "git",
        {"src/cpp/tile.cpp": TILE_CPP},
        [
            *GIT_BASE,
            "git checkout -qb other && echo '// other' >> src/cpp/tile.cpp && git commit -qam other",
            "git checkout -q main && echo '// wip' >> src/cpp/tile.cpp",
        ],
        "git checkout other",
    ),
    "fresh3-make-no-rule": ("make", {"Makefile": MAKEFILE}, [], "make bench"),
    "fresh3-clang-format-missing": ("bash", core(), [], "clang-format -i src/cpp/*.cpp"),
    "fresh3-script-not-executable": ("sh", {"scripts/gen_images.sh": GEN_SH}, [], "./scripts/gen_images.sh"),
    "fresh3-jq-parse": ("jq", {"bench/out.json": "{blur: 1.2}\n"}, [], "jq .blur bench/out.json"),
    "fresh3-sqlite-no-table": (
        "sqlite3",
        {},
        ["sqlite3 cache.db 'create table meta (k text)'"],
        "sqlite3 cache.db 'select count(*) from tiles'",
    ),
    "fresh3-cp-missing": ("sh", core(), [], "cp build/_core*.so src/tessera/"),
    "fresh3-gxx-map-key": (
        "g++",
        {"src/cpp/names.cpp": MAP_KEY},
        [],
        "g++ -std=c++17 -c src/cpp/names.cpp -o /dev/null",
    ),
    "fresh3-pytest-no-file": ("pytest", package(), [], PYTEST + "tests/python/test_resample.py"),
    "fresh3-git-push-no-remote": ("git", {"README.md": "# tessera\n"}, GIT_BASE, "git push origin main"),
    "fresh3-python-no-matplotlib": ("python", {"scripts/plot_bench.py": PLOT}, [], "python scripts/plot_bench.py"),
    "fresh3-tar-missing": ("sh", {}, [], "tar -xzf assets/sample-images.tar.gz -C tests/data"),
    "fresh3-diff-golden": (
        "sh",
        {"tests/golden/tiles.txt": "0 0 128 128\n128 0 128 128\n", "out/tiles.txt": "0 0 128 128\n128 0 44 128\n"},
        [],
        "diff -u tests/golden/tiles.txt out/tiles.txt",
    ),
    # commands that succeed
    "fresh3-ok-configure": (
        "cmake",
        core(),
        [],
        CONF + ' -Dpybind11_DIR="$(python -m pybind11 --cmakedir)"',
    ),
    "fresh3-ok-ctest": (
        "ctest",
        core(),
        ["cmake --preset dev", "cmake --build --preset dev"],
        "ctest --test-dir build",
    ),
    "fresh3-ok-pytest": ("pytest", package(), [BUILD_CORE], PYTEST),
    "fresh3-ok-docs-check": ("node", docs(), [], "cd docs && npm run check"),
    "fresh3-ok-git-status": ("git", {"README.md": "# tessera\n"}, GIT_BASE, "git status --short --branch"),
}

HOME = os.path.expanduser("~")


def main(argv: list[str] | None = None) -> int:
    shown = {HOME + "/": "/home/dev/"}  # this machine's home (its pyenv), as a developer's
    if modules := os.environ.get("FRESH3_NODE_MODULES", ""):  # the linked node_modules, where a developer's would be
        shown = {modules.rstrip("/") + "/": capture.SHOWN_ROOT + "/docs/node_modules/", **shown}
    return capture.main(argv, CASES, shown)


if __name__ == "__main__":
    raise SystemExit(main())
