"""A second corpus, in the shapes public secret-scanner test suites use, with values drawn here.

The rules of lean-harness were not written against these shapes. They follow the categories
that the public test cases of gitleaks (its generic, curl and header rules), detect-secrets
(its keyword plugin) and trufflehog exercise: true positives such as semi-generic
assignments in many languages, curl `--user` and header credentials, credentials in JSON and
config files; and false positives such as ids and UUIDs named like keys, public keys, key
lengths, token URLs, CSRF tokens, empty variables, build hashes and placeholders. No test case
is copied: every name and value is written or drawn from a seeded generator at run time.
"""

from __future__ import annotations

import base64
import uuid

from corpus import ALNUM, HEX, Gen, Sample

PUNCT = "!#%*+-.=@^_~"


def positives(g: Gen) -> list[tuple[str, str, str]]:
    """(kind, text, secret as written) triples."""

    def strong(n: int = 20) -> str:
        while True:
            value = g.s(n, ALNUM)
            if any(c.isdigit() for c in value) and any(c.isupper() for c in value):
                return value

    def password(n: int = 14) -> str:
        return strong(n - 2) + g.s(1, "!@#%^*~") + g.digits(1, 9)

    def b64(n: int) -> str:
        return base64.b64encode(bytes(g.r.randrange(256) for _ in range(n))).decode()

    user = g.pick("deploy", "ci-bot", "jsmith", "svc_backup", "admin", "grafana")
    rows: list[tuple[str, str, str]] = []
    add = rows.append
    # semi-generic assignments, as generic-rule suites write them
    v = strong(60)
    add(("generic-assignment", f'some_api_token_42 = "{v}"', v))
    v = strong(30)
    add(("generic-assignment", f"creds = {v}", v))
    v = g.s(64, HEX)
    add(("generic-assignment", f'"client_secret" : "{v}",', v))
    v = g.s(64, HEX)
    add(("generic-assignment", f'"credentials" : "{v}"', v))
    v = strong(30)
    add(("generic-assignment", f"myVaultSecretString={v}", v))
    v = g.s(80, ALNUM + "-_.=")
    add(("generic-assignment", f"private-key: {v}", v))
    v = strong(28)
    add(("generic-assignment", f"passwd = {v}", v))
    v = strong(30)
    add(("generic-assignment", f"wip_secret_remove_later = {v}", v))
    v = str(uuid.UUID(int=g.r.getrandbits(128)))
    add(("generic-assignment", f'cfg.EnvOr("api_token", "{v}")', v))
    v = b64(40)
    add(("generic-assignment", f'"user_auth": "{v}"', v))
    # keyword-plugin shapes: many operators and quotes
    v = password(16)
    for template in (
        'password = "{v}"',
        "db_password_prod = '{v}'",
        'apikey := "{v}"',
        "my_secret: {v}",
        "$password = '{v}';",
        'private static final String PASSWORD = "{v}";',
        'secret => "{v}",',
        "token == '{v}'",
        "theapikey: '{v}'",
        "<password>{v}</password>",
        "export MYSQL_ROOT_PASSWORD={v}",
        "set DB_PASS={v}",
        "ENV SERVICE_TOKEN={v}",
        '"password": "{v}"',
        "password: {v}",
    ):
        value = password(g.r.randrange(12, 24))
        add(("keyword-operators", template.format(v=value), value))
    del v
    # curl credentials
    for template in (
        "curl --cacert ca.pem -u {u}:{p} https://localhost:9200",
        "curl -k -X POST https://cache.internal:11222/rest \\\n  -H 'Content-type: text/plain' \\\n  -u {u}:{p}",
        "curl -s --user '{u}:{p}' https://api.mail.test/v3/messages",
        'curl -s -v --user "{u}:{p}" "https://api.corp.test/me"',
        "curl --user {u}:'{p}' -iX PATCH https://api.corp.test/x",
        "$ curl https://api.box.test/oauth2/token \\\n  --user {u}:{p} --data grant_type=authorization_code",
    ):
        value = password(g.r.randrange(10, 20)).replace("'", "")
        add(("curl-user", template.format(u=user, p=value), value))
    for header in ("Authorization: Bearer {v}", "Authorization: Token {v}", "X-Api-Key: {v}", "apikey: {v}",
                   "Authorization: Api-Token {v}", "X-Octopus-ApiKey: {v}", "Token: {v}"):  # fmt: skip
        value = g.pick(strong(32), g.s(40, HEX), str(uuid.UUID(int=g.r.getrandbits(128))))
        add(("curl-header", f'curl -X GET https://api.corp.test/v1 -H "{header.format(v=value)}"', value))
    for _ in range(4):
        value = base64.b64encode(f"{user}:{password(14)}".encode()).decode()
        add(("curl-header", f"curl -H 'Authorization: Basic {value}' https://api.corp.test/", value))
    # credentials in config files
    value = password(18)
    add(("config-file", f"spring.datasource.password={value}", value))
    value = password(18)
    add(("config-file", f'<add key="StorageSecret" value="{value}" />', value))
    value = password(18)
    add(("config-file", f"Server=db;Database=app;User Id={user};Password={value};", value))
    value = password(18)
    add(("config-file", f"[client]\nuser = {user}\npassword = {value}", value))
    value = password(18)
    add(("config-file", f"machine api.corp.test login {user} password {value}", value))
    value = b64(30)
    add(("config-file", f'{{"auths": {{"registry.corp.test": {{"auth": "{value}"}}}}}}', value))
    value = base64.b64encode(f"{user}:{password(16)}".encode()).decode()
    add(("config-file", f'{{"auths": {{"registry.corp.test": {{"auth": "{value}"}}}}}}', value))
    value = password(18)
    add(("config-file", f"    <password>{value}</password>\n    <username>{user}</username>", value))
    value = strong(40)
    add(("config-file", f"AZURE_CLIENT_SECRET: {value}", value))
    value = strong(32)
    add(("config-file", f"  secretAccessKey: {value}", value))
    return rows


