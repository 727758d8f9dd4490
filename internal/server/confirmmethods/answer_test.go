package confirmmethods

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/internal/server/confirm/asks"
	"github.com/egohost/egohost/internal/server/rpcparams"
	"github.com/egohost/egohost/protocol"
)

// fakePopup is the popup of the browser it names.
type fakePopup string

func (p fakePopup) Browser() string { return string(p) }

// The owner answers any ask (confirm.answer), the person at a browser
// only those on it (popup.confirm.answer); the answer names who gave it.
func TestAnswer(t *testing.T) {
	tests := []struct {
		name  string
		popup string // "": the owner's CLI
		p     protocol.ConfirmAnswerParams
		twice bool
		// want: the answer's decision; the ask then ends with who and code.
		want     string
		who      string
		askCode  protocol.Code
		wantCode protocol.Code
		wantMsg  string
	}{
		{name: "the owner allows", p: protocol.ConfirmAnswerParams{ID: "$B1", Allow: true}, want: "allowed", who: "owner"},
		{name: "the owner allows always", p: protocol.ConfirmAnswerParams{ID: "$B1", Allow: true, Always: true}, want: "always", who: "owner"},
		{name: "the owner denies", p: protocol.ConfirmAnswerParams{ID: "$B2"}, want: "denied", who: "owner", askCode: protocol.CodeDeniedByPerson},
		{name: "the owner names no ask", p: protocol.ConfirmAnswerParams{Allow: true}, wantCode: protocol.CodeInvalidParams, wantMsg: "confirm.answer: id is empty (see `egohost confirm list`)"},
		{name: "the owner names an ask that is not waiting", p: protocol.ConfirmAnswerParams{ID: "c9-00000000", Allow: true}, wantCode: protocol.CodeInvalidParams, wantMsg: `confirm.answer: no act waits as "c9-00000000"`},
		{name: "the owner answers twice", p: protocol.ConfirmAnswerParams{ID: "$B1", Allow: true}, twice: true, wantCode: protocol.CodeInvalidParams, wantMsg: "was answered already"},
		{name: "the person at its browser allows", popup: "B1", p: protocol.ConfirmAnswerParams{ID: "$B1", Allow: true}, want: "allowed", who: "person"},
		{name: "the person at its browser denies", popup: "B2", p: protocol.ConfirmAnswerParams{ID: "$B2"}, want: "denied", who: "person", askCode: protocol.CodeDeniedByPerson},
		{name: "the person at another browser", popup: "B2", p: protocol.ConfirmAnswerParams{ID: "$B1", Allow: true}, wantCode: protocol.CodeInvalidParams, wantMsg: `popup.confirm.answer: no act waits as "$B1" on this browser`},
		{name: "the person names no ask", popup: "B1", p: protocol.ConfirmAnswerParams{Allow: true}, wantCode: protocol.CodeInvalidParams, wantMsg: `popup.confirm.answer: no act waits as "" on this browser`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, s := newMethods(t)
			waiting := map[string]*asks.Ask{
				"$B1": s.store.Add(protocol.Confirm{Agent: "bot", Kind: "submit", Origin: "https://shop.example", Action: "click button 'Pay'", Browser: "B1", Tab: 7}, time.Minute, nil),
				"$B2": s.store.Add(protocol.Confirm{Agent: "bot", Kind: "submit", Origin: "https://shop.example", Action: "click button 'Pay'", Browser: "B2", Tab: 3}, time.Minute, nil),
			}
			p := tt.p
			ask := waiting[p.ID]
			if ask != nil && (tt.popup == "" || ask.Browser == tt.popup) {
				p.ID = ask.ID
			}
			answer := func() (any, error) {
				if tt.popup != "" {
					return m.PopupAnswer(context.Background(), fakePopup(tt.popup), p)
				}
				return m.Answer(context.Background(), &fakeCall{}, p)
			}
			if tt.twice {
				if _, err := answer(); err != nil {
					t.Fatalf("the first answer: %v", err)
				}
			}
			res, err := answer()
			checkErr(t, err, tt.wantCode, tt.wantMsg)
			if err != nil {
				return
			}
			if diff := cmp.Diff(protocol.ConfirmAnswerResult{ID: ask.ID, Decision: tt.want}, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			decision, who, err := ask.Wait(context.Background(), time.Minute)
			if decision != tt.want || who != tt.who || codeOf(err) != tt.askCode {
				t.Errorf("the ask ended %s by %s (%v), want %s by %s (code %v)", decision, who, err, tt.want, tt.who, tt.askCode)
			}
		})
	}
}

// confirm.list lists every browser's asks, oldest first, with their
// pictures when asked; popup.confirm.list its own browser's, with them.
func TestList(t *testing.T) {
	m, s := newMethods(t)
	for _, b := range []string{"B2", "B1", "B2"} {
		s.store.Add(protocol.Confirm{Agent: "bot", Action: "click on " + b, Browser: b, Picture: []byte("PNG")}, time.Minute, nil)
	}
	seen := func(res any, err error) string {
		if err != nil {
			return err.Error()
		}
		var out []string
		for _, q := range res.(protocol.ConfirmListResult).Pending {
			out = append(out, q.ID[:2]+" "+q.Browser+" "+string(q.Picture))
		}
		return strings.Join(out, ", ")
	}
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		list func() (any, error)
		want string
	}{
		{"confirm.list", func() (any, error) { return m.List(ctx, &fakeCall{}, protocol.ConfirmListParams{}) }, "c1 B2 , c2 B1 , c3 B2 "},
		{"confirm.list with pictures", func() (any, error) { return m.List(ctx, &fakeCall{}, protocol.ConfirmListParams{Pictures: true}) }, "c1 B2 PNG, c2 B1 PNG, c3 B2 PNG"},
		{"popup.confirm.list", func() (any, error) { return m.PopupList(ctx, fakePopup("B2"), rpcparams.None{}) }, "c1 B2 PNG, c3 B2 PNG"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := seen(tt.list()); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
