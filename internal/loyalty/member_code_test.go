package loyalty

import (
	"testing"
	"time"
)

func TestMemberCodes(t *testing.T) {
	codes := MemberCodes{Key: []byte("0123456789abcdef0123456789abcdef")}
	ann, bo := NewID(), NewID()
	cafe, bakery := NewID(), NewID()
	at := time.Date(2026, 12, 1, 10, 2, 30, 0, time.UTC)
	c := codes.Issue(cafe, ann, at)
	if !IsMemberCode(c.Code) || len(c.Code) != 39 || !c.Until.Equal(at.Truncate(time.Minute).Add(time.Minute)) {
		t.Fatalf("code %+v", c)
	}
	if c2 := codes.Issue(cafe, ann, at.Add(20*time.Second)); c2.Code != c.Code {
		t.Errorf("within the minute the code changed: %s, %s", c.Code, c2.Code)
	}
	if codes.Issue(cafe, ann, at.Add(time.Minute)).Code == c.Code {
		t.Error("the next minute's code is the same")
	}
	if codes.Issue(cafe, bo, at).Code == c.Code || codes.Issue(bakery, ann, at).Code == c.Code {
		t.Error("two members, or two businesses, share a code")
	}
	for _, tc := range []struct {
		name     string
		business string
		code     string
		now      time.Time
		want     string
	}{
		{"this minute", cafe, c.Code, at, ann},
		{"lower case", cafe, "  " + lower(c.Code), at, ann},
		{"the previous minute's", cafe, c.Code, at.Add(time.Minute), ann},
		{"two minutes old", cafe, c.Code, at.Add(2 * time.Minute), ""},
		{"from the future", cafe, c.Code, at.Add(-time.Minute), ""},
		{"another business", bakery, c.Code, at, ""},
		{"altered", cafe, flip(c.Code), at, ""},
		{"not a code", cafe, "HELLO", at, ""},
	} {
		got, ok := codes.Resolve(tc.business, tc.code, tc.now)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: resolved to %q %v, want %q", tc.name, got, ok, tc.want)
		}
	}
	other := MemberCodes{Key: []byte("another key, another service....")}
	if _, ok := other.Resolve(cafe, c.Code, at); ok {
		t.Error("another key resolves the code")
	}
	if (MemberCodes{}).Issue(cafe, ann, at).Code != "" {
		t.Error("no key issues a code")
	}
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func flip(s string) string {
	b := []byte(s)
	if b[20] == 'A' {
		b[20] = 'B'
	} else {
		b[20] = 'A'
	}
	return string(b)
}
