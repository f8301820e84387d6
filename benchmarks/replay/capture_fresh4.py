"""Record the real command output of the `fresh4` replay set: capture.py's runner, with cases of its own.

    PATH=VENV/bin:$PATH python3 benchmarks/replay/capture_fresh4.py > benchmarks/replay/fresh4.jsonl

The cases are failures (and a few successes) of one delivery-tracking project, `haul`: a Go 1.19
HTTP service using only the standard library (cmd/hauld, internal/), a Java client library
compiled by a plain javac script for Java 11 with a JDK 17 (client/), SQL migrations written for
Postgres and checked by applying them to sqlite3 (migrations/, scripts/), a Python CSV export
with pytest tests (tools/), and shell deploy scripts reading a jq-parsed target list (deploy/),
tied together by a Makefile. VENV is a Python 3.11 virtualenv with pytest. Go, the JDK, sqlite3,
jq, git and make are Debian's; the machine has no module proxy or Maven access. Each case runs
in a fresh folder as capture.py does; nothing here knows the set's notes or labels
(sets/fresh4.json).
"""

from __future__ import annotations

import getpass
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import capture

capture.VERSION.update(
    {
        "java": "java -version",
        "bash": "bash --version",
        "jq": "jq --version",
        "sqlite3": "sqlite3 --version",
        "gofmt": "go version",
        "psql": "psql --version",
    }
)

# ---- the repository's top level -----------------------------------------------------------------

README = """# haul

Delivery tracking: the `hauld` HTTP service, a Java client for customers, the database
migrations, a CSV export for the warehouse and the deploy scripts.

    make check        # go vet + tests, client tests, migration check, export tests
    make run          # hauld on :8080 with the in-memory store
    make dev-db       # data/dev.db from migrations/ and scripts/seed_dev.sql

| dir          | what                                              |
|--------------|---------------------------------------------------|
| cmd/hauld    | the service's main                                |
| internal/    | api (HTTP handlers), store (memory, pg), track (ETA) |
| client/      | Java client library, built by client/build.sh     |
| migrations/  | NNN_description.sql, applied in order             |
| tools/       | export_deliveries.py and its tests                |
| deploy/      | deploy.sh, targets.json, the systemd unit         |
"""
MAKEFILE = """GO ?= go
PY ?= python3

.PHONY: check build test vet fmt-check client client-test migrations dev-db export-test run deploy-staging

check: vet test fmt-check client-test migrations export-test

build:
\t$(GO) build -o bin/hauld ./cmd/hauld

test:
\t$(GO) test -short ./...

vet:
\t$(GO) vet ./...

fmt-check:
\t@out=$$(gofmt -l cmd internal); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

client:
\tclient/build.sh

client-test:
\tclient/build.sh test

migrations:
\tscripts/check_migrations.sh

dev-db:
\trm -f data/dev.db && mkdir -p data
\tscripts/check_migrations.sh data/dev.db

export-test:
\t$(PY) -m pytest -q tools

run: build
\tHAUL_STORE=memory ./bin/hauld

deploy-staging:
\tDEPLOY_ENV=staging deploy/deploy.sh
"""
EDITORCONFIG = """root = true

[*]
end_of_line = lf
insert_final_newline = true

[Makefile]
indent_style = tab

[*.{go}]
indent_style = tab

[*.{java,py,sh,sql}]
indent_style = space
indent_size = 4
"""
GITIGNORE = "bin/\ndata/\nclient/out/\n__pycache__/\n.pytest_cache/\n"
GO_MOD = "module haul.example/haul\n\ngo 1.19\n"

# ---- the Go service -------------------------------------------------------------------------------

