package browserlink

import (
	"encoding/json"
	"fmt"

	"github.com/egohost/egohost/extwire"
	"github.com/egohost/egohost/protocol"
)

// serveCall runs one call of the extension in its own goroutine and sends
// its reply. Calls over the cap are refused with busy at once.
func (l *Link) serveCall(in *extwire.Message) {
	id := *in.Call
	if l.opts.Call == nil {
		l.replyCall(id, nil, protocol.Errorf(protocol.CodeMethodNotFound, "%s: this service takes no calls from the extension", in.Method))
		return
	}
	if in.Method == "" {
		l.replyCall(id, nil, protocol.Errorf(protocol.CodeInvalidRequest, "call %d: no method", id))
		return
	}
	select {
	case l.calls <- struct{}{}:
	default:
		l.replyCall(id, nil, protocol.Errorf(protocol.CodeBusy, "%s: %d calls from the extension are running; retry when one has answered", in.Method, cap(l.calls)).With("limit", cap(l.calls)))
		return
	}
	go func() {
		defer func() { <-l.calls }()
		res, err := l.opts.Call(l.callCtx, in.Method, in.Params)
		l.replyCall(id, res, err)
	}()
}

// replyCall sends a call's reply; a result that does not encode is an
// internal error, and an error that is not a *protocol.Error is one too.
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
		r.Error = protocol.AsError(err)
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
