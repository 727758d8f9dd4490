package wireerr

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/protocol"
)

// The agents' codes of the browser link's errors: the extension's error
// codes (PROTOCOL.md §2.2) and the link's own failures, on their own or
// wrapped by the packages between the link and the service.
func TestLinkErrorCodes(t *testing.T) {
	ext := func(code string) error {
		return &browserlink.Error{Kind: browserlink.KindExtension, Op: "cdp", Ext: &extwire.ExtError{Code: code, Message: "m"}}
	}
	tests := []struct {
		name string
		err  error
		want protocol.Code
	}{
		{"no_tab", ext(extwire.ErrNoTab), protocol.CodeTabNotFound},
		{"already_attached", ext(extwire.ErrAlreadyAttached), protocol.CodeAlreadyAttached},
		{"attach_failed", ext(extwire.ErrAttachFailed), protocol.CodeAttachFailed},
		{"detached", ext(extwire.ErrDetached), protocol.CodeDetached},
		{"cdp_error", ext(extwire.ErrCDP), protocol.CodeCDP},
		{"too_large", ext(extwire.ErrTooLarge), protocol.CodeTooLarge},
		{"automation_stopped", ext(extwire.ErrAutomationStopped), protocol.CodeAutomationStopped},
		{"forbidden_page", ext(extwire.ErrForbiddenPage), protocol.CodeForbiddenOriginScope},
		{"bad_request", ext(extwire.ErrBadRequest), protocol.CodeInvalidParams},
		{"unknown_op", ext(extwire.ErrUnknownOp), protocol.CodeInvalidParams},
		{"another extension code", ext("internal"), protocol.CodeExtension},
		{"timeout", &browserlink.Error{Kind: browserlink.KindTimeout}, protocol.CodeTimeout},
		{"gone", &browserlink.Error{Kind: browserlink.KindGone}, protocol.CodeBrowserGone},
		{"too large to send", &browserlink.Error{Kind: browserlink.KindTooLarge}, protocol.CodeTooLarge},
		{"detached while it ran", &browserlink.Error{Kind: browserlink.KindDetached}, protocol.CodeDetached},
		{"tab closed while it ran", &browserlink.Error{Kind: browserlink.KindTabClosed}, protocol.CodeTabNotFound},
		{"wrapped", fmt.Errorf("snapshot: %w", ext(extwire.ErrNoTab)), protocol.CodeTabNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Of(tt.err).Code; got != tt.want {
				t.Errorf("Of: got %s, want %s", got.Name(), tt.want.Name())
			}
			if got := CodeOf(tt.err); got != tt.want {
				t.Errorf("CodeOf: got %s, want %s", got.Name(), tt.want.Name())
			}
			if got := protocol.CodeOf(FromLink(tt.err)); got != tt.want {
				t.Errorf("FromLink: got %s, want %s", got.Name(), tt.want.Name())
			}
			if got, want := FromLink(tt.err).Error(), tt.err.Error(); tt.name == "wrapped" && got != want {
				t.Errorf("FromLink's text: got %q, want %q (the wrapping kept)", got, want)
			}
		})
	}
}

// A timeout of the link stays a context deadline for the waits above it,
// on its own and wrapped.
func TestLinkTimeoutIsADeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	<-ctx.Done()
	l := browserlink.New(nil, browserlink.Options{})
	_, err := l.Call(ctx, extwire.TabsList{})
	for _, err := range []error{FromLink(err), FromLink(fmt.Errorf("wait: %w", err))} {
		if !errors.Is(err, context.DeadlineExceeded) || protocol.CodeOf(err) != protocol.CodeTimeout {
			t.Errorf("got %v (code %s), want a timeout that is a context deadline", err, protocol.CodeOf(err).Name())
		}
	}
}

// The link's refusals of the extension's calls (the popup channel) get
// their codes here.
func TestReplyError(t *testing.T) {
	tests := []struct {
		err  error
		want protocol.Code
	}{
		{fmt.Errorf("popup.status: %w", browserlink.ErrNoCalls), protocol.CodeMethodNotFound},
		{fmt.Errorf("call 9: %w", browserlink.ErrNoMethod), protocol.CodeInvalidRequest},
		{&browserlink.BusyError{Method: "slow", Limit: 2}, protocol.CodeBusy},
		{protocol.Errorf(protocol.CodeNotFound, "nothing"), protocol.CodeNotFound},
		{errors.New("plain"), protocol.CodeInternal},
	}
	for _, tt := range tests {
		if got := Reply(tt.err); got.Code != tt.want {
			t.Errorf("%v: got %s, want %s", tt.err, got.Code.Name(), tt.want.Name())
		}
	}
	if got := Reply(&browserlink.BusyError{Method: "slow", Limit: 2}).Data["limit"]; got != 2 {
		t.Errorf("busy's limit: got %v, want 2", got)
	}
}
