package sqlstore

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loyalty/loyalty/internal/loyalty"
	"github.com/loyalty/loyalty/internal/oauth"
)

// accessCache keeps, briefly, what a token lookup read (the token, its
// app's status, the Application Key and, for the ledger, the business with
// its rules and whether it has points offers), so that a client's requests
// do not each cost a query before their own work. It holds the HMAC of a
// token, never the token.
//
// The rule: every entry ends as soon as a change that can alter what a
// lookup read commits through this DB, and no other change ends any. Those
// changes are the writes to accessTables (the tables the lookup reads) that
// can reach a row a lookup has read: a token revoked or spent, an app's
// status changed, an Application Key rotated or created (a lookup
// remembers a key it did not find), a business's rules, offers or earning rules changed.
// The store method making one calls tx.accessChanged in its transaction,
// and runTx ends the entries once that transaction commits.
// TestAccessWritersMarkTheChange holds every writer of accessTables in this
// package to it, or to a reason written down in notAccessChanges (a new
// token, for one, which no lookup can have read yet). Customers, sign-ins,
// the ledger and the outbox leave the cache alone.
//
// Changes made by another instance sharing the database are heard
// (PostgreSQL: notify.go; SQLite: access_watch.go), and entries then live
// up to heardCacheTTL; when they cannot be heard (the listening connection
// down, the count unreadable),
// DB.TokenCacheTTL bounds how long an entry lives, and so how long such a
// change can go unnoticed.
type accessCache struct {
	gen atomic.Uint64 // counts the relevant changes committed through this DB

	mu      sync.RWMutex
	entries map[accessKey]accessEntry
	of      uint64 // the gen the entries were read at
}

// accessTables are the tables a token lookup reads (accessQuery and
// accessBusinessQuery); see accessCache for who must end the cache.
var accessTables = []string{"oauth_tokens", "apps", "application_keys", "businesses", "business_rules", "offers", "earning_rules", "punch_cards"}

// cachedTables are the tables whose rows this package's caches hold: the
// token lookups' (accessTables) and the products a basket's SKUs name
// (skuCache, which ends with the access cache). Their writers call
// accessChanged.
var cachedTables = append(slices.Clone(accessTables), "products")

type accessKey struct {
	hash, appKey string
	withBusiness bool
}

type accessEntry struct {
	t    oauth.Token
	b    loyalty.Business
	read time.Time
}

// maxAccessEntries bounds the cache; past it, it starts over.
const maxAccessEntries = 50_000

// changed ends every cached entry; call it after a change commits.
func (c *accessCache) changed() { c.gen.Add(1) }

// get returns a cached lookup read less than maxAge ago that no change
// has ended.
func (c *accessCache) get(k accessKey, maxAge time.Duration) (accessEntry, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.entries[k]
	if !ok || c.of != c.gen.Load() || time.Since(e.read) >= maxAge {
		return accessEntry{}, false
	}
	return e, true
}

// put keeps a lookup made when the change count was gen.
func (c *accessCache) put(k accessKey, gen uint64, e accessEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen.Load() {
		return // a change committed during the lookup
	}
	if c.of != gen || c.entries == nil || len(c.entries) >= maxAccessEntries {
		c.entries, c.of = map[accessKey]accessEntry{}, gen
	}
	c.entries[k] = e
}

// cachedAccess runs access through the cache when TokenCacheTTL allows:
// an entry lives TokenCacheTTL, or heardCacheTTL while this instance hears
// every other's changes (notify.go).
func (d *DB) cachedAccess(ctx context.Context, accessHash []byte, appKey string, withBusiness bool) (oauth.Token, loyalty.Business, error) {
	ttl := d.TokenCacheTTL
	if ttl <= 0 {
		return d.access(ctx, accessHash, appKey, withBusiness)
	}
	if d.hearing() {
		ttl = max(ttl, heardCacheTTL)
	}
	k := accessKey{string(accessHash), appKey, withBusiness}
	if e, ok := d.tokens.get(k, ttl); ok {
		return e.t, e.b, nil
	}
	gen := d.tokens.gen.Load()
	t, b, err := d.access(ctx, accessHash, appKey, withBusiness)
	if err == nil {
		d.tokens.put(k, gen, accessEntry{t: t, b: b, read: time.Now()})
	}
	return t, b, err
}

// accessChanged records that the transaction changes what a token lookup
// may have read (see accessCache): once it commits, the cache ends.
func (t *tx) accessChanged() { t.access = true }
