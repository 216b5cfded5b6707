package httpapi

import (
	"net/http"

	"github.com/loyalty/loyalty/internal/loyalty"
)

// queryNames reads the include and relationships parameters of a request
// in every form clients send (loyalty.QueryNames: `a,b`, repeated, and
// PHP's `include[]=a` or `include[0]=a`). A name the endpoint does not
// offer, in either, is a bad request naming it; nil offers none. Every
// read handler calls it, so that no endpoint drops a name silently.
func queryNames(r *http.Request, includes, relationships []string) (include, rel map[string]bool, err error) {
	q := r.URL.Query()
	if include, err = loyalty.QueryNames(q, "include", includes); err != nil {
		return nil, nil, err
	}
	if rel, err = loyalty.QueryNames(q, "relationships", relationships); err != nil {
		return nil, nil, err
	}
	return include, rel, nil
}
