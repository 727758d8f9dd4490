package agentconn

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/egohost/egohost/protocol"
)

// Authorize applies the checks that keep web pages and other users out:
// no browser Origin, a loopback Host (no DNS rebinding), the bearer token.
// Every HTTP front end of egohost (the service, `egohost mcp --http`)
// uses it.
func Authorize(r *http.Request, token string) *protocol.Error {
	if e := CheckCaller(r); e != nil {
		return e
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), []byte(token)) != 1 {
		return protocol.Errorf(protocol.CodeUnauthorized, "missing or wrong bearer token (see the token file)")
	}
	return nil
}

// CheckCaller refuses web pages (any Origin) and DNS rebinding (a Host
// that is not loopback).
func CheckCaller(r *http.Request) *protocol.Error {
	if o := r.Header.Get("Origin"); o != "" {
		return protocol.Errorf(protocol.CodeForbiddenOrigin, "requests from web pages are refused (Origin: %s)", o)
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if !isLoopbackHost(host) {
		return protocol.Errorf(protocol.CodeForbiddenHost, "Host %q is not a loopback address", r.Host)
	}
	return nil
}

// CheckLoopback refuses a listen address that is not loopback: every
// listener of egohost for agents (the service, `egohost mcp --http`) uses
// it.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q: %w", addr, err)
	}
	if !isLoopbackHost(host) {
		return fmt.Errorf("%q is not a loopback address: egohost only listens on 127.0.0.1, ::1 or localhost", addr)
	}
	return nil
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
