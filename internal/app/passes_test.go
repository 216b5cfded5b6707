package app

import (
	"strings"
	"testing"

	"github.com/loyalty/loyalty/internal/walletpass/passtest"
)

// TestPassConfig: no keys, no passes; a wallet configured in part, or with
// files that do not belong together, stops the start naming what is wrong;
// the Google links' origin is the public URL.
func TestPassConfig(t *testing.T) {
	if p, err := (Config{}).passes(); p != nil || err != nil {
		t.Fatalf("no configuration: %v %v, want no passes", p, err)
	}
	k := passtest.New(t)
	full := PassConfig{AppleCert: k.AppleCert, AppleKey: k.AppleKey, AppleWWDR: k.AppleWWDR, ApplePassTypeID: "pass.x",
		AppleTeamID: "T", GoogleIssuerID: "1", GoogleClassID: "c", GoogleKey: k.GoogleKey}
	p, err := Config{Passes: full, PublicURL: "https://loyalty.example.com"}.passes()
	if err != nil || p.Apple == nil || p.Google == nil || len(p.Google.Origins) != 1 || p.Google.Origins[0] != "https://loyalty.example.com" {
		t.Fatalf("both wallets: %+v %v", p, err)
	}
	onlyGoogle := full
	onlyGoogle.AppleCert, onlyGoogle.AppleKey, onlyGoogle.AppleWWDR, onlyGoogle.ApplePassTypeID, onlyGoogle.AppleTeamID = "", "", "", "", ""
	if p, err := (Config{Passes: onlyGoogle}).passes(); err != nil || p.Apple != nil || p.Google == nil {
		t.Errorf("Google only: %+v %v", p, err)
	}
	partial := full
	partial.AppleWWDR, partial.AppleTeamID = "", ""
	if _, err := (Config{Passes: partial}).passes(); err == nil || !strings.Contains(err.Error(), "--apple-pass-wwdr, --apple-team-id") {
		t.Errorf("Apple in part: %v, want the missing flags named", err)
	}
	other := passtest.New(t)
	mixed := full
	mixed.AppleKey = other.AppleKey
	if _, err := (Config{Passes: mixed}).passes(); err == nil {
		t.Error("a key of another certificate was taken")
	}
}
