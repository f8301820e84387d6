"""Vocabulary for the synthetic project memory: modules, platforms, errors, tools.

Each module has the words its own entries use (`words`) and other words a reader might
ask with (`alt`), so that paraphrase queries do not simply repeat the entry.
"""

from __future__ import annotations

# name, path, class, words used in entries, words used only by queries, a method in camelCase
MODULES = [
    ("lock", "src/store/lock.py", "FileLock", "file locking", "mutex on the store", "acquireShared"),
    ("config", "src/app/config.py", "ConfigLoader", "settings loading", "reading the toml options", "fromEnv"),
    ("cache", "src/core/cache.py", "DiskCache", "on-disk cache", "memoized results", "evictStale"),
    ("http_client", "src/net/http_client.py", "HttpClient", "HTTP client", "outgoing requests", "retryPolicy"),
    ("scheduler", "src/jobs/scheduler.py", "JobScheduler", "job scheduling", "cron-like queue", "nextRunAt"),
    ("auth", "src/api/auth.py", "TokenAuth", "token authentication", "login and bearer tokens", "refreshToken"),
    ("db", "src/store/db.py", "SqliteStore", "database layer", "sqlite persistence", "withTransaction"),
    (
        "migrations",
        "src/store/migrations.py",
        "MigrationRunner",
        "schema migrations",
        "upgrading tables",
        "applyPending",
    ),
    ("render", "src/ui/render.py", "TemplateRenderer", "template rendering", "jinja pages", "renderPartial"),
    ("cli", "src/app/cli.py", "CommandParser", "command line parsing", "argv handling", "parseArgs"),
    ("watcher", "src/fs/watcher.py", "FileWatcher", "file watching", "change notifications", "onModified"),
    ("upload", "src/api/upload.py", "ChunkedUploader", "chunked uploads", "sending big files", "resumeUpload"),
    ("query_engine", "src/core/query_engine.py", "QueryEngine", "full-text queries", "searching documents", "topK"),
    ("metrics", "src/obs/metrics.py", "MetricsExporter", "metrics export", "prometheus counters", "observeLatency"),
    (
        "log_setup",
        "src/obs/log_setup.py",
        "LogFormatter",
        "log formatting",
        "structured logging output",
        "formatRecord",
    ),
    (
        "plugin_loader",
        "src/ext/plugin_loader.py",
        "PluginRegistry",
        "plugin discovery",
        "entry point extensions",
        "loadAll",
    ),
    ("git_ops", "src/vcs/git_ops.py", "GitRepo", "git wrapper", "running git commands", "currentBranch"),
    (
        "serializer",
        "src/core/serializer.py",
        "JsonEncoder",
        "JSON encoding",
        "dumping objects to json",
        "encodeDatetime",
    ),
    ("rate_limit", "src/net/rate_limit.py", "TokenBucket", "rate limiting", "request throttling", "tryAcquire"),
    ("cookie_jar", "src/api/cookie_jar.py", "CookieJar", "cookie storage", "browser cookies", "setCookie"),
    ("thumbnails", "src/media/thumbnails.py", "Thumbnailer", "thumbnail generation", "image resizing", "resizeTo"),
    ("mailer", "src/notify/mailer.py", "MailSender", "outgoing mail", "sending emails via smtp", "sendBatch"),
    ("pdf_export", "src/report/pdf_export.py", "PdfWriter", "PDF export", "printable reports", "addPage"),
    ("i18n", "src/ui/i18n.py", "Translator", "translations", "localized strings", "pluralForm"),
    ("archive", "src/fs/archive.py", "ZipPacker", "zip archives", "compressing bundles", "addTree"),
    ("hashing", "src/core/hashing.py", "ContentHasher", "content hashing", "sha256 digests", "digestFile"),
    ("worker", "src/jobs/worker.py", "QueueWorker", "background workers", "async task consumers", "pollOnce"),
    ("payments", "src/billing/payments.py", "PaymentGateway", "card payments", "charging customers", "captureCharge"),
    (
        "geocode",
        "src/geo/geocode.py",
        "Geocoder",
        "address geocoding",
        "turning addresses into coordinates",
        "lookupAddress",
    ),
    ("csv_import", "src/io/csv_import.py", "CsvImporter", "CSV import", "spreadsheet ingestion", "readRows"),
    (
        "webhooks",
        "src/api/webhooks.py",
        "WebhookDispatcher",
        "webhook delivery",
        "calling customer endpoints",
        "signPayload",
    ),
    ("feature_flags", "src/core/feature_flags.py", "FlagStore", "feature flags", "toggles for rollout", "isEnabled"),
]

