"""Record the real command output of the `fresh2` replay set: capture.py's runner, with cases of its own.

    PATH=VENV/bin:DIR/node_modules/.bin:$PATH FRESH2_NODE_MODULES=DIR/node_modules \\
        python3 benchmarks/replay/capture_fresh2.py > benchmarks/replay/fresh2.jsonl

The cases are failures (and a few successes) of one web application, `tidewater` (marina berth
bookings): a Django 5.1 + Django REST framework backend with Celery tasks and Postgres
(backend/), a React + TypeScript front end built with Vite (frontend/), a Makefile, shell
scripts and a docker-compose file. VENV is a Python 3.11 virtualenv with `django<5.2 celery redis
psycopg[binary] pytest pytest-django djangorestframework ruff` from PyPI; DIR holds `npm install
typescript@5.6 vite@5 react@18 react-dom@18 @types/react@18 @types/react-dom@18
@vitejs/plugin-react@4 prettier@3`, linked into each case's frontend/. A Postgres 15 (Debian's
package) must listen on localhost:5433 with trust authentication, a role `tidewater` (LOGIN
CREATEDB) and a role `tw_app` (LOGIN only); nothing may listen on 5432 or 6379. docker-compose
is Debian's 1.29 and no Docker daemon runs. Each case runs in a fresh folder as capture.py
does; nothing here knows the set's notes or labels (sets/fresh2.json).
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
        "django": "python3 -m django --version",
        "celery": "celery --version",
        "psql": "psql --version",
        "vite": "vite --version",
        "prettier": "prettier --version",
        "bash": "bash --version",
        "ruff": "ruff --version",
    }
)

# ---- the backend -------------------------------------------------------------------------------

MANAGE_PY = """#!/usr/bin/env python
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tidewater.settings.dev")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
"""
SETTINGS_BASE = """import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def _read_env(path):
    if not path.exists():
        return
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#") and "=" in line:
            key, value = line.split("=", 1)
            os.environ.setdefault(key.strip(), value.strip())


_read_env(BASE_DIR.parent / ".env")

SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]
DEBUG = False
ALLOWED_HOSTS = os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost").split(",")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "berths",
    "bookings",
    "billing",
]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]
ROOT_URLCONF = "tidewater.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": os.environ.get("POSTGRES_DB", "tidewater"),
        "USER": os.environ.get("POSTGRES_USER", "tidewater"),
        "PASSWORD": os.environ.get("POSTGRES_PASSWORD", ""),
        "HOST": os.environ.get("POSTGRES_HOST", "localhost"),
        "PORT": os.environ.get("POSTGRES_PORT", "5433"),
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
TIME_ZONE = "Europe/Lisbon"
STATIC_URL = "static/"

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "redis://localhost:6379/0")
CELERY_TASK_SERIALIZER = "json"
CELERY_TASK_ALWAYS_EAGER = os.environ.get("CELERY_TASK_ALWAYS_EAGER") == "1"
"""
SETTINGS_DEV = 'from .base import *  # noqa: F403\n\nDEBUG = True\nALLOWED_HOSTS = ["*"]\n'
SETTINGS_TEST = """from .base import *  # noqa: F403

CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.InMemoryStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
"""
SETTINGS_PROD = """from .base import *  # noqa: F403

STATIC_ROOT = BASE_DIR / "staticfiles"  # noqa: F405
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"},
}
"""
CELERY_APP = """import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tidewater.settings.dev")

app = Celery("tidewater")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
"""
URLS = """from django.contrib import admin
from django.urls import include, path
from rest_framework.routers import DefaultRouter

from bookings.views import BookingViewSet

router = DefaultRouter()
router.register("bookings", BookingViewSet)

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include(router.urls)),
]
"""
BERTHS_MODELS = """from django.db import models


class Marina(models.Model):
    name = models.CharField(max_length=120)
    code = models.CharField(max_length=8, unique=True)

    def __str__(self):
        return self.name


class Berth(models.Model):
    marina = models.ForeignKey(Marina, on_delete=models.CASCADE, related_name="berths")
    number = models.CharField(max_length=10)
    length_m = models.DecimalField(max_digits=5, decimal_places=2)

    class Meta:
        unique_together = [("marina", "number")]

    def __str__(self):
        return f"{self.marina.code}-{self.number}"
"""
BOOKINGS_MODELS = """from django.db import models

from berths.models import Berth


class Booking(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        CONFIRMED = "confirmed"
        CANCELLED = "cancelled"

    berth = models.ForeignKey(Berth, on_delete=models.PROTECT, related_name="bookings")
    boat_name = models.CharField(max_length=80)
    skipper_email = models.EmailField()
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.boat_name} @ {self.berth}"

    def nights(self):
        return (self.ends_at - self.starts_at).days
"""
BOOKINGS_MODELS_GIST = BOOKINGS_MODELS.replace(
    "from django.db import models\n",
    "from django.contrib.postgres.constraints import ExclusionConstraint\n"
    "from django.contrib.postgres.fields import RangeOperators\n"
    "from django.db import models\n"
    "from django.db.models import Func\n",
).replace(
    "    def nights(self):",
    """    class Meta:
        constraints = [
            ExclusionConstraint(
                name="no_overlapping_bookings",
                expressions=[
                    ("berth", RangeOperators.EQUAL),
                    (Func("starts_at", "ends_at", function="tstzrange"), RangeOperators.OVERLAPS),
                ],
            )
        ]

    def nights(self):""",
)
BOOKINGS_MODELS_NEW_FIELD = BOOKINGS_MODELS.replace(
    "    created = models.DateTimeField(auto_now_add=True)\n",
    "    created = models.DateTimeField(auto_now_add=True)\n    shore_power = models.BooleanField(default=False)\n",
)
BOOKINGS_MODELS_NULL_CHAR = BOOKINGS_MODELS.replace(
    "    created = models.DateTimeField(auto_now_add=True)\n",
    "    created = models.DateTimeField(auto_now_add=True)\n    notes = models.CharField(max_length=500, null=True)\n",
)
BOOKINGS_TASKS = """from celery import shared_task
from django.core.mail import send_mail

