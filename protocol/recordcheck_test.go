package protocol

import "testing"

// The record methods' params checks: what they refuse, in PROTOCOL.md's
// words, and what they let through.
func TestRecordParamsCheck(t *testing.T) {
	tests := []struct {
		name  string
		check error
		want  string // "" when the params are good
	}{
		{"storage local by default", StorageGetParams{}.Check(MethodStorageGet), ""},
		{"storage local", StorageGetParams{Kind: "local"}.Check(MethodStorageGet), ""},
		{"storage session", StorageGetParams{Kind: "session"}.Check(MethodStorageGet), ""},
		{"storage other kind", StorageGetParams{Kind: "Local"}.Check(MethodStorageGet), `storage.get: kind "Local" is not local or session`},
		{"cookie", CookiesSetParams{Name: "sid"}.Check(MethodCookiesSet), ""},
		{"cookie strict", CookiesSetParams{Name: "sid", SameSite: "Strict"}.Check(MethodCookiesSet), ""},
		{"cookie none", CookiesSetParams{Name: "sid", SameSite: "None"}.Check(MethodCookiesSet), ""},
		{"cookie no name", CookiesSetParams{Value: "v"}.Check(MethodCookiesSet), "cookies.set needs a name"},
		{"cookie lower-case sameSite", CookiesSetParams{Name: "sid", SameSite: "lax"}.Check(MethodCookiesSet), `cookies.set: sameSite "lax" is not Strict, Lax or None`},
	}
	for _, tt := range tests {
		var got string
		if tt.check != nil {
			e, ok := tt.check.(*Error)
			if !ok || e.Code != CodeInvalidParams {
				t.Errorf("%s: got %v, want an invalid_params *Error", tt.name, tt.check)
				continue
			}
			got = e.Message
		}
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
