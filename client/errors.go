package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// APIError is a reply other than the one a call expects: a refusal in the
// API's error shape (business API `{error: {status_code, message}}`, user
// API `{code, error, message}`, or a 422's field map), or anything else.
type APIError struct {
	Status  int         // HTTP status
	Message string      // the error's message, when the body has one
	Fields  FieldErrors // a 422's messages by field name
	Body    []byte      // the body as received
}

// FieldErrors are a 422's messages by field name.
type FieldErrors map[string][]string

func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" && len(e.Fields) > 0 {
		var parts []string
		for f, m := range e.Fields {
			parts = append(parts, f+": "+strings.Join(m, " "))
		}
		msg = strings.Join(parts, "; ")
	}
	if msg == "" {
		msg = truncate(e.Body, 200)
	}
	return fmt.Sprintf("loyalty: %d %s: %s", e.Status, http.StatusText(e.Status), msg)
}

// ResponseError reads a reply that was not the expected one into an
// *APIError: use it when a generated response's JSON200 (or the status
// expected) is missing.
func ResponseError(resp *http.Response, body []byte) error {
	e := &APIError{Body: body}
	if resp != nil {
		e.Status = resp.StatusCode
	}
	var business ErrorBusiness
	var user struct {
		Message string `json:"message"`
	}
	switch {
	case json.Unmarshal(body, &business) == nil && business.Error.Message != "":
		e.Message = business.Error.Message
	case json.Unmarshal(body, &user) == nil && user.Message != "":
		e.Message = user.Message
	case e.Status == http.StatusUnprocessableEntity:
		json.Unmarshal(body, &e.Fields)
	}
	return e
}
