//go:build tools

// Package tools pins the real control-plane binaries the project's tests and
// the embedded dev cluster run: etcd and the Kubernetes control plane, built
// from source because no package registry here ships them.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
