//go:build tools

// Package tools pins KWOK, which simulates Nodes and Pods so Deployments and
// StatefulSets reach Ready without a container runtime.
package tools

import (
	_ "sigs.k8s.io/kwok/cmd/kwok"
)
