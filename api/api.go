// Package api holds the OpenAPI 3.1 description of the Loyalty HTTP API.
package api

import _ "embed"

// OpenAPI is the OpenAPI 3.1 document (YAML) describing the Loyalty HTTP API,
// as served at GET /openapi.yaml. It must not be modified.
//
//go:embed openapi.yaml
var OpenAPI []byte
