//go:build tools

// Package tools pins kube-proxy for the real node: Service ClusterIPs for its
// pods and the host, from the same Kubernetes release as the control plane.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-proxy"
)
