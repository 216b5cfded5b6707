-- +goose Up
-- A new mapping reads an uploaded file again (a check): its rows in error
-- are written under the check's number while the file is read, outside
-- any long transaction, and a short one then makes that check the
-- import's preview (preview_check). checks numbers them; 0 is the
-- upload's own check, and the run's rows in error are check 0 too.
ALTER TABLE imports ADD COLUMN checks BIGINT NOT NULL DEFAULT 0;
ALTER TABLE imports ADD COLUMN preview_check BIGINT NOT NULL DEFAULT 0;
ALTER TABLE import_errors ADD COLUMN check_no BIGINT NOT NULL DEFAULT 0;
ALTER TABLE import_errors DROP CONSTRAINT import_errors_pkey;
ALTER TABLE import_errors ADD PRIMARY KEY (import_id, stage, check_no, row_number);

-- +goose Down
DELETE FROM import_errors e USING imports i WHERE i.id = e.import_id AND e.check_no <> i.preview_check AND e.stage = 'preview';
ALTER TABLE import_errors DROP CONSTRAINT import_errors_pkey;
ALTER TABLE import_errors DROP COLUMN check_no;
ALTER TABLE import_errors ADD PRIMARY KEY (import_id, stage, row_number);
ALTER TABLE imports DROP COLUMN preview_check;
ALTER TABLE imports DROP COLUMN checks;
