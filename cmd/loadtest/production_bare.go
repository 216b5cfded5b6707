package main

import (
	"database/sql"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/loyalty/loyalty/internal/app"
	"github.com/loyalty/loyalty/internal/sqlstore"
)

// The bare reference server answers the production scenario's two
// requests with nothing but net/http, the same token hashing and, per
// request, the statements a service cannot do without: it is the floor
// the full stack is read against. No Application Key check, limits,
// rules, logs or metrics.
const (
	// bareToken authenticates: the token by the hash of its secret.
	bareToken = `SELECT COALESCE(business_id, ''), access_expires_at, revoked_at FROM oauth_tokens WHERE access_hash = $1`
	// bareCustomer is the read: the customer and its balance.
	bareCustomer = `SELECT user_id, email, points, giftcard FROM customers
		WHERE business_id = $1 AND user_id = $2 AND deleted_at IS NULL`
	// bareBalance and bareEntry are the reward, in one transaction: the
	// balance moved and the ledger entry written.
	bareBalance = `UPDATE customers SET points = points + 12, tx_count = tx_count + 1
		WHERE business_id = $1 AND user_id = $2 AND deleted_at IS NULL RETURNING points`
	bareEntry = `INSERT INTO transactions (business_id, customer_id, intent, type_code, name, amount, points, visits,
		tier_amount, tier_points, created_at) VALUES ($1, $2, 'reward', 4, 'Reward', 1250, 12, 1, 1250, 12, $3) RETURNING id`
)

// bareProductionHandler serves GET /customers/{id} and POST /transactions
// (a reward of a fixed 12 points for the customer named by id) on the
// app's database. On SQLite the rewards take turns (SQLite has one writer;
// queueing in Go is cheaper than colliding in its busy handler).
func bareProductionHandler(a *app.App) http.Handler {
	db := a.DB.SQL()
	var writer sync.Mutex
	serialize := a.DB.Dialect() == sqlstore.SQLite
	auth := func(w http.ResponseWriter, r *http.Request) (string, bool) {
		var business string
		var expires time.Time
		var revoked sql.NullTime
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		err := db.QueryRowContext(r.Context(), bareToken, a.Hasher.Token(tok)).Scan(&business, &expires, &revoked)
		if err != nil || revoked.Valid || time.Now().After(expires) {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return "", false
		}
		return business, true
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /customers/{id}", func(w http.ResponseWriter, r *http.Request) {
		business, ok := auth(w, r)
		if !ok {
			return
		}
		var id, email string
		var points, giftcard int64
		err := db.QueryRowContext(r.Context(), bareCustomer, business, r.PathValue("id")).Scan(&id, &email, &points, &giftcard)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"id": id, "email": email},
			"included": map[string]any{"balance": map[string]any{"points": points, "giftcard": giftcard}}})
	})
	mux.HandleFunc("POST /transactions", func(w http.ResponseWriter, r *http.Request) {
		business, ok := auth(w, r)
		if !ok {
			return
		}
		var in struct {
			Customer struct{ ID string } `json:"customer"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var points, entry int64
		if serialize {
			writer.Lock()
			defer writer.Unlock()
		}
		tx, err := db.BeginTx(r.Context(), nil)
		if err == nil {
			err = tx.QueryRowContext(r.Context(), bareBalance, business, in.Customer.ID).Scan(&points)
			if err == nil {
				err = tx.QueryRowContext(r.Context(), bareEntry, business, in.Customer.ID, time.Now().UTC()).Scan(&entry)
			}
			if err == nil {
				err = tx.Commit()
			} else {
				tx.Rollback()
			}
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"id": entry, "points": 12,
			"balance": map[string]any{"points": points}}})
	})
	return mux
}
