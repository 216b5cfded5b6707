package oauth

import (
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
)

func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// TestCheckVerifier: PKCE S256, RFC 7636's verifier shape, and no
// verifier for a code issued without a challenge.
func TestCheckVerifier(t *testing.T) {
	good := strings.Repeat("aZ0-._~", 7) // 49 characters of the allowed set
	cases := []struct {
		name, challenge, verifier string
		ok                        bool
	}{
		{"no PKCE at all", "", "", true},
		{"matching verifier", s256(good), good, true},
		{"verifier without a challenge", "", good, false},
		{"missing verifier", s256(good), "", false},
		{"wrong verifier", s256(good), good[1:] + "a", false},
		{"too short", s256("abc"), "abc", false},
		{"too long", s256(strings.Repeat("a", 129)), strings.Repeat("a", 129), false},
		{"character outside the set", s256(good + "!"), good + "!", false},
		{"plain challenge (the verifier itself)", good, good, false},
	}
	for _, c := range cases {
		err := checkVerifier(c.challenge, c.verifier)
		if (err == nil) != c.ok {
			t.Errorf("%s: error %v, want ok=%v", c.name, err, c.ok)
		}
		if err != nil && err.(*Error).Code != "invalid_grant" {
			t.Errorf("%s: %v, want invalid_grant", c.name, err)
		}
	}
	if !validChallenge(s256(good)) || validChallenge(good) || validChallenge(s256(good)+"A") {
		t.Error("validChallenge accepts only 43-character base64url SHA-256 values")
	}
}

// TestCallback: the callback keeps its own query, adds the result and the
// state (only when one was sent), and encodes what it adds.
func TestCallback(t *testing.T) {
	a := Authorization{App: App{RedirectURI: "https://app.example/cb?tenant=7"},
		Request: AuthorizeRequest{State: "a b&c"}}
	u, err := url.Parse(a.Callback(url.Values{"code": {"xyz"}}))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if u.Host != "app.example" || u.Path != "/cb" || q.Get("tenant") != "7" || q.Get("code") != "xyz" || q.Get("state") != "a b&c" {
		t.Errorf("callback %s", u)
	}
	deny, _ := url.Parse(a.Deny())
	if deny.Query().Get("error") != "access_denied" || deny.Query().Has("code") {
		t.Errorf("deny %s", deny)
	}
	a.Request.State = ""
	if u, _ := url.Parse(a.ErrorCallback(&AuthorizeError{Code: "invalid_scope"})); u.Query().Has("state") || u.Query().Get("error") != "invalid_scope" {
		t.Errorf("error callback without state: %s", u)
	}
}