STORE_GO = """package store

import (
\t"errors"
\t"sync"
\t"time"
)

// Status values; keep in step with client/src/com/haul/client/Delivery.java and the CHECK in
// migrations/001_init.sql.
const (
\tCreated   = "created"
\tPickedUp  = "picked_up"
\tInTransit = "in_transit"
\tDelivered = "delivered"
\tReturned  = "returned"
)

var ErrNotFound = errors.New("delivery not found")

func ValidStatus(s string) bool {
\tswitch s {
\tcase Created, PickedUp, InTransit, Delivered, Returned:
\t\treturn true
\t}
\treturn false
}

type Delivery struct {
\tTrackingCode string    `json:"tracking_code"`
\tStatus       string    `json:"status"`
\tCourier      string    `json:"courier,omitempty"`
\tUpdatedAt    time.Time `json:"updated_at"`
}

type Store interface {
\tGet(code string) (Delivery, error)
\tPut(d Delivery) error
}

// Memory is the store of tests and local runs.
type Memory struct {
\tmu   sync.Mutex
\trows map[string]Delivery
}

func NewMemory() *Memory { return &Memory{rows: map[string]Delivery{}} }

func (m *Memory) Get(code string) (Delivery, error) {
\tm.mu.Lock()
\tdefer m.mu.Unlock()
\td, ok := m.rows[code]
\tif !ok {
\t\treturn Delivery{}, ErrNotFound
\t}
\treturn d, nil
}

func (m *Memory) Put(d Delivery) error {
\tm.mu.Lock()
\tdefer m.mu.Unlock()
\tm.rows[d.TrackingCode] = d
\treturn nil
}
"""
PG_GO = """//go:build pg

package store

import (
\t"database/sql"
\t"errors"

\t_ "github.com/lib/pq"
)

type PG struct{ db *sql.DB }

func OpenPG(dsn string) (*PG, error) {
\tdb, err := sql.Open("postgres", dsn)
\tif err != nil {
\t\treturn nil, err
\t}
\treturn &PG{db: db}, db.Ping()
}

func (p *PG) Get(code string) (Delivery, error) {
\tvar d Delivery
\terr := p.db.QueryRow(
\t\t`SELECT d.tracking_code, d.status, COALESCE(c.name, ''), d.updated_at
\t\t   FROM deliveries d LEFT JOIN couriers c ON c.id = d.courier_id
\t\t  WHERE d.tracking_code = $1`, code,
\t).Scan(&d.TrackingCode, &d.Status, &d.Courier, &d.UpdatedAt)
\tif errors.Is(err, sql.ErrNoRows) {
\t\treturn Delivery{}, ErrNotFound
\t}
\treturn d, err
}

func (p *PG) Put(d Delivery) error {
\t_, err := p.db.Exec(
\t\t`UPDATE deliveries SET status = $2, updated_at = CURRENT_TIMESTAMP WHERE tracking_code = $1`,
\t\td.TrackingCode, d.Status,
\t)
\treturn err
}
"""
HANDLERS_GO = """package api

import (
\t"encoding/json"
\t"errors"
\t"log"
\t"net/http"
\t"regexp"
\t"strings"
\t"time"

\t"haul.example/haul/internal/store"
)

var codePattern = regexp.MustCompile(`^HL[0-9]{10}$`)

func validCode(code string) bool { return codePattern.MatchString(code) }

type Server struct {
\tStore store.Store
\tNow   func() time.Time
}

func (s *Server) Routes() http.Handler {
\tmux := http.NewServeMux()
\tmux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok\\n")) })
\t// Go 1.19: patterns are plain paths, so the tracking code is the rest of the path.
\tmux.HandleFunc("/deliveries/", s.delivery)
\treturn mux
}

type update struct {
\tStatus  string `json:"status"`
\tCourier string `json:"courier"`
}

func (s *Server) delivery(w http.ResponseWriter, r *http.Request) {
\tcode := strings.TrimPrefix(r.URL.Path, "/deliveries/")
\tif !validCode(code) {
\t\thttp.Error(w, "invalid tracking code", http.StatusBadRequest)
\t\treturn
\t}
\tswitch r.Method {
\tcase http.MethodGet:
\t\td, err := s.Store.Get(code)
\t\tif errors.Is(err, store.ErrNotFound) {
\t\t\thttp.Error(w, "not found", http.StatusNotFound)
\t\t\treturn
\t\t}
\t\tif err != nil {
\t\t\tlog.Printf("msg=get_failed code=%s err=%q", code, err)
\t\t\thttp.Error(w, "internal error", http.StatusInternalServerError)
\t\t\treturn
\t\t}
\t\twriteJSON(w, d)
\tcase http.MethodPut:
\t\tvar u update
\t\tif err := json.NewDecoder(r.Body).Decode(&u); err != nil || !store.ValidStatus(u.Status) {
\t\t\thttp.Error(w, "invalid update", http.StatusBadRequest)
\t\t\treturn
\t\t}
\t\td := store.Delivery{TrackingCode: code, Status: u.Status, Courier: u.Courier, UpdatedAt: s.Now().UTC()}
\t\tif err := s.Store.Put(d); err != nil {
\t\t\thttp.Error(w, "internal error", http.StatusInternalServerError)
\t\t\treturn
\t\t}
\t\twriteJSON(w, d)
\tdefault:
\t\tw.Header().Set("Allow", "GET, PUT")
\t\thttp.Error(w, "method not allowed", http.StatusMethodNotAllowed)
\t}
}

func writeJSON(w http.ResponseWriter, v any) {
\tw.Header().Set("Content-Type", "application/json")
\tjson.NewEncoder(w).Encode(v)
}
"""
HANDLERS_TEST_GO = """package api

import (
\t"net/http"
\t"net/http/httptest"
\t"strings"
\t"testing"
\t"time"

\t"haul.example/haul/internal/store"
)

func newServer() http.Handler {
\tm := store.NewMemory()
\tm.Put(store.Delivery{TrackingCode: "HL0000000042", Status: store.InTransit, Courier: "Rapid"})
\ts := &Server{Store: m, Now: func() time.Time { return time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC) }}
\treturn s.Routes()
}

func get(t *testing.T, path string) *httptest.ResponseRecorder {
\tt.Helper()
\trec := httptest.NewRecorder()
\tnewServer().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
\treturn rec
}

func TestGetDelivery(t *testing.T) {
\trec := get(t, "/deliveries/HL0000000042")
\tif rec.Code != http.StatusOK {
\t\tt.Fatalf("status = %d, want 200", rec.Code)
\t}
\tif !strings.Contains(rec.Body.String(), `"tracking_code":"HL0000000042"`) {
\t\tt.Fatalf("body = %s", rec.Body.String())
\t}
}

func TestUnknownCode(t *testing.T) {
\tif rec := get(t, "/deliveries/HL9999999999"); rec.Code != http.StatusNotFound {
\t\tt.Fatalf("status = %d, want 404", rec.Code)
\t}
}

func TestInvalidCode(t *testing.T) {
\tif rec := get(t, "/deliveries/42"); rec.Code != http.StatusBadRequest {
\t\tt.Fatalf("status = %d, want 400", rec.Code)
\t}
}
"""
ETA_GO = """package track

import "time"

// CutOff is the hour (in the depot's zone) after which a pickup is dispatched the next working day.
const CutOff = 14

// ETA is the expected delivery day of a parcel picked up at `pickedUp`: dispatched the same day
// when picked up before the cut-off in the depot's zone, then `transitDays` working days later.
// Saturdays and Sundays are not working days; public holidays are not modelled.
func ETA(pickedUp time.Time, transitDays int, depot *time.Location) time.Time {
\tlocal := pickedUp.In(depot)
\tday := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, depot)
\tif local.Hour() >= CutOff {
\t\tday = nextWorkingDay(day)
\t}
\tfor i := 0; i < transitDays; i++ {
\t\tday = nextWorkingDay(day)
\t}
\treturn day
}

func nextWorkingDay(day time.Time) time.Time {
\tday = day.AddDate(0, 0, 1)
\tfor day.Weekday() == time.Saturday || day.Weekday() == time.Sunday {
\t\tday = day.AddDate(0, 0, 1)
\t}
\treturn day
}
"""
ETA_TEST_GO = """package track

import (
\t"testing"
\t"time"
)

func berlin(t *testing.T) *time.Location {
\tloc, err := time.LoadLocation("Europe/Berlin")
\tif err != nil {
\t\tt.Skip("no tzdata:", err)
\t}
\treturn loc
}

func TestETAFriday(t *testing.T) {
\t// Friday 2026-03-06 09:00 UTC (10:00 in Berlin), two working days: Tuesday.
\tgot := ETA(time.Date(2026, 3, 6, 9, 0, 0, 0, time.UTC), 2, berlin(t))
\tif got.Weekday() != time.Tuesday || got.Day() != 10 {
\t\tt.Fatalf("ETA = %s, want Tuesday 2026-03-10", got.Format("Monday 2006-01-02"))
\t}
}

func TestETACutOff(t *testing.T) {
\t// Wednesday 13:30 UTC is 14:30 in Berlin: past the cut-off, one working day after Thursday.
\tgot := ETA(time.Date(2026, 3, 4, 13, 30, 0, 0, time.UTC), 1, berlin(t))
\tif got.Day() != 6 {
\t\tt.Fatalf("ETA = %s, want Friday 2026-03-06", got.Format("Monday 2006-01-02"))
\t}
}
"""
MAIN_GO = """package main

import (
\t"fmt"
\t"log"
\t"net/http"
\t"os"
\t"time"

\t"haul.example/haul/internal/api"
\t"haul.example/haul/internal/store"
)

var version = "dev" // set by deploy/deploy.sh with -ldflags -X main.version=...

func env(name, fallback string) string {
\tif v := os.Getenv(name); v != "" {
\t\treturn v
\t}
\treturn fallback
}

func openStore(kind string) (store.Store, error) {
\tswitch kind {
\tcase "memory":
\t\treturn store.NewMemory(), nil
\tcase "pg":
\t\treturn openPG(os.Getenv("HAUL_DSN"))
\t}
\treturn nil, fmt.Errorf("unknown store %q (want memory or pg)", kind)
}

func main() {
\taddr := env("HAUL_ADDR", ":8080")
\tst, err := openStore(env("HAUL_STORE", "memory"))
\tif err != nil {
\t\tlog.Fatalf("msg=startup_failed err=%q", err)
\t}
\tsrv := &api.Server{Store: st, Now: time.Now}
\tlog.Printf("msg=listening addr=%s version=%s", addr, version)
\tlog.Fatal(http.ListenAndServe(addr, srv.Routes()))
}
"""
MAIN_NOPG_GO = """//go:build !pg

package main

import (
\t"errors"

\t"haul.example/haul/internal/store"
)

func openPG(dsn string) (store.Store, error) {
\treturn nil, errors.New("hauld was built without the pg tag")
}
"""
MAIN_PG_GO = """//go:build pg

package main

import "haul.example/haul/internal/store"

func openPG(dsn string) (store.Store, error) { return store.OpenPG(dsn) }
"""

