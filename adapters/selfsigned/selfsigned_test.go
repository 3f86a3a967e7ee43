package selfsigned

import (
	"crypto/x509"
	"testing"
	"time"
)

// The generated certificate verifies for every loopback name against itself
// as the only root, and is valid now.
// covers TRAN-2
func TestCertificateVerifiesForLoopbackNames(t *testing.T) {
	cert, err := Certificate()
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(cert.Leaf)
	for _, h := range Hosts {
		if _, err := cert.Leaf.Verify(x509.VerifyOptions{DNSName: h, Roots: roots, CurrentTime: time.Now()}); err != nil {
			t.Errorf("verify for %q: %v", h, err)
		}
	}
	again, err := Certificate()
	if err != nil {
		t.Fatal(err)
	}
	if again.Leaf.SerialNumber.Cmp(cert.Leaf.SerialNumber) == 0 {
		t.Fatal("two certificates share a serial number")
	}
}
