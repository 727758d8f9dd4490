// Package cdperr reads Chrome's CDP errors and script exceptions. Chrome
// words its errors in text only, so the texts are matched here and
// nowhere else (chromium third_party/blink/renderer/core/inspector/*.cc).
package cdperr

import (
	"strings"

	"github.com/chromedp/cdproto/runtime"
)

// ContextGone reports whether err is Chrome saying that the execution
// context went away (navigation, frame removed).
func ContextGone(err error) bool {
	return says(err,
		"Cannot find context with specified id",
		"Execution context was destroyed",
		"Inspected target navigated or closed")
}

// ObjectGone reports whether err is Chrome saying that a remote object
// (or its node) is no longer there: its document went.
func ObjectGone(err error) bool {
	return says(err,
		"Could not find object with given id",
		"Node is detached from document",
		"Cannot find object with id")
}

// NodeGone reports whether err is Chrome saying that a node ID (or backend
// node ID) names no node of the document.
func NodeGone(err error) bool {
	return says(err,
		"No node with given id found",
		"Could not find node with given id",
		"Node with given id does not belong to the document")
}

// NoBox reports whether err is DOM.getBoxModel's error for an element with
// no layout box (display: none or contents, not connected).
func NoBox(err error) bool { return says(err, "Could not compute box model") }

// says reports whether err's text contains one of texts.
func says(err error, texts ...string) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	for _, t := range texts {
		if strings.Contains(s, t) {
			return true
		}
	}
	return false
}

// ExceptionText is the most telling text of a script exception: the first
// line of its description ("TypeError: x is not a function"), else
// Chrome's text with the thrown value.
func ExceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil && d.Exception.Description != "" {
		s := d.Exception.Description
		if i := strings.IndexByte(s, '\n'); i > 0 {
			s = s[:i]
		}
		return s
	}
	if d.Exception != nil && len(d.Exception.Value) > 0 {
		return d.Text + " " + string(d.Exception.Value)
	}
	return d.Text
}
