// Package oauth is Loyalty's authorization server: registered apps, the
// token endpoint's grants, access and refresh tokens, and the hashing of
// every secret it keeps.
package oauth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Argon2id parameters for passwords and PINs.
const (
	argonThreads = 1
	argonKeyLen  = 32
)

// Cost is the argon2id cost of the password and PIN hashes a Hasher
// makes: memory in KiB and passes. A hash records its own cost, so a
// Hasher verifies hashes of any cost.
type Cost struct {
	MemoryKiB uint32
	Passes    uint32
}

// DefaultCost is OWASP's minimum for argon2id: 19 MiB, 2 passes.
var DefaultCost = Cost{MemoryKiB: 19 * 1024, Passes: 2}

// Hasher hashes low-entropy secrets (passwords, PINs) with argon2id and
// high-entropy ones (tokens, client secrets) with HMAC-SHA256. It bounds
// concurrent argon2 work so a burst of sign-ins cannot exhaust the machine.
type Hasher struct {
	key  []byte
	sem  chan struct{}
	cost Cost
}

// NewHasher returns a Hasher keyed with the server's HMAC key, hashing at
// DefaultCost.
func NewHasher(hmacKey []byte) *Hasher {
	return &Hasher{key: hmacKey, sem: make(chan struct{}, runtime.GOMAXPROCS(0)), cost: DefaultCost}
}

// WithCost makes h hash new passwords and PINs at c (at least 8 KiB and
// one pass, argon2's minimum) and returns h. Only tests lower it: a test
// process signs in thousands of times, and each hash at DefaultCost is
// some 30 ms of CPU and 19 MiB to clear and collect.
func (h *Hasher) WithCost(c Cost) *Hasher {
	h.cost = Cost{MemoryKiB: max(c.MemoryKiB, 8*argonThreads), Passes: max(c.Passes, 1)}
	return h
}

// Token returns the HMAC of a high-entropy secret; it is the stored form
// and the lookup key.
func (h *Hasher) Token(secret string) []byte {
	m := hmac.New(sha256.New, h.key)
	m.Write([]byte(secret))
	return m.Sum(nil)
}

// Password returns the argon2id hash of a password or PIN in PHC form.
func (h *Hasher) Password(ctx context.Context, password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	if err := h.acquire(ctx); err != nil {
		return "", err
	}
	defer h.release()
	c := h.cost
	sum := argon2.IDKey([]byte(password), salt, c.Passes, c.MemoryKiB, argonThreads, argonKeyLen)
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, c.MemoryKiB, c.Passes, argonThreads,
		enc.EncodeToString(salt), enc.EncodeToString(sum)), nil
}

// errBadHash is returned for a stored hash this code cannot read.
var errBadHash = errors.New("oauth: unreadable password hash")

// VerifyPassword reports whether password matches the PHC hash, comparing
// in constant time.
func (h *Hasher) VerifyPassword(ctx context.Context, hash, password string) (bool, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errBadHash
	}
	var m uint32
	var t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil {
		return false, errBadHash
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	want, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil {
		return false, errBadHash
	}
	if err := h.acquire(ctx); err != nil {
		return false, err
	}
	defer h.release()
	got := argon2.IDKey([]byte(password), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

func (h *Hasher) acquire(ctx context.Context) error {
	select {
	case h.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *Hasher) release() { <-h.sem }

// RandomToken returns a new random secret of 32 bytes, base64url-encoded.
func RandomToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// equalHash compares two stored hashes in constant time.
func equalHash(a, b []byte) bool { return subtle.ConstantTimeCompare(a, b) == 1 }
