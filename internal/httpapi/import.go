package httpapi

import (
	"encoding/csv"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// The imports resource follows the reference platform's: POST
// /imports/uploads receives the file and answers its preview, POST
// /imports starts the import of an uploaded file_id, GET /imports and GET
// /imports/{id} tell where imports stand. GET /imports/{id}/errors, ours,
// is the report of the rows in error as CSV.

// importTypeNames are the reference platform's names of the import kinds.
var importTypeNames = map[string]string{loyalty.ImportTransactions: "Transaction Import", loyalty.ImportCustomers: "Customer Import",
	loyalty.ImportProducts: "Product Import"}

type importTotalsJSON struct {
	TotalRecords int64 `json:"total_records"`
	TotalMapped  int64 `json:"total_mapped"`
	TotalError   int64 `json:"total_error"`
	Processed    int64 `json:"processed"`
	Imported     int64 `json:"imported"`
	Failed       int64 `json:"failed"`
	Skipped      int64 `json:"skipped"`
}

type importRowErrorJSON struct {
	Row     int64    `json:"row"`
	Fields  []string `json:"fields"`
	Message string   `json:"message"`
}

type importJSON struct {
	ID         int64            `json:"id"`
	FileID     string           `json:"file_id"`
	Type       string           `json:"type"`
	ImportType string           `json:"import_type"`
	Status     string           `json:"status"`
	FileName   string           `json:"file_name"`
	Failure    *string          `json:"failure"`
	CreatedBy  string           `json:"created_by"`
	CreatedAt  string           `json:"created_at"`
	StartedAt  *string          `json:"started_at"`
	FinishedAt *string          `json:"finished_at"`
	Totals     importTotalsJSON `json:"totals"`
	// The preview, on GET /imports/{id} and the upload's reply.
	Columns *[]string             `json:"file_header_columns,omitempty"`
	Entry   map[string]string     `json:"preview_entry,omitempty"`
	Entries *[]map[string]string  `json:"preview_entries,omitempty"`
	Errors  *[]importRowErrorJSON `json:"error_list,omitempty"`
}

func toImportJSON(im loyalty.Import) importJSON {
	j := importJSON{ID: im.ID, FileID: im.FileID, Type: importTypeNames[im.Kind], ImportType: im.Kind, Status: im.StatusText(),
		FileName: im.FileName, CreatedBy: im.CreatedBy, CreatedAt: loyalty.FormatTime(im.CreatedAt),
		Totals: importTotalsJSON{TotalRecords: im.TotalRows, TotalMapped: im.TotalRows - im.InvalidRows, TotalError: im.InvalidRows,
			Processed: im.Done + im.Failed + im.Skipped, Imported: im.Done, Failed: im.Failed, Skipped: im.Skipped}}
	if im.Failure != "" {
		j.Failure = &im.Failure
	}
	if im.StartedAt != nil {
		s := loyalty.FormatTime(*im.StartedAt)
		j.StartedAt = &s
	}
	if im.FinishedAt != nil {
		s := loyalty.FormatTime(*im.FinishedAt)
		j.FinishedAt = &s
	}
	return j
}

// withPreview adds the preview's columns, first rows and rows in error.
func withPreview(p loyalty.ImportPreview) importJSON {
	j := toImportJSON(p.Import)
	cols, entries, errs := []string{}, []map[string]string{}, []importRowErrorJSON{}
	cols = append(cols, p.Columns...)
	for _, row := range p.Rows {
		e := map[string]string{}
		for i, c := range p.Columns {
			if c != "" && i < len(row) {
				e[c] = row[i]
			}
		}
		entries = append(entries, e)
	}
	for _, e := range p.Errors {
		fields := e.Fields
		if fields == nil {
			fields = []string{}
		}
		errs = append(errs, importRowErrorJSON{Row: e.Row, Fields: fields, Message: e.Message})
	}
	j.Columns, j.Entries, j.Errors = &cols, &entries, &errs
	if len(entries) > 0 {
		j.Entry = entries[0]
	}
	return j
}

// uploadImport is POST /imports/uploads: multipart/form-data with the
// file, its type, and options[branch_id] and options[phone_country_code].
// The file is stored as it is read; when it comes before the fields that
// say how to read it, it is spooled to a temporary file first.
func (s *Server) uploadImport(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	r.Body = http.MaxBytesReader(w, r.Body, loyalty.MaxImportBytes+1<<20)
	bad := loyalty.Errorf(loyalty.EBadRequest, "The body must be multipart/form-data with a file and its type.")
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "multipart/form-data" {
		return bad
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return bad
	}
	in := loyalty.ImportUpload{By: s.importAuthor(r, rc)}
	var im loyalty.Import
	var spool *os.File
	defer func() {
		if spool != nil {
			spool.Close()
			os.Remove(spool.Name())
		}
	}()
	uploaded := false
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		} else if err != nil {
			return uploadError(err)
		}
		name := strings.ReplaceAll(strings.ReplaceAll(part.FormName(), "[", "."), "]", "")
		if name == "file" {
			in.FileName = part.FileName()
			if in.Kind == "" {
				if spool, err = os.CreateTemp("", "loyalty-import-*.csv"); err != nil {
					return err
				}
				if _, err := io.Copy(spool, io.LimitReader(part, loyalty.MaxImportBytes+1)); err != nil {
					return uploadError(err)
				}
				continue
			}
			if im, err = rc.svc.Imports.Upload(r.Context(), *rc.business, in, part); err != nil {
				return uploadError(err)
			}
			uploaded = true
			continue
		}
		value, err := io.ReadAll(io.LimitReader(part, 4096))
		if err != nil {
			return uploadError(err)
		}
		switch v := strings.TrimSpace(string(value)); {
		case name == "type":
			in.Kind = v
		case name == "options.branch_id":
			in.BranchID = v
		case name == "options.phone_country_code":
			in.CountryCode = v
		case strings.HasPrefix(name, "mapping") && v != "":
			return loyalty.Invalid("mapping", "Columns are read by their names, which are the API's field names (see the documentation); rename the file's columns instead of mapping them.")
		}
	}
	switch {
	case spool != nil && !uploaded:
		if _, err := spool.Seek(0, io.SeekStart); err != nil {
			return err
		}
		if im, err = rc.svc.Imports.Upload(r.Context(), *rc.business, in, spool); err != nil {
			return uploadError(err)
		}
	case !uploaded:
		return loyalty.Invalid("file", "The file field is required: the CSV file to import.")
	}
	p, err := rc.svc.Imports.Preview(r.Context(), *rc.business, im.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": withPreview(p)})
	return nil
}

