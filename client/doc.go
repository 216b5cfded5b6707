// Package client is the Go SDK of the Loyalty API.
//
// The types and the low-level client (Client, ClientWithResponses) are
// generated from api/openapi.yaml by oapi-codegen; the hand-written parts
// make them pleasant and safe to use against a real server:
//
//   - OAuth: the password, authorization-code (with PKCE) and refresh
//     grants, and Tokens, which refreshes the access token when it
//     expires or the server refuses it, rotating the refresh token once.
//   - Retries: every write carries an Idempotency-Key, and a request that
//     fails on the network, with a 5xx or with a 429 is sent again with
//     the same key after an exponential, jittered backoff that honours
//     Retry-After.
//   - Paging: iterators (iter.Seq2) over the list endpoints.
//   - Webhooks: verification of Standard Webhooks signatures.
//
// New builds a ClientWithResponses with all of it:
//
//	oauth := &client.OAuth{BaseURL: url, ApplicationKey: key, ClientID: id, ClientSecret: secret}
//	tokens, err := oauth.Password(ctx, email, password, client.ScopeAdmin)
//	api, err := client.New(url, key, tokens)
package client

//go:generate go tool oapi-codegen -config oapi-codegen.yaml -o client.gen.go ../api/openapi.yaml