# ---- the Java client ------------------------------------------------------------------------------

BUILD_SH = """#!/usr/bin/env bash
# Build the Java client with plain javac (no Maven): `build.sh` compiles and packs out/haul-client.jar,
# `build.sh test` also runs the unit tests, `build.sh it` the integration test against a running hauld.
set -euo pipefail
cd "$(dirname "$0")"

RELEASE=11   # a customer still runs Java 11
rm -rf out
javac --release "$RELEASE" -Xlint:all -Werror -d out/classes $(find src -name '*.java')
jar --create --file out/haul-client.jar -C out/classes .

case "${1:-}" in
  test)
    javac --release "$RELEASE" -cp out/classes -d out/test $(find test -name '*Test.java')
    java -cp out/classes:out/test com.haul.client.HaulClientTest
    ;;
  it)
    javac --release "$RELEASE" -cp out/classes -d out/test test/com/haul/client/HaulClientIT.java
    java -cp out/classes:out/test com.haul.client.HaulClientIT "${HAUL_URL:-http://localhost:8080}"
    ;;
esac
"""
DELIVERY_JAVA = """package com.haul.client;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/** One delivery as hauld returns it. */
public final class Delivery {
    /** Same strings as internal/store/store.go and the CHECK in migrations/001_init.sql. */
    public static final Set<String> STATUSES =
            Set.of("created", "picked_up", "in_transit", "delivered", "returned");

    private final String trackingCode;
    private final String status;
    private final String courier;
    private final String updatedAt;

    public Delivery(String trackingCode, String status, String courier, String updatedAt) {
        if (!STATUSES.contains(status)) {
            throw new IllegalArgumentException("unknown status: " + status);
        }
        this.trackingCode = Objects.requireNonNull(trackingCode, "trackingCode");
        this.status = status;
        this.courier = courier;
        this.updatedAt = updatedAt;
    }

    static Delivery fromJson(Map<String, String> fields) {
        return new Delivery(
                fields.get("tracking_code"), fields.get("status"), fields.get("courier"), fields.get("updated_at"));
    }

    public String trackingCode() { return trackingCode; }
    public String status() { return status; }
    public String courier() { return courier; }
    public String updatedAt() { return updatedAt; }

    @Override
    public String toString() { return trackingCode + " " + status; }
}
"""
JSON_JAVA = """package com.haul.client;

import java.util.LinkedHashMap;
import java.util.Map;

/** Just enough JSON for hauld's flat objects of strings: no dependency for customers to ship. */
final class Json {
    private Json() {}

    static Map<String, String> parseObject(String text) {
        Map<String, String> out = new LinkedHashMap<>();
        String body = text.trim();
        if (!body.startsWith("{") || !body.endsWith("}")) {
            throw new IllegalArgumentException("not a JSON object: " + text);
        }
        int i = 1;
        while (i < body.length() - 1) {
            int keyStart = body.indexOf('"', i);
            if (keyStart < 0) break;
            int keyEnd = body.indexOf('"', keyStart + 1);
            int colon = body.indexOf(':', keyEnd);
            int valueStart = body.indexOf('"', colon);
            int valueEnd = body.indexOf('"', valueStart + 1);
            out.put(body.substring(keyStart + 1, keyEnd), body.substring(valueStart + 1, valueEnd));
            i = valueEnd + 1;
        }
        return out;
    }
}
"""
CLIENT_JAVA = """package com.haul.client;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/** Client for hauld's delivery API. Methods throw IOException on purpose: callers handle outages. */
public final class HaulClient {
    private final HttpClient http;
    private final String baseUrl;

    public HaulClient(String baseUrl) {
        this.baseUrl = baseUrl.replaceAll("/+$", "");
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    }

    /** The delivery with this tracking code, or empty when hauld answers 404. */
    public Optional<Delivery> get(String trackingCode) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + "/deliveries/" + trackingCode))
                .timeout(Duration.ofSeconds(5))
                .GET()
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 404) {
            return Optional.empty();
        }
        if (response.statusCode() != 200) {
            throw new IOException("hauld answered " + response.statusCode() + ": " + response.body().trim());
        }
        return Optional.of(Delivery.fromJson(Json.parseObject(response.body())));
    }
}
"""
CLIENT_TEST_JAVA = """package com.haul.client;

import java.util.Map;

/** Unit tests, run by `client/build.sh test`: a plain main with check(), no JUnit. */
public final class HaulClientTest {
    static int failures = 0;

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException("check failed: " + what);
        }
    }

    public static void main(String[] args) {
        Map<String, String> fields = Json.parseObject(
                "{\\"tracking_code\\":\\"HL0000000042\\",\\"status\\":\\"in_transit\\",\\"courier\\":\\"Rapid\\"}");
        check("HL0000000042".equals(fields.get("tracking_code")), "tracking_code parsed");
        Delivery d = Delivery.fromJson(fields);
        check("in_transit".equals(d.status()), "status kept");
        check("Rapid".equals(d.courier()), "courier kept");
        System.out.println("HaulClientTest: 3 checks passed");
    }
}
"""
CLIENT_IT_JAVA = """package com.haul.client;

/** Integration test against a running hauld (`make run`), run by `client/build.sh it`. */
public final class HaulClientIT {
    public static void main(String[] args) throws Exception {
        HaulClient client = new HaulClient(args.length > 0 ? args[0] : "http://localhost:8080");
        if (client.get("HL9999999999").isPresent()) {
            throw new IllegalStateException("check failed: unknown code should be empty");
        }
        System.out.println("HaulClientIT: ok");
    }
}
"""

# ---- migrations, the check and the dev seed -------------------------------------------------------

