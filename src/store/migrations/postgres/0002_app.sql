-- Webhook deliveries: the primary key makes a redelivery a no-op.
CREATE TABLE deliveries (
    id TEXT PRIMARY KEY,
    event TEXT NOT NULL,
    received_at BIGINT NOT NULL
);

CREATE TABLE installations (
    id BIGINT PRIMARY KEY,
    account TEXT NOT NULL,
    removed BIGINT NOT NULL DEFAULT 0,
    updated_at BIGINT NOT NULL
);

-- A repository is active once it has .github/uplift.yml or a collaborator commanded Uplift.
CREATE TABLE repositories (
    full_name TEXT PRIMARY KEY,
    installation_id BIGINT NOT NULL,
    active BIGINT NOT NULL DEFAULT 0,
    removed BIGINT NOT NULL DEFAULT 0,
    updated_at BIGINT NOT NULL
);

-- Targets whose migration PR was closed unmerged: not proposed again until asked.
CREATE TABLE declined_targets (
    repo TEXT NOT NULL,
    target BIGINT NOT NULL,
    declined_at BIGINT NOT NULL,
    PRIMARY KEY (repo, target)
);

-- The work queue. `kind` is 'event' (a webhook to act on) or 'migrate'.
CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    installation_id BIGINT NOT NULL,
    repo TEXT NOT NULL,
    target BIGINT NOT NULL,
    idempotency_key TEXT NOT NULL UNIQUE,
    payload TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts BIGINT NOT NULL DEFAULT 0,
    max_attempts BIGINT NOT NULL,
    not_before BIGINT NOT NULL,
    lease_owner TEXT,
    lease_until BIGINT,
    cancel_requested BIGINT NOT NULL DEFAULT 0,
    checkpoint TEXT NOT NULL DEFAULT '{}',
    result TEXT,
    created_at BIGINT NOT NULL,
    started_at BIGINT,
    finished_at BIGINT
);

CREATE INDEX jobs_claim ON jobs (kind, state, not_before);
-- One active migration per repository and target.
CREATE UNIQUE INDEX jobs_one_active ON jobs (repo, target)
    WHERE kind = 'migrate' AND state IN ('queued', 'running');
