-- Solved examples: the normalized error signature, the fingerprint features of the project
-- it came from, the diff that fixed it, where it came from, and how it has fared since.
-- The id is a hash of signature and diff, so depositing the same fix again only counts.
CREATE TABLE solved_examples (
    id TEXT PRIMARY KEY,
    signature TEXT NOT NULL,
    features TEXT NOT NULL,
    diff TEXT NOT NULL,
    origin TEXT NOT NULL,
    applied BIGINT NOT NULL DEFAULT 0,
    validated BIGINT NOT NULL DEFAULT 0,
    merged BIGINT NOT NULL DEFAULT 0,
    declined BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL
);

-- Recipes that carried a migration to green, by fingerprint features.
CREATE TABLE fingerprint_recipes (
    features TEXT NOT NULL,
    recipe TEXT NOT NULL,
    succeeded BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (features, recipe)
);
