-- +goose Up
-- CSV imports of customers and of past transactions. The uploaded file is
-- kept in the database, in chunks, so that any instance can run the
-- import after a restart; the run holds a lease (claim, lease_until) like
-- the outbox, and counts its progress in the transaction of each row.
CREATE TABLE imports (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id  TEXT NOT NULL REFERENCES businesses (id),
    file_id      TEXT NOT NULL UNIQUE,
    kind         TEXT NOT NULL CHECK (kind IN ('customers', 'transactions')),
    status       TEXT NOT NULL CHECK (status IN ('uploading', 'uploaded', 'queued', 'running', 'finished', 'failed')),
    file_name    TEXT NOT NULL DEFAULT '',
    file_hash    TEXT NOT NULL DEFAULT '',
    file_size    BIGINT NOT NULL DEFAULT 0,
    chunks       INTEGER NOT NULL DEFAULT 0,
    branch_id    TEXT NOT NULL DEFAULT '',
    country_code TEXT NOT NULL DEFAULT '',
    total_rows   BIGINT NOT NULL DEFAULT 0,
    invalid_rows BIGINT NOT NULL DEFAULT 0,
    next_row     BIGINT NOT NULL DEFAULT 0,
    rows_done    BIGINT NOT NULL DEFAULT 0,
    rows_failed  BIGINT NOT NULL DEFAULT 0,
    rows_skipped BIGINT NOT NULL DEFAULT 0,
    claim        TEXT NOT NULL DEFAULT '',
    lease_until  DATETIME,
    failure      TEXT NOT NULL DEFAULT '',
    created_by   TEXT NOT NULL DEFAULT '',
    created_at   DATETIME NOT NULL,
    started_at   DATETIME,
    finished_at  DATETIME
);
CREATE INDEX imports_business ON imports (business_id, id);
CREATE INDEX imports_due ON imports (status, lease_until);

CREATE TABLE import_chunks (
    import_id BIGINT NOT NULL REFERENCES imports (id),
    seq       INTEGER NOT NULL,
    data      BLOB NOT NULL,
    PRIMARY KEY (import_id, seq)
);

-- The rows in error: found by the preview (stage 'preview') or refused
-- when the run tried them (stage 'run').
CREATE TABLE import_errors (
    import_id  BIGINT NOT NULL REFERENCES imports (id),
    stage      TEXT NOT NULL CHECK (stage IN ('preview', 'run')),
    row_number BIGINT NOT NULL,
    fields     TEXT NOT NULL DEFAULT '',
    message    TEXT NOT NULL,
    PRIMARY KEY (import_id, stage, row_number)
);

-- Every file row imported, by a key of the file's content and the row's
-- number, written in the transaction of the row's change and kept for
-- good: the same file imported again adds nothing.
CREATE TABLE import_rows (
    business_id TEXT NOT NULL REFERENCES businesses (id),
    row_key     TEXT NOT NULL,
    import_id   BIGINT NOT NULL REFERENCES imports (id),
    created_at  DATETIME NOT NULL,
    PRIMARY KEY (business_id, row_key)
);

-- +goose Down
DROP TABLE import_rows;
DROP TABLE import_errors;
DROP TABLE import_chunks;
DROP TABLE imports;
