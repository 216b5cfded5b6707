package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// TestJSONTextError checks the text checks of JSON bodies: the path named
// for a NUL, escapes that only look like one, and surrogate pairs.
func TestJSONTextError(t *testing.T) {
	for _, c := range []struct {
		body  string
		code  string // "" when the body passes
		field string // for loyalty.EInvalid
	}{
		{`{"a":"plain","b":1}`, "", ""},
		{`{"a":"x\u0000"}`, loyalty.EInvalid, "a"},
		{`{"a":1,"b":true,"c":null,"d":"\u0000"}`, loyalty.EInvalid, "d"},
		{`{"a":{"b":["ok","\u0000"]}}`, loyalty.EInvalid, "a.b.1"},
		{`{"a":[1,{"x":2},{"c":"\u0000"}]}`, loyalty.EInvalid, "a.2.c"},
		{`{"a":{"b":{}},"c":[[],"\u0000"]}`, loyalty.EInvalid, "c.1"},
		{`[{"x":1},{"y":"\u0000"}]`, loyalty.EInvalid, "1.y"},
		{`{"a\u0000":1}`, loyalty.EInvalid, "a\x00"},
		{`{"a":"\\u0000"}`, "", ""},                          // a backslash, then text
		{`{"a":"\\\u0000"}`, loyalty.EInvalid, "a"},          // a backslash, then a NUL
		{`{"a":"\u00e9 \ud83d\ude00 \uD83D\uDE00"}`, "", ""}, // é and a surrogate pair, in either case
		{`{"a":"\ud83d"}`, loyalty.EBadRequest, ""},
		{`{"a":"\ud83d\u0041"}`, loyalty.EBadRequest, ""},
		{`{"a":"\ude00\ud83d"}`, loyalty.EBadRequest, ""},
		{`{"a":"\ud83d\\ude00"}`, loyalty.EBadRequest, ""},
		{"{\"a\":\"Andr\xe9\"}", loyalty.EBadRequest, ""},
		{`"\u0000"`, "", ""},       // not an object: the decoder refuses it
		{`{"a":"\u0000`, "", ""},   // not JSON: the decoder says so
		{`{"a" "\u0000"}`, "", ""}, // not JSON: the decoder says so
	} {
		err := jsonTextError([]byte(c.body))
		if got := loyalty.ErrorCode(err); got != c.code {
			t.Errorf("%s: %v, want code %q", c.body, err, c.code)
			continue
		}
		if e, ok := err.(*loyalty.Error); ok && c.code == loyalty.EInvalid && len(e.Fields[c.field]) == 0 {
			t.Errorf("%s: %v, want %q named", c.body, err, c.field)
		}
	}
}

// TestDecodeBodyNamesWireFields: a value of the wrong type in a field
// that a body type embeds (the flat earning rules, the redemption value)
// is named as the body names it, not by the Go struct that holds it.
func TestDecodeBodyNamesWireFields(t *testing.T) {
	for body, field := range map[string]string{
		`{"reward_ratio": "ten"}`:               "reward_ratio",
		`{"redemption_ratio": "20"}`:            "redemption_ratio",
		`{"redemption_amount": 1.234}`:          "redemption_amount",
		`{"earning": {"welcome_points": true}}`: "earning.welcome_points",
		`{"visits": {"points_per_visit": "x"}}`: "visits.points_per_visit",
	} {
		var in loyalty.RulesInput
		err := decodeBody(httptest.NewRequest(http.MethodPatch, "/rules", strings.NewReader(body)), &in)
		e, ok := err.(*loyalty.Error)
		if !ok || e.Code != loyalty.EInvalid || len(e.Fields) != 1 || len(e.Fields[field]) == 0 {
			t.Errorf("%s: %v (%v), want 422 naming %s", body, err, fieldsOf(err), field)
		}
	}
}

func fieldsOf(err error) map[string][]string {
	if e, ok := err.(*loyalty.Error); ok {
		return e.Fields
	}
	return nil
}
