package client

import (
	"context"
	"iter"
)

// Pages iterates over the items of a paged list, fetching page after page
// from first while fetch says another page follows. An error is yielded
// once (with the zero item) and ends the iteration.
//
// Pages are read by number, as the API pages: an item written while the
// iteration runs may shift the items after it from one page to the next,
// so that one is seen twice or not at all. Filter on created_at to follow
// a list that changes.
func Pages[T any](ctx context.Context, first int, fetch func(ctx context.Context, page int) (items []T, more bool, err error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for page := first; ; page++ {
			items, more, err := fetch(ctx, page)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if !more || len(items) == 0 {
				return
			}
		}
	}
}

// firstPage is where an iteration starts: the page asked for, else 1.
func firstPage(p *Page) int {
	if p != nil && *p > 0 {
		return *p
	}
	return 1
}

// fullPage is the page size of an iteration: the one asked for, else the
// largest the API serves, for the fewest round trips.
func fullPage(n *PerPage) *PerPage {
	if n != nil {
		return n
	}
	return ptr(100)
}
