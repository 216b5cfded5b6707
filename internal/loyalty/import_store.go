package loyalty

import (
	"context"
	"time"
)

// ImportStore keeps imports, their files and their rows' outcomes.
type ImportStore interface {
	// CreateImport records a new import (status ImportUploading), setting
	// its id and creation time.
	CreateImport(ctx context.Context, im *Import) error
	// AddImportChunk stores the seq-th chunk (from 0) of an import's file.
	AddImportChunk(ctx context.Context, importID int64, seq int, data []byte) error
	// ImportChunk returns the seq-th chunk of an import's file.
	ImportChunk(ctx context.Context, importID int64, seq int) ([]byte, error)
	// AddImportErrors records rows in error of a stage; a row already
	// recorded at that stage is kept as it was.
	AddImportErrors(ctx context.Context, importID int64, stage string, errs []ImportRowError) error
	// ImportUploaded ends an upload: the file's hash, size and chunks and
	// the preview's counts, status ImportUploaded.
	ImportUploaded(ctx context.Context, im Import) error
	// ImportRefused ends an upload that cannot be imported (status
	// ImportFailed, with why) and forgets its file.
	ImportRefused(ctx context.Context, importID int64, failure string) error
	// Import returns an import of a business by id, or ENotFound.
	Import(ctx context.Context, businessID string, id int64) (Import, error)
	// ImportByFile returns an import of a business by its file id, or ENotFound.
	ImportByFile(ctx context.Context, businessID, fileID string) (Import, error)
	// Imports lists a business's imports, newest first, with ids below
	// before (all when 0), at most limit.
	Imports(ctx context.Context, businessID string, before int64, limit int) ([]Import, error)
	// ImportErrors returns up to limit rows in error of a stage after the
	// row numbered after, in row order.
	ImportErrors(ctx context.Context, importID int64, stage string, after int64, limit int) ([]ImportRowError, error)
	// StartImport queues an uploaded import; EConflict when it was
	// started already, ENotFound when it is not the business's. It runs
	// in a transaction of its own, which writes the audit entry ctx carries.
	StartImport(ctx context.Context, businessID string, id int64) (Import, error)
	// DueImports returns the ids of up to limit imports a worker may take
	// at now: queued ones, and running ones whose lease ran out.
	DueImports(ctx context.Context, now time.Time, limit int) ([]int64, error)
	// ClaimImport leases a due import to claim until leaseUntil (status
	// ImportRunning); false when it is no longer due.
	ClaimImport(ctx context.Context, id int64, claim string, now, leaseUntil time.Time) (Import, bool, error)
	// ImportRowMarked reports whether a row key was imported already.
	ImportRowMarked(ctx context.Context, businessID, key string) (bool, error)
	// SettleImportRow records a row the run failed (rowErr set) or skipped
	// (nil), moving the import's progress to it and its lease on, if
	// claim still holds it (else ErrImportLeaseLost).
	SettleImportRow(ctx context.Context, r ImportRowMark, rowErr *ImportRowError) error
	// ImportMappings returns the mapping a business chose for its files
	// of a kind, by column key (ImportColumnKey): its latest choice for
	// each column it mapped.
	ImportMappings(ctx context.Context, businessID, kind string) (map[string]string, error)
	// BeginImportCheck numbers a new check of an uploaded import's file
	// (EConflict once it started), in a statement of its own that writes
	// no audit entry.
	BeginImportCheck(ctx context.Context, businessID string, id int64) (int64, error)
	// AddImportCheckErrors records rows in error a check found, outside
	// any audited transaction: nobody reads them until RemapImport makes
	// the check the import's preview.
	AddImportCheckErrors(ctx context.Context, importID, check int64, errs []ImportRowError) error
	// RemapImport makes check, whose rows in error are written, the
	// preview of an uploaded import, with the mapping m and im's counts,
	// and remembers each column's choice in m for the business and kind,
	// in one short transaction that writes the audit entry ctx carries.
	// It is EConflict when the import started, or when a later check
	// became its preview meanwhile.
	RemapImport(ctx context.Context, im *Import, m ImportMapping, check int64) error
	// DropImportChecks deletes the rows in error of the import's checks
	// numbered from to to, in bounded statements of their own.
	DropImportChecks(ctx context.Context, importID, from, to int64) error
	// FinishImport ends a run (status ImportFinished), if claim still holds it.
	FinishImport(ctx context.Context, id int64, claim string) error
}

// ImportBackend is the storage the import service needs.
type ImportBackend interface {
	Store
	ImportStore
}
