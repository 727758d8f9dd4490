// Package nativemsg implements the framing of Chrome's native messaging
// protocol: each message is a 32-bit unsigned length in native byte order,
// followed by exactly that many bytes of (UTF-8 JSON) payload.
//
// egohost uses the same framing on both legs of the relay: between Chrome and
// the relay (stdin/stdout) and between the relay and the service (a local
// socket). The package only frames bytes; checking that a payload is valid
// UTF-8 or JSON is the caller's job.
package nativemsg
