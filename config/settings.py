"""The one settings module, read from the environment (and from ``.env`` when present).

With nothing set this is the embedded mode: SQLite in WAL mode with a busy timeout, Celery tasks
run eagerly in the web process, local-memory cache. ``DATABASE_URL``, ``CELERY_BROKER_URL`` and
``CACHE_URL`` each switch one part to the real mode (PostgreSQL, a Redis broker with separate
workers, a Redis cache). ``.env.example`` lists every variable.
"""

from datetime import timedelta
from pathlib import Path

import environ
from django.conf.locale import LANG_INFO
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _
from django_guid.integrations import CeleryIntegration

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
if (BASE_DIR / ".env").is_file():
    # Variables already in the environment win over the file.
    env.read_env(BASE_DIR / ".env")

# --- Core -------------------------------------------------------------------------------------

DEBUG = env.bool("DEBUG", default=True)

SECRET_KEY = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = "django-insecure-tabletally-local-development-only"

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# HTTPS: cookies go over HTTPS only once DEBUG is off; redirects and HSTS are the operator's
# choice, behind a proxy that sets X-Forwarded-Proto.
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=not DEBUG)
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=False)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
if env.bool("BEHIND_HTTPS_PROXY", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
TIME_ZONE = env.str("TIME_ZONE", default="UTC")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "django_guid",
    "axes",
    "ops",
    "scoring",
    "tournaments",
]

MIDDLEWARE = [
    # First, so that every later log line of the request carries its id (see LOGGING).
    "django_guid.middleware.guid_middleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Django's LocaleMiddleware with the project's rule (?lang=, cookie, profile, the page's
    # tournament, Accept-Language: ops.languages); after the authentication, for the profile.
    "ops.languages.LanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Table and seat links (/t/<key>/, /s/<seat key>/): unknown keys counted per address, 429
    # once too many (ops.guessing, the same count as the API's refused keys).
    "ops.guessing.KeyGuessMiddleware",
    # Last: turns a sign-in refused for too many failures into its 429 page (ops.guessing).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "scoring:games"
LOGOUT_REDIRECT_URL = "home"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "ops.languages.switcher",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            # Local forms of numbers, dates and times in every template, no {% load %} needed.
            "builtins": ["ops.templatetags.local_forms"],
        },
    },
]

# --- Database ---------------------------------------------------------------------------------

# SQLite: WAL lets readers work beside the one writer; IMMEDIATE transactions take the write
# lock up front and the timeout makes a second writer wait instead of failing at once.
SQLITE_OPTIONS = {
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
}

DATABASE_URL = env.str("DATABASE_URL", default="")
if DATABASE_URL:
    DATABASES = {"default": env.db_url_config(DATABASE_URL)}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
        DATABASES["default"]["OPTIONS"] = {
            **SQLITE_OPTIONS,
            **DATABASES["default"].get("OPTIONS", {}),
        }
    else:
        DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
        DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
        if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
            # A database host that stops answering fails a new connection in
            # DATABASE_CONNECT_TIMEOUT seconds, and a kept one (CONN_MAX_AGE) within some 10 to
            # 25 s (TCP: data not acknowledged, keepalives unanswered), under gunicorn's
            # timeout: the request and /healthz answer instead of hanging (libpq's options).
            options = DATABASES["default"].setdefault("OPTIONS", {})
            options.setdefault("connect_timeout", env.int("DATABASE_CONNECT_TIMEOUT", default=5))
            options.setdefault("tcp_user_timeout", 10_000)  # milliseconds
            options.setdefault("keepalives", 1)
            options.setdefault("keepalives_idle", 10)
            options.setdefault("keepalives_interval", 5)
            options.setdefault("keepalives_count", 3)
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": BASE_DIR / "db.sqlite3",
            "OPTIONS": SQLITE_OPTIONS,
        }
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache ------------------------------------------------------------------------------------

CACHE_URL = env.str("CACHE_URL", default="")
# The cache holds only what the database can recompute (the standings), so a Redis cache that
# is down or slow must not fail a request: django-redis answers a miss (a write does nothing)
# within a second and logs the error (logger "django_redis.cache"); the standings are then
# computed from the database.
CACHE_SOCKET_TIMEOUT = env.float("CACHE_SOCKET_TIMEOUT", default=0.5)
DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True


