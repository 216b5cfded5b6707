// Package e2e holds Loyalty's end-to-end tests. Each test starts the real
// service (app.Open, the same wiring as the binary) on a fresh SQLite and a
// fresh PostgreSQL database, bootstraps it through the admin CLI code, gets
// tokens from POST /oauth/token and then talks HTTP only. Every response is
// validated against api/openapi.yaml.
//
// The package has no code of its own; its tests are in the _test.go files.
package e2e