MIG_001 = """-- The first schema. Written for Postgres and checked on sqlite3 (scripts/check_migrations.sh).
CREATE TABLE couriers (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);

CREATE TABLE deliveries (
    id INTEGER PRIMARY KEY,
    tracking_code TEXT NOT NULL UNIQUE,
    status TEXT NOT NULL DEFAULT 'created'
        CHECK (status IN ('created', 'picked_up', 'in_transit', 'delivered', 'returned')),
    updated_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);
"""
MIG_002 = """-- Which courier carries a delivery (nullable: unassigned until pickup).
ALTER TABLE deliveries ADD COLUMN courier_id INTEGER REFERENCES couriers (id);
"""
MIG_003 = """-- The status history of each delivery.
CREATE TABLE delivery_events (
    id INTEGER PRIMARY KEY,
    delivery_id INTEGER NOT NULL REFERENCES deliveries (id),
    status TEXT NOT NULL,
    at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE INDEX delivery_events_delivery ON delivery_events (delivery_id, at);
"""
SEED = """-- Development data for data/dev.db (make dev-db) and the migration check.
INSERT INTO couriers (id, name) VALUES (1, 'Rapid'), (2, 'Velo Express');

INSERT INTO deliveries (id, tracking_code, status, courier_id, updated_at) VALUES
    (1, 'HL0000000042', 'in_transit', 1, '2026-03-04 10:15:00'),
    (2, 'HL0000000043', 'delivered', 2, '2026-03-05 16:40:00'),
    (3, 'HL0000000044', 'created', NULL, '2026-03-06 08:05:00');

INSERT INTO delivery_events (delivery_id, status, at) VALUES
    (1, 'picked_up', '2026-03-03 09:00:00'),
    (1, 'in_transit', '2026-03-04 10:15:00'),
    (2, 'delivered', '2026-03-05 16:40:00');
"""
CHECK_SH = """#!/usr/bin/env bash
# Apply migrations/NNN_*.sql in name order, then scripts/seed_dev.sql, to a sqlite database:
# $1 when given (make dev-db), else a scratch one. Foreign keys are enforced as Postgres would.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=""
db="${1:-}"
if [ -z "$db" ]; then
    scratch="$(mktemp -d)"
    db="$scratch/check.db"
    trap 'rm -rf "$scratch"' EXIT
fi

for f in migrations/*.sql; do
    name="$(basename "$f")"
    if ! [[ $name =~ ^[0-9]{3}_[a-z0-9_]+\\.sql$ ]]; then
        echo "check_migrations: bad migration name: $name (want NNN_description.sql)" >&2
        exit 1
    fi
done

count=0
for f in migrations/*.sql scripts/seed_dev.sql; do
    echo "applying $f"
    sqlite3 -bail -cmd "PRAGMA foreign_keys = ON;" "$db" < "$f"
    count=$((count + 1))
done
echo "check_migrations: $count files applied"
"""

# ---- the Python export ----------------------------------------------------------------------------

EXPORT_PY = '''"""Export deliveries from a sqlite snapshot (data/dev.db by default) for the warehouse import.

    python3 tools/export_deliveries.py [--db data/dev.db] [--since 2026-03-01] [--format csv|jsonl] [--out FILE]
"""

from __future__ import annotations

import argparse
import csv
import json
import sqlite3
import sys
from datetime import date, datetime, timezone

# The warehouse contract: these columns, in this order.
COLUMNS = ["id", "tracking_code", "status", "courier", "updated_at"]

QUERY = """
SELECT d.id, d.tracking_code, d.status, c.name AS courier, d.updated_at
  FROM deliveries d LEFT JOIN couriers c ON c.id = d.courier_id
 WHERE d.updated_at >= ?
 ORDER BY d.id
"""


def utc_iso(value: str) -> str:
    """sqlite's CURRENT_TIMESTAMP text ('2026-03-04 10:15:00', UTC without a zone) as '2026-03-04T10:15:00Z'."""
    stamp = datetime.strptime(value, "%Y-%m-%d %H:%M:%S").replace(tzinfo=timezone.utc)
    return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")


def rows(db: str, since: date) -> list[dict[str, object]]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        found = conn.execute(QUERY, (since.isoformat(),)).fetchall()
    return [{**dict(row), "updated_at": utc_iso(row["updated_at"])} for row in found]


def write(records: list[dict[str, object]], fmt: str, out) -> None:
    if fmt == "jsonl":
        for record in records:
            out.write(json.dumps(record) + "\\n")
        return
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\\n")
    writer.writeheader()
    writer.writerows(records)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="data/dev.db")
    parser.add_argument("--since", type=date.fromisoformat, default=date(1970, 1, 1), help="YYYY-MM-DD")
    parser.add_argument("--format", choices=["csv", "jsonl"], default="csv")
    parser.add_argument("--out", default="-")
    args = parser.parse_args(argv)
    records = rows(args.db, args.since)
    if args.out == "-":
        write(records, args.format, sys.stdout)
    else:
        with open(args.out, "w", encoding="utf-8", newline="") as out:
            write(records, args.format, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
'''
CONFTEST_PY = '''import sqlite3
import sys
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent
sys.path.insert(0, str(TOOLS))


@pytest.fixture
def dev_db(tmp_path):
    """A sqlite database with every migration and the dev seed applied, as `make dev-db` builds it."""
    path = tmp_path / "dev.db"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA foreign_keys = ON")
        for sql in sorted((ROOT / "migrations").glob("*.sql")):
            conn.executescript(sql.read_text())
        conn.executescript((ROOT / "scripts" / "seed_dev.sql").read_text())
    return str(path)
'''
TEST_EXPORT_PY = """import io
import json
from datetime import date

import export_deliveries as export


def test_header_is_the_warehouse_contract(dev_db):
    out = io.StringIO()
    export.write(export.rows(dev_db, date(1970, 1, 1)), "csv", out)
    assert out.getvalue().splitlines()[0] == "id,tracking_code,status,courier,updated_at"


def test_timestamps_are_utc_with_z(dev_db):
    first = export.rows(dev_db, date(1970, 1, 1))[0]
    assert first["updated_at"] == "2026-03-04T10:15:00Z"


def test_since_filters(dev_db):
    codes = [r["tracking_code"] for r in export.rows(dev_db, date(2026, 3, 5))]
    assert codes == ["HL0000000043", "HL0000000044"]


def test_jsonl_has_courier(dev_db):
    out = io.StringIO()
    export.write(export.rows(dev_db, date(1970, 1, 1)), "jsonl", out)
    assert json.loads(out.getvalue().splitlines()[0])["courier"] == "Rapid"
"""

# ---- deploy ---------------------------------------------------------------------------------------

