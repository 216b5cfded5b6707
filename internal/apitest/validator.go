// Package apitest checks HTTP exchanges of tests against the OpenAPI document
// in package api. It is meant to be imported by tests only.
package apitest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/loyalty/loyalty/api"
)

// Validator checks HTTP exchanges against api/openapi.yaml.
//
// A Validator is safe for concurrent use by parallel tests.
type Validator struct {
	doc    *openapi3.T
	router routers.Router
}

// loaded is the parsed, validated document and its router, shared by every
// Validator of the process: the document is immutable once loaded.
var loaded = sync.OnceValues(func() (*Validator, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(api.OpenAPI)
	if err != nil {
		return nil, fmt.Errorf("load api/openapi.yaml: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("api/openapi.yaml is not a valid OpenAPI document: %w", err)
	}
	// Tests talk to httptest servers on 127.0.0.1:<random port>: match on the
	// path only, whatever host or scheme the document's servers name.
	doc.Servers = pathOnlyServers(doc.Servers)
	for _, item := range doc.Paths.Map() {
		item.Servers = nil
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("build router for api/openapi.yaml: %w", err)
	}
	return &Validator{doc: doc, router: router}, nil
})

// pathOnlyServers keeps only the path of the first server URL ("/" when there
// is none), so that routes match any host.
func pathOnlyServers(servers openapi3.Servers) openapi3.Servers {
	base := "/"
	if len(servers) > 0 && servers[0] != nil {
		if u, err := url.Parse(servers[0].URL); err == nil && u.Path != "" {
			base = u.Path
		}
	}
	return openapi3.Servers{{URL: base}}
}

// NewValidator loads the embedded document once (cache it process-wide; it's
// immutable) and builds a router. It fails tb (tb.Fatalf) if the document does
// not load or validate.
func NewValidator(tb testing.TB) *Validator {
	tb.Helper()
	v, err := loaded()
	if err != nil {
		tb.Fatalf("apitest: %v", err)
	}
	return v
}

// options are the response validation options: an undocumented status is an
// error, and every schema error is reported, not just the first.
var options = func() *openapi3filter.Options {
	o := &openapi3filter.Options{
		IncludeResponseStatus: true,
		MultiError:            true,
	}
	o.WithCustomSchemaErrorFunc(schemaErrorMessage)
	return o
}()

// schemaErrorMessage renders a schema error as its location, reason and the
// offending value (truncated), leaving out kin-openapi's dump of the whole
// schema, which for a missing member of a customer is a page long.
func schemaErrorMessage(err *openapi3.SchemaError) string {
	if err.Origin != nil {
		return "" // kin-openapi's message: the location and the nested errors
	}
	var b strings.Builder
	// Errors of the JSON Schema 2020-12 validator name the location already.
	if p := err.JSONPointer(); len(p) > 0 && !strings.HasPrefix(err.Reason, "error at ") {
		fmt.Fprintf(&b, "at %q: ", "/"+strings.Join(p, "/"))
	}
	if err.Reason != "" {
		b.WriteString(err.Reason)
	} else {
		fmt.Fprintf(&b, "doesn't match schema keyword %q", err.SchemaField)
	}
	if err.SchemaField == "required" {
		return b.String() // the value is the whole object that lacks the member
	}
	if v, jerr := json.Marshal(err.Value); jerr == nil {
		fmt.Fprintf(&b, " (value: %s)", truncate(v, 200))
	}
	return b.String()
}

// Check validates the response (status, headers, body) of req against the
// operation it matched; it fails tb (tb.Errorf, with method, path, status and
// the validator's message) when the route is not documented or the response
// does not match. body is the already-read response body.
//
// The request itself (parameters, body, security) is not validated: tests
// send bad requests on purpose.
func (v *Validator) Check(tb testing.TB, req *http.Request, resp *http.Response, body []byte) {
	tb.Helper()
	if err := v.validate(req, resp, body); err != nil {
		tb.Errorf("apitest: %s %s -> %d: %v", req.Method, requestPath(req), resp.StatusCode, err)
	}
}

// validate returns why the exchange does not match the document, or nil.
func (v *Validator) validate(req *http.Request, resp *http.Response, body []byte) error {
	route, pathParams, err := v.router.FindRoute(req)
	if err != nil {
		return fmt.Errorf("route not documented: %w", err)
	}
	reqInput := &openapi3filter.RequestValidationInput{
		Request:    req,
		PathParams: pathParams,
		Route:      route,
		Options:    options,
	}
	header := resp.Header
	if header == nil {
		header = http.Header{}
	}
	respInput := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: reqInput,
		Status:                 resp.StatusCode,
		Header:                 header,
		Options:                options,
	}
	respInput.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), respInput); err != nil {
		return err
	}
	// ValidateResponse accepts any body for a response documented without
	// content (such as 204): require it to be empty.
	if req.Method != http.MethodHead && len(body) > 0 {
		if ref := documentedResponse(route.Operation, resp.StatusCode); ref != nil && ref.Value != nil && len(ref.Value.Content) == 0 {
			return fmt.Errorf("response %d is documented without content but has a %d-byte body: %q",
				resp.StatusCode, len(body), truncate(body, 200))
		}
	}
	return nil
}

// documentedResponse is the response of op for status (or its default).
func documentedResponse(op *openapi3.Operation, status int) *openapi3.ResponseRef {
	if op == nil || op.Responses == nil {
		return nil
	}
	if ref := op.Responses.Status(status); ref != nil {
		return ref
	}
	return op.Responses.Default()
}

func requestPath(req *http.Request) string {
	if req.URL == nil {
		return req.RequestURI
	}
	return req.URL.RequestURI()
}

func truncate(b []byte, n int) string {
	s := string(b)
	if len(s) > n {
		s = s[:n] + "..."
	}
	return strings.ToValidUTF8(s, "?")
}
