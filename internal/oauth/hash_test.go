package oauth_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/loyalty/loyalty/internal/oauth"
)

func TestHasherPassword(t *testing.T) {
	ctx := context.Background()
	h := oauth.NewHasher([]byte("server key"))
	hash, err := h.Password(ctx, "1234")
	if err != nil {
		t.Fatal(err)
	}
	// $argon2id$v=19$m=19456,t=2,p=1$<salt>$<key>
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != "v=19" || parts[3] != "m=19456,t=2,p=1" {
		t.Fatalf("hash %q is not argon2id in PHC form with the expected parameters", hash)
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	key, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(salt) != 16 || len(key) != 32 {
		t.Errorf("salt %d bytes (%v), key %d bytes (%v); want 16 and 32", len(salt), err1, len(key), err2)
	}
	if strings.Contains(hash, "1234") {
		t.Error("the hash contains the PIN")
	}

	if ok, err := h.VerifyPassword(ctx, hash, "1234"); err != nil || !ok {
		t.Errorf("VerifyPassword(right) = %v, %v", ok, err)
	}
	for _, wrong := range []string{"1235", "", "12345", "1234 "} {
		if ok, err := h.VerifyPassword(ctx, hash, wrong); err != nil || ok {
			t.Errorf("VerifyPassword(%q) = %v, %v; want false, nil", wrong, ok, err)
		}
	}

	// A fresh salt each time: the same PIN never hashes the same twice.
	again, err := h.Password(ctx, "1234")
	if err != nil || again == hash {
		t.Errorf("second hash = %q, %v; want a different salt", again, err)
	}
	// The HMAC key plays no part: another server verifies the same hash.
	if ok, err := oauth.NewHasher([]byte("other key")).VerifyPassword(ctx, hash, "1234"); err != nil || !ok {
		t.Errorf("verify with another Hasher = %v, %v", ok, err)
	}

	// A changed key part no longer matches.
	flipped := []byte(parts[5])
	if flipped[0] == 'A' {
		flipped[0] = 'B'
	} else {
		flipped[0] = 'A'
	}
	tampered := strings.Join(append(parts[:5:5], string(flipped)), "$")
	if ok, err := h.VerifyPassword(ctx, tampered, "1234"); ok || err != nil {
		t.Errorf("VerifyPassword(changed key) = %v, %v; want false, nil", ok, err)
	}
}

func TestHasherUnreadableHash(t *testing.T) {
	ctx := context.Background()
	h := oauth.NewHasher([]byte("server key"))
	good, err := h.Password(ctx, "secret")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(good, "$")
	with := func(i int, v string) string {
		p := append([]string(nil), parts...)
		p[i] = v
		return strings.Join(p, "$")
	}
	for _, bad := range []string{
		"",
		"secret",
		"$2a$10$abcdefghijklmnopqrstuuJ0r1Y3Qb9m2mD8m3g7K9Xh2mQe", // bcrypt
		with(1, "argon2i"),
		with(3, "m=lots,t=2,p=1"),
		with(4, "!!not base64!!"),
		with(5, "%%%"),
		good + "$extra",
		strings.TrimSuffix(good, "$"+parts[5]),
	} {
		if ok, err := h.VerifyPassword(ctx, bad, "secret"); err == nil || ok {
			t.Errorf("VerifyPassword(%q) = %v, %v; want an error", bad, ok, err)
		}
	}
}

func TestHasherToken(t *testing.T) {
	a1 := oauth.NewHasher([]byte("key A"))
	a2 := oauth.NewHasher([]byte("key A"))
	b := oauth.NewHasher([]byte("key B"))
	x := a1.Token("the-secret")
	if len(x) != 32 {
		t.Fatalf("Token is %d bytes, want 32 (HMAC-SHA256)", len(x))
	}
	if !bytes.Equal(x, a1.Token("the-secret")) || !bytes.Equal(x, a2.Token("the-secret")) {
		t.Error("Token is not deterministic for one key")
	}
	if bytes.Equal(x, b.Token("the-secret")) {
		t.Error("two keys give the same Token")
	}
	if bytes.Equal(x, a1.Token("the-secreT")) || bytes.Equal(x, a1.Token("")) {
		t.Error("two secrets give the same Token")
	}
}

func TestRandomToken(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		s := oauth.RandomToken()
		raw, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil || len(raw) != 32 || len(s) != 43 {
			t.Fatalf("RandomToken() = %q (%v); want 32 bytes in unpadded base64url", s, err)
		}
		if seen[s] {
			t.Fatalf("RandomToken repeated %q", s)
		}
		seen[s] = true
	}
}

// TestHasherCost: a Hasher with a lower cost (tests') records it in its
// hashes, and a Hasher at the default cost verifies them, and the
// reverse: verification reads the cost from the hash.
func TestHasherCost(t *testing.T) {
	ctx := context.Background()
	cheap := oauth.NewHasher([]byte("k")).WithCost(oauth.Cost{MemoryKiB: 64, Passes: 1})
	usual := oauth.NewHasher([]byte("k"))
	hash, err := cheap.Password(ctx, "s3cret-pass")
	if err != nil {
		t.Fatal(err)
	}
	if parts := strings.Split(hash, "$"); len(parts) != 6 || parts[3] != "m=64,t=1,p=1" {
		t.Fatalf("hash %q does not record the cost m=64,t=1", hash)
	}
	for name, h := range map[string]*oauth.Hasher{"cheap": cheap, "usual": usual} {
		if ok, err := h.VerifyPassword(ctx, hash, "s3cret-pass"); err != nil || !ok {
			t.Errorf("%s hasher: the right password of a cheap hash: %v %v", name, ok, err)
		}
		if ok, _ := h.VerifyPassword(ctx, hash, "s3cret-pasS"); ok {
			t.Errorf("%s hasher: a wrong password matched a cheap hash", name)
		}
	}
	strong, err := usual.Password(ctx, "s3cret-pass")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := cheap.VerifyPassword(ctx, strong, "s3cret-pass"); err != nil || !ok || !strings.Contains(strong, "m=19456,t=2,p=1") {
		t.Errorf("a cheap hasher verifying a default hash %q: %v %v", strong, ok, err)
	}
	// Below argon2's minimum, the least it takes.
	low, _ := oauth.NewHasher(nil).WithCost(oauth.Cost{}).Password(ctx, "x")
	if !strings.Contains(low, "m=8,t=1,p=1") {
		t.Errorf("a zero cost hashed as %q, want argon2's minimum m=8,t=1", low)
	}
}