from .models import Booking


@shared_task
def send_reminder(booking_id):
    booking = Booking.objects.select_related("berth__marina").get(pk=booking_id)
    send_mail(
        f"Your berth at {booking.berth.marina.name}",
        f"{booking.boat_name} is due on {booking.starts_at:%d %b}.",
        "harbour@tidewater.example",
        [booking.skipper_email],
    )
"""
BOOKINGS_SERIALIZERS = """from rest_framework import serializers

from .models import Booking


class BookingSerializer(serializers.ModelSerializer):
    class Meta:
        model = Booking
        fields = ["id", "berth", "boat_name", "skipper_email", "starts_at", "ends_at", "status"]
        read_only_fields = ["status"]

    def validate(self, attrs):
        if attrs["ends_at"] <= attrs["starts_at"]:
            raise serializers.ValidationError("ends_at must be after starts_at")
        return attrs
"""
BOOKINGS_VIEWS = """from rest_framework import viewsets

from .models import Booking
from .serializers import BookingSerializer


class BookingViewSet(viewsets.ModelViewSet):
    queryset = Booking.objects.select_related("berth")
    serializer_class = BookingSerializer
"""
BOOKINGS_VIEWS_NO_QS = """from rest_framework import viewsets

from .models import Booking
from .serializers import BookingSerializer


class BookingViewSet(viewsets.ModelViewSet):
    serializer_class = BookingSerializer

    def get_queryset(self):
        return Booking.objects.filter(berth__marina__code=self.request.query_params.get("marina"))
"""
BILLING_MODELS = """from decimal import Decimal

from django.db import models

from bookings.models import Booking

VAT = Decimal("0.23")


class Invoice(models.Model):
    booking = models.ForeignKey(Booking, on_delete=models.PROTECT, related_name="invoices")
    number = models.CharField(max_length=20, unique=True)
    net = models.DecimalField(max_digits=10, decimal_places=2)
    issued_on = models.DateField()

    def __str__(self):
        return self.number

    @property
    def gross(self):
        return self.net * (1 + VAT)
"""
BILLING_PRICING = """from decimal import ROUND_HALF_UP, Decimal

NIGHTLY_RATE_PER_METRE = Decimal("2.15")


def nightly_price(length_m, nights):
    return (Decimal(length_m) * NIGHTLY_RATE_PER_METRE * nights).quantize(Decimal("0.01"), ROUND_HALF_UP)


def occupancy(booked_nights, berths, days):
    return round(100 * booked_nights / (berths * days), 1)
"""
CONFTEST = """import pytest

from berths.models import Berth, Marina


@pytest.fixture
def berth(db):
    marina = Marina.objects.create(name="Doca de Alcantara", code="ALC")
    return Berth.objects.create(marina=marina, number="B12", length_m="11.50")
"""
PYTEST_INI = """[pytest]
DJANGO_SETTINGS_MODULE = tidewater.settings.test
python_files = tests.py test_*.py
filterwarnings =
    error
"""
DOTENV = (
    "DJANGO_SECRET_KEY=dev-only-not-a-secret\nPOSTGRES_DB=tidewater\nPOSTGRES_USER=tidewater\n"
    "POSTGRES_PASSWORD=tidewater\nPOSTGRES_HOST=localhost\nPOSTGRES_PORT=5433\n"
)


def dotenv(db: str, **extra: str) -> str:
    text = DOTENV.replace("POSTGRES_DB=tidewater", f"POSTGRES_DB={db}")
    for key, value in extra.items():
        if f"{key}=" in text:
            text = (
                "\n".join(f"{key}={value}" if line.startswith(f"{key}=") else line for line in text.splitlines()) + "\n"
            )
        else:
            text += f"{key}={value}\n"
    return text


RUFF = """[tool.ruff]
line-length = 120
target-version = "py312"

[tool.ruff.lint]
select = ["E", "F", "I", "DJ"]

[tool.ruff.lint.isort]
known-first-party = ["tidewater", "berths", "bookings", "billing"]
"""

BACKEND = {
    "pyproject.toml": RUFF,
    "backend/manage.py": MANAGE_PY,
    "backend/pytest.ini": PYTEST_INI,
    "backend/conftest.py": CONFTEST,
    "backend/tidewater/__init__.py": "",
    "backend/tidewater/settings/__init__.py": "",
    "backend/tidewater/settings/base.py": SETTINGS_BASE,
    "backend/tidewater/settings/dev.py": SETTINGS_DEV,
    "backend/tidewater/settings/test.py": SETTINGS_TEST,
    "backend/tidewater/settings/prod.py": SETTINGS_PROD,
    "backend/tidewater/celery_app.py": CELERY_APP,
    "backend/tidewater/urls.py": URLS,
    "backend/berths/__init__.py": "",
    "backend/berths/models.py": BERTHS_MODELS,
    "backend/berths/migrations/__init__.py": "",
    "backend/bookings/__init__.py": "",
    "backend/bookings/models.py": BOOKINGS_MODELS,
    "backend/bookings/tasks.py": BOOKINGS_TASKS,
    "backend/bookings/serializers.py": BOOKINGS_SERIALIZERS,
    "backend/bookings/views.py": BOOKINGS_VIEWS,
    "backend/bookings/migrations/__init__.py": "",
    "backend/billing/__init__.py": "",
    "backend/billing/models.py": BILLING_MODELS,
    "backend/billing/pricing.py": BILLING_PRICING,
    "backend/billing/migrations/__init__.py": "",
}
PG = "psql -h localhost -p 5433 -U postgres -qc"
MIGRATIONS = "cd backend && python3 manage.py makemigrations berths bookings billing -v 0"


def backend(db: str, files: dict[str, str] | None = None, env: str | None = None) -> dict[str, str]:
    """The backend's files, a .env naming database `db` (unless env is given), and files replaced."""
    return {**BACKEND, ".env": env if env is not None else dotenv(db), **(files or {})}


