package main

import (
	"encoding/base64"
	"fmt"

	"github.com/iggygo/iggy/adapters/config"
	"github.com/iggygo/iggy/core/node"
	"github.com/iggygo/iggy/core/streamkey"
)

// nodeEncryption derives the key-encryption keys of [encryption]: the
// current key's first, then the previous keys' (the config validated their
// form already).
func nodeEncryption(e config.Encryption) (node.Encryption, error) {
	out := node.Encryption{Enabled: e.Enabled, RetiredFingerprints: e.RetiredKEKFingerprints}
	keys := e.PreviousKeys
	if e.Key != "" {
		keys = append([]string{e.Key}, keys...)
	}
	for i, k := range keys {
		raw, err := base64.StdEncoding.DecodeString(k)
		if err != nil {
			return out, fmt.Errorf("encryption key %d: %w", i, err)
		}
		kek, err := streamkey.DeriveKEK(raw)
		if err != nil {
			return out, fmt.Errorf("encryption key %d: %w", i, err)
		}
		out.KEKs = append(out.KEKs, kek)
	}
	return out, nil
}
