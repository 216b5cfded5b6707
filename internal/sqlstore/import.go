package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// Imports keep their file in import_chunks, the rows in error in
// import_errors and, for good, the key of every row imported in
// import_rows (see loyalty.ImportRowKey).

const importColumns = `id, business_id, file_id, kind, status, file_name, file_hash, file_size, chunks, branch_id,
	country_code, total_rows, invalid_rows, next_row, rows_done, rows_failed, rows_skipped, failure, created_by,
	created_at, started_at, finished_at, mapping`

func scanImport(row interface{ Scan(...any) error }) (loyalty.Import, error) {
	var im loyalty.Import
	var started, finished sql.NullTime
	var mapping string
	err := row.Scan(&im.ID, &im.BusinessID, &im.FileID, &im.Kind, &im.Status, &im.FileName, &im.FileHash, &im.FileSize,
		&im.Chunks, &im.BranchID, &im.CountryCode, &im.TotalRows, &im.InvalidRows, &im.NextRow, &im.Done, &im.Failed,
		&im.Skipped, &im.Failure, &im.CreatedBy, &im.CreatedAt, &started, &finished, &mapping)
	if err == nil && mapping != "" {
		err = json.Unmarshal([]byte(mapping), &im.Mapping)
	}
	if started.Valid {
		t := started.Time.UTC()
		im.StartedAt = &t
	}
	if finished.Valid {
		t := finished.Time.UTC()
		im.FinishedAt = &t
	}
	im.CreatedAt = im.CreatedAt.UTC()
	return im, dbError(err)
}