// uploadError tells a body too large or cut short from the service's own errors.
func uploadError(err error) error {
	var me *http.MaxBytesError
	if errors.As(err, &me) {
		return loyalty.Invalid("file", "The file may not be larger than "+strconv.Itoa(loyalty.MaxImportBytes>>20)+" MiB; split it in several imports.")
	}
	if _, ok := err.(*loyalty.Error); ok {
		return err
	}
	return loyalty.Errorf(loyalty.EBadRequest, "The multipart body is malformed or was cut short.")
}

// importAuthor is who uploads: the account's e-mail.
func (s *Server) importAuthor(r *http.Request, rc *reqCtx) string {
	v, err := rc.svc.Accounts.View(r.Context(), rc.businessID, rc.token.SubjectID, nil)
	if err != nil {
		return ""
	}
	return v.Account.Owner.Email
}

// startImportInput is the body of POST /imports.
type startImportInput struct {
	FileID  loyalty.Opt[string] `json:"file_id"`
	Type    loyalty.Opt[string] `json:"type"`
	Options loyalty.Opt[struct {
		BranchID         loyalty.Opt[string] `json:"branch_id"`
		PhoneCountryCode loyalty.Opt[string] `json:"phone_country_code"`
	}] `json:"options"`
	Mapping loyalty.Opt[map[string]any] `json:"mapping"`
}

