package agentconn

import (
	"net/http/httptest"
	"testing"

	"github.com/egohost/egohost/protocol"
)

func TestListenMustBeLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:1", "192.168.1.2:80", ":8080", "example.com:1"} {
		if err := CheckLoopback(addr); err == nil {
			t.Errorf("CheckLoopback(%q): got nil, want an error", addr)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "[::1]:80", "localhost:1"} {
		if err := CheckLoopback(addr); err != nil {
			t.Errorf("CheckLoopback(%q): %v", addr, err)
		}
	}
}

// A web page (any Origin) and a Host that is not loopback (DNS
// rebinding) are refused before the token is looked at.
func TestAuthorize(t *testing.T) {
	const token = "0123456789abcdef0123456789abcdef"
	tests := []struct {
		name, host, origin, auth string
		want                     protocol.Code // 0: admitted
	}{
		{"token", "127.0.0.1:9222", "", "Bearer " + token, 0},
		{"localhost", "localhost:1", "", "Bearer " + token, 0},
		{"IPv6 loopback", "[::1]:1", "", "Bearer " + token, 0},
		{"web page", "127.0.0.1:1", "https://evil.example", "Bearer " + token, protocol.CodeForbiddenOrigin},
		{"rebound host", "evil.example:1", "", "Bearer " + token, protocol.CodeForbiddenHost},
		{"no token", "127.0.0.1:1", "", "", protocol.CodeUnauthorized},
		{"wrong token", "127.0.0.1:1", "", "Bearer x" + token[1:], protocol.CodeUnauthorized},
		{"not bearer", "127.0.0.1:1", "", "Basic " + token, protocol.CodeUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.Host = tt.host
			if tt.origin != "" {
				r.Header.Set("Origin", tt.origin)
			}
			if tt.auth != "" {
				r.Header.Set("Authorization", tt.auth)
			}
			e := Authorize(r, token)
			switch {
			case tt.want == 0 && e != nil:
				t.Errorf("got %v, want admitted", e)
			case tt.want != 0 && (e == nil || e.Code != tt.want):
				t.Errorf("got %v, want %s", e, tt.want.Name())
			}
		})
	}
}
