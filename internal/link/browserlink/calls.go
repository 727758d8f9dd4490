package browserlink

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/egohost/egohost/internal/link/extwire"
)

// The link's own refusals of the extension's calls (Options.ReplyError
// words them for the extension).
var (
	// ErrNoCalls: the link takes no calls (Options.Call is nil).
	ErrNoCalls = errors.New("this service takes no calls from the extension")
	// ErrNoMethod: the call names no method.
	ErrNoMethod = errors.New("no method")
)

// BusyError refuses a call while Limit calls of the extension run.
type BusyError struct {
	Method string
	Limit  int
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("%s: %d calls from the extension are running; retry when one has answered", e.Method, e.Limit)
}

// serveCall runs one call of the extension in its own goroutine and sends
// its reply. Calls over the cap are refused with busy at once.
func (l *Link) serveCall(in *extwire.Message) {
	id := *in.Call
	if l.opts.Call == nil {
		l.replyCall(id, nil, fmt.Errorf("%s: %w", in.Method, ErrNoCalls))
		return
	}
	if in.Method == "" {
		l.replyCall(id, nil, fmt.Errorf("call %d: %w", id, ErrNoMethod))
		return
	}
	select {
	case l.calls <- struct{}{}:
	default:
		l.replyCall(id, nil, &BusyError{Method: in.Method, Limit: cap(l.calls)})
		return
	}
	go func() {
		defer func() { <-l.calls }()
		res, err := l.opts.Call(l.callCtx, in.Method, in.Params)
		l.replyCall(id, res, err)
	}()
}

// replyCall sends a call's reply; its error as ReplyError words it (a
// result that does not encode is an error too).
func (l *Link) replyCall(id int64, result any, err error) {
	r := extwire.CallReply{Event: extwire.EventCallReply, Call: id}
	if err == nil {
		b, merr := json.Marshal(result)
		if merr != nil {
			err = fmt.Errorf("encode result: %w", merr)
		} else {
			r.Result = b
		}
	}
	if err != nil {
		r.Error = l.opts.ReplyError(err)
	}
	b, merr := json.Marshal(r)
	if merr != nil {
		l.logger().Warn("encode call reply", "call", id, "err", merr)
		return
	}
	if serr := l.send(b); serr != nil {
		l.logger().Warn("send call reply", "call", id, "err", serr)
	}
}

// Notify sends the extension a notice on a topic (PROTOCOL.md §2.6): the
// background keeps the latest params of each topic for the popup and sets
// the icon's badge from params' "badge" string when it has one.
func (l *Link) Notify(topic string, params any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("notify %s: %w", topic, err)
	}
	b, err := json.Marshal(extwire.TopicNotice{Event: extwire.EventNotice, Topic: topic, Params: p})
	if err != nil {
		return fmt.Errorf("notify %s: %w", topic, err)
	}
	if err := l.send(b); err != nil {
		return fmt.Errorf("notify %s: %w", topic, err)
	}
	return nil
}
