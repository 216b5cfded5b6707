package e2e

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// importUpload posts a multipart upload to /imports/uploads with its
// fields in the order given ("file" is the CSV).
func (c *client) importUpload(t *testing.T, fields [][2]string) *result {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, f := range fields {
		if f[0] == "file" {
			p, _ := w.CreateFormFile("file", "import.csv")
			p.Write([]byte(f[1]))
			continue
		}
		w.WriteField(f[0], f[1])
	}
	w.Close()
	req := c.request(t, http.MethodPost, "/imports/uploads", b.Bytes())
	req.Header.Set("Content-Type", w.FormDataContentType())
	return c.e.send(t, req)
}

// importView is an import as the API shows it.
type importView struct {
	ID      int64             `json:"id"`
	FileID  string            `json:"file_id"`
	Status  string            `json:"status"`
	Columns []string          `json:"file_header_columns"`
	Entry   map[string]string `json:"preview_entry"`
	Errors  []struct {
		Row     int64    `json:"row"`
		Fields  []string `json:"fields"`
		Message string   `json:"message"`
	} `json:"error_list"`
	Totals struct {
		Records  int `json:"total_records"`
		Error    int `json:"total_error"`
		Imported int `json:"imported"`
		Failed   int `json:"failed"`
		Skipped  int `json:"skipped"`
	} `json:"totals"`
}

// importRun starts an uploaded import and waits for the end of its run.
func (c *client) importRun(t *testing.T, fileID string, id int64) importView {
	t.Helper()
	c.do(t, http.MethodPost, "/imports", map[string]any{"file_id": fileID, "type": "transactions"}).want(t, http.StatusAccepted)
	deadline := time.Now().Add(15 * time.Second)
	for {
		var out struct{ Data importView }
		c.get(t, "/imports/"+itoa64(id)).want(t, http.StatusOK).decode(t, &out)
		if strings.HasPrefix(out.Data.Status, "Finished") {
			return out.Data
		}
		if time.Now().After(deadline) {
			t.Fatalf("import %d still %q", id, out.Data.Status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// wantInvalid fails unless the response is a 422 naming field.
func (r *result) wantInvalid(t *testing.T, field string) {
	t.Helper()
	r.want(t, http.StatusUnprocessableEntity)
	if !strings.Contains(string(r.Body), field) {
		t.Errorf("%s: 422 %s does not name %s", r.what, r.Body, field)
	}
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// TestImportAPI: the reference's /imports resource — upload (the file
// before its type, as the reference's example sends it) answers the
// preview with each row in error; POST /imports starts it once; the run
// goes on past a refused row and reports it as CSV; the same file again
// imports nothing; another business sees nothing of it.
func TestImportAPI(t *testing.T) {
	engines(t, func(t *testing.T, engine string) {
		e := start(t, engine, roomy)
		a := e.owner(t, e.biz)
		c := a.createCustomer(t, map[string]any{"email": "imp@x.example"})
		file := "intent,customer.id,customer.email,points,created_at\n" +
			"adjust_points_balance," + c.ID + ",,40,2025-06-01T12:00:00+00:00\n" +
			"redeem," + c.ID + ",,5000,\n" +
			"adjust_points_balance,,not-an-email,10,\n"

		a.importUpload(t, [][2]string{{"type", "transactions"}, {"mapping[email]", "E-mail"}, {"file", file}}).
			wantInvalid(t, "mapping")
		a.importUpload(t, [][2]string{{"type", "transactions"}, {"file", "intent,colour\nreward,red\n"}}).
			wantInvalid(t, "colour")

		var up struct{ Data importView }
		a.importUpload(t, [][2]string{{"file", file}, {"type", "transactions"}, {"options[phone_country_code]", "ca"}}).
			want(t, http.StatusOK).decode(t, &up)
		im := up.Data
		if im.Status != "Uploaded" || im.Totals.Records != 3 || im.Totals.Error != 1 || len(im.Errors) != 1 ||
			im.Errors[0].Row != 4 || im.Errors[0].Fields[0] != "customer.email" || im.Entry["points"] != "40" {
			t.Fatalf("upload: %+v", im)
		}
		a.do(t, http.MethodPost, "/imports", map[string]any{"file_id": im.FileID, "type": "customers"}).
			wantInvalid(t, "type")
		done := a.importRun(t, im.FileID, im.ID)
		if done.Status != "Finished with errors" || done.Totals.Imported != 1 || done.Totals.Failed != 2 {
			t.Errorf("after the run: %+v", done)
		}
		a.do(t, http.MethodPost, "/imports", map[string]any{"file_id": im.FileID}).want(t, http.StatusConflict)
		report := a.get(t, "/imports/"+itoa64(im.ID)+"/errors").want(t, http.StatusOK)
		if got := string(report.Body); !strings.HasPrefix(got, "row,fields,message\n3,points,") || !strings.Contains(got, "\n4,customer.email,") {
			t.Errorf("report:\n%s", got)
		}
		if bal := a.get(t, "/customers/"+c.ID+"?include=balance").want(t, http.StatusOK).customer(t).Balance["points"]; bal != 40.0 {
			t.Errorf("balance after the import: %v, want 40", bal)
		}

		a.importUpload(t, [][2]string{{"type", "transactions"}, {"file", file}}).want(t, http.StatusOK).decode(t, &up)
		again := a.importRun(t, up.Data.FileID, up.Data.ID)
		if again.Totals.Imported != 0 || again.Totals.Skipped != 1 {
			t.Errorf("the same file again: %+v", again.Totals)
		}
		if bal := a.get(t, "/customers/"+c.ID+"?include=balance").want(t, http.StatusOK).customer(t).Balance["points"]; bal != 40.0 {
			t.Errorf("balance after the second import: %v, want 40 still", bal)
		}
		var list struct{ Data []importView }
		a.get(t, "/imports").want(t, http.StatusOK).decode(t, &list)
		if len(list.Data) != 3 || list.Data[0].ID != up.Data.ID {
			t.Errorf("list: %+v", list.Data)
		}

		other := e.owner(t, e.newBusiness(t, "Other Shop"))
		other.get(t, "/imports/"+itoa64(im.ID)).want(t, http.StatusNotFound)
		other.get(t, "/imports/"+itoa64(im.ID)+"/errors").want(t, http.StatusNotFound)
		other.do(t, http.MethodPost, "/imports", map[string]any{"file_id": up.Data.FileID}).wantInvalid(t, "file_id")
		a.get(t, "/imports/abc").want(t, http.StatusBadRequest)
	})
}