# key, how entries name it, how queries name it
PLATFORMS = [
    ("windows", "Windows", ["windows", "win32", "the windows runner"]),
    ("macos", "macOS", ["mac", "macos", "darwin"]),
    ("alpine", "Alpine (musl)", ["alpine", "musl"]),
    ("arm64", "the arm64 runners", ["arm", "aarch64", "arm64"]),
    ("py313", "Python 3.13", ["python 3.13", "py313", "newest python"]),
]

HANG_CAUSES = {
    "windows": [
        ("the temporary directory cannot be removed while a handle is still open", "close the handle before cleanup"),
        ("os.rename refuses to overwrite an existing destination", "switch to os.replace"),
        ("signal.SIGALRM does not exist there, so the watchdog never fires", "use a threading.Timer watchdog"),
        ("the subprocess waits on a console window that never closes", "pass creationflags=CREATE_NO_WINDOW"),
    ],
    "macos": [
        (
            "the spawn start method re-imports the test module in every child",
            "guard the entry point with if __name__ == '__main__'",
        ),
        ("FSEvents delivers the change notification seconds late", "poll with a two second deadline"),
        ("the default open-files limit of 256 is exhausted", "raise it with resource.setrlimit in conftest"),
    ],
    "alpine": [
        ("musl gives new threads a 128 KiB stack and the recursion overflows it", "set threading.stack_size(4 MiB)"),
        ("getaddrinfo in musl ignores the search domain", "use fully qualified host names"),
    ],
    "arm64": [
        ("the x86 image runs under emulation and is ten times slower", "build a native arm64 image"),
        ("a busy-wait loop never yields on the two-core runner", "sleep in the polling loop"),
    ],
    "py313": [
        ("the new REPL thread keeps stdin open", "run the child with stdin=subprocess.DEVNULL"),
        ("asyncio.get_event_loop() no longer creates a loop in the main thread", "use asyncio.run"),
    ],
}

# import name, distribution name, why it is missing
MISSING_MODULES = [
    ("yaml", "PyYAML", "it is only listed in the dev extra"),
    ("toml", "toml", "the code still imports toml although tomllib replaced it"),
    ("dateutil", "python-dateutil", "a transitive dependency of pandas was dropped"),
    ("pkg_resources", "setuptools", "new virtual environments no longer ship setuptools"),
    ("lxml", "lxml", "there is no wheel for this interpreter yet"),
    ("_cffi_backend", "cffi", "the wheel cache held an incompatible build"),
    ("typing_extensions", "typing-extensions", "it was assumed to come with mypy"),
    ("jinja2", "Jinja2", "the docs requirements file is not installed in this job"),
    ("psutil", "psutil", "it is an optional extra that tests use unconditionally"),
    ("PIL", "Pillow", "the image extra is not part of the default install"),
    ("google.protobuf", "protobuf", "the generated code needs the runtime library"),
    ("bs4", "beautifulsoup4", "the scraper helper was moved into the core package"),
]
JOBS = ["docs", "lint", "release", "nightly", "integration", "wheel-build"]

# code, description in entries, words queries use instead
ERRNOS = [
    ("ECONNRESET", "connection reset by peer", "connection dropped by the server"),
    ("ETIMEDOUT", "connection timed out", "request takes forever then gives up"),
    ("ECONNREFUSED", "connection refused", "nothing listening on the port"),
    ("EPIPE", "broken pipe", "writing after the other side closed"),
    ("ENOTFOUND", "DNS lookup failed", "hostname does not resolve"),
    ("EHOSTUNREACH", "no route to host", "network unreachable"),
]
ERRNO_TRIGGERS = [
    ("the load balancer closes idle keep-alive connections after 60 s", "retry once on a fresh connection"),
    ("the staging proxy drops requests larger than 10 MB", "send the body in chunks"),
    ("the container starts before the dependency is ready", "wait for the health check first"),
    ("the sandbox blocks outbound traffic", "mark the test as needing network and skip it offline"),
]

