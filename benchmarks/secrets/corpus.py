"""Build the labelled credential corpus: random secrets in real formats, tricky benign notes.

Nothing here is a real credential: every value is drawn from a seeded generator in
the published shape of its provider (prefix, length, alphabet, checksum), then
embedded in the kinds of text a project memory holds (prose, code fences, JSON,
YAML, curl lines, .env lines, URL-encoded query strings). The benign half is made
of the look-alikes a scanner must let through. `build(seed)` is deterministic.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import random
import string
import urllib.parse
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
HEX = "0123456789abcdef"
T = TypeVar("T")
BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase


@dataclass(frozen=True)
class Sample:
    kind: str
    text: str
    secret: str  # empty for benign samples

    @property
    def positive(self) -> bool:
        return bool(self.secret)

    def span(self) -> tuple[int, int]:
        """Where the secret sits in the text, as written there (it may be quoted or indented)."""
        forms = (self.secret, urllib.parse.quote(self.secret, safe=""), urllib.parse.quote_plus(self.secret))
        for form in forms:
            start = self.text.find(form)
            if start >= 0:
                return start, start + len(form)
        first_line = self.secret.splitlines()[0]  # an indented PEM block
        start = self.text.find(first_line)
        if start < 0:
            raise ValueError(f"secret not found in its {self.kind} sample")
        return start, start + len(self.secret) + self.secret.count("\n") * 2


class Gen:
    """Random fragments in the alphabets credentials use."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def s(self, n: int, alphabet: str = ALNUM) -> str:
        return "".join(self.r.choice(alphabet) for _ in range(n))

    def digits(self, lo: int, hi: int) -> str:
        return str(self.r.randint(1, 9)) + self.s(self.r.randint(lo, hi) - 1, string.digits)

    def pick(self, *options: T) -> T:
        return self.r.choice(options)

    def crc_token(self, prefix: str) -> str:
        body = self.s(30)
        number, check = binascii.crc32(body.encode()), ""
        while number:
            number, rest = divmod(number, 62)
            check = BASE62[rest] + check
        return prefix + body + check.rjust(6, "0")

    def pem(self, kind: str, escaped: bool = False) -> str:
        heads = {
            "RSA PRIVATE KEY": "MIIEpAIBAAKCAQEA",
            "EC PRIVATE KEY": "MHcCAQEEI",
            "DSA PRIVATE KEY": "MIIBuwIBAAKBgQD",
            "OPENSSH PRIVATE KEY": "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
            "ENCRYPTED PRIVATE KEY": "MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI",
            "PRIVATE KEY": "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ",
            "PGP PRIVATE KEY BLOCK": "lQdGBF",
        }
        size = {"EC PRIVATE KEY": 3, "OPENSSH PRIVATE KEY": 6}.get(kind, self.r.randint(8, 20))
        body = heads[kind] + self.s(64 * size, B64)
        lines = [body[i : i + 64] for i in range(0, len(body), 64)]
        header = [f"-----BEGIN {kind}-----"]
        if kind == "PGP PRIVATE KEY BLOCK":
            header += ["Version: GnuPG v2", ""]
            lines.append("=" + self.s(4, B64))
        footer = [f"-----END {kind}-----"]
        sep = "\\n" if escaped else "\n"
        return sep.join(header + lines + footer) + (sep if escaped else "")

    def jwt(self) -> str:
        def enc(obj: object) -> str:
            return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

        head = {"alg": self.pick("HS256", "RS256", "ES256"), "typ": "JWT"}
        body = {
            "sub": self.s(12),
            "iat": self.r.randint(1_600_000_000, 1_800_000_000),
            "scope": self.pick("read", "admin write"),
        }
        return f"{enc(head)}.{enc(body)}.{self.s(43, B64URL)}"


# --- secrets in their real formats ------------------------------------------------------


