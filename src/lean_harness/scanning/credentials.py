"""Find credentials in text before it is written to memory or shown to an agent.

A rule (engine.py) is a pattern for one format and a validator of the matched value; only the
value is masked, so its context (`AccountKey=`, `Bearer`) survives. A rule runs only when one of
its keywords occurs in the lowercased text. Of overlapping candidates the best-ranked wins: a
provider format, then a structural one (JWT, URL password, PEM block), a `.env` line, a generic
assignment. The generic rules also have a prefilter, a short pattern read off the rule, so that
prose does not compile them (adr/0036).
"""

from __future__ import annotations

import binascii
import bisect
import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from lean_harness.scanning.engine import TYPE_CHECKING, Rule, lower, prefiltered, spans

if TYPE_CHECKING:  # a finding's class loads dataclasses: only a text that holds one pays for it (adr/0036)
    from lean_harness.scanning.finding import Finding

__all__ = ["RULES", "Finding", "Rule", "hide", "scan", "scan_many"]

PROVIDER, STRUCTURAL, DOTENV, KEYWORD = 3, 2, 1, 0
_MASK = "********"


# --- value checks -------------------------------------------------------------

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
# Stand-in markers: checked anywhere in short values; in long ones only the first six, as whole words,
# and a run of eight x (a long random token contains any four-letter string by chance now and then).
_PLACEHOLDER_PARTS = (
    "example", "dummy", "fake", "sample", "placeholder", "redacted", "changeme",
    "change_me", "change-me", "your", "xxxx", "here", "todo", "insert", "replace",
    "123456", "abcdef", "qwerty",
)  # fmt: skip
_PLACEHOLDER_MARKS = ("****", "…", "...", "<", ">", "{{", "${")
_PLACEHOLDER_TEXT = """password passwd pass pwd secret token apikey api_key key none null nil undefined empty
    string str required optional true false yes no default value test testing tbd unset hidden masked admin user
    username root foo bar foobar baz secret123 password123 letmein hunter2 demo"""
_PLACEHOLDER_WORDS = frozenset(_PLACEHOLDER_TEXT.split())
# Helper patterns stay strings: `re` compiles and caches them on first use.
_LONG_PLACEHOLDER = rf"(?i)(?:^|[^a-z])(?:{'|'.join(_PLACEHOLDER_PARTS[:6])})(?:$|[^a-z])|x{{8}}"
_KEYWORD_WORDS = ("password", "passwd", "secret", "token", "apikey", "api_key")
_REFERENCE = (
    r"(?i)(?:\$|%\(|%[a-z_]|\{|<|\[|!vault|#\{|enc\[|vault:|env[:.(\[]|getenv|os\.|"
    r"process\.|config\.|settings\.|self\.|this\.|secrets\.|ctx\.|args\.|options\.|"
    r"params\.|import\.meta)"
)
_IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
_NUMBERISH = r"[\d.,:_\-+v]+"
_CONSTANT_NAME = r"[A-Z]+(?:_[A-Z0-9]+)+"  # YOUR_TOKEN, RULE_ID: a name standing in for a value


def _entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    size = len(value)
    return -sum(c / size * math.log2(c / size) for c in Counter(value).values())


def _classes(value: str) -> int:
    """How many of lowercase, uppercase, digits and other characters occur."""
    return sum(any(map(kind, value)) for kind in (str.islower, str.isupper, str.isdigit, lambda c: not c.isalnum()))


def _has_run(value: str, length: int = 6) -> bool:
    """True when `length` equal or consecutive characters follow one another."""
    same = step = 1
    for before, after in itertools.pairwise(value):
        same = same + 1 if before == after else 1
        step = step + 1 if ord(after) - ord(before) == 1 else 1
        if same >= length or step >= length:
            return True
    return False