def fresh_db(name: str, owner: str = "tidewater") -> list[str]:
    return [
        f'{PG} "drop database if exists {name}"',
        f'{PG} "drop database if exists test_{name}"',
        f'{PG} "create database {name} owner {owner}"',
    ]


TEST_BOOKINGS_NAIVE = """from datetime import datetime

import pytest

from bookings.models import Booking


@pytest.mark.django_db
def test_booking_nights(berth):
    booking = Booking.objects.create(
        berth=berth,
        boat_name="Maré Alta",
        skipper_email="ana@example.com",
        starts_at=datetime(2026, 7, 1, 14, 0),
        ends_at=datetime(2026, 7, 4, 11, 0),
    )
    assert booking.nights() == 2
"""
TEST_BOOKINGS_NO_MARK = """from datetime import timedelta

from django.utils import timezone

from bookings.models import Booking


def test_pending_by_default(berth):
    pass


def test_confirmed_count():
    now = timezone.now()
    assert Booking.objects.filter(status="confirmed", starts_at__gte=now - timedelta(days=1)).count() == 0
"""
TEST_PRICING = """from decimal import Decimal

from billing.pricing import nightly_price, occupancy


def test_nightly_price_rounds_half_up():
    assert nightly_price("11.5", 3) == Decimal("74.18")


def test_occupancy_empty_marina():
    assert occupancy(0, 0, 30) == 0
"""
TEST_PRICING_OK = """from decimal import Decimal

from billing.pricing import nightly_price


def test_nightly_price():
    assert nightly_price("10", 2) == Decimal("43.00")
"""
TEST_INVOICE_UNIQUE = """from datetime import date, timedelta

import pytest
from django.utils import timezone

from billing.models import Invoice
from bookings.models import Booking


@pytest.mark.django_db
def test_two_invoices_for_one_booking(berth):
    start = timezone.now()
    booking = Booking.objects.create(
        berth=berth, boat_name="Gaivota", skipper_email="rui@example.com", starts_at=start, ends_at=start + timedelta(days=2)
    )
    Invoice.objects.create(booking=booking, number="TW-2026-0001", net="49.45", issued_on=date(2026, 7, 4))
    Invoice.objects.create(booking=booking, number="TW-2026-0001", net="12.00", issued_on=date(2026, 7, 5))
"""  # noqa: E501
TEST_API_CREATE = """import pytest
from rest_framework.test import APIClient


@pytest.mark.django_db
def test_create_booking(berth):
    client = APIClient()
    response = client.post(
        "/api/bookings/",
        {
            "berth": berth.pk,
            "boat_name": "Sereia",
            "skipper_email": "joana@example",
            "starts_at": "2026-08-01T15:00:00+01:00",
            "ends_at": "2026-08-03T11:00:00+01:00",
        },
        format="json",
    )
    assert response.status_code == 201, response.data
"""
TEST_URL_NAME = """import pytest
from django.urls import reverse


@pytest.mark.django_db
def test_detail_url(berth):
    assert reverse("booking-details", args=[1]) == "/api/bookings/1/"
"""
TEST_STATIC_TEMPLATE = """from django.template.loader import render_to_string


def test_receipt_has_stylesheet():
    html = render_to_string("billing/receipt.html", {"number": "TW-2026-0001"})
    assert "receipt.css" in html
"""
RECEIPT_HTML = """{% load static %}<!doctype html>
<html><head><link rel="stylesheet" href="{% static 'billing/receipt.css' %}"></head>
<body><h1>Invoice {{ number }}</h1></body></html>
"""
TEST_OK_SIMPLE = """from billing.pricing import occupancy


def test_occupancy_half():
    assert occupancy(15, 1, 30) == 50.0
"""
MIGRATION_A = """from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("bookings", "0001_initial")]

    operations = [migrations.AddField("booking", "shore_power", models.BooleanField(default=False))]
"""
MIGRATION_B = """from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("bookings", "0001_initial")]

    operations = [migrations.AddField("booking", "arrival_note", models.TextField(blank=True, default=""))]
"""
BOOKINGS_MODELS_TWO_FIELDS = BOOKINGS_MODELS.replace(
    "    created = models.DateTimeField(auto_now_add=True)\n",
    "    created = models.DateTimeField(auto_now_add=True)\n"
    "    shore_power = models.BooleanField(default=False)\n"
    '    arrival_note = models.TextField(blank=True, default="")\n',
)
MONEY_PY312 = """from decimal import Decimal

type Cents = int


def to_cents(amount: Decimal) -> Cents:
    return int(amount * 100)
"""
BILLING_MODELS_MONEY = BILLING_MODELS.replace(
    "from bookings.models import Booking\n",
    "from bookings.models import Booking\n\nfrom .money import to_cents  # noqa: F401\n",
)
MARINAS_FIXTURE = json.dumps(
    [{"model": "berths.marina", "pk": 1, "fields": {"name": "Doca de Alcantara", "code": "ALC"}}], indent=2
)
BERTHS_FIXTURE = json.dumps(
    [
        {"model": "berths.berth", "pk": 1, "fields": {"marina": 1, "number": "A01", "length_m": "9.00"}},
        {"model": "berths.berth", "pk": 2, "fields": {"marina": 1, "number": "A02", "length_m": "12.50"}},
    ],
    indent=2,
)
BROKEN_FIXTURE = MARINAS_FIXTURE.replace('"code": "ALC"', '"code": "ALC",')
TASKS_UNUSED = BOOKINGS_TASKS.replace("    booking = Booking", "    sent_at = None\n    booking = Booking").replace(
    "from celery import shared_task\n", "import logging\n\nfrom celery import shared_task\n"
)
VIEWS_BAD_INDENT = (
    BOOKINGS_VIEWS + "\n\ndef export_csv(request):\n    rows = Booking.objects.all()\n      return rows\n"
)
BILLING_TASKS_NONE = """from celery import shared_task

from bookings.models import Booking


@shared_task
def email_receipt(booking_id):
    booking = Booking.objects.filter(pk=booking_id).first()
    return booking.skipper_email.lower()
"""
BILLING_CIRCULAR = BILLING_MODELS
BOOKINGS_MODELS_CIRCULAR = BOOKINGS_MODELS.replace(
    "from berths.models import Berth\n",
    "from berths.models import Berth\nfrom billing.models import Invoice  # noqa: F401\n",
)
OCCUPANCY_SQL = """-- occupancy per marina for the last 30 days
select m.code, count(b.id) as bookings
from berths_marina m
left join bookings_booking b on b.berth_id in (select id from berths_berth where marina_id = m.id)
where b.starts_at > now() - interval '30 days'
group m.code
order by bookings desc;
"""
UNFORMATTED_SERIALIZER = BOOKINGS_SERIALIZERS.replace(
    'fields = ["id", "berth", "boat_name", "skipper_email", "starts_at", "ends_at", "status"]',
    "fields = ['id','berth','boat_name','skipper_email','starts_at','ends_at','status']",
)
PRECOMMIT = """#!/bin/sh
# installed by `make hooks`: format and lint before every commit
set -e
ruff format --check backend
ruff check backend
(cd frontend && npx --no-install prettier --check src)
"""
WAIT_FOR_DB = """#!/usr/bin/env bash
# wait until Postgres accepts connections (used by the api container and `make test-ci`)
set -euo pipefail
for i in $(seq 1 30); do
  pg_isready -h "${POSTGRES_HOST:-localhost}" -p "${POSTGRES_PORT:-5433}" -q && exit 0
  sleep 1
done
echo "postgres did not come up" >&2
exit 1
"""
ENTRYPOINT = """#!/usr/bin/env bash
set -euo pipefail
cd /app/backend
python manage.py migrate --noinput
exec "$@"
"""
MAKEFILE = """VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: help install db test lint fmt worker

help:  ## list targets
\t@grep -E '^[a-z-]+:.*## ' Makefile | sed 's/:.*## /\\t/'

install:  ## create .venv and install backend + frontend deps
\tpython3.12 -m venv $(VENV)
\t$(VENV)/bin/pip install -r requirements/dev.txt
\tcd frontend && npm ci

db:  ## start postgres and redis
\tdocker compose up -d db redis

test:  ## backend tests
\tcd backend && ../$(VENV)/bin/pytest -q

lint:  ## ruff + prettier
\t$(VENV)/bin/ruff check backend
\tcd frontend && npx prettier --check src

worker:  ## celery worker
\tcd backend && ../$(VENV)/bin/celery -A tidewater.celery_app worker -l info
"""
COMPOSE = """version: "3.8"
services:
  db:
    image: postgres:16
    env_file: .env
    ports:
      - "5433:5432"
  redis:
    image: redis:7
    ports:
      - "6379:6379"
  api:
    build: .
    env_file: .env
    depends_on: [db, redis]
    ports:
      - "8000:8000"
"""
COMPOSE_OK = COMPOSE.replace("    env_file: .env\n", "    environment:\n      POSTGRES_PASSWORD: tidewater\n")
DOCKERFILE = """FROM python:3.12-slim
WORKDIR /app
COPY requirements/ requirements/
RUN pip install --no-cache-dir -r requirements/base.txt
COPY backend/ backend/
COPY scripts/ scripts/
ENTRYPOINT ["scripts/entrypoint.sh"]
CMD ["gunicorn", "tidewater.wsgi", "--chdir", "backend", "-b", "0.0.0.0:8000"]
"""
REQUIREMENTS_CONFLICT = "django==5.1.4\ncelery==5.3.6\nkombu==5.2.4\nredis==5.0.8\npsycopg[binary]==3.2.3\n"

