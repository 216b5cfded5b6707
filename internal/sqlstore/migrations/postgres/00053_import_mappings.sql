-- +goose Up
-- The console reads a file's columns through a mapping (column → field,
-- '-' ignored, '' not chosen yet), kept with the import as JSON; empty
-- for an import read by the API's names. A business's choices are
-- remembered per kind and column for its next file.
ALTER TABLE imports ADD COLUMN mapping TEXT NOT NULL DEFAULT '';
CREATE TABLE import_mappings (
    business_id TEXT NOT NULL REFERENCES businesses (id),
    kind        TEXT NOT NULL,
    column_key  TEXT NOT NULL,
    field       TEXT NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (business_id, kind, column_key)
);

-- +goose Down
DROP TABLE import_mappings;
ALTER TABLE imports DROP COLUMN mapping;
