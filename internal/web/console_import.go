package web

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
)

// The imports pages: upload a CSV of customers or past transactions, see
// its preview (first rows, every row in error), start it, follow it and
// download its report. A running import's page follows its progress by
// itself (import.js reads /progress every two seconds); without the
// script its refresh link does the same, a page load at a time.

func (s *Server) importRoutes(mux *http.ServeMux) {
	mux.Handle("GET /business/imports", s.console(loyalty.PermManage, s.imports))
	mux.Handle("POST /business/imports", s.console(loyalty.PermManage, s.importUpload))
	mux.Handle("GET /business/imports/{id}", s.console(loyalty.PermManage, s.importPage))
	mux.Handle("POST /business/imports/{id}/mapping", s.console(loyalty.PermManage, s.importMap))
	mux.Handle("POST /business/imports/{id}/start", s.console(loyalty.PermManage, s.importStart))
	mux.Handle("GET /business/imports/{id}/errors", s.console(loyalty.PermManage, s.importReport))
	mux.Handle("GET /business/imports/{id}/progress", s.console(loyalty.PermManage, s.importProgress))
}

// importsPage is the body of the imports template.
type importsPage struct {
	Imports      []loyalty.Import
	Branches     []loyalty.Branch
	Customers    []loyalty.ImportCol
	Transactions []loyalty.ImportCol
	Products     []loyalty.ImportCol
}

func (s *Server) imports(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	return s.renderImports(w, r, a, http.StatusOK, map[string]string{"type": loyalty.ImportCustomers}, nil, "")
}

func (s *Server) renderImports(w http.ResponseWriter, r *http.Request, a loyalty.Actor, status int, form map[string]string,
	fields map[string][]string, msg string) error {
	list, err := s.Desk.Imports(r.Context(), a)
	if err != nil {
		return err
	}
	branches, err := s.Desk.Store.Branches(r.Context(), a.BusinessID)
	if err != nil {
		return err
	}
	v := s.consoleView(r, a, "Imports")
	v.Form, v.Fields, v.Error = form, fields, msg
	v.Data = importsPage{Imports: list, Branches: branches, Customers: loyalty.CustomerColumns, Transactions: loyalty.TransactionColumns,
		Products: loyalty.ProductColumns}
	s.render(w, r, status, "imports", v)
	return nil
}

// importUpload receives the form's file as a stream: the type, branch and
// country fields come before the file in the form.
func (s *Server) importUpload(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	mr, ok := uploadParts(r)
	if !ok {
		return loyalty.Errorf(loyalty.EBadRequest, "Choose a file to upload.")
	}
	in := loyalty.ImportUpload{}
	form := map[string]string{}
	var im loyalty.Import
	var err error
	uploaded := false
	for !uploaded {
		part, perr := mr.NextPart()
		if perr == io.EOF {
			break
		} else if perr != nil {
			return uploadFailed(perr)
		}
		if part.FormName() == "file" {
			if part.FileName() == "" {
				break
			}
			in.FileName = part.FileName()
			im, err = s.Desk.UploadImport(r.Context(), a, in, part)
			uploaded = true
			continue
		}
		value, perr := formValue(part)
		if perr != nil {
			return uploadFailed(perr)
		}
		form[part.FormName()] = value
		switch part.FormName() {
		case "type":
			in.Kind = value
		case "branch_id":
			in.BranchID = value
		case "country_code":
			in.CountryCode = value
		}
	}
	if !uploaded {
		err = loyalty.Invalid("file", "Choose the CSV file to import.")
	}
	var me *http.MaxBytesError
	if errors.As(err, &me) {
		err = loyalty.Invalid("file", "The file may not be larger than "+strconv.Itoa(loyalty.MaxImportBytes>>20)+" MiB; split it in several imports.")
	}
	if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
		fields := map[string][]string{}
		for f, msgs := range e.Fields {
			switch f {
			case "options.branch_id":
				f = "branch_id"
			case "options.phone_country_code":
				f = "country_code"
			}
			fields[f] = msgs
		}
		return s.renderImports(w, r, a, httpapi.StatusOf(e.Code), form, fields, "The file was not uploaded: see below.")
	} else if err != nil {
		return err
	}
	redirect(w, "/business/imports/"+strconv.FormatInt(im.ID, 10)+"?notice=import_uploaded")
	return nil
}

// uploadFailed is the error of an upload that could not be read.
func uploadFailed(err error) error {
	var me *http.MaxBytesError
	if errors.As(err, &me) {
		return loyalty.Errorf(loyalty.EInvalid, "The file may not be larger than %d MiB; split it in several imports.", loyalty.MaxImportBytes>>20)
	}
	return loyalty.Errorf(loyalty.EBadRequest, "The upload was cut short; try again.")
}

