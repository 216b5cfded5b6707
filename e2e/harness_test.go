package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loyalty/loyalty/internal/apitest"
	"github.com/loyalty/loyalty/internal/app"
	"github.com/loyalty/loyalty/internal/cli"
	"github.com/loyalty/loyalty/internal/httpapi"
	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
	"github.com/loyalty/loyalty/internal/testenv"
)

// roomy limits keep the rate limiter out of the way of tests that are not
// about it (every request comes from 127.0.0.1).
var roomy = httpapi.Limits{Business: 100000, User: 100000, Token: 100000, Window: time.Minute, Guesses: 100000}

// engines runs fn once per database engine, as parallel subtests named
// after the engine ("sqlite", "postgres").
func engines(t *testing.T, fn func(t *testing.T, engine string)) {
	t.Helper()
	t.Parallel()
	for _, engine := range testenv.Engines() {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			fn(t, engine)
		})
	}
}

// clock is a wall clock that tests can move forward or hold still; it is
// safe to read from the server's goroutines while a test moves it.
type clock struct {
	offset atomic.Int64
	held   atomic.Int64 // UnixNano of the time it is held at, or 0
}

// Now is the real time plus the offset, or the time it is held at.
func (c *clock) Now() time.Time {
	if h := c.held.Load(); h != 0 {
		return time.Unix(0, h)
	}
	return time.Now().Add(time.Duration(c.offset.Load()))
}

// Hold stops the clock at its present reading until release is called, so
// that changes made one after another carry the same time.
func (c *clock) Hold() (release func()) {
	c.held.Store(c.Now().UnixNano())
	return func() { c.held.Store(0) }
}

// Advance moves the clock by d.
func (c *clock) Advance(d time.Duration) { c.offset.Add(int64(d)) }

// env is one running service on a fresh database.
type env struct {
	dsn    string
	app    *app.App
	logs   *testenv.LogBuffer // the service's JSON log
	url    string
	oauth  *clock // the authorization server's clock (token expiry, sign-in locks)
	db     *clock // the store's clock (created_at, updated_at)
	v      *apitest.Validator
	http   *http.Client
	biz    *business // made as the admin CLI makes one
	client creds     // an approved password-grant business-API app, made as the admin CLI makes one
}

// creds are an app's client credentials.
type creds struct{ ID, Secret string }

// business is a business with its owner, as support creates it.
type business struct {
	ID, Key, OwnerID, Email, Password string
}

// start opens the service on a fresh database of engine, serves it on
// 127.0.0.1, and bootstraps one business and one approved app with the
// operations of the admin CLI's commands.
func start(t *testing.T, engine string, limits httpapi.Limits) *env {
	t.Helper()
	return startOn(t, testenv.MigratedDSN(t, engine), limits)
}

// startOn is start on the database of dsn.
func startOn(t *testing.T, dsn string, limits httpapi.Limits) *env {
	t.Helper()
	return startWith(t, dsn, limits, nil)
}

// startWith is startOn with configure, when set, changing the config
// the service opens with.
func startWith(t *testing.T, dsn string, limits httpapi.Limits, configure func(*app.Config)) *env {
	t.Helper()
	e := &env{dsn: dsn, oauth: &clock{}, db: &clock{}, v: apitest.NewValidator(t)}
	logs := &testenv.LogBuffer{}
	cfg := app.Config{
		DB: e.dsn, DataDir: t.TempDir(), Limits: limits, PasswordCost: testenv.PasswordCost,
		Logger: slog.New(slog.NewJSONHandler(logs, nil)),
	}
	if configure != nil {
		configure(&cfg)
	}
	a, err := app.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("app.Open(%s): %v", dsn, err)
	}
	t.Cleanup(func() { a.Close() })
	// Set before serving: the server's goroutines only ever read them.
	a.OAuth.Clock = e.oauth.Now
	a.DB.Clock = e.db.Now
	e.app, e.logs = a, logs
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		if t.Failed() {
			for _, l := range logs.Lines() {
				if !strings.Contains(l, `"level":"INFO"`) {
					t.Logf("server log: %s", l)
				}
			}
		}
	})
	e.url = srv.URL
	e.http = &http.Client{
		Timeout:       30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}

	// The business and app support would make with `loyalty admin
	// business create` and `app create --approve`, made through the
	// operations those commands call: each command opens the database
	// anew, a second and more of PostgreSQL connections on a loaded
	// two-core machine, for every service every test starts. The
	// commands themselves are tested in TestAdminCLI and the README's.
	e.biz = &business{Email: "owner-" + e.unique() + "@shop.example", Password: "s3cret-pass-" + e.unique()}
	made, err := a.Admin.CreateBusiness(context.Background(), loyalty.NewBusiness{Name: "Corner Cafe", LoyaltyType: loyalty.PerSpend,
		Country: "US", OwnerEmail: e.biz.Email, OwnerPassword: e.biz.Password})
	if err != nil {
		t.Fatalf("CreateBusiness: %v", err)
	}
	e.biz.ID, e.biz.Key, e.biz.OwnerID = made.BusinessID, made.ApplicationKey, made.OwnerID
	pos, err := a.OAuth.CreateApp(context.Background(), oauth.NewApp{Name: "POS", API: "business", GrantType: "password", Approve: true})
	if err != nil {
		t.Fatalf("CreateApp: %v", err)
	}
	e.client = creds{ID: pos.ClientID, Secret: pos.ClientSecret}
	return e
}