def secret_kinds(g: Gen) -> dict[str, Callable[[], str]]:
    """Kind -> a function returning one random value of that kind."""
    return {
        "aws-access-key-id": lambda: g.pick("AKIA", "ASIA") + g.s(16, string.ascii_uppercase + "234567"),
        "aws-secret-key": lambda: g.s(40, B64),
        "github-pat": lambda: g.crc_token("ghp_"),
        "github-fine-grained-pat": lambda: "github_pat_" + g.s(22) + "_" + g.s(59),
        "github-oauth-token": lambda: g.crc_token("gho_"),
        "github-app-token": lambda: g.crc_token(g.pick("ghs_", "ghu_")),
        "github-refresh-token": lambda: "ghr_" + g.s(76),
        "gitlab-pat": lambda: "glpat-" + g.s(20, B64URL),
        "slack-bot-token": lambda: f"xoxb-{g.digits(10, 13)}-{g.digits(10, 13)}-{g.s(24)}",
        "slack-user-token": lambda: f"xoxp-{g.digits(10, 13)}-{g.digits(10, 13)}-{g.digits(10, 13)}-{g.s(32, HEX)}",
        "slack-app-token": lambda: (
            f"xapp-1-A{g.s(10, string.ascii_uppercase + string.digits)}-{g.digits(13, 13)}-{g.s(64, HEX)}"
        ),
        "slack-webhook": lambda: (
            "https://hooks.slack.com/services/T"
            + g.s(8, string.ascii_uppercase + string.digits)
            + "/B"
            + g.s(10, string.ascii_uppercase + string.digits)
            + "/"
            + g.s(24)
        ),
        "stripe-secret-key": lambda: g.pick("sk_live_", "rk_live_", "sk_test_") + g.pick(g.s(24), "51" + g.s(97)),
        "openai-api-key": lambda: g.pick(
            "sk-proj-" + g.s(74, B64URL) + "T3BlbkFJ" + g.s(74, B64URL),
            "sk-svcacct-" + g.s(74, B64URL) + "T3BlbkFJ" + g.s(74, B64URL),
            "sk-" + g.s(20) + "T3BlbkFJ" + g.s(20),
        ),
        "anthropic-api-key": lambda: "sk-ant-" + g.pick("api03-", "admin01-") + g.s(93, B64URL) + "AA",
        "google-api-key": lambda: "AIza" + g.s(35, B64URL),
        "google-oauth-token": lambda: "ya29." + g.s(g.r.randint(120, 180), B64URL),
        "gcp-service-account": lambda: g.pem("PRIVATE KEY", escaped=True),
        "azure-storage-key": lambda: g.s(86, B64) + "==",
        "azure-sas-token": lambda: g.s(43, B64) + "=",
        "twilio-api-key": lambda: "SK" + g.s(32, HEX),
        "twilio-auth-token": lambda: g.s(32, HEX),
        "sendgrid-api-key": lambda: "SG." + g.s(22, B64URL) + "." + g.s(43, B64URL),
        "discord-bot-token": lambda: (
            base64.b64encode(g.digits(18, 19).encode()).decode().rstrip("=")
            + "."
            + g.s(6, B64URL)
            + "."
            + g.s(g.pick(27, 38), B64URL)
        ),
        "discord-webhook": lambda: f"https://discord.com/api/webhooks/{g.digits(18, 19)}/{g.s(68, B64URL)}",
        "telegram-bot-token": lambda: f"{g.digits(9, 10)}:AA{g.s(33, B64URL)}",
        "npm-token": lambda: g.crc_token("npm_"),
        "pypi-token": lambda: "pypi-AgEIcHlwaS5vcmc" + g.s(g.r.randint(120, 200), B64URL),
        "huggingface-token": lambda: "hf_" + g.s(34, string.ascii_letters),
        "shopify-token": lambda: g.pick("shpat_", "shpss_", "shpca_", "shppa_") + g.s(32, HEX),
        "mailgun-api-key": lambda: g.pick("key-" + g.s(32, HEX), f"{g.s(32, HEX)}-{g.s(8, HEX)}-{g.s(8, HEX)}"),
        "heroku-api-key": lambda: str(uuid.UUID(int=g.r.getrandbits(128), version=4)),
        "digitalocean-token": lambda: "dop_v1_" + g.s(64, HEX),
        "private-key-rsa": lambda: g.pem("RSA PRIVATE KEY"),
        "private-key-ec": lambda: g.pem("EC PRIVATE KEY"),
        "private-key-dsa": lambda: g.pem("DSA PRIVATE KEY"),
        "private-key-openssh": lambda: g.pem("OPENSSH PRIVATE KEY"),
        "private-key-encrypted": lambda: g.pem("ENCRYPTED PRIVATE KEY"),
        "private-key-pkcs8": lambda: g.pem("PRIVATE KEY"),
        "private-key-pgp": lambda: g.pem("PGP PRIVATE KEY BLOCK"),
        "jwt": g.jwt,
        "url-credentials": lambda: g.s(g.r.randint(12, 24), ALNUM + "-_.~!*"),
        "bearer-token": lambda: g.s(g.r.randint(32, 64), ALNUM + "-_."),
        "env-assignment": lambda: g.s(g.r.randint(12, 32), ALNUM + "!#%^*-_+"),
        "keyword-assignment": lambda: g.s(g.r.randint(12, 40), ALNUM + "!#%^*-_+"),
    }