// CreateImport records a new import, in a transaction that writes the
// audit entry ctx carries.
func (d *DB) CreateImport(ctx context.Context, im *loyalty.Import) error {
	return d.runTx(ctx, func(t *tx) error {
		im.CreatedAt = t.now
		return t.QueryRowContext(ctx, `INSERT INTO imports (business_id, file_id, kind, status, file_name, branch_id,
			country_code, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
			im.BusinessID, im.FileID, im.Kind, im.Status, im.FileName, im.BranchID, im.CountryCode, im.CreatedBy, t.now).Scan(&im.ID)
	})
}

// AddImportChunk stores one chunk of an import's file.
func (d *DB) AddImportChunk(ctx context.Context, importID int64, seq int, data []byte) error {
	_, err := d.wdb.ExecContext(ctx, `INSERT INTO import_chunks (import_id, seq, data) VALUES ($1, $2, $3)`, importID, seq, data)
	return dbError(err)
}

// ImportChunk returns one chunk of an import's file.
func (d *DB) ImportChunk(ctx context.Context, importID int64, seq int) ([]byte, error) {
	var data []byte
	err := d.db.QueryRowContext(ctx, `SELECT data FROM import_chunks WHERE import_id = $1 AND seq = $2`, importID, seq).Scan(&data)
	return data, dbError(err)
}

// AddImportErrors records rows in error of a stage (the upload's check,
// 0, for the preview), in one transaction; a row already recorded at the
// stage is kept.
func (d *DB) AddImportErrors(ctx context.Context, importID int64, stage string, errs []loyalty.ImportRowError) error {
	if len(errs) == 0 {
		return nil
	}
	return d.runTx(ctx, func(t *tx) error {
		for _, e := range errs {
			if err := t.addImportError(ctx, importID, stage, e); err != nil {
				return err
			}
		}
		return nil
	})
}

func (t *tx) addImportError(ctx context.Context, importID int64, stage string, e loyalty.ImportRowError) error {
	_, err := t.ExecContext(ctx, `INSERT INTO import_errors (import_id, stage, row_number, fields, message)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (import_id, stage, check_no, row_number) DO NOTHING`,
		importID, stage, e.Row, strings.Join(e.Fields, ","), e.Message)
	return err
}

// ImportUploaded ends an upload.
func (d *DB) ImportUploaded(ctx context.Context, im loyalty.Import) error {
	mapping, err := mappingText(im.Mapping)
	if err != nil {
		return err
	}
	_, err = d.wdb.ExecContext(ctx, `UPDATE imports SET status = $1, file_hash = $2, file_size = $3, chunks = $4,
		total_rows = $5, invalid_rows = $6, mapping = $7 WHERE id = $8 AND status = $9`,
		loyalty.ImportUploaded, im.FileHash, im.FileSize, im.Chunks, im.TotalRows, im.InvalidRows, mapping, im.ID, loyalty.ImportUploading)
	return dbError(err)
}

// mappingText is how an import keeps its mapping: JSON, or empty for none.
func mappingText(m loyalty.ImportMapping) (string, error) {
	if m == nil {
		return "", nil
	}
	b, err := json.Marshal(m)
	return string(b), err
}

// ImportMappings returns a business's remembered mapping for a kind.
func (d *DB) ImportMappings(ctx context.Context, businessID, kind string) (map[string]string, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT column_key, field FROM import_mappings WHERE business_id = $1 AND kind = $2`,
		businessID, kind)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, f string
		if err := rows.Scan(&k, &f); err != nil {
			return nil, dbError(err)
		}
		out[k] = f
	}
	return out, dbError(rows.Err())
}

// BeginImportCheck numbers a new check of an uploaded import's file, in
// one statement of its own (no audit entry: the check writes nothing
// anybody reads until RemapImport).
func (d *DB) BeginImportCheck(ctx context.Context, businessID string, id int64) (int64, error) {
	var check int64
	err := d.wdb.QueryRowContext(ctx, `UPDATE imports SET checks = checks + 1
		WHERE business_id = $1 AND id = $2 AND status = $3 RETURNING checks`, businessID, id, loyalty.ImportUploaded).Scan(&check)
	if err == sql.ErrNoRows {
		return 0, errImportStarted()
	}
	return check, dbError(err)
}

// errImportStarted is the refusal of a new mapping once the import started.
func errImportStarted() error {
	return loyalty.Errorf(loyalty.EConflict, "The import has started; its columns can no longer change.")
}

// AddImportCheckErrors records a batch of a check's rows in error, in one
// statement: rows nobody reads until the check becomes the preview.
func (d *DB) AddImportCheckErrors(ctx context.Context, importID, check int64, errs []loyalty.ImportRowError) error {
	for len(errs) > 0 {
		n := min(len(errs), importErrorsPerStatement)
		var q strings.Builder
		q.WriteString(`INSERT INTO import_errors (import_id, stage, check_no, row_number, fields, message) VALUES `)
		args := make([]any, 0, 3+2*n+n)
		args = append(args, importID, loyalty.ImportStagePreview, check)
		for i, e := range errs[:n] {
			if i > 0 {
				q.WriteString(", ")
			}
			k := len(args)
			q.WriteString("($1, $2, $3, $" + strconv.Itoa(k+1) + ", $" + strconv.Itoa(k+2) + ", $" + strconv.Itoa(k+3) + ")")
			args = append(args, e.Row, strings.Join(e.Fields, ","), e.Message)
		}
		q.WriteString(` ON CONFLICT (import_id, stage, check_no, row_number) DO NOTHING`)
		if _, err := d.wdb.ExecContext(ctx, q.String(), args...); err != nil {
			return dbError(err)
		}
		errs = errs[n:]
	}
	return nil
}

// importErrorsPerStatement bounds the rows of one INSERT of rows in error
// (three bound values each, under SQLite's 32,766).
const importErrorsPerStatement = 1000

// RemapImport makes a check the preview of an uploaded import, with its
// mapping and counts, and remembers the mapping, in one short
// transaction: the rows in error were written by the check already.
func (d *DB) RemapImport(ctx context.Context, im *loyalty.Import, m loyalty.ImportMapping, check int64) error {
	mapping, err := mappingText(m)
	if err != nil {
		return err
	}
	return d.runTx(ctx, func(t *tx) error {
		res, err := t.ExecContext(ctx, `UPDATE imports SET mapping = $1, total_rows = $2, invalid_rows = $3, preview_check = $4
			WHERE id = $5 AND business_id = $6 AND status = $7 AND preview_check < $4`,
			mapping, im.TotalRows, im.InvalidRows, check, im.ID, im.BusinessID, loyalty.ImportUploaded)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			var status string
			if err := t.QueryRowContext(ctx, `SELECT status FROM imports WHERE id = $1`, im.ID).Scan(&status); err != nil {
				return err
			}
			if status != loyalty.ImportUploaded {
				return errImportStarted()
			}
			return loyalty.Errorf(loyalty.EConflict, "The columns were matched again meanwhile; look at the import as it is now.")
		}
		for k, f := range m {
			if f == "" {
				continue
			}
			if _, err := t.ExecContext(ctx, `INSERT INTO import_mappings (business_id, kind, column_key, field, updated_at)
				VALUES ($1, $2, $3, $4, $5) ON CONFLICT (business_id, kind, column_key) DO UPDATE SET field = excluded.field, updated_at = excluded.updated_at`,
				im.BusinessID, im.Kind, k, f, t.now); err != nil {
				return err
			}
		}
		im.Mapping = m
		return nil
	})
}