// importPageData is the body of the import template.
type importPageData struct {
	loyalty.ImportPreview
	Status   string // as the API words it
	Running  bool   // started and not finished: the page offers a refresh
	Progress int    // per cent of the rows settled
	// Mapping is the form matching the file's columns to fields, while
	// the import is not started and reads the file through a mapping.
	Mapping []mappedColumn
	Choices []fieldChoice
}

// mappedColumn is a column of the file in the mapping form.
type mappedColumn struct {
	Index  int
	Name   string // as the file writes it
	Sample string // its cell in the first row
	Field  string // the field chosen or guessed, ImportIgnore, or ""
	Errors []string
}

// fieldChoice is a field of the kind, as the mapping form offers it.
type fieldChoice struct{ Name, Label string }

// importFieldLabels are the import's fields in the merchant's words;
// the others are named after their last part.
var importFieldLabels = map[string]string{
	"email": "E-mail", "phone": "Phone", "country_code": "Phone's country", "first_name": "First name",
	"last_name": "Last name", "birth_date": "Birthday", "language": "Language", "gender": "Gender",
	"enabled": "Enabled (true/false)", "balance.points": "Points balance", "balance.giftcard": "Gift-card balance",
	"address.street": "Street", "address.city": "City", "address.region": "Region", "address.country": "Country",
	"address.country_code": "Country code", "address.zip_code": "Postcode", "address.lat": "Latitude",
	"address.long": "Longitude", "intent": "What it is (intent)", "type": "Type", "customer.id": "Customer id",
	"customer.email": "Customer's e-mail", "customer.phone": "Customer's phone", "customer.country_code": "Customer's phone country",
	"amount": "Amount", "points": "Points", "visits": "Visits", "created_at": "Date", "branch.id": "Branch id",
	"offer.id": "Offer id", "coupon.id": "Coupon id", "giftcard.id": "Gift card id", "receipt.number": "Receipt number",
	"comments": "Comments", "transaction_details.external_order_id": "Order id", "product_sku": "SKU",
	"title": "Name", "description": "Description", "product_actual_price": "Price", "product_real_price": "List price",
	"category_id": "Category id", "tags": "Tags",
}

// importFieldLabel is an import field in words.
func importFieldLabel(name string) string {
	if l, ok := importFieldLabels[name]; ok {
		return l
	}
	last := name[strings.LastIndex(name, ".")+1:]
	last = strings.ReplaceAll(last, "_", " ")
	return strings.ToUpper(last[:1]) + last[1:]
}

// mappingForm is the mapping form of an import read through a mapping,
// with chosen (by column) and fields (errors by "column.N") when a
// choice was refused.
func mappingForm(p loyalty.ImportPreview, chosen []string, fields map[string][]string) ([]mappedColumn, []fieldChoice) {
	im := p.Import
	if im.Mapping == nil || im.Status != loyalty.ImportUploaded {
		return nil, nil
	}
	var cols []mappedColumn
	for i, h := range p.Header {
		k := loyalty.ImportColumnKey(h)
		if k == "" {
			continue
		}
		c := mappedColumn{Index: i, Name: strings.TrimSpace(h), Field: im.Mapping[k], Errors: fields["column."+strconv.Itoa(i)]}
		if chosen != nil && i < len(chosen) {
			c.Field = chosen[i]
		}
		if len(p.Rows) > 0 && i < len(p.Rows[0]) {
			c.Sample = p.Rows[0][i]
		}
		cols = append(cols, c)
	}
	var choices []fieldChoice
	for _, c := range importFields(im.Kind) {
		choices = append(choices, fieldChoice{c.Name, importFieldLabel(c.Name)})
	}
	return cols, choices
}

// importFields are the fields of an import kind.
func importFields(kind string) []loyalty.ImportCol {
	switch kind {
	case loyalty.ImportCustomers:
		return loyalty.CustomerColumns
	case loyalty.ImportProducts:
		return loyalty.ProductColumns
	}
	return loyalty.TransactionColumns
}

// pathID reads the {id} of an import page.
func pathID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, loyalty.Errorf(loyalty.ENotFound, "Import not found.")
	}
	return id, nil
}

func (s *Server) importPage(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	return s.renderImport(w, r, a, id, http.StatusOK, nil, nil, "")
}

