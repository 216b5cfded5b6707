package loyalty

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"time"
)

// A member's code is what the member's wallet shows as a QR code for the
// counter to scan: it names the member to one business for one minute.
// It carries the member's id encrypted under a server key, with a tag
// that is an HMAC of (member, business, minute): a code read from an old
// screenshot, or shown at another business, names no one. The counter
// takes the current minute's code and the previous minute's, for clocks
// that differ and a code shown just before the minute turned.
//
// The construction is deterministic authenticated encryption (as SIV):
// tag = HMAC(key, "tag" | business | minute | member)[:8], and the id is
// XORed with HMAC(key, "pad" | business | minute | tag). The code is the
// tag and the encrypted id in base32, 39 characters of A-Z and 2-7, which
// a QR code holds in its compact alphanumeric mode.

// MemberCodeLife is how long a member's code is shown before the next.
const MemberCodeLife = time.Minute

// memberCodeLen is the length of a member's code.
var memberCodeLen = memberCodeEncoding.EncodedLen(memberTagLen + 16)

const memberTagLen = 8

var memberCodeEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// MemberCodes issues and resolves members' codes under a server key.
type MemberCodes struct {
	Key []byte
}

// MemberCode is a member's code and when the next one replaces it.
type MemberCode struct {
	Code  string
	Until time.Time
}

// Issue returns the code of customer customerID of businessID at now.
// Without a key it returns the zero code.
func (m MemberCodes) Issue(businessID, customerID string, now time.Time) MemberCode {
	id, err := hex.DecodeString(customerID)
	if len(m.Key) == 0 || err != nil || len(id) != 16 {
		return MemberCode{}
	}
	minute := now.UTC().Truncate(MemberCodeLife)
	tag := m.tag(businessID, minute, id)
	pad := m.pad(businessID, minute, tag)
	raw := make([]byte, 0, memberTagLen+16)
	raw = append(raw, tag...)
	for i, c := range id {
		raw = append(raw, c^pad[i])
	}
	return MemberCode{Code: memberCodeEncoding.EncodeToString(raw), Until: minute.Add(MemberCodeLife)}
}

// IsMemberCode reports whether code has the shape of a member's code
// (either case), whether or not it names anyone.
func IsMemberCode(code string) bool {
	code = strings.ToUpper(strings.TrimSpace(code))
	if len(code) != memberCodeLen {
		return false
	}
	_, err := memberCodeEncoding.DecodeString(code)
	return err == nil
}

// Resolve returns the id of the customer of businessID whose code at now,
// or a minute before, is code; false when it names no one.
func (m MemberCodes) Resolve(businessID, code string, now time.Time) (string, bool) {
	raw, err := memberCodeEncoding.DecodeString(strings.ToUpper(strings.TrimSpace(code)))
	if len(m.Key) == 0 || err != nil || len(raw) != memberTagLen+16 {
		return "", false
	}
	tag, enc := raw[:memberTagLen], raw[memberTagLen:]
	minute := now.UTC().Truncate(MemberCodeLife)
	for _, at := range []time.Time{minute, minute.Add(-MemberCodeLife)} {
		pad := m.pad(businessID, at, tag)
		id := make([]byte, 16)
		for i := range id {
			id[i] = enc[i] ^ pad[i]
		}
		if subtle.ConstantTimeCompare(m.tag(businessID, at, id), tag) == 1 {
			return hex.EncodeToString(id), true
		}
	}
	return "", false
}

func (m MemberCodes) tag(businessID string, minute time.Time, id []byte) []byte {
	return m.mac("tag", businessID, minute, id)[:memberTagLen]
}

func (m MemberCodes) pad(businessID string, minute time.Time, tag []byte) []byte {
	return m.mac("pad", businessID, minute, tag)
}

func (m MemberCodes) mac(purpose, businessID string, minute time.Time, data []byte) []byte {
	h := hmac.New(sha256.New, m.Key)
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(minute.Unix()))
	h.Write([]byte(purpose + "\x00" + businessID + "\x00"))
	h.Write(n[:])
	h.Write(data)
	return h.Sum(nil)
}

// MemberCodeService issues a member's code for the wallet and finds the
// member a code names for the counter, on the business's clock.
type MemberCodeService struct {
	Store Store
	Codes MemberCodes
}

// Issue returns the current code of customer customerID of b.
func (s *MemberCodeService) Issue(b Business, customerID string) MemberCode {
	return s.Codes.Issue(b.ID, customerID, s.Store.Now())
}

// Customer returns the customer of b whose current (or previous
// minute's) code is code; a code that names no one, or a customer b no
// longer has, is ENotFound.
func (s *MemberCodeService) Customer(ctx context.Context, b Business, code string) (Customer, error) {
	id, ok := s.Codes.Resolve(b.ID, code, s.Store.Now())
	if !ok {
		return Customer{}, noMemberCode()
	}
	c, err := s.Store.Customer(ctx, b.ID, id)
	return c, asNotFound(err, noMemberCode)
}

func noMemberCode() error { return Errorf(ENotFound, "No member has this code now.") }
