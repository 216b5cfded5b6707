package e2e

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var tokenLine = regexp.MustCompile(`(?m)^Token: (\S+)$`)

// mailTo returns the newest e-mail queued to address and the token on its
// Token: line.
func (e *env) mailTo(t *testing.T, address string) (body, token string) {
	t.Helper()
	err := e.app.DB.SQL().QueryRowContext(context.Background(),
		`SELECT body FROM outbox WHERE recipient = $1 ORDER BY id DESC LIMIT 1`, address).Scan(&body)
	if err != nil {
		t.Fatalf("no e-mail to %s: %v", address, err)
	}
	m := tokenLine.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("the e-mail to %s has no Token: line:\n%s", address, body)
	}
	return body, m[1]
}

// mailCount counts the e-mails queued to address.
func (e *env) mailCount(t *testing.T, address string) int {
	t.Helper()
	var n int
	if err := e.app.DB.SQL().QueryRowContext(context.Background(), `SELECT COUNT(*) FROM outbox WHERE recipient = $1`, address).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// ownerConsole signs the owner of e.biz in to the business console.
func (e *env) ownerConsole(t *testing.T) *webClient {
	t.Helper()
	w := e.web(t)
	w.signIn(t, "/business", e.biz.Email, e.biz.Password)
	return w
}

// invite has the owner invite email as role and returns the token of the
// invitation e-mail.
func (e *env) invite(t *testing.T, owner *webClient, email, role string) string {
	t.Helper()
	owner.get(t, "/business/staff").want(t, http.StatusOK)
	r := owner.post(t, "/business/staff", url.Values{"email": {email}, "role": {role}}).want(t, http.StatusSeeOther)
	if to := r.Header.Get("Location"); to != "/business/staff?notice=invited" {
		t.Fatalf("invite: redirected to %q", to)
	}
	_, token := e.mailTo(t, strings.ToLower(email))
	return token
}

// staffConsole invites email as role, accepts the invitation with
// password and returns the member's browser, signed in.
func (e *env) staffConsole(t *testing.T, owner *webClient, email, role, password string) *webClient {
	t.Helper()
	token := e.invite(t, owner, email, role)
	w := e.web(t)
	w.get(t, "/business/invitation?token="+url.QueryEscape(token)).want(t, http.StatusOK)
	w.post(t, "/business/invitation", url.Values{"token": {token}, "password": {password}, "password_again": {password}}).
		want(t, http.StatusSeeOther)
	w.signIn(t, "/business", email, password)
	return w
}

// staffID returns the id of the staff member with email.
func (e *env) staffID(t *testing.T, email string) string {
	t.Helper()
	var id string
	if err := e.app.DB.SQL().QueryRowContext(context.Background(), `SELECT id FROM staff WHERE email = $1`, email).Scan(&id); err != nil {
		t.Fatalf("staff %s: %v", email, err)
	}
	return id
}

// auditActions lists the actions of a business's audit log, newest first,
// each as "action target by actor".
func (e *env) auditActions(t *testing.T, businessID string) []string {
	t.Helper()
	rows, err := e.app.DB.SQL().QueryContext(context.Background(),
		`SELECT action, target, actor_email FROM audit_log WHERE business_id = $1 ORDER BY id DESC`, businessID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var action, target, actor string
		if err := rows.Scan(&action, &target, &actor); err != nil {
			t.Fatal(err)
		}
		out = append(out, action+" "+target+" by "+actor)
	}
	return out
}
