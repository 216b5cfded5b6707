package apitest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loyalty/loyalty/api"
)

// recordingTB is a testing.TB that records Errorf calls instead of failing.
type recordingTB struct {
	testing.TB
	errors []string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

const jsonCT = "application/json; charset=utf-8"

const customerID = "0190f5a2b7c87d3e8f0a1b2c3d4e5f60"

// validCustomer is a customer with every member, nullable ones null or set.
const validCustomer = `{
	"id": "` + customerID + `",
	"first_name": "Ada",
	"last_name": null,
	"email": "ada@example.com",
	"phone": null,
	"birth_date": "1990-12-10",
	"language": null,
	"gender": "female",
	"enabled": true,
	"created_at": "2026-01-31T09:05:00+00:00",
	"updated_at": "2026-01-31T09:05:00+00:00",
	"balance": {"points": 120, "giftcard": 12.5},
	"address": null,
	"user_type": {"id": "1", "name": "customer"},
	"unknown_extra_member": "allowed"
}`

const validIncluded = `{
	"balance": {"points": 120, "giftcard": 0},
	"tier_level": null,
	"tier_progress": {
		"total_amount": 10.25, "total_points": 10, "total_visits": 1,
		"left_amount": null, "left_points": 90, "left_visits": null,
		"tiers_relation": 0, "start_date": "2026-01-01T00:00:00+00:00", "end_date": null,
		"tier_level": null, "next_tier_level": "Silver", "tier_progress": 10
	},
	"tiers": [{
		"id": 1, "tiers_sequence": ["1"], "tiers_relation": 0, "reset_type": 1,
		"reset_period_month": 12, "base_previous_period": 0, "downgrade_policy": "recompute", "enabled": true,
		"tier_levels": [{"id": 2, "name": "Silver", "reach_spend": 100, "reach_visits": 10, "reach_points": 1000}]
	}],
	"referral_programs": [{
		"id": 3, "rule_name": "Friends", "cond_min_amount": 10.5, "referee_earns": 50, "referer_earns": 100,
		"expires_in": 30, "enabled": true, "link_referral_enabled": false, "referral_link": null
	}]
}`

// exchange is one fake request and the response a handler recorded for it.
type exchange struct {
	name     string
	method   string
	target   string // path and query; sent to http://127.0.0.1:<port>
	status   int
	header   map[string]string // Content-Type defaults to jsonCT when body is not empty
	body     string
	wantErr  string // substring of the reported failure; "" means the exchange must pass
	wantErr2 string // another substring of the failure, when not empty
}

func (e exchange) run(t *testing.T, v *Validator) []string {
	t.Helper()
	req := httptest.NewRequest(e.method, "http://127.0.0.1:39127"+e.target, nil)
	rec := httptest.NewRecorder()
	if e.body != "" {
		rec.Header().Set("Content-Type", jsonCT)
	}
	rec.Header().Set("X-RateLimit-Limit", "240")
	rec.Header().Set("X-RateLimit-Remaining", "239")
	for k, val := range e.header {
		if val == "" {
			rec.Header().Del(k)
		} else {
			rec.Header().Set(k, val)
		}
	}
	rec.WriteHeader(e.status)
	rec.WriteString(e.body)
	resp := rec.Result()
	defer resp.Body.Close()

	tb := &recordingTB{TB: t}
	v.Check(tb, req, resp, rec.Body.Bytes())
	return tb.errors
}

func TestValidator(t *testing.T) {
	v := NewValidator(t)
	if v2 := NewValidator(t); v2 != v {
		t.Errorf("NewValidator did not reuse the cached document")
	}
	if !v.doc.IsOpenAPI31OrLater() {
		t.Fatalf("api/openapi.yaml loaded as OpenAPI %s, want 3.1", v.doc.OpenAPI)
	}
	customerPath := "/customers/" + customerID

	cases := []exchange{
		// GET /customers/{id}: the cases the brief names.
		{name: "customer valid", method: "GET", target: customerPath + "?include=balance,tier_level,tier_progress,tiers,referral_programs&relationships=user_type,address,tier_levels",
			status: 200, body: `{"data": ` + validCustomer + `, "included": ` + validIncluded + `}`},
		{name: "customer without included", method: "GET", target: customerPath, status: 200,
			body: `{"data": ` + validCustomer + `}`},
		{name: "customer missing id", method: "GET", target: customerPath, status: 200,
			body:    `{"data": ` + strings.Replace(validCustomer, `"id": "`+customerID+`",`, "", 1) + `}`,
			wantErr: `property "id" is missing`},
		{name: "customer wrong gender enum", method: "GET", target: customerPath, status: 200,
			body:    `{"data": ` + strings.Replace(validCustomer, `"female"`, `"other"`, 1) + `}`,
			wantErr: "gender"},
		{name: "customer several errors reported together", method: "GET", target: customerPath, status: 200,
			body:    `{"data": ` + strings.Replace(strings.Replace(validCustomer, `"female"`, `"other"`, 1), `"enabled": true`, `"enabled": "yes"`, 1) + `}`,
			wantErr: "gender", wantErr2: "enabled"},
		{name: "customer undocumented status 418", method: "GET", target: customerPath, status: http.StatusTeapot,
			body: `{"data": ` + validCustomer + `}`, wantErr: "status is not supported"},

		// Nullability (OpenAPI 3.1 type arrays) and other schema rules.
		{name: "customer null where not nullable", method: "GET", target: customerPath, status: 200,
			body:    `{"data": ` + strings.Replace(validCustomer, `"enabled": true`, `"enabled": null`, 1) + `}`,
			wantErr: "enabled"},
		{name: "customer null id", method: "GET", target: customerPath, status: 200,
			body:    `{"data": ` + strings.Replace(validCustomer, `"`+customerID+`"`, `null`, 1) + `}`,
			wantErr: "id"},
		{name: "customer id not matching pattern", method: "GET", target: customerPath, status: 200,
			body:    `{"data": ` + strings.Replace(validCustomer, customerID, strings.ToUpper(customerID), 1) + `}`,
			wantErr: "id"},
		{name: "customer language enum", method: "GET", target: customerPath, status: 200,
			body:    `{"data": ` + strings.Replace(validCustomer, `"language": null`, `"language": "de"`, 1) + `}`,
			wantErr: "language"},
		{name: "customer language set", method: "GET", target: customerPath, status: 200,
			body: `{"data": ` + strings.Replace(validCustomer, `"language": null`, `"language": "fr"`, 1) + `}`},
		{name: "customer bad date-time", method: "GET", target: customerPath, status: 200,
			body:    `{"data": ` + strings.Replace(validCustomer, `"created_at": "2026-01-31T09:05:00+00:00"`, `"created_at": "31/01/2026"`, 1) + `}`,
			wantErr: "created_at"},
		{name: "customer bad birth_date", method: "GET", target: customerPath, status: 200,
			body:    `{"data": ` + strings.Replace(validCustomer, `"1990-12-10"`, `"10/12/1990"`, 1) + `}`,
			wantErr: "birth_date"},
		{name: "customer points not integer", method: "GET", target: customerPath, status: 200,
			body:    `{"data": ` + strings.Replace(validCustomer, `"points": 120`, `"points": 1.5`, 1) + `}`,
			wantErr: "points"},
		{name: "customer address object", method: "GET", target: customerPath, status: 200,
			body: `{"data": ` + strings.Replace(validCustomer, `"address": null`,
				`"address": {"street": "1 Main St", "city": null, "region": null, "country": "Canada", "country_code": "CA", "zip_code": null, "lat": 45.5, "long": null}`, 1) + `}`},
		{name: "customer address incomplete", method: "GET", target: customerPath, status: 200,
			body:    `{"data": ` + strings.Replace(validCustomer, `"address": null`, `"address": {"street": "1 Main St"}`, 1) + `}`,
			wantErr: "address"},
		{name: "included tier_level object", method: "GET", target: customerPath, status: 200,
			body: `{"data": ` + validCustomer + `, "included": {"tier_level": {"id": 2, "name": "Silver", "reach_spend": 100.5, "reach_visits": 10, "reach_points": 1000}}}`},
		{name: "included tier_level wrong", method: "GET", target: customerPath, status: 200,
			body:    `{"data": ` + validCustomer + `, "included": {"tier_level": {"id": "2", "name": "Silver", "reach_spend": 100.5, "reach_visits": 10, "reach_points": 1000}}}`,
			wantErr: "tier_level"},
		{name: "response not JSON", method: "GET", target: customerPath, status: 200, body: `<html>`,
			wantErr: "failed to decode response body"},
		{name: "wrong content type", method: "GET", target: customerPath, status: 200,
			header: map[string]string{"Content-Type": "text/html"}, body: `{"data": ` + validCustomer + `}`,
			wantErr: "text/html"},
		{name: "bad rate limit header", method: "GET", target: customerPath, status: 200,
			header: map[string]string{"X-RateLimit-Limit": "many"}, body: `{"data": ` + validCustomer + `}`,
			wantErr: "X-RateLimit-Limit"},

		// Error bodies.
		{name: "404 valid", method: "GET", target: "/customers/" + customerID, status: 404,
			body: `{"error": {"status_code": 404, "message": "Not Found", "description": "customer not found"}}`},
		{name: "404 missing message", method: "GET", target: "/customers/" + customerID, status: 404,
			body: `{"error": {"status_code": 404}}`, wantErr: "message"},
		{name: "400 user shape on business API", method: "GET", target: "/customers/xyz", status: 400,
			body: `{"code": 400, "error": "bad", "message": "bad id"}`, wantErr: "error"},
		{name: "403 valid", method: "GET", target: "/me", status: 403,
			body: `{"error": {"status_code": 403, "message": "Forbidden"}}`},
		{name: "422 valid", method: "POST", target: "/customers", status: 422,
			body: `{"email": ["The email field is required when phone is not present."], "phone": ["required"]}`},
		{name: "422 empty object", method: "POST", target: "/customers", status: 422, body: `{}`,
			wantErr: "minProperties"},
		{name: "422 value not an array", method: "POST", target: "/customers", status: 422,
			body: `{"email": "required"}`, wantErr: "email"},
		{name: "429 valid", method: "GET", target: "/customers", status: 429,
			header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1767225600", "Retry-After": "30"},
			body:   `{"error": {"status_code": 429, "message": "Too Many Requests", "description": "Rate limit exceeded"}}`},
		{name: "429 without Retry-After", method: "GET", target: "/customers", status: 429,
			header: map[string]string{"X-RateLimit-Remaining": "0"},
			body:   `{"error": {"status_code": 429, "message": "Too Many Requests"}}`, wantErr: "Retry-After"},

		// Other operations.
		{name: "list valid", method: "GET", target: "/customers?page=1&per_page=1", status: 200,
			body: `{"data": [` + validCustomer + `], "cursor": {"count": 1, "next": 2, "next_uri": "customers?page=2&per_page=1"}, "meta": {"total": 2}}`},
		{name: "list last page", method: "GET", target: "/customers?page=2", status: 200,
			body: `{"data": [], "cursor": {"count": 0, "next": null, "next_uri": null}, "meta": {"total": 0}}`},
		{name: "list next as string", method: "GET", target: "/customers", status: 200,
			body:    `{"data": [], "cursor": {"count": 0, "next": "2", "next_uri": null}, "meta": {"total": 0}}`,
			wantErr: "next"},
		{name: "list without meta", method: "GET", target: "/customers", status: 200,
			body: `{"data": [], "cursor": {"count": 0, "next": null, "next_uri": null}}`, wantErr: "meta"},
		{name: "create customer", method: "POST", target: "/customers", status: 200, body: `{"data": ` + validCustomer + `}`},
		{name: "create customer 201 undocumented", method: "POST", target: "/customers", status: 201,
			body: `{"data": ` + validCustomer + `}`, wantErr: "status is not supported"},
		{name: "update customer", method: "PUT", target: customerPath, status: 200, body: `{"data": ` + validCustomer + `}`},
		{name: "delete 204", method: "DELETE", target: customerPath, status: 204},
		{name: "delete 204 with body", method: "DELETE", target: customerPath, status: 204, body: `{}`,
			wantErr: "documented without content"},
		{name: "me valid", method: "GET", target: "/me?include=branches", status: 200, body: `{
			"data": {"id": "b1", "profile": {"id": "u1", "username": null, "email": "owner@example.com", "first_name": "O", "last_name": null},
				"business": {"id": "b1", "name": "Cafe", "loyalty_type": "per_spend", "about": null, "logo": null, "cover": "https://x/c.png",
					"cover_photo": {"large": "https://x/c.png", "medium": "https://x/c.png", "thumbnail": "https://x/c.png"},
					"settings": {"loyalty_type": "per_spend", "country_code": "FR",
						"currency": {"name": null, "symbol": "€", "iso_code": "EUR", "code": "EUR", "denominator": 100}}}},
			"included": {"branches": [{"id": "br1", "name": "Main", "web_site": null,
				"address": {"formatted": "1 Main St", "city": null, "region": null, "country": null, "lat": 45.5, "long": null},
				"logo": {"large": null, "medium": null, "thumbnail": null}, "cover_photo": {"large": "l", "medium": "m", "thumbnail": "t"}}]}}`},
		{name: "me bad loyalty_type", method: "GET", target: "/me", status: 200, body: `{
			"data": {"id": "b1", "profile": {"id": "u1", "username": null, "email": "owner@example.com", "first_name": "O", "last_name": null},
				"business": {"id": "b1", "name": "Cafe", "loyalty_type": "per_points", "about": null, "logo": null, "cover": null}}}`,
			wantErr: "loyalty_type"},
		{name: "me currency code not ISO", method: "GET", target: "/me", status: 200, body: `{
			"data": {"id": "b1", "profile": {"id": "u1", "username": null, "email": "owner@example.com", "first_name": "O", "last_name": null},
				"business": {"id": "b1", "name": "Cafe", "loyalty_type": "per_spend", "about": null, "logo": null, "cover": null,
					"cover_photo": null, "settings": {"loyalty_type": "per_spend", "country_code": "FR",
						"currency": {"name": null, "symbol": "€", "iso_code": "euro", "code": "EUR", "denominator": 100}}}}}`,
			wantErr: "iso_code"},
		{name: "token valid", method: "POST", target: "/oauth/token", status: 200,
			header: map[string]string{"Cache-Control": "no-store"},
			body:   `{"access_token": "a", "refresh_token": "r", "expires_in": 86400, "token_type": "Bearer"}`},
		{name: "token type lowercase", method: "POST", target: "/oauth/token", status: 200,
			body: `{"access_token": "a", "refresh_token": "r", "expires_in": 86400, "token_type": "bearer"}`, wantErr: "token_type"},
		{name: "token error", method: "POST", target: "/oauth/token", status: 400,
			body: `{"error": "invalid_grant", "error_description": "bad credentials"}`},
		{name: "token error business shape", method: "POST", target: "/oauth/token", status: 400,
			body: `{"error": {"status_code": 400, "message": "bad"}}`, wantErr: "error"},
		{name: "token 429 business shape", method: "POST", target: "/oauth/token", status: 429,
			header: map[string]string{"Retry-After": "900"},
			body:   `{"error": {"status_code": 429, "message": "Too Many Requests"}}`},
		{name: "healthz", method: "GET", target: "/healthz", status: 200, body: `{"status": "ok"}`},
		{name: "readyz unavailable", method: "GET", target: "/readyz", status: 503, body: `{"status": "unavailable"}`},
		{name: "readyz 503 with ok", method: "GET", target: "/readyz", status: 503, body: `{"status": "ok"}`, wantErr: "status"},
		{name: "openapi.yaml", method: "GET", target: "/openapi.yaml", status: 200,
			header: map[string]string{"Content-Type": "application/yaml"}, body: string(api.OpenAPI)},
		{name: "metrics", method: "GET", target: "/metrics", status: 200,
			header: map[string]string{"Content-Type": "text/plain; version=0.0.4; charset=utf-8; escaping=underscores"},
			body:   "# HELP up 1\nup 1\n"},

		// Routing.
		{name: "undocumented path", method: "GET", target: "/nope", status: 200, body: `{}`, wantErr: "route not documented"},
		{name: "undocumented method", method: "PATCH", target: customerPath, status: 200, body: `{}`, wantErr: "route not documented"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			errs := c.run(t, v)
			if c.wantErr == "" {
				if len(errs) != 0 {
					t.Fatalf("valid exchange reported: %s", strings.Join(errs, "\n"))
				}
				return
			}
			if len(errs) == 0 {
				t.Fatalf("invalid exchange passed (want an error mentioning %q)", c.wantErr)
			}
			msg := strings.Join(errs, "\n")
			for _, want := range []string{c.wantErr, c.wantErr2} {
				if !strings.Contains(msg, want) {
					t.Errorf("error does not mention %q:\n%s", want, msg)
				}
			}
			if testing.Verbose() {
				t.Log(msg)
			}
			// Every failure names method, path and status.
			prefix := fmt.Sprintf("apitest: %s %s -> %d: ", c.method, c.target, c.status)
			if !strings.HasPrefix(msg, prefix) {
				t.Errorf("error does not start with %q:\n%s", prefix, msg)
			}
		})
	}
}

// TestValidatorRealServer runs the validator on a real round trip, with the
// request a client sent to an httptest server on 127.0.0.1:<random port>.
func TestValidatorRealServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", jsonCT)
		w.Header().Set("X-RateLimit-Limit", "240")
		w.Header().Set("X-RateLimit-Remaining", "239")
		fmt.Fprint(w, `{"data": `+validCustomer+`}`)
	}))
	defer srv.Close()

	req, err := http.NewRequest(http.MethodGet, srv.URL+"/customers/"+customerID+"?include=balance", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	NewValidator(t).Check(t, req, resp, body)
}
