package e2e

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// uploadForm posts the imports page's form: the CSRF token first (csrf,
// or the page's), then the fields, then the file.
func (w *webClient) uploadForm(t *testing.T, csrf *string, fields map[string]string, file string) *result {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	tok := w.csrf
	if csrf != nil {
		tok = *csrf
	}
	mw.WriteField("csrf_token", tok)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	p, _ := mw.CreateFormFile("file", "customers.csv")
	p.Write([]byte(file))
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, w.base+"/business/imports", &b)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return w.do(t, req)
}

// TestConsoleImport: a manager uploads a customers file, sees its rows in
// error, starts it and follows it to its report; a file with a column the
// import has no field for cannot start until the column is matched or
// ignored; the upload, the mapping and the start are in the audit log; a
// cashier is refused every page; an upload, a mapping or a start without
// the form's CSRF token is refused.
func TestConsoleImport(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		owner := e.ownerConsole(t)
		m := e.staffConsole(t, owner, "mgr@cafe.example", "manager", "manager-pass-1")
		cashier := e.staffConsole(t, owner, "till@cafe.example", "cashier", "cashier-pass-1")

		cashier.get(t, "/business/imports").want(t, http.StatusForbidden)
		cashier.uploadForm(t, nil, map[string]string{"type": "customers"}, "email\nx@y.example\n").want(t, http.StatusForbidden)

		m.get(t, "/business/imports").want(t, http.StatusOK).has(t, "Upload a file", "balance.points")
		bad := ""
		m.uploadForm(t, &bad, map[string]string{"type": "customers"}, "email\nx@y.example\n").want(t, http.StatusForbidden)
		m.get(t, "/business/imports").want(t, http.StatusOK)
		// A column the import has no field for is asked about, not
		// refused: the import starts once it is matched or ignored.
		shoe := m.uploadForm(t, nil, map[string]string{"type": "customers"}, "E-mail,shoe\nx@y.example,9\n").want(t, http.StatusSeeOther)
		shoePath := strings.TrimSuffix(shoe.Header.Get("Location"), "?notice=import_uploaded")
		m.get(t, shoePath).want(t, http.StatusOK).has(t, `id="mapping-needed"`, "“shoe”", `<option value="email" selected>E-mail</option>`)
		m.post(t, shoePath+"/start", nil).want(t, http.StatusUnprocessableEntity).has(t, "The import did not start", "shoe")
		cashier.post(t, shoePath+"/mapping", url.Values{"columns": {"2"}, "column.0": {"email"}, "column.1": {"-"}}).want(t, http.StatusForbidden)
		m.post(t, shoePath+"/mapping", url.Values{"csrf_token": {""}, "columns": {"2"}, "column.0": {"email"}, "column.1": {"-"}}).
			want(t, http.StatusForbidden)
		m.post(t, shoePath+"/mapping", url.Values{"columns": {"2"}, "column.0": {"email"}, "column.1": {"email"}}).
			want(t, http.StatusUnprocessableEntity).has(t, `id="column-1-error"`, "fills this field already")
		m.post(t, shoePath+"/mapping", url.Values{"columns": {"2"}, "column.0": {"email"}, "column.1": {"-"}}).want(t, http.StatusSeeOther)
		m.get(t, shoePath).want(t, http.StatusOK).has(t, `id="mapping-done"`, `shoe → <span class="muted">ignored</span>`, "Start the import")

		file := "email,first_name,balance.points\nann@imp.example,Ann,30\nnot-an-email,Bob,5\n"
		r := m.uploadForm(t, nil, map[string]string{"type": "customers"}, file).want(t, http.StatusSeeOther)
		page := r.Header.Get("Location")
		if !strings.HasPrefix(page, "/business/imports/") {
			t.Fatalf("upload redirected to %q", page)
		}
		path := strings.TrimSuffix(page, "?notice=import_uploaded")
		m.get(t, page).want(t, http.StatusOK).has(t, `id="import-status">Uploaded`, "ann@imp.example", "The email must be a valid email address.",
			"Start the import")
		cashier.get(t, path).want(t, http.StatusForbidden)
		m.post(t, path+"/start", url.Values{"csrf_token": {""}}).want(t, http.StatusForbidden)
		m.post(t, path+"/start", nil).want(t, http.StatusSeeOther)
		deadline := time.Now().Add(15 * time.Second)
		for !strings.Contains(string(m.get(t, path).want(t, http.StatusOK).Body), "Finished with errors") {
			if time.Now().After(deadline) {
				t.Fatalf("the import did not finish:\n%s", m.get(t, path).Body)
			}
			time.Sleep(100 * time.Millisecond)
		}
		m.get(t, path).has(t, "Rows refused", "Download the rows in error")
		// Where it stands, for the page's script: the same figures in JSON.
		var progress struct {
			Status                        string
			Running                       bool
			Total, Done, Failed, Progress int
		}
		m.get(t, path+"/progress").want(t, http.StatusOK).decode(t, &progress)
		if progress.Status != "Finished with errors" || progress.Running || progress.Total != 2 || progress.Done != 1 ||
			progress.Failed != 1 || progress.Progress != 100 {
			t.Errorf("progress %+v", progress)
		}
		cashier.get(t, path+"/progress").want(t, http.StatusForbidden)
		rows := csvRows(t, m.get(t, path+"/errors").want(t, http.StatusOK))
		if len(rows) != 2 || rows[1][0] != "3" || rows[1][1] != "email" {
			t.Errorf("report %q", rows)
		}
		m.post(t, path+"/start", nil).want(t, http.StatusSeeOther) // a second click changes nothing
		actions := strings.Join(e.auditActions(t, e.biz.ID), "\n")
		if !strings.Contains(actions, "import.uploaded customers.csv by mgr@cafe.example") ||
			!strings.Contains(actions, "import.started Import #") || !strings.Contains(actions, "import.mapped Import #") {
			t.Errorf("audit log:\n%s", actions)
		}
	})
}