PROSE = (
    "Rotated the credential after the incident; the new value is {s} until the next cycle.",
    "Note to self: staging uses {s} (do not share).",
    "The deploy failed until I pasted {s} into the CI settings.",
)
FENCE = "Setup that worked:\n\n```{lang}\n{line}\n```\n\nRemember to restart the worker afterwards."
NAMES = {
    "aws-secret-key": ("aws_secret_access_key", "AWS_SECRET_ACCESS_KEY", "SecretAccessKey"),
    "twilio-auth-token": ("TWILIO_AUTH_TOKEN", "twilio_auth_token", "authToken"),
    "heroku-api-key": ("HEROKU_API_KEY", "heroku_api_key"),
    "env-assignment": ("DATABASE_PASSWORD", "STRIPE_WEBHOOK_SECRET", "SESSION_SECRET", "SMTP_PASS", "JWT_SIGNING_KEY"),
    "keyword-assignment": ("password", "api_key", "client_secret", "token", "apiKey", "db_password", "secret"),
}


def embed(g: Gen, kind: str, secret: str) -> str:
    """Put one secret into a realistic memory-note context."""
    name = g.pick(*NAMES.get(kind, ("API_TOKEN", "token", "SERVICE_KEY")))
    if kind.startswith("private-key"):
        template = g.pick(
            "Deploy key for the build box (rotate quarterly):\n\n```\n{s}\n```\n",
            "Pasted from the vault by mistake:\n{s}\nremoved from the runner since.",
            "```yaml\nssh_key: |\n  {s}\n```",
        )
        return template.replace("{s}", secret.replace("\n", "\n  ") if "yaml" in template else secret)
    if kind == "gcp-service-account":
        return (
            '```json\n{"type": "service_account", "project_id": "demo-' + g.s(6, HEX) + '", '
            '"private_key_id": "' + g.s(40, HEX) + '", "private_key": "' + secret + '", '
            '"client_email": "ci@demo.iam.gserviceaccount.com"}\n```'
        )
    if kind == "azure-storage-key":
        return (
            "Connection string for the blob store:\n`DefaultEndpointsProtocol=https;AccountName=st"
            + g.s(8, HEX)
            + ";AccountKey="
            + secret
            + ";EndpointSuffix=core.windows.net`"
        )
    if kind == "azure-sas-token":
        return (
            "Upload URL: https://st" + g.s(6, HEX) + ".blob.core.windows.net/drops?sv=2022-11-02&ss=b&srt=co"
            "&sp=rwl&se=2026-01-01T00:00:00Z&spr=https&sig=" + urllib.parse.quote(secret, safe="")
        )
    if kind == "url-credentials":
        scheme, host = g.pick(
            ("postgres", "db.internal:5432/app"),
            ("https", "git.corp.dev/team/repo.git"),
            ("redis", "cache:6379/0"),
            ("amqp", "mq.internal/vhost"),
        )
        return g.pick("DATABASE_URL points at {u}", "Clone with `git clone {u}`", '{"dsn": "{u}"}').replace(
            "{u}", f"{scheme}://{g.pick('app', 'deploy', 'admin')}:{secret}@{host}"
        )
    if kind == "bearer-token":
        return g.pick(
            'curl -s -H "Authorization: Bearer {s}" https://api.internal.dev/v1/jobs',
            "Header for the metrics API: `Authorization: Bearer {s}`",
            "```http\nGET /v2/items HTTP/1.1\nHost: api.vendor.io\nAuthorization: Bearer {s}\n```",
        ).replace("{s}", secret)
    if kind == "twilio-auth-token" and g.r.random() < 0.3:
        return f"curl -X POST https://api.twilio.com/2010-04-01/Accounts -u AC{g.s(32, HEX)}:{secret}"
    if kind == "env-assignment":
        return (
            g.pick("`.env` for local runs:\n\n```\nDEBUG=1\n{n}={s}\nPORT=8080\n```", "export {n}={s}", '{n}="{s}"')
            .replace("{n}", name)
            .replace("{s}", secret)
        )
    if kind in ("aws-secret-key", "twilio-auth-token", "heroku-api-key", "keyword-assignment"):
        return (
            g.pick(
                '```python\n{n} = "{s}"\n```',
                "```yaml\n{n}: {s}\n```",
                '{"{n}": "{s}", "region": "eu-west-1"}',
                "{n}={s}",
                "Set `{n}: '{s}'` in the local config.",
                "https://hooks.internal.dev/cb?{n}=" + urllib.parse.quote(secret, safe="") + "&state=ok",
            )
            .replace("{n}", name)
            .replace("{s}", secret)
        )
    context = g.r.randrange(7)
    if context == 0:
        return g.pick(*PROSE).replace("{s}", secret)
    if context == 1:
        return FENCE.replace("{lang}", "bash").replace("{line}", f"export {name.upper()}={secret}")
    if context == 2:
        return json.dumps({"service": "billing", name: secret, "timeout": 30}, indent=2)
    if context == 3:
        return f"```yaml\nservice:\n  name: billing\n  {name}: {secret}\n```"
    if context == 4:
        return f'curl -s -H "X-Api-Key: {secret}" https://api.vendor.io/v1/status'
    if context == 5:
        return f"{name.upper()}={secret}"
    query = urllib.parse.urlencode({"redirect": "https://app.dev/cb", name: secret, "state": g.s(8)})
    return f"Callback seen in the logs: https://auth.vendor.io/authorize?{query}"


