"""The credential scanner: one positive and one near miss per rule, benign look-alikes,
redaction, positions and the allow list. Secret-shaped values are assembled at test
time from random fragments, so this file holds nothing a scanner would flag."""

from __future__ import annotations

import base64
import binascii
import json
import random
import string
import time
import urllib.parse

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_harness.scanning.credentials import RULES, hide, scan

pytestmark = pytest.mark.usefixtures("cold_scanner")  # tests/conftest.py


R = random.Random(7)
ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
URL = ALNUM + "-_"
HEX = "0123456789abcdef"
UPPER = string.ascii_uppercase + string.digits
B62 = string.digits + string.ascii_uppercase + string.ascii_lowercase


def rnd(n: int, alphabet: str = ALNUM) -> str:
    return "".join(R.choice(alphabet) for _ in range(n))


def num(n: int) -> str:
    return str(R.randint(1, 9)) + rnd(n - 1, string.digits)


def crc_token(prefix: str) -> str:
    body = rnd(30)
    number, check = binascii.crc32(body.encode()), ""
    while number:
        number, rest = divmod(number, 62)
        check = B62[rest] + check
    return prefix + body + check.rjust(6, "0")


def pem_body(lines: int = 6, sep: str = "\n") -> str:
    return sep.join(rnd(64, B64) for _ in range(lines))


def jwt() -> str:
    def enc(obj: object) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    return enc({"alg": "HS256", "typ": "JWT"}) + "." + enc({"sub": rnd(10), "iat": 1700000000}) + "." + rnd(43, URL)


def uuid4() -> str:
    h = rnd(32, HEX)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


K = "key"  # fragments joined at run time
# rule id -> (text, the value the finding must cover)
POSITIVE: dict[str, tuple[str, str]] = {}


def positive(rule: str, template: str, value: str) -> None:
    POSITIVE[rule] = (template.replace("{v}", value), value)


positive(
    "aws-access-key-id", "key id {v} for the deploy user", "AK" + "IA" + rnd(16, string.ascii_uppercase + "234567")
)
positive("aws-secret-key", "aws_secret_access_" + K + " = {v}", rnd(20, B64) + "Ab9/" + rnd(16, B64))
positive("aws-session-token", "session: {v}", "IQoJb3JpZ2lu" + "X2Vj" + rnd(200, B64))
positive("github-pat", "token: {v}", crc_token("gh" + "p_"))
positive("github-fine-grained-pat", "GH={v}", "github" + "_pat_" + rnd(22) + "_" + rnd(59))
positive("github-oauth-token", "oauth {v}", crc_token("gh" + "o_"))
positive("github-app-token", "https://x-access-token:{v}@github.com/org/repo", crc_token("gh" + "s_"))
positive("github-refresh-token", "refresh={v}", "gh" + "r_" + rnd(76))
positive("gitlab-pat", "PRIVATE-TOKEN: {v}", "gl" + "pat-" + rnd(20, URL))
positive("gitlab-token", "deploy token {v}", "gl" + "dt-" + rnd(20, URL))
positive("slack-token", "bot {v}", "xo" + "xb-" + num(12) + "-" + num(13) + "-" + rnd(24))
positive("slack-app-token", "app {v}", "xa" + "pp-1-A" + rnd(10, UPPER) + "-" + num(13) + "-" + rnd(64, HEX))
positive("slack-webhook", "post to https://hooks.slack.com/services/{v}",
         "T" + rnd(8, UPPER) + "/B" + rnd(10, UPPER) + "/" + rnd(24))  # fmt: skip
positive("stripe-secret-key", "stripe: {v}", "sk" + "_live_" + rnd(24))
positive("stripe-webhook-secret", "signing {v}", "wh" + "sec_" + rnd(32))
positive("anthropic-api-key", "ANTHROPIC={v}", "sk-" + "ant-api03-" + rnd(93, URL) + "AA")
positive("openrouter-api-key", "router {v}", "sk-" + "or-v1-" + rnd(64, HEX))
positive("openai-api-key", "OPENAI={v}", "sk-" + "proj-" + rnd(40, URL) + "T3Blbk" + "FJ" + rnd(40, URL))
positive("google-api-key", "maps {v}", "AI" + "za" + rnd(35, URL))
positive("google-oauth-token", "access {v}", "ya" + "29." + rnd(150, URL))
positive("google-oauth-client-secret", "client {v}", "GOC" + "SPX-" + rnd(28, URL))
positive("gcp-service-account", '{"type": "service_account", "private_' + K + '_id": "{v}"}', rnd(40, HEX))
positive("azure-storage-key", "DefaultEndpointsProtocol=https;AccountName=x;Account" + "Key={v};EndpointSuffix=core",
         rnd(86, B64) + "==")  # fmt: skip