FLAKY_CAUSES = [
    ("it compares wall-clock timestamps that straddle a second boundary", "freeze time with a fixed clock"),
    ("it binds a fixed port that another test also uses", "bind port 0 and read the assigned port"),
    ("it depends on the order tests run in", "create its own fixture data"),
    ("it assumes the local timezone is UTC", "set TZ=UTC in the test environment"),
    ("it sleeps 100 ms and hopes the background thread finished", "wait on an Event with a timeout"),
    ("it reads a random seed from the environment", "seed the generator explicitly"),
    ("two xdist workers share the same temporary directory", "use the tmp_path fixture"),
    ("it relies on set iteration order", "sort before comparing"),
]

# dependency, version, what broke, the error
UPGRADES = [
    ("markupsafe", "2.1", "the docs build", "ImportError: cannot import name 'soft_unicode' from 'markupsafe'"),
    ("pytest", "8.0", "the test collection", "PytestRemovedIn8Warning: yield tests were removed"),
    (
        "setuptools",
        "70",
        "the editable install",
        "AttributeError: module 'pkg_resources' has no attribute 'declare_namespace'",
    ),
    ("urllib3", "2.0", "the HTTP retries", "ImportError: urllib3 v2 only supports OpenSSL 1.1.1+"),
    ("sqlalchemy", "2.0", "the migrations", "AttributeError: 'Engine' object has no attribute 'execute'"),
    ("pydantic", "2.0", "the settings models", "PydanticUserError: `const` is removed, use `Literal` instead"),
    ("numpy", "2.0", "the report export", "AttributeError: `np.float_` was removed in the NumPy 2.0 release"),
    ("flask", "2.3", "the test client", "ImportError: cannot import name 'escape' from 'flask'"),
    ("werkzeug", "3.0", "the login flow", "ImportError: cannot import name 'url_quote' from 'werkzeug.urls'"),
    ("importlib-metadata", "5.0", "plugin discovery", "AttributeError: 'EntryPoints' object has no attribute 'get'"),
    (
        "click",
        "8.2",
        "the CLI tests",
        "TypeError: CliRunner.__init__() got an unexpected keyword argument 'mix_stderr'",
    ),
    ("black", "24.1", "the lint job", "the new stable style reformats 212 files"),
    ("mypy", "1.11", "the type check", 'error: Unused "type: ignore" comment  [unused-ignore]'),
    (
        "docker",
        "7.0",
        "the integration setup",
        "docker.errors.DockerException: Error while fetching server API version",
    ),
]

MYPY_ERRORS = [
    ('Returning Any from function declared to return "str"', "no-any-return", "cast the json.loads result"),
    ('Missing type parameters for generic type "dict"', "type-arg", "write dict[str, Any]"),
    ('Item "None" of "Match[str] | None" has no attribute "group"', "union-attr", "check the match before using it"),
    ("Function is missing a return type annotation", "no-untyped-def", "annotate the return type"),
    ('Library stubs not installed for "requests"', "import-untyped", "add types-requests to the dev group"),
    ('Argument 1 to "open" has incompatible type "Path | None"', "arg-type", "narrow the optional path first"),
]

# func template, the wrong belief, the truth
BEHAVIOURS = [
    ("load_{m}", "cache its result between calls", "re-reads the file on every call, so call it once per command"),
    ("{m}_path", "return an absolute path", "returns a path relative to the repository root"),
    ("close_{m}", "flush pending writes", "drops anything unflushed; call flush() before it"),
    ("validate_{m}", "stop at the first problem", "collects every problem and returns them sorted by location"),
    ("reset_{m}", "run in a transaction", "commits each step separately, so a crash leaves it half reset"),
    ("{m}_from_dict", "ignore unknown keys", "raises KeyError on the first unknown key"),
]

# setting suffix, real default, claimed default, effect
SETTINGS = [
    ("timeoutSeconds", "30", "10", "slow CI machines were not the cause of the timeouts"),
    ("maxAttempts", "5", "3", "a failing call is tried five times before giving up"),
    ("maxEntries", "10000", "unbounded", "older items are evicted silently"),
    ("poolSize", "4", "16", "bursts queue up behind four connections"),
    ("logLevel", "WARNING", "INFO", "info messages never show without --verbose"),
    ("batchSize", "100", "1000", "imports take ten times more round trips than expected"),
]