# ---- the front end ------------------------------------------------------------------------------

FRONT_PKG = {
    "name": "tidewater-frontend",
    "private": True,
    "version": "0.6.0",
    "type": "module",
    "scripts": {
        "dev": "vite",
        "build": "tsc -b && vite build",
        "typecheck": "tsc --noEmit -p .",
        "format": "prettier --write src",
    },
    "dependencies": {"react": "^18.3.1", "react-dom": "^18.3.1"},
    "devDependencies": {
        "@types/react": "^18.3.12",
        "@types/react-dom": "^18.3.1",
        "@vitejs/plugin-react": "^4.3.4",
        "prettier": "^3.3.3",
        "typescript": "~5.6.2",
        "vite": "^5.4.10",
    },
}
FRONT_TSCONFIG = json.dumps(
    {
        "compilerOptions": {
            "target": "ES2020",
            "lib": ["ES2020", "DOM", "DOM.Iterable"],
            "module": "ESNext",
            "moduleResolution": "bundler",
            "jsx": "react-jsx",
            "strict": True,
            "noEmit": True,
            "skipLibCheck": True,
            "baseUrl": ".",
            "paths": {"@/*": ["src/*"]},
        },
        "include": ["src"],
    },
    indent=2,
)
VITE_CONFIG = """import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import path from "node:path";

export default defineConfig({
  plugins: [react()],
  resolve: { alias: { "@": path.resolve(__dirname, "src") } },
  server: { proxy: { "/api": "http://localhost:8000" } },
});
"""
VITE_CONFIG_NO_ALIAS = VITE_CONFIG.replace('  resolve: { alias: { "@": path.resolve(__dirname, "src") } },\n', "")
INDEX_HTML = """<!doctype html>
<html lang="en">
  <head><meta charset="UTF-8" /><title>Tidewater</title></head>
  <body><div id="root"></div><script type="module" src="/src/main.tsx"></script></body>
</html>
"""
VITE_ENV = '/// <reference types="vite/client" />\n'
MAIN_TSX = """import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import App from "./App";

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
"""
APP_TSX = """import anchor from "./assets/anchor.svg";
import { BookingList } from "@/pages/Bookings";

export default function App() {
  return (
    <main>
      <img src={anchor} alt="" width={32} />
      <BookingList marina="ALC" />
    </main>
  );
}
"""
ANCHOR_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>\n'
CLIENT_TS = """export interface Booking {
  id: number;
  berth: number;
  boatName: string;
  startsAt: string;
  endsAt: string;
  status: "pending" | "confirmed" | "cancelled";
}

export async function listBookings(marina: string): Promise<Booking[]> {
  const response = await fetch(
    `/api/bookings/?marina=${encodeURIComponent(marina)}`,
  );
  if (!response.ok) throw new Error(`bookings: ${response.status}`);
  return (await response.json()) as Booking[];
}
"""
BOOKINGS_TSX = """import { useEffect, useState } from "react";
import { listBookings, type Booking } from "@/api/client";

export function BookingList({ marina }: { marina: string }) {
  const [rows, setRows] = useState<Booking[]>([]);
  useEffect(() => {
    listBookings(marina).then(setRows);
  }, [marina]);
  return (
    <ul>
      {rows.map((b) => (
        <li key={b.id}>
          {b.boatName} ({b.status})
        </li>
      ))}
    </ul>
  );
}
"""
BOOKINGS_TSX_WRONG_PROP = BOOKINGS_TSX.replace(
    "{b.boatName} ({b.status})", "{b.boatName} berth {b.berthNumber} ({b.status})"
)
BOOKINGS_TSX_UNFORMATTED = BOOKINGS_TSX.replace(
    "  useEffect(() => {\n    listBookings(marina).then(setRows);\n  }, [marina]);",
    "  useEffect(() => { listBookings(marina).then(setRows) }, [marina])",
)
BOOKINGS_TSX_SYNTAX = BOOKINGS_TSX.replace("        </li>\n", "        </li\n")
FILTERS_TS = """export function byStatus(rows, status) {
  return rows.filter((row) => row.status === status);
}
"""
QUERY_TS = """export function marinaFromQuery(search: string): string {
  return new URLSearchParams(search).get("marina");
}
"""
GEN_TYPES = """// writes src/api/schema.d.ts from the running backend's OpenAPI document
const response = await fetch("http://localhost:8000/api/schema/");
const schema = await response.json();
console.log(Object.keys(schema.paths).length, "paths");
"""


