// Package gcmsiv is AES-GCM-SIV (RFC 8452), the nonce-misuse-resistant AEAD
// that encrypts the messages of an encrypted stream (ENC-4).
//
// No module served here offers a fast implementation: Tink's is pure Go
// (about 74 MB/s measured on this machine) and pulls in protobuf. This
// package is RFC 8452 on crypto/aes (AES-NI where the CPU has it) with
// POLYVAL in amd64 assembly on PCLMULQDQ and a constant-time pure Go
// POLYVAL elsewhere; the two are checked against each other by a fuzz test
// and both against every AES-GCM-SIV vector of Wycheproof, which includes
// RFC 8452's appendix C.
package gcmsiv