// unique returns a string no other call on this env returns.
func (e *env) unique() string { return strconv.FormatInt(uniques.Add(1), 10) }

// uniques numbers what every env of the process makes, so that two
// services on one database (an instance and its peer) never make the same
// owner or customer.
var uniques atomic.Int64

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// ---------------------------------------------------------------- admin CLI

// runCLI runs the admin command line on dsn with --json.
func runCLI(dsn, dataDir string, args ...string) (stdout, stderr string, err error) {
	var out, errb bytes.Buffer
	all := append(append([]string{"loyalty", "--db", dsn, "--data-dir", dataDir}, args...), "--json")
	err = cli.Run(context.Background(), all, &out, &errb)
	return out.String(), errb.String(), err
}

// admin runs an admin command that must succeed and returns the one JSON
// object it printed.
func (e *env) admin(t *testing.T, args ...string) map[string]any {
	t.Helper()
	stdout, stderr, err := runCLI(e.dsn, t.TempDir(), args...)
	if err != nil {
		t.Fatalf("loyalty %s: %v\nstderr: %s", strings.Join(args, " "), err, stderr)
	}
	return oneJSONObject(t, stdout)
}

// oneJSONObject decodes stdout, which must hold exactly one JSON object and
// nothing else.
func oneJSONObject(t *testing.T, stdout string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		t.Fatalf("stdout is not a JSON object: %v\n%s", err, stdout)
	}
	if rest, _ := io.ReadAll(dec.Buffered()); strings.TrimSpace(string(rest)) != "" || dec.More() {
		t.Fatalf("stdout has more than one JSON object:\n%s", stdout)
	}
	return obj
}

// cliBusiness creates a business through `loyalty admin business create`.
func (e *env) cliBusiness(t *testing.T, name, loyaltyType string) *business {
	t.Helper()
	b := &business{Email: "owner-" + e.unique() + "@shop.example", Password: "s3cret-pass-" + e.unique()}
	out := e.admin(t, "admin", "business", "create", "--name", name, "--loyalty-type", loyaltyType,
		"--owner-email", b.Email, "--owner-password", b.Password)
	b.ID, b.Key, b.OwnerID = str(out["business_id"]), str(out["application_key"]), str(out["owner_id"])
	return b
}

// newBusiness creates another business through the app's admin operation
// (the same code the CLI calls, without re-opening the database).
func (e *env) newBusiness(t *testing.T, name string) *business {
	t.Helper()
	b := &business{Email: "owner-" + e.unique() + "@shop.example", Password: "s3cret-pass-" + e.unique()}
	out, err := e.app.Admin.CreateBusiness(context.Background(), loyalty.NewBusiness{
		Name: name, LoyaltyType: loyalty.PerVisit, Country: "CA", OwnerEmail: b.Email, OwnerPassword: b.Password})
	if err != nil {
		t.Fatalf("CreateBusiness: %v", err)
	}
	b.ID, b.Key, b.OwnerID = out.BusinessID, out.ApplicationKey, out.OwnerID
	return b
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// --------------------------------------------------------------------- HTTP

// result is a response with its body read.
type result struct {
	Status int
	Header http.Header
	Body   []byte
	what   string // "METHOD /path", for messages
}

// newRequest builds a request to the env's server. body is nil (no body),
// a string or []byte (sent as is), or a value sent as JSON.
func (e *env) newRequest(t *testing.T, method, path string, body any) *http.Request {
	t.Helper()
	var r io.Reader
	isJSON := false
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		r, isJSON = bytes.NewReader(mustJSON(b)), true
	}
	req, err := http.NewRequest(method, e.url+path, r)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	if isJSON {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

// send sends req, reads the whole response and validates it against the
// OpenAPI document.
func (e *env) send(t *testing.T, req *http.Request) *result {
	t.Helper()
	res := e.sendUnchecked(t, req)
	resp := &http.Response{StatusCode: res.Status, Header: res.Header, Request: req}
	e.v.Check(t, req, resp, res.Body)
	if !operational[req.URL.Path] {
		// PRODUCT.md: every response carries them (the document cannot say
		// so: it marks no response header required).
		for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining"} {
			if _, err := strconv.Atoi(res.Header.Get(h)); err != nil {
				t.Errorf("%s -> %d: %s = %q, want a number", res.what, res.Status, h, res.Header.Get(h))
			}
		}
	}
	return res
}

// operational are the routes outside the APIs, which are not rate limited.
var operational = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true, "/openapi.yaml": true}

