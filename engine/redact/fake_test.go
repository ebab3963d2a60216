package redact

import (
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"strings"
)

// Fake credentials are generated at test time from a fixed seed, so no token-shaped
// literal sits in the source for secret scanners to trip over, and every run sees the
// same values.

const (
	alnum   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upalnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	hexLow  = "0123456789abcdef"
	b64     = alnum + "+/"
	b64url  = alnum + "-_"
)

// fakeRand is the generator behind every fake secret.
var fakeRand = rand.New(rand.NewPCG(2024, 12))

// rnd returns n bytes drawn from alphabet.
func rnd(alphabet string, n int) string {
	var b strings.Builder
	for range n {
		b.WriteByte(alphabet[fakeRand.IntN(len(alphabet))])
	}
	return b.String()
}

// cat joins pieces; prefixes are split in the source so the file never holds a token.
func cat(parts ...string) string { return strings.Join(parts, "") }

// fakeJWT builds a signed-looking JWT with the given claims.
func fakeJWT(claims string) string {
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." +
		enc.EncodeToString([]byte(claims)) + "." + rnd(b64url, 43)
}

// fakePEM builds a private key block of the given kind ("RSA ", "OPENSSH ", "").
func fakePEM(kind string, lines int) string {
	var b strings.Builder
	b.WriteString(cat("-----BEGIN ", kind, "PRIV", "ATE KEY-----\n"))
	for range lines {
		b.WriteString(rnd(b64, 64) + "\n")
	}
	b.WriteString(rnd(b64, 20) + "==\n")
	b.WriteString(cat("-----END ", kind, "PRIV", "ATE KEY-----"))
	return b.String()
}

// jsonText returns s encoded as the inside of a JSON string (no quotes, no HTML escaping).
func jsonText(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}