# --- benign look-alikes ----------------------------------------------------------------


def benign_kinds(g: Gen) -> dict[str, Callable[[], str]]:
    """Kind -> a function returning one benign note that looks a bit like a secret."""

    def digest(algo: str) -> str:
        return hashlib.new(algo, g.s(20).encode()).hexdigest()

    def b64_prose() -> str:
        words = " ".join(
            g.pick("the", "build", "cache", "worker", "retry", "queue", "release", "notes")
            for _ in range(g.r.randint(6, 14))
        )
        return base64.b64encode(words.encode()).decode()

    return {
        "placeholder": lambda: g.pick(
            "password: <redacted>",
            "OPENAI_API_KEY=sk-XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
            "api_key: <your-token>",
            "API_KEY=your_api_key_here",
            "DB_PASSWORD=changeme",
            "password: ********",
            "token: xxx",
            'token = "<insert token here>"',
            "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "SECRET_KEY=replace-me-in-production",
            'password: "{{ vault_db_password }}"',
            "Set `client_secret` to `YOUR_CLIENT_SECRET` before running.",
        ),
        "env-reference": lambda: g.pick(
            "export GITHUB_TOKEN=${GITHUB_TOKEN}",
            "token=$API_KEY",
            'api_key = os.environ["API_KEY"]',
            "const token = process.env.TOKEN;",
            "password: ${{ secrets.DB_PASSWORD }}",
            'password = os.getenv("DB_PASSWORD")',
            "AWS_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY",
            "SLACK_TOKEN: !vault secret/data/slack#token",
            'secret: "%(secret)s"',
            "token: ENV['DEPLOY_TOKEN']",
        ),
        "function-call": lambda: g.pick(
            "password = get_password(user)",
            "token = fetch_token_from_vault()",
            "api_key: load_key(path)",
            "secret = settings.SECRET_KEY",
            "password=args.password",
            "self.token = token",
            "auth_token = request.headers.get('X-Token')",
            "password = hash_password(plain, salt)",
        ),
        "example-key": lambda: g.pick(
            "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "Example: `sk_live_EXAMPLE" + g.s(16) + "`",
            "token: dummy_" + g.s(24),
            "Use a fake key like `fake-" + g.s(20) + "` in tests.",
            "api_key: sample_key_" + g.s(16),
        ),
        "git-sha": lambda: g.pick("Fixed in commit {h}.", "git checkout {h}", "rev: {h}  # pinned").replace(
            "{h}", digest("sha1")
        ),
        "uuid": lambda: g.pick("request id {u}", '{"trace_id": "{u}"}', "tenant: {u}").replace(
            "{u}", str(uuid.UUID(int=g.r.getrandbits(128), version=4))
        ),
        "sha-digest": lambda: (
            g.pick(
                "image: registry.io/app@sha256:{256}",
                "sha256sum: {256}  dist/app.tar.gz",
                'checksum = "{512}"',
                "SHA512 ({f}) = {512}",
            )
            .replace("{256}", digest("sha256"))
            .replace("{512}", digest("sha512"))
            .replace("{f}", "pkg.whl")
        ),
        "npm-integrity": lambda: (
            '"integrity": "sha512-' + base64.b64encode(hashlib.sha512(g.s(9).encode()).digest()).decode() + '"'
        ),
        "base64-prose": lambda: f"The fixture decodes to a sentence: {b64_prose()}",
        "file-path": lambda: g.pick(
            "See src/lean_harness/memory/store.py and tests/test_store.py.",
            "Logs are in /var/log/app/worker-" + g.s(6, HEX) + ".log",
            "C:\\Users\\dev\\AppData\\Local\\Temp\\build_" + g.s(8) + "\\out.txt",
            "The secret file lives at /run/secrets/db_password, mounted read-only.",
        ),
        "version": lambda: g.pick(
            "Upgraded to 3.11.7", "requires pydantic>=2.7.1,<3", "tag v1.24.0-rc.3", "node 20.11.1 / npm 10.2.4"
        ),
        "plain-url": lambda: g.pick(
            "Docs: https://docs.vendor.io/api/v2/tokens#rotation",
            "https://github.com/org/repo/pull/" + g.digits(3, 5),
            "Proxy via http://proxy.internal:3128",
            "ssh://git@github.com:22/org/repo.git",
        ),
        "css-colour": lambda: g.pick(
            "color: #{c}; background: #{c};",
            "--accent: #{c}",
            "border: 1px solid #{c}",
        ).replace("{c}", g.s(6, HEX)),
        "prose": lambda: g.pick(
            "The password reset flow sends a token by email; the token expires after 15 minutes.",
            "Never commit secrets. Store the API key in the secret manager and rotate tokens monthly.",
            "We discussed whether the bearer token should be refreshed on every request.",
            "Password: must be at least 12 characters long.",
            "Token: see the team vault, entry `ci/deploy`.",
            "secret_key_base is generated by the framework on first boot.",
        ),
        "schema": lambda: g.pick(
            '{"token": {"type": "string", "minLength": 20}}',
            "password:\n  type: string\n  format: password",
            "max_tokens: 4096",
            "token_count = len(tokens)",
            "tokenizer: cl100k_base",
            "secretKeyRef:\n  name: db-credentials\n  key: password",
        ),
        "identifier": lambda: g.pick(
            "Build " + g.digits(6, 8) + " passed in " + str(g.r.randint(30, 900)) + "s",
            "order id ORD-" + g.s(10, string.ascii_uppercase + string.digits),
            "session cookie name is `__Host-session`",
            "mongodb ObjectId " + g.s(24, HEX),
        ),
        "hash-in-context": lambda: g.pick(
            "password_hash: $2b$12$" + g.s(53, ALNUM + "./"),
            'etag: W/"' + g.s(32, HEX) + '"',
            "cache key: " + digest("md5"),
            "fingerprint SHA256:" + g.s(43, B64),
        ),
    }