def _placeholder(value: str) -> bool:
    """Values that only stand in for a credential: templates, masks, examples."""
    lowered = value.lower()
    if lowered.strip("'\"`") in _PLACEHOLDER_WORDS:
        return True
    if any(mark in value for mark in _PLACEHOLDER_MARKS):
        return True
    if len(value) > 64:
        return re.search(_LONG_PLACEHOLDER, value) is not None
    if any(part in lowered for part in _PLACEHOLDER_PARTS):
        return True
    return len(set(value)) < min(6, max(2, len(value) // 3)) or _has_run(value)


def _plausible(value: str) -> bool:
    """The default validator: anything that is not a placeholder."""
    return not _placeholder(value)


def _random_looking(value: str, min_entropy: float = 3.0) -> bool:
    """Not a placeholder, and letters mixed with digits at a reasonable entropy."""
    return not _placeholder(value) and _mixed(value) and _entropy(value) >= min_entropy


def _generated(value: str) -> bool:
    """Random-looking at the entropy of a generated key."""
    return _random_looking(value, 3.5)


def _mixed(run: str) -> bool:
    return any(c.isdigit() for c in run) and any(c.isalpha() for c in run)


def _checksummed(value: str) -> bool:
    """GitHub and npm tokens end in the base62 CRC32 of their random part, which proves the token;
    without it the shape still counts, unless it is a placeholder."""
    number, digits = binascii.crc32(value[value.index("_") + 1 : -6].encode()), ""
    while number:
        number, rest = divmod(number, 62)
        digits = _BASE62[rest] + digits
    return digits.rjust(6, "0") == value[-6:] or _random_looking(value)


def _aws_secret(value: str) -> bool:
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return mixed and value.count("/") < 4 and _random_looking(value, 3.8)


def _b64decode(value: str) -> bytes:
    """Decode standard or URL-safe base64 with or without padding; b"" if invalid."""
    cleaned = value.replace("-", "+").replace("_", "/").rstrip("=")
    try:
        return binascii.a2b_base64(cleaned + "=" * (-len(cleaned) % 4))
    except binascii.Error:
        return b""


def _jwt(value: str) -> bool:
    """Header and payload are base64url JSON; the jwt.io sample token is an example."""
    header, payload = (_b64decode(part) for part in value.split(".")[:2])
    if b"John Doe" in payload or _placeholder(value):
        return False
    return header.startswith(b"{") and payload.lstrip().startswith(b"{")


def _basic_credentials(value: str) -> bool:
    """A Basic authorization value decodes to ``user:password``."""
    user, colon, password = _b64decode(value).partition(b":")
    return bool(colon and user and password) and _password(password.decode("latin-1"))


def _pem_body(value: str) -> bool:
    """Enough base64 with the spread of real key material, not a masked stand-in."""
    body = re.sub(r"\\[rn]|\s", "", value)
    return len(body) >= 40 and _entropy(body) >= 4.0


def _literal(value: str, min_length: int = 6, *, path_like: bool = True) -> bool:
    """A literal, not a reference, path, URL, number, variable name or stand-in word."""
    lowered = value.lower()
    return not (
        len(value) < min_length
        or re.match(_REFERENCE, value)
        or re.fullmatch(_CONSTANT_NAME, value)
        or "(" in value
        or "://" in value
        or (path_like and value[0] in "/~.")
        or value[1:3] == ":\\"
        or re.fullmatch(_NUMBERISH, value)
        or any(c.isspace() for c in value)
        or any(word in lowered for word in _KEYWORD_WORDS)
        or _placeholder(value)
    )


def _password(value: str) -> bool:
    """A literal password in a URL (where a leading dot or slash is no path)."""
    return _literal(value, 3, path_like=False)


def _dotenv_value(value: str) -> bool:
    """A `.env` line is explicit: any literal counts unless it is a single short word."""
    return _literal(value) and (not value.isalpha() or len(value) >= 12)


_SLUG = r"[a-z]+(?:[-_.][a-z]+)*|[A-Z]+(?:[-_.][A-Z]+)*"  # a name such as a rule id, not a secret


def _keyword_value(value: str) -> bool:
    """Generic assignments need a value that looks generated, not written by hand."""
    if not _literal(value, 8) or re.fullmatch(_SLUG, value):
        return False
    lower, upper = any(c.islower() for c in value), any(c.isupper() for c in value)
    if re.fullmatch(_IDENTIFIER, value):  # a bare identifier is usually a variable
        if "." in value:
            return False
        if value.isalpha():
            return len(value) >= 12 and lower and re.search("[A-Z]{2}", value) is not None
        hexish = all(c in "0123456789abcdef" for c in value.lower())
        digit = any(c.isdigit() for c in value)
        if not (digit and len(value) >= 12 and ((lower and upper) or hexish)):
            return False
    size = len(value)
    return _classes(value) >= 2 and _entropy(value) >= (2.5 if size < 12 else 3.0 if size < 20 else 3.3)


def _named_value(value: str) -> bool:
    """A value under a name that says it is secret: a literal that is not a plain word."""
    value = value.rstrip(".,;:!?") or value  # the end of a sentence ("token: build.") is not part of the value
    if (
        re.match(r"[A-Za-z_$][\w.$]*\(", value)  # a call; other parentheses are characters
        or re.fullmatch(_SLUG, value)
        or not _literal(value.replace("(", "").replace(")", ""), 6, path_like=False)
        or value[0] in "/~"
    ):
        return False
    if re.fullmatch(_IDENTIFIER, value) and ("." in value or not any(c.isdigit() for c in value)):
        return len(value) >= 16 and _keyword_value(value)  # a variable, unless it looks generated
    return _classes(value) >= 2 and _entropy(value) >= (2.5 if len(value) < 12 else 3.0)


def _spoken_password(value: str) -> bool:
    """A password given in prose: not a word of the sentence, so it mixes kinds of characters."""
    value = value.rstrip(".,;:!?)")
    mixed = any(c.isdigit() or not c.isalnum() for c in value) or len(re.findall("[a-z][A-Z]", value)) >= 2
    return len(value) >= 6 and mixed and _named_value(value)


def _encoded_secret(value: str) -> bool:
    """Base64 printed next to a secret's name: it decodes to a single literal that passes."""
    if _placeholder(value):
        return False
    decoded = _b64decode(value)
    try:
        text = decoded.decode("ascii")
    except UnicodeDecodeError:
        return len(decoded) >= 16 and _entropy(value) >= 4.0  # random key material
    text = text.rstrip("\n")
    return text.isprintable() and _named_value(text)


def _storage_key(value: str) -> bool:
    """A bare 64-byte base64 key: high entropy, mixed case and digits."""
    return _entropy(value) >= 5.0 and _classes(value) >= 3 and not _placeholder(value)


# --- the registry -------------------------------------------------------------

_E = r"(?![A-Za-z0-9])"
_EW = r"(?![A-Za-z0-9_\-])"
_NL = r"(?:\r?\n|\\r\\n|\\n)"
_HEX = "[0-9a-fA-F]"
_UUID = rf"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}"
_QUOTE = r"(?:\\?[\"'`]|%2[27])?"
_OP = r"[ \t]*(?:=>|:=|=|:|%3[DdAa])[ \t]*"


# A value: quoted, JSON-escaped or bare (URL-encoded allowed).
_BARE = r"(?:[^\s\"'`,;&|<>(){}\[\]\\%]|%(?![0-9A-Fa-f]{2})|%(?!2[0267CcBb]|3[BbCcEe]|0[AaDd])[0-9A-Fa-f]{2})"
_VALUE = (
    r"(?:\"(?P<va>[^\"\n]{1,256})\"|'(?P<vb>[^'\n]{1,256})'|\\\"(?P<vc>[^\"\\\n]{1,256})\\\""
    rf"|(?:%2[27])?(?P<vd>{_BARE}{{1,256}}))"
)


def _head_of(pattern: str) -> str:
    """The lowercased literal a pattern starts with ("ghp_" for ``ghp_[A-Za-z0-9]{36}``)."""
    head = re.match(r"(?:[A-Za-z0-9_:/-]|\\[.$-])*", pattern)  # literal characters and escaped . $ -
    return head[0].replace("\\", "").lower() if head else ""


def _prefixed(rule_id: str, description: str, body: str, *, keys: tuple[str, ...] = (),
              validate: Callable[[str], bool] = _plausible, end: str = _E) -> Rule:  # fmt: skip
    """A token recognised by its literal prefix, bounded on both sides; run only on text holding `keys` (the prefix)."""
    head = _head_of(body)
    return Rule(rule_id, description, body + end, keys or ((head,) if len(head) > 1 else ()), validate, bounded=True)


_KEY_QUALIFIERS = "api access auth private client encryption signing master app account secret aws"
# a token, unless a qualifier makes it public: csrf_token, publicToken, jsonwebtoken
_PUBLIC_TOKEN = r"token(?<!csrf.token)(?<!xsrf.token)(?<!csrftoken)(?<!xsrftoken)(?<!public.token)(?<!publictoken)"


def _qualified_key(qualifiers: str) -> str:
    """ "key" after one of the qualifiers, alone or joined by a separator (api_key, clientkey)."""
    return "key(?:" + "|".join(f"(?<={q}key)|(?<={q}[_.\\-]key)" for q in qualifiers.split()) + ")"


# Lowercase, matched against the lowercased text. Every branch starts with a literal
# so that `re` skips quickly to candidates; "key" only counts after a qualifier such
# as "api_" or "client", checked by fixed-width look-behinds once "key" has matched.
_KEY_NAME = (
    rf"(?:pass(?:word|wd|phrase)?|pwd(?<![a-z]pwd)|secret|credentials?|auth(?<![a-z]auth)|"
    rf"{_PUBLIC_TOKEN}(?<!jsonwebtoken)|{_qualified_key(_KEY_QUALIFIERS)})(?:[_.\-]?(?:key|value|str|string))?"
)
_ENV_NAME = (
    r"(?:[A-Z][A-Z0-9_]*?)?(?:SECRET|TOKEN|PASSWORD|PASSWD|PASS|PWD|PASSPHRASE|CREDENTIALS?|"
    r"(?:API|ACCESS|SECRET|PRIVATE|AUTH|ENCRYPTION|SIGNING|MASTER|CLIENT|APP|SERVICE|"
    r"ACCOUNT|WEBHOOK|SESSION|LICENSE|JWT|HMAC|CRYPT)_?KEY)"
)
_PEM_HEADER = r"[A-Za-z][A-Za-z\-]*:[^\n\\]*"
# A name that says its value is secret: a secret word, then at most three more parts
# (`db_password_prod`) unless a part says the value is not the secret (`token_url`, `key_id`).
_TOKEN_WORD = (  # nor one that pages through results
    rf"{_PUBLIC_TOKEN}(?<!jsonwebtoken)(?<!next.token)(?<!page.token)(?<!sync.token)(?<!continuation.token)"
)
_SECRET_KEY_QUALIFIERS = (
    _KEY_QUALIFIERS + " write read admin deploy service storage shared license webhook session consumer bot"
    " ingest sdk server jwt hmac"
)
_SECRET_WORD = (
    rf"(?:pass(?:word|wd|phrase)?|pwd|secret|{_TOKEN_WORD}|creds|credentials?|auth(?=[\"'`]?[ \t]*[:=])|"
    rf"{_qualified_key(_SECRET_KEY_QUALIFIERS)})"
)
_NOT_SECRET_PART = (
    r"(?:ids?|names?|type|ur[li]s?|endpoint|file|path|length|len|size|count|min|max|ttl|expir\w*|lifetime|"
    r"timeout|prefix|header|field|param|env|var|variable|hint|policy|format|label|version|enabled|required|mode|"
    r"provider|alg\w*|kind|scope|audience|issuer|location|dir|arn|ref|hash|regex|pattern|chars|charset|"
    r"store\w*|vault|manager|rotation|reset|confirm\w*|check|valid\w*|strength|input|form|page|usage|index|"
    r"bytes?|bits|exchange|method|request|response|service|cache|secret_name|holder|hint)(?![a-z0-9])"
)
_SECRET_NAME = (
    rf"{_SECRET_WORD}(?:(?:key|value|str|string|base|b64|data|enc)|[_.\-](?!{_NOT_SECRET_PART})[a-z0-9]+){{0,3}}"
)
_B64_VALUE = r"[A-Za-z0-9+/]{12,}={0,2}"


RULES: tuple[Rule, ...] = (
    _prefixed("aws-access-key-id", "an AWS access key ID",
              r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}", keys=("akia", "asia", "abia", "acca")),
    Rule("aws-secret-key", "an AWS secret access key",
         r"secret[^\n]{0,60}?(?<![a-z0-9/+])(?P<v>[a-z0-9/+]{40})(?![a-z0-9/+=])",
         ("secret",), _aws_secret, view="lowered"),
    _prefixed("aws-session-token", "an AWS session token",
              r"(?:FwoGZXIvYXdz|IQoJb3JpZ2luX2Vj)[A-Za-z0-9/+=]{80,}", end="",
              keys=("fwogzxivyxdz", "iqojb3jpz2lux2vj")),
    _prefixed("github-pat", "a GitHub personal access token",
              r"ghp_[A-Za-z0-9]{36}", validate=_checksummed),
    _prefixed("github-fine-grained-pat", "a GitHub fine-grained personal access token",
              r"github_pat_[A-Za-z0-9]{20,30}_[A-Za-z0-9]{50,70}"),
    _prefixed("github-oauth-token", "a GitHub OAuth access token",
              r"gho_[A-Za-z0-9]{36}", validate=_checksummed),
    _prefixed("github-app-token", "a GitHub App token",
              r"gh[us]_[A-Za-z0-9]{36,255}", validate=_checksummed, keys=("ghu_", "ghs_")),
    _prefixed("github-refresh-token", "a GitHub refresh token",
              r"ghr_[A-Za-z0-9]{36,255}", validate=_checksummed),
    _prefixed("gitlab-pat", "a GitLab personal access token",
              r"glpat-[A-Za-z0-9_\-]{20,}(?:\.[A-Za-z0-9_\-]+)*", end=_EW),
    _prefixed("gitlab-token", "a GitLab token",
              r"gl(?:dt|rt|ptt|cbt|soat|ffct|imt|agent|oas|ft|wt)-[A-Za-z0-9_\-]{20,}", end=_EW,
              keys=("gldt-", "glrt-", "glptt-", "glcbt-", "glsoat-", "glffct-", "glimt-", "glagent-", "gloas-",
                    "glft-", "glwt-")),
    _prefixed("slack-token", "a Slack token",
              r"xox(?:e\.xox[bp]|[abeoprs])-[0-9]{1,16}(?:-[A-Za-z0-9]{1,80}){1,4}",
              validate=lambda v: len(v) >= 30 and _random_looking(v, 2.5), end=_EW),
    _prefixed("slack-app-token", "a Slack app-level token",
              r"xapp-\d-[A-Za-z0-9]+-\d+-[A-Za-z0-9]{20,}"),
    Rule("slack-webhook", "a Slack webhook URL",
         r"hooks\.slack\.com/(?:services|workflows|triggers)/"
         r"(?P<v>[A-Za-z0-9_\-]+(?:/[A-Za-z0-9_\-]+){1,3})",
         ("hooks.slack.com",), lambda v: len(v) >= 30 and _plausible(v)),
    Rule("stripe-secret-key", "a Stripe secret key",  # found from "k_", then "s" or "r" before it
         r"k_(?<=[sr]k_)(?:live|test|prod)_[A-Za-z0-9]{20,255}(?![A-Za-z0-9])", ("sk_", "rk_"), _plausible,
         bounded=True, extend_left=1),
    _prefixed("stripe-webhook-secret", "a Stripe webhook signing secret",
              r"whsec_[A-Za-z0-9+/=]{24,}"),
    _prefixed("anthropic-api-key", "an Anthropic API key",
              r"sk-ant-[a-z]{2,8}\d{0,3}-[A-Za-z0-9_\-]{32,}", end=_EW),
    _prefixed("openrouter-api-key", "an OpenRouter API key",
              r"sk-or-v1-[a-f0-9]{64}"),
    _prefixed("openai-api-key", "an OpenAI API key",
              r"sk-(?:(?:proj|svcacct|admin|None)-)?[A-Za-z0-9_\-]{32,250}",
              validate=_generated, end=_EW),
    _prefixed("google-api-key", "a Google API key", r"AIza[A-Za-z0-9_\-]{35}", end=_EW),
    _prefixed("google-oauth-token", "a Google OAuth token",
              r"(?:ya29\.[A-Za-z0-9_\-.]{20,}|1//0[A-Za-z0-9_\-]{40,})",
              end=_EW, keys=("ya29.", "1//0")),
    _prefixed("google-oauth-client-secret", "a Google OAuth client secret",
              r"GOCSPX-[A-Za-z0-9_\-]{28}", end=_EW),
    Rule("gcp-service-account", "a Google Cloud service account key",
         r"private_key_id\\?\"\s*:\s*\\?\"(?P<v>[a-f0-9]{40})\\?\"", ("private_key_id",), _plausible),
    Rule("azure-storage-key", "an Azure storage account key",
         r"(?i:AccountKey)\s*=\s*(?P<v>[A-Za-z0-9+/]{40,100}={0,2})", ("accountkey",)),
    Rule("azure-shared-access-key", "an Azure shared access key",
         r"(?i:SharedAccessKey|SharedSecretValue)\s*=\s*(?P<v>[A-Za-z0-9+/]{30,100}={0,2})",
         ("sharedaccesskey", "sharedsecretvalue"), _plausible),
    Rule("azure-sas-token", "an Azure shared access signature",
         r"[?&;]sig=(?P<v>(?:[A-Za-z0-9+/=]|%[0-9A-Fa-f]{2}){30,})", ("sig=",),
         _generated),
    Rule("azure-ad-client-secret", "an Azure AD client secret",
         r"(?<![A-Za-z0-9_~.\-])(?P<v>[A-Za-z0-9_~.\-]{3}\dQ~[A-Za-z0-9_~.\-]{31,34})"
         r"(?![A-Za-z0-9_~.\-])",
         ("q~",), _plausible),
    _prefixed("azure-devops-pat", "an Azure DevOps personal access token",
              r"[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}", keys=("azdo",)),
    _prefixed("twilio-api-key", "a Twilio API key SID", r"SK[0-9a-fA-F]{32}",
              validate=_random_looking),
    _prefixed("twilio-account-sid", "a Twilio account SID", r"AC[0-9a-f]{32}",
              validate=_random_looking),
    Rule("twilio-auth-token", "a Twilio auth token",
         r"twilio[^\n]{0,40}?(?<![a-z0-9])(?P<v>[0-9a-f]{32})(?![a-z0-9])",
         ("twilio",), _random_looking, view="lowered"),
    _prefixed("sendgrid-api-key", "a SendGrid API key",
              r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}", end=_EW),
    _prefixed("discord-bot-token", "a Discord bot token",
              r"[MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}",
              validate=_generated, end=_EW),
    Rule("discord-webhook", "a Discord webhook URL",
         r"discord(?:app)?\.com/api/webhooks/\d{17,20}/(?P<v>[A-Za-z0-9_\-]{60,70})",
         ("discord",), _plausible),
    _prefixed("telegram-bot-token", "a Telegram bot token",
              r"\d{5,16}:AA[A-Za-z0-9_\-]{33}", end=_EW, keys=(":aa",)),
    _prefixed("npm-token", "an npm access token",
              r"npm_[A-Za-z0-9]{36}", validate=_checksummed),
    Rule("npmrc-auth-token", "an npm registry credential",
         r":_auth(?:Token)?\s*=\s*[\"']?(?P<v>[^\s\"']{8,})", (":_auth",),
         lambda v: _literal(v, 8), STRUCTURAL),
    _prefixed("pypi-token", "a PyPI API token", r"pypi-AgE[A-Za-z0-9_\-]{50,}",
              end=_EW),
    _prefixed("huggingface-token", "a Hugging Face access token",
              r"(?:hf_|api_org_)[A-Za-z0-9]{30,40}",
              validate=lambda v: _plausible(v) and _classes(v[3:]) >= 2 and _entropy(v) >= 3.5,
              keys=("hf_", "api_org_")),
    _prefixed("shopify-token", "a Shopify access token",
              r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}", keys=("shpat_", "shpss_", "shpca_", "shppa_")),
    Rule("mailgun-api-key", "a Mailgun API key",  # hex32-hex8-hex8, found from its first dash
         r"-(?<=(?<![A-Za-z0-9])[0-9a-f]{32}-)[0-9a-f]{8}-[0-9a-f]{8}(?![A-Za-z0-9])", (),
         _random_looking, extend_left=32),
    _prefixed("mailgun-legacy-api-key", "a Mailgun API key", r"key-[0-9a-zA-Z]{32}",
              validate=_random_looking),
    _prefixed("mailchimp-api-key", "a Mailchimp API key",
              r"[0-9a-f]{32}-us\d{1,2}", validate=_random_looking, keys=("-us",)),
    Rule("heroku-api-key", "a Heroku API key",
         rf"(?:(?P<v1>HRKU-[A-Za-z0-9_\-]{{20,}})|(?i:heroku)[^\n]{{0,40}}?"
         rf"(?i:key|token|auth|password|secret)[^\n]{{0,30}}?(?<![A-Za-z0-9\-])"
         rf"(?P<v2>{_UUID})(?![A-Za-z0-9\-]))",
         ("heroku", "hrku-"), _plausible),
    _prefixed("digitalocean-token", "a DigitalOcean token", r"do[opr]_v1_[a-f0-9]{64}",
              keys=("doo_v1_", "dop_v1_", "dor_v1_")),
    _prefixed("age-secret-key", "an age secret key",
              r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    _prefixed("vault-token", "a HashiCorp Vault token", r"hv[sbr]\.[A-Za-z0-9_\-]{24,}", end=_EW,
              keys=("hvs.", "hvb.", "hvr.")),
    _prefixed("terraform-cloud-token", "a Terraform Cloud token",
              r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-]{60,}", end=_EW, keys=("atlasv1",)),
    _prefixed("databricks-token", "a Databricks token", r"dapi[a-f0-9]{32}(?:-\d)?"),
    _prefixed("linear-api-key", "a Linear API key", r"lin_(?:api|oauth)_[A-Za-z0-9]{40}"),
    _prefixed("postman-api-key", "a Postman API key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    _prefixed("newrelic-api-key", "a New Relic API key", r"NR(?:AK|II|JS)-[A-Za-z0-9]{27,42}",
              keys=("nrak-", "nrii-", "nrjs-")),
    _prefixed("grafana-token", "a Grafana token",
              r"gl(?:sa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|c_[A-Za-z0-9+/]{32,}={0,2})", keys=("glsa_", "glc_")),
    _prefixed("sentry-token", "a Sentry auth token", r"sntry[su]_[A-Za-z0-9+/=_\-]{40,}", end=_EW),
    _prefixed("atlassian-api-token", "an Atlassian API token",
              r"AT(?:ATT3|CTT3|BB)[A-Za-z0-9_\-=]{28,}", end=_EW, keys=("atatt3", "atctt3", "atbb")),
    _prefixed("doppler-token", "a Doppler token",
              r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}"),
    _prefixed("pulumi-token", "a Pulumi access token", r"pul-[a-f0-9]{40}"),
    _prefixed("square-token", "a Square access token",
              r"(?:sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,43}|EAAA[A-Za-z0-9_\-]{60})", end=_EW,
              keys=("sq0atp-", "sq0csp-", "eaaa")),
    _prefixed("facebook-access-token", "a Facebook access token", r"EAA[A-Za-z0-9]{90,}",
              validate=_generated),
    _prefixed("supabase-token", "a Supabase access token", r"sb(?:p|_secret)_[A-Za-z0-9_]{40,}",
              keys=("sbp_", "sb_secret_")),
    _prefixed("notion-token", "a Notion integration token", r"ntn_[A-Za-z0-9]{40,50}",
              validate=_generated),
    _prefixed("notion-legacy-token", "a Notion integration token", r"secret_[A-Za-z0-9]{43}",
              validate=_generated),
    _prefixed("airtable-token", "an Airtable personal access token",
              r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    _prefixed("replicate-token", "a Replicate API token", r"r8_[A-Za-z0-9]{37}"),
    _prefixed("groq-api-key", "a Groq API key", r"gsk_[A-Za-z0-9]{48,56}"),
    _prefixed("xai-api-key", "an xAI API key", r"xai-[A-Za-z0-9]{70,90}"),
    _prefixed("perplexity-api-key", "a Perplexity API key", r"pplx-[A-Za-z0-9]{40,60}"),
    _prefixed("langsmith-api-key", "a LangSmith API key",
              r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"),
    _prefixed("tailscale-key", "a Tailscale key",
              r"tskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]+-[A-Za-z0-9]{20,}"),
    _prefixed("docker-hub-pat", "a Docker Hub access token", r"dckr_pat_[A-Za-z0-9_\-]{27,}", end=_EW),
    _prefixed("pinecone-api-key", "a Pinecone API key", r"pcsk_[A-Za-z0-9_]{40,}"),
    _prefixed("figma-token", "a Figma access token", r"fig[du]_[A-Za-z0-9_\-]{38,}", end=_EW,
              keys=("figd_", "figu_")),
    _prefixed("planetscale-token", "a PlanetScale token",
              r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-.]{32,64}", end=_EW),
    _prefixed("fly-token", "a Fly.io token", r"fm[12]_[A-Za-z0-9+/=_\-]{50,}", end=_EW,
              keys=("fm1_", "fm2_")),
    _prefixed("jfrog-token", "a JFrog token",
              r"(?:AKCp[A-Za-z0-9]{69}|cmVmdGtu[A-Za-z0-9]{56})", keys=("akcp", "cmvmdgtu")),
    _prefixed("firebase-fcm-key", "a Firebase Cloud Messaging server key",
              r"AAAA[A-Za-z0-9_\-]{7}:APA91b[A-Za-z0-9_\-]{100,}", end=_EW),
    _prefixed("braintree-token", "a Braintree access token",
              r"access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}"),
    _prefixed("contentful-token", "a Contentful personal access token",
              r"CFPAT-[A-Za-z0-9_\-]{43}", end=_EW),
    _prefixed("buildkite-token", "a Buildkite token", r"bku[ae]_[a-f0-9]{40}", keys=("bkua_", "bkue_")),
    _prefixed("resend-api-key", "a Resend API key", r"re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}"),
    _prefixed("twitter-bearer-token", "a Twitter/X bearer token",
              r"A{20,24}[A-Za-z0-9%]{60,}",
              validate=lambda v: _entropy(v) >= 3.5, keys=("aaaaaaaaaaaaaaaaaaaa",)),
    _prefixed("mapbox-token", "a Mapbox secret token",
              r"sk\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{20,}", end=_EW),
    Rule("private-key", "a private key",
         r"-----BEGIN[ A-Z0-9]{0,24}PRIVATE KEY(?: BLOCK)?-----[ \t]*"
         rf"(?:{_NL}[ \t]*)+(?:{_PEM_HEADER}(?:{_NL}[ \t]*)+)*"
         rf"(?P<v>[A-Za-z0-9+/=]{{16,}}(?:[ \t]*{_NL}[ \t]*[A-Za-z0-9+/=]+(?=[ \t]*(?:{_NL}|-----|$)))*)",
         ("private key",), _pem_body, STRUCTURAL),
    _prefixed("jwt", "a JSON Web Token",
              r"eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{16,}",
              validate=_jwt, end=_EW),
    Rule("url-credentials", "a password in a URL",
         r"://(?<=[A-Za-z0-9]://)[^\s:@/?#\"'<>]{1,100}:"
         r"(?P<v>[^\s@/?#\"'<>]{1,200})@(?=[A-Za-z0-9\[])",
         ("://",), _password, STRUCTURAL),
    Rule("bearer-token", "a bearer token",
         r"(?:bearer(?<![a-z0-9]bearer)[ \t]+(?P<v1>[a-z0-9._~+/\-]{16,}=*)"
         r"|authorization[\"']?[ \t]*[:=][ \t]*[\"']?(?:token|bot|apikey|api-key|api-token|key|sso-key)[ \t]+"
         r"(?P<v2>[a-z0-9._~+/:\-]{16,}=*))",
         ("bearer", "authorization"), _random_looking, STRUCTURAL, view="lowered"),
    Rule("basic-auth", "basic authentication credentials",
         r"(?i:authorization)[\"']?[ \t]*[:=][ \t]*[\"']?(?i:basic)[ \t]+"
         r"(?P<v>[A-Za-z0-9+/]{8,}={0,2})",
         ("basic",), _basic_credentials, STRUCTURAL),
    Rule("cli-password", "a password on a command line",
         r"-(?:(?<!\S-)(?:u|-user|-basic-auth)[ \t=]*[\"']?[^\s:\"'$]{1,100}:[\"']?(?P<v1>[^\s\"']{3,200})"
         r"|-(?:(?:db|admin|user|client|api|auth|access|bot|app|root|registry|proxy|vault)-)?"
         r"(?:password|passwd|token|secret|api-?key|access-key|secret-key)(?:=|[ \t]+)"
         r"[\"']?(?P<v2>[^\s\"']{3,200}))",
         ("-u", "-basic-auth", "-password", "-passwd", "-token", "-secret", "-apikey", "-api-key", "-access-key"),
         _literal, STRUCTURAL),
    Rule("storage-account-key", "a cloud storage account key",
         r"(?:key|storage|azure|account|blob)[^\n]{0,60}?(?<![a-z0-9+/])(?P<v>[a-z0-9+/]{86}==)(?![a-z0-9+/=])",
         ("==",), _storage_key, view="lowered"),
    Rule("url-path-token", "a bot token in a URL path",
         r"/bot(?P<v>\d{6,12}:[A-Za-z0-9_\-]{30,46})(?=[/?#\s\"'`]|$)", ("/bot",), _plausible,
         STRUCTURAL),
    Rule("config-password", "a password in a configuration file",
         r"(?:<(?P<tag>(?:[a-z]+[_\-.]?)?(?:password|passwd|passphrase|secret|token|api[_\-.]?key|"
         r"client[_\-.]?secret|secret[_\-.]?key))>[ \t]*(?P<v1>[^<\s]{1,256})[ \t]*</(?P=tag)>"
         r"|key[ \t]*=[ \t]*\"[^\"\n]{0,60}(?:password|passwd|secret|token|apikey|api_key|pwd)[^\"\n]{0,40}\""
         r"[ \t]+value[ \t]*=[ \t]*\"(?P<v2>[^\"\n]{1,256})\""
         r"|(?<![a-z])login[ \t]+\S+[ \t]+password[ \t]+(?P<v3>\S{1,256})"
         r"|;[ \t]*pass(?:word)?[ \t]*=[ \t]*(?P<v4>[^;\"'\s]{1,256})(?=;|$|[ \t]*[\"']))",
         ("password", "passwd", "passphrase", "secret", "token", "key", ";pass"), _named_value, STRUCTURAL,
         view="lowered", prefilter=r"</|key[ \t]*=|login[ \t]|;[ \t]*pass"),
    Rule("db-cli-password", "a password on a command line",
         r"(?:(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;]{0,80}?[ \t]-p(?:[\"'](?P<v1>[^\"'\n]{3,200})[\"']"
         r"|(?P<v2>[^\s\"'\-][^\s\"']{2,200}))|sshpass[ \t]+-p[ \t]*[\"']?(?P<v3>[^\s\"']{3,200})"
         r"|redis-cli\b[^\n|;]{0,80}?[ \t]-a[ \t]+[\"']?(?P<v4>[^\s\"']{3,200}))",
         ("mysql", "mariadb", "sshpass", "redis-cli"), _literal, STRUCTURAL),
    Rule("env-assignment", "a secret in an environment variable assignment",
         rf"\n[ \t]*(?:export[ \t]+|set[ \t]+)?{_ENV_NAME}[ \t]*=[ \t]*{_VALUE}",
         ("pass", "pwd", "secret", "token", "key", "credential"), _dotenv_value, DOTENV, view="lines",
         prefilter=r"(?:SECRET|TOKEN|PASSWORD|PASSWD|PASS|PWD|PASSPHRASE|CREDENTIALS?|KEY)[ \t]*="),
    Rule("keyword-assignment", "a secret assigned to a password, token or key",
         rf"{_KEY_NAME}{_QUOTE}{_OP}{_VALUE}",
         ("pass", "pwd", "secret", "credential", "auth", "token", "key"), _keyword_value, KEYWORD, view="lowered",
         prefilter=r"(?:pass|pwd|secret|credential|auth|token|key)[a-z_.\-]*(?:\\?[\"'`]|%2[27])?[ \t]*"
                   r"(?:[=:]|%3[da])"),
    Rule("encoded-secret", "a base64-encoded secret printed after its name",
         rf"(?:pass(?:word|wd)?|secret|{_TOKEN_WORD}|credentials?|key(?<=[a-z_]key)(?<!public.key)(?<!publickey))"
         rf"(?:[\"'`]?[ \t]*[:=]|[^\n]{{0,80}}?(?:printed|"
         rf"prints|shows?|outputs?|gives?|returns?|returned|decodes? to|->|=>)|[^\n]{{0,40}}?\.data\.[^\n]{{0,60}}?)"
         rf"[\s\"'`]{{1,4}}(?P<v>{_B64_VALUE})(?![A-Za-z0-9+/=])",
         ("password", "passwd", "secret", "token", "credential", "key"), _encoded_secret, KEYWORD,
         view="lowered", prefilter=r"(?:[:=>]|printed|prints|shows?|outputs?|gives?|returns?|returned|decodes? to)"
                                   r"[\s\"'`]{1,4}[a-z0-9+/]{12}|\.data\."),
    Rule("spoken-password", "a password stated in prose",
         rf"(?:pass(?:word|phrase|wd)?|pwd|pw|passcode|pin|secret|{_TOKEN_WORD}|api key|credentials?|login|creds)"
         r"(?:[ \t]+(?:for|of|on|to)[ \t]+[^\n]{1,40}?)?(?:[ \t]+(?:is|was|are|set to|changed to|reset to)|[ \t]*[:=])"
         r"[ \t]+(?:still[ \t]+|now[ \t]+|just[ \t]+)?(?:[^\s/:]{1,40}[ \t]*(?:/|:)[ \t]*)?[\"'`]?"
         r"(?P<v>[^\s\"'`]{6,128})",
         ("pass", "pwd", "pw ", "pin", "secret", "token", "api key", "credential", "login", "creds"),
         _spoken_password, KEYWORD, view="lowered",
         prefilter=r"(?:pass|pw|pin|secret|token|api key|credential|login|creds)[a-z]*(?:[ \t]+(?:for|of|on|to)"
                   r"[ \t]+[^\n]{1,40}?)?(?:[ \t]+(?:is|was|are|set to|changed to|reset to)|[ \t]*[:=])[ \t]"),
    Rule("named-secret", "a secret assigned to a name that says it is one",
         rf"{_SECRET_NAME}(?:[\"'`]?[ \t]*(?:=>|:=|==|=|:|%3[da])[ \t]*|[\"'`][ \t]*,[ \t]*(?=[\"'`]))"
         rf"{_VALUE}",
         ("pass", "pwd", "secret", "token", "cred", "key", "auth"), _named_value, KEYWORD, view="lowered",
         # a comma follows a quoted name only: "tokens, ..." in prose (and in lh's own output) is no candidate
         prefilter=r"(?:pass|pwd|secret|token|cred|key|auth)[a-z0-9_.\-]*"
                   r"(?:[\"'`]?[ \t]*(?:[=:]|%3[da])|[\"'`][ \t]*,)"),
)  # fmt: skip
# On a long text a rule whose pattern starts with a literal runs ungated: `re` finds the literal as
# fast as a substring search, and searching a long text for every keyword costs more than the rules.
_SHORT = 8192
_HEADED = frozenset(r.id for r in RULES if r.bounded and r.view == "text" and len(_head_of(r.pattern)) > 1)
_KEYWORDS = {
    long: tuple(dict.fromkeys(k for rule in RULES if not (long and rule.id in _HEADED) for k in rule.keywords))
    for long in (False, True)
}


def _redact(value: str) -> str:
    """At most four leading characters (fewer for short values), then a fixed mask."""
    return value[: min(4, len(value) // 5)] + _MASK


def _raw_candidates(text: str) -> list[tuple[int, int, int, Rule]]:
    """The candidates of a text: each rule runs only when one of its keywords occurs in it."""
    lowered = lower(text)
    long = len(text) >= _SHORT
    present = {keyword for keyword in _KEYWORDS[long] if keyword in lowered}  # each keyword searched once
    found: list[tuple[int, int, int, Rule]] = []
    for rule in RULES:
        if rule.keywords and not (long and rule.id in _HEADED) and present.isdisjoint(rule.keywords):
            continue
        view = text if rule.view == "text" else lowered if rule.view == "lowered" else "\n" + text
        if prefiltered(rule, view):
            shift = 1 if rule.view == "lines" else 0  # the "lines" view starts with an added newline
            found += [(start, end, rule.rank, rule) for start, end in spans(rule, view, text, shift)]
    return found


def _edited(text: str, first: int, last: int, edits: Iterable[tuple[int, int, str]]) -> tuple[str, list[int]]:
    """`text[first:last]` with each (start, end, replacement) made, and the place in `text` of each of
    its characters (a replacement's: where it starts) and of its end."""
    parts: list[str] = []
    origin: list[int] = []
    done = first
    for start, end, new in edits:
        parts += [text[done:start], new]
        origin += [*range(done, start), *[start] * len(new)]
        done = end
    parts.append(text[done:last])
    return "".join(parts), [*origin, *range(done, last), last]


def _candidates(text: str) -> list[tuple[int, int, int, Rule]]:
    """Candidates of a text, also in its URL-encoded lines decoded and across cuts, each mapped back."""
    found = _raw_candidates(text)
    at = text.find("%")
    while at >= 0:
        start, end = _lines(text, at, at)
        escapes = re.compile("%([2-7][0-9A-Fa-f])").finditer(text, start, end)  # printable ones
        decoded, origin = _edited(text, start, end, ((m.start(), m.end(), chr(int(m[1], 16))) for m in escapes))
        if len(decoded) < end - start:  # a decoded line: every candidate, mapped back
            found += [(origin[s], origin[e], rank, rule) for s, e, rank, rule in _raw_candidates(decoded)]
        at = text.find("%", end)
    for joined, origin, least in _joined_texts(text):
        for start, end, rank, rule in _raw_candidates(joined):
            if rank >= least and origin[end - 1] + 1 - origin[start] != end - start:  # it crosses a cut
                found.append((origin[start], origin[end - 1] + 1, rank, rule))
    return found


# Where a value may be cut in two: between adjacent string literals ("ab" "cd", 'ab' + 'cd',
# "ab" .\n "cd"), and where a long token wraps at a line end. Both are found from the character
# that starts them, and a wrap counts only between two runs that mix letters and digits.
_GLUE = r"[ \t]*(?:\+|\.|&|\|\|)?[ \t]*"
_LITERAL_JOIN = rf"([\"'])(?<=[A-Za-z0-9+/=_\-][\"']){_GLUE}(?:\\?\r?\n{_GLUE})?\1(?=[A-Za-z0-9+/=_\-])"
_WRAP = r"\n(?:(?<=[A-Za-z0-9+/=_\-]{12}\n)|(?<=[A-Za-z0-9+/=_\-]{12}[\r\\]\n))[ \t]*(?=[A-Za-z0-9+/=_\-]{4})"
_RUN = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-"


def _joins(text: str) -> list[tuple[int, int, int]]:
    """(start, end, least rank) of every cut to remove: literal joins admit every rule,
    line wraps only provider formats and structural ones (a prose line break is no cut)."""
    cuts = []
    if '"' in text or "'" in text:
        cuts += [(m.start(), m.end(), KEYWORD) for m in re.finditer(_LITERAL_JOIN, text)]
    for match in re.finditer(_WRAP, text):
        cut = match.start() - (text[match.start() - 1] in "\r\\")
        before = text[max(0, cut - 40) : cut]
        after = text[match.end() : match.end() + 40]
        left = len(before) - len(before.rstrip(_RUN))
        head = len(after) - len(after.lstrip(_RUN))
        if left >= 12 and head >= 4 and _mixed(before[len(before) - left :]) and _mixed(after[:head]):
            cuts.append((cut, match.end(), STRUCTURAL))
    return sorted(cuts)


def _lines(text: str, start: int, end: int) -> tuple[int, int]:
    """Where the lines holding `text[start:end]` start and end."""
    last = text.find("\n", end)
    return text.rfind("\n", 0, start) + 1, len(text) if last < 0 else last


def _joined_texts(text: str) -> list[tuple[str, list[int], int]]:
    """The lines around each group of cuts with the cuts removed: (text, origin of each of its
    characters and of its end, least rank a candidate across a cut needs)."""
    groups: list[list[tuple[int, int, int]]] = []
    for cut in _joins(text):  # cuts whose surrounding lines touch are joined together
        if groups and cut[0] - groups[-1][-1][1] < 400:
            groups[-1].append(cut)
        else:
            groups.append([cut])
    return [
        (*_edited(text, *_lines(text, group[0][0], group[-1][1]), ((start, end, "") for start, end, _ in group)),
         min(rank for _, _, rank in group))
        for group in groups
    ]  # fmt: skip


_ORDER: dict[str, int] = {}  # each rule's place in the registry, worked out once


def _best(candidates: list[tuple[int, int, int, Rule]]) -> list[tuple[int, int, Rule]]:
    """Of overlapping candidates keep the best-ranked, then the longest, then the one
    listed first (registry order puts the specific before the general); sorted by start."""
    if not _ORDER:
        _ORDER.update((rule.id, index) for index, rule in enumerate(RULES))
    starts: list[int] = []
    chosen: list[tuple[int, int, Rule]] = []
    for start, end, _, rule in sorted(candidates, key=lambda c: (-c[2], c[0] - c[1], _ORDER[c[3].id], c[0])):
        at = bisect.bisect_left(starts, start)
        if (at and chosen[at - 1][1] > start) or (at < len(chosen) and chosen[at][0] < end):
            continue
        starts.insert(at, start)
        chosen.insert(at, (start, end, rule))
    return chosen


def scan(text: str, *, allow: Iterable[str] = ()) -> list[Finding]:
    """Findings sorted by (start, rule); a finding of a rule in `allow` is dropped after overlaps are
    settled, so an allowed value does not resurface under a weaker rule."""
    return _findings(text, _candidates(text), allow)


def scan_many(texts: Sequence[str], allows: Sequence[Iterable[str]] = ()) -> list[list[Finding]]:
    """`scan` of each text with its allowed rules in `allows` (or none); a text repeated is scanned once."""
    if allows and len(allows) != len(texts):
        raise ValueError("scan_many needs one allowance per text, or none at all")
    candidates = {text: _candidates(text) for text in dict.fromkeys(texts)}
    return [_findings(text, candidates[text], allows[index] if allows else ()) for index, text in enumerate(texts)]


def _findings(text: str, candidates: list[tuple[int, int, int, Rule]], allow: Iterable[str]) -> list[Finding]:
    if not candidates:
        return []
    from lean_harness.scanning.finding import Finding

    allowed = frozenset(allow)
    findings, line, line_start, counted = [], 1, 0, 0
    for start, end, rule in _best(candidates):
        line += text.count("\n", counted, start)
        line_start, counted = text.rfind("\n", 0, start) + 1, start
        if rule.id not in allowed:
            findings.append(
                Finding(rule.id, rule.description, line, start - line_start + 1, start, end,
                        _redact(text[start:end]))
            )  # fmt: skip
    return findings


def hide(text: str, findings: Sequence[Finding]) -> str:
    """The text with every finding's value replaced by its redacted preview."""
    spans: list[list[int]] = []
    for start, end in sorted((f.start, f.end) for f in findings):
        if spans and start < spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end])
    parts, cursor = [], 0
    for start, end in spans:
        parts += [text[cursor:start], _redact(text[start:end])]
        cursor = end
    return "".join(parts) + text[cursor:]
