"""Whizi settings, read from the environment (see .env.example for every variable).

With nothing set, Whizi runs on the embedded default: a SQLite file under var/,
Redis on localhost when it is there, and the offline model for chat and memory.
"""

import ipaddress
import os
from operator import attrgetter
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.core.management.utils import get_random_secret_key

from whizi.llm.catalog import ModelsFile, models_file_load

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"


def envbool(name: str, default: str) -> bool:
    value = os.environ.get(name, default).strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off", ""):
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, got {value!r}")


def _envnumber(name: str, default: str, kind: type[int] | type[float]) -> int | float:
    value = os.environ.get(name, default)
    try:
        return kind(value)
    except ValueError:
        what = "an integer" if kind is int else "a number"
        raise ImproperlyConfigured(f"{name} must be {what}, got {value!r}") from None


def envint(name: str, default: str) -> int:
    return int(_envnumber(name, default, int))


def envfloat(name: str, default: str) -> float:
    return float(_envnumber(name, default, float))


def envlist(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def _local_secret_key() -> str:
    """A key kept under var/ so a checkout runs with nothing set; production sets SECRET_KEY."""
    path = VAR_DIR / "secret_key"
    if not path.exists():
        VAR_DIR.mkdir(exist_ok=True)
        path.write_text(get_random_secret_key())
        path.chmod(0o600)
    return path.read_text().strip()


DEBUG = envbool("DEBUG", "false")
SECRET_KEY = os.environ.get("SECRET_KEY") or _local_secret_key()
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    # Django's admin, its login under allauth's login limits (accounts.admin_login).
    "accounts.apps.WhiziAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    # The JSON API's schemas and OpenAPI document (whizi.api); its Swagger UI static files.
    "ninja",
    "whizi.apps.WhiziConfig",
    "allauth",
    "allauth.account",
    "accounts",
    "memory",
    "chat",
    "lifecycle",
    "offline",
]

MIDDLEWARE = [
    # Every middleware here works in an async chain, so an async view (chat, voice) holds
    # no thread while it awaits; one sync middleware would make Django wait in a thread.
    # The probes come first: they touch no session, set no cookie (whizi.probes).
    "whizi.middleware.ProbeMiddleware",
    "whizi.middleware.RequestMiddleware",
    # A chat waits for its turn to start before anything else of it runs; other pages
    # go first (chat.admission).
    "chat.middleware.ChatAdmissionMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whizi.middleware.ContentSecurityPolicyMiddleware",
    "whizi.middleware.StaticFilesMiddleware",
    # WHIZI_THREAD_STEP_MIDDLEWARE, in one thread step before the view and one after; it
    # gives the database connection back after each (a streamed reply holds none).
    "whizi.middleware.ThreadStepMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "allauth.account.middleware.AccountMiddleware",
]
WHIZI_THREAD_STEP_MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # The language saved in Preferences wins over Accept-Language (needs request.user).
    "accounts.middleware.PreferenceLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
# Django's checks look for these in MIDDLEWARE by name; whizi.checks looks in both lists.
SILENCED_SYSTEM_CHECKS = ["admin.E408", "admin.E409", "admin.E410", "security.W002", "security.W003"]

ROOT_URLCONF = "whizi.urls"
CSRF_FAILURE_VIEW = "whizi.views.csrf_failure"
WSGI_APPLICATION = "whizi.wsgi.application"
ASGI_APPLICATION = "whizi.asgi.application"

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
                "django.template.context_processors.i18n",
                # Lazy: only the pages that show a login's guest offer read it.
                "lifecycle.context_processors.guest_offer",
            ],
        },
    },
]

