-- +goose Up
-- A new mapping reads an uploaded file again (a check): its rows in error
-- are written under the check's number while the file is read, outside
-- any long transaction, and a short one then makes that check the
-- import's preview (preview_check). checks numbers them; 0 is the
-- upload's own check, and the run's rows in error are check 0 too.
-- SQLite cannot change a primary key in place: import_errors is rebuilt
-- with its rows.
ALTER TABLE imports ADD COLUMN checks BIGINT NOT NULL DEFAULT 0;
ALTER TABLE imports ADD COLUMN preview_check BIGINT NOT NULL DEFAULT 0;
CREATE TABLE import_errors_new (
    import_id  BIGINT NOT NULL REFERENCES imports (id),
    stage      TEXT NOT NULL CHECK (stage IN ('preview', 'run')),
    check_no   BIGINT NOT NULL DEFAULT 0,
    row_number BIGINT NOT NULL,
    fields     TEXT NOT NULL DEFAULT '',
    message    TEXT NOT NULL,
    PRIMARY KEY (import_id, stage, check_no, row_number)
);
INSERT INTO import_errors_new (import_id, stage, check_no, row_number, fields, message)
    SELECT import_id, stage, 0, row_number, fields, message FROM import_errors;
DROP TABLE import_errors;
ALTER TABLE import_errors_new RENAME TO import_errors;

-- +goose Down
CREATE TABLE import_errors_old (
    import_id  BIGINT NOT NULL REFERENCES imports (id),
    stage      TEXT NOT NULL CHECK (stage IN ('preview', 'run')),
    row_number BIGINT NOT NULL,
    fields     TEXT NOT NULL DEFAULT '',
    message    TEXT NOT NULL,
    PRIMARY KEY (import_id, stage, row_number)
);
INSERT INTO import_errors_old (import_id, stage, row_number, fields, message)
    SELECT e.import_id, e.stage, e.row_number, e.fields, e.message FROM import_errors e JOIN imports i ON i.id = e.import_id
    WHERE e.stage = 'run' OR e.check_no = i.preview_check;
DROP TABLE import_errors;
ALTER TABLE import_errors_old RENAME TO import_errors;
ALTER TABLE imports DROP COLUMN preview_check;
ALTER TABLE imports DROP COLUMN checks;
