-- +goose NO TRANSACTION
-- Online (docs/operations.md, Upgrading): every statement runs on its
-- own, each written to be run again should the migration stop midway.
-- +goose Up
-- A new mapping reads an uploaded file again (a check): its rows in error
-- are written under the check's number while the file is read, outside
-- any long transaction, and a short one then makes that check the
-- import's preview (preview_check). checks numbers them; 0 is the
-- upload's own check, and the run's rows in error are check 0 too.
ALTER TABLE imports ADD COLUMN IF NOT EXISTS checks BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS preview_check BIGINT NOT NULL DEFAULT 0;
ALTER TABLE import_errors ADD COLUMN IF NOT EXISTS check_no BIGINT NOT NULL DEFAULT 0;
-- The new key is built beside the old one without holding writes
-- (an index left invalid by an earlier try is dropped first), then takes
-- the old one's place in one short statement.
SET lock_timeout = 0;
DROP INDEX CONCURRENTLY IF EXISTS import_errors_check_key;
CREATE UNIQUE INDEX CONCURRENTLY import_errors_check_key ON import_errors (import_id, stage, check_no, row_number);
RESET lock_timeout;
ALTER TABLE import_errors DROP CONSTRAINT import_errors_pkey,
    ADD CONSTRAINT import_errors_pkey PRIMARY KEY USING INDEX import_errors_check_key;

-- +goose Down
DELETE FROM import_errors e USING imports i WHERE i.id = e.import_id AND e.check_no <> i.preview_check AND e.stage = 'preview';
ALTER TABLE import_errors DROP CONSTRAINT import_errors_pkey;
ALTER TABLE import_errors DROP COLUMN check_no;
ALTER TABLE import_errors ADD PRIMARY KEY (import_id, stage, row_number);
ALTER TABLE imports DROP COLUMN preview_check;
ALTER TABLE imports DROP COLUMN checks;