NAMING = [
    ("test functions", "test_<unit>_<behaviour>", "test_lock_times_out_when_held", "so a failure names the behaviour"),
    (
        "environment variables",
        "SCREAMING_SNAKE_CASE with the APP_ prefix",
        "APP_CACHE_DIR",
        "so they never clash with the shell's",
    ),
    ("config keys", "camelCase inside dotted sections", "http.timeoutSeconds", "to match the JSON API"),
    ("CLI flags", "kebab-case long options", "--dry-run", "short options only for the five most used flags"),
    (
        "log event names",
        "dotted lowercase nouns then a past-tense verb",
        "upload.chunk.sent",
        "so dashboards can group by prefix",
    ),
    ("metric names", "snake_case with a unit suffix", "request_duration_seconds", "following the Prometheus guide"),
    (
        "migration files",
        "a UTC timestamp then a slug",
        "20240611T0930_add_user_index.sql",
        "so they sort in the order they run",
    ),
    (
        "feature flags",
        "kebab-case with the owning team as prefix",
        "billing-new-invoice-pdf",
        "so stale flags have an owner",
    ),
    (
        "git branches",
        "type/short-description",
        "fix/lock-timeout-windows",
        "so CI can pick the pipeline from the prefix",
    ),
    ("error codes", "a module prefix and three digits", "AUTH-012", "so support can find the raising module"),
    ("fixtures", "nouns, never get_ or make_ verbs", "empty_repo", "because pytest injects them as values"),
    ("JSON fields", "camelCase", "createdAt", "the frontend consumes them directly"),
]

FIXTURES = ["tmp_repo", "frozen_clock", "fake_smtp", "sqlite_memory", "http_mock", "isolated_home"]
TEST_RULES = [
    "no test may touch the network",
    "each test builds its own data; no shared module-level state",
    "assert the whole error message, not a substring",
    "mark slow ones with @pytest.mark.slow so the quick run skips them",
]

GUARDS = [
    ("write_atomic", "writing any file under .data/", "a crash mid-write must never leave half a file"),
    ("with_retry", "calling a remote API", "it applies the shared backoff and logs each attempt"),
    ("run_git", "shelling out to git", "it sets LC_ALL=C so the output can be parsed"),
    ("utc_now", "taking the current time", "tests freeze it through one seam"),
    ("open_text", "opening a text file", "it forces utf-8 and newline='' on every platform"),
]