// startImport is POST /imports: start importing an uploaded file. The
// type and options, when sent, must be the upload's.
func (s *Server) startImport(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	var in startImportInput
	if err := decodeBody(r, &in); err != nil {
		return err
	}
	b := tenant(rc)
	fileID, _ := in.FileID.Value()
	if fileID == "" {
		return loyalty.Invalid("file_id", "The file_id field is required: the one POST /imports/uploads answered.")
	}
	if m, ok := in.Mapping.Value(); ok && len(m) > 0 {
		return loyalty.Invalid("mapping", "Columns are read by their names, which are the API's field names; upload the file again with its columns renamed.")
	}
	im, err := rc.svc.Imports.ByFile(r.Context(), b, fileID)
	if err != nil {
		return err
	}
	v := loyalty.Validation{}
	if t, ok := in.Type.Value(); ok && t != im.Kind {
		v.Add("type", "The type must be the upload's: "+im.Kind+".")
	}
	if o, ok := in.Options.Value(); ok {
		if br, ok := o.BranchID.Value(); ok && !strings.EqualFold(strings.TrimSpace(br), im.BranchID) {
			v.Add("options.branch_id", "The options must be the upload's; upload the file again to change them.")
		}
		if cc, ok := o.PhoneCountryCode.Value(); ok && !strings.EqualFold(strings.TrimSpace(cc), im.CountryCode) {
			v.Add("options.phone_country_code", "The options must be the upload's; upload the file again to change them.")
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	if im, err = rc.svc.Imports.Start(r.Context(), b, im.ID); err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"status_code": http.StatusAccepted, "message": "Accepted",
		"description": "The request has been accepted for processing.", "data": toImportJSON(im)})
	return nil
}

// importID reads the {id} of an import route.
func importID(r *http.Request) (int64, error) {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return 0, err
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, loyalty.Errorf(loyalty.EBadRequest, "Invalid import id supplied.")
	}
	return id, nil
}

// listImports is GET /imports: the newest imports first (at most 100).
func (s *Server) listImports(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	if _, _, err := queryNames(r, nil, nil); err != nil {
		return err
	}
	list, err := rc.svc.Imports.List(r.Context(), tenant(rc), 0, 100)
	if err != nil {
		return err
	}
	out := make([]importJSON, 0, len(list))
	for _, im := range list {
		out = append(out, toImportJSON(im))
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
	return nil
}

// getImport is GET /imports/{id}: where it stands, with its preview.
func (s *Server) getImport(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	id, err := importID(r)
	if err != nil {
		return err
	}
	p, err := rc.svc.Imports.Preview(r.Context(), tenant(rc), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": withPreview(p)})
	return nil
}

// importErrors is GET /imports/{id}/errors: every row in error as CSV
// (row, fields, message), streamed; the preview's before the import
// starts, the run's after.
func (s *Server) importErrors(w http.ResponseWriter, r *http.Request, rc *reqCtx) error {
	id, err := importID(r)
	if err != nil {
		return err
	}
	im, err := rc.svc.Imports.Get(r.Context(), tenant(rc), id)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="import-`+strconv.FormatInt(im.ID, 10)+`-errors.csv"`)
	return writeImportErrors(w, func(fn func(loyalty.ImportRowError) error) error {
		_, err := rc.svc.Imports.EachError(r.Context(), tenant(rc), im.ID, fn)
		return err
	})
}

// writeImportErrors writes an import's rows in error as CSV: a header
// (row, fields, message), then one line per row.
func writeImportErrors(w io.Writer, each func(func(loyalty.ImportRowError) error) error) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"row", "fields", "message"})
	err := each(func(e loyalty.ImportRowError) error {
		return cw.Write([]string{strconv.FormatInt(e.Row, 10), strings.Join(e.Fields, " "), e.Message})
	})
	cw.Flush()
	return errors.Join(err, cw.Error())
}