positive("azure-shared-access-key", "Endpoint=sb://ns/;SharedAccessKeyName=root;SharedAccess" + "Key={v}",
         rnd(43, B64) + "=")  # fmt: skip
positive("azure-sas-token", "https://st.blob.core.windows.net/c?sv=2022-11-02&sp=r&sig={v}",
         urllib.parse.quote(rnd(43, B64) + "=", safe=""))  # fmt: skip
positive("azure-ad-client-secret", "client secret {v}", rnd(3) + "8Q~" + rnd(34, URL + "~."))
positive("azure-devops-pat", "pat {v}", rnd(76) + "AZ" + "DO" + rnd(4))
positive("twilio-api-key", "sid {v}", "S" + "K" + rnd(32, HEX))
positive("twilio-account-sid", "account {v}", "A" + "C" + rnd(32, HEX))
positive("twilio-auth-token", "TWILIO_AUTH_TOKEN is {v}", rnd(32, HEX))
positive("sendgrid-api-key", "mail {v}", "S" + "G." + rnd(22, URL) + "." + rnd(43, URL))
positive("discord-bot-token", "bot {v}", "MT" + rnd(24, URL) + "." + rnd(6, URL) + "." + rnd(38, URL))
positive("discord-webhook", "https://discord.com/api/webhooks/" + num(18) + "/{v}", rnd(68, URL))
positive("telegram-bot-token", "bot {v}", num(10) + ":" + "AA" + rnd(33, URL))
positive("npm-token", "//registry.npmjs.org/ token {v}", crc_token("np" + "m_"))
positive("npmrc-auth-token", "//registry.npmjs.org/:_auth" + "Token={v}", uuid4())
positive("pypi-token", "password = {v}", "pypi-" + "AgEIcHlwaS5vcmc" + rnd(120, URL))
positive("huggingface-token", "HF {v}", "h" + "f_" + rnd(34, string.ascii_letters))
positive("shopify-token", "shop {v}", "shp" + "at_" + rnd(32, HEX))
positive("mailgun-api-key", "mail {v}", rnd(32, HEX) + "-" + rnd(8, HEX) + "-" + rnd(8, HEX))
positive("mailgun-legacy-api-key", "mail {v}", K + "-" + rnd(32, HEX))
positive("mailchimp-api-key", "chimp {v}", rnd(32, HEX) + "-us" + "14")
positive("heroku-api-key", "HEROKU_API_" + K + "={v}", uuid4())
positive("digitalocean-token", "do {v}", "do" + "p_v1_" + rnd(64, HEX))
positive("age-secret-key", "age {v}", "AGE-SECRET-" + "KEY-1" + rnd(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"))
positive("vault-token", "vault {v}", "hv" + "s." + rnd(90, URL))
positive("terraform-cloud-token", "tfc {v}", rnd(14) + ".atlas" + "v1." + rnd(67, URL))
positive("databricks-token", "dbx {v}", "da" + "pi" + rnd(32, HEX))
positive("linear-api-key", "linear {v}", "lin" + "_api_" + rnd(40))
positive("postman-api-key", "postman {v}", "PM" + "AK-" + rnd(24, HEX) + "-" + rnd(34, HEX))
positive("newrelic-api-key", "nr {v}", "NR" + "AK-" + rnd(27, UPPER))
positive("grafana-token", "grafana {v}", "gl" + "sa_" + rnd(32) + "_" + rnd(8, HEX))
positive("sentry-token", "sentry {v}", "sntry" + "u_" + rnd(64, HEX))
positive("atlassian-api-token", "jira {v}", "ATA" + "TT3" + rnd(180, URL + "="))
positive("doppler-token", "doppler {v}", "dp" + ".pt." + rnd(43))
positive("pulumi-token", "pulumi {v}", "pu" + "l-" + rnd(40, HEX))
positive("square-token", "square {v}", "sq0" + "atp-" + rnd(22, URL))
positive("facebook-access-token", "fb {v}", "EA" + "AB" + rnd(120))
positive("supabase-token", "supabase {v}", "sb" + "p_" + rnd(40, HEX))
positive("notion-token", "notion {v}", "nt" + "n_" + rnd(46))
positive("notion-legacy-token", "notion {v}", "sec" + "ret_" + rnd(43))
positive("airtable-token", "airtable {v}", "pa" + "t" + rnd(14) + "." + rnd(64, HEX))
positive("replicate-token", "replicate {v}", "r" + "8_" + rnd(37))
positive("groq-api-key", "groq {v}", "gs" + "k_" + rnd(52))
positive("xai-api-key", "xai {v}", "xa" + "i-" + rnd(80))
positive("perplexity-api-key", "pplx {v}", "pp" + "lx-" + rnd(48))
positive("langsmith-api-key", "smith {v}", "lsv2" + "_pt_" + rnd(32, HEX) + "_" + rnd(10, HEX))
positive("tailscale-key", "ts {v}", "tskey" + "-auth-" + rnd(12) + "-" + rnd(32))
positive("docker-hub-pat", "docker {v}", "dckr" + "_pat_" + rnd(27, URL))
positive("pinecone-api-key", "pinecone {v}", "pc" + "sk_" + rnd(60))
positive("figma-token", "figma {v}", "fi" + "gd_" + rnd(40, URL))
positive("planetscale-token", "pscale {v}", "pscale" + "_tkn_" + rnd(43))
positive("fly-token", "fly {v}", "fm" + "2_" + rnd(120, B64))
positive("jfrog-token", "jfrog {v}", "AK" + "Cp" + rnd(69))
positive("firebase-fcm-key", "fcm {v}", "AAAA" + rnd(7, URL) + ":APA" + "91b" + rnd(134, URL))
positive("braintree-token", "bt {v}", "access_token$" + "production$" + rnd(16, HEX) + "$" + rnd(32, HEX))
positive("contentful-token", "cf {v}", "CF" + "PAT-" + rnd(43, URL))
positive("buildkite-token", "bk {v}", "bk" + "ua_" + rnd(40, HEX))
positive("resend-api-key", "resend {v}", "r" + "e_" + rnd(8) + "_" + rnd(24))
positive("twitter-bearer-token", "twitter {v}", "A" * 22 + rnd(80))
positive("mapbox-token", "mapbox {v}", "s" + "k.eyJ1Ijoi" + rnd(20, URL) + "." + rnd(22, URL))
positive("private-key", "-----BEGIN RSA PRIVATE " + K.upper() + "-----\n{v}\n-----END RSA PRIVATE KEY-----", pem_body())
positive("jwt", "session cookie {v}", jwt())
positive("url-credentials", "postgres://app:{v}@db.internal:5432/app", rnd(16))
positive("bearer-token", 'curl -H "Authorization: Bearer {v}" https://api.dev', rnd(40, URL))
positive("basic-auth", "Authorization: Basic {v}", base64.b64encode(b"deploy:" + rnd(16).encode()).decode())
positive("cli-password", "curl -u deploy:{v} https://api.dev", rnd(16))
positive("env-assignment", "DEBUG=1\nDATABASE_PASS" + "WORD={v}\nPORT=80", rnd(14, ALNUM + "#%!"))
positive("keyword-assignment", 'config = {"client_sec' + 'ret": "{v}"}', rnd(24, ALNUM + "-_"))
positive("storage-account-key", "the storage account " + K + " is {v}", rnd(40, B64) + "Zq9/" + rnd(42, B64) + "==")
positive("url-path-token", "https://api.telegram.org/bot{v}/sendMessage", num(10) + ":" + rnd(35, URL))
positive("config-password", "<settings><pass" + "word>{v}</pass" + "word></settings>", rnd(12) + "7!")
positive("db-cli-password", "mysql -u root -p'{v}' -h db app", rnd(12) + "9x")
positive("encoded-secret", "kubectl get secret db -o jsonpath={.data.pass" + "word} printed {v}",
         base64.b64encode((rnd(14) + "4!").encode()).decode())  # fmt: skip
positive("spoken-password", "The staging pass" + "word is {v} until Friday.", rnd(10) + "3#")
positive("named-secret", "define('DB_PASS" + "WORD', '{v}');", rnd(14) + "5%")


def test_every_rule_has_a_positive_case() -> None:
    assert sorted(POSITIVE) == sorted(rule.id for rule in RULES)


def test_rule_ids_are_unique_kebab_case() -> None:
    ids = tuple(rule.id for rule in RULES)
    assert len(set(ids)) == len(ids)
    assert all(i == i.lower() and " " not in i and "_" not in i for i in ids)
    assert ids == tuple(rule.id for rule in RULES)


NEAR_MISS = [
    pytest.param("AKIA" + "IOSFODNN7EXAMPLE", id="aws-access-key-id"),
    pytest.param("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", id="aws-secret-key"),
    pytest.param("secret sauce: " + "a" * 40, id="aws-secret-key-repeated"),
    pytest.param("gh" + "p_" + "x" * 36, id="github-pat"),
    pytest.param("gh" + "p_" + rnd(35), id="github-pat-too-short"),
    pytest.param("github" + "_pat_<your-token>", id="github-fine-grained-pat"),
    pytest.param("gl" + "pat-XXXXXXXXXXXXXXXXXXXX", id="gitlab-pat"),
    pytest.param("xo" + "xb-your-bot-token-here", id="slack-token"),
    pytest.param("https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", id="slack-webhook"),
    pytest.param("sk" + "_test_" + "1234567890abcdefghijklmn", id="stripe-secret-key"),
    pytest.param("sk-" + "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX", id="openai-api-key"),
    pytest.param("sk-" + "ant-api03-<redacted>", id="anthropic-api-key"),
    pytest.param("AI" + "za" + "SyEXAMPLEexampleEXAMPLEexample12345", id="google-api-key"),
    pytest.param("Account" + "Key=<storage-key>", id="azure-storage-key"),
    pytest.param("S" + "K" + "0" * 32, id="twilio-api-key"),
    pytest.param("S" + "G.xxxxxxxxxxxxxxxxxxxxxx.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", id="sendgrid-api-key"),
    pytest.param("bot 123:" + "AA" + rnd(33), id="telegram-bot-token-short-id"),
    pytest.param("np" + "m_" + "0" * 36, id="npm-token"),
    pytest.param("heroku app id " + uuid4(), id="heroku-api-key"),
    pytest.param("-----BEGIN RSA PRIVATE " + K.upper() + "-----\n...\n-----END RSA PRIVATE KEY-----", id="private-key"),
    pytest.param(
        "The file starts with -----BEGIN OPENSSH PRIVATE " + K.upper() + "----- and is 0600.", id="pem-mention"
    ),
    pytest.param(
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
        "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ."
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        id="jwt-documented-sample",
    ),
    pytest.param("postgres://app:${DB_PASSWORD}@db:5432/app", id="url-credentials"),
    pytest.param("https://user:password@example.org", id="url-credentials-placeholder"),
    pytest.param('curl -H "Authorization: Bearer $TOKEN" https://api.dev', id="bearer-token"),
    pytest.param("Authorization: Basic <base64 of user:pass>", id="basic-auth"),
    pytest.param('curl -u "$USER:$PASS" https://api.dev', id="cli-password"),
    pytest.param("DATABASE_PASSWORD=${DATABASE_PASSWORD}", id="env-assignment"),
    pytest.param("TOKEN_TTL=3600", id="env-assignment-number"),
    pytest.param("lh memory put --allow-secret RULE_ID note.md", id="cli-password-rule-id"),
    pytest.param("https://x-access-token:{v}@github.com/org/repo", id="url-credentials-template"),
    pytest.param("password = get_password(user)", id="keyword-assignment-call"),
    pytest.param("password: <redacted>", id="keyword-assignment-redacted"),
    pytest.param("sha512-" + "Q" * 2 + rnd(84, B64) + "==", id="storage-account-key-integrity"),
    pytest.param("https://api.telegram.org/bot<token>/sendMessage", id="url-path-token-placeholder"),
    pytest.param("<password>${DB_PASSWORD}</password>", id="config-password-reference"),
    pytest.param("mysql -u root -p app", id="db-cli-password-prompt"),
    pytest.param("the password printed dGVzdA== was the default", id="encoded-secret-placeholder"),
    pytest.param("The password is stored in the vault.", id="spoken-password-prose"),
    pytest.param("password_min_length = 12345678", id="named-secret-setting"),
    pytest.param('csrf_token = "' + rnd(30) + '"', id="named-secret-csrf"),
    pytest.param('public_key = "' + rnd(43) + '"', id="named-secret-public"),
    pytest.param('token_url = "https://auth.dev/oauth/token"', id="named-secret-url"),
]


BENIGN = [
    pytest.param("${GITHUB_TOKEN}", id="braced-env"),
    pytest.param("token=$API_KEY", id="dollar-env"),
    pytest.param('api_key = os.environ["API_KEY"]', id="os-environ"),
    pytest.param("const token = process.env.TOKEN;", id="process-env"),
    pytest.param("api_key: <your-token>", id="angle-placeholder"),
    pytest.param("API_KEY=your_api_key_here", id="your-key-here"),
    pytest.param("password=changeme", id="changeme"),
    pytest.param("password: ********", id="stars"),
    pytest.param("token: xxx", id="xxx"),
    pytest.param("password: ${{ secrets.DB_PASSWORD }}", id="actions-secret"),
    pytest.param("Fixed in 9fceb02d0ae598e95dc970b74767f19372d61af8.", id="git-sha"),
    pytest.param("request id 123e4567-e89b-12d3-a456-426614174000", id="uuid"),
    pytest.param("sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", id="sha256"),
    pytest.param('"integrity": "sha512-' + base64.b64encode(bytes(range(64))).decode() + '"', id="npm-integrity"),
    pytest.param(
        "fixture: " + base64.b64encode(b"the build cache worker retries the queue").decode(), id="base64-prose"
    ),
    pytest.param("See /usr/local/lib/python3.11/site-packages/lean_harness/secret_scan.py", id="path"),
    pytest.param("requires pydantic>=2.7.1,<3 and node 20.11.1", id="versions"),
    pytest.param("Docs: https://docs.vendor.io/api/v2/tokens#rotation?tab=password", id="plain-url"),
    pytest.param("color: #ff00aa; border: 1px solid #c0ffee", id="css"),
    pytest.param("The password reset sends a token; secrets stay in the vault.", id="prose"),
    pytest.param("Password: must be at least 12 characters long.", id="prose-colon"),
    pytest.param("max_tokens: 4096\ntokenizer: cl100k_base", id="llm-config"),
    pytest.param("secretKeyRef:\n  name: db-credentials\n  key: password", id="k8s-ref"),
    pytest.param("password_hash = hash_password(plain, salt)", id="hash-call"),
    pytest.param("The sample token `ghp_" + "sample" * 6 + "` is fake.", id="sample-word"),
    pytest.param("ssh://git@github.com:22/org/repo.git", id="ssh-url"),
]


@pytest.mark.parametrize("text", NEAR_MISS + BENIGN)
def test_a_near_miss_or_a_benign_look_alike_finds_nothing(text: str) -> None:
    assert scan(text) == []


CONTEXTS = [
    pytest.param("```bash\nexport API_TOKEN={v}\n```", id="code-fence"),
    pytest.param('{"service": "billing", "token": "{v}"}', id="json"),
    pytest.param("service:\n  token: {v}\n", id="yaml"),
    pytest.param("https://auth.dev/cb?state=1&token={v}&next=%2F", id="query-string"),
    pytest.param("redirect=https%3A%2F%2Fapp%2Fcb%3Ftoken%3D{v}%26x%3D1", id="url-encoded"),
    pytest.param('"{\\"token\\": \\"{v}\\"}"', id="escaped-json"),
    pytest.param("line one\\n{v}\\nline three", id="escaped-newlines"),
]


def pem_kind(kind: str) -> tuple[str, str]:
    label = f"{kind} {K.upper()}" + (" BLOCK" if kind.startswith("PGP") else "")
    headers = "Version: GnuPG v2\n\n" if kind.startswith("PGP") else ""
    body = pem_body()
    return f"-----BEGIN {label}-----\n{headers}{body}\n-----END {label}-----\n", body


def broken(token: str) -> str:
    return token[:-1] + ("A" if token[-1] != "A" else "B")


def zero_token() -> str:
    number, check, body = binascii.crc32(b"0" * 30), "", "0" * 30
    while number:
        number, rest = divmod(number, 62)
        check = B62[rest] + check
    return "gh" + "p_" + body + check.rjust(6, "0")


def flag(form: str) -> str:
    return next(word for word in form.split() if word.startswith("-")).split("{v}")[0]


CLI_FORMS = [
    "curl -u deploy:{v} https://api.dev", "curl --user deploy:{v} https://api.dev",
    "curl --basic-auth deploy:{v} https://api.dev", "tool --password {v}", "tool --passwd={v}",
    "tool --db-password {v}", "tool --token {v}", "tool --registry-token={v}", "tool --secret {v}",
    "tool --apikey {v}", "tool --api-key {v}", "tool --access-key {v}", "tool --secret-key {v}",
]  # fmt: skip
PEM_KINDS = [
    "RSA PRIVATE",
    "EC PRIVATE",
    "DSA PRIVATE",
    "OPENSSH PRIVATE",
    "ENCRYPTED PRIVATE",
    "PRIVATE",
    "PGP PRIVATE",
]
TOKENS = [crc_token("gh" + "p_") for _ in CONTEXTS]
CLI_VALUES = [rnd(16) + "7q" for _ in CLI_FORMS]

# (text, value, rule): one row a rule (POSITIVE), then the families of shapes one rule must find in
# every form: a token in every context, every kind of PEM key, every command-line form of a password,
# a checksum that fails and one that proves a stand-in-looking token.
FOUND = [
    *(pytest.param(*POSITIVE[rule], rule, id=rule) for rule in sorted(POSITIVE)),
    *(pytest.param(str(c.values[0]).replace("{v}", token), token, "github-pat", id=f"github-pat/in-{c.id}")
      for c, token in zip(CONTEXTS, TOKENS, strict=True)),
    *(pytest.param(broken(token), broken(token), "github-pat", id="github-pat/invalid-checksum-exact-shape")
      for token in [crc_token("gh" + "p_")]),
    pytest.param(zero_token(), zero_token(), "github-pat", id="github-pat/valid-checksum-over-placeholder-filters"),
    *(pytest.param(*pem_kind(kind), "private-key", id="private-key/" + kind.replace(" ", "-")) for kind in PEM_KINDS),
    *(pytest.param(form.format(v=value), value, "cli-password", id="cli-password/" + flag(form))
      for form, value in zip(CLI_FORMS, CLI_VALUES, strict=True)),
]  # fmt: skip


@pytest.mark.parametrize(("text", "value", "rule"), FOUND)
def test_the_rule_finds_the_value_and_nothing_else(text: str, value: str, rule: str) -> None:
    assert [(f.rule, text[f.start : f.end]) for f in scan(text)] == [(rule, value)]


def test_escaped_pem_in_service_account_json() -> None:
    key = "-----BEGIN PRIVATE " + K.upper() + "-----\\n" + pem_body(sep="\\n") + "\\n-----END PRIVATE KEY-----\\n"
    text = json.dumps({"type": "service_account", "private_key": "@"})[:-3] + key + '"}'
    assert "private-key" in [f.rule for f in scan(text)]


def test_most_specific_rule_wins_an_overlap() -> None:
    value = crc_token("gh" + "p_")
    findings = scan(f"GITHUB_TOKEN={value}\npassword = '{value}'")
    assert [f.rule for f in findings] == ["github-pat", "github-pat"]


def test_positions_are_one_based_and_point_at_the_value() -> None:
    value = "sk" + "_live_" + rnd(24)
    text = "# notes\n\nfirst line\n  key: " + value + "\n"
    (finding,) = scan(text)
    assert (finding.line, finding.column) == (4, 8)
    assert text[finding.start : finding.end] == value


def test_findings_are_sorted_by_start() -> None:
    a, b = crc_token("gh" + "p_"), "AK" + "IA" + rnd(16, string.ascii_uppercase)
    findings = scan(f"{b} then {a} then {b}")
    assert [f.start for f in findings] == sorted(f.start for f in findings)
    assert [f.rule for f in findings] == ["aws-access-key-id", "github-pat", "aws-access-key-id"]


def test_allow_skips_the_rule_and_weaker_rules_on_the_same_value() -> None:
    value = crc_token("gh" + "p_")
    text = f"token = '{value}'\nAK" + "IA" + rnd(16, string.ascii_uppercase)
    assert [f.rule for f in scan(text, allow={"github-pat"})] == ["aws-access-key-id"]
    assert [f.rule for f in scan(text, allow=["keyword-assignment"])] == ["github-pat", "aws-access-key-id"]


@pytest.mark.parametrize("rule", sorted(POSITIVE), ids=sorted(POSITIVE))
def test_preview_and_mask_never_show_the_middle(rule: str) -> None:
    text, value = POSITIVE[rule]
    (finding,) = scan(text)
    middle = value[4:-2] if len(value) > 8 else value[1:]
    assert middle not in finding.preview
    assert len(finding.preview) <= 4 + 8
    assert finding.preview.endswith("********")
    masked = hide(text, [finding])
    assert middle not in masked
    assert masked == text[: finding.start] + finding.preview + text[finding.end :]


def test_preview_shows_at_most_four_characters() -> None:
    (finding,) = scan("token: " + crc_token("gh" + "p_"))
    assert finding.preview == "ghp_********"


def test_mask_leaves_text_without_findings_untouched() -> None:
    assert hide("nothing to see", []) == "nothing to see"


def test_mask_merges_overlapping_findings() -> None:
    text = "key " + "AK" + "IA" + rnd(16, string.ascii_uppercase) + " end"
    (finding,) = scan(text)
    twice = hide(text, [finding, finding])
    assert twice == hide(text, [finding])
    assert twice.endswith(" end")


@settings(max_examples=60, deadline=None)
@given(prefix=st.text(max_size=40), suffix=st.text(max_size=40), kind=st.sampled_from(sorted(POSITIVE)))
def test_mask_never_leaks_a_value(prefix: str, suffix: str, kind: str) -> None:
    value = POSITIVE[kind][1]
    text = f"{prefix}\n{POSITIVE[kind][0]}\n{suffix}"
    masked = hide(text, scan(text))
    assert value[4:-2] not in masked or value[4:-2] in prefix + suffix


WORDS = st.sampled_from(
    [
        *("the", "a", "build", "cache", "worker", "retry", "queue", "release", "note", "token", "password"),
        *("secret", "key", "deploy", "rotate", "vault", "rule", "entry", "memory", "index", "shard", "test"),
        *("run", "fixed", "bug", "in", "of", "to", "and", "is", "was", ":", "=", "-"),
    ]
)


@settings(max_examples=80, deadline=None)
@given(st.lists(WORDS, max_size=200))
def test_prose_without_key_shapes_finds_nothing(words: list[str]) -> None:
    assert scan(" ".join(words) + ".") == []


def test_a_64_kib_entry_does_not_hang_the_scanner() -> None:
    note = "\n\n".join(str(p.values[0]) for p in BENIGN) + "\n"
    text = (note * (65536 // len(note) + 1))[:65536]
    start = time.perf_counter()
    scan(text)
    # A guard against catastrophic backtracking, which takes minutes, with a bound far above any
    # machine's load (about 0.1 s idle): speed itself is measured in benchmarks/secrets.
    assert time.perf_counter() - start < 20


def test_url_encoded_values_are_read_decoded() -> None:
    value = rnd(18, ALNUM) + "+/" + rnd(20, ALNUM)
    encoded = urllib.parse.quote(value, safe="")
    text = "cb?aws_secret_access_" + K + "=" + encoded + "&state=ok"
    (finding,) = scan(text)
    assert finding.rule == "aws-secret-key"
    assert text[finding.start : finding.end] == encoded