def frontend(files: dict[str, str | None] | None = None) -> dict[str, str]:
    base = {
        "frontend/package.json": json.dumps(FRONT_PKG, indent=2),
        "frontend/tsconfig.json": FRONT_TSCONFIG,
        "frontend/vite.config.ts": VITE_CONFIG,
        "frontend/index.html": INDEX_HTML,
        "frontend/src/vite-env.d.ts": VITE_ENV,
        "frontend/src/main.tsx": MAIN_TSX,
        "frontend/src/App.tsx": APP_TSX,
        "frontend/src/assets/anchor.svg": ANCHOR_SVG,
        "frontend/src/api/client.ts": CLIENT_TS,
        "frontend/src/pages/Bookings.tsx": BOOKINGS_TSX,
    }
    base.update(files or {})
    return {k: v for k, v in base.items() if v is not None}


LINK_NODE = 'ln -s "$FRESH2_NODE_MODULES" frontend/node_modules'
GIT_BASE = ["git init -q -b main", "git add -A", "git commit -qm base"]
D = "cd backend && "

CASES: dict[str, tuple[str, dict[str, str], list[str], str]] = {
    # the backend: Django, Postgres, Celery
    "fresh2-migrate-port-5432": (
        "django",
        backend("tidewater", env=dotenv("tidewater", POSTGRES_PORT="5432")),
        [],
        D + "python manage.py migrate",
    ),
    "fresh2-missing-secret-key": (
        "django",
        {k: v for k, v in backend("x").items() if k != ".env"},
        [],
        D + "python manage.py check",
    ),
    "fresh2-makemigrations-check": (
        "django",
        backend("tw_mmcheck"),
        [*fresh_db("tw_mmcheck"), MIGRATIONS, "cp backend/bookings/models.py /dev/null"],
        D + "python manage.py makemigrations --check --dry-run",
    ),
    "fresh2-migration-conflict": (
        "django",
        backend("tw_conflict", {"backend/bookings/models.py": BOOKINGS_MODELS}),
        [
            *fresh_db("tw_conflict"),
            MIGRATIONS,
            "printf '%s' \"$FRESH2_MIG_A\" > backend/bookings/migrations/0002_booking_shore_power.py",
            "printf '%s' \"$FRESH2_MIG_B\" > backend/bookings/migrations/0002_booking_arrival_note.py",
            "printf '%s' \"$FRESH2_MODELS_TWO\" > backend/bookings/models.py",
        ],
        D + "python manage.py migrate",
    ),
    "fresh2-btree-gist": (
        "django",
        backend("tw_gist", {"backend/bookings/models.py": BOOKINGS_MODELS_GIST}),
        [*fresh_db("tw_gist"), MIGRATIONS],
        D + "python manage.py migrate",
    ),
    "fresh2-celery-wrong-app": ("celery", backend("tw_celery"), [], D + "celery -A tidewater worker -l info"),
    "fresh2-celery-redis-refused": (
        "celery",
        backend("tw_redis"),
        [*fresh_db("tw_redis"), MIGRATIONS, D + "python manage.py migrate -v 0"],
        D + "python manage.py shell -c 'from bookings.tasks import send_reminder; send_reminder.delay(1)'",
    ),
    "fresh2-celery-encode-model": (
        "celery",
        backend("tw_encode", env=dotenv("tw_encode", CELERY_BROKER_URL="memory://")),
        [*fresh_db("tw_encode"), MIGRATIONS, D + "python manage.py migrate -v 0"],
        D
        + "python manage.py shell -c 'from bookings.models import Booking; from bookings.tasks import send_reminder; "
        + 'send_reminder.delay(Booking(pk=7, boat_name="Gaivota"))\'',
    ),
    "fresh2-models-no-settings": (
        "django",
        backend("x"),
        [],
        D + "python -c 'from bookings.models import Booking; print(Booking.objects.count())'",
    ),
    "fresh2-pytest-db-access": (
        "pytest",
        backend(
            "tw_dbaccess",
            {"backend/bookings/tests/test_status.py": TEST_BOOKINGS_NO_MARK, "backend/bookings/tests/__init__.py": ""},
        ),
        [*fresh_db("tw_dbaccess"), MIGRATIONS],
        D + "python -m pytest -q -p no:cacheprovider bookings",
    ),
    "fresh2-pytest-naive-datetime": (
        "pytest",
        backend("tw_naive", {"backend/bookings/tests/test_models.py": TEST_BOOKINGS_NAIVE}),
        [*fresh_db("tw_naive"), MIGRATIONS],
        D + "python -m pytest -q -p no:cacheprovider bookings",
    ),
    "fresh2-pytest-createdb-denied": (
        "pytest",
        backend(
            "tw_nocreate",
            {"backend/billing/tests/test_invoices.py": TEST_INVOICE_UNIQUE},
            env=dotenv("tw_nocreate", POSTGRES_USER="tw_app"),
        ),
        [*fresh_db("tw_nocreate", owner="tw_app"), MIGRATIONS],
        D + "python -m pytest -q -p no:cacheprovider billing",
    ),
    "fresh2-ruff-dj001": (
        "ruff",
        backend("x", {"backend/bookings/models.py": BOOKINGS_MODELS_NULL_CHAR}),
        [],
        "ruff check backend",
    ),
    "fresh2-precommit-ruff-format": (
        "git",
        backend("x", {"scripts/hooks/pre-commit": PRECOMMIT}),
        [
            *GIT_BASE,
            "cp scripts/hooks/pre-commit .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
            "printf '%s' \"$FRESH2_UNFORMATTED\" > backend/bookings/serializers.py",
        ],
        "git commit -am 'bookings: validate date order'",
    ),
    "fresh2-collectstatic-no-root": ("django", backend("x"), [], D + "python manage.py collectstatic --noinput"),
    "fresh2-drf-basename": (
        "django",
        backend("x", {"backend/bookings/views.py": BOOKINGS_VIEWS_NO_QS}),
        [],
        D + "python manage.py check",
    ),
    "fresh2-manifest-missing": (
        "pytest",
        backend(
            "x",
            {
                "backend/billing/templates/billing/receipt.html": RECEIPT_HTML,
                "backend/billing/tests/test_receipt.py": TEST_STATIC_TEMPLATE,
            },
        ),
        [],
        D + "python -m pytest -q -p no:cacheprovider --ds=tidewater.settings.prod billing",
    ),
    "fresh2-loaddata-fk": (
        "django",
        backend(
            "tw_fixtures",
            {
                "backend/berths/fixtures/marinas.json": MARINAS_FIXTURE,
                "backend/berths/fixtures/berths.json": BERTHS_FIXTURE,
            },
        ),
        [*fresh_db("tw_fixtures"), MIGRATIONS, D + "python manage.py migrate -v 0"],
        D + "python manage.py loaddata berths",
    ),
    "fresh2-py312-type-alias": (
        "django",
        backend("x", {"backend/billing/money.py": MONEY_PY312, "backend/billing/models.py": BILLING_MODELS_MONEY}),
        [],
        D + "python manage.py check",
    ),
    "fresh2-psql-default-socket": (
        "psql",
        {},
        [],
        "psql -U tidewater tidewater -c 'select count(*) from bookings_booking'",
    ),
    "fresh2-pip-python-ldap": ("pip", {}, [], "python -m pip install 'python-ldap==3.4.4'"),
    "fresh2-pip-kombu-conflict": (
        "pip",
        {"requirements/base.txt": REQUIREMENTS_CONFLICT},
        [],
        "python -m pip install --dry-run --ignore-installed -r requirements/base.txt",
    ),
    "fresh2-poetry-missing": ("bash", {"requirements/dev.txt": "-r base.txt\npytest\n"}, [], "poetry install"),
    "fresh2-make-no-venv": ("make", {"Makefile": MAKEFILE, "backend/pytest.ini": PYTEST_INI}, [], "make test"),
    "fresh2-compose-no-env-file": ("docker-compose", {"docker-compose.yml": COMPOSE}, [], "docker-compose config"),
    "fresh2-script-not-executable": ("bash", {"scripts/wait-for-db.sh": WAIT_FOR_DB}, [], "./scripts/wait-for-db.sh"),
    "fresh2-entrypoint-crlf": (
        "bash",
        {"scripts/entrypoint.sh": ENTRYPOINT.replace("\n", "\r\n")},
        [],
        "bash scripts/entrypoint.sh gunicorn",
    ),
    # the front end
    "fresh2-vite-alias": (
        "vite",
        frontend({"frontend/vite.config.ts": VITE_CONFIG_NO_ALIAS}),
        [LINK_NODE],
        "cd frontend && npx vite build",
    ),
    "fresh2-tsc-svg-module": (
        "tsc",
        frontend({"frontend/src/vite-env.d.ts": None}),  # type: ignore[arg-type]
        [LINK_NODE],
        "cd frontend && npx tsc --noEmit -p .",
    ),
    "fresh2-prettier-check": (
        "prettier",
        frontend({"frontend/src/pages/Bookings.tsx": BOOKINGS_TSX_UNFORMATTED}),
        [LINK_NODE],
        "cd frontend && npx prettier --check src",
    ),
    "fresh2-npm-engine-strict": (
        "npm",
        {
            "frontend/package.json": json.dumps(
                {**FRONT_PKG, "engines": {"node": ">=22.11"}, "devDependencies": {}, "dependencies": {}}, indent=2
            ),
            "frontend/.npmrc": "engine-strict=true\n",
            ".nvmrc": "22\n",
        },
        [],
        "cd frontend && npm install",
    ),
    "fresh2-npm-ci-out-of-sync": (
        "npm",
        {
            "frontend/package.json": json.dumps(
                {
                    "name": "tidewater-frontend",
                    "private": True,
                    "version": "0.6.0",
                    "devDependencies": {"prettier": "3.3.2"},
                },
                indent=2,
            )
        },
        [
            "cd frontend && npm install --package-lock-only --ignore-scripts -q",
            'cd frontend && sed -i \'s/"prettier": "3.3.2"/"prettier": "^3.3.3"/\' package.json',
        ],
        "cd frontend && npm ci",
    ),
    # failures no note is about
    "fresh2-pytest-pricing": (
        "pytest",
        backend("x", {"backend/billing/tests/test_pricing.py": TEST_PRICING}),
        [],
        D + "python -m pytest -q -p no:cacheprovider billing",
    ),
    "fresh2-pytest-unique-invoice": (
        "pytest",
        backend("tw_unique", {"backend/billing/tests/test_invoices.py": TEST_INVOICE_UNIQUE}),
        [*fresh_db("tw_unique"), MIGRATIONS],
        D + "python -m pytest -q -p no:cacheprovider billing",
    ),
    "fresh2-pytest-api-400": (
        "pytest",
        backend("tw_api", {"backend/bookings/tests/test_api.py": TEST_API_CREATE}),
        [*fresh_db("tw_api"), MIGRATIONS],
        D + "python -m pytest -q -p no:cacheprovider bookings",
    ),
    "fresh2-pytest-noreversematch": (
        "pytest",
        backend("tw_reverse", {"backend/bookings/tests/test_urls.py": TEST_URL_NAME}),
        [*fresh_db("tw_reverse"), MIGRATIONS],
        D + "python -m pytest -q -p no:cacheprovider bookings",
    ),
    "fresh2-pytest-no-tests-selected": (
        "pytest",
        backend("x", {"backend/billing/tests/test_ok.py": TEST_OK_SIMPLE}),
        [],
        D + "python -m pytest -q -p no:cacheprovider -k invoice_pdf billing",
    ),
    "fresh2-field-error": (
        "django",
        backend("x"),
        [],
        D
        + "python manage.py shell -c 'from bookings.models import Booking; "
        + 'print(Booking.objects.filter(berth_number="B12").query)\'',
    ),
    "fresh2-template-missing": (
        "django",
        backend("x"),
        [],
        D
        + "python manage.py shell -c 'from django.template.loader import render_to_string; "
        + 'print(render_to_string("emails/reminder.txt", {}))\'',
    ),
    "fresh2-task-none-attribute": (
        "celery",
        backend("tw_none", {"backend/billing/tasks.py": BILLING_TASKS_NONE}),
        [*fresh_db("tw_none"), MIGRATIONS, D + "python manage.py migrate -v 0"],
        D + "python manage.py shell -c 'from billing.tasks import email_receipt; email_receipt(41)'",
    ),
    "fresh2-circular-import": (
        "django",
        backend("x", {"backend/bookings/models.py": BOOKINGS_MODELS_CIRCULAR}),
        [],
        D + "python manage.py check",
    ),
    "fresh2-indentation-error": (
        "django",
        backend("x", {"backend/bookings/views.py": VIEWS_BAD_INDENT}),
        [],
        D + "python manage.py check",
    ),
    "fresh2-check-deploy": (
        "django",
        backend("x"),
        [],
        D + "python manage.py check --deploy --fail-level WARNING --settings=tidewater.settings.prod",
    ),
    "fresh2-createsuperuser-noinput": (
        "django",
        backend("tw_admin"),
        [*fresh_db("tw_admin"), MIGRATIONS, D + "python manage.py migrate -v 0"],
        D + "python manage.py createsuperuser --noinput",
    ),
    "fresh2-ruff-unused": ("ruff", backend("x", {"backend/bookings/tasks.py": TASKS_UNUSED}), [], "ruff check backend"),
    "fresh2-fixture-json-invalid": (
        "python",
        {"backend/berths/fixtures/marinas.json": BROKEN_FIXTURE},
        [],
        "python -m json.tool backend/berths/fixtures/marinas.json",
    ),
    "fresh2-zoneinfo-typo": (
        "python",
        {},
        [],
        "python -c 'from zoneinfo import ZoneInfo; print(ZoneInfo(\"Europe/Lisboa\"))'",
    ),
    "fresh2-psql-sql-syntax": (
        "psql",
        {"scripts/occupancy.sql": OCCUPANCY_SQL},
        [],
        "psql -h localhost -p 5433 -U tidewater -d postgres -v ON_ERROR_STOP=1 -f scripts/occupancy.sql",
    ),
    "fresh2-pip-no-such-version": ("pip", {}, [], "python -m pip install 'django-celery-beat==9.9'"),
    "fresh2-tsc-property-missing": (
        "tsc",
        frontend({"frontend/src/pages/Bookings.tsx": BOOKINGS_TSX_WRONG_PROP}),
        [LINK_NODE],
        "cd frontend && npx tsc --noEmit -p .",
    ),
    "fresh2-tsc-implicit-any": (
        "tsc",
        frontend({"frontend/src/lib/filters.ts": FILTERS_TS}),
        [LINK_NODE],
        "cd frontend && npx tsc --noEmit -p .",
    ),
    "fresh2-tsc-null-not-assignable": (
        "tsc",
        frontend({"frontend/src/lib/query.ts": QUERY_TS}),
        [LINK_NODE],
        "cd frontend && npx tsc --noEmit -p .",
    ),
    "fresh2-vite-jsx-syntax": (
        "vite",
        frontend({"frontend/src/pages/Bookings.tsx": BOOKINGS_TSX_SYNTAX}),
        [LINK_NODE],
        "cd frontend && npx vite build",
    ),
    "fresh2-npm-missing-script": ("npm", frontend(), [], "cd frontend && npm run storybook"),
    "fresh2-node-fetch-refused": (
        "node",
        {"frontend/scripts/gen-types.mjs": GEN_TYPES},
        [],
        "node frontend/scripts/gen-types.mjs",
    ),
    "fresh2-git-merge-conflict": (
        "git",
        {"backend/bookings/serializers.py": BOOKINGS_SERIALIZERS},
        [
            *GIT_BASE,
            "git checkout -q -b feature/shore-power",
            'sed -i \'s/"status"]/"status", "shore_power"]/\' backend/bookings/serializers.py',
            "git commit -qam 'bookings: expose shore power'",
            "git checkout -q main",
            'sed -i \'s/"status"]/"status", "created"]/\' backend/bookings/serializers.py',
            "git commit -qam 'bookings: expose created'",
        ],
        "git merge feature/shore-power",
    ),
    "fresh2-git-checkout-overwrite": (
        "git",
        {"frontend/src/api/client.ts": CLIENT_TS},
        [
            *GIT_BASE,
            "git checkout -q -b feature/api-errors",
            "echo '// retry once on 502' >> frontend/src/api/client.ts",
            "git commit -qam 'api: retry'",
            "git checkout -q main",
            "echo '// TODO auth header' >> frontend/src/api/client.ts",
        ],
        "git checkout feature/api-errors",
    ),
    "fresh2-git-push-rejected": (
        "git",
        {"README.md": "# tidewater\n"},
        [
            *GIT_BASE,
            "git init -q --bare -b main ../origin.git",
            "git remote add origin ../origin.git",
            "git push -q origin main",
            "git clone -q ../origin.git ../other && cd ../other && echo x > CHANGELOG.md && git add CHANGELOG.md"
            " && git commit -qm changelog && git push -q origin main",
            "echo y > NOTES.md && git add NOTES.md && git commit -qm notes",
        ],
        "git push origin main",
    ),
    "fresh2-make-no-rule": ("make", {"Makefile": MAKEFILE}, [], "make deploy-staging"),
    "fresh2-cd-typo": ("bash", frontend(), [], "cd frontend/src/componets && ls"),
    "fresh2-docker-no-daemon": ("docker", {"Dockerfile": DOCKERFILE}, [], "docker build -t tidewater/api:dev ."),
    # commands that succeed
    "fresh2-ok-pytest": (
        "pytest",
        backend("x", {"backend/billing/tests/test_pricing.py": TEST_PRICING_OK}),
        [],
        D + "python -m pytest -q -p no:cacheprovider billing",
    ),
    "fresh2-ok-check": ("django", backend("x"), [], D + "python manage.py check"),
    "fresh2-ok-tsc": ("tsc", frontend(), [LINK_NODE], "cd frontend && npx tsc --noEmit -p ."),
    "fresh2-ok-vite-build": ("vite", frontend(), [LINK_NODE], "cd frontend && npx vite build"),
    "fresh2-ok-prettier": ("prettier", frontend(), [LINK_NODE], "cd frontend && npx prettier --check src"),
    "fresh2-ok-ruff": ("ruff", backend("x"), [], "ruff check backend"),
    "fresh2-ok-make-help": ("make", {"Makefile": MAKEFILE}, [], "make help"),
    "fresh2-ok-compose-config": ("docker-compose", {"docker-compose.yml": COMPOSE_OK}, [], "docker-compose config -q"),
    "fresh2-ok-git-status": ("git", {"README.md": "# tidewater\n"}, GIT_BASE, "git status --short --branch"),
}

