package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"time"
)

// selfSignedServingCert gives the kubelet API a certificate. The API server
// does not verify kubelet serving certificates unless told to, as with a
// kubelet's own self-signed one.
func selfSignedServingCert(nodeName string) func(*tls.Config) error {
	return func(cfg *tls.Config) error {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return err
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(time.Now().UnixNano()),
			Subject:      pkix.Name{CommonName: nodeName},
			NotBefore:    time.Now().Add(-time.Minute),
			NotAfter:     time.Now().Add(365 * 24 * time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature,
			ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			DNSNames:     []string{nodeName, "localhost"},
			IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			return err
		}
		cfg.Certificates = append(cfg.Certificates, tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key})
		return nil
	}
}
