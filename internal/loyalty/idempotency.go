package loyalty

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Idempotency is an Idempotency-Key with the fingerprint of its request.
type Idempotency struct {
	Key  string
	Hash []byte
}

// IdempotentReply is what a request under a key already used gets: what
// the first request gave, to be answered exactly as then — the
// transaction it created, or the error it was refused with.
type IdempotentReply struct {
	Transaction Transaction
	Err         error // the first request's refusal, when it was refused
	// Legacy is a reply an earlier version stored whole (HTTP status and
	// body) instead of its result; nil for replies stored since.
	Legacy *IdempotentRecord
}

// IdempotentRecord is what the store keeps under an Idempotency-Key.
type IdempotentRecord struct {
	Hash   []byte
	Format int // resultFormat, or the HTTP status of a reply an earlier version stored whole
	Body   []byte
}

// The formats of a record's body. Both hold a domain result, so the
// dependency points from the HTTP layer to the domain and never back:
// resultFormat the transaction as JSON, refusalFormat the refusal (its
// code, message and fields). Replies an earlier version stored whole use
// their HTTP status (100 and up) as the format.
const (
	resultFormat  = 1
	refusalFormat = 2
)

// IdempotencyKeyTTL is how long a key is kept: a retry within it gets the
// first reply; after it, the key is forgotten and may be used again.
const IdempotencyKeyTTL = 48 * time.Hour

// storedRefusal reports whether err is a refusal a retry must get again:
// a domain answer to the request (invalid, not found, forbidden, bad,
// condition not met), not a passing failure (a conflict, an outage).
func storedRefusal(err error) bool {
	switch ErrorCode(err) {
	case EInvalid, ENotFound, EForbidden, EBadRequest, ENotMet:
		return true
	}
	return false
}

// refusalRecord is a refusal as a record keeps it.
type refusalRecord struct {
	Code    string              `json:"code"`
	Message string              `json:"message"`
	Fields  map[string][]string `json:"fields,omitempty"`
	Refusal Refusal             `json:"refusal,omitempty"`
}

// finishRefused stores, under the key, the refusal the request got.
func (s *TransactionService) finishRefused(ctx context.Context, tx Tx, b Business, idem *Idempotency, refused error) error {
	var e *Error
	if !errors.As(refused, &e) {
		return refused
	}
	body, err := json.Marshal(refusalRecord{Code: e.Code, Message: e.Message, Fields: e.Fields, Refusal: e.Refusal})
	if err != nil {
		return err
	}
	return tx.FinishIdempotent(ctx, b.ID, idem.Key, refusalFormat, body)
}

// finishIdempotent stores the result of the request under its key, in
// the transaction that made it.
func (s *TransactionService) finishIdempotent(ctx context.Context, tx Tx, b Business, idem *Idempotency, t Transaction) error {
	body, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return tx.FinishIdempotent(ctx, b.ID, idem.Key, resultFormat, body)
}

// replay returns the stored result for an idempotency key already used,
// nil when the key is new.
func (s *TransactionService) replay(ctx context.Context, b Business, idem *Idempotency) (*IdempotentReply, error) {
	prev, err := s.Store.IdempotentReply(ctx, b.ID, idem.Key)
	if ErrorCode(err) == ENotFound {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if !bytes.Equal(prev.Hash, idem.Hash) {
		return nil, Invalid("idempotency_key", "The Idempotency-Key was already used with a different request.")
	}
	if prev.Format == refusalFormat {
		var rec refusalRecord
		if err := json.Unmarshal(prev.Body, &rec); err != nil {
			return nil, err
		}
		return &IdempotentReply{Err: &Error{Code: rec.Code, Message: rec.Message, Fields: rec.Fields, Refusal: rec.Refusal}}, nil
	}
	if prev.Format != resultFormat {
		return &IdempotentReply{Legacy: &prev}, nil
	}
	var out IdempotentReply
	if err := json.Unmarshal(prev.Body, &out.Transaction); err != nil {
		return nil, err
	}
	return &out, nil
}
