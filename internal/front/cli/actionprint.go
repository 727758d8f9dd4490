package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/egohost/egohost/protocol"
)

// printAction prints an action's result for people: what was done to
// which element, then what was waited for.
func printAction(did string) func(w io.Writer, raw json.RawMessage) error {
	return printAs(func(w io.Writer, r protocol.ActionResult) error {
		return writeAction(w, did, r)
	})
}

// printKeys prints the result of press or type: which element had the
// focus (the keys went there), or that nothing had. *what is the key or
// the text, known once the params are parsed.
func printKeys(did, to string, what *string) func(w io.Writer, raw json.RawMessage) error {
	return printAs(func(w io.Writer, r protocol.ActionResult) error {
		if r.Element == "" {
			return writeAction(w, did+" "+*what+" with nothing focused (the page got the keys)", r)
		}
		return writeAction(w, did+" "+*what+" "+to, r)
	})
}

// writeAction writes an action's result: what was done to which element,
// then what was waited for.
func writeAction(w io.Writer, did string, r protocol.ActionResult) error {
	var b bytes.Buffer
	b.WriteString(did)
	if r.Element != "" {
		b.WriteString(" " + clip(r.Element, 80))
	}
	switch {
	case r.Value != nil:
		fmt.Fprintf(&b, " → %q", clip(*r.Value, 80))
	case r.Selected != nil:
		fmt.Fprintf(&b, " → %s", r.SelectedText())
	case r.Checked != nil:
		if *r.Checked {
			b.WriteString(" → checked")
		} else {
			b.WriteString(" → unchecked")
		}
	case r.Scroll != nil:
		fmt.Fprintf(&b, " → window at (%.0f, %.0f)", r.Scroll.X, r.Scroll.Y)
	}
	fmt.Fprintf(&b, " in %s", ms(r.TookMs))
	var notes []string
	if r.Waited.Attempts > 1 {
		n := fmt.Sprintf("waited %s", ms(r.Waited.Ms))
		if len(r.Waited.Reasons) > 0 {
			n += ": " + strings.Join(r.Waited.Reasons, "; ")
		}
		notes = append(notes, n)
	}
	if len(r.Settled.For) > 0 {
		n := fmt.Sprintf("settled %s: %s", ms(r.Settled.Ms), strings.Join(r.Settled.For, ", "))
		if r.Settled.Capped {
			n += " (capped)"
		}
		notes = append(notes, n)
	}
	if n := r.Settled.EndNote(); n != "" {
		notes = append(notes, n)
	}
	if len(notes) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(notes, "; "))
	}
	b.WriteByte('\n')
	if r.FocusMovedTo != "" {
		fmt.Fprintf(&b, "the page moved the focus to %s: the text went there\n", clip(r.FocusMovedTo, 80))
	}
	if r.ReleasedOn != "" {
		fmt.Fprintf(&b, "the release landed on %s, not on the element (it moved or was replaced after the press): the page saw a press of it and no click\n", clip(r.ReleasedOn, 80))
	}
	if r.Settled.Navigated && r.Settled.URL != "" {
		fmt.Fprintf(&b, "navigated to %s\n", r.Settled.URL)
	}
	for _, t := range r.Opened {
		fmt.Fprintf(&b, "opened tab %d%s: %s (act there with --tab %d)\n", t.ID, popupWords(t), t.URL, t.ID)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return err
	}
	if r.Dialog != nil {
		return printDialogOpened(w, r.Dialog)
	}
	return nil
}

func printDialogOpened(w io.Writer, d *protocol.Dialog) error {
	_, err := fmt.Fprintf(w, "a JavaScript %s is open: %q (answer it: egohost dialog accept|dismiss)\n", d.Type, d.Message)
	return err
}

func printNavResult(w io.Writer, r protocol.NavResult) error {
	switch {
	case r.Download:
		fmt.Fprintf(w, "%s started a download (egohost download waits for it)\n", r.URL)
	case r.SameDocument:
		fmt.Fprintf(w, "%s (same document) in %s\n", r.URL, ms(r.TookMs))
	default:
		fmt.Fprintf(w, "%s %q: %s in %s\n", r.URL, r.Title, r.Reached, ms(r.TookMs))
	}
	if r.Dialog != nil {
		return printDialogOpened(w, r.Dialog)
	}
	return nil
}

func ms(v float64) string {
	if v >= 1000 {
		return fmt.Sprintf("%.2f s", v/1000)
	}
	return fmt.Sprintf("%.0f ms", v)
}

func size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// popupWords says that an opened tab is a popup window's (a sign-in or
// payment window): it has a window of its own.
func popupWords(t protocol.Tab) string {
	if t.Popup {
		return ", a popup window"
	}
	return ""
}
