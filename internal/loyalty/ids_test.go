package loyalty_test

import (
	"strings"
	"testing"

	"github.com/loyalty/loyalty/internal/loyalty"
)

func TestNewIDShape(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		id := loyalty.NewID()
		if !loyalty.ValidID(id) {
			t.Fatalf("NewID() = %q, not a valid id", id)
		}
		if id != strings.ToLower(id) || len(id) != 32 {
			t.Fatalf("NewID() = %q, want 32 lowercase hex characters", id)
		}
		if id[12] != '7' {
			t.Fatalf("NewID() = %q, want a UUIDv7 (version nibble 7)", id)
		}
		if seen[id] {
			t.Fatalf("NewID() repeated %q", id)
		}
		seen[id] = true
	}
}

func TestNewIDTimeOrdered(t *testing.T) {
	prev := loyalty.NewID()
	for i := range 2000 {
		id := loyalty.NewID()
		if id <= prev {
			t.Fatalf("id %d %q does not sort after the previous one %q", i, id, prev)
		}
		prev = id
	}
}

func TestValidID(t *testing.T) {
	for _, s := range []string{
		"0123456789abcdef0123456789abcdef",
		"019c0f5e2b7a7cc1a8f3d2e1b0a99887",
	} {
		if !loyalty.ValidID(s) {
			t.Errorf("ValidID(%q) = false, want true", s)
		}
	}
	for _, s := range []string{
		"",
		"0123456789abcdef0123456789abcde",   // 31
		"0123456789abcdef0123456789abcdef0", // 33
		"0123456789ABCDEF0123456789ABCDEF",  // upper case
		"0123456789abcdef0123456789abcdeg",
		"01234567-89ab-cdef-0123-456789abcdef",
		"0123456789abcdef 123456789abcdef",
	} {
		if loyalty.ValidID(s) {
			t.Errorf("ValidID(%q) = true, want false", s)
		}
	}
}
