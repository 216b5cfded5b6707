package loyalty

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
)

// ImportUpload is what an upload says beside its file.
type ImportUpload struct {
	Kind        string // ImportCustomers or ImportTransactions
	FileName    string
	BranchID    string // the branch of transactions that name none
	CountryCode string // the country of phones written without one
	By          string // who uploads it (an e-mail), for the list
	// Guess reads the file's columns through a guessed mapping (the
	// console's upload) instead of refusing those the API does not name.
	Guess bool
}

// importErrorBatch is how many rows in error are written at once.
const importErrorBatch = 500

// Upload receives a file, storing it as it is read, and previews it: each
// row is checked with the API's validation, and the rows in error are
// kept. It holds one chunk of the file and one batch of errors in memory,
// whatever the file's size. A file that cannot be imported (no header, a
// column the import does not read, too large, no rows) is refused whole.
func (s *ImportService) Upload(ctx context.Context, b Business, in ImportUpload, file io.Reader) (Import, error) {
	v := Validation{}
	if !slices.Contains(ImportKinds, in.Kind) {
		v.Add("type", "The type must be one of: "+strings.Join(ImportKinds, ", ")+".")
	}
	cc := strings.ToUpper(strings.TrimSpace(in.CountryCode))
	if cc != "" && !ValidCountry(cc) {
		v.Add("options.phone_country_code", "The phone country code must be an ISO 3166-1 alpha-2 code.")
	}
	branch := strings.ToLower(strings.TrimSpace(in.BranchID))
	if branch != "" {
		if in.Kind == ImportCustomers {
			v.Add("options.branch_id", "A customers import has no branch; leave options.branch_id out.")
		} else if ok, err := s.hasBranch(ctx, b, branch); err != nil {
			return Import{}, err
		} else if !ok {
			v.Add("options.branch_id", "The branch does not exist.")
		}
	}
	if err := v.Err(); err != nil {
		return Import{}, err
	}
	name := strings.TrimSpace(in.FileName)
	if len(name) > 255 || !validText(name) {
		name = ""
	}
	im := Import{BusinessID: b.ID, FileID: NewID(), Kind: in.Kind, Status: ImportUploading, FileName: name,
		BranchID: branch, CountryCode: cc, CreatedBy: in.By}
	if err := s.Store.CreateImport(ctx, &im); err != nil {
		return Import{}, err
	}
	var remembered map[string]string
	if in.Guess {
		var err error
		if remembered, err = s.Store.ImportMappings(ctx, b.ID, in.Kind); err != nil {
			return Import{}, err
		}
	}
	w := newChunkWriter(ctx, s.Store, im.ID)
	err := s.preview(ctx, b, &im, io.TeeReader(file, w), func(header []string) ImportMapping {
		if !in.Guess {
			return nil
		}
		return GuessImportMapping(in.Kind, header, remembered)
	}, func(errs []ImportRowError) error {
		return s.Store.AddImportErrors(ctx, im.ID, ImportStagePreview, errs)
	})
	if err == nil {
		err = w.flush()
	}
	if err != nil {
		// Refused or cut short: the import is marked failed and its
		// chunks are dropped, whether or not the client is still there.
		if rerr := s.Store.ImportRefused(context.WithoutCancel(ctx), im.ID, failureText(err)); rerr != nil {
			return Import{}, errors.Join(err, rerr)
		}
		return Import{}, err
	}
	im.FileHash, im.FileSize, im.Chunks, im.Status = w.sum(), w.size, w.seq, ImportUploaded
	if err := s.Store.ImportUploaded(ctx, im); err != nil {
		return Import{}, err
	}
	return im, nil
}

// failureText is why an upload failed, as its import keeps it.
func failureText(err error) string {
	var e *Error
	if !errors.As(err, &e) {
		return "The upload did not complete."
	}
	var msgs []string
	for _, f := range rowError(0, err).Fields {
		msgs = append(msgs, e.Fields[f]...)
	}
	if len(msgs) == 0 {
		return e.Message
	}
	return strings.Join(msgs, " ")
}

// validText reports whether s is text the database can keep.
func validText(s string) bool { return !strings.ContainsRune(s, 0) && strings.ToValidUTF8(s, "") == s }

func (s *ImportService) hasBranch(ctx context.Context, b Business, id string) (bool, error) {
	list, err := s.Store.Branches(ctx, b.ID)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(list, func(br Branch) bool { return br.ID == id }), nil
}

