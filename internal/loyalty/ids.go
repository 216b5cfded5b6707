package loyalty

import (
	"encoding/hex"

	"github.com/google/uuid"
)

// NewID returns a new opaque id: a UUIDv7 as 32 lowercase hex characters,
// so ids sort by creation time.
func NewID() string {
	u, err := uuid.NewV7()
	if err != nil {
		// NewV7 fails only when the system's random source does.
		panic(err)
	}
	var b [32]byte
	hex.Encode(b[:], u[:])
	return string(b[:])
}

// ValidID reports whether s has the shape of an opaque id.
func ValidID(s string) bool {
	if len(s) != 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
