// Package curvekey makes, writes and reads the CurveZMQ keys that authenticate and encrypt the
// wire between a gateway and its workers on other machines.
//
// A key is 32 bytes of Curve25519, written as 40 characters of Z85 (ZeroMQ RFC 32). A key pair
// lives in two files named after one base path, in the layout of ZeroMQ's own certificates
// (CZMQ's zcert, pyzmq's zmq.auth), so ZeroMQ tools read them too:
//
//	BASE.key         the public key: give it to the other side
//	BASE.key_secret  the public and the secret key: keep it private (mode 0600)
//
// Both are text:
//
//	#   hoot CURVE public key: ...
//	metadata
//	curve
//	    public-key = "<40 characters of Z85>"
//	    secret-key = "<40 characters of Z85>"    (only in BASE.key_secret)
//
// The package needs neither ZeroMQ nor cgo: keys are made with crypto/ecdh's X25519, the same
// curve and the same key format that libzmq's zmq_curve_keypair uses.
package curvekey

import (
	"crypto/ecdh"
	"crypto/rand"
	"fmt"
)

// KeyLen is the length of a key in Z85: 40 characters.
const KeyLen = 40

// File name suffixes of a key pair's two files.
const (
	PublicSuffix = ".key"
	SecretSuffix = ".key_secret"
)

// A Pair is a CURVE key pair, both keys in Z85.
type Pair struct {
	Public string
	Secret string
}

// Generate returns a new random key pair.
func Generate() (Pair, error) {
	sk, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		return Pair{}, fmt.Errorf("curvekey: generate: %w", err)
	}
	return Pair{Public: Encode([32]byte(sk.PublicKey().Bytes())), Secret: Encode([32]byte(sk.Bytes()))}, nil
}

// PublicOf returns the public key of a secret key, both in Z85.
func PublicOf(secret string) (string, error) {
	raw, err := Decode(secret)
	if err != nil {
		return "", err
	}
	sk, err := ecdh.X25519().NewPrivateKey(raw[:])
	if err != nil {
		return "", fmt.Errorf("curvekey: %w", err)
	}
	return Encode([32]byte(sk.PublicKey().Bytes())), nil
}

// Check reports whether p is a well-formed pair whose public key belongs to its secret key.
func (p Pair) Check() error {
	public, err := PublicOf(p.Secret)
	if err != nil {
		return fmt.Errorf("secret key: %w", err)
	}
	if _, err := Decode(p.Public); err != nil {
		return fmt.Errorf("public key: %w", err)
	}
	if public != p.Public {
		return fmt.Errorf("curvekey: the public key %s does not belong to the secret key (its public key is %s)", p.Public, public)
	}
	return nil
}
