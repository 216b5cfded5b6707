package e2e

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/mail"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// Helpers of the user-API tests: a user-API app, clients with only the
// Application Key, sign-in with a PIN, and the file outbox's messages.

// userApp registers an approved password-grant user-API app through the
// admin CLI.
func (e *env) userApp(t *testing.T) creds {
	t.Helper()
	out := e.admin(t, "admin", "app", "create", "--name", "Mobile "+e.unique(), "--api", "user", "--grant", "password", "--approve")
	return creds{ID: str(out["client_id"]), Secret: str(out["client_secret"])}
}

// keyOnly is a client that sends only the Application Key, as the
// unauthenticated user-API calls do.
func (e *env) keyOnly(key string) *client { return &client{e: e, key: key} }

// userLogin is the user-API password grant.
func (e *env) userLogin(t *testing.T, app creds, key, username, pin string) *result {
	t.Helper()
	return e.postToken(t, key, url.Values{
		"grant_type": {"password"}, "client_id": {app.ID}, "client_secret": {app.Secret},
		"username": {username}, "password": {pin}, "scope": {"user"}, "application_key": {key},
	})
}

// asUser signs in with a PIN and returns a client with the user token.
func (e *env) asUser(t *testing.T, app creds, key, username, pin string) *client {
	t.Helper()
	var tr tokenResponse
	e.userLogin(t, app, key, username, pin).want(t, http.StatusOK).decode(t, &tr)
	return &client{e: e, key: key, token: tr.AccessToken}
}

// userView is a user as the API shows it.
type userView struct {
	ID           string  `json:"id"`
	Username     *string `json:"username"`
	FirstName    *string `json:"first_name"`
	Email        *string `json:"email"`
	Phone        *string `json:"phone"`
	CountryCode  *string `json:"country_code"`
	Language     *string `json:"language"`
	ProfilePhoto *string `json:"profile_photo"`
}

// user decodes a `{data: user}` body.
func (r *result) user(t *testing.T) userView {
	t.Helper()
	var out struct{ Data userView }
	r.decode(t, &out)
	if out.Data.ID == "" {
		t.Fatalf("%s: no user in %s", r.what, r.Body)
	}
	return out.Data
}

// register creates a user with only the key; it must succeed.
func (e *env) register(t *testing.T, key string, body map[string]any) userView {
	t.Helper()
	return e.keyOnly(key).do(t, http.MethodPost, "/users", body).want(t, http.StatusOK).user(t)
}

// message is one delivered outbox message.
type message struct {
	File, To, Subject, Body string
}

// messages reads every message the file outbox holds, oldest first.
func (e *env) messages(t *testing.T) []message {
	t.Helper()
	dir := filepath.Join(e.app.Config.DataDir, "outbox")
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	sort.Strings(names)
	var out []message
	for _, name := range names {
		base := filepath.Base(name)
		if strings.HasPrefix(base, ".") {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("read %s: %v", name, err)
		}
		m := message{File: base}
		if strings.HasSuffix(base, ".eml") {
			msg, err := mail.ReadMessage(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s is not an RFC 5322 message: %v", base, err)
			}
			body, _ := io.ReadAll(msg.Body)
			m.To, m.Subject, m.Body = msg.Header.Get("To"), msg.Header.Get("Subject"), strings.ReplaceAll(string(body), "\r\n", "\n")
		} else {
			head, body, _ := strings.Cut(string(data), "\n\n")
			m.To, m.Body = strings.TrimPrefix(head, "To: "), body
		}
		out = append(out, m)
	}
	return out
}

// messagesTo returns the messages sent to one address or number.
func (e *env) messagesTo(t *testing.T, to string) []message {
	t.Helper()
	var out []message
	for _, m := range e.messages(t) {
		if m.To == to {
			out = append(out, m)
		}
	}
	return out
}

// waitMessage waits until the n-th (1-based) message to `to` is delivered
// and returns it.
func (e *env) waitMessage(t *testing.T, to string, n int) message {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if ms := e.messagesTo(t, to); len(ms) >= n {
			return ms[n-1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("message %d to %s not delivered; outbox holds %d for them", n, to, len(e.messagesTo(t, to)))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// line returns the value of the line "<name>: value" of a message body.
func (m message) line(t *testing.T, name string) string {
	t.Helper()
	for _, l := range strings.Split(m.Body, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), name+": "); ok {
			return v
		}
	}
	t.Fatalf("message %s has no %q line:\n%s", m.File, name, m.Body)
	return ""
}

// settle gives the outbox worker time to deliver anything queued, so a
// test can show that nothing was.
func (e *env) settle(t *testing.T) {
	t.Helper()
	e.app.Outbox.Wake()
	time.Sleep(300 * time.Millisecond)
}

// multipartBody builds a multipart/form-data body with one file field.
func multipartBody(t *testing.T, field, filename, contentType string, data []byte) ([]byte, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, field, filename))
	h.Set("Content-Type", contentType)
	p, err := w.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	p.Write(data)
	w.Close()
	return b.Bytes(), w.FormDataContentType()
}

// upload posts a multipart image to /users/{id}/images.
func (c *client) upload(t *testing.T, id, field, filename, contentType string, data []byte) *result {
	t.Helper()
	body, ct := multipartBody(t, field, filename, contentType, data)
	req := c.request(t, http.MethodPost, "/users/"+id+"/images", body)
	req.Header.Set("Content-Type", ct)
	return c.e.send(t, req)
}

// wantUserError fails unless the response is a user-API 400.
func (r *result) wantUserError(t *testing.T) {
	t.Helper()
	r.want(t, http.StatusBadRequest)
	var e struct {
		Code    int    `json:"code"`
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	r.decode(t, &e)
	if e.Code != http.StatusBadRequest || e.Error == "" || e.Message == "" {
		t.Errorf("%s: user-API 400 body %s", r.what, r.Body)
	}
}

// data decodes the `data` member of a body into v.
func (r *result) data(t *testing.T, v any) {
	t.Helper()
	var out struct{ Data any }
	out.Data = v
	r.decode(t, &out)
}