// preview reads the whole file from src, mapping its header through the
// mapping mapping gives for it, checking each row, counting the rows and
// handing those in error to add a batch at a time. A file error (header,
// size) is returned as EInvalid naming "file".
func (s *ImportService) preview(ctx context.Context, b Business, im *Import, src io.Reader,
	mapping func(header []string) ImportMapping, add func([]ImportRowError) error) error {
	rows, err := openRows(src)
	if err != nil {
		return err
	}
	im.Mapping = mapping(rows.header)
	if err := rows.mapHeader(im.Kind, im.Mapping); err != nil {
		return err
	}
	now := s.Store.Now()
	var batch []ImportRowError
	im.TotalRows, im.InvalidRows = 0, 0
	for {
		rec, num, rowErr, err := rows.next()
		if err == io.EOF {
			break
		} else if err != nil {
			return err
		}
		if rowErr == nil {
			_, rowErr = readRow(b, *im, rows.cols, rec, num, now)
		}
		im.TotalRows++
		if rowErr == nil {
			continue
		}
		im.InvalidRows++
		if batch = append(batch, rowError(num, rowErr)); len(batch) == importErrorBatch {
			if err := add(batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if im.TotalRows == 0 {
		return Invalid("file", "The file has no rows to import below its first row.")
	}
	if len(batch) == 0 {
		return nil
	}
	return add(batch)
}

// ImportErrorsPage is how many rows in error a preview or a report shows.
const ImportErrorsPage = 100

// Preview returns an import of the business with its columns, its first
// rows and its first rows in error: those the preview found while it is
// not started, those the run refused once it is.
func (s *ImportService) Preview(ctx context.Context, b Business, id int64) (ImportPreview, error) {
	im, err := s.Store.Import(ctx, b.ID, id)
	if err != nil {
		return ImportPreview{}, asNotFound(err, importNotFound)
	}
	p := ImportPreview{Import: im, Known: map[string]ImportCol{}}
	if im.Status == ImportFailed {
		return p, nil
	}
	rows, err := newRowReader(im.Kind, im.Mapping, newChunkReader(ctx, s.Store, im))
	if err != nil {
		return p, err
	}
	p.Header, p.Unmapped = rows.header, rows.unmapped
	for _, c := range rows.cols {
		name := ""
		if c != nil {
			name, p.Known[c.Name] = c.Name, *c
		}
		p.Columns = append(p.Columns, name)
	}
	if p.Rows, err = firstRows(rows); err != nil {
		return p, err
	}
	p.Errors, err = s.Store.ImportErrors(ctx, im.ID, errorStage(im), 0, ImportErrorsPage)
	return p, err
}

// errorStage is the stage whose errors an import reports: the preview's
// until it is started, the run's afterwards.
func errorStage(im Import) string {
	if im.Status == ImportUploaded {
		return ImportStagePreview
	}
	return ImportStageRun
}

// firstRows reads the first rows of a file after its header.
func firstRows(rows *rowReader) ([][]string, error) {
	var out [][]string
	for len(out) < ImportPreviewRows {
		rec, _, rowErr, err := rows.next()
		if err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		if rowErr != nil {
			rec = nil
		}
		out = append(out, slices.Clone(rec))
	}
	return out, nil
}

// Get returns an import of the business.
func (s *ImportService) Get(ctx context.Context, b Business, id int64) (Import, error) {
	im, err := s.Store.Import(ctx, b.ID, id)
	return im, asNotFound(err, importNotFound)
}

// List returns the business's imports, newest first, older than the
// import before (0: the newest).
func (s *ImportService) List(ctx context.Context, b Business, before int64, limit int) ([]Import, error) {
	return s.Store.Imports(ctx, b.ID, max(before, 0), limit)
}

// EachError calls fn for each row in error of an import, in row order:
// the preview's before it starts, the run's after. It reads a page at a
// time, so a report of any size holds one page.
func (s *ImportService) EachError(ctx context.Context, b Business, id int64, fn func(ImportRowError) error) (Import, error) {
	im, err := s.Get(ctx, b, id)
	if err != nil {
		return im, err
	}
	stage := errorStage(im)
	for after := int64(0); ; {
		page, err := s.Store.ImportErrors(ctx, im.ID, stage, after, 1000)
		if err != nil || len(page) == 0 {
			return im, err
		}
		for _, e := range page {
			if err := fn(e); err != nil {
				return im, err
			}
		}
		after = page[len(page)-1].Row
	}
}

// Start queues an uploaded import for the worker; a second start is
// EConflict.
func (s *ImportService) Start(ctx context.Context, b Business, id int64) (Import, error) {
	im, err := s.Store.Import(ctx, b.ID, id)
	if err != nil {
		return im, asNotFound(err, importNotFound)
	}
	// A mapping only ever becomes complete (Map refuses one that is
	// not), so this check cannot be overtaken by a concurrent change.
	if open := im.Mapping.Open(); len(open) > 0 && im.Status == ImportUploaded {
		return im, Invalid("mapping", "Choose the field each column holds, or Ignore, before starting: "+strings.Join(open, ", ")+".")
	}
	im, err = s.Store.StartImport(ctx, b.ID, id)
	if err != nil {
		return im, asNotFound(err, importNotFound)
	}
	if s.Wake != nil {
		s.Wake()
	}
	return im, nil
}

// ByFile returns the import of an uploaded file, named by its file id
// (the reference platform's POST /imports names it so); a file id the
// business never uploaded is EInvalid naming file_id.
func (s *ImportService) ByFile(ctx context.Context, b Business, fileID string) (Import, error) {
	im, err := s.Store.ImportByFile(ctx, b.ID, strings.ToLower(strings.TrimSpace(fileID)))
	if ErrorCode(err) == ENotFound {
		return Import{}, Invalid("file_id", "File does not exist.")
	}
	return im, err
}

// StartFile queues the import of an uploaded file, named by its file id.
func (s *ImportService) StartFile(ctx context.Context, b Business, fileID string) (Import, error) {
	im, err := s.ByFile(ctx, b, fileID)
	if err != nil {
		return Import{}, err
	}
	return s.Start(ctx, b, im.ID)
}

func importNotFound() error { return Errorf(ENotFound, "Import not found.") }