def redis_cache(url: str, socket_timeout: float = CACHE_SOCKET_TIMEOUT) -> dict[str, object]:
    """The cache settings for a Redis at ``url`` that tolerate its outage (tests reuse it)."""
    return {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": url,
        "OPTIONS": {
            "IGNORE_EXCEPTIONS": True,
            "SOCKET_CONNECT_TIMEOUT": socket_timeout,
            "SOCKET_TIMEOUT": socket_timeout,
        },
    }


if CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
    CACHES = {"default": redis_cache(CACHE_URL)}
elif CACHE_URL:
    CACHES = {"default": env.cache_url_config(CACHE_URL)}
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "tabletally",
        }
    }

# --- Celery -----------------------------------------------------------------------------------

# Without a broker every task runs eagerly, in the process that enqueued it, after the commit
# that enqueued it; "memory://" only keeps Celery from looking for a broker that is not there.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="") or "memory://"
CELERY_TASK_ALWAYS_EAGER = CELERY_BROKER_URL == "memory://"
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_IGNORE_RESULT = True
# Tasks are idempotent, so a task lost with its worker is safely run again: acknowledged when
# done, put back when its worker dies under it.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker that loses the broker (Redis restarted, down for an hour) reconnects for as long as
# it takes, instead of exiting after 100 tries; the task it was running when the connection
# went is cancelled and comes back from the broker (it is safe to run twice), as Celery 6 will
# do by default.
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
CELERY_TIMEZONE = TIME_ZONE
# The longest task (seating 2,000 players, a standings refresh of a big event) takes seconds;
# a task still running after TASK_TIME_LIMIT seconds is stopped (and tried again by the tick).
CELERY_TASK_SOFT_TIME_LIMIT = env.int("TASK_TIME_LIMIT", default=60)
CELERY_TASK_TIME_LIMIT = CELERY_TASK_SOFT_TIME_LIMIT + 10
CELERY_BROKER_TRANSPORT_OPTIONS = {
    # A message taken by a worker that vanished (kill -9, a lost machine) goes back on the
    # queue after this many seconds: just above the longest task, so that a task still running
    # is never handed to a second worker. The tick sends waiting work again sooner.
    "visibility_timeout": CELERY_TASK_TIME_LIMIT + 20,
    # A broker that does not answer fails a send in seconds, not minutes: the request that
    # sent it has committed its work and goes on (ops.background.enqueue).
    "socket_timeout": 1,
    "socket_connect_timeout": 1,
}
# After a send the broker refused or let time out, a process sends nothing to it for this
# long (ops.background.send): while Redis hangs, one request in that time waits for the
# timeouts above, not every one.
BROKER_BACKOFF_SECONDS = env.float("BROKER_BACKOFF_SECONDS", default=5.0)
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
# The tick (ops.background.tick): call time on rounds whose deadline passed, and send again the
# background work that waited more than BACKGROUND_RESEND_SECONDS. It reads the database, so a
# missed or repeated tick changes nothing; a tick message not taken within its interval expires.
TICK_SECONDS = env.float("TICK_SECONDS", default=15.0)
BACKGROUND_RESEND_SECONDS = env.float("BACKGROUND_RESEND_SECONDS", default=30.0)
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "tick": {
        "task": "ops.tasks.tick",
        "schedule": TICK_SECONDS,
        "options": {"expires": TICK_SECONDS},
    },
}

# --- Health and logs --------------------------------------------------------------------------

# /healthz (ops.health) fails when no Celery worker beat within HEALTH_WORKER_SECONDS (each
# worker beats every quarter of it), when the last tick is older than HEALTH_TICK_SECONDS, or
# when background work has waited longer than HEALTH_WAITING_SECONDS; each Redis check (cache,
# broker) gives up after HEALTH_TIMEOUT_SECONDS to connect and as much to answer.
HEALTH_WORKER_SECONDS = env.float("HEALTH_WORKER_SECONDS", default=60.0)
HEALTH_TICK_SECONDS = env.float("HEALTH_TICK_SECONDS", default=3 * TICK_SECONDS)
HEALTH_WAITING_SECONDS = env.float("HEALTH_WAITING_SECONDS", default=120.0)
HEALTH_TIMEOUT_SECONDS = env.float("HEALTH_TIMEOUT_SECONDS", default=0.5)
if not 0 < HEALTH_TIMEOUT_SECONDS < 1:
    raise ImproperlyConfigured("HEALTH_TIMEOUT_SECONDS must be above 0 and under 1.")