DEPLOY_SH = """#!/usr/bin/env bash
# Build hauld for linux/amd64 and ship it to the hosts of $DEPLOY_ENV (staging or production,
# listed in deploy/targets.json). DRY_RUN=1 prints the remote commands instead of running them.
set -euo pipefail
cd "$(dirname "$0")/.."

env_name="$DEPLOY_ENV"
if [ -n "$(git status --porcelain)" ]; then
    echo "deploy: working tree is dirty, commit or stash first" >&2
    exit 1
fi
version="$(git describe --tags)"
hosts="$(jq -r --arg env "$env_name" '.[$env].hosts[]' deploy/targets.json)"

CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -ldflags "-X main.version=$version" -o bin/hauld-linux-amd64 ./cmd/hauld

run() { if [ "${DRY_RUN:-0}" = 1 ]; then echo "+ $*"; else "$@"; fi; }
for host in $hosts; do
    run rsync -az bin/hauld-linux-amd64 "deploy@$host:/opt/hauld/hauld-$version"
    run ssh "deploy@$host" "ln -sfn /opt/hauld/hauld-$version /opt/hauld/hauld && sudo systemctl restart hauld"
done
echo "deploy: $version to $env_name"
"""
TARGETS_JSON = """{
  "staging": {"hosts": ["haul-stg-1.internal"]},
  "production": {"hosts": ["haul-prd-1.internal", "haul-prd-2.internal"]}
}
"""
CLIENT_README = """# haul-client

Java client for hauld's delivery API. Needs Java 11 or newer and nothing else.

```java
HaulClient client = new HaulClient("https://track.example.com");
client.get("HL0000000042").ifPresent(d -> System.out.println(d.status()));
```

Build the jar with `client/build.sh`; it ends up in client/out/haul-client.jar.
"""
SERVICE = """[Unit]
Description=haul delivery tracking service
After=network-online.target

[Service]
User=haul
EnvironmentFile=/etc/hauld.env
ExecStart=/opt/hauld/hauld
Restart=on-failure

[Install]
WantedBy=multi-user.target
"""
EXAMPLE_ENV = """# hauld's settings (copy to /etc/hauld.env on a host, or export them locally)
HAUL_ADDR=:8080
# memory (local runs, tests) or pg (needs a binary built with -tags pg)
HAUL_STORE=memory
# HAUL_DSN=postgres://haul@localhost:5432/haul?sslmode=disable
"""

FILES: dict[str, str] = {
    "README.md": README,
    "Makefile": MAKEFILE,
    ".editorconfig": EDITORCONFIG,
    ".gitignore": GITIGNORE,
    "go.mod": GO_MOD,
    "cmd/hauld/main.go": MAIN_GO,
    "cmd/hauld/store_nopg.go": MAIN_NOPG_GO,
    "cmd/hauld/store_pg.go": MAIN_PG_GO,
    "internal/api/handlers.go": HANDLERS_GO,
    "internal/api/handlers_test.go": HANDLERS_TEST_GO,
    "internal/store/store.go": STORE_GO,
    "internal/store/pg.go": PG_GO,
    "internal/track/eta.go": ETA_GO,
    "internal/track/eta_test.go": ETA_TEST_GO,
    "client/README.md": CLIENT_README,
    "client/build.sh": BUILD_SH,
    "client/src/com/haul/client/Delivery.java": DELIVERY_JAVA,
    "client/src/com/haul/client/Json.java": JSON_JAVA,
    "client/src/com/haul/client/HaulClient.java": CLIENT_JAVA,
    "client/test/com/haul/client/HaulClientTest.java": CLIENT_TEST_JAVA,
    "client/test/com/haul/client/HaulClientIT.java": CLIENT_IT_JAVA,
    "migrations/001_init.sql": MIG_001,
    "migrations/002_add_courier.sql": MIG_002,
    "migrations/003_delivery_events.sql": MIG_003,
    "scripts/seed_dev.sql": SEED,
    "scripts/check_migrations.sh": CHECK_SH,
    "tools/export_deliveries.py": EXPORT_PY,
    "tools/conftest.py": CONFTEST_PY,
    "tools/test_export_deliveries.py": TEST_EXPORT_PY,
    "deploy/deploy.sh": DEPLOY_SH,
    "deploy/targets.json": TARGETS_JSON,
    "deploy/hauld.service": SERVICE,
    "config/hauld.example.env": EXAMPLE_ENV,
}


def project(changes: dict[str, str] | None = None, drop: tuple[str, ...] = ()) -> dict[str, str]:
    """The repository's files with some replaced or added (`changes`) and some removed (`drop`)."""
    files = {name: text for name, text in FILES.items() if name not in drop}
    return {**files, **(changes or {})}


def edit(name: str, old: str, new: str) -> dict[str, str]:
    """One file of the repository with `old` replaced by `new` (which must be there)."""
    text = FILES[name]
    assert old in text, (name, old)
    return {name: text.replace(old, new, 1)}


# ---- variants the cases run: a developer's edit in progress ---------------------------------------