# tool, what it does that surprises, queries (paraphrases and partial names)
QUIRKS = [
    (
        "`git status --porcelain` prints paths relative to the repository root, not to the current directory;"
        " join them with the root before opening.",
        ["git status paths wrong when run from a subfolder", "porcelain output relative path"],
        ["git"],
    ),
    (
        "`pip install -e .` does not pick up new entry points until it is run again;"
        " reinstall after editing [project.scripts].",
        ["new console script not found after adding it", "editable install missing command"],
        ["pip"],
    ),
    (
        "`pytest -k` matches substrings of the whole node id, so `-k lock` also selects test_unlocked_cache.",
        ["pytest keyword filter selects too many tests", "-k expression matching unrelated tests"],
        ["pytest"],
    ),
    (
        "`docker compose up` reuses a stale image unless --build is given, so code changes seem to be ignored.",
        ["compose ignores my code changes", "container runs old code"],
        ["docker"],
    ),
    (
        "`npm ci` deletes node_modules first, so running it inside the watcher kills the dev server.",
        ["dev server dies when reinstalling js packages", "npm clean install removes node modules"],
        ["npm"],
    ),
    (
        "`make -j` runs the codegen and compile targets at once; the Makefile needs `compile: codegen` to order them.",
        ["parallel make builds before generated code exists", "race in the makefile"],
        ["make"],
    ),
    (
        "`ruff format` and `ruff check --fix` disagree on import sorting unless the isort rules are enabled in both.",
        ["linter and formatter keep undoing each other", "import order flips between tools"],
        ["ruff"],
    ),
    (
        "`tar -czf` on macOS adds ._ AppleDouble files; set COPYFILE_DISABLE=1 when building the release archive.",
        ["weird dot underscore files in the tarball", "release archive has extra files from mac"],
        ["macos", "release"],
    ),
    (
        "`git clean -fdx` also removes the .env file with local secrets; use `git clean -fd` in the reset script.",
        ["lost my env file after cleaning the checkout", "clean command deletes ignored files"],
        ["git"],
    ),
    (
        "`gh pr checkout` leaves the branch tracking the fork, so `git push` goes to the contributor's repository.",
        ["pushing to a pull request branch goes to the wrong remote", "github cli checkout of a fork"],
        ["gh"],
    ),
    (
        "`uv sync` removes packages that are not in the lock file, including the debugger installed by hand.",
        ["my manually installed package disappeared", "sync uninstalls extra packages"],
        ["uv"],
    ),
    (
        "`python -m http.server` serves from the current directory, not the build folder; pass --directory build.",
        ["local static server shows the wrong files", "serving the built site locally"],
        ["python"],
    ),
    (
        "`sed -i` needs an empty suffix argument on macOS (`sed -i ''`), otherwise it treats the script as the suffix.",
        ["in-place edit fails on mac", "sed inplace different on bsd"],
        ["macos", "shell"],
    ),
    (
        "`find -delete` must come after the filters; putting it first deletes everything under the starting point.",
        ["find command removed the whole folder", "order of find arguments deleting files"],
        ["shell"],
    ),
    (
        "`coverage combine` silently skips data files from another source path; map them with [paths] in .coveragerc.",
        ["merged coverage report missing lines from CI", "coverage from parallel jobs not merged"],
        ["coverage"],
    ),
    (
        "`pre-commit run` only checks staged files; use --all-files before tagging a release.",
        ["hooks pass locally but fail in CI", "pre commit not checking every file"],
        ["pre-commit"],
    ),
    (
        "`tox -r` recreates environments but keeps the wheel cache, so a broken wheel survives;"
        " clear ~/.cache/pip too.",
        ["recreating tox envs does not fix corrupted wheel", "stale wheel after rebuild"],
        ["tox"],
    ),
    (
        "`curl` exits 0 on HTTP 500 unless --fail is given, so the deploy script thought the health check passed.",
        ["health check passes even though server errors", "curl success on server error status"],
        ["deploy"],
    ),
    (
        "`jq -r` prints the string null for missing keys, which the release script then used as a version.",
        ["version shows up as null in release notes", "json query tool missing field"],
        ["release"],
    ),
    (
        "`kill %1` in CI scripts does nothing because job control is off in non-interactive bash; kill the saved PID.",
        ["background job not stopped in ci script", "job control disabled non interactive shell"],
        ["ci", "shell"],
    ),
    (
        "`git log --follow` works for a single path only; passing two paths silently drops --follow.",
        ["history of renamed files incomplete", "follow renames for several files"],
        ["git"],
    ),
    (
        "`mypy` caches results in .mypy_cache keyed by mtime, so switching branches can show stale errors;"
        " delete the cache.",
        ["type checker reports errors that are already fixed", "stale type errors after branch switch"],
        ["mypy"],
    ),
    (
        "`sqlite3` CLI opens a new empty database when the path is misspelled instead of failing.",
        ["database looks empty from the command line", "typo in db path creates new file"],
        ["sqlite"],
    ),
    (
        "`rsync src dest` and `rsync src/ dest` differ: without the trailing slash it copies the folder itself.",
        ["deploy copies the folder inside itself", "trailing slash in rsync source"],
        ["deploy"],
    ),
]

PLATFORM_QUIRKS = [
    (
        "windows",
        "os.replace fails with PermissionError while another process has the file open",
        "retry for a second with backoff",
        "atomic rename denied on win32 when file in use",
    ),
    (
        "windows",
        "paths longer than 260 characters raise FileNotFoundError",
        "prefix them with \\\\?\\ or enable long paths",
        "deep nested path not found on windows",
    ),
    (
        "windows",
        "subprocess needs shell=True to find .cmd shims such as npm.cmd",
        "call shutil.which first and pass the full path",
        "npm not found when launching from python on windows",
    ),
    (
        "windows",
        "text mode turns \\n into \\r\\n, which breaks the byte-exact snapshot tests",
        "open files with newline=''",
        "snapshot tests fail because of line endings on windows",
    ),
    (
        "macos",
        "the temporary directory is a symlink under /private, so path comparisons fail",
        "resolve both paths before comparing",
        "tmp path comparison mismatch on darwin",
    ),
    (
        "macos",
        "the filesystem is case-insensitive, so Readme.md and README.md collide",
        "keep names lowercase in generated output",
        "two files differing only in case overwrite each other on mac",
    ),
    (
        "macos",
        "multiprocessing uses spawn, so module-level state is not inherited",
        "pass the state to the worker explicitly",
        "worker processes lose global state on mac",
    ),
    (
        "alpine",
        "there are no manylinux wheels, so pip compiles numpy from source for twenty minutes",
        "use the slim Debian image instead",
        "numpy install takes forever on musl image",
    ),
    (
        "alpine",
        "the locale is C, so click refuses to run with a UnicodeEncodeError",
        "set LANG=C.UTF-8",
        "click unicode error in alpine container",
    ),
    (
        "arm64",
        "the sqlite build lacks the JSON1 extension",
        "install the distribution package libsqlite3",
        "json functions missing in sqlite on aarch64",
    ),
    (
        "py313",
        "the removed cgi module breaks the multipart parser",
        "switch to the multipart package",
        "multipart form parsing broken on newest python",
    ),
    (
        "py313",
        "locale.getdefaultlocale is deprecated and warns, which fails the -W error run",
        "use locale.getlocale",
        "getdefaultlocale warning fails tests on 3.13",
    ),
]

