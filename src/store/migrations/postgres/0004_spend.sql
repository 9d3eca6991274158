-- LLM spend per installation, for the daily ceiling (one row per finished run that spent).
CREATE TABLE llm_spend (
    installation_id BIGINT NOT NULL,
    run_id TEXT NOT NULL,
    cost_usd DOUBLE PRECISION NOT NULL,
    at_ms BIGINT NOT NULL
);
CREATE INDEX llm_spend_by_installation ON llm_spend (installation_id, at_ms);
