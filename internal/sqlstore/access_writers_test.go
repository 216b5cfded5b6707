package sqlstore

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// notAccessChanges are the writers of accessTables (or of a table named at
// run time) that need not end the cached token lookups, each with why.
var notAccessChanges = map[string]string{
	"DB.InsertToken":  "a new token: only tokens found are cached, so no lookup of it is",
	"DB.InsertApp":    "a new app has no tokens yet",
	"DB.SetAppSecret": "the client secret is not read by the lookup",
	"tx.LockPrograms": "a no-op update of businesses, taken as a row lock",
	"tx.LockEntry":    "a SELECT ... FOR UPDATE of a ledger entry: a row lock, no write",
	"DB.RecordLogin":  "writes owners or users, which the lookup does not read",
	"tx.setPassword":  "writes owners, staff, developers or support_staff, which the lookup does not read",
	"setLinkValues":   "writes the link tables of offers, rewards and gift cards, which the lookup does not read",
	"leaseQueue.take": "writes a lease queue's table (TestLeaseQueuesAreNotAccessTables), which the lookup does not read",
	"leaseStmt.sql":   "writes a lease queue's table (TestLeaseQueuesAreNotAccessTables), which the lookup does not read",
}

var (
	sqlWrite    = regexp.MustCompile(`\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(\w+)`)
	sqlDynWrite = regexp.MustCompile(`\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s*$`)
	sqlRead     = regexp.MustCompile(`\b(?:FROM|JOIN)\s+(\w+)`)
)

// TestAccessTablesAreWhatTheLookupReads: accessTables names exactly the
// tables the token lookups read.
func TestAccessTablesAreWhatTheLookupReads(t *testing.T) {
	var read []string
	for _, m := range sqlRead.FindAllStringSubmatch(accessQuery+" "+accessBusinessQuery, -1) {
		if !slices.Contains(read, m[1]) {
			read = append(read, m[1])
		}
	}
	slices.Sort(read)
	want := slices.Sorted(slices.Values(accessTables))
	if !slices.Equal(read, want) {
		t.Errorf("the lookups read %v; accessTables is %v", read, want)
	}
}

// TestAccessWritersMarkTheChange holds the store to accessCache's rule:
// every function of this package whose SQL writes one of cachedTables (or
// a table named at run time) calls accessChanged, or says in
// notAccessChanges why the write cannot change a cached lookup.
func TestAccessWritersMarkTheChange(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				// SQL kept in a package-level constant cannot be tied to
				// its writer: write such statements inside the function.
				for _, w := range accessWrites(decl) {
					t.Errorf("%s: a package-level declaration writes %s", fset.Position(decl.Pos()), w)
				}
				continue
			}
			writes := accessWrites(fn.Body)
			if len(writes) == 0 {
				continue
			}
			key := funcKey(fn)
			seen[key] = true
			_, exempt := notAccessChanges[key]
			switch marks := callsAccessChanged(fn.Body); {
			case !marks && !exempt:
				t.Errorf("%s: %s writes %v but does not call accessChanged (nor is it in notAccessChanges)",
					fset.Position(fn.Pos()), key, writes)
			case marks && exempt:
				t.Errorf("%s: %s calls accessChanged and is in notAccessChanges", fset.Position(fn.Pos()), key)
			}
		}
	}
	for key := range notAccessChanges {
		if !seen[key] {
			t.Errorf("notAccessChanges names %s, which writes none of accessTables", key)
		}
	}
}

// accessWrites lists the writes to cachedTables (or to a table named at
// run time, shown as "?") in the string literals under n.
func accessWrites(n ast.Node) []string {
	var out []string
	ast.Inspect(n, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		for _, m := range sqlWrite.FindAllStringSubmatch(s, -1) {
			if slices.Contains(cachedTables, m[1]) {
				out = append(out, m[1])
			}
		}
		if sqlDynWrite.MatchString(s) {
			out = append(out, "?")
		}
		return true
	})
	return out
}

// callsAccessChanged reports whether n calls a method named accessChanged.
func callsAccessChanged(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "accessChanged" {
				found = true
			}
		}
		return !found
	})
	return found
}

// funcKey names a function as notAccessChanges does: "DB.Name", "tx.Name"
// or "name".
func funcKey(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}