ENV_QUIRKS = [
    (
        "PYTHONHASHSEED",
        "generated files differ between runs",
        "set it to 0 when comparing generated files, or set iteration order changes the output",
    ),
    (
        "TZ",
        "times off by hours on the nightly build",
        "the nightly job runs with TZ unset, so local times are UTC there but not on laptops",
    ),
    (
        "HTTP_PROXY",
        "grpc ignores the corporate proxy",
        "requests honours it but the grpc channel does not; set GRPC_PROXY as well",
    ),
    (
        "CI",
        "setting CI to false still non interactive",
        "some tools switch to non-interactive mode when CI is set to any value, even CI=false",
    ),
    (
        "NO_COLOR",
        "ansi escape codes in compared output",
        "the log formatter ignores it; tests that compare output must pass --color=never",
    ),
    (
        "LANG",
        "decimal comma parsed wrong in spreadsheets",
        "with LANG unset the CSV importer guesses the wrong decimal separator",
    ),
    (
        "PIP_REQUIRE_VIRTUALENV",
        "global pip install fails only on dev laptops",
        "it is set on developer machines, so scripts that pip install globally fail there only",
    ),
    (
        "XDG_CACHE_HOME",
        "tests write into my real cache folder",
        "the cache directory moves with it, so a test that sets HOME alone still writes to the real cache",
    ),
    (
        "SOURCE_DATE_EPOCH",
        "release tarball not reproducible",
        "set it in the release job or archive timestamps make the build irreproducible",
    ),
    (
        "PYTHONDONTWRITEBYTECODE",
        "first command slow on read only image",
        "with it set the first import of every command is slower on the read-only image",
    ),
]

# an error, the words a reader would use instead, what caused it, the fix
BUILD_ERRORS = [
    (
        "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0",
        "file is not valid text",
        "a UTF-16 file exported from Excel",
        "detect the BOM and decode accordingly",
    ),
    (
        "sqlite3.OperationalError: database is locked",
        "db busy error",
        "two writers without a busy timeout",
        "set timeout=30 on connect and keep transactions short",
    ),
    (
        "RecursionError: maximum recursion depth exceeded",
        "stack overflow on deep input",
        "a self-referencing record",
        "track visited ids",
    ),
    (
        "ssl.SSLCertVerificationError: certificate verify failed: unable to get local issuer certificate",
        "https certificate problem",
        "the corporate proxy re-signs TLS",
        "point SSL_CERT_FILE at the proxy bundle",
    ),
    (
        "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
        "empty json response",
        "the server answered with an HTML error page",
        "check the status code before decoding",
    ),
    (
        "OSError: [Errno 24] Too many open files",
        "file descriptor limit",
        "each retry opened a new log handler",
        "reuse one handler",
    ),
    (
        "PermissionError: [Errno 13] Permission denied",
        "access denied writing",
        "the container runs as a different uid",
        "chown the volume in the entrypoint",
    ),
    (
        "OSError: [Errno 18] Invalid cross-device link",
        "move between disks fails",
        "os.rename across mount points",
        "use shutil.move or write the temp file in the same folder",
    ),
    (
        "error: externally-managed-environment",
        "pip refuses to install system wide",
        "Debian marks the system Python as managed",
        "create a virtual environment",
    ),
    (
        "fatal: detected dubious ownership in repository",
        "git complains about the repo owner",
        "the checkout belongs to another user in the container",
        "add it to safe.directory",
    ),
    (
        "OSError: [Errno 98] Address already in use",
        "port is taken",
        "the previous server did not shut down",
        "enable SO_REUSEADDR and stop the old process",
    ),
    (
        "OSError: [Errno 28] No space left on device",
        "disk is full",
        "build caches filled the runner disk",
        "prune caches before the build",
    ),
    (
        "Killed (exit code 137)",
        "process ran out of memory",
        "the whole file was loaded into memory",
        "stream it line by line",
    ),
    (
        "Fatal Python error: Segmentation fault",
        "interpreter crashes hard",
        "a C extension built for another Python",
        "rebuild the wheel",
    ),
    (
        "DeprecationWarning: datetime.datetime.utcnow() is deprecated",
        "warning about utc time turned into failure",
        "-W error in pytest settings",
        "use datetime.now(timezone.utc)",
    ),
    (
        "TypeError: 'NoneType' object is not subscriptable",
        "indexing into a missing value",
        "the lookup returns None for unknown keys",
        "check for None before indexing",
    ),
    (
        "KeyError: 'HOME'",
        "missing home variable",
        "the service unit starts with an empty environment",
        "fall back to pwd.getpwuid",
    ),
    (
        "AttributeError: module 'collections' has no attribute 'Mapping'",
        "abstract collections import broken",
        "an old vendored library",
        "import from collections.abc",
    ),
]
BUILD_STEPS = [
    "the test run",
    "the nightly export",
    "the import job",
    "the release build",
    "the migration step",
    "local development",
]

