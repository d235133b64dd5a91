package access

import "strings"

// maxTokenLength bounds a bearer token as this package reads it: room for a JWT with many
// claims, far less than what would cost anything to hash or parse.
const maxTokenLength = 8 << 10

// BearerToken returns the token of an Authorization header value of the Bearer scheme (RFC
// 6750 section 2.1): the scheme's name in any case, one or more spaces, and a token of the
// b64token characters. ok is false for an empty value; a value that is present but not a
// bearer token returns a reason for the caller to be told.
func BearerToken(header string) (token string, reason string, ok bool) {
	if header == "" {
		return "", "", false
	}
	scheme, rest, found := strings.Cut(header, " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", "the Authorization header must use the Bearer scheme: Authorization: Bearer TOKEN", false
	}
	token = strings.TrimLeft(rest, " ")
	switch {
	case token == "":
		return "", "the Authorization header names the Bearer scheme but carries no token", false
	case len(token) > maxTokenLength:
		return "", "the bearer token is longer than this server takes", false
	}
	// '=' may only end a token; it cannot be all of it.
	body := strings.TrimRight(token, "=")
	for i := 0; i < len(body); i++ {
		if !isB64TokenChar(body[i]) {
			return "", "the bearer token has a character that a token cannot have (RFC 6750 allows letters, digits and -._~+/ with = at the end)", false
		}
	}
	if body == "" {
		return "", "the bearer token has a character that a token cannot have (RFC 6750 allows letters, digits and -._~+/ with = at the end)", false
	}
	return token, "", true
}

// isB64TokenChar reports whether c may stand in a b64token before its trailing '='.
func isB64TokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	case c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/':
		return true
	}
	return false
}

// IsBearer reports whether an Authorization header value names the Bearer scheme.
func IsBearer(header string) bool {
	scheme, _, _ := strings.Cut(header, " ")
	return strings.EqualFold(scheme, "Bearer")
}