// sendUnchecked sends req without validating the response: only for routes
// the document does not (and should not) describe, such as unknown paths.
func (e *env) sendUnchecked(t *testing.T, req *http.Request) *result {
	t.Helper()
	resp, err := e.http.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.RequestURI(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", req.Method, req.URL.RequestURI(), err)
	}
	return &result{Status: resp.StatusCode, Header: resp.Header, Body: body, what: req.Method + " " + req.URL.RequestURI()}
}

// get sends a GET without credentials.
func (e *env) get(t *testing.T, path string) *result {
	t.Helper()
	return e.send(t, e.newRequest(t, http.MethodGet, path, nil))
}

// want fails the test unless the status is status.
func (r *result) want(t *testing.T, status int) *result {
	t.Helper()
	if r.Status != status {
		t.Fatalf("%s: status %d, want %d; body: %s", r.what, r.Status, status, r.Body)
	}
	return r
}

// decode decodes the JSON body into v.
func (r *result) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("%s: body is not the JSON expected (%v): %s", r.what, err, r.Body)
	}
}

// obj returns the body as a JSON object.
func (r *result) obj(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	r.decode(t, &m)
	return m
}

// fields returns the field names of a 422 body.
func (r *result) fields(t *testing.T) map[string][]string {
	t.Helper()
	r.want(t, http.StatusUnprocessableEntity)
	var m map[string][]string
	r.decode(t, &m)
	return m
}

// wantFields fails unless the request was a 422 naming every one of names.
func (r *result) wantFields(t *testing.T, names ...string) {
	t.Helper()
	got := r.fields(t)
	for _, n := range names {
		if len(got[n]) == 0 || got[n][0] == "" {
			t.Errorf("%s: 422 does not name %q: %s", r.what, n, r.Body)
		}
	}
}

// apiError is the business-API error body.
type apiError struct {
	Error struct {
		StatusCode  int    `json:"status_code"`
		Message     string `json:"message"`
		Description string `json:"description"`
	} `json:"error"`
}

// wantError fails unless the response is status with a business-API error
// body whose status_code matches and whose message contains every one of
// words.
func (r *result) wantError(t *testing.T, status int, words ...string) {
	t.Helper()
	r.want(t, status)
	var e apiError
	r.decode(t, &e)
	if e.Error.StatusCode != status || e.Error.Message == "" {
		t.Errorf("%s: error body %s, want status_code %d and a message", r.what, r.Body, status)
	}
	for _, w := range words {
		if !strings.Contains(e.Error.Message, w) {
			t.Errorf("%s: message %q does not mention %q", r.what, e.Error.Message, w)
		}
	}
}

// ------------------------------------------------------------------- tokens

// oauthError is an RFC 6749 section 5.2 error body.
type oauthError struct {
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

// tokenResponse is the token endpoint's reply.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
	TokenType    string `json:"token_type"`
}

// postToken posts form to /oauth/token with the X-Application-Key header
// (omitted when key is empty).
func (e *env) postToken(t *testing.T, key string, form url.Values) *result {
	t.Helper()
	return e.send(t, e.tokenRequest(t, key, form))
}

func (e *env) tokenRequest(t *testing.T, key string, form url.Values) *http.Request {
	t.Helper()
	req := e.newRequest(t, http.MethodPost, "/oauth/token", form.Encode())
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if key != "" {
		req.Header.Set("X-Application-Key", key)
	}
	return req
}