# Texts the setup steps write after the base commit or the first migrations, passed in the environment.
SETUP_TEXTS = {
    "FRESH2_MIG_A": MIGRATION_A,
    "FRESH2_MIG_B": MIGRATION_B,
    "FRESH2_MODELS_TWO": BOOKINGS_MODELS_TWO_FIELDS,
    "FRESH2_UNFORMATTED": UNFORMATTED_SERIALIZER,
}
# The one case that changes a model after its first migration was made.
CASES["fresh2-makemigrations-check"][2][-1] = "printf '%s' \"$FRESH2_MODELS_NEW\" > backend/bookings/models.py"
SETUP_TEXTS["FRESH2_MODELS_NEW"] = BOOKINGS_MODELS_NEW_FIELD


HOME = os.path.expanduser("~")


def main(argv: list[str] | None = None) -> int:
    os.environ.update(SETUP_TEXTS)
    shown = {HOME + "/": "/home/dev/"}  # this machine's home (its pyenv), as a developer's
    if modules := os.environ.get("FRESH2_NODE_MODULES", ""):  # the linked node_modules, where a developer's would be
        shown = {modules.rstrip("/") + "/": capture.SHOWN_ROOT + "/frontend/node_modules/", **shown}
    return capture.main(argv, CASES, shown)


if __name__ == "__main__":
    raise SystemExit(main())
