package loyalty

import "time"

// A CSV import brings a business's customers (with their opening balances)
// or its past transactions from another system. The file is uploaded and
// kept in the database in chunks, so any instance can read it, then and
// after a restart; the upload checks every row with the API's own
// validation and keeps the rows in error for the preview. Once started,
// a background worker (ImportWorker) runs it under a lease, one row per
// database transaction, through the same services as the API. Each row
// imported leaves a mark keyed by the file's content hash and the row's
// number, in the transaction of its change: the same file imported again
// adds nothing, and a run resumed after a crash does no row twice.

// What an import brings in.
const (
	ImportCustomers    = "customers"
	ImportTransactions = "transactions"
	ImportProducts     = "products"
)

// ImportKinds are the kinds of import, as POST /imports/uploads names them.
var ImportKinds = []string{ImportCustomers, ImportTransactions, ImportProducts}

// Where an import stands.
const (
	ImportUploading = "uploading" // the file is being received
	ImportUploaded  = "uploaded"  // received and previewed; waiting to be started
	ImportQueued    = "queued"    // started; waiting for a worker
	ImportRunning   = "running"   // a worker holds it
	ImportFinished  = "finished"  // every row was tried
	ImportFailed    = "failed"    // the file could not be read (upload refused)
)

// Stages an error of a row is found at.
const (
	ImportStagePreview = "preview" // the upload's validation
	ImportStageRun     = "run"     // the run's attempt
)

// Audit actions of imports.
const (
	AuditImportUploaded = "import.uploaded"
	AuditImportStarted  = "import.started"
	AuditImportMapped   = "import.mapped"
)

// Limits of an import.
const (
	// ImportChunkSize is how much of a file one stored chunk holds, and
	// so about how much of it a run holds in memory.
	ImportChunkSize = 256 << 10
	// MaxImportBytes bounds one file.
	MaxImportBytes = 64 << 20
	// ImportPreviewRows is how many first rows a preview shows.
	ImportPreviewRows = 10
)

// Import is one uploaded file and how far its import went.
type Import struct {
	ID          int64
	BusinessID  string
	FileID      string // the upload's opaque id, which starts it
	Kind        string // ImportCustomers or ImportTransactions
	Status      string
	FileName    string
	FileHash    string // SHA-256 of the content, hex
	FileSize    int64
	Chunks      int
	BranchID    string // the branch of rows that name none
	CountryCode string // the country of phone numbers written without one
	// Mapping reads the file's columns as fields (the console's); nil
	// reads them by the API's names.
	Mapping     ImportMapping
	TotalRows   int64  // data rows in the file
	InvalidRows int64  // rows the preview found in error
	NextRow     int64  // the last row the run settled (done, failed or skipped)
	Done        int64  // rows imported by this import
	Failed      int64  // rows refused by the run
	Skipped     int64  // rows an earlier import of the same file had imported
	Failure     string // why a failed upload failed
	CreatedBy   string // e-mail of who uploaded it
	CreatedAt   time.Time
	StartedAt   *time.Time
	FinishedAt  *time.Time
}

// StatusText is the import's status as the reference platform words it
// ("Uploaded" is ours: a file previewed and not yet started).
func (im Import) StatusText() string {
	switch im.Status {
	case ImportUploaded:
		return "Uploaded"
	case ImportQueued:
		return "Pending"
	case ImportRunning:
		return "In progress"
	case ImportFinished:
		if im.Failed > 0 {
			return "Finished with errors"
		}
		return "Finished"
	case ImportFailed:
		return "Failed"
	}
	return "Uploading"
}

// ImportRowError is a row of a file in error, and why.
type ImportRowError struct {
	Row     int64    // the row's number in the file, the header being row 1
	Fields  []string // the columns at fault, when the error names them
	Message string
}

// ImportPreview is what a business checks before starting an import: the
// columns, the first rows and the rows in error.
type ImportPreview struct {
	Import  Import
	Columns []string
	Rows    [][]string           // the first rows, as read
	Errors  []ImportRowError     // the first rows in error (at most a page)
	Known   map[string]ImportCol // the file's columns the import reads, by name
	// Header is the file's first row as written; Unmapped the columns
	// of it the mapping has no field or Ignore for (the import cannot
	// start while there are any).
	Header   []string
	Unmapped []string
}

// ImportService uploads, previews, starts and reports imports, and runs
// them (see ImportWorker).
type ImportService struct {
	Services Services
	Store    ImportBackend
	// Wake, when set, tells the worker an import was started.
	Wake func()
}