# Request ids (django-guid): an incoming X-Request-ID is taken when it is a UUID (what load
# balancers and nginx's $request_id send; anything else is replaced, with a warning), otherwise
# one is made; it is returned in the response's X-Request-ID, carried into the Celery tasks the
# request sends, and printed on every log line (a task the tick sent gets an id of its own).
DJANGO_GUID = {
    "GUID_HEADER_NAME": "X-Request-ID",
    "RETURN_HEADER": True,
    "EXPOSE_HEADER": True,
    "VALIDATE_GUID": True,
    # use_django_logging: a Celery worker keeps this LOGGING instead of setting up its own.
    "INTEGRATIONS": [CeleryIntegration(use_django_logging=True)],
}

# Logs: every line to stderr at LOG_LEVEL and above (default INFO), with its request id ("-"
# outside a request or task); errors with their tracebacks: a 500's (django.request), a failed
# task's in the worker (celery.app.trace), the broker errors of ops.background. DEBUG changes
# nothing here.
LOG_LEVEL = (env.str("LOG_LEVEL", default="") or "INFO").upper()
if LOG_LEVEL not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
    raise ImproperlyConfigured("LOG_LEVEL must be DEBUG, INFO, WARNING, ERROR or CRITICAL.")
LOGGING: dict[str, object] = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "request_id": {"()": "config.logs.RequestIdFilter"},
        "health_answer": {"()": "config.logs.HealthAnswerFilter"},
    },
    "formatters": {
        "line": {"format": "%(asctime)s %(levelname)s [%(request_id)s] %(name)s: %(message)s"},
    },
    "handlers": {
        "stderr": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stderr",
            "filters": ["request_id"],
            "formatter": "line",
        },
    },
    "root": {"handlers": ["stderr"], "level": LOG_LEVEL},
    "loggers": {
        # Django's own handlers (console with DEBUG only, mail to ADMINS) give way to stderr.
        "django": {"handlers": [], "level": LOG_LEVEL, "propagate": True},
        "django.server": {"handlers": [], "level": LOG_LEVEL, "propagate": True},
        # /healthz's 503 is a warning: the health check doing its job, not a server error.
        "django.request": {"filters": ["health_answer"], "propagate": True},
        # django-guid tells of every id it makes at INFO: only its warnings.
        "django_guid": {"level": "WARNING"},
        # django-axes: each failed sign-in and each lock-out is a warning; successes are not told.
        "axes": {"level": "WARNING"},
    },
}

# --- Authentication ---------------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Limits on guessing (ops.guessing; README "Limits on guessing"). Passwords: django-axes counts
# failed sign-ins (the sign-in page, the admin's) in the database, so the limits hold across
# processes and whether Redis is up or not; the first limit reached refuses every try, the
# right password included, until LOGIN_COOLOFF_MINUTES after the latest failure it counted.
# A successful sign-in clears that account's failures from that address.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_FAILURE_LIMITS: list[tuple[list[str], int]] = [
    # One account from one address: a forgotten password, or a guesser.
    (["username", "ip_address"], env.int("LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS", default=5)),
    # One address, any accounts: a guesser trying many accounts (a club's shared network
    # fits well under it).
    (["ip_address"], env.int("LOGIN_FAILURES_PER_ADDRESS", default=20)),
    # One account, any addresses: a guesser spread over many addresses.
    (["username"], env.int("LOGIN_FAILURES_PER_ACCOUNT", default=50)),
]
LOGIN_COOLOFF_MINUTES = env.int("LOGIN_COOLOFF_MINUTES", default=15)
AXES_HANDLER = "ops.guessing.LoginFailureHandler"
AXES_LOCKOUT_PARAMETERS = [parameters for parameters, _limit in LOGIN_FAILURE_LIMITS]
AXES_FAILURE_LIMIT = LOGIN_FAILURE_LIMITS[0][1]
AXES_COOLOFF_TIME = timedelta(minutes=LOGIN_COOLOFF_MINUTES)
AXES_RESET_ON_SUCCESS = True
# A try while refused does not push the time to try again further away: the page can say when.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "ops.guessing.lockout_response"
AXES_CLIENT_IP_CALLABLE = "ops.guessing.client_address"
# Successful sign-ins are not logged (only failures count).
AXES_DISABLE_ACCESS_LOG = True
# The proxies in front of the app that append the client's address to X-Forwarded-For (nginx:
# 1). 0, the default: the address is the connection's (REMOTE_ADDR) and X-Forwarded-For, which
# a client can write, is ignored. Used for the sign-in limits and the API's throttles alike.
TRUSTED_PROXIES = env.int("TRUSTED_PROXIES", default=0)

