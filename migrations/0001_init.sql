-- 0001_init: the schema the team workflow stands on.
-- Times are INTEGER unix seconds (UTC). Secrets (session ids, API tokens,
-- share tokens, invite tokens) are stored only as SHA-256 hex digests;
-- passwords only as PBKDF2-HMAC-SHA256 strings. Deleting a team or plan
-- removes what hangs off it (ON DELETE CASCADE). The GPU/fabric/storage/model
-- catalog lives in its own tables, seeded by a later migration.

CREATE TABLE teams (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    created_at  INTEGER NOT NULL
);

CREATE TABLE users (
    id            INTEGER PRIMARY KEY,
    team_id       INTEGER NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    email         TEXT NOT NULL UNIQUE CHECK (length(email) BETWEEN 3 AND 254),
    password_hash TEXT NOT NULL,            -- pbkdf2-sha256$iterations$salt_hex$hash_hex
    role          TEXT NOT NULL CHECK (role IN ('owner', 'member')),
    created_at    INTEGER NOT NULL
);
CREATE INDEX users_team ON users(team_id);

CREATE TABLE sessions (
    id_hash     TEXT PRIMARY KEY,           -- sha256 of the 256-bit cookie value
    user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    csrf_token  TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id);
CREATE INDEX sessions_expiry ON sessions(expires_at);

CREATE TABLE invites (
    id          INTEGER PRIMARY KEY,
    team_id     INTEGER NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    token_hash  TEXT NOT NULL UNIQUE,
    role        TEXT NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'member')),
    created_by  INTEGER REFERENCES users(id) ON DELETE SET NULL,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    used_at     INTEGER,
    used_by     INTEGER REFERENCES users(id) ON DELETE SET NULL
);
CREATE INDEX invites_team ON invites(team_id);

-- Failed logins, for rate limiting per account and per client address.
CREATE TABLE login_failures (
    id          INTEGER PRIMARY KEY,
    subject     TEXT NOT NULL,              -- 'email:<address>' or 'ip:<address>'
    at          INTEGER NOT NULL
);
CREATE INDEX login_failures_subject ON login_failures(subject, at);

CREATE TABLE api_tokens (
    id           INTEGER PRIMARY KEY,
    team_id      INTEGER NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    name         TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    token_hash   TEXT NOT NULL UNIQUE,      -- sha256 of the whole gpp_... token
    prefix       TEXT NOT NULL,             -- first characters, to recognise it in lists
    created_by   INTEGER REFERENCES users(id) ON DELETE SET NULL,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER
);
CREATE INDEX api_tokens_team ON api_tokens(team_id);

CREATE TABLE plans (
    id               INTEGER PRIMARY KEY,
    team_id          INTEGER NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    title            TEXT NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
    current_revision INTEGER NOT NULL DEFAULT 1,
    created_by       INTEGER REFERENCES users(id) ON DELETE SET NULL,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
);
CREATE INDEX plans_team ON plans(team_id, id);

-- Every change of a plan is a new revision; earlier ones stay readable.
CREATE TABLE plan_revisions (
    id                  INTEGER PRIMARY KEY,
    plan_id             INTEGER NOT NULL REFERENCES plans(id) ON DELETE CASCADE,
    revision            INTEGER NOT NULL,
    title               TEXT NOT NULL,
    tier                TEXT NOT NULL CHECK (tier IN ('minimum', 'recommended', 'performance')),
    workload_json       TEXT NOT NULL,
    recommendation_json TEXT NOT NULL,
    engine_version      TEXT NOT NULL,
    created_by          INTEGER REFERENCES users(id) ON DELETE SET NULL,
    created_at          INTEGER NOT NULL,
    UNIQUE (plan_id, revision)
);

CREATE TABLE reports (
    id              INTEGER PRIMARY KEY,
    plan_id         INTEGER NOT NULL REFERENCES plans(id) ON DELETE CASCADE,
    team_id         INTEGER NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    revision        INTEGER NOT NULL,       -- plan revision the verdict was computed against
    tier            TEXT NOT NULL,
    content         TEXT NOT NULL,          -- raw text, kept so it can be re-parsed
    sha256          TEXT NOT NULL,
    size_bytes      INTEGER NOT NULL,
    sections_json   TEXT NOT NULL,
    verdict         TEXT NOT NULL CHECK (verdict IN ('pass', 'warn', 'fail', 'unknown')),
    findings_json   TEXT NOT NULL,
    source          TEXT,                   -- X-Report-Source, e.g. a CI job URL
    user_id         INTEGER REFERENCES users(id) ON DELETE SET NULL,
    token_id        INTEGER REFERENCES api_tokens(id) ON DELETE SET NULL,
    idempotency_key TEXT,
    created_at      INTEGER NOT NULL,
    checked_at      INTEGER NOT NULL,
    UNIQUE (plan_id, idempotency_key)
);
CREATE INDEX reports_plan ON reports(plan_id, id);

-- Every verdict a report has had: one row for the upload and one for each
-- re-check against a later revision, so a team sees how the verdict moved.
CREATE TABLE report_checks (
    id          INTEGER PRIMARY KEY,
    report_id   INTEGER NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
    revision    INTEGER NOT NULL,
    tier        TEXT NOT NULL,
    verdict     TEXT NOT NULL CHECK (verdict IN ('pass', 'warn', 'fail', 'unknown')),
    checked_at  INTEGER NOT NULL
);
CREATE INDEX report_checks_report ON report_checks(report_id, id);

CREATE TABLE shares (
    id          INTEGER PRIMARY KEY,
    plan_id     INTEGER NOT NULL REFERENCES plans(id) ON DELETE CASCADE,
    team_id     INTEGER NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    token_hash  TEXT NOT NULL UNIQUE,
    created_by  INTEGER REFERENCES users(id) ON DELETE SET NULL,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    revoked_at  INTEGER
);
CREATE INDEX shares_plan ON shares(plan_id);

CREATE TABLE webhooks (
    id          INTEGER PRIMARY KEY,
    team_id     INTEGER NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    url         TEXT NOT NULL CHECK (length(url) BETWEEN 8 AND 2000),
    secret      TEXT NOT NULL,              -- HMAC key; must be usable to sign, so not hashed
    events      TEXT NOT NULL DEFAULT 'report.fail,plan.shared',
    created_by  INTEGER REFERENCES users(id) ON DELETE SET NULL,
    created_at  INTEGER NOT NULL,
    disabled_at INTEGER
);
CREATE INDEX webhooks_team ON webhooks(team_id);

-- Outbox: a delivery row is written in the same transaction as the event, and a
-- background worker sends it, so a request never waits on a remote server.
CREATE TABLE webhook_deliveries (
    id              INTEGER PRIMARY KEY,
    webhook_id      INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
    event           TEXT NOT NULL,
    payload         TEXT NOT NULL,
    state           TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    last_status     INTEGER,
    last_error      TEXT,
    created_at      INTEGER NOT NULL,
    delivered_at    INTEGER
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(state, next_attempt_at);
CREATE INDEX webhook_deliveries_hook ON webhook_deliveries(webhook_id, id);