// DropImportChecks deletes the rows in error of an import's checks
// numbered from to to, one check at a time and a bounded batch of its
// rows per statement (by the primary key's order, so that neither engine
// needs statistics to find them): forgetting a large check never holds
// the writer long.
func (d *DB) DropImportChecks(ctx context.Context, importID, from, to int64) error {
	for {
		var check sql.NullInt64
		if err := d.wdb.QueryRowContext(ctx, `SELECT MIN(check_no) FROM import_errors
			WHERE import_id = $1 AND stage = $2 AND check_no BETWEEN $3 AND $4`,
			importID, loyalty.ImportStagePreview, from, to).Scan(&check); err != nil || !check.Valid {
			return dbError(err)
		}
		// Up to the batch's last row, or all that is left when fewer.
		if _, err := d.wdb.ExecContext(ctx, `DELETE FROM import_errors WHERE import_id = $1 AND stage = $2 AND check_no = $3
			AND row_number <= COALESCE((SELECT row_number FROM import_errors WHERE import_id = $1 AND stage = $2 AND check_no = $3
			ORDER BY row_number LIMIT 1 OFFSET $4), $5)`,
			importID, loyalty.ImportStagePreview, check.Int64, importErrorsPerStatement-1, int64(1<<63-1)); err != nil {
			return dbError(err)
		}
		from = check.Int64
	}
}

// ImportRefused ends an upload that cannot be imported, and forgets its
// file and its errors.
func (d *DB) ImportRefused(ctx context.Context, importID int64, failure string) error {
	return d.runTx(ctx, func(t *tx) error {
		for _, q := range []string{`DELETE FROM import_chunks WHERE import_id = $1`, `DELETE FROM import_errors WHERE import_id = $1`} {
			if _, err := t.ExecContext(ctx, q, importID); err != nil {
				return err
			}
		}
		_, err := t.ExecContext(ctx, `UPDATE imports SET status = $1, failure = $2, finished_at = $3 WHERE id = $4`,
			loyalty.ImportFailed, failure, t.now, importID)
		return err
	})
}

// Import returns an import of a business.
func (d *DB) Import(ctx context.Context, businessID string, id int64) (loyalty.Import, error) {
	return scanImport(d.db.QueryRowContext(ctx, `SELECT `+importColumns+` FROM imports WHERE business_id = $1 AND id = $2`,
		businessID, id))
}

// ImportByFile returns an import of a business by its file id.
func (d *DB) ImportByFile(ctx context.Context, businessID, fileID string) (loyalty.Import, error) {
	return scanImport(d.db.QueryRowContext(ctx, `SELECT `+importColumns+` FROM imports WHERE business_id = $1 AND file_id = $2`,
		businessID, fileID))
}

// Imports lists a business's imports, newest first.
func (d *DB) Imports(ctx context.Context, businessID string, before int64, limit int) ([]loyalty.Import, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := d.db.QueryContext(ctx, `SELECT `+importColumns+` FROM imports WHERE business_id = $1 AND id < $2
		ORDER BY id DESC LIMIT $3`, businessID, before, limit)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []loyalty.Import
	for rows.Next() {
		im, err := scanImport(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, im)
	}
	return out, dbError(rows.Err())
}

// ImportErrors returns a page of an import's rows in error at a stage.
func (d *DB) ImportErrors(ctx context.Context, importID int64, stage string, after int64, limit int) ([]loyalty.ImportRowError, error) {
	// The preview's rows are those of the check it shows; the run's are
	// check 0.
	check := `0`
	if stage == loyalty.ImportStagePreview {
		check = `(SELECT preview_check FROM imports WHERE id = $1)`
	}
	rows, err := d.db.QueryContext(ctx, `SELECT row_number, fields, message FROM import_errors
		WHERE import_id = $1 AND stage = $2 AND check_no = `+check+` AND row_number > $3 ORDER BY row_number LIMIT $4`,
		importID, stage, after, limit)
	if err != nil {
		return nil, dbError(err)
	}
	defer rows.Close()
	var out []loyalty.ImportRowError
	for rows.Next() {
		var e loyalty.ImportRowError
		var fields string
		if err := rows.Scan(&e.Row, &fields, &e.Message); err != nil {
			return nil, dbError(err)
		}
		if fields != "" {
			e.Fields = strings.Split(fields, ",")
		}
		out = append(out, e)
	}
	return out, dbError(rows.Err())
}
