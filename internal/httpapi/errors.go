package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// api says which of the two APIs a route belongs to; their error shapes differ.
type apiKind int

const (
	businessAPI apiKind = iota
	userAPI
)

// statusOf is the single map from domain error codes to HTTP statuses:
// the JSON APIs and the web pages both answer through StatusOf, so a code
// cannot get one status from the API and another from a page.
var statusOf = map[string]int{
	loyalty.EInvalid:      http.StatusUnprocessableEntity,
	loyalty.EBadRequest:   http.StatusBadRequest,
	loyalty.ENotFound:     http.StatusNotFound,
	loyalty.EForbidden:    http.StatusForbidden,
	loyalty.EUnauthorized: http.StatusUnauthorized,
	loyalty.ETooMany:      http.StatusTooManyRequests,
	loyalty.EConflict:     http.StatusConflict,
	loyalty.EUnavailable:  http.StatusServiceUnavailable,
	loyalty.EInternal:     http.StatusInternalServerError,
	loyalty.ENotMet:       http.StatusAccepted,
}

// StatusOf returns the HTTP status of a domain error code. A code the map
// does not know is a bug, answered as one (500), never with status 0.
func StatusOf(code string) int {
	if status, ok := statusOf[code]; ok {
		return status
	}
	return http.StatusInternalServerError
}

// writeJSON writes v as the JSON body with the given status: what
// json.Marshal gives, and a newline. It is encoded into a pooled buffer,
// where json.Marshal would copy every answer into a new one.
func writeJSON(w http.ResponseWriter, status int, v any) {
	buf := answerBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledAnswer {
			answerBuffers.Put(buf)
		}
	}()
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		writeRaw(w, http.StatusInternalServerError, []byte(`{"error":{"status_code":500,"message":"Internal error.","description":"The response could not be encoded."}}`+"\n"))
		return
	}
	writeRaw(w, status, buf.Bytes())
}

// answerBuffers hold the answers writeJSON encodes; one that grew past
// maxPooledAnswer (a long page of a list) is left to the collector.
var answerBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledAnswer = 64 << 10

// errorTitles are the short descriptions of each status.
var errorTitles = map[int]string{
	202: "Accepted", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
	406: "Not Acceptable", 409: "Conflict", 413: "Payload Too Large", 415: "Unsupported Media Type",
	422: "Unprocessable Entity", 429: "Too Many Requests", 500: "Internal Server Error", 503: "Service Unavailable",
}

// writeError answers with err in the shape of the API the route belongs to.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, which apiKind, err error) {
	code := loyalty.ErrorCode(err)
	status := StatusOf(code)
	msg := loyalty.ErrorMessage(err)
	var de *loyalty.Error
	if errors.As(err, &de) {
		if code == loyalty.EInvalid && len(de.Fields) > 0 {
			writeJSON(w, status, de.Fields)
			return
		}
		if de.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(de.RetryAfter))
		}
		if de.Cause != nil {
			s.Logger.WarnContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "code", code, "err", de.Cause)
		}
	} else if r.Context().Err() != nil {
		// The client went away; there is nobody to answer.
		return
	} else {
		s.Logger.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	writeStatus(w, which, status, msg)
}

// writeStatus writes an error body for status with message.
func writeStatus(w http.ResponseWriter, which apiKind, status int, msg string) {
	title := errorTitles[status]
	switch {
	case status == http.StatusUnprocessableEntity:
		writeJSON(w, status, map[string][]string{"message": {msg}})
	case status == http.StatusAccepted:
		// A valid request whose condition is not met: nothing was done,
		// and the body says why (spec 7's 202 shape).
		writeJSON(w, status, map[string]any{"status_code": status, "message": msg, "description": "Accepted"})
	case which == userAPI && status == http.StatusBadRequest:
		writeJSON(w, status, map[string]any{"code": status, "error": title, "message": msg})
	case status == http.StatusForbidden:
		writeJSON(w, status, map[string]any{"error": map[string]any{"status_code": status, "message": msg}})
	default:
		writeJSON(w, status, map[string]any{"error": map[string]any{"status_code": status, "message": msg, "description": title}})
	}
}
