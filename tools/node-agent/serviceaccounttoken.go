package main

import (
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// boundToken is a token of the pod's service account, bound to the pod.
type boundToken struct {
	token   string
	renewAt time.Time
}

// serviceAccountToken is a projected serviceAccountToken source's content:
// a TokenRequest for the pod's service account, bound to the pod (so the API
// server rejects it once the pod is gone), renewed as a kubelet does at 80%
// of its lifetime. Projected volumes are re-synced every few seconds; a
// token is requested only when it is due.
func (rt *podRuntime) serviceAccountToken(src *corev1.ServiceAccountTokenProjection) (string, error) {
	rt.tokenMu.Lock()
	defer rt.tokenMu.Unlock()
	key := fmt.Sprintf("%s|%v", src.Audience, src.ExpirationSeconds)
	if t, ok := rt.tokens[key]; ok && time.Now().Before(t.renewAt) {
		return t.token, nil
	}
	expiration := int64(3600)
	if src.ExpirationSeconds != nil {
		expiration = *src.ExpirationSeconds
	}
	var audiences []string
	if src.Audience != "" {
		audiences = []string{src.Audience}
	}
	rt.mu.Lock()
	pod := rt.pod
	rt.mu.Unlock()
	account := pod.Spec.ServiceAccountName
	if account == "" {
		account = "default"
	}
	tr, err := rt.p.cfg.client.CoreV1().ServiceAccounts(pod.Namespace).CreateToken(rt.ctx, account, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{
			Audiences:         audiences,
			ExpirationSeconds: &expiration,
			BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("token of service account %q: %w", account, err)
	}
	issued := time.Now()
	lifetime := tr.Status.ExpirationTimestamp.Sub(issued)
	if rt.tokens == nil {
		rt.tokens = map[string]boundToken{}
	}
	rt.tokens[key] = boundToken{token: tr.Status.Token, renewAt: issued.Add(lifetime * 8 / 10)}
	return tr.Status.Token, nil
}
