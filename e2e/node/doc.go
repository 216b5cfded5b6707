// Package node runs strict third-party clients from npm
// (oauth4webapi, simple-oauth2, and standardwebhooks, which verifies real
// webhook deliveries) against the loyalty binary: the Go test
// builds and starts the binary on a fresh SQLite data directory, creates
// a business and apps with the admin CLI, and runs the Node tests beside
// it (node --test *.test.mjs) with what they need in LOYALTY_* variables.
package node
