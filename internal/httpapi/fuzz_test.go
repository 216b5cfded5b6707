package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loyalty/loyalty/internal/app"
	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

// Fuzz targets of the request bodies of the busiest endpoints, through the
// whole handler on a SQLite store: no input is a 5xx or a panic. `go test`
// runs their seeds (testdata/fuzz); `go test -run '^$' -fuzz
// '^FuzzCreateTransaction$' ./internal/httpapi` explores.

// fuzzService is the service on a fresh SQLite database with one business,
// an approved password-grant app and an owner token, shared by every input
// of a fuzz target (each fuzzing process builds its own).
type fuzzService struct {
	h                                 http.Handler
	key, token, client, secret, email string
}

const fuzzPassword = "fuzz-pass-1234"

func newFuzzService(f *testing.F) *fuzzService {
	f.Helper()
	ctx := context.Background()
	dir := f.TempDir()
	unlimited := httpapi.Limits{Business: 1 << 30, User: 1 << 30, Token: 1 << 30, Window: 1 << 62}
	a, err := app.Open(ctx, app.Config{DB: filepath.Join(dir, "loyalty.db"), DataDir: dir, Limits: unlimited,
		NoOutbox: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { a.Close() })
	s := &fuzzService{h: a.Handler(), email: "owner@fuzz.example"}
	b, err := a.Admin.CreateBusiness(ctx, loyalty.NewBusiness{Name: "Fuzz Cafe", LoyaltyType: loyalty.PerSpend, Country: "US",
		OwnerEmail: s.email, OwnerPassword: fuzzPassword})
	if err != nil {
		f.Fatal(err)
	}
	c, err := a.OAuth.CreateApp(ctx, oauth.NewApp{Name: "POS", GrantType: "password", API: "business", Approve: true})
	if err != nil {
		f.Fatal(err)
	}
	s.key, s.client, s.secret = b.ApplicationKey, c.ClientID, c.ClientSecret
	rec := s.tokenRequest(url.Values{"grant_type": {"password"}, "client_id": {s.client}, "client_secret": {s.secret},
		"username": {s.email}, "password": {fuzzPassword}, "scope": {"admin"}, "application_key": {s.key}}.Encode(), "application/x-www-form-urlencoded")
	var tr struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &tr); err != nil || tr.AccessToken == "" {
		f.Fatalf("sign in: %d %s", rec.Code, rec.Body)
	}
	s.token = tr.AccessToken
	return s
}

// post sends a JSON body to path with the owner's token.
func (s *fuzzService) post(path string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Application-Key", s.key)
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.RemoteAddr = "127.0.0.1:50000" // plain HTTP is for loopback only
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec
}

// tokenRequest posts a body to the token endpoint.
func (s *fuzzService) tokenRequest(body, contentType string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/oauth/token", strings.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Application-Key", s.key)
	req.RemoteAddr = "127.0.0.1:50000"
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec
}

// checkAnswer fails unless rec is a JSON answer below 500.
func checkAnswer(t *testing.T, what string, body []byte, rec *httptest.ResponseRecorder) {
	t.Helper()
	if rec.Code >= 500 {
		t.Fatalf("%s %q: %d %s", what, body, rec.Code, rec.Body)
	}
	if !json.Valid(rec.Body.Bytes()) {
		t.Fatalf("%s %q: %d with a body that is not JSON: %q", what, body, rec.Code, rec.Body)
	}
}

// checkJSONAnswer is checkAnswer for a JSON body: one that is not UTF-8
// is a 400.
func checkJSONAnswer(t *testing.T, what string, body []byte, rec *httptest.ResponseRecorder) {
	t.Helper()
	checkAnswer(t, what, body, rec)
	if !utf8.Valid(body) && rec.Code != http.StatusBadRequest {
		t.Fatalf("%s %q (not UTF-8): %d, want 400", what, body, rec.Code)
	}
}

// FuzzCreateTransaction posts any body to POST /transactions.
func FuzzCreateTransaction(f *testing.F) {
	s := newFuzzService(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		checkJSONAnswer(t, "POST /transactions", body, s.post("/transactions", body))
	})
}

// FuzzCreateCustomer posts any body to POST /customers. A customer it
// creates holds the text that was sent: no NUL character, and no U+FFFD
// unless the body had one.
func FuzzCreateCustomer(f *testing.F) {
	s := newFuzzService(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := s.post("/customers", body)
		checkJSONAnswer(t, "POST /customers", body, rec)
		if rec.Code != http.StatusOK {
			return
		}
		out := rec.Body.String()
		if strings.Contains(out, `\u0000`) {
			t.Fatalf("POST /customers %q stored a NUL: %s", body, out)
		}
		sentFFFD := bytes.Contains(body, []byte("\uFFFD")) || bytes.Contains(bytes.ToLower(body), []byte(`\ufffd`))
		if strings.ContainsRune(out, utf8.RuneError) && !sentFFFD {
			t.Fatalf("POST /customers %q stored replacement characters: %s", body, out)
		}
	})
}

// FuzzTokenEndpoint posts any body, of any content type, to POST
// /oauth/token. CLIENT_ID, CLIENT_SECRET, OWNER_EMAIL, OWNER_PASSWORD and
// APP_KEY in it stand for the real ones, so that inputs reach past client
// authentication.
func FuzzTokenEndpoint(f *testing.F) {
	s := newFuzzService(f)
	f.Fuzz(func(t *testing.T, form, contentType string) {
		body := strings.NewReplacer("CLIENT_ID", s.client, "CLIENT_SECRET", s.secret,
			"OWNER_EMAIL", url.QueryEscape(s.email), "OWNER_PASSWORD", fuzzPassword, "APP_KEY", s.key).Replace(form)
		rec := s.tokenRequest(body, contentType)
		checkAnswer(t, "POST /oauth/token", []byte(form), rec)
		if got := rec.Header().Get("Cache-Control"); got != "no-store" {
			t.Fatalf("POST /oauth/token %q: Cache-Control %q", form, got)
		}
	})
}
