//go:build tools

// Package tools pins the S3-compatible server used by the inference-service
// S3 tests, so its version is recorded in go.mod/go.sum.
package tools

import _ "github.com/versity/versitygw/cmd/versitygw"
