package replicalink

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pki writes a CA and a node certificate it signed for 127.0.0.1 (server
// and client use) into dir; it returns the cert, key and CA file paths.
func pki(t *testing.T, dir, name string) (certFile, keyFile, caFile string) {
	t.Helper()
	writePEM := func(file, kind string, der []byte) string {
		path := filepath.Join(dir, name+"-"+file)
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name + " CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "node"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	return writePEM("cert.pem", "CERTIFICATE", der), writePEM("key.pem", "EC PRIVATE KEY", keyDER), writePEM("ca.pem", "CERTIFICATE", caDER)
}

// With cert_file, key_file and ca_file, nodes whose certificates the CA
// signed for their roster address link over TLS 1.3; a node whose
// certificate another CA signed is refused, logged with its address.
func TestLinksTLSWithCA(t *testing.T) {
	dir := t.TempDir()
	cert, key, ca := pki(t, dir, "good")
	otherCert, otherKey, _ := pki(t, dir, "other")
	secret := []byte(strings.Repeat("k", 32))
	tlsFor := func(certFile, keyFile string) *TLSConfig {
		tc, err := NewTLS(false, certFile, keyFile, ca)
		if err != nil {
			t.Fatal(err)
		}
		return tc
	}
	exchange(t, cluster(t, 2, func(i int, c *Config) { c.TLS, c.Secret = tlsFor(cert, key), secret }))

	nodes := cluster(t, 2, func(i int, c *Config) {
		c.TLS, c.Secret = tlsFor(cert, key), secret
		if i == 0 {
			c.TLS = tlsFor(otherCert, otherKey)
		}
	})
	waitFor(t, func() bool { return nodes[1].bus.Stats().Refused >= 1 }, "a stranger's certificate refused")
	if nodes[0].bus.Linked(1) != 0 || !nodes[1].log.has("replica link refused", "addr=127.0.0.1:", "TLS handshake") {
		t.Fatalf("linked, or not logged:\n%s", nodes[1].log.b.String())
	}
}
