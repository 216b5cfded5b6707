package app

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestPublicURLInPortalEmails: with Config.PublicURL (serve --public-url),
// a password reset asked for at the business portal e-mails a link to the
// reset page at that address, whatever Host the request came with.
func TestPublicURLInPortalEmails(t *testing.T) {
	dir := t.TempDir()
	a, err := Open(context.Background(), Config{DataDir: dir, PublicURL: "https://loyalty.example.com",
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Admin.CreateBusiness(context.Background(), loyalty.NewBusiness{Name: "Cafe", LoyaltyType: loyalty.PerSpend,
		Country: "US", OwnerEmail: "owner@cafe.example", OwnerPassword: "long-enough-pass"}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(srv.URL + "/business/password/forgot")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`name="csrf_token" value="([^"]+)"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token on the form:\n%s", page)
	}
	resp, err = c.PostForm(srv.URL+"/business/password/forgot", url.Values{"csrf_token": {string(m[1])}, "email": {"owner@cafe.example"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("reset request: %d", resp.StatusCode)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		files, _ := filepath.Glob(filepath.Join(dir, "outbox", "*.eml"))
		for _, f := range files {
			body, _ := os.ReadFile(f)
			if strings.Contains(string(body), "owner@cafe.example") && strings.Contains(string(body), "Token:") {
				if !strings.Contains(string(body), "https://loyalty.example.com/business/password/reset") {
					t.Fatalf("the reset e-mail does not link to the public address:\n%s", body)
				}
				return
			}
		}
	}
	t.Fatal("no reset e-mail in the outbox")
}