// passwordForm is a business-API password grant for the owner of b.
func (e *env) passwordForm(b *business) url.Values {
	return url.Values{
		"grant_type": {"password"}, "client_id": {e.client.ID}, "client_secret": {e.client.Secret},
		"username": {b.Email}, "password": {b.Password}, "scope": {"admin"}, "application_key": {b.Key},
	}
}

// wantOAuthError fails unless the response is status with the RFC 6749
// error code.
func (r *result) wantOAuthError(t *testing.T, status int, code string) {
	t.Helper()
	r.want(t, status)
	var oe oauthError
	r.decode(t, &oe)
	if oe.Error != code {
		t.Errorf("%s: error %q, want %q (%s)", r.what, oe.Error, code, r.Body)
	}
	if got := r.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("%s: Cache-Control %q, want no-store", r.what, got)
	}
}

// tokens gets a token pair for the owner of b with the password grant.
func (e *env) tokens(t *testing.T, b *business) tokenResponse {
	t.Helper()
	var tr tokenResponse
	e.postToken(t, b.Key, e.passwordForm(b)).want(t, http.StatusOK).decode(t, &tr)
	return tr
}

// client sends business-API requests with one Application Key and token.
type client struct {
	e          *env
	key, token string
	accept     string
}

// owner signs in as the owner of b and returns a client with its token.
func (e *env) owner(t *testing.T, b *business) *client {
	t.Helper()
	return &client{e: e, key: b.Key, token: e.tokens(t, b).AccessToken}
}

// request builds a request with the client's credentials.
func (c *client) request(t *testing.T, method, path string, body any) *http.Request {
	t.Helper()
	req := c.e.newRequest(t, method, path, body)
	if c.key != "" {
		req.Header.Set("X-Application-Key", c.key)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	req.Header.Set("Accept", "application/vnd.loyalty.api.v1+json")
	if c.accept != "" {
		req.Header.Set("Accept", c.accept)
	}
	return req
}

// do sends one validated request.
func (c *client) do(t *testing.T, method, path string, body any) *result {
	t.Helper()
	return c.e.send(t, c.request(t, method, path, body))
}

func (c *client) get(t *testing.T, path string) *result {
	t.Helper()
	return c.do(t, http.MethodGet, path, nil)
}

// ---------------------------------------------------------------- customers

// customer is a customer as the API shows it.
type customer struct {
	ID        string         `json:"id"`
	FirstName *string        `json:"first_name"`
	LastName  *string        `json:"last_name"`
	Email     *string        `json:"email"`
	Phone     *string        `json:"phone"`
	BirthDate *string        `json:"birth_date"`
	Language  *string        `json:"language"`
	Gender    *string        `json:"gender"`
	Enabled   bool           `json:"enabled"`
	CreatedAt string         `json:"created_at"`
	UpdatedAt string         `json:"updated_at"`
	Balance   map[string]any `json:"balance"`
	Address   map[string]any `json:"address"`
	UserType  map[string]any `json:"user_type"`
}

// one decodes a `{data: customer}` body.
func (r *result) customer(t *testing.T) customer {
	t.Helper()
	var out struct{ Data customer }
	r.decode(t, &out)
	if out.Data.ID == "" {
		t.Fatalf("%s: no customer in %s", r.what, r.Body)
	}
	return out.Data
}

// createCustomer creates a customer that must succeed.
func (c *client) createCustomer(t *testing.T, body map[string]any) customer {
	t.Helper()
	return c.do(t, http.MethodPost, "/customers", body).want(t, http.StatusOK).customer(t)
}

// customerList is the body of GET /customers.
type customerList struct {
	Data   []customer `json:"data"`
	Cursor struct {
		Count   int     `json:"count"`
		Next    *int    `json:"next"`
		NextURI *string `json:"next_uri"`
	} `json:"cursor"`
	Meta struct {
		Total int `json:"total"`
	} `json:"meta"`
}

// list gets one page of customers.
func (c *client) list(t *testing.T, query string) customerList {
	t.Helper()
	var l customerList
	c.get(t, "/customers?"+query).want(t, http.StatusOK).decode(t, &l)
	return l
}

// ids returns the ids of a page, in order.
func (l customerList) ids() []string {
	out := make([]string, len(l.Data))
	for i, c := range l.Data {
		out[i] = c.ID
	}
	return out
}

// deref returns *s, or "<nil>".
func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
