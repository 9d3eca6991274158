CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    project TEXT NOT NULL,
    target INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    outcome TEXT,
    options TEXT NOT NULL
);

CREATE TABLE journal_entries (
    run_id TEXT NOT NULL REFERENCES runs(id),
    seq INTEGER NOT NULL,
    stage TEXT NOT NULL,
    rule TEXT NOT NULL,
    category TEXT NOT NULL,
    duration_ms INTEGER NOT NULL,
    cost_usd REAL NOT NULL,
    entry TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
