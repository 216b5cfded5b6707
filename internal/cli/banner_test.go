package cli

import (
	"strings"
	"testing"

	"github.com/loyalty/loyalty/internal/app"
)

func TestBannerText(t *testing.T) {
	b := app.Banner{URL: "http://127.0.0.1:8080", Database: "sqlite:/srv/data/loyalty.db", Email: "files in data/outbox",
		SMS: "https://gw.example/send", Portals: []string{"http://127.0.0.1:8080/developers", "http://127.0.0.1:8080/support"},
		Console: "http://127.0.0.1:8080/business", Next: "loyalty admin business create --name 'Corner Cafe'"}
	text := bannerText(b)
	for _, want := range []string{
		"Loyalty is listening on http://127.0.0.1:8080\n",
		"  database  sqlite:/srv/data/loyalty.db\n",
		"  e-mail    files in data/outbox\n",
		"  sms       https://gw.example/send\n",
		"  redis     not used",
		"http://127.0.0.1:8080/developers  http://127.0.0.1:8080/support",
		"no business yet",
		"  loyalty admin business create --name 'Corner Cafe'\n",
		"  loyalty admin support create --email you@example.com",
		"then open http://127.0.0.1:8080/business and sign in with the owner you created.\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("banner lacks %q:\n%s", want, text)
		}
	}
	b.Next, b.Redis = "", "redis://cache:6379/0"
	text = bannerText(b)
	if strings.Contains(text, "no business") || !strings.Contains(text, "  redis     redis://cache:6379/0\n") {
		t.Errorf("banner of a running installation with Redis:\n%s", text)
	}
	if !strings.Contains(text, "Open http://127.0.0.1:8080/business and sign in with the owner you created") {
		t.Errorf("the banner of a running installation does not say where to sign in:\n%s", text)
	}
}

func TestProgram(t *testing.T) {
	for in, want := range map[string]string{
		"./loyalty":                          "./loyalty",
		"/usr/local/bin/loyalty":             "/usr/local/bin/loyalty",
		"/tmp/go-build1234/b001/exe/loyalty": "go run ./cmd/loyalty",
		"":                                   "loyalty",
	} {
		if got := program([]string{in}); got != want {
			t.Errorf("program(%q) = %q, want %q", in, got, want)
		}
	}
}
