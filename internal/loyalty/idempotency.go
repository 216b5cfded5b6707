package loyalty

import (
	"bytes"
	"context"
	"encoding/json"
)

// Idempotency is an Idempotency-Key with the fingerprint of its request.
type Idempotency struct {
	Key  string
	Hash []byte
}

// IdempotentReply is what a request under a key already used gets: the
// transaction the first request created, to be answered exactly as then.
type IdempotentReply struct {
	Transaction Transaction
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

// resultFormat marks a record whose body is the domain result (the
// transaction as JSON), so the dependency points from the HTTP layer to
// the domain and never back.
const resultFormat = 1

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
	if prev.Format != resultFormat {
		return &IdempotentReply{Legacy: &prev}, nil
	}
	var out IdempotentReply
	if err := json.Unmarshal(prev.Body, &out.Transaction); err != nil {
		return nil, err
	}
	return &out, nil
}