PERF = [
    ("re-tokenizing every file on each call", "cache tokens by content hash"),
    ("opening a new database connection per row", "reuse one connection"),
    ("importing pandas at module level", "import it inside the one function that needs it"),
    ("walking the whole tree with os.walk", "ask git ls-files instead"),
    ("json.dumps with indent on a 40 MB payload", "drop the indent for machine-read files"),
    ("compiling the same regular expression in a loop", "compile it once at module level"),
]
COMMANDS = ["sync", "export", "reindex", "status", "import", "build"]

COUPLED = [
    ("the date format", "both accept only ISO 8601 with a Z suffix"),
    ("the id scheme", "both assume twelve hex characters"),
    ("the ignore patterns", "both read .appignore but implement globbing separately"),
    ("the retry settings", "both read retry.maxAttempts and default it differently"),
]

NO_ANSWER = [
    "helm chart values override for the ingress controller",
    "graphql resolver n+1 query batching",
    "react useEffect runs twice in strict mode",
    "terraform state lock stuck in dynamodb",
    "android gradle build variant signing config",
    "rust borrow checker lifetime error in iterator",
    "how do I rotate the aws access keys",
    "ios push notification certificate expired",
    "spark executor out of memory on shuffle",
    "elasticsearch mapping conflict on reindex",
    "kafka consumer group rebalancing too often",
    "css grid layout breaks in safari",
    "vue router navigation guard redirect loop",
    "unity shader compile error on metal",
    "how to configure nginx rewrite rules",
    "bluetooth pairing drops on the firmware update",
    "latex bibliography not showing citations",
    "excel vlookup returns n/a",
    "jvm garbage collection pauses with g1",
    "swift optional unwrapping crash in viewDidLoad",
    "go module replace directive ignored",
    "cuda out of memory during training",
    "redis cluster failover takes too long",
    "webpack hot module reload not working",
    "kubernetes pod stuck in CrashLoopBackOff",
    "oauth pkce code verifier mismatch",
    "ffmpeg audio drift in long recordings",
    "haskell space leak in foldl",
    "cron expression for every second tuesday",
    "dns propagation after changing nameservers",
    "how to center a div",
    "postgres vacuum never finishes on the big table",
    "flutter hot reload loses state",
    "wordpress plugin update white screen",
    "matlab parfor slower than for",
    "arduino serial monitor garbled characters",
    "selenium element not interactable",
    "cobol copybook field alignment",
    "erlang supervisor restart intensity",
    "s3 bucket policy denies cross account access",
]

# near the project's own topics, but no entry answers them
NO_ANSWER_NEAR = [
    "lock file left behind on an nfs mount",
    "how do we version the public rest api",
    "pagination cursor for listing webhooks",
    "animated gif loses frames in thumbnails",
    "fallback language when a translation is missing",
    "who approves database schema changes",
    "rollback procedure for a failed deploy",
    "code owners for the billing module",
    "csv export quoting of embedded newlines",
    "password reset email template wording",
    "how long are metrics retained",
    "dark mode colours for the pdf report",
]