def shape_kinds(g: Gen) -> dict[str, Callable[[], tuple[str, str]]]:
    """Shapes a note takes around a credential with no provider prefix: (text, secret as written)."""

    def pw(n: int = 14) -> str:
        return g.s(n - 3, ALNUM) + g.pick("!", "#", "%", "~", "@") + g.digits(2, 2)

    def b64(text: str) -> str:
        return base64.b64encode(text.encode()).decode()

    def one(template: str, secret: str) -> tuple[str, str]:
        return template.replace("{s}", secret), secret

    def wrapped() -> tuple[str, str]:
        token = g.crc_token("gh" + "p_")
        cut = g.r.randrange(12, 30)
        return f"CI token (wrapped by the terminal):\n{token[:cut]}\n{token[cut:]}\n", token[:cut]

    def split_literals() -> tuple[str, str]:
        token = "sk-" + g.s(48, ALNUM)
        cut = g.r.randrange(10, 40)
        glue = g.pick('" "', '" +\n    "', '" . "')
        return f'client = Client(key="{token[:cut]}{glue}{token[cut:]}")', token[:cut]

    return {
        "code-secret-key": lambda: one('SECRET_KEY = "{s}"', g.s(50, ALNUM + "!@#%^&*(-_=+)")),
        "php-define": lambda: one("define('DB_PASSWORD', '{s}');", pw()),
        "rails-secret-key-base": lambda: one("secret_key_base = '{s}'", g.s(128, HEX)),
        "write-key": lambda: one(g.pick("SEGMENT_WRITE_KEY={s}", "RUDDER_WRITE_KEY={s}"), g.s(32, ALNUM)),
        "yaml-api-key": lambda: one("billing:\n  api_key: {s}\n  region: eu", g.s(32, ALNUM)),
        "mysql-password-flag": lambda: one(g.pick("mysql -u root -p'{s}' -h db", "mysqldump -uroot -p{s} app"), pw()),
        "password-flag": lambda: one(g.pick("pg_restore --password={s} dump", "vault login --password {s}"), pw()),
        "url-path-token": lambda: one(
            "POST https://api.telegram.org/bot{s}/sendMessage", g.digits(9, 10) + ":" + g.s(35, ALNUM)
        ),
        "wrapped-token": wrapped,
        "split-literals": split_literals,
        "base64-after-name": lambda: one(
            g.pick(
                "kubectl get secret db -o jsonpath={.data.password} printed {s}",
                "the app-token secret decodes to {s}",
                "db_password: {s}",
            ),
            b64(pw()),
        ),
        "basic-auth-json": lambda: one(
            g.pick('{"headers": {"Authorization": "Basic {s}"}}', '{"auths": {"ghcr.io": {"auth": "{s}"}}}'),
            b64(g.pick("deploy", "ci", "admin") + ":" + pw()),
        ),
        "prose-password": lambda: one(
            g.pick(
                "The staging password is {s} for now.",
                "db password for staging: {s}",
                "login is deploy / {s}",
                "Creds: admin:{s} (reset monthly)",
            ),
            pw(),
        ),
        "storage-account-key": lambda: one(
            g.pick("storage key {s}", "Azure blob account key: {s}"), g.s(86, B64) + "=="
        ),
    }


def build(seed: int = 20240601, positives_per_kind: int = 8, benign_per_kind: int = 20) -> list[Sample]:
    """The whole corpus, in a fixed order for a fixed seed."""
    g = Gen(seed)
    samples = []
    for kind, make in secret_kinds(g).items():
        for _ in range(positives_per_kind):
            secret = make()
            text = embed(g, kind, secret)
            samples.append(Sample(kind, text, secret))
    for kind, shape in shape_kinds(g).items():
        for _ in range(positives_per_kind):
            text, secret = shape()
            samples.append(Sample(kind, text, secret))
    for kind, make in benign_kinds(g).items():
        for _ in range(benign_per_kind):
            samples.append(Sample(kind, make(), ""))
    return samples