# Database: PostgreSQL through psycopg 3 when DATABASE_URL is set, else a SQLite file.
DATABASE_URL = os.environ.get("DATABASE_URL", "")
# Under ASGI each request runs in a thread of its own, so persistent per-thread
# connections grow with the number of requests in flight until PostgreSQL refuses new
# ones (bench/load.py at 200 guests: "too many clients", max_connections is 100 by
# default). A bounded psycopg pool per process holds them instead: a request waits up
# to WHIZI_DB_POOL_TIMEOUT seconds for a free connection rather than failing. Keep
# (web processes + worker processes) x WHIZI_DB_POOL_MAX_SIZE, plus 8 memory-read
# connections per web process (memory.reading: outside the pool), under
# max_connections; 0 turns the pool off (persistent connections, kept 60 s).
WHIZI_DB_POOL_MAX_SIZE = envint("WHIZI_DB_POOL_MAX_SIZE", "20")
WHIZI_DB_POOL_TIMEOUT = envfloat("WHIZI_DB_POOL_TIMEOUT", "10")
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60)}
    if WHIZI_DB_POOL_MAX_SIZE > 0 and DATABASES["default"]["ENGINE"].endswith("postgresql"):
        DATABASES["default"]["CONN_MAX_AGE"] = 0  # the pool keeps the connections
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": min(2, WHIZI_DB_POOL_MAX_SIZE),
            "max_size": WHIZI_DB_POOL_MAX_SIZE,
            "timeout": WHIZI_DB_POOL_TIMEOUT,
        }
        # Each connection is checked as it leaves the pool, so one broken by a PostgreSQL
        # restart is replaced there instead of failing its request (whizi.pool).
        DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    if os.environ.get("WHIZI_TEST_DATABASE_NAME"):
        DATABASES["default"]["TEST"] = {"NAME": os.environ["WHIZI_TEST_DATABASE_NAME"]}
else:
    VAR_DIR.mkdir(exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": VAR_DIR / "whizi.sqlite3",
            # The web process and the worker write to the same file.
            "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Redis: the Celery broker and the Django cache, kept in separate databases so a
# cache flush never drops queued passes.
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


def _redis_db_url(url: str, offset: int) -> str:
    base, _, db = url.rpartition("/")
    if not base.startswith("redis") or not db.isdigit():
        return url.rstrip("/") + f"/{offset}"
    return f"{base}/{int(db) + offset}"


REDIS_CACHE_URL = os.environ.get("REDIS_CACHE_URL") or _redis_db_url(REDIS_URL, 1)
CACHES = {
    "default": {
        "BACKEND": "whizi.cache.ResilientRedisCache",
        "LOCATION": REDIS_CACHE_URL,
        "KEY_PREFIX": "whizi",
        "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
    }
}
SESSION_ENGINE = "django.contrib.sessions.backends.db"

CELERY_BROKER_URL = REDIS_URL
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A task's hard limit stays well under the visibility timeout, so a slow pass is
# never handed to a second worker while the first still runs it.
CELERY_TASK_TIME_LIMIT = envint("WHIZI_TASK_TIME_LIMIT", "300")
CELERY_TASK_SOFT_TIME_LIMIT = CELERY_TASK_TIME_LIMIT - 30
# How long Redis holds a message a worker took but never acknowledged (the worker was
# killed) before handing it to another worker. Kept far above the task time limit; the
# fault tests and bench/kill_worker.py lower it for a worker they restart on purpose.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": envint("WHIZI_BROKER_VISIBILITY_TIMEOUT", "3600"),
    # A web process publishing a pass while Redis is down or unreachable gives up in
    # well under a second (the sweep publishes it later); the read timeout stays above
    # the worker's 1-second blocking pop.
    "socket_connect_timeout": 0.5,
    "socket_timeout": 3,
}
CELERY_BEAT_SCHEDULE: dict = {
    # Passes recorded with their message but never published (Redis was down, the web
    # process died after the commit) or left running by a killed worker: publish them
    # again (memory.sweep).
    "sweep-memory-passes": {
        "task": "memory.sweep_passes",
        "schedule": 60.0,
        "options": {"expires": 55},
    },
    # Guests whose session has expired (SESSION_COOKIE_AGE since last seen) can never
    # be reached again; sweep them hourly with everything they own.
    "cleanup-abandoned-guests": {
        "task": "accounts.cleanup_abandoned_guests",
        "schedule": 3600.0,
    },
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]

# Accounts: email and password, through django-allauth.
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
ACCOUNT_ADAPTER = "lifecycle.adapter.AccountAdapter"
# One account per address, whatever its case: the database enforces it
# (accounts/migrations/0005); the signup that loses a race gets a form error, not a 500.
ACCOUNT_UNIQUE_EMAIL = True
# One address per account, so "was this account's address ever verified" has one answer
# (lifecycle.reset: a reset of a never-verified account empties it).
ACCOUNT_MAX_EMAIL_ADDRESSES = 1
ACCOUNT_FORMS = {
    "signup": "lifecycle.forms.SignupForm",
    "reset_password_from_key": "lifecycle.forms.ResetPasswordKeyForm",
}
# People know themselves by their email here (the username is generated, never chosen).
ACCOUNT_USER_DISPLAY = attrgetter("email")
LOGIN_REDIRECT_URL = "/"
ACCOUNT_LOGOUT_REDIRECT_URL = "/"
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Whizi <no-reply@localhost>")

LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", "English"),
    ("vi", "Tiếng Việt"),
    ("zh-hans", "简体中文"),
    ("ja", "日本語"),
    ("ko", "한국어"),
    ("ms", "Bahasa Melayu"),
]
# Our own catalogs (makemessages writes them), then our wording of django-allauth's and
# Django's own strings, which makemessages must not drop as obsolete.
LOCALE_PATHS = [BASE_DIR / "locale", BASE_DIR / "locale_overrides"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise warns when it is missing
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# Serve straight from the app folders, so `make run` needs no collectstatic step.
WHITENOISE_USE_FINDERS = True

# HTTPS hardening for production (WHIZI_HTTPS=true behind TLS). Off by default so the
# embedded default works over plain http://localhost.
WHIZI_HTTPS = envbool("WHIZI_HTTPS", "false")
SECURE_SSL_REDIRECT = WHIZI_HTTPS
SESSION_COOKIE_SECURE = WHIZI_HTTPS
# A __Host- cookie cannot be set by a sibling subdomain or over plain http, which
# closes the easy ways of planting a session cookie.
SESSION_COOKIE_NAME = "__Host-whizi_session" if WHIZI_HTTPS else "sessionid"
CSRF_COOKIE_SECURE = WHIZI_HTTPS
SECURE_HSTS_SECONDS = 31536000 if WHIZI_HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = WHIZI_HTTPS
SECURE_HSTS_PRELOAD = WHIZI_HTTPS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if WHIZI_HTTPS else None

# Email verification: mandatory in production (served over HTTPS, DEBUG off), so nobody
# can sign up with another person's address and fill that account before its owner
# arrives; optional for `make run` and tests, whose mail only reaches the console. An
# operator may still choose: WHIZI_EMAIL_VERIFICATION=none|optional|mandatory
# (`check --deploy` warns about anything but mandatory).
ACCOUNT_EMAIL_VERIFICATION = os.environ.get("WHIZI_EMAIL_VERIFICATION", "").strip().lower() or (
    "mandatory" if WHIZI_HTTPS and not DEBUG else "optional")
if ACCOUNT_EMAIL_VERIFICATION not in ("none", "optional", "mandatory"):
    raise ImproperlyConfigured(
        f"WHIZI_EMAIL_VERIFICATION must be none, optional or mandatory (got {ACCOUNT_EMAIL_VERIFICATION!r})")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_AGE = envint("WHIZI_SESSION_AGE", str(60 * 60 * 24 * 30))

# Models: every call goes through litellm (whizi.llm). The offline model is the default.
# Whizi's own litellm providers, by prefix: the embedded model (the suite adds its scripted
# one in tests/settings.py).
WHIZI_LLM_PROVIDERS = {
    "whizi": "offline.provider.OfflineLLM",
}
WHIZI_OFFLINE_MODEL = "whizi/offline"
# Per-model endpoint, key variable, context window, limits, retries and fallbacks
# (whizi.llm.catalog); the variables below are enough for the simple case.
WHIZI_MODELS_FILE = os.environ.get("WHIZI_MODELS_FILE", "").strip()
_models_file = models_file_load(WHIZI_MODELS_FILE) if WHIZI_MODELS_FILE else ModelsFile()
WHIZI_MODELS = _models_file.models
WHIZI_MODEL_ROUTER = _models_file.router
WHIZI_CHAT_MODELS = envlist("WHIZI_CHAT_MODELS", "") or _models_file.chat_models or [WHIZI_OFFLINE_MODEL]
WHIZI_MEMORY_MODEL = (os.environ.get("WHIZI_MEMORY_MODEL", "").strip() or _models_file.memory_model
                      or WHIZI_OFFLINE_MODEL)
# The whole time a chat reply may take, retries and fallbacks included, streamed or not.
WHIZI_CHAT_TIMEOUT = envfloat("WHIZI_CHAT_TIMEOUT", "60")
WHIZI_CHAT_RETRIES = envint("WHIZI_CHAT_RETRIES", "2")
# A rate-limited chat call whose Retry-After is at most this many seconds is asked again
# once, within WHIZI_CHAT_TIMEOUT; a longer wait is told to the person (whizi.llm).
WHIZI_CHAT_RATE_LIMIT_WAIT = envfloat("WHIZI_CHAT_RATE_LIMIT_WAIT", "3")
# Read an OpenAI-protocol chat stream without litellm's per-chunk models (whizi.llm.lean);
# off, litellm reads every stream itself (same behaviour, about 15 times the CPU a token).
WHIZI_LEAN_STREAM = envbool("WHIZI_LEAN_STREAM", "true")
# Streamed text that arrives within this many milliseconds goes to the page as one event
# (the first piece goes at once): a fast model costs events per second, not per token.
WHIZI_STREAM_FLUSH_MS = envint("WHIZI_STREAM_FLUSH_MS", "40")
# Chats in their CPU-heavy start at once on one process (chat.admission; 0: no limit),
# and how long at most one keeps its place (then the next begins, whatever it waits on).
WHIZI_CHAT_STARTS_AT_ONCE = envint("WHIZI_CHAT_STARTS_AT_ONCE", "4")
WHIZI_CHAT_START_HOLD_MS = envint("WHIZI_CHAT_START_HOLD_MS", "250")
# ... of which, while another page is being served (at least one: chats never stall).
WHIZI_CHAT_STARTS_BESIDE_PAGES = envint("WHIZI_CHAT_STARTS_BESIDE_PAGES", "1")
# A chat's database steps (saving its message, saving its reply) at once on one process
# (whizi.db.db_step_queued): they are CPU work for the one interpreter, so more at once
# only adds threads for every page to queue behind (docs/PERFORMANCE.md).
WHIZI_CHAT_SAVES_AT_ONCE = envint("WHIZI_CHAT_SAVES_AT_ONCE", "3")
# Longest chat reply asked for, unless a model's own max_tokens says otherwise.
WHIZI_CHAT_MAX_TOKENS = envint("WHIZI_CHAT_MAX_TOKENS", "2048")
# Product cap on the history sent with each message, in the model's tokens: a long chat
# on a 1M-token model must not cost a million input tokens a message.
WHIZI_HISTORY_MAX_TOKENS = envint("WHIZI_HISTORY_MAX_TOKENS", "16000")
# A hung provider holds a worker slot this long per try; retries come minutes apart.
WHIZI_MEMORY_MODEL_TIMEOUT = envfloat("WHIZI_MEMORY_MODEL_TIMEOUT", "60")
if WHIZI_MEMORY_MODEL_TIMEOUT >= CELERY_TASK_SOFT_TIME_LIMIT / 2:
    raise ImproperlyConfigured(
        "WHIZI_MEMORY_MODEL_TIMEOUT must be under half the task time limit "
        "(a pass may call the model twice: rewrite and compaction)"
    )

# A failed pass is tried again after 30 s, 1, 2, 4, 8 minutes (then every 10): the waits
# add up to about a quarter of an hour, so a pass outlives a ten-minute provider outage.
WHIZI_MEMORY_RETRY_BASE_SECONDS = envfloat("WHIZI_MEMORY_RETRY_BASE_SECONDS", "30")
WHIZI_MEMORY_RETRY_MAX_SECONDS = envfloat("WHIZI_MEMORY_RETRY_MAX_SECONDS", "600")

# Memory caps (docs/DESIGN.md §2.5, from the seeds).
WHIZI_MEMORY_MAX_TOKENS = 2000
WHIZI_MEMORY_TARGET_TOKENS = 1500
WHIZI_MEMORY_TARGET_LINES = 50
WHIZI_MEMORY_TARGET_LINE_CHARS = 55
WHIZI_MEMORY_PASS_TURNS = 6
WHIZI_MEMORY_TRANSCRIPT_MAX_TOKENS = 20000
WHIZI_MEMORY_MODEL_INPUT_MAX_TOKENS = 50000
# Operator switch, for benchmarks and incidents (bench/load.py measures the overhead of
# memory with it): when false, chat and voice neither read memory nor queue passes.
# Deliberately not a user setting: the product has no switch to turn memory off.
WHIZI_MEMORY_ENABLED = envbool("WHIZI_MEMORY_ENABLED", "true")
# How long a chat request waits for the memory read before going on without it.
WHIZI_MEMORY_READ_TIMEOUT = envfloat("WHIZI_MEMORY_READ_TIMEOUT", "0.3")

# Requests per minute (per owner, per IP) for each limited endpoint.
WHIZI_RATE_LIMITS_ENABLED = envbool("WHIZI_RATE_LIMITS_ENABLED", "true")
# One switch for every limit: allauth's own (signup, login, password reset per address,
# and the admin login's, accounts.admin_login) stay at its defaults unless limits are off.
if not WHIZI_RATE_LIMITS_ENABLED:
    ACCOUNT_RATE_LIMITS = False
WHIZI_RATE_LIMITS = {
    "chat_message": (envint("WHIZI_RATE_CHAT_PER_OWNER", "20"), envint("WHIZI_RATE_CHAT_PER_IP", "120")),
    "conversation_create": (30, 120),
    "memory_read": (60, 300),
    "memory_clear": (10, 60),
    "voice": (120, 600),
}

# Logs (whizi.logs): every line carries its request's id (and, in the worker, its task's
# and pass's); WHIZI_LOG_FORMAT=json writes one JSON object a line.
WHIZI_LOG_FORMAT = os.environ.get("WHIZI_LOG_FORMAT", "").strip().lower() or "text"
if WHIZI_LOG_FORMAT not in ("text", "json"):
    raise ImproperlyConfigured(f"WHIZI_LOG_FORMAT must be text or json (got {WHIZI_LOG_FORMAT!r})")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"ids": {"()": "whizi.logs.LogContextFilter"}},
    "formatters": {"text": {"()": "whizi.logs.TextFormatter"},
                   "json": {"()": "whizi.logs.JsonLineFormatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["ids"],
                             "formatter": WHIZI_LOG_FORMAT}},
    "root": {"handlers": ["console"], "level": os.environ.get("WHIZI_LOG_LEVEL", "INFO")},
    "loggers": {
        # Whizi logs each failed model call once, with its class (chat.exchange,
        # memory.run); litellm's own lines would repeat it, twice and with tracebacks.
        "LiteLLM": {"level": "CRITICAL"},
        "LiteLLM Router": {"level": "CRITICAL"},
        "LiteLLM Proxy": {"level": "CRITICAL"},
        "httpx": {"level": "WARNING"},
        # uvicorn's own lines in the same format (their level stays the command line's).
        # Not its access log: run it with --no-access-log, whizi.request logs each request.
        "uvicorn": {"handlers": ["console"], "propagate": False},
    },
}