# --- Internationalisation ---------------------------------------------------------------------

LANGUAGE_CODE = "en"
# The languages our players read (locale/<code>/ holds each catalogue and its GLOSSARY.md).
# Django ships no locale data for Filipino or Assamese: LANG_INFO gets their entries (the
# names in their own language, as the switcher shows them).
LANGUAGES = [
    ("en", _("English")),
    ("bn", _("Bengali")),
    ("ta", _("Tamil")),
    ("fil", _("Filipino")),
    ("as", _("Assamese")),
]
LANG_INFO.update(
    {
        "fil": {"bidi": False, "code": "fil", "name": "Filipino", "name_local": "Filipino"},
        "as": {"bidi": False, "code": "as", "name": "Assamese", "name_local": "অসমীয়া"},
    }
)
LOCALE_PATHS = [BASE_DIR / "locale"]
# The switcher's choice is kept a year (ops.languages).
LANGUAGE_COOKIE_AGE = 365 * 24 * 60 * 60
USE_I18N = True
USE_TZ = True

# --- Static files -----------------------------------------------------------------------------

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Hashed, compressed names need `collectstatic`; only when DEBUG is off (`make serve`).
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# --- API --------------------------------------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "ops.guessing.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # Every API body through the one strict JSON reader (tonkrules.jsontext), under the body
    # limit of scoring.api.BodyLimited, the base of every API view.
    "DEFAULT_PARSER_CLASSES": ["scoring.api_parser.StrictJSONParser"],
    # Rule errors as the score-sheet format's error object (400), conflicts as 409; the
    # tournaments' refused requests likewise.
    "EXCEPTION_HANDLER": "config.api.exception_handler",
    # Limits on guessing and on table links' writes (README "Limits on guessing"): a
    # 429 {"error": {"code": "throttled", ...}} with Retry-After. Keys refused per address
    # (ops.guessing.KeyGuessThrottle, in the authentication classes); writes per table or
    # seat key and address (scoring.throttles). Their state is in the cache.
    "DEFAULT_THROTTLE_CLASSES": ["scoring.throttles.TableLinkWriteThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "key_guess": env.str("THROTTLE_KEY_GUESS", default="30/min"),
        "table_write": env.str("THROTTLE_TABLE_WRITE", default="120/min"),
    },
    "NUM_PROXIES": TRUSTED_PROXIES,
}

# Request bodies (README, "What is refused, and why"): an API body over its endpoint's limit is
# refused with 413 and the API's error object (scoring.api.body_limit), whatever its
# Content-Length claims; the score-sheet import takes a whole evening's sheet. Django's own
# ceiling, for everything that reads a body (the pages' forms too), is the larger of the two.
API_MAX_BODY_BYTES = 64 * 1024
API_MAX_SHEET_BYTES = 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = API_MAX_SHEET_BYTES

SPECTACULAR_SETTINGS = {
    "TITLE": "Tabletally API",
    "DESCRIPTION": "Score sheets, tables and standings for Tonk, Toonerville Rook and Bluke.\n\n"
    "Request bodies are JSON (RFC 8259), UTF-8 without a byte-order mark, read strictly: a key "
    "named twice in one object, `NaN` or `Infinity`, a NUL or an unpaired surrogate, or "
    "nesting deeper than 32 levels is refused with 400 `bad_format` (the message names the "
    "repeated key and its path). A body is at most 64 KiB (65536 bytes), a score sheet to "
    "`POST /api/v1/scoresheets/` at most 1 MiB (1048576 bytes); a larger one is refused with "
    "413 (`bad_format`, detail `too_large`) before it is read. Send a `Content-Length`: a "
    "chunked body is read as empty.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI from drf-spectacular-sidecar's static files: the docs work offline too.
    # Every operation documents the 429 of the limits on guessing and writes.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "scoring.schema.document_throttling",
        "scoring.schema.document_bodies",
        "tournaments.schema.document_tournament_body",
    ],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "GameStateEnum": "scoring.models.Game.State",
        "HandStateEnum": "scoring.models.Hand.State",
    },
}