CHI_ROUTER = """package api

import (
\t"net/http"

\t"github.com/go-chi/chi/v5"
)

// Router is the chi version of Routes, with the method in the route.
func (s *Server) Router() http.Handler {
\tr := chi.NewRouter()
\tr.Get("/deliveries/{code}", s.delivery)
\tr.Put("/deliveries/{code}", s.delivery)
\treturn r
}
"""
MAIN_SLOG = edit("cmd/hauld/main.go", '\t"log"\n', '\t"log"\n\t"log/slog"\n')["cmd/hauld/main.go"].replace(
    '\tlog.Printf("msg=listening addr=%s version=%s", addr, version)',
    '\tslog.Info("listening", "addr", addr, "version", version)',
)
HANDLERS_PATHVALUE = (
    FILES["internal/api/handlers.go"]
    .replace('mux.HandleFunc("/deliveries/", s.delivery)', 'mux.HandleFunc("GET /deliveries/{code}", s.delivery)')
    .replace('code := strings.TrimPrefix(r.URL.Path, "/deliveries/")', 'code := r.PathValue("code")')
    .replace('\t"strings"\n', "")
)
HANDLERS_METHOD_PATTERN = FILES["internal/api/handlers.go"].replace(
    'mux.HandleFunc("/deliveries/", s.delivery)',
    'mux.HandleFunc("GET /deliveries/", s.delivery)\n\tmux.HandleFunc("PUT /deliveries/", s.delivery)',
)
STORE_LEN = FILES["internal/store/store.go"] + (
    "\n// Len is the number of deliveries held.\nfunc (m Memory) Len() int {\n\treturn len(m.rows)\n}\n"
)
ETA_UNFORMATTED = FILES["internal/track/eta.go"].replace(
    "func nextWorkingDay(day time.Time) time.Time {\n\tday = day.AddDate(0, 0, 1)",
    "func nextWorkingDay(day time.Time) time.Time{\n    day = day.AddDate(0,0,1)",
)
ETA_SUNDAY_ONLY = FILES["internal/track/eta.go"].replace(
    "\tfor day.Weekday() == time.Saturday || day.Weekday() == time.Sunday {",
    "\tif day.Weekday() == time.Sunday {",
)
STORE_NO_TAGS = (
    FILES["internal/store/store.go"]
    .replace('TrackingCode string    `json:"tracking_code"`', "TrackingCode string")
    .replace('Status       string    `json:"status"`', "Status       string")
    .replace('Courier      string    `json:"courier,omitempty"`', "Courier      string")
    .replace('UpdatedAt    time.Time `json:"updated_at"`', "UpdatedAt    time.Time")
)
DELIVERY_RECORD = """package com.haul.client;

import java.util.Map;
import java.util.Set;

/** One delivery as hauld returns it. */
public record Delivery(String trackingCode, String status, String courier, String updatedAt) {
    public static final Set<String> STATUSES =
            Set.of("created", "picked_up", "in_transit", "delivered", "returned");

    public Delivery {
        if (!STATUSES.contains(status)) {
            throw new IllegalArgumentException("unknown status: " + status);
        }
    }

    static Delivery fromJson(Map<String, String> fields) {
        return new Delivery(
                fields.get("tracking_code"), fields.get("status"), fields.get("courier"), fields.get("updated_at"));
    }
}
"""
CLIENT_JACKSON = (
    FILES["client/src/com/haul/client/HaulClient.java"]
    .replace(
        "import java.util.Optional;\n",
        "import java.util.Optional;\n\nimport com.fasterxml.jackson.databind.ObjectMapper;\n",
    )
    .replace(
        "    private final String baseUrl;\n",
        "    private final String baseUrl;\n    private final ObjectMapper mapper = new ObjectMapper();\n",
    )
)
DELIVERY_COURIER_NAME = FILES["client/src/com/haul/client/Delivery.java"].replace(
    'fields.get("courier")', 'fields.get("courier_name")'
)
CLIENT_EXISTS = FILES["client/src/com/haul/client/HaulClient.java"].replace(
    "\n    /** The delivery with this tracking code",
    "\n    /** Whether hauld knows this tracking code. */\n    public boolean exists(String trackingCode) {\n"
    "        return get(trackingCode).isPresent();\n    }\n\n    /** The delivery with this tracking code",
)
CLIENT_RAW_LIST = (
    FILES["client/src/com/haul/client/HaulClient.java"]
    .replace(
        "import java.util.Optional;\n",
        "import java.util.ArrayList;\nimport java.util.List;\nimport java.util.Optional;\n",
    )
    .replace(
        "\n    /** The delivery with this tracking code",
        "\n    /** Each code's delivery, skipping unknown codes. */\n"
        "    public List<Delivery> getAll(List<String> codes) throws IOException, InterruptedException {\n"
        "        List found = new ArrayList();\n"
        "        for (String code : codes) {\n"
        "            get(code).ifPresent(found::add);\n"
        "        }\n"
        "        return found;\n    }\n\n    /** The delivery with this tracking code",
    )
)
TEST_LOST = FILES["client/test/com/haul/client/HaulClientTest.java"].replace(
    '        System.out.println("HaulClientTest: 3 checks passed");',
    '        Delivery lost = new Delivery("HL0000000045", "lost", null, null);\n'
    '        check("lost".equals(lost.status()), "lost parcels keep their status");\n'
    '        System.out.println("HaulClientTest: 4 checks passed");',
)
MIG_004_CAST = """-- Deliveries created before events existed get a start time.
UPDATE deliveries SET updated_at = '2026-01-01 00:00:00'::timestamp WHERE updated_at IS NULL;
"""
MIG_004_IF_NOT_EXISTS = """-- The promised delivery day, shown to customers.
ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS eta DATE;
"""
MIG_004_NOT_NULL = """-- The promised delivery day, shown to customers.
ALTER TABLE deliveries ADD COLUMN eta DATE NOT NULL;
"""
SEED_FK = SEED.replace("(3, 'HL0000000044', 'created', NULL,", "(3, 'HL0000000044', 'picked_up', 3,")
SEED_LOST = SEED.replace("(3, 'HL0000000044', 'created', NULL,", "(3, 'HL0000000044', 'lost', 2,")
SEED_DUPLICATE = SEED.replace("(2, 'HL0000000043', 'delivered'", "(2, 'HL0000000042', 'delivered'")
EXPORT_REORDERED = FILES["tools/export_deliveries.py"].replace(
    'COLUMNS = ["id", "tracking_code", "status", "courier", "updated_at"]',
    'COLUMNS = ["id", "tracking_code", "courier", "status", "updated_at"]',
)
EXPORT_ISOFORMAT = FILES["tools/export_deliveries.py"].replace(
    '    return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")', "    return stamp.isoformat()"
)
EXPORT_SINCE_DATE = (
    FILES["tools/export_deliveries.py"]
    .replace(
        '    return [{**dict(row), "updated_at": utc_iso(row["updated_at"])} for row in found]',
        '    return [{**dict(row), "updated_at": utc_iso(row["updated_at"]), "since": since} for row in found]',
    )
    .replace(
        "    writer = csv.DictWriter(out, fieldnames=COLUMNS,",
        '    writer = csv.DictWriter(out, fieldnames=COLUMNS, extrasaction="ignore",',
    )
)
CARRIERS_PY = '''"""Print the couriers of tools/couriers.yaml that have no row in data/dev.db."""

import sqlite3

import yaml

with open("tools/couriers.yaml", encoding="utf-8") as handle:
    wanted = {entry["name"] for entry in yaml.safe_load(handle)["couriers"]}
with sqlite3.connect("data/dev.db") as conn:
    known = {name for (name,) in conn.execute("SELECT name FROM couriers")}
print("\\n".join(sorted(wanted - known)))
'''
TEST_EXPORT_DB_FIXTURE = (
    FILES["tools/test_export_deliveries.py"]
    + """

def test_unknown_courier_is_empty(db):
    records = export.rows(db, date(2026, 3, 6))
    assert records[0]["courier"] is None
"""
)
TARGETS_TRAILING_COMMA = """{
  "staging": {"hosts": ["haul-stg-1.internal"]},
  "production": {"hosts": ["haul-prd-1.internal", "haul-prd-2.internal"]},
}
"""
MAKEFILE_SPACES = FILES["Makefile"].replace(
    "test:\n\t$(GO) test -short ./...", "test:\n    $(GO) test -short -count=1 ./..."
)
HANDLERS_UNUSED = FILES["internal/api/handlers.go"].replace(
    "\tcase http.MethodPut:\n\t\tvar u update\n",
    "\tcase http.MethodPut:\n\t\tvar u update\n\t\tprevious, err := s.Store.Get(code)\n",
)
MAIN_NEWMEM = FILES["cmd/hauld/main.go"].replace("return store.NewMemory(), nil", "return store.NewMem(), nil")
TEST_NIL_MAP = (
    FILES["internal/api/handlers_test.go"]
    + """
func TestPutDelivery(t *testing.T) {
\ts := &Server{Store: &store.Memory{}, Now: time.Now}
\trec := httptest.NewRecorder()
\tbody := strings.NewReader(`{"status":"delivered"}`)
\ts.Routes().ServeHTTP(rec, httptest.NewRequest(http.MethodPut, "/deliveries/HL0000000042", body))
\tif rec.Code != http.StatusOK {
\t\tt.Fatalf("status = %d, want 200", rec.Code)
\t}
}
"""
)
HANDLERS_PRINTF = FILES["internal/api/handlers.go"].replace(
    'log.Printf("msg=get_failed code=%s err=%q", code, err)', 'log.Printf("msg=get_failed code=%d err=%q", code, err)'
)
ETA_MISSING_RETURN = (
    FILES["internal/track/eta.go"]
    + """
// IsLate reports whether a delivery promised for `eta` is late at `now`.
func IsLate(eta, now time.Time) bool {
\tif now.After(eta.AddDate(0, 0, 1)) {
\t\treturn true
\t}
}
"""
)
JSON_SEMICOLON = FILES["client/src/com/haul/client/Json.java"].replace("int i = 1;", "int i = 1")
CLIENT_INT_STATUS = FILES["client/src/com/haul/client/HaulClient.java"].replace(
    "        if (response.statusCode() == 404) {",
    '        int code = response.headers().firstValue("content-length").orElse("0");\n'
    "        if (response.statusCode() == 404) {",
)
DELIVERY_MISSING_RETURN = FILES["client/src/com/haul/client/Delivery.java"].replace(
    "    @Override\n",
    '    public boolean isFinal() {\n        if (status.equals("delivered") || status.equals("returned")) {\n'
    "            return true;\n        }\n    }\n\n    @Override\n",
)
TEST_TYPO = FILES["client/test/com/haul/client/HaulClientTest.java"].replace("Json.parseObject(\n", "Json.parseObj(\n")
GIT_BASE = ["git init -q -b main", "git add -A", "git commit -qm 'haul: initial import'"]
CHMOD = "chmod +x client/build.sh scripts/check_migrations.sh deploy/deploy.sh"
TAGGED = [CHMOD, *GIT_BASE, "git tag -a v0.7.0 -m 'haul 0.7.0'"]
PYTEST = "python3 -m pytest -q -p no:cacheprovider "