# Metrics for Prometheus at /metrics (whizi.metrics, docs/DEPLOY.md → Metrics). Off unless
# a bearer token or an allowlist of scraper addresses is set, so no visitor reads them.
WHIZI_METRICS_TOKEN = os.environ.get("WHIZI_METRICS_TOKEN", "").strip()
if WHIZI_METRICS_TOKEN and len(WHIZI_METRICS_TOKEN) < 16:
    raise ImproperlyConfigured("WHIZI_METRICS_TOKEN must be at least 16 characters (a guessable "
                               "token opens the metrics to anyone)")
WHIZI_METRICS_ALLOW = envlist("WHIZI_METRICS_ALLOW", "")
for _network in WHIZI_METRICS_ALLOW:
    try:
        ipaddress.ip_network(_network, strict=False)
    except ValueError:
        raise ImproperlyConfigured(
            f"WHIZI_METRICS_ALLOW must list addresses or networks (got {_network!r})") from None
# Set but empty, PROMETHEUS_MULTIPROC_DIR would have the client write into the working directory.
if os.environ.get("PROMETHEUS_MULTIPROC_DIR") == "":
    del os.environ["PROMETHEUS_MULTIPROC_DIR"]
# A Celery worker serves its own metrics on this port when set (0: off), for a machine
# with no web process; its pool's processes count through PROMETHEUS_MULTIPROC_DIR.
WHIZI_WORKER_METRICS_PORT = envint("WHIZI_WORKER_METRICS_PORT", "0")
WHIZI_WORKER_METRICS_ADDR = os.environ.get("WHIZI_WORKER_METRICS_ADDR", "127.0.0.1")
if WHIZI_WORKER_METRICS_PORT and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    raise ImproperlyConfigured("WHIZI_WORKER_METRICS_PORT needs PROMETHEUS_MULTIPROC_DIR: the worker's "
                               "pool processes count there")