def negatives(g: Gen) -> list[tuple[str, str]]:
    """(kind, text) pairs that must not be reported."""

    def uid() -> str:
        return str(uuid.UUID(int=g.r.getrandbits(128)))

    def ident(n: int = 22) -> str:
        return g.s(n, ALNUM)

    return [
        ("id-named-like-a-key", f'"accessor":"{ident(16)}",'),
        ("id-named-like-a-key", f"report_access_id: {uid()}"),
        ("id-named-like-a-key", f'accessibilityOptionId = "{uid()}"'),
        ("id-named-like-a-key", f"credentialsId: '{uid()}'"),
        ("id-named-like-a-key", f'  "credentialId": "{ident()}",'),
        ("id-named-like-a-key", f'clientId = "{uid()}"'),
        ("id-named-like-a-key", f'"kms_key_id": "{uid()}",'),
        ("id-named-like-a-key", f"<UserSecretsId>{uid()}</UserSecretsId>"),
        ("id-named-like-a-key", f'TOKEN_AUDIENCE_ID = "{uid()}"'),
        ("version-or-name", f"COMMUNICATION_API_VERSION=rc0.13.0_2023{g.digits(1000, 9999)}-SNAPSHOT"),
        ("version-or-name", f"MantleAPI_version={g.s(40, HEX)}"),
        ("version-or-name", "apiUrl=gateway.corp.test"),
        ("version-or-name", 'X-API-Name": "NRG0-Hermes-INTERNAL-API",'),
        ("version-or-name", 'LLM_SECRET_NAME = "NEXUS-GPT4-API-KEY"'),
        ("version-or-name", 'author = "j.doe@mail.test",'),
        ("version-or-name", f'keyword: "Befaehigung_P{g.digits(1, 9)}"'),
        ("version-or-name", '"key_name": "prod5zyxlmy-cmk",'),
        ("public-or-structural-key", f'public_key = "{ident(43)}"'),
        ("public-or-structural-key", f'publicToken = "{ident(43)}"'),
        ("public-or-structural-key", f"primaryKey={ident(30)}"),
        ("public-or-structural-key", f"foreignKey={ident(30)}"),
        ("public-or-structural-key", f"key_down_event={ident(30)}"),
        ("public-or-structural-key", f"issuerKeyHash={g.s(40, HEX)}"),
        ("public-or-structural-key", "app.keystore.file=env/cert.p12"),
        ("public-or-structural-key", "doc.Security.KeySize = PdfEncryptionKeySize.Key128Bit;"),
        ("public-or-structural-key", "key_length = XSalsa20.key_length"),
        ("public-or-structural-key", "secret_length = X25519.secret_length"),
        (
            "public-or-structural-key",
            'const keyChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"',
        ),
        ("public-or-structural-key", '"bucket_key": "SalesResults-1.2"'),
        ("public-or-structural-key", "KeyPair = X25519.KeyPair"),
        ("token-url-or-file", "    access_token_url='https://github.com/login/oauth/access_token',"),
        ("token-url-or-file", '<SourceFile TokenFile="RTL_INST_CODE.cer">'),
        ("token-url-or-file", f"csrf-token={base64.b64encode(bytes(g.r.randrange(256) for _ in range(64))).decode()}"),
        ("token-url-or-file", 'notes = "Maven - io.jsonwebtoken:jjwt-jackson-0.11.2"'),
        ("empty-variable", "GITHUB_API_KEY=\nDYNATRACE_API_KEY="),
        ("empty-variable", "snowflake.password=\njdbc.snowflake.url="),
        ("empty-variable", "PuttyPassword=0"),
        ("build-hash", f'SRCREV_moby = "{g.s(40, HEX)}"'),
        ("build-hash", f'LIC_FILES_CHKSUM = "file://LICENSE;md5={g.s(32, HEX)}"'),
        ("placeholder-credential", "curl -i -u 'test:test' https://localhost:9200"),
        ("placeholder-credential", 'curl -sL --user "$1:$2" "$3" > "$4"'),
        ("placeholder-credential", "curl -u <user:password> https://api.corp.test/endpoint"),
        ("placeholder-credential", "curl --user neo4j:[PASSWORD] http://[IP]:7474/db/data/"),
        ("placeholder-credential", 'curl -u "someuser" http://localhost:15130/api/check_user/'),
        ("placeholder-credential", 'curl -u "${_username}:${_password}"'),
        ("placeholder-credential", "curl --user '$USERNAME:$PASSWORD' $API_URL/$COMMIT"),
        ("placeholder-credential", 'curl --user "xxx:yyy" https://api.corp.test/'),
        ("placeholder-credential", 'curl -u "${{ env.ELK_ID }}:${{ env.ELK_PASS }}" https://elk.corp.test'),
        ("placeholder-credential", 'curl -X POST --user "$(cat ./login.txt):$(cat ./password.txt)"'),
        ("placeholder-credential", 'curl --insecure --user "username:password" https://localhost/'),
        ("placeholder-credential", 'curl -H "Authorization: Bearer XXXXXXXXXXXX" https://api.corp.test'),
        ("placeholder-credential", 'curl -H "Authorization: Bearer <Openverse API token>" https://api.corp.test'),
        ("placeholder-credential", 'curl -H "Authorization: Token **********" https://api.corp.test'),
        ("placeholder-credential", 'curl -H "Authorization: Bearer $API_KEY" https://api.corp.test'),
        ("placeholder-credential", 'curl -H "Authorization: Bearer $(gcloud auth print-access-token)" https://x.test'),
        ("placeholder-credential", 'password = ""'),
        ("placeholder-credential", 'theapikey: "somefakekey"'),
        ("placeholder-credential", "password: ${DB_PASSWORD}"),
        ("placeholder-credential", "secret_key: {{ vault_secret_key }}"),
        ("placeholder-credential", "PASSWORD = os.environ['PASSWORD']"),
        ("placeholder-credential", "password combination.\n\nR5: Regulatory--21"),
        ("prose", "At the next meeting we will discuss our password policies."),
        ("prose", "The token expires after 15 minutes; refresh it with the refresh token."),
        ("prose", "Rotate the API key every 90 days and store it in the vault."),
        ("prose", "The password is stored in 1Password under 'staging db'."),
        ("prose", "Login is via SSO; no local password is needed."),
        ("prose", "The secret key base is generated on first boot by the entrypoint."),
    ]


def build(seed: int = 7, rounds: int = 4) -> list[Sample]:
    """Positives and negatives from `rounds` draws of every shape."""
    g = Gen(seed)
    samples: list[Sample] = []
    seen: set[str] = set()
    for _ in range(rounds):
        drawn = [*positives(g), *((kind, text, "") for kind, text in negatives(g))]
        samples += [Sample(kind, text, secret) for kind, text, secret in drawn if text not in seen]
        seen.update(text for _, text, _ in drawn)
    return samples
