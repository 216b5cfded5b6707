package testenv

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Till is what the loyalty CLI gave a test business for its API, as the
// tests that drive the real binary use it: the business's application
// key, an app's client id and secret (password grant), and the owner's
// sign-in.
type Till struct {
	Key, ClientID, Secret string
	Owner, Password       string
}

// TokenRequest asks base for an access token of the owner, scope admin,
// by the password grant.
func (a Till) TokenRequest(base string) *http.Request {
	form := url.Values{"grant_type": {"password"}, "client_id": {a.ClientID}, "client_secret": {a.Secret},
		"username": {a.Owner}, "password": {a.Password}, "scope": {"admin"}, "application_key": {a.Key}}
	req, _ := http.NewRequest(http.MethodPost, base+"/oauth/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Application-Key", a.Key)
	return req
}

// Request is a call of the business API at base with the token tok: body,
// when not nil, as JSON, and idem, when not empty, as its
// Idempotency-Key.
func (a Till) Request(base, tok, method, path string, body any, idem string) *http.Request {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, base+path, r)
	req.Header.Set("X-Application-Key", a.Key)
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	return req
}

// Tail is the last n bytes of s (a process's log, say), or s.
func Tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// Str is v if it is a string (a field of a decoded JSON object), else "".
func Str(v any) string { s, _ := v.(string); return s }
