package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// TestStampedVersion: the version and commit a release build stamps with
// -ldflags "-X ..." are what loyalty version prints, in both forms.
func TestStampedVersion(t *testing.T) {
	version, commit = "v1.4.0", "0123456789abcdef0123456789abcdef01234567"
	t.Cleanup(func() { version, commit = "", "" })

	var out bytes.Buffer
	if code := Main(context.Background(), []string{"loyalty", "version"}, &out, &out); code != ExitOK {
		t.Fatalf("loyalty version: exit %d: %s", code, out.String())
	}
	want := "loyalty v1.4.0 commit 0123456789abcdef0123456789abcdef01234567 " + runtime.Version()
	if !strings.HasPrefix(out.String(), want) {
		t.Errorf("loyalty version = %q, want it to start with %q", out.String(), want)
	}
	out.Reset()
	if code := Main(context.Background(), []string{"loyalty", "--json", "version"}, &out, &out); code != ExitOK {
		t.Fatalf("loyalty --json version: exit %d: %s", code, out.String())
	}
	var v map[string]any
	if err := json.Unmarshal(out.Bytes(), &v); err != nil || v["version"] != "v1.4.0" || v["commit"] != commit || v["modified"] != false {
		t.Errorf("loyalty --json version = %s (%v)", out.String(), err)
	}
}