// renderImport renders an import's page, with the mapping chosen and its
// errors when a choice was refused.
func (s *Server) renderImport(w http.ResponseWriter, r *http.Request, a loyalty.Actor, id int64, status int,
	chosen []string, fields map[string][]string, msg string) error {
	p, err := s.Desk.PreviewImport(r.Context(), a, id)
	if err != nil {
		return err
	}
	im := p.Import
	d := importPageData{ImportPreview: p, Status: im.StatusText(),
		Running: im.Status == loyalty.ImportQueued || im.Status == loyalty.ImportRunning}
	if im.TotalRows > 0 {
		d.Progress = int((im.Done + im.Failed + im.Skipped) * 100 / im.TotalRows)
	}
	d.Mapping, d.Choices = mappingForm(p, chosen, fields)
	// Rows in error name the file's columns, as the merchant wrote them.
	if im.Mapping != nil {
		column := map[string]string{}
		for i, f := range p.Columns {
			if f != "" && i < len(p.Header) {
				column[f] = strings.TrimSpace(p.Header[i])
			}
		}
		for i, e := range d.Errors {
			fields := make([]string, len(e.Fields))
			for j, f := range e.Fields {
				if fields[j] = column[f]; fields[j] == "" {
					fields[j] = f
				}
			}
			d.Errors[i].Fields = fields
		}
	}
	v := s.consoleView(r, a, "Import #"+strconv.FormatInt(im.ID, 10))
	v.Data, v.Fields, v.Error = d, fields, msg
	if d.Running {
		v.Script = "import.js"
	}
	s.render(w, r, status, "import", v)
	return nil
}

// importMap reads an uploaded import again through the columns' fields
// the mapping form chose.
func (s *Server) importMap(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	if err := r.ParseForm(); err != nil {
		return loyalty.Errorf(loyalty.EBadRequest, "The form could not be read.")
	}
	n, _ := strconv.Atoi(r.PostForm.Get("columns"))
	if n < 0 || n > 1000 {
		n = 0
	}
	chosen := make([]string, n)
	for i := range chosen {
		chosen[i] = r.PostForm.Get("column." + strconv.Itoa(i))
	}
	_, err = s.Desk.MapImport(r.Context(), a, id, chosen)
	if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
		return s.renderImport(w, r, a, id, httpapi.StatusOf(e.Code), chosen, e.Fields, "The columns were not matched: see below.")
	} else if err != nil {
		return err
	}
	redirect(w, "/business/imports/"+strconv.FormatInt(id, 10)+"?notice=import_mapped#mapping-title")
	return nil
}

func (s *Server) importStart(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	_, err = s.Desk.StartImport(r.Context(), a, id)
	if e, ok := err.(*loyalty.Error); ok && e.Code == loyalty.EInvalid {
		return s.renderImport(w, r, a, id, httpapi.StatusOf(e.Code), nil, e.Fields, "The import did not start: "+strings.Join(e.Fields["mapping"], " "))
	} else if err != nil && loyalty.ErrorCode(err) != loyalty.EConflict {
		return err
	}
	// Started already (a second click): the page shows where it stands.
	redirect(w, "/business/imports/"+strconv.FormatInt(id, 10)+"?notice=import_started")
	return nil
}

// importReport downloads the rows in error as CSV, the API's report.
func (s *Server) importReport(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	var out *csvStream
	header := []string{"row", "fields", "message"}
	file := "import-" + strconv.FormatInt(id, 10) + "-errors.csv"
	_, err = s.Desk.EachImportError(r.Context(), a, id, func(e loyalty.ImportRowError) error {
		if out == nil {
			out = newCSV(w, file, header)
		}
		return out.row([]string{strconv.FormatInt(e.Row, 10), strings.Join(e.Fields, " "), text(e.Message)})
	})
	return s.endCSV(w, r, out, err, file, header)
}

// importProgressJSON is where a running import stands, for its page's
// script.
type importProgressJSON struct {
	Status   string `json:"status"`
	Running  bool   `json:"running"`
	Total    int64  `json:"total"`
	Done     int64  `json:"done"`
	Failed   int64  `json:"failed"`
	Skipped  int64  `json:"skipped"`
	Progress int    `json:"progress"` // per cent of the rows settled
}

// importProgress answers where an import stands, in JSON.
func (s *Server) importProgress(w http.ResponseWriter, r *http.Request, a loyalty.Actor) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	im, err := s.Desk.GetImport(r.Context(), a, id)
	if err != nil {
		return err
	}
	out := importProgressJSON{Status: im.StatusText(), Running: im.Status == loyalty.ImportQueued || im.Status == loyalty.ImportRunning,
		Total: im.TotalRows, Done: im.Done, Failed: im.Failed, Skipped: im.Skipped}
	if im.TotalRows > 0 {
		out.Progress = int((im.Done + im.Failed + im.Skipped) * 100 / im.TotalRows)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	return json.NewEncoder(w).Encode(out)
}