# id: (tool, files, setup commands, command)
CASES: dict[str, tuple[str, dict[str, str], list[str], str]] = {
    # the Go service
    "fresh4-go-chi-import": ("go", project({"internal/api/router.go": CHI_ROUTER}), [], "go build ./..."),
    "fresh4-go-slog": ("go", project({"cmd/hauld/main.go": MAIN_SLOG}), [], "go build ./cmd/hauld"),
    "fresh4-go-pathvalue": ("go", project({"internal/api/handlers.go": HANDLERS_PATHVALUE}), [], "go build ./..."),
    "fresh4-go-method-pattern": (
        "go",
        project({"internal/api/handlers.go": HANDLERS_METHOD_PATTERN}),
        [],
        "go test ./internal/api/",
    ),
    "fresh4-go-tags-pg": ("go", project(), [], "go build -tags pg ./..."),
    "fresh4-go-unknown-store": ("go", project(), [], "HAUL_STORE=postgres go run ./cmd/hauld"),
    "fresh4-go-vet-copylocks": ("go", project({"internal/store/store.go": STORE_LEN}), [], "go vet ./..."),
    "fresh4-make-fmt-check": ("make", project({"internal/track/eta.go": ETA_UNFORMATTED}), [], "make fmt-check"),
    "fresh4-go-eta-weekend": (
        "go",
        project({"internal/track/eta.go": ETA_SUNDAY_ONLY}),
        [],
        "go test ./internal/track/",
    ),
    "fresh4-go-json-tags": ("go", project({"internal/store/store.go": STORE_NO_TAGS}), [], "go test ./internal/api/"),
    "fresh4-go-unused-var": ("go", project({"internal/api/handlers.go": HANDLERS_UNUSED}), [], "go build ./..."),
    "fresh4-go-undefined": ("go", project({"cmd/hauld/main.go": MAIN_NEWMEM}), [], "go build ./cmd/hauld"),
    "fresh4-go-nil-map": (
        "go",
        project({"internal/api/handlers_test.go": TEST_NIL_MAP}),
        [],
        "go test ./internal/api/ -run TestPutDelivery",
    ),
    "fresh4-go-vet-printf": (
        "go",
        project({"internal/api/handlers.go": HANDLERS_PRINTF}),
        [],
        "go vet ./internal/api/",
    ),
    "fresh4-go-run-root": ("go", project(), [], "go run ."),
    "fresh4-go-missing-return": ("go", project({"internal/track/eta.go": ETA_MISSING_RETURN}), [], "make test"),
    # the Java client
    "fresh4-javac-record": (
        "javac",
        project({"client/src/com/haul/client/Delivery.java": DELIVERY_RECORD}),
        [CHMOD],
        "client/build.sh",
    ),
    "fresh4-javac-jackson": (
        "javac",
        project({"client/src/com/haul/client/HaulClient.java": CLIENT_JACKSON}),
        [CHMOD],
        "client/build.sh",
    ),
    "fresh4-java-check-failed": (
        "java",
        project({"client/src/com/haul/client/Delivery.java": DELIVERY_COURIER_NAME}),
        [CHMOD],
        "client/build.sh test",
    ),
    "fresh4-javac-unreported-io": (
        "javac",
        project({"client/src/com/haul/client/HaulClient.java": CLIENT_EXISTS}),
        [CHMOD],
        "client/build.sh",
    ),
    "fresh4-javac-werror-rawtypes": (
        "javac",
        project({"client/src/com/haul/client/HaulClient.java": CLIENT_RAW_LIST}),
        [CHMOD],
        "client/build.sh",
    ),
    "fresh4-java-it-refused": ("java", project(), [CHMOD], "client/build.sh it"),
    "fresh4-java-classpath": (
        "java",
        project(),
        [CHMOD, "client/build.sh test"],
        "java -cp client/out com.haul.client.HaulClientTest",
    ),
    "fresh4-java-unknown-status": (
        "java",
        project({"client/test/com/haul/client/HaulClientTest.java": TEST_LOST}),
        [CHMOD],
        "client/build.sh test",
    ),
    "fresh4-javac-semicolon": (
        "javac",
        project({"client/src/com/haul/client/Json.java": JSON_SEMICOLON}),
        [CHMOD],
        "client/build.sh",
    ),
    "fresh4-javac-incompatible": (
        "javac",
        project({"client/src/com/haul/client/HaulClient.java": CLIENT_INT_STATUS}),
        [CHMOD],
        "client/build.sh",
    ),
    "fresh4-javac-missing-return": (
        "javac",
        project({"client/src/com/haul/client/Delivery.java": DELIVERY_MISSING_RETURN}),
        [CHMOD],
        "client/build.sh",
    ),
    "fresh4-javac-file-name": (
        "javac",
        project(
            {"client/src/com/haul/client/Client.java": CLIENT_JAVA},
            drop=("client/src/com/haul/client/HaulClient.java",),
        ),
        [CHMOD],
        "client/build.sh",
    ),
    "fresh4-javac-symbol": (
        "javac",
        project({"client/test/com/haul/client/HaulClientTest.java": TEST_TYPO}),
        [CHMOD],
        "client/build.sh test",
    ),
    # migrations and the database
    "fresh4-sqlite-cast": (
        "sqlite3",
        project({"migrations/004_backfill_updated_at.sql": MIG_004_CAST}),
        [CHMOD],
        "scripts/check_migrations.sh",
    ),
    "fresh4-sqlite-if-not-exists": (
        "sqlite3",
        project({"migrations/004_add_eta.sql": MIG_004_IF_NOT_EXISTS}),
        [CHMOD],
        "make migrations",
    ),
    "fresh4-sqlite-not-null": (
        "sqlite3",
        project({"migrations/004_add_eta.sql": MIG_004_NOT_NULL}),
        [CHMOD, "mv migrations/004_add_eta.sql 004.tmp && make dev-db && mv 004.tmp migrations/004_add_eta.sql"],
        "sqlite3 data/dev.db < migrations/004_add_eta.sql",
    ),
    "fresh4-sqlite-fk": ("sqlite3", project({"scripts/seed_dev.sql": SEED_FK}), [CHMOD], "make dev-db"),
    "fresh4-migration-name": (
        "bash",
        project({"migrations/4_index_tracking_code.sql": "CREATE INDEX deliveries_status ON deliveries (status);\n"}),
        [CHMOD],
        "scripts/check_migrations.sh",
    ),
    "fresh4-sqlite-check-status": ("sqlite3", project({"scripts/seed_dev.sql": SEED_LOST}), [CHMOD], "make migrations"),
    "fresh4-sqlite-no-column": (
        "sqlite3",
        project(),
        [CHMOD, "make dev-db"],
        "sqlite3 data/dev.db 'SELECT tracking_code, courier FROM deliveries'",
    ),
    "fresh4-sqlite-unique": ("sqlite3", project({"scripts/seed_dev.sql": SEED_DUPLICATE}), [CHMOD], "make dev-db"),
    "fresh4-psql-refused": ("psql", project(), [], "psql -h localhost -U haul haul -f migrations/001_init.sql"),
    # the Python export
    "fresh4-export-no-table": ("python", project(), [], "python3 tools/export_deliveries.py --since 2026-03-01"),
    "fresh4-export-since-format": (
        "python",
        project(),
        [CHMOD, "make dev-db"],
        "python3 tools/export_deliveries.py --since 03/01/2026",
    ),
    "fresh4-pytest-header": (
        "pytest",
        project({"tools/export_deliveries.py": EXPORT_REORDERED}),
        [],
        PYTEST + "tools",
    ),
    "fresh4-pytest-utc-offset": (
        "pytest",
        project({"tools/export_deliveries.py": EXPORT_ISOFORMAT}),
        [],
        PYTEST + "tools",
    ),
    "fresh4-pytest-tests-dir": ("pytest", project(), [], PYTEST + "tests"),
    "fresh4-python-no-yaml": (
        "python",
        project({"tools/missing_couriers.py": CARRIERS_PY, "tools/couriers.yaml": "couriers:\n  - name: Rapid\n"}),
        [],
        "python3 tools/missing_couriers.py",
    ),
    "fresh4-export-jsonl-date": (
        "python",
        project({"tools/export_deliveries.py": EXPORT_SINCE_DATE}),
        [CHMOD, "make dev-db"],
        "python3 tools/export_deliveries.py --format jsonl --since 2026-03-05",
    ),
    "fresh4-pytest-fixture": (
        "pytest",
        project({"tools/test_export_deliveries.py": TEST_EXPORT_DB_FIXTURE}),
        [],
        PYTEST + "tools",
    ),
    # deploy, make, git and the shell
    "fresh4-deploy-unbound": ("bash", project(), TAGGED, "deploy/deploy.sh"),
    "fresh4-deploy-trailing-comma": (
        "jq",
        project({"deploy/targets.json": TARGETS_TRAILING_COMMA}),
        TAGGED,
        "DEPLOY_ENV=production deploy/deploy.sh",
    ),
    "fresh4-deploy-dirty": (
        "bash",
        project(),
        [*TAGGED, "printf 'HAUL_STORE=pg\\n' >> config/hauld.example.env"],
        "DEPLOY_ENV=staging deploy/deploy.sh",
    ),
    "fresh4-deploy-no-tag": ("git", project(), [CHMOD, *GIT_BASE], "DEPLOY_ENV=staging deploy/deploy.sh"),
    "fresh4-make-separator": ("make", project({"Makefile": MAKEFILE_SPACES}), [], "make test"),
    "fresh4-make-no-rule": ("make", project(), [], "make lint"),
    "fresh4-git-merge-conflict": (
        "git",
        project(),
        [
            *GIT_BASE,
            "git checkout -qb eta-in-api && sed -i 's/StatusBadRequest)/StatusUnprocessableEntity)/' "
            "internal/api/handlers.go && git commit -qam 'api: 422 for bad codes'",
            'git checkout -q main && sed -i \'s/"invalid tracking code"/"bad tracking code"/\' '
            "internal/api/handlers.go && git commit -qam 'api: wording'",
        ],
        "git merge eta-in-api",
    ),
    "fresh4-git-pathspec": ("git", project(), GIT_BASE, "git checkout feature/eta-endpoint"),
    "fresh4-git-nothing-to-commit": ("git", project(), GIT_BASE, "git commit -m 'export: utc timestamps'"),
    "fresh4-git-rebase-upstream": ("git", project(), GIT_BASE, "git rebase origin/main"),
    "fresh4-sh-not-built": ("sh", project(), [], "./bin/hauld"),
    "fresh4-jq-no-file": ("jq", project(), [], "jq -r '.staging.hosts[]' deploy/target.json"),
    "fresh4-grep-no-match": ("sh", project(), [], "grep -rn 'PathValue' internal cmd"),
    # commands that succeed
    "fresh4-ok-go-build": ("go", project(), [], "go build ./..."),
    "fresh4-ok-go-test": ("go", project(), [], "go test -short ./..."),
    "fresh4-ok-client-test": ("java", project(), [CHMOD], "client/build.sh test"),
    "fresh4-ok-migrations": ("sqlite3", project(), [CHMOD], "scripts/check_migrations.sh"),
    "fresh4-ok-pytest": ("pytest", project(), [], PYTEST + "tools"),
    "fresh4-ok-git-status": (
        "git",
        project(),
        [*GIT_BASE, "echo '// wip' >> internal/track/eta.go"],
        "git status --short",
    ),
    "fresh4-ok-jq-hosts": ("jq", project(), [], "jq -r '.production.hosts[]' deploy/targets.json"),
    "fresh4-ok-deploy-dry-run": ("bash", project(), TAGGED, "DRY_RUN=1 DEPLOY_ENV=staging deploy/deploy.sh"),
}

HOME = os.path.expanduser("~")


def main(argv: list[str] | None = None) -> int:
    os.environ["GOPROXY"] = "off"  # as on the developers' machines: no module proxy
    os.environ["TZ"] = "UTC"
    shown = {HOME + "/": "/home/dev/"}  # this machine's home, as a developer's
    pytest_tmp = os.path.join(tempfile.gettempdir(), f"pytest-of-{getpass.getuser()}")
    shown = {pytest_tmp + "/": "/tmp/pytest-of-dev/", **shown}  # pytest's tmp_path folders, as a developer's
    return capture.main(argv, CASES, shown)


if __name__ == "__main__":
    raise SystemExit(main())
