package sqlstore

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loyalty/loyalty/internal/oauth"
)

// accessCache keeps, briefly, what a token lookup read (the token, its
// app's status, the Application Key and, for the ledger, the business with
// its rules), so that a client's requests do not each cost a query before
// their own work. It holds the HMAC of a token, never the token.
//
// An entry is used only while no change has been committed through this
// DB since it was read: any change might revoke the token, rotate the key,
// disapprove the app or change the business's rules, so every write except
// the ledger's own appends, new tokens and the outbox's bookkeeping (which
// change none of these) ends every entry. Changes made by another instance
// sharing the database are not seen here; DB.TokenCacheTTL bounds how long
// an entry lives, and so how long such a change can go unnoticed.
type accessCache struct {
	gen atomic.Uint64 // counts the changes committed through this DB

	mu      sync.RWMutex
	entries map[accessKey]accessEntry
	of      uint64 // the gen the entries were read at
}

type accessKey struct {
	hash, appKey string
	withBusiness bool
}

type accessEntry struct {
	t       oauth.Token
	expires time.Time
}

// maxAccessEntries bounds the cache; past it, it starts over.
const maxAccessEntries = 50_000

// changed ends every cached entry; call it after a change commits.
func (c *accessCache) changed() { c.gen.Add(1) }

// get returns a cached lookup that is still good.
func (c *accessCache) get(k accessKey) (oauth.Token, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.entries[k]
	if !ok || c.of != c.gen.Load() || !time.Now().Before(e.expires) {
		return oauth.Token{}, false
	}
	return e.t, true
}

// put keeps a lookup made when the change count was gen.
func (c *accessCache) put(k accessKey, gen uint64, t oauth.Token, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen.Load() {
		return // a change committed during the lookup
	}
	if c.of != gen || c.entries == nil || len(c.entries) >= maxAccessEntries {
		c.entries, c.of = map[accessKey]accessEntry{}, gen
	}
	c.entries[k] = accessEntry{t: t, expires: time.Now().Add(ttl)}
}

// cachedAccess runs access through the cache when TokenCacheTTL allows.
func (d *DB) cachedAccess(ctx context.Context, accessHash []byte, appKey string, withBusiness bool) (oauth.Token, error) {
	ttl := d.TokenCacheTTL
	if ttl <= 0 {
		return d.access(ctx, accessHash, appKey, withBusiness)
	}
	k := accessKey{string(accessHash), appKey, withBusiness}
	if t, ok := d.tokens.get(k); ok {
		return t, nil
	}
	gen := d.tokens.gen.Load()
	t, err := d.access(ctx, accessHash, appKey, withBusiness)
	if err == nil {
		d.tokens.put(k, gen, t, ttl)
	}
	return t, err
}

// exec runs a write outside a transaction and, once it has committed,
// ends the cached token lookups.
func (d *DB) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	res, err := d.wdb.ExecContext(ctx, query, args...)
	if err == nil {
		d.tokens.changed()
	}
	return res, err
}
